/* sandbox.c - safe libraries, a restricted require, an instruction
 * watchdog (count hook) and a memory cap (counting allocator) for Lua
 * states that run lessons and student scripts. See sandbox.h. */
#include "sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#define HOOK_EVERY 10000      /* VM instructions between watchdog checks */
#define DIR_MAX 1024

/* The sandbox of one state: the allocator's user data, so that every
 * part (hook, require, pcall) finds it with lua_getallocf. */
typedef struct sandbox {
    lua_Alloc prev;            /* the allocator that does the work        */
    void *prev_ud;             /* its user data                           */
    uint64_t used;             /* bytes the state holds now               */
    uint64_t max_bytes;        /* cap on used                             */
    int refused;               /* an allocation was refused by the cap    */
    uint64_t instructions;     /* VM instructions run (in HOOK_EVERY steps) */
    uint64_t max_instructions; /* watchdog limit                          */
    char lib_dir[DIR_MAX];     /* lessons/lib, "" for none                */
    char script_dir[DIR_MAX];  /* the script's directory, "" for none     */
} sandbox_t;

static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sandbox_t *s = (sandbox_t *)ud;
    size_t old = ptr ? osize : 0;   /* for a new block osize is a type tag */
    if (nsize == 0) {
        s->prev(s->prev_ud, ptr, osize, 0);
        s->used -= old < s->used ? old : s->used;
        return NULL;
    }
    if (nsize > old && s->used - old + nsize > s->max_bytes) {
        s->refused = 1;
        return NULL;                 /* Lua raises "not enough memory" */
    }
    void *p = s->prev(s->prev_ud, ptr, osize, nsize);
    if (p)
        s->used = s->used - old + nsize;
    return p;
}

/* The sandbox of L, or NULL if L has none. */
static sandbox_t *get_sandbox(lua_State *L)
{
    void *ud = NULL;
    lua_Alloc f = lua_getallocf(L, &ud);
    return f == sb_alloc ? (sandbox_t *)ud : NULL;
}

static void sb_hook(lua_State *L, lua_Debug *ar)
{
    sandbox_t *s = get_sandbox(L);
    (void)ar;
    if (!s)
        return;
    s->instructions += HOOK_EVERY;
    if (s->instructions > s->max_instructions) {
        char msg[96];
        snprintf(msg, sizeof msg, "script ran for more than %llu instructions (an endless loop?)",
                 (unsigned long long)s->max_instructions);
        luaL_error(L, "%s", msg);
    }
}

/* load(chunk [, chunkname [, mode [, env]]]) that compiles text only. */
static int sb_load(lua_State *L)
{
    int has_env = lua_gettop(L) >= 4;   /* an explicit nil env counts */
    lua_settop(L, 4);
    lua_pushvalue(L, lua_upvalueindex(1));   /* the real load */
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushliteral(L, "t");
    if (has_env)
        lua_pushvalue(L, 4);
    lua_call(L, has_env ? 4 : 3, LUA_MULTRET);
    return lua_gettop(L) - 4;
}

static int valid_module_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

/* require(name): a loaded module, or NAME.lua from lessons/lib or the
 * script's directory (text only), run once and remembered. */
static int sb_require(lua_State *L)
{
    sandbox_t *s = get_sandbox(L);
    const char *name = luaL_checkstring(L, 1);
    const char *dirs[2];
    char path[DIR_MAX + 80];
    lua_settop(L, 1);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);   /* 2 */
    if (lua_getfield(L, 2, name) != LUA_TNIL && lua_toboolean(L, -1))
        return 1;
    lua_pop(L, 1);
    if (!s)
        return luaL_error(L, "require: no sandbox");
    if (!valid_module_name(name))
        return luaL_error(L, "require: module name '%s' is not allowed: a module is NAME.lua "
                          "(letters, digits and '_') in simtlab's lessons/lib or the script's directory", name);
    dirs[0] = s->lib_dir;
    dirs[1] = s->script_dir;
    for (int i = 0; i < 2; i++) {
        FILE *f;
        if (!dirs[i][0])
            continue;
        snprintf(path, sizeof path, "%s/%s.lua", dirs[i], name);
        f = fopen(path, "r");
        if (!f)
            continue;
        fclose(f);
        if (luaL_loadfilex(L, path, "t") != LUA_OK)
            return lua_error(L);
        lua_pushstring(L, name);
        lua_pushstring(L, path);
        lua_call(L, 2, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_pushboolean(L, 1);
        }
        lua_pushvalue(L, -1);
        lua_setfield(L, 2, name);
        return 1;
    }
    return luaL_error(L, "require: module '%s' not found (looked for %s.lua in %s%s%s)", name, name,
                      s->lib_dir[0] ? s->lib_dir : "", s->lib_dir[0] && s->script_dir[0] ? " and " : "",
                      s->script_dir[0] ? s->script_dir : "");
}

/* Open a library with luaL_requiref (global + loaded), popping it. */
static void open_lib(lua_State *L, const char *name, lua_CFunction f)
{
    luaL_requiref(L, name, f, 1);
    lua_pop(L, 1);
}

int sandbox_open(lua_State *L, const sandbox_opts_t *o)
{
    sandbox_t *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->max_bytes = o && o->max_bytes ? o->max_bytes : SANDBOX_DEFAULT_BYTES;
    s->max_instructions = o && o->max_instructions ? o->max_instructions : SANDBOX_DEFAULT_INSTRUCTIONS;
    snprintf(s->lib_dir, sizeof s->lib_dir, "%s", o && o->lib_dir ? o->lib_dir : "");
    snprintf(s->script_dir, sizeof s->script_dir, "%s", o && o->script_dir ? o->script_dir : "");

    open_lib(L, LUA_GNAME, luaopen_base);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
    open_lib(L, LUA_COLIBNAME, luaopen_coroutine);

    /* base: no files, text-only load */
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_getglobal(L, "load");
    lua_pushcclosure(L, sb_load, 1);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, sb_require);
    lua_setglobal(L, "require");

    /* os: clock, time and date only (not registered as a loaded module) */
    lua_pushcfunction(L, luaopen_os);
    lua_call(L, 0, 1);
    lua_newtable(L);
    static const char *const os_keep[] = { "clock", "time", "date" };
    for (size_t i = 0; i < sizeof os_keep / sizeof os_keep[0]; i++) {
        lua_getfield(L, -2, os_keep[i]);
        lua_setfield(L, -2, os_keep[i]);
    }
    lua_setglobal(L, "os");
    lua_pop(L, 1);

    /* io: output to the terminal only (write, stdout, stderr); no files */
    lua_pushcfunction(L, luaopen_io);
    lua_call(L, 0, 1);
    lua_newtable(L);
    static const char *const io_keep[] = { "write", "stdout", "stderr" };
    for (size_t i = 0; i < sizeof io_keep / sizeof io_keep[0]; i++) {
        lua_getfield(L, -2, io_keep[i]);
        lua_setfield(L, -2, io_keep[i]);
    }
    lua_setglobal(L, "io");
    lua_pop(L, 1);

    /* the memory cap counts from what the state holds already */
    s->used = (uint64_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024u + (uint64_t)lua_gc(L, LUA_GCCOUNTB, 0);
    s->prev = lua_getallocf(L, &s->prev_ud);
    lua_setallocf(L, sb_alloc, s);
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
    return 0;
}

int sandbox_pcall(lua_State *L, int nargs, int nresults, int msgh)
{
    sandbox_t *s = get_sandbox(L);
    if (s)
        s->refused = 0;
    int rc = lua_pcall(L, nargs, nresults, msgh);
    if (rc == LUA_ERRMEM && s && s->refused) {
        uint64_t cap = s->max_bytes;
        s->max_bytes = UINT64_MAX;   /* room for the message itself */
        lua_pop(L, 1);
        lua_pushfstring(L, "script used more than %d MB of memory (the sandbox's limit)",
                        (int)(cap >> 20));
        s->max_bytes = cap;
    }
    return rc;
}

void sandbox_close(lua_State *L)
{
    sandbox_t *s = get_sandbox(L);
    lua_close(L);
    free(s);
}
