/* main.c - the `simtlab` command line.
 *
 *   simtlab run [OPTIONS] SCRIPT.lua [args...]   run a Lua script with module simt
 *   simtlab sweep --param F --values a,b,... [OPTIONS]  turn one knob, run a workload
 *   simtlab asm FILE.s                 assemble and print a listing
 *   simtlab lessons / lesson N / check N FILE.s   the course (lessons/course.lua)
 *   simtlab demo [STAGE OPTIONS]       the race of lessons/demo.lua on the stage
 *   simtlab show [OPTIONS] SCRIPT.lua  run a script with its launches on the stage
 *   simtlab collective OP [--gpus N ...]  a collective on a node of GPUs
 *   simtlab presets                    list the architecture presets
 *
 * Exit codes: 0 success, 1 the script or file failed, 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L   /* mkdir */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "arch.h"
#include "asm.h"
#include "export.h"
#include "lsimt.h"
#include "sandbox.h"
#include "lstage.h"
#include "trace.h"
#ifdef SIMT_HAVE_STAGE
#include "stage.h"
#endif

#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SIMT_VERSION
#define SIMT_VERSION "0.1.0"
#endif

static const char usage_text[] =
    "usage: simtlab COMMAND [ARGS...]\n"
    "\n"
    "simtlab is an educational, cycle-approximate SIMT GPU simulator.\n"
    "\n"
    "commands:\n"
    "  run [OPTIONS] SCRIPT.lua [ARGS...]\n"
    "                            run a Lua script; the module 'simt' is a global\n"
    "                            (and require(\"simt\")); ARGS are in the table 'arg'\n"
    "  sweep --param FIELD --values A,B,... [OPTIONS]\n"
    "                            run a workload once per value of one GPU field,\n"
    "                            check each result, print a table (lessons/lib/sweep.lua)\n"
    "  asm FILE.s                assemble a kernel and print its listing\n"
    "                            (pc, source line, instruction)\n"
    "  demo [STAGE OPTIONS]      one CPU core races two simulated GPUs on a matrix\n"
    "                            multiply, in a window (lessons/demo.lua); with no\n"
    "                            display it draws off-screen: simtlab-demo.png + text\n"
    "  show [OPTIONS] SCRIPT.lua [ARGS...]\n"
    "                            run a script with its launches on the stage (a window,\n"
    "                            or headless); results and cycles are the same as 'run'\n"
    "  lessons [--lang en|zh] [--check [-j N]]\n"
    "                            list the course's lessons; --check runs every lesson\n"
    "                            headless with its claims and the exercises' reference\n"
    "                            solutions (in N processes)\n"
    "  lesson N [STAGE OPTIONS] [KNOB=VALUE ...] [--charts]\n"
    "                            lesson N on the stage (window, or headless: a PNG +\n"
    "                            text); PageDown / Space next step, PageUp back;\n"
    "                            --charts: its charts as PNGs in the --out folder\n"
    "  check N FILE.s [--json]   grade your kernel for lesson N's exercise: correct\n"
    "                            (hidden cases too), sound (the kernel checker), cheap\n"
    "                            enough (its budget); exit 0 when it passes. FILE.s may be\n"
    "                            anywhere; the course, grader and presets come only from\n"
    "                            simtlab's own folders or $SIMTLAB_HOME\n"
    "  check N --answer A [--json]\n"
    "                            an exercise answered with a word or a number (9, 11-15),\n"
    "                            graded by running the simulator\n"
    "  presets [--json|--names]  the architecture presets as a table (arch/*.lua):\n"
    "                            SMs, clock, peaks, memory, power, price, sources\n"
    "                            (--names: one name a line)\n"
    "  collective OP [--gpus N] [--arch P] [--link L] [--bytes SIZE] [--algo A] [--json]\n"
    "      [--links] [--png FILE | --frames DIR]\n"
    "                            a collective (allreduce, reduce_scatter, all_gather,\n"
    "                            broadcast) on N simulated GPUs joined by L (nvlink,\n"
    "                            nvlink2-4, nvlink-ring, pcie4/5, pcie4/5-host); A: ring,\n"
    "                            tree, ps; SIZE: 64K, a list 1K,1M or a range 1K:16M.\n"
    "                            Time, algbw and busbw as nccl-tests define them, result\n"
    "                            checked (--json: time_s, algbw_gbs, busbw_gbs); --links:\n"
    "                            every link's use; --png/--frames: pictures of the node\n"
    "  fit MODEL [--gpu P] [--train|--infer] [--optimizer adamw|adam8bit|sgd]\n"
    "      [--precision fp32|bf16-mixed|bf16|fp16] [--weights int8|int4] [--batch B]\n"
    "      [--seq S] [--checkpointing] [--attention flash|eager] [--json]\n"
    "                            will MODEL fit on P? an itemised memory ledger with\n"
    "                            formulas and sources (lessons/lib/fit.lua); MODEL:\n"
    "                            gpt2-124m gpt2-xl llama2-7b llama3-8b llama2-70b or\n"
    "                            a JSON object {\"layers\": 32, \"hidden\": 4096, ...}\n"
    "  decode MODEL --gpu P [--batch B] [--precision fp16|bf16|int8|int4]\n"
    "      [--context T] [--json]\n"
    "                            tokens per second: one layer's real kernels on the\n"
    "                            full simulated GPU, x layers (lessons/lib/decode.lua)\n"
    "  -h, --help                show this help (--lang zh: in Chinese)\n"
    "  --version                 show the version\n"
    "\n"
    ;

/* The rest of the help (one string literal may hold at most 4095
 * characters in ISO C). */
static const char usage_text2[] =
    "GPU options (run, show and sweep): they win over the script's own numbers; every\n"
    "simt.gpu{...} applies them last (a script sees them in simt.overrides):\n"
    "  --arch NAME               use preset NAME (see 'presets') instead of the script's\n"
    "  --sms N                   number of SMs\n"
    "  --dram-gbps X             DRAM bandwidth in GB/s\n"
    "  --clock-mhz X             core clock in MHz\n"
    "  --set FIELD=VALUE         any GPU field (names as in simt.gpu{}.desc); repeatable;\n"
    "                            VALUE is a number, a word (sched=gto) or a,b,c\n"
    "run options:\n"
    "  --stats FILE.csv|FILE.json  record every launch (kernel, gpu, grid, block, cluster, every\n"
    "                            statistic) and write them when the script ends\n"
    "  --trace FILE.json         write a Perfetto/Chrome trace of every launch\n"
    "                            (open it in https://ui.perfetto.dev)\n"
    "  --trace-every N           trace counter samples every N cycles (default 100, 0: none)\n"
    "  --out DIR                 the folder where the script's simt.save_csv, save_json and\n"
    "                            chart{path=} write (default: simtlab-out/ beside the script)\n"
    "  --read-dir DIR            a folder the script may read kernels and presets from, besides\n"
    "                            the project's own, the script's folder and below (repeatable)\n"
    "  --time-limit SECONDS      stop the script after this much wall-clock time (default 600\n"
    "                            without a window; none in a window, where lessons wait for you)\n"
    "  --max-instructions N      stop the script after N Lua instructions (simulated and\n"
    "                            reference work counts too; default 1e10)\n"
    "  --max-memory MB           cap on the memory the script causes: Lua, tensors, GPUs\n"
    "                            (default 4096)\n"
    "  --unsafe                  give the script the full Lua libraries (files, os.execute);\n"
    "                            without it scripts run in a sandbox: files only through simt\n"
    "                            (writes into --out DIR, reads from the folders above), no os or\n"
    "                            package, require only from lessons/lib and the script's\n"
    "                            folder, limits on run time and memory\n"
    "  --lang en|zh              the language of lessons and the window (default: from\n"
    "                            LC_ALL / LANG, zh* gives Chinese; the window remembers L)\n";
static const char usage_text3[] =
    "stage options (show, demo and lesson):\n"
    "  --headless                draw off-screen even where there is a display\n"
    "  --screenshot FILE.png     write the last frame as a PNG\n"
    "  --frames DIR              headless: write every frame as DIR/frame-NNNNNN.png ...\n"
    "  --every N                 ... or every Nth frame\n"
    "  --auto SECONDS            every wait goes on by itself after SECONDS (a projector)\n"
    "  SIMTLAB_WINDOW=1024x600 and SIMTLAB_THEME=dark set the picture's size and theme\n"
    "  (show also takes the run options above)\n"
    "keys in the window (H or F1 shows them too):\n"
    "  Space pause / go on       Right one step (paused)   Left look back (paused)\n"
    "  Up / Down faster / slower (remembered)\n"
    "  [ / ] half / double SMs   , / . half / double memory bandwidth (the script\n"
    "                            decides what to run again)   R run again\n"
    "  PageDown / PageUp next / previous step (during a run too)   P screenshot\n"
    "  L English / 中文   T light / dark   + / - zoom   Tab details   Q, Esc quit\n"
    ;
static const char usage_text4[] =
    "sweep options:\n"
    "  --param FIELD             the GPU field to change (sms, dram_gbps, clock_mhz, ...)\n"
    "  --values A,B,...          its values, in order\n"
    "  --workload NAME           matmul_naive, matmul_naive_T, matmul_tiled16 (default),\n"
    "                            matmul_tiled32, matmul_reg64, matmul_rect, vecadd\n"
    "  --size N                  matrix size n (or vector length); default 64\n"
    "  --out FILE.csv            write one row per value\n"
    "  --png FILE.png            draw time against the value (a log axis for wide ranges)\n"
    "  (--arch defaults to edu-tiny; --sms/--set fix the other fields)\n"
    "\n"
    "examples:\n"
    "  simtlab lesson 1\n"
    "  simtlab lesson 7 --lang zh\n"
    "  simtlab check 7 lessons/exercises/07_bank_conflicts.s\n"
    "  simtlab demo\n"
    "  simtlab demo --headless --screenshot race.png\n"
    "  simtlab show --arch h200 --sms 16 lessons/demo.lua 256\n"
    "  simtlab run lessons/demo.lua\n"
    "  simtlab run --arch h200 --sms 16 --stats runs.csv my_experiment.lua\n"
    "  simtlab run --trace out.json lessons/demo.lua\n"
    "  simtlab sweep --arch h200 --param sms --values 1,2,4,8,16,33,66,132 \\\n"
    "                --workload matmul_tiled16 --size 256 --out sweep.csv --png sweep.png\n"
    "  simtlab asm lessons/kernels/matmul_naive.s\n"
    "\n"
    "a script:\n"
    "  local g = simt.gpu{arch = \"edu-tiny\"}\n"
    "  local A = g:tensor{64, 64, init = \"random\", seed = 1}\n"
    "  print(A, g.desc.sms)\n"
    "\n"
    "files (presets, lessons, kernels) are searched in $SIMTLAB_HOME, then the\n"
    "current directory, then the source tree simtlab was built from.\n"
    "exit status: 0 ok, 1 the script or file failed, 2 bad usage.\n";

#include "help_zh.h"

#define MAX_SETS 64

/* Options of `run` and `sweep`, pointing into argv. */
typedef struct cli_opts {
    const char *arch;              /* --arch NAME                          */
    const char *set[MAX_SETS];     /* --set FIELD=VALUE (and the shortcuts) */
    const char *set_value[MAX_SETS]; /* shortcut values (NULL for --set)    */
    int nsets;
    const char *stats;             /* --stats FILE.csv|FILE.json           */
    const char *trace;             /* --trace FILE.json                    */
    const char *trace_every;       /* --trace-every N                      */
    const char *param;             /* sweep: --param FIELD                 */
    const char *values;            /* sweep: --values a,b,c                */
    const char *workload;          /* sweep: --workload NAME               */
    const char *size;              /* sweep: --size N                      */
    const char *out;               /* sweep: --out FILE.csv; run: --out DIR */
    const char *png;               /* sweep: --png FILE.png                */
    const char *read_dir[SANDBOX_MAX_DIRS]; /* run: --read-dir DIR         */
    int nread_dirs;
    const char *time_limit;        /* run: --time-limit SECONDS            */
    const char *max_instructions;  /* run: --max-instructions N            */
    const char *max_memory;        /* run: --max-memory MB                 */
    int unsafe;                    /* --unsafe: full Lua libraries (io, os) */
    const char *lang;              /* --lang en|zh                         */
    /* the stage (show, demo) */
    int stage;                     /* open the stage (window or headless)  */
    int headless;                  /* --headless                           */
    const char *screenshot;        /* --screenshot FILE.png                */
    const char *frames;            /* --frames DIR                         */
    const char *every;             /* --every N                            */
    const char *auto_s;            /* --auto SECONDS                       */
    const char *default_png;       /* headless without --screenshot: this  */
    const char *read_file;         /* check: the student's kernel file     */
} cli_opts_t;

static int usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "simtlab: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (try 'simtlab --help')\n");
    return 2;
}

/* Message handler: turn the error into "message\ntraceback". */
static int msghandler(lua_State *L)
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
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* The whole number text s (like "1e10" or "4096") if it lies in [lo, hi],
 * else 0. */
static uint64_t parse_count(const char *s, double lo, double hi)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || *end || !s[0] || !(v >= lo && v <= hi) || v != (double)(uint64_t)v)
        return 0;
    return (uint64_t)v;
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
static lua_State *new_state(const char *script, int unsafe, const cli_opts_t *o)
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
            if (o->arch && (strchr(o->arch, '/') || ends_with(o->arch, ".lua")))
                read_files[nf++] = o->arch;   /* the user named this preset file */
            if (o->read_file)
                read_files[nf++] = o->read_file;   /* check: the kernel the user named */
            if (o->time_limit)
                so.time_limit = strtod(o->time_limit, NULL);
            else if (script && !(o->stage && !o->headless))   /* a script (not sweep), not in a window */
                so.time_limit = SANDBOX_DEFAULT_SECONDS;   /* the teacher may not be watching */
            if (o->max_instructions)
                so.max_instructions = parse_count(o->max_instructions, 1, 1e15);
            if (o->max_memory)
                so.max_bytes = parse_count(o->max_memory, 1, 1 << 24) << 20;
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

/* Parse options from argv[i]: for `run` up to the first argument that is
 * not an option (returned: the script's index), for `sweep` all of them
 * (returned: argc). Prints the problem and returns -1 on bad usage. */
static int parse_opts(int argc, char **argv, int i, int sweep, int stage, cli_opts_t *o)
{
    static const struct {
        const char *opt, *field;   /* shortcut option -> GPU field */
    } shortcuts[] = { { "--sms", "sms" }, { "--dram-gbps", "dram_gbps" },
                      { "--clock-mhz", "clock_mhz" } };
    memset(o, 0, sizeof *o);
    o->stage = stage;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *opt = argv[i], **slot = NULL;
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        size_t k;
        int shortcut = -1;
        for (k = 0; k < sizeof shortcuts / sizeof shortcuts[0]; k++)
            if (strcmp(opt, shortcuts[k].opt) == 0)
                shortcut = (int)k;
        if (strcmp(opt, "--unsafe") == 0 && !sweep) {
            o->unsafe = 1;          /* a flag: takes no value */
            continue;
        }
        if (strcmp(opt, "--headless") == 0 && stage) {
            o->headless = 1;
            continue;
        }
        if (strcmp(opt, "--arch") == 0) slot = &o->arch;
        else if (strcmp(opt, "--lang") == 0 && !sweep) slot = &o->lang;
        else if (strcmp(opt, "--screenshot") == 0 && stage) slot = &o->screenshot;
        else if (strcmp(opt, "--frames") == 0 && stage) slot = &o->frames;
        else if (strcmp(opt, "--every") == 0 && stage) slot = &o->every;
        else if (strcmp(opt, "--auto") == 0 && stage) slot = &o->auto_s;
        else if (strcmp(opt, "--stats") == 0 && !sweep) slot = &o->stats;
        else if (strcmp(opt, "--trace") == 0 && !sweep) slot = &o->trace;
        else if (strcmp(opt, "--trace-every") == 0 && !sweep) slot = &o->trace_every;
        else if (strcmp(opt, "--param") == 0 && sweep) slot = &o->param;
        else if (strcmp(opt, "--values") == 0 && sweep) slot = &o->values;
        else if (strcmp(opt, "--workload") == 0 && sweep) slot = &o->workload;
        else if (strcmp(opt, "--size") == 0 && sweep) slot = &o->size;
        else if (strcmp(opt, "--out") == 0) slot = &o->out;
        else if (strcmp(opt, "--time-limit") == 0 && !sweep) slot = &o->time_limit;
        else if (strcmp(opt, "--max-instructions") == 0 && !sweep) slot = &o->max_instructions;
        else if (strcmp(opt, "--max-memory") == 0 && !sweep) slot = &o->max_memory;
        else if (strcmp(opt, "--read-dir") == 0 && !sweep) {
            if (!val) {
                usage_error("option '%s' needs a value", opt);
                return -1;
            }
            if (o->nread_dirs == SANDBOX_MAX_DIRS) {
                usage_error("%s", "too many --read-dir options");
                return -1;
            }
            o->read_dir[o->nread_dirs++] = val;
            i++;
            continue;
        }
        else if (strcmp(opt, "--png") == 0 && sweep) slot = &o->png;
        else if (strcmp(opt, "--set") != 0 && shortcut < 0) {
            usage_error("unknown option '%s'", opt);
            return -1;
        }
        if (!val) {
            usage_error("option '%s' needs a value", opt);
            return -1;
        }
        i++;
        if (slot) {
            *slot = val;
            continue;
        }
        if (o->nsets == MAX_SETS) {
            usage_error("%s", "too many --set options");
            return -1;
        }
        if (shortcut >= 0) {
            o->set[o->nsets] = shortcuts[shortcut].field;
            o->set_value[o->nsets++] = val;
        } else if (!strchr(val, '=') || val[0] == '=') {
            usage_error("--set expects FIELD=VALUE, got '%s'", val);
            return -1;
        } else {
            o->set[o->nsets] = val;
            o->set_value[o->nsets++] = NULL;
        }
    }
    if (sweep && i < argc) {
        usage_error("unexpected argument '%s' for 'sweep'", argv[i]);
        return -1;
    }
    if (o->time_limit) {
        char *end = NULL;
        double t = strtod(o->time_limit, &end);
        if (!end || *end || !(t > 0) || t > 1e6) {
            usage_error("--time-limit needs a number of seconds (0 < s <= 1e6), got '%s'", o->time_limit);
            return -1;
        }
    }
    if (o->max_instructions && parse_count(o->max_instructions, 1, 1e15) == 0) {
        usage_error("--max-instructions needs a whole number from 1 to 1e15, got '%s'", o->max_instructions);
        return -1;
    }
    if (o->max_memory && parse_count(o->max_memory, 1, 1 << 24) == 0) {
        usage_error("--max-memory needs a whole number of MB from 1 to 16777216, got '%s'", o->max_memory);
        return -1;
    }
    if (o->stats && !ends_with(o->stats, ".csv") && !ends_with(o->stats, ".json")) {
        usage_error("--stats needs a file name ending in .csv or .json, got '%s'", o->stats);
        return -1;
    }
    if (o->lang && strcmp(o->lang, "en") != 0 && strcmp(o->lang, "zh") != 0) {
        usage_error("--lang is en or zh, got '%s'", o->lang);
        return -1;
    }
    if (o->screenshot && !ends_with(o->screenshot, ".png")) {
        usage_error("--screenshot needs a file name ending in .png, got '%s'", o->screenshot);
        return -1;
    }
    if (o->every && (atoi(o->every) < 1 || strspn(o->every, "0123456789") != strlen(o->every))) {
        usage_error("--every needs a whole number >= 1, got '%s'", o->every);
        return -1;
    }
    if (o->auto_s) {
        char *end = NULL;
        double t = strtod(o->auto_s, &end);
        if (!end || *end || !(t >= 1) || t > 3600) {
            usage_error("--auto needs a number of seconds from 1 to 3600, got '%s'", o->auto_s);
            return -1;
        }
    }
    if (o->every && !o->frames) {
        usage_error("%s", "--every needs --frames DIR");
        return -1;
    }
    return i;
}

/* Push a value given as text: a number if it reads as one, a table for
 * "a,b,c", otherwise the string. */
static void push_text_value(lua_State *L, const char *s)
{
    if (strchr(s, ',')) {
        char item[128];
        lua_Integer n = 0;
        lua_newtable(L);
        while (*s) {
            size_t len = strcspn(s, ",");
            snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1),
                     s);
            push_text_value(L, item);
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
static int push_sets(lua_State *L, const cli_opts_t *o)
{
    gpu_desc_t d;
    simt_err_t err;
    int i;
    lua_newtable(L);
    for (i = 0; i < o->nsets; i++) {
        if (o->set_value[i]) {
            push_text_value(L, o->set_value[i]);
            lua_setfield(L, -2, o->set[i]);
        } else {
            const char *eq = strchr(o->set[i], '=');
            lua_pushlstring(L, o->set[i], (size_t)(eq - o->set[i]));
            push_text_value(L, eq + 1);
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
    if (ends_with(o->stats, ".csv"))
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
static int run_script(const char *script, int nargs, char **args, const cli_opts_t *o)
{
    lua_State *L = new_state(script, o->unsafe, o);
    trace_t *trace = NULL;
    simt_err_t err;
    int i, status, rc = 0;
    if (!L)
        return 1;
    if (push_sets(L, o) != 0) {
        sandbox_close(L);
        return 2;
    }
    lstage_set_lang(L, o->lang ? o->lang : lstage_lang_from_env());
#ifdef SIMT_HAVE_STAGE
    stage_t *stage = NULL;
    const char *default_png = NULL;
    if (o->stage) {
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
        stage = stage_open(&so, &err);
        if (!stage) {
            fprintf(stderr, "simtlab: %s\n", err.msg);
            sandbox_close(L);
            return 1;
        }
        if (stage_headless(stage) && !o->screenshot && o->default_png) {
            stage_set_screenshot(stage, o->default_png);
            default_png = o->default_png;
        }
        lstage_attach(L, stage_ops(stage));
    }
#else
    if (o->stage && !o->headless)
        fprintf(stderr, "simtlab: built without SDL2: no window, text only\n");
#endif
    if (o->arch) {
        lua_pushstring(L, o->arch);
        lua_setfield(L, -2, "arch");
    }
    lsimt_set_overrides(L);
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
                return usage_error("--trace-every needs a whole number of cycles, got '%s'",
                                   o->trace_every);
            }
        }
        simt_err_clear(&err);
        trace = trace_open(o->trace, &err);
        if (!trace) {
            sandbox_close(L);
            fprintf(stderr, "simtlab: --trace: %s\n", err.msg);
            return 1;
        }
        lsimt_set_trace(L, trace, (uint64_t)every);
    } else if (o->trace_every) {
        sandbox_close(L);
        return usage_error("%s", "--trace-every needs --trace FILE.json");
    }
    if (!lua_checkstack(L, nargs + 8)) {
        sandbox_close(L);
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
    lua_pushcfunction(L, msghandler);
    status = luaL_loadfilex(L, script, "t");
    if (status == LUA_OK) {
        for (i = 0; i < nargs; i++)
            lua_pushstring(L, args[i]);
        status = sandbox_pcall(L, nargs, 0, 1);
    }
    sandbox_stop_timer(L);   /* writing --stats is not the script's time */
    if (status != LUA_OK && lua_type(L, -1) == LUA_TTABLE) {   /* a planned failure (msghandler) */
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

/* simtlab sweep: call sweep.main{...} from lessons/lib/sweep.lua. */
static int run_sweep(const cli_opts_t *o)
{
    char path[1024];
    lua_State *L;
    int status;
    if (!o->param || !o->values)
        return usage_error("%s", "'sweep' needs --param FIELD and --values A,B,... "
                                 "(e.g. --param sms --values 1,2,4)");
    if (arch_find_file("lessons/lib/sweep.lua", path, sizeof path) != 0) {
        fprintf(stderr, "simtlab: cannot find lessons/lib/sweep.lua (set SIMTLAB_HOME to the "
                        "simtlab directory)\n");
        return 1;
    }
    L = new_state(NULL, 0, o);     /* require finds lessons/lib */
    if (!L)
        return 1;
    lua_pushcfunction(L, msghandler);
    lua_getglobal(L, "require");
    lua_pushstring(L, "sweep");
    if (lua_pcall(L, 1, 1, 1) != LUA_OK) {
        fprintf(stderr, "simtlab: %s\n", lua_tostring(L, -1));
        sandbox_close(L);
        return 1;
    }
    lua_getfield(L, -1, "main");
    lua_newtable(L); /* the options */
    if (push_sets(L, o) != 0) {
        sandbox_close(L);
        return 2;
    }
    lua_setfield(L, -2, "set");
    lua_pushstring(L, o->arch ? o->arch : "edu-tiny");
    lua_setfield(L, -2, "arch");
    lua_pushstring(L, o->param);
    lua_setfield(L, -2, "param");
    {
        /* the values must be numbers, and the field must take them */
        gpu_desc_t d;
        simt_err_t err;
        lua_Integer i, n;
        int opts = lua_gettop(L);
        push_text_value(L, o->values);
        if (lua_type(L, -1) != LUA_TTABLE) { /* one value */
            lua_createtable(L, 1, 0);
            lua_insert(L, -2);
            lua_rawseti(L, -2, 1);
        }
        n = (lua_Integer)lua_rawlen(L, -1);
        for (i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            if (lua_type(L, -1) != LUA_TNUMBER) {
                sandbox_close(L);
                return usage_error("--values must be numbers separated by commas, got '%s'",
                                   o->values);
            }
            lua_createtable(L, 0, 1);
            lua_insert(L, -2);
            lua_setfield(L, -2, o->param);
            /* the whole GPU of this step must be valid: found now, as bad
             * usage, not as a traceback in the middle of the sweep */
            simt_err_clear(&err);
            lua_getfield(L, opts, "set");
            if (arch_load(L, o->arch ? o->arch : "edu-tiny", &d, &err) != 0
                || arch_apply_table(L, -1, &d, &err) != 0 || arch_apply_table(L, -2, &d, &err) != 0
                || gpu_desc_validate(&d, &err) != 0) {
                fprintf(stderr, "simtlab: --param %s --values: %s\n", o->param, err.msg);
                sandbox_close(L);
                return 2;
            }
            lua_pop(L, 2);
        }
        lua_setfield(L, -2, "values");
    }
    if (o->workload) {
        lua_pushstring(L, o->workload);
        lua_setfield(L, -2, "workload");
    }
    if (o->size) {
        if (lua_stringtonumber(L, o->size) == 0 || !lua_isinteger(L, -1)
            || lua_tointeger(L, -1) < 1) {
            sandbox_close(L);
            return usage_error("--size needs a whole number >= 1, got '%s'", o->size);
        }
        lua_setfield(L, -2, "size");
    }
    if (o->out) {
        lua_pushstring(L, o->out);
        lua_setfield(L, -2, "out");
    }
    if (o->png) {
        lua_pushstring(L, o->png);
        lua_setfield(L, -2, "png");
    }
    status = sandbox_pcall(L, 1, 0, 1);
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "simtlab: %s\n", msg ? msg : "(error object is not a string)");
    }
    sandbox_close(L);
    return status == LUA_OK ? 0 : 1;
}

/* Print pc, source line and instruction for every instruction of FILE. */
static int asm_listing(const char *path)
{
    isa_program_t p;
    simt_err_t err;
    uint32_t pc, i;
    char buf[256];
    memset(&p, 0, sizeof p);
    if (asm_assemble_file(path, &p, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("// kernel '%s' from %s\n", p.name, path);
    printf("// %u instructions, %u registers, %u predicates, %u bytes of shared memory\n",
           (unsigned)p.ncode, (unsigned)p.nregs, (unsigned)p.npreds, (unsigned)p.shared_bytes);
    printf("// params:");
    for (i = 0; i < p.nparams; i++)
        printf(" %s", p.params[i]);
    printf("%s\n", p.nparams ? "" : " (none)");
    printf("//  pc  line  instruction\n");
    /* the assembler defines labels in source order: their values never
     * decrease, so one walk prints them (a scan per pc was quadratic) */
    i = 0;
    for (pc = 0; pc < p.ncode; pc++) {
        for (; i < p.nlabels && p.labels[i].value <= pc; i++)
            if (p.labels[i].value == pc)
                printf("%s:\n", p.labels[i].name);
        asm_format_instr(&p, &p.code[pc], buf, sizeof buf);
        printf("%5u %5u  %s\n", (unsigned)pc, (unsigned)p.code[pc].line, buf);
    }
    for (i = 0; i < p.nlabels; i++) /* labels at the very end */
        if (p.labels[i].value == p.ncode)
            printf("%s:\n", p.labels[i].name);
    isa_program_free(&p);
    return 0;
}

/* The source tags ("[spec]", "[meas]" ...; "~" after them when the comment
 * says the figure is an estimate) or "estimate" / "fitted" in comment c,
 * into out ("" when it names none). */
static void source_tags(const char *c, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *b = strchr(c, '['); b && used + 2 < n; b = strchr(b + 1, '[')) {
        const char *e = strchr(b, ']');
        if (!e || e - b > 12)
            break;
        used += (size_t)snprintf(out + used, n - used, "%s%.*s", used ? " " : "", (int)(e - b + 1), b);
    }
    if (out[0] && strstr(c, "est") && used + 2 < n)   /* "[spec] ~1600 (est.)" */
        snprintf(out + used, n - used, "~");
    if (!out[0] && (strstr(c, "estimate") || strstr(c, "fitted")))
        snprintf(out, n, "%s", strstr(c, "estimate") ? "estimate" : "fitted");
}

/* The source of the figure `field` sets in preset file `path`: the tags of
 * the comment on its line, else of the comment lines just above the group of
 * fields it is in (a100.lua's Tensor Core rates), else "". */
static void preset_source(const char *path, const char *field, char *out, size_t n)
{
    char line[512], block[48] = "";
    size_t flen = strlen(field);
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, "--", 2) == 0) {          /* a comment line: remember its tags */
            char t[48];
            source_tags(p, t, sizeof t);
            if (t[0])
                snprintf(block, sizeof block, "%s", t);
            continue;
        }
        if (!*p || *p == '\n') {
            block[0] = '\0';
            continue;
        }
        if (strncmp(p, field, flen) != 0 || p[flen + strspn(p + flen, " \t")] != '=')
            continue;
        const char *c = strstr(p, "--");
        if (c)
            source_tags(c, out, n);
        if (!out[0])
            snprintf(out, n, "%s", block);
        break;
    }
    fclose(f);
}

/* s as a JSON string (quotes, backslashes and control characters escaped) */
static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned)(unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

/* the start of one preset's JSON object, up to its chip's name */
static void json_preset_head(int first, const char *name, int gpu, const char *chip)
{
    printf("%s\n  {\"name\": ", first ? "" : ",");
    json_string(name);
    printf(", \"gpu\": %s, \"chip\": ", gpu ? "true" : "false");
    json_string(chip);
}

/* simtlab presets [--json | --names]: every preset as a row (name, chip, SMs, clock,
 * peak FP32 / BF16 dense / FP8 dense, memory, bandwidth, TDP, price per
 * hour) with the source of each figure from the comment on its line in
 * arch/NAME.lua; "~" marks a figure the file calls an estimate. */
static int presets_table(int json, int names)
{
    static const char *const fields[] = { "sms", "clock_mhz", "fp32_lanes_per_sm", "tc_flops_per_clk_bf16",
                                          "tc_flops_per_clk_fp8", "mem_bytes", "dram_gbps", "tdp_watts",
                                          "price_per_hour" };
    enum { NF = sizeof fields / sizeof fields[0] };
    lua_State *L = new_state(NULL, 0, NULL);
    lua_Integer i, n;
    if (!L)
        return 1;
    arch_push_presets(L);
    n = luaL_len(L, -1);
    if (n == 0)
        fprintf(stderr, "simtlab: no presets found (looked for arch/*.lua)\n");
    if (names) {   /* one name a line */
        for (i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            printf("%s\n", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
        sandbox_close(L);
        return n == 0;
    }
    if (json)
        printf("[");
    else
        printf("%-11s %-36s %4s %6s %8s %8s %8s %5s %6s %5s %6s  %s\n", "name", "chip", "SMs", "MHz", "FP32 TF",
               "BF16 TF", "FP8 TF", "GB", "GB/s", "W", "$/h", "sources (per figure: arch/NAME.lua)");
    for (i = 1; i <= n; i++) {
        char name[64], rel[96], path[1024], src[NF][48];
        gpu_desc_t d;
        simt_err_t err;
        lua_rawgeti(L, -1, i);
        snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        snprintf(rel, sizeof rel, "arch/%s.lua", name);
        if (arch_find_file(rel, path, sizeof path) != 0)
            continue;
        simt_err_clear(&err);
        if (arch_load(L, name, &d, &err) != 0 && strstr(err.msg, "CPU")) {
            /* a CPU preset (kind = "cpu"): its figures through simt.cpu, in
             * the same columns (SMs = cores; no Tensor Cores) */
            int top = lua_gettop(L);
            if (luaL_loadstring(L, "return simt.cpu{arch = ...}.desc") == LUA_OK) {
                lua_pushstring(L, name);
                if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
                    static const char *const cf[] = { "cores", "clock_mhz", "simd_width", "fma_ports", "mem_bytes",
                                                      "dram_gbps", "tdp_watts", "price_per_hour" };
                    double c[8];
                    for (int k = 0; k < 8; k++) {
                        lua_getfield(L, -1, cf[k]);
                        c[k] = lua_tonumber(L, -1);
                        lua_pop(L, 1);
                    }
                    lua_getfield(L, -1, "vendor_name");
                    snprintf(d.vendor_name, sizeof d.vendor_name, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : name);
                    lua_pop(L, 1);
                    double cpu32 = c[0] * c[2] * c[3] * 2 * c[1] / 1e6;   /* FMA lanes x 2 FLOP x clock */
                    char price[16];
                    snprintf(price, sizeof price, c[7] > 0 ? "%.2f" : "-", c[7]);
                    if (json) {
                        json_preset_head(i == 1, name, 0, d.vendor_name);
                        printf(", \"cores\": %.0f, \"clock_mhz\": %.0f, \"fp32_tflops\": %.2f, \"memory_gb\": %.0f, "
                               "\"dram_gbps\": %.1f, \"tdp_watts\": %.0f, \"price_per_hour\": %s}", c[0], c[1], cpu32,
                               c[4] / 1e9, c[5], c[6], c[7] > 0 ? price : "null");
                    } else {
                        printf("%-11s %-36.36s %4.0f %6.0f %8.2f %8s %8s %5.0f %6.0f %5.0f %6s  %s\n", name, d.vendor_name,
                               c[0], c[1], cpu32, "-", "-", c[4] / 1e9, c[5], c[6], price,
                               "a CPU (SMs = cores): see the file's header");
                    }
                    lua_settop(L, top);
                    continue;
                }
            }
            lua_settop(L, top);
        }
        if (err.msg[0]) {
            /* a file that does not load */
            if (json) {
                printf("%s\n  {\"name\": ", i > 1 ? "," : "");
                json_string(name);
                printf(", \"gpu\": false}");
            }
            else
                printf("%-11s %s\n", name, err.msg);
            continue;
        }
        for (int k = 0; k < NF; k++)
            preset_source(path, fields[k], src[k], sizeof src[k]);
        double ghz = d.clock_mhz / 1000.0;
        double fp32 = d.sms * (double)d.fp32_lanes_per_sm * 2 * ghz / 1000.0;
        double bf16 = d.sms * (double)d.tc_flops_per_clk_bf16 * ghz / 1000.0;
        double fp8 = d.sms * (double)d.tc_flops_per_clk_fp8 * ghz / 1000.0;
        if (json) {
            json_preset_head(i == 1, name, 1, d.vendor_name);
            printf(", \"sms\": %u, \"clock_mhz\": %.0f, "
                   "\"fp32_tflops\": %.1f, \"bf16_dense_tflops\": %.1f, \"fp8_dense_tflops\": %.1f, \"memory_gb\": %.0f, "
                   "\"dram_gbps\": %.0f, \"tdp_watts\": %.0f, \"price_per_hour\": ",
                   d.sms, d.clock_mhz, fp32, bf16, fp8, d.mem_bytes / 1e9, d.dram_gbps, d.tdp_watts);
            if (d.price_per_hour > 0)   /* null: no known price */
                printf("%.2f", d.price_per_hour);
            else
                printf("null");
            printf(", \"sources\": {");
            for (int k = 0; k < NF; k++) {
                printf("%s\"%s\": ", k ? ", " : "", fields[k]);
                json_string(src[k]);
            }
            printf("}}");
        } else {
            /* each figure as text, "~" after it when its source is an estimate;
             * the peaks take the marks of the fields they are made of */
            char v[9][16], tags[160] = "";
            size_t used = 0;
            const double val[9] = { d.sms, d.clock_mhz, fp32, bf16, fp8, d.mem_bytes / 1e9, d.dram_gbps,
                                    d.tdp_watts, d.price_per_hour };
            const int of[9][3] = { { 0, 0, 0 }, { 1, 1, 1 }, { 0, 1, 2 }, { 0, 1, 3 }, { 0, 1, 4 },
                                   { 5, 5, 5 }, { 6, 6, 6 }, { 7, 7, 7 }, { 8, 8, 8 } };
            for (int k = 0; k < 9; k++) {
                int est = 0;
                for (int m = 0; m < 3; m++)
                    est |= strchr(src[of[k][m]], '~') != NULL || strcmp(src[of[k][m]], "estimate") == 0;
                if ((k == 8 || (k >= 2 && k <= 4)) && val[k] <= 0)   /* no price known, no such unit */
                    snprintf(v[k], sizeof v[k], "-");
                else
                    snprintf(v[k], sizeof v[k], k >= 2 && k <= 4 ? "%.1f%s" : k == 8 ? "%.2f%s" : "%.0f%s", val[k],
                             est ? "~" : "");
            }
            for (int k = 0; k < NF; k++) {   /* the distinct tags, in field order, without "~" */
                char t[48];
                snprintf(t, sizeof t, "%.*s", (int)strcspn(src[k], "~"), src[k]);
                if (t[0] && strcmp(t, "estimate") != 0 && !strstr(tags, t) && used + strlen(t) + 2 < sizeof tags)
                    used += (size_t)snprintf(tags + used, sizeof tags - used, "%s%s", used ? " " : "", t);
            }
            printf("%-11s %-36.36s %4s %6s %8s %8s %8s %5s %6s %5s %6s  %s\n", name, d.vendor_name, v[0], v[1], v[2],
                   v[3], v[4], v[5], v[6], v[7], v[8], tags[0] ? tags : "none: not a product (see the file's header)");
        }
    }
    if (json)
        printf("\n]\n");
    else
        printf("TF = TFLOP/s from the preset: SMs x lanes (or Tensor Core FLOP per clock) x clock; dense, no sparsity\n"
               "(h100/h200 run at 1980 MHz: NVIDIA quotes their Tensor Core figures at 1830 MHz, BF16 989.4, FP8 1978.9).\n"
               "~ = an estimate. Sources: [spec] reference/gpu-specs.md (datasheets), [meas] measured on an H200\n"
               "(reference/h200-measured.md), [wp] whitepapers, [h200] reused from the h200 preset; see each file's header.\n");
    sandbox_close(L);
    return n == 0;
}

/* Move the options among argv[from..] (--flag, or --opt VALUE) before the
 * other arguments, keeping the order within each group. */
static void options_first(int argc, char **argv, int from)
{
    char *opts[128], *rest[128];
    int no = 0, nr = 0;
    if (argc - from > 128)
        return;
    for (int i = from; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i], "--charts") != 0) {   /* --charts: the lesson's */
            int flag = strcmp(argv[i], "--headless") == 0 || strcmp(argv[i], "--unsafe") == 0;
            opts[no++] = argv[i];
            if (!flag && i + 1 < argc)
                opts[no++] = argv[++i];
        } else {
            rest[nr++] = argv[i];
        }
    }
    for (int i = 0; i < no; i++)
        argv[from + i] = opts[i];
    for (int i = 0; i < nr; i++)
        argv[from + no + i] = rest[i];
}

static int is_number(const char *s)
{
    return s[0] && strspn(s, "0123456789") == strlen(s) && strlen(s) < 6;
}

/* lessons/course.lua, the course's entry point (lessons/lib/runner.lua). */
static int course_path(char *path, size_t n)
{
    if (arch_find_file("lessons/course.lua", path, n) == 0)
        return 0;
    fprintf(stderr, "simtlab: cannot find lessons/course.lua (set SIMTLAB_HOME to the simtlab directory)\n");
    return -1;
}

/* simtlab lessons [--lang L] [--check [-j N]]: list the lessons, or run
 * every lesson headless with its claims and the exercises' reference
 * solutions, split over N processes (the i-th lesson goes to process i mod N:
 * `course.lua check --part J N`). */
static int course_lessons(int argc, char **argv)
{
    char path[1024], self[1024];
    const char *lang = NULL;
    int check = 0, jobs = 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc) {
            lang = argv[++i];
            if (strcmp(lang, "en") != 0 && strcmp(lang, "zh") != 0)
                return usage_error("--lang is en or zh, got '%s'", lang);
        } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc && is_number(argv[i + 1])) {
            jobs = atoi(argv[++i]);
            if (jobs < 1 || jobs > 8)
                return usage_error("-j takes 1 to 8 processes, got '%s'", argv[i]);
        } else {
            return usage_error("'lessons' takes --lang en|zh, --check and -j N, got '%s'", argv[i]);
        }
    }
    if (jobs > 1 && !check)
        return usage_error("%s", "-j N goes with --check");
    if (course_path(path, sizeof path) != 0)
        return 1;
    cli_opts_t o;
    memset(&o, 0, sizeof o);
    o.lang = lang;
    /* checking the whole course runs simtlab's own code only, and may run
     * past the default 600 s under valgrind: a day instead */
    static char day[] = "86400";
    if (check)
        o.time_limit = day;
    if (!check) {
        char *args[1] = { "list" };
        return run_script(path, 1, args, &o);
    }
    if (jobs == 1) {
        char *args[1] = { "check" };
        return run_script(path, 1, args, &o);
    }
    /* N processes of `simtlab run course.lua check k k+N ...` */
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "simtlab: -j needs /proc/self/exe (Linux); run without -j\n");
        return 1;
    }
    self[len] = '\0';
    fflush(stdout);
    pid_t pids[8];
    for (int j = 0; j < jobs; j++) {
        char part[12], parts[12];
        char *args[16];
        int n = 0;
        args[n++] = self;
        args[n++] = "run";
        args[n++] = "--time-limit";
        args[n++] = day;
        if (lang) {
            args[n++] = "--lang";
            args[n++] = (char *)lang;
        }
        args[n++] = path;
        args[n++] = "check";
        args[n++] = "--part";
        snprintf(part, sizeof part, "%d", j);
        snprintf(parts, sizeof parts, "%d", jobs);
        args[n++] = part;
        args[n++] = parts;
        args[n] = NULL;
        pids[j] = fork();
        if (pids[j] == 0) {
            execv(self, args);
            _exit(127);
        }
        if (pids[j] < 0) {
            fprintf(stderr, "simtlab: cannot start a process: %s\n", strerror(errno));
            return 1;
        }
    }
    int rc = 0;
    for (int j = 0; j < jobs; j++) {
        int st = 0;
        if (waitpid(pids[j], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            rc = 1;
    }
    printf("simtlab lessons --check -j %d: %s\n", jobs, rc ? "FAILED" : "ok, every lesson and exercise passed");
    return rc;
}

/* simtlab check N --answer A [--json]: an exercise answered with a word or a
 * number (lessons/lib/grade_answers.lua), graded by running the simulator. */
static int course_answer(int argc, char **argv)
{
    char path[1024], *args[4];
    const char *n = NULL, *answer = NULL;
    int json = 0;
    cli_opts_t o;
    memset(&o, 0, sizeof o);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--answer") == 0 && i + 1 < argc && !answer)
            answer = argv[++i];
        else if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc
                 && (strcmp(argv[i + 1], "en") == 0 || strcmp(argv[i + 1], "zh") == 0))
            o.lang = argv[++i];
        else if (!n && is_number(argv[i]))
            n = argv[i];
        else
            return usage_error("%s", "'check' with an answer: simtlab check N --answer ANSWER [--json] [--lang en|zh]");
    }
    if (!n || !answer || !answer[0] || strlen(answer) > 64)
        return usage_error("%s", "'check' with an answer: simtlab check N --answer ANSWER [--json] (an answer of 1-64 characters)");
    arch_installed_only();   /* the grader from simtlab's own folders only, as for kernels */
    if (course_path(path, sizeof path) != 0)
        return 1;
    args[0] = "answer";
    args[1] = (char *)n;
    args[2] = (char *)answer;
    args[3] = "--json";
    return run_script(path, 3 + json, args, &o);
}

/* simtlab collective OP [--gpus N --arch P --link L --bytes SIZE --algo A
 * --json]: lessons/lib/collective.lua parses the rest. */
static int run_collective(int argc, char **argv)
{
    char path[1024], *args[64];
    cli_opts_t o;
    if (argc - 1 > (int)(sizeof args / sizeof args[0]))
        return usage_error("%s", "too many arguments for 'collective'");
    if (arch_find_file("lessons/lib/collective.lua", path, sizeof path) != 0) {
        fprintf(stderr, "simtlab: cannot find lessons/lib/collective.lua (set SIMTLAB_HOME to "
                        "the simtlab directory)\n");
        return 1;
    }
    static char dir[1024];
    memset(&o, 0, sizeof o);
    args[0] = "collective";
    for (int k = 2; k < argc; k++) {
        args[k - 1] = argv[k];
        /* --png FILE: the sandbox writes into FILE's folder, the script
         * gets the bare name */
        if (strcmp(argv[k], "--png") == 0 && k + 1 < argc) {
            const char *slash = strrchr(argv[k + 1], '/');
            snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - argv[k + 1]) : 1,
                     slash ? argv[k + 1] : ".");
            if (o.out)
                return usage_error("%s", "'collective' takes --png or --frames, not both");
            o.out = dir[0] ? dir : "/";
            args[k] = (char *)(slash ? slash + 1 : argv[k + 1]);
            k++;
        } else if (strcmp(argv[k], "--frames") == 0 && k + 1 < argc) {
            /* --frames DIR: the pictures go into DIR */
            if (o.out)
                return usage_error("%s", "'collective' takes --png or --frames, not both");
            o.out = argv[k + 1];
            args[k] = argv[k + 1];
            k++;
        }
    }
    return run_script(path, argc - 1, args, &o);
}

/* simtlab fit|decode ...: lessons/planner.lua with the same arguments
 * (--lang before or after them works: it is a run option). */
static int planner_command(int argc, char **argv)
{
    char path[1024], *args[64];
    cli_opts_t o;
    int n = 0;
    memset(&o, 0, sizeof o);
    if (arch_find_file("lessons/planner.lua", path, sizeof path) != 0) {
        fprintf(stderr, "simtlab: cannot find lessons/planner.lua (set SIMTLAB_HOME to the simtlab directory)\n");
        return 1;
    }
    if (argc > (int)(sizeof args / sizeof args[0]))
        return usage_error("%s", "too many arguments");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc) {
            o.lang = argv[++i];
            if (strcmp(o.lang, "en") != 0 && strcmp(o.lang, "zh") != 0)
                return usage_error("--lang is en or zh, got '%s'", o.lang);
        } else {
            args[n++] = argv[i];
        }
    }
    return run_script(path, n, args, &o);
}

static int run_command(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd)
        return usage_error("%s", "missing command");
    /* --lang anywhere: `simtlab --lang zh lesson 3` is `simtlab lesson 3 --lang zh` */
    if (strcmp(cmd, "--lang") == 0 && argc > 3) {
        char *l = argv[1], *v = argv[2];
        memmove(argv + 1, argv + 3, (size_t)(argc - 3) * sizeof *argv);
        argv[argc - 2] = l;
        argv[argc - 1] = v;
        cmd = argv[1];
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        /* in Chinese with --lang zh, or a Chinese locale without --lang */
        const char *lang = lstage_lang_from_env();
        for (int i = 2; i + 1 < argc; i++)
            if (strcmp(argv[i], "--lang") == 0)
                lang = argv[i + 1];
        int zh = strcmp(lang, "zh") == 0;
        fputs(zh ? usage_zh : usage_text, stdout);
        fputs(zh ? usage_zh2 : usage_text2, stdout);
        if (!zh) {
            fputs(usage_text3, stdout);
            fputs(usage_text4, stdout);
        }
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("simtlab %s (%s)\n", SIMT_VERSION, LUA_RELEASE);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) {
        cli_opts_t o;
        int i = parse_opts(argc, argv, 2, 0, 0, &o);
        if (i < 0)
            return 2;
        if (i >= argc)
            return usage_error("%s", "'run' needs a script: simtlab run [OPTIONS] SCRIPT.lua "
                                     "[ARGS...]");
        return run_script(argv[i], argc - i - 1, argv + i + 1, &o);
    }
    if (strcmp(cmd, "sweep") == 0) {
        cli_opts_t o;
        if (parse_opts(argc, argv, 2, 1, 0, &o) < 0)
            return 2;
        return run_sweep(&o);
    }
    if (strcmp(cmd, "asm") == 0) {
        if (argc != 3)
            return usage_error("%s", "'asm' needs one file: simtlab asm FILE.s");
        return asm_listing(argv[2]);
    }
    if (strcmp(cmd, "show") == 0) {
        cli_opts_t o;
        int i = parse_opts(argc, argv, 2, 0, 1, &o);
        if (i < 0)
            return 2;
        if (i >= argc)
            return usage_error("%s", "'show' needs a script: simtlab show [OPTIONS] SCRIPT.lua [ARGS...]");
        return run_script(argv[i], argc - i - 1, argv + i + 1, &o);
    }
    if (strcmp(cmd, "demo") == 0) {
        char path[1024];
        cli_opts_t o;
        int i = parse_opts(argc, argv, 2, 0, 1, &o);
        if (i < 0)
            return 2;
        if (i != argc)
            return usage_error("'demo' takes only options, got '%s'", argv[i]);
        if (arch_find_file("lessons/demo.lua", path, sizeof path) != 0) {
            fprintf(stderr, "simtlab: cannot find lessons/demo.lua (set SIMTLAB_HOME to the "
                            "simtlab directory)\n");
            return 1;
        }
        o.default_png = "simtlab-demo.png";
        return run_script(path, 0, NULL, &o);
    }
    if (strcmp(cmd, "lessons") == 0)
        return course_lessons(argc, argv);
    if (strcmp(cmd, "lesson") == 0) {
        char path[1024], *args[64];
        cli_opts_t o;
        options_first(argc, argv, 2);   /* simtlab lesson 3 --lang zh works too */
        int i = parse_opts(argc, argv, 2, 0, 1, &o);
        if (i < 0)
            return 2;
        if (i >= argc || !is_number(argv[i]))
            return usage_error("%s", "'lesson' needs a lesson number: simtlab lesson N [OPTIONS] [KNOB=VALUE ...] "
                                     "(see 'simtlab lessons')");
        if (argc - i + 1 > (int)(sizeof args / sizeof args[0]))
            return usage_error("%s", "too many knobs");
        if (course_path(path, sizeof path) != 0)
            return 1;
        static char png[64];
        snprintf(png, sizeof png, "simtlab-lesson-%s.png", argv[i]);
        o.default_png = png;
        args[0] = "lesson";
        for (int k = i; k < argc; k++)
            args[k - i + 1] = argv[k];
        return run_script(path, argc - i + 1, args, &o);
    }
    if (strcmp(cmd, "check") == 0) {
        for (int k = 2; k < argc; k++)
            if (strcmp(argv[k], "--answer") == 0)
                return course_answer(argc, argv);
    }
    if (strcmp(cmd, "check") == 0) {
        char path[1024], *args[4];
        cli_opts_t o;
        int json = 0, k = 2;
        for (int j = 2; j < argc; j++)   /* --json may come anywhere */
            if (strcmp(argv[j], "--json") == 0)
                json = 1;
            else
                argv[k++] = argv[j];
        argc = k;
        options_first(argc, argv, 2);    /* options before or after N FILE.s */
        int i = parse_opts(argc, argv, 2, 0, 0, &o);
        if (i < 0)
            return 2;
        if (argc - i != 2 || !is_number(argv[i]))
            return usage_error("%s", "'check' needs a lesson number and a kernel: simtlab check N FILE.s [--json]");
        /* the course, the grader and the presets come from simtlab's own
         * folders ($SIMTLAB_HOME or the installation), never from the
         * current folder; the kernel named here is the one file read
         * from wherever the student keeps it */
        arch_installed_only();
        if (course_path(path, sizeof path) != 0)
            return 1;
        o.read_file = argv[i + 1];
        args[0] = "grade";
        args[1] = argv[i];
        args[2] = argv[i + 1];
        args[3] = "--json";
        return run_script(path, 3 + json, args, &o);
    }
    if (strcmp(cmd, "collective") == 0)
        return run_collective(argc, argv);
    if (strcmp(cmd, "fit") == 0 || strcmp(cmd, "decode") == 0)
        return planner_command(argc, argv);
    if (strcmp(cmd, "presets") == 0) {
        if (argc == 3 && strcmp(argv[2], "--json") == 0)
            return presets_table(1, 0);
        if (argc == 3 && strcmp(argv[2], "--names") == 0)
            return presets_table(0, 1);
        if (argc != 2)
            return usage_error("%s", "'presets' takes --json or --names");
        return presets_table(0, 0);
    }
    if (cmd[0] == '-')
        return usage_error("unknown option '%s'", cmd);
    return usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    int rc = run_command(argc, argv);
    /* output that could not be written (a full disk, > /dev/full) is a
     * failure, not a success */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "simtlab: error writing the output (disk full?)\n");
        return rc ? rc : 1;
    }
    return rc;
}
