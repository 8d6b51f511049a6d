/* run.c - `simtlab run` and `show`: a script in a Lua state with the
 * module simt (sandboxed unless --unsafe), the command line's GPU fields
 * (simt.overrides), --stats, --trace and the stage (see cli.h). */
#define _POSIX_C_SOURCE 200809L   /* mkdir */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <lauxlib.h>
#include <lualib.h>

#include "arch.h"
#include "export.h"
#include "lsimt.h"
#include "lstage.h"
#include "sandbox.h"
#include "trace.h"
#ifdef SIMT_HAVE_STAGE
#include "stage.h"
#endif

/* Message handler: turn the error into "message\ntraceback". */
/* The longest error message printed whole (bytes). */
#define CLI_ERROR_MAX 4096

int cli_msghandler(lua_State *L)
{
    /* {simtlab_exit = N, message = "..."}: a planned failure (a grade that
     * did not pass): no traceback, exit status N */
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_getfield(L, 1, "simtlab_exit");
        int planned = lua_isinteger(L, -1);
        lua_pop(L, 1);
        if (planned) {
            lua_settop(L, 1);
            return 1;
        }
    }
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    size_t len = strlen(msg);
    if (len > CLI_ERROR_MAX) {   /* error(string.rep("x", 1e8)): the start, and how much more */
        size_t cut = CLI_ERROR_MAX;
        while (cut > 0 && ((unsigned char)msg[cut] & 0xC0) == 0x80)   /* not inside a UTF-8 character */
            cut--;
        lua_pushlstring(L, msg, cut);
        msg = lua_pushfstring(L, "%s... (%I more bytes of the error message left out)", lua_tostring(L, -1),
                              (lua_Integer)(len - cut));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* The folder that holds simtlab's own files (the one where
 * lessons/lib/workloads.lua was found) into root, "" if none. */
static void project_root(char *root, size_t n)
{
    root[0] = '\0';
    if (arch_find_file("lessons/lib/workloads.lua", root, n) == 0)
        root[strlen(root) - strlen("/lessons/lib/workloads.lua")] = '\0';
}

/* A Lua state for `script` (NULL: none) with the module simt. Scripts run
 * in the sandbox (sandbox.h: files only through simt, writes into the
 * output folder, reads from the project, the script's folder and
 * --read-dir folders, no os.execute, require only from lessons/lib and
 * the script's directory, a watchdog, a time limit and a memory cap)
 * unless `unsafe`, which opens the full standard libraries (developer
 * tools that write files). o (may be NULL) gives the options: --out,
 * --read-dir, --time-limit; for `sweep` (script NULL) its --out and --png
 * files are the ones that may be written. Close it with sandbox_close. */
lua_State *cli_new_state(const char *script, int unsafe, const cli_opts_t *o)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "simtlab: cannot create a Lua state (out of memory)\n");
        return NULL;
    }
    char lib[1024] = "", dir[1024] = ".", root[1024], out[1100];
    if (arch_find_file("lessons/lib/workloads.lua", lib, sizeof lib) == 0)
        lib[strlen(lib) - strlen("/workloads.lua")] = '\0';
    project_root(root, sizeof root);
    if (script) {
        const char *slash = strrchr(script, '/');
        if (slash)
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - script), script);
    }
    if (unsafe) {
        luaL_openlibs(L);
        /* the same modules as in the sandbox: lessons/lib and the script's folder */
        lua_getglobal(L, "package");
        lua_pushfstring(L, "%s/?.lua;%s/?.lua;", lib[0] ? lib : ".", dir);
        lua_getfield(L, -2, "path");
        lua_concat(L, 2);
        lua_setfield(L, -2, "path");
        lua_pop(L, 1);
    } else {
        const char *read_dirs[SANDBOX_MAX_DIRS + 2] = { NULL }, *read_files[3] = { NULL };
        const char *write_files[3] = { NULL };
        int nr = 0, nw = 0;
        sandbox_opts_t so = { .lib_dir = lib[0] ? lib : NULL, .script_dir = script ? dir : NULL,
                              .read_dirs = read_dirs, .read_files = read_files,
                              .write_files = write_files };
        if (root[0])
            read_dirs[nr++] = root;
        if (o) {
            for (int i = 0; i < o->nread_dirs; i++)
                read_dirs[nr++] = o->read_dir[i];
            int nf = 0;
            if (o->arch && (strchr(o->arch, '/') || cli_ends_with(o->arch, ".lua")))
                read_files[nf++] = o->arch;   /* the user named this preset file */
            if (o->read_file)
                read_files[nf++] = o->read_file;   /* check: the kernel the user named */
            if (o->time_limit)
                so.time_limit = strtod(o->time_limit, NULL);
            else if (script && !(o->stage && !o->headless))   /* a script (not sweep), not in a window */
                so.time_limit = SANDBOX_DEFAULT_SECONDS;   /* the teacher may not be watching */
            if (o->max_instructions)
                so.max_instructions = cli_parse_count(o->max_instructions, 1, 1e15);
            if (o->max_memory)
                so.max_bytes = cli_parse_count(o->max_memory, 1, 1 << 24) << 20;
        }
        if (script) {
            if (o && o->out) {
                so.out_dir = o->out;
                so.out_dir_named = 1;
            } else {
                snprintf(out, sizeof out, "%s/simtlab-out", dir);
                so.out_dir = out;
            }
        } else if (o) {   /* sweep: the files the user named */
            if (o->out)
                write_files[nw++] = o->out;
            if (o->png)
                write_files[nw++] = o->png;
        }
        if (sandbox_open(L, &so) != 0) {
            lua_close(L);
            fprintf(stderr, "simtlab: cannot create a Lua state (out of memory)\n");
            return NULL;
        }
    }
    luaL_requiref(L, "simt", luaopen_simt, 1); /* global (and package.loaded) */
    lua_pop(L, 1);
    return L;
}

/* Push a value given as text: a number if it reads as one, a table for
 * "a,b,c", otherwise the string. */
void cli_push_text_value(lua_State *L, const char *s)
{
    if (strchr(s, ',')) {
        char item[128];
        lua_Integer n = 0;
        lua_newtable(L);
        while (*s) {
            size_t len = strcspn(s, ",");
            snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1),
                     s);
            cli_push_text_value(L, item);
            lua_rawseti(L, -2, ++n);
            s += len;
            if (*s == ',')
                s++;
        }
    } else if (lua_stringtonumber(L, s) == 0) {
        lua_pushstring(L, s);
    }
}

/* 1 if the GPU fields in the table at idx make a valid description of at
 * least one GPU preset. */
static int fits_some_preset(lua_State *L, int idx)
{
    lua_Integer i, n;
    int ok = 0;
    arch_push_presets(L);
    n = (lua_Integer)lua_rawlen(L, -1);
    for (i = 1; i <= n && !ok; i++) {
        gpu_desc_t d;
        simt_err_t err;
        char name[128];
        lua_rawgeti(L, -1, i);
        snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        simt_err_clear(&err);
        ok = arch_load(L, name, &d, &err) == 0 && arch_apply_table(L, idx, &d, &err) == 0
             && gpu_desc_validate(&d, &err) == 0;
    }
    lua_pop(L, 1);
    return ok;
}

/* Push the table of GPU fields set by the options (not "arch"), then check
 * the names and value types on a description (the --arch preset, or the
 * default). Returns 0, or prints the problem and returns -1. */
int cli_push_sets(lua_State *L, const cli_opts_t *o)
{
    gpu_desc_t d;
    simt_err_t err;
    int i;
    lua_newtable(L);
    for (i = 0; i < o->nsets; i++) {
        if (o->set_value[i]) {
            cli_push_text_value(L, o->set_value[i]);
            lua_setfield(L, -2, o->set[i]);
        } else {
            const char *eq = strchr(o->set[i], '=');
            lua_pushlstring(L, o->set[i], (size_t)(eq - o->set[i]));
            cli_push_text_value(L, eq + 1);
            lua_settable(L, -3);
        }
    }
    simt_err_clear(&err);
    if (o->arch) {
        if (arch_load(L, o->arch, &d, &err) != 0) {
            fprintf(stderr, "simtlab: --arch: %s\n", err.msg);
            return -1;
        }
    } else {
        gpu_desc_default(&d);
    }
    lua_pushnil(L);
    if (lua_next(L, -2) != 0) { /* non-empty */
        lua_pop(L, 2);
        if (arch_apply_table(L, -1, &d, &err) != 0) {
            fprintf(stderr, "simtlab: bad GPU option: %s\n", err.msg);
            return -1;
        }
        /* the whole description can be checked now: with --arch on that
         * preset; without, the options must suit at least one GPU (the
         * default or a preset), so that bad usage is found at start-up
         * whether or not the script ever makes a GPU */
        if (gpu_desc_validate(&d, &err) != 0 && (o->arch || !fits_some_preset(L, lua_gettop(L)))) {
            fprintf(stderr, "simtlab: bad GPU option: %s%s\n", err.msg,
                    o->arch ? "" : " (for every GPU preset)");
            return -1;
        }
    }
    return 0;
}

/* Write the launch log of L as o->stats (CSV or JSON). */
static int write_stats(lua_State *L, const cli_opts_t *o)
{
    static const char *const first[] = { "kernel", "gpu", "grid", "block", "cycles", "time_us" };
    simt_err_t err;
    int rc;
    simt_err_clear(&err);
    lsimt_push_launch_log(L);
    if (cli_ends_with(o->stats, ".csv"))
        rc = export_csv(L, -1, o->stats, first, (int)(sizeof first / sizeof first[0]), &err);
    else
        rc = export_json(L, -1, o->stats, &err);
    lua_pop(L, 1);
    if (rc != 0)
        fprintf(stderr, "simtlab: --stats: %s\n", err.msg);
    return rc;
}

/* Run script with nargs arguments: arg[0] = script, arg[1..] = args,
 * also passed as the chunk's varargs (...), like the lua command. The
 * options set simt.overrides, the launch log and the trace. */
#ifdef SIMT_HAVE_STAGE
/* Open the stage `show`, `demo` and `lesson` draw on and attach it to L;
 * *default_png: the picture written when none was asked for. 0, or the
 * exit status after a message (L is closed then). */
static int open_stage(lua_State *L, const char *script, const cli_opts_t *o, stage_t **stage,
                      const char **default_png)
{
    simt_err_t err;
    *stage = NULL;
    *default_png = NULL;
    if (!o->stage)
        return 0;
    if (o->frames && mkdir(o->frames, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "simtlab: --frames: cannot make the folder '%s': %s\n", o->frames, strerror(errno));
        sandbox_close(L);
        return 1;
    }
    char title[300];
    const char *base = strrchr(script, '/');
    snprintf(title, sizeof title, "simtlab - %s", base ? base + 1 : script);
    stage_opts_t so = { .headless = o->headless, .screenshot = o->screenshot, .frames_dir = o->frames,
                        .every = o->every ? atoi(o->every) : 1, .lang = o->lang, .title = title,
                        .auto_s = o->auto_s ? atof(o->auto_s) : 0.0 };
    simt_err_clear(&err);
    *stage = stage_open(&so, &err);
    if (!*stage) {
        fprintf(stderr, "simtlab: %s\n", err.msg);
        sandbox_close(L);
        return 1;
    }
    if (stage_headless(*stage) && !o->screenshot && o->default_png) {
        stage_set_screenshot(*stage, o->default_png);
        *default_png = o->default_png;
    }
    lstage_attach(L, stage_ops(*stage));
    return 0;
}
#endif

/* --stats (checked writable before the run) and --trace: 0, or the exit
 * status after a message (L is closed then). */
static int open_records(lua_State *L, const cli_opts_t *o, trace_t **trace)
{
    simt_err_t err;
    *trace = NULL;
    if (o->stats) {
        /* an unwritable --stats file is bad usage, found before the run */
        FILE *f = fopen(o->stats, "ab");
        if (!f) {
            sandbox_close(L);
            fprintf(stderr, "simtlab: --stats: cannot write '%s'\n", o->stats);
            return 2;
        }
        fclose(f);
        lsimt_enable_launch_log(L);
    }
    if (o->trace) {
        char *end = NULL;
        unsigned long long every = 100;
        if (o->trace_every) {
            every = strtoull(o->trace_every, &end, 10);
            if (!end || *end || o->trace_every[0] == '-' || !o->trace_every[0]) {
                sandbox_close(L);
                return cli_usage_error("--trace-every needs a whole number of cycles, got '%s'",
                                   o->trace_every);
            }
        }
        simt_err_clear(&err);
        *trace = trace_open(o->trace, &err);
        if (!*trace) {
            sandbox_close(L);
            fprintf(stderr, "simtlab: --trace: %s\n", err.msg);
            return 1;
        }
        lsimt_set_trace(L, *trace, (uint64_t)every);
    } else if (o->trace_every) {
        sandbox_close(L);
        return cli_usage_error("%s", "--trace-every needs --trace FILE.json");
    }
    return 0;
}

/* Run the script with its arguments (as `arg` and as ...): its exit
 * status, after printing its error. */
static int run_chunk(lua_State *L, const char *script, int nargs, char **args)
{
    int i, status, rc = 0;
    if (!lua_checkstack(L, nargs + 8)) {
        fprintf(stderr, "simtlab: too many script arguments (%d)\n", nargs);
        return 2;
    }
    lua_createtable(L, nargs, 2);
    lua_pushstring(L, "simtlab");
    lua_rawseti(L, -2, -1);
    lua_pushstring(L, script);
    lua_rawseti(L, -2, 0);
    for (i = 0; i < nargs; i++) {
        lua_pushstring(L, args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    lua_pushcfunction(L, cli_msghandler);
    status = luaL_loadfilex(L, script, "t");
    if (status == LUA_OK) {
        for (i = 0; i < nargs; i++)
            lua_pushstring(L, args[i]);
        status = sandbox_pcall(L, nargs, 0, 1);
    }
    sandbox_stop_timer(L);   /* writing --stats is not the script's time */
    if (status != LUA_OK && lua_type(L, -1) == LUA_TTABLE) {   /* a planned failure (cli_msghandler) */
        lua_getfield(L, -1, "simtlab_exit");
        rc = (int)lua_tointeger(L, -1);
        lua_getfield(L, -2, "message");
        if (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) > 0)
            fprintf(stderr, "simtlab: %s\n", lua_tostring(L, -1));
        lua_pop(L, 2);
    } else if (status != LUA_OK) {
        int closed = lua_getfield(L, LUA_REGISTRYINDEX, LSTAGE_QUIT_KEY) == LUA_TBOOLEAN;
        lua_pop(L, 1);
        const char *msg = lua_tostring(L, -1);
        if (!closed) {   /* closing the window is not a failure */
            fprintf(stderr, "simtlab: %s\n", msg ? msg : "(error object is not a string)");
            rc = 1;
        }
    }
    return rc;
}

int cli_run_script(const char *script, int nargs, char **args, const cli_opts_t *o)
{
    lua_State *L = cli_new_state(script, o->unsafe, o);
    trace_t *trace = NULL;
    simt_err_t err;
    int rc;
    if (!L)
        return 1;
    if (cli_push_sets(L, o) != 0) {
        sandbox_close(L);
        return 2;
    }
    lstage_set_lang(L, o->lang ? o->lang : lstage_lang_from_env());
#ifdef SIMT_HAVE_STAGE
    stage_t *stage;
    const char *default_png;
    if ((rc = open_stage(L, script, o, &stage, &default_png)) != 0)
        return rc;
#else
    if (o->stage && !o->headless)
        fprintf(stderr, "simtlab: built without SDL2: no window, text only\n");
#endif
    if (o->arch) {
        lua_pushstring(L, o->arch);
        lua_setfield(L, -2, "arch");
    }
    lsimt_set_overrides(L);
    if ((rc = open_records(L, o, &trace)) != 0) {
#ifdef SIMT_HAVE_STAGE
        if (stage)
            stage_close(stage, &err);
#endif
        return rc;
    }
    rc = run_chunk(L, script, nargs, args);
    /* the launches made before a failure are still worth keeping */
    if (o->stats && write_stats(L, o) != 0)
        rc = 1;
    sandbox_close(L); /* no launch can use the trace (or the stage) after this */
#ifdef SIMT_HAVE_STAGE
    if (stage) {
        simt_err_clear(&err);
        int shown = stage_shown(stage);
        if (stage_close(stage, &err) != 0) {
            fprintf(stderr, "simtlab: %s\n", err.msg);
            rc = 1;
        } else if ((o->screenshot || default_png) && shown) {
            printf("simtlab: picture of the last frame written to %s\n", o->screenshot ? o->screenshot : default_png);
        }
    }
#endif
    if (trace) {
        simt_err_clear(&err);
        if (trace_close(trace, &err) != 0) {
            fprintf(stderr, "simtlab: --trace: %s\n", err.msg);
            rc = 1;
        }
    }
    return rc;
}
