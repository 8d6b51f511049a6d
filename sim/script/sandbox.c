/* sandbox.c - safe libraries, a restricted require, an instruction
 * watchdog and wall-clock limit (count hook, SIGALRM backstop), a memory
 * cap (counting allocator plus charges from C) and the file policy for
 * Lua states that run lessons and student scripts. See sandbox.h. */
#define _XOPEN_SOURCE 700 /* realpath, openat, fdopen, setitimer, sigaction */

#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#define HOOK_EVERY 10000      /* VM instructions between watchdog checks */
#define DIR_MAX 4096
#define NAME_MAX_LEN 255      /* longest name a script may write         */
#define MODULE_MAX_BYTES (1u << 20) /* largest module require reads      */
#define HARD_STOP_GRACE 2     /* seconds C code may run past the limit   */
#define ALLOC_BYTES_PER_UNIT 32 /* bytes allocated per watchdog instruction */
#define TABLE_ELEMENT_WORK 4    /* instructions per element table.move/insert/remove
                                   move (each a lua_geti + lua_seti: measured about
                                   4 VM instructions' time)                   */

enum { STOP_NONE, STOP_INSTRUCTIONS, STOP_TIME };

/* A list of paths (copied strings). */
typedef struct pathlist {
    int n;
    char *p[SANDBOX_MAX_DIRS];
} pathlist_t;

/* The sandbox of one state: the allocator's user data, so that every
 * part (hook, require, pcall, the binding) finds it with lua_getallocf. */
typedef struct sandbox {
    lua_Alloc prev;            /* the allocator that does the work        */
    void *prev_ud;             /* its user data                           */
    lua_State *L;              /* the main thread                         */
    uint64_t used;             /* bytes the Lua heap holds now            */
    uint64_t ext;              /* bytes charged from C (device memory)    */
    uint64_t max_bytes;        /* cap on used + ext                       */
    int refused;               /* an allocation was refused by the cap    */
    uint64_t instructions;     /* VM instructions run (in HOOK_EVERY steps) + C work */
    uint64_t max_instructions; /* watchdog limit                          */
    double time_limit;         /* seconds, 0: none                        */
    struct timespec start;     /* when the sandbox opened                 */
    volatile sig_atomic_t stop;/* STOP_*: sticky once set                 */
    char where[128];           /* last script position the hook saw      */
    char lib_dir[DIR_MAX];     /* lessons/lib, "" for none                */
    char script_dir[DIR_MAX];  /* the script's directory, "" for none     */
    char out_dir[DIR_MAX];     /* the output folder, "" for none          */
    int out_dir_named;         /* the user named it: may be a symlink     */
    pathlist_t roots;          /* readable folders, resolved (realpath)   */
    pathlist_t read_dirs;      /* the same as given, for messages         */
    pathlist_t read_files;     /* exact readable paths                    */
    pathlist_t write_files;    /* exact writable paths                    */
} sandbox_t;

static void sb_hook(lua_State *L, lua_Debug *ar);

static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sandbox_t *s = (sandbox_t *)ud;
    size_t old = ptr ? osize : 0;   /* for a new block osize is a type tag */
    if (nsize == 0) {
        s->prev(s->prev_ud, ptr, osize, 0);
        s->used -= old < s->used ? old : s->used;
        return NULL;
    }
    if (nsize > old && s->used - old + nsize + s->ext > s->max_bytes) {
        s->refused = 1;
        return NULL;                 /* Lua raises "not enough memory" */
    }
    void *p = s->prev(s->prev_ud, ptr, osize, nsize);
    if (p) {
        s->used = s->used - old + nsize;
        /* a new block is filled by whoever asked for it (a string built
         * by '..' or string.rep, a table grown, a tensor cleared): count
         * its bytes as work, so that C work the hook cannot see ends too.
         * The stop is raised by the hook at the next instruction. */
        if (nsize > old) {
            s->instructions += (nsize - old) / ALLOC_BYTES_PER_UNIT;
            if (!s->stop && s->instructions > s->max_instructions) {
                s->stop = STOP_INSTRUCTIONS;
                lua_sethook(s->L, sb_hook, LUA_MASKCOUNT, 1);
            }
        }
    }
    return p;
}

/* The sandbox of L, or NULL if L has none. */
static sandbox_t *get_sandbox(lua_State *L)
{
    void *ud = NULL;
    lua_Alloc f = lua_getallocf(L, &ud);
    return f == sb_alloc ? (sandbox_t *)ud : NULL;
}

int sandbox_active(lua_State *L)
{
    return get_sandbox(L) != NULL;
}

static double elapsed(const sandbox_t *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - s->start.tv_sec) + 1e-9 * (double)(now.tv_nsec - s->start.tv_nsec);
}

/* Set s->stop if a limit has passed. */
static void check_limits(sandbox_t *s)
{
    if (s->stop)
        return;
    if (s->instructions > s->max_instructions)
        s->stop = STOP_INSTRUCTIONS;
    else if (s->time_limit > 0 && elapsed(s) > s->time_limit)
        s->stop = STOP_TIME;
}

/* Push the message of the sticky stop, prefixed by `where`. */
static void push_stop_message(lua_State *L, const sandbox_t *s, const char *where)
{
    char msg[160];
    if (s->stop == STOP_TIME)
        snprintf(msg, sizeof msg, "script ran for more than %g s (the time limit, --time-limit)",
                 s->time_limit);
    else
        snprintf(msg, sizeof msg, "script ran for more than %llu instructions (an endless loop?)",
                 (unsigned long long)s->max_instructions);
    lua_pushfstring(L, "%s%s", where, msg);
}

static void sb_hook(lua_State *L, lua_Debug *ar)
{
    sandbox_t *s = get_sandbox(L);
    lua_Debug here;
    if (!s)
        return;
    (void)ar;
    s->instructions += HOOK_EVERY;
    check_limits(s);
    s->where[0] = '\0';
    if (lua_getstack(L, 0, &here) && lua_getinfo(L, "Sl", &here) && here.currentline > 0)
        snprintf(s->where, sizeof s->where, "%s:%d: ", here.short_src, here.currentline);
    if (s->stop) {
        /* sticky: from now on every instruction of this thread raises */
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
        push_stop_message(L, s, s->where);
        lua_error(L);
    }
}

void sandbox_charge_work(lua_State *L, uint64_t units)
{
    sandbox_t *s = get_sandbox(L);
    if (!s)
        return;
    s->instructions += units;
    check_limits(s);
    if (s->stop) {
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);   /* sticky, as in sb_hook */
        luaL_where(L, 1);
        push_stop_message(L, s, lua_tostring(L, -1));
        lua_error(L);
    }
}

int sandbox_charge_bytes(lua_State *L, int64_t delta)
{
    sandbox_t *s = get_sandbox(L);
    if (!s)
        return 0;
    if (delta < 0) {
        uint64_t d = (uint64_t)-delta;
        s->ext -= d < s->ext ? d : s->ext;
        return 0;
    }
    if (s->used + s->ext + (uint64_t)delta > s->max_bytes)
        return -1;
    s->ext += (uint64_t)delta;
    return 0;
}

uint64_t sandbox_bytes_left(lua_State *L)
{
    sandbox_t *s = get_sandbox(L);
    if (!s)
        return 0;
    uint64_t held = s->used + s->ext;
    return held < s->max_bytes ? s->max_bytes - held : 1;
}

int sandbox_memory_error(lua_State *L, const char *what, uint64_t bytes)
{
    sandbox_t *s = get_sandbox(L);
    uint64_t cap = s ? s->max_bytes : 0;
    luaL_where(L, 1);
    lua_pushfstring(L, "%sscript used more than %d MB of memory (the sandbox's limit; %s needs %d MB "
                       "more, Lua holds %d MB, GPUs, CPUs and tensors %d MB)",
                    lua_tostring(L, -1), (int)(cap >> 20), what, (int)((bytes + (1u << 20) - 1) >> 20),
                    (int)(s ? s->used >> 20 : 0), (int)(s ? s->ext >> 20 : 0));
    return lua_error(L);
}

/* ---- the SIGALRM backstop ------------------------------------------------ */

/* The one sandbox whose wall-clock limit the process timer serves (a
 * signal handler has no other way to find it). */
static sandbox_t *alarm_sandbox;
static volatile sig_atomic_t alarm_fired;

static void on_alarm(int sig)
{
    static const char msg[] = "simtlab: script ran past its time limit (--time-limit) in C code "
                              "(a long launch or reference, a string pattern); stopped\n";
    (void)sig;
    if (!alarm_fired && alarm_sandbox) {
        alarm_fired = 1;
        alarm_sandbox->stop = STOP_TIME;
        /* lua_sethook may be called from a signal handler (lua.h) */
        lua_sethook(alarm_sandbox->L, sb_hook, LUA_MASKCOUNT, 1);
        alarm(HARD_STOP_GRACE);
        return;
    }
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nothing more to do */
    }
    _exit(1);
}

static void arm_timer(sandbox_t *s)
{
    struct sigaction sa;
    struct itimerval it;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm_sandbox = s;
    alarm_fired = 0;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)s->time_limit;
    it.it_value.tv_usec = (suseconds_t)((s->time_limit - (double)(time_t)s->time_limit) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm_timer(sandbox_t *s)
{
    struct itimerval it;
    if (alarm_sandbox != s)
        return;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    alarm_sandbox = NULL;
}

/* ---- load, setmetatable, require ------------------------------------------- */

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

/* setmetatable(t, mt) without finalizers: Lua runs __gc with hooks off,
 * where neither the watchdog nor the time limit could stop it. Lua marks
 * an object for finalization only if mt has a __gc field when
 * setmetatable runs, so checking here (raw) is enough. Otherwise as the
 * base library's setmetatable. */
static int sb_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc finalizers are not allowed in the sandbox "
                                 "(they would run outside the watchdog)");
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* The message handler xpcall really gets: the script's handler, except
 * after a stop. An error raised from the watchdog's hook reaches the
 * handler while Lua still has hooks off, where an endless handler could
 * not be stopped; after a stop the handler is not run at all. */
static int sb_msgh(lua_State *L)
{
    sandbox_t *s = get_sandbox(L);
    if (s && s->stop)
        return 1;   /* the error object unchanged */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sb_xpcall_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L);
}

/* xpcall(f, msgh, ...) with msgh wrapped by sb_msgh (f may yield). */
static int sb_xpcall(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, sb_msgh, 1);
    lua_replace(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, sb_xpcall_k);
    return lua_gettop(L);
}

/* How a wrapped library function's C work is counted (sb_counted). */
enum { COUNT_SUBJECT, COUNT_REP, COUNT_RESULT, COUNT_MOVE, COUNT_INSERT, COUNT_REMOVE, COUNT_SORT,
       COUNT_PATTERN, COUNT_RESUME, COUNT_WRAP };

/* Switching to a coroutine and back through the sandbox costs the host
 * about as much as 27 Lua instructions (1e7 resume/yield pairs: 2.1 s;
 * 3e8 plain instructions: 2.3 s), so a loop of resumes is charged what it
 * costs, with a margin. */
#define RESUME_WORK 32

/* ---- string patterns: a CPU-time guard ------------------------------------
 * Backtracking inside a pattern (s:find(".-.-.-b") on a long text) runs in
 * C, where no hook sees it, and can take hours. While a pattern function
 * runs (not the Lua callbacks gsub makes), a CPU-time timer is armed:
 * past PATTERN_CPU_SECONDS the process ends with a message (exit 1). */
#define PATTERN_CPU_SECONDS 20   /* SIMTLAB_PATTERN_SECONDS may lower it (tests) */
static int pattern_depth;
static char pattern_msg[200];
static size_t pattern_msg_len;

static void on_pattern_timeout(int sig)
{
    (void)sig;
    if (write(2, pattern_msg, pattern_msg_len) < 0) {
        /* nothing more to do */
    }
    _exit(1);
}

static void pattern_timer(const struct itimerval *it)
{
    setitimer(ITIMER_PROF, it, NULL);
}

static void pattern_enter(void)
{
    if (pattern_depth++ == 0) {
        struct sigaction sa;
        struct itimerval it;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_pattern_timeout;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGPROF, &sa, NULL);
        const char *env = getenv("SIMTLAB_PATTERN_SECONDS");
        long secs = env ? strtol(env, NULL, 10) : PATTERN_CPU_SECONDS;
        if (secs < 1 || secs > PATTERN_CPU_SECONDS)
            secs = PATTERN_CPU_SECONDS;
        int len = snprintf(pattern_msg, sizeof pattern_msg, "simtlab: a string pattern ran for more than %ld s of "
                           "CPU time (backtracking, as s:find('.-.-.-b') on a long text does); stopped\n", secs);
        pattern_msg_len = len > 0 && (size_t)len < sizeof pattern_msg ? (size_t)len : 0;
        memset(&it, 0, sizeof it);
        it.it_value.tv_sec = secs;
        pattern_timer(&it);
    }
}

static void pattern_leave(void)
{
    if (pattern_depth > 0 && --pattern_depth == 0) {
        struct itimerval it;
        memset(&it, 0, sizeof it);
        pattern_timer(&it);
    }
}

/* Call the function below the n arguments on the stack with the pattern
 * guard on; errors pass through (after the guard is off). */
static int pattern_call(lua_State *L, int n)
{
    pattern_enter();
    int rc = lua_pcall(L, n, LUA_MULTRET, 0);
    pattern_leave();
    if (rc != LUA_OK)
        return lua_error(L);
    return lua_gettop(L);
}

/* gsub's replacement function (upvalue 1), run with the guard paused:
 * Lua code is the watchdog's. */
static int sb_pattern_callback(lua_State *L)
{
    struct itimerval left, off;
    int depth = pattern_depth, rc;
    memset(&off, 0, sizeof off);
    getitimer(ITIMER_PROF, &left);
    pattern_timer(&off);
    pattern_depth = 0;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    rc = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    pattern_depth = depth;
    if (depth > 0 && (left.it_value.tv_sec || left.it_value.tv_usec))
        pattern_timer(&left);
    if (rc != LUA_OK)
        return lua_error(L);
    return lua_gettop(L);
}

/* The iterator string.gmatch returns (upvalue 1), guarded. */
static int sb_pattern_iter(lua_State *L)
{
    lua_settop(L, 0);
    lua_pushvalue(L, lua_upvalueindex(1));
    return pattern_call(L, 0);
}

/* A string or table function whose work happens in C, where the hook does
 * not see it: count it against the watchdog (one instruction per byte of
 * a pattern's subject or of the string built) and call the original
 * (upvalue 1; upvalue 2 says how to count). Backtracking inside a pattern
 * is not counted: the pattern guard above bounds it. */
static int sb_counted(lua_State *L)
{
    int how = (int)lua_tointeger(L, lua_upvalueindex(2));
    size_t len = 0;
    if ((how == COUNT_SUBJECT || how == COUNT_PATTERN) && lua_type(L, 1) == LUA_TSTRING) {
        lua_tolstring(L, 1, &len);
        sandbox_charge_work(L, len);
    }
    if (how == COUNT_PATTERN) {
        if (lua_type(L, 3) == LUA_TFUNCTION) {   /* gsub's callback: not guarded */
            lua_pushvalue(L, 3);
            lua_pushcclosure(L, sb_pattern_callback, 1);
            lua_replace(L, 3);
        }
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        int n = pattern_call(L, lua_gettop(L) - 1);
        if (n == 1 && lua_type(L, 1) == LUA_TFUNCTION) {   /* gmatch's iterator */
            lua_pushcclosure(L, sb_pattern_iter, 1);
        }
        return n;
    }
    if (how == COUNT_REP && lua_type(L, 1) == LUA_TSTRING && lua_type(L, 2) == LUA_TNUMBER) {
        size_t lsep = lua_type(L, 3) == LUA_TSTRING ? lua_rawlen(L, 3) : 0;
        double n = (double)lua_tonumber(L, 2), work;
        lua_tolstring(L, 1, &len);
        /* string.rep("", n) still loops n times */
        work = ((double)len + (double)lsep + 1) * n;
        if (work > 0)
            sandbox_charge_work(L, work < 1e18 ? (uint64_t)work : (uint64_t)1e18);
    } else if (how == COUNT_MOVE && lua_type(L, 2) == LUA_TNUMBER && lua_type(L, 3) == LUA_TNUMBER) {
        /* table.move(a1, f, e, t): e - f + 1 elements copied in C */
        double work = TABLE_ELEMENT_WORK * ((double)lua_tonumber(L, 3) - (double)lua_tonumber(L, 2) + 1);
        if (work > 0)
            sandbox_charge_work(L, work < 1e18 ? (uint64_t)work : (uint64_t)1e18);
    } else if (how == COUNT_SORT && lua_type(L, 1) == LUA_TTABLE) {
        /* about n log2 n comparisons (a __lt runs under the hook too) */
        double n = (double)lua_rawlen(L, 1);
        if (n > 1)
            sandbox_charge_work(L, (uint64_t)(n * (1 + log2(n))));
    } else if ((how == COUNT_INSERT || how == COUNT_REMOVE) && lua_type(L, 1) == LUA_TTABLE
               && lua_type(L, 2) == LUA_TNUMBER && (how == COUNT_REMOVE || lua_gettop(L) == 3)) {
        /* table.insert(t, pos, v) / table.remove(t, pos) shift the
         * elements after pos (an append or a pop is one step) */
        double work = TABLE_ELEMENT_WORK * ((double)lua_rawlen(L, 1) - (double)lua_tonumber(L, 2) + 1);
        if (work > 0)
            sandbox_charge_work(L, work < 1e18 ? (uint64_t)work : (uint64_t)1e18);
    } else if (how == COUNT_RESUME) {
        sandbox_charge_work(L, RESUME_WORK);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    if (how == COUNT_RESULT && lua_type(L, 1) == LUA_TSTRING)
        sandbox_charge_work(L, lua_rawlen(L, 1));
    if (how == COUNT_WRAP && lua_gettop(L) == 1 && lua_type(L, 1) == LUA_TFUNCTION) {
        lua_pushinteger(L, COUNT_RESUME);   /* the function coroutine.wrap made resumes when called */
        lua_pushcclosure(L, sb_counted, 2);
    }
    return lua_gettop(L);
}

/* Wrap lib.name (the table on top of the stack) with sb_counted. */
static void count_work(lua_State *L, const char *name, int how)
{
    lua_getfield(L, -1, name);
    lua_pushinteger(L, how);
    lua_pushcclosure(L, sb_counted, 2);
    lua_setfield(L, -2, name);
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
 * script's directory (text only, a regular file that resolves inside one
 * of them), run once and remembered. */
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
        simt_err_t err;
        struct stat st;
        if (!dirs[i][0])
            continue;
        snprintf(path, sizeof path, "%s/%s.lua", dirs[i], name);
        if (lstat(path, &st) != 0)
            continue;
        simt_err_clear(&err);
        if (sandbox_push_file(L, path, MODULE_MAX_BYTES, NULL, 0, &err) != 0)
            return luaL_error(L, "require: module '%s': %s", name, err.msg);
        {
            size_t len;
            const char *src = lua_tolstring(L, -1, &len);
            lua_pushfstring(L, "@%s", path);
            if (luaL_loadbufferx(L, src, len, lua_tostring(L, -1), "t") != LUA_OK)
                return lua_error(L);
        }
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

/* ---- io: write-only terminal streams -------------------------------------- */

#define OUT_MT "simt.output"   /* a write-only stream: io.stdout, io.stderr */

/* stream:write(...) / io.write(...): strings and numbers, written as the
 * io library writes them; returns the stream. The bytes count as work. */
static int sb_out_write_to(lua_State *L, FILE *f, int first)
{
    int n = lua_gettop(L);
    for (int i = first; i <= n; i++) {
        if (lua_type(L, i) == LUA_TNUMBER) {
            if (lua_isinteger(L, i))
                fprintf(f, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, i));
            else
                fprintf(f, LUA_NUMBER_FMT, (LUAI_UACNUMBER)lua_tonumber(L, i));
        } else {
            size_t len;
            const char *str = luaL_checklstring(L, i, &len);
            sandbox_charge_work(L, len);
            fwrite(str, 1, len, f);
        }
    }
    return 0;
}

static FILE *out_file(lua_State *L, int arg)
{
    return *(int *)luaL_checkudata(L, arg, OUT_MT) ? stderr : stdout;
}

static int sb_out_write(lua_State *L)
{
    sb_out_write_to(L, out_file(L, 1), 2);
    lua_settop(L, 1);
    return 1;
}

static int sb_out_flush(lua_State *L)
{
    fflush(out_file(L, 1));
    lua_settop(L, 1);
    return 1;
}

static int sb_out_tostring(lua_State *L)
{
    lua_pushstring(L, out_file(L, 1) == stderr ? "stderr (write only)" : "stdout (write only)");
    return 1;
}

/* io.write(...): to stdout; returns io.stdout (upvalue 1). */
static int sb_io_write(lua_State *L)
{
    sb_out_write_to(L, stdout, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

/* Push a write-only stream (which: 0 stdout, 1 stderr). A script could
 * seek the real file handles and rewrite earlier lines of a results file
 * that stdout goes to, or read it; these streams only write and flush. */
static void push_out(lua_State *L, int which)
{
    *(int *)lua_newuserdatauv(L, sizeof(int), 0) = which;
    if (luaL_newmetatable(L, OUT_MT)) {
        static const luaL_Reg methods[] = { { "write", sb_out_write }, { "flush", sb_out_flush }, { NULL, NULL } };
        luaL_newlib(L, methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, sb_out_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
}

/* Open a library with luaL_requiref (global + loaded), popping it. */
static void open_lib(lua_State *L, const char *name, lua_CFunction f)
{
    luaL_requiref(L, name, f, 1);
    lua_pop(L, 1);
}

static int list_add(pathlist_t *l, const char *p)
{
    if (!p || !p[0])
        return 0;
    if (l->n == SANDBOX_MAX_DIRS)
        return -1;
    l->p[l->n] = malloc(strlen(p) + 1);
    if (!l->p[l->n])
        return -1;
    strcpy(l->p[l->n++], p);
    return 0;
}

static int list_copy(pathlist_t *l, const char *const *ps)
{
    for (; ps && *ps; ps++)
        if (list_add(l, *ps) != 0)
            return -1;
    return 0;
}

static void list_free(pathlist_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->p[i]);
    l->n = 0;
}

/* Add dir, resolved, to the readable roots (a folder that does not exist
 * adds nothing). */
static int add_root(sandbox_t *s, const char *dir)
{
    char buf[PATH_MAX];
    if (!dir || !dir[0] || !realpath(dir, buf))
        return 0;
    return list_add(&s->roots, buf);
}

static void sandbox_free(sandbox_t *s)
{
    list_free(&s->roots);
    list_free(&s->read_dirs);
    list_free(&s->read_files);
    list_free(&s->write_files);
    free(s);
}

/* Long (112 lines) on purpose: the whole list of what a sandboxed state
 * gets, library by library, read top to bottom in one place. */
int sandbox_open(lua_State *L, const sandbox_opts_t *o)
{
    sandbox_t *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->L = L;
    s->max_bytes = o && o->max_bytes ? o->max_bytes : SANDBOX_DEFAULT_BYTES;
    s->max_instructions = o && o->max_instructions ? o->max_instructions : SANDBOX_DEFAULT_INSTRUCTIONS;
    s->time_limit = o && o->time_limit > 0 ? o->time_limit : 0;
    clock_gettime(CLOCK_MONOTONIC, &s->start);
    snprintf(s->lib_dir, sizeof s->lib_dir, "%s", o && o->lib_dir ? o->lib_dir : "");
    snprintf(s->script_dir, sizeof s->script_dir, "%s", o && o->script_dir ? o->script_dir : "");
    snprintf(s->out_dir, sizeof s->out_dir, "%s", o && o->out_dir ? o->out_dir : "");
    s->out_dir_named = o ? o->out_dir_named : 0;
    if (o && (list_copy(&s->read_dirs, o->read_dirs) || list_copy(&s->read_files, o->read_files)
              || list_copy(&s->write_files, o->write_files))) {
        sandbox_free(s);
        return -1;
    }
    if (add_root(s, s->lib_dir) || add_root(s, s->script_dir)) {
        sandbox_free(s);
        return -1;
    }
    for (int i = 0; i < s->read_dirs.n; i++)
        if (add_root(s, s->read_dirs.p[i])) {
            sandbox_free(s);
            return -1;
        }

    open_lib(L, LUA_GNAME, luaopen_base);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
    open_lib(L, LUA_COLIBNAME, luaopen_coroutine);

    /* base: no files, text-only load, no finalizers */
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_getglobal(L, "load");
    lua_pushcclosure(L, sb_load, 1);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, sb_setmetatable);
    lua_setglobal(L, "setmetatable");
    lua_getglobal(L, "xpcall");
    lua_pushcclosure(L, sb_xpcall, 1);
    lua_setglobal(L, "xpcall");
    lua_pushcfunction(L, sb_require);
    lua_setglobal(L, "require");

    /* string and table functions whose work is done in C */
    lua_getglobal(L, "string");
    count_work(L, "find", COUNT_PATTERN);
    count_work(L, "match", COUNT_PATTERN);
    count_work(L, "gmatch", COUNT_PATTERN);
    count_work(L, "gsub", COUNT_PATTERN);
    count_work(L, "rep", COUNT_REP);
    count_work(L, "format", COUNT_RESULT);
    count_work(L, "upper", COUNT_SUBJECT);
    count_work(L, "lower", COUNT_SUBJECT);
    count_work(L, "reverse", COUNT_SUBJECT);
    lua_pop(L, 1);
    lua_getglobal(L, "utf8");
    count_work(L, "len", COUNT_SUBJECT);
    count_work(L, "codepoint", COUNT_SUBJECT);
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    count_work(L, "concat", COUNT_RESULT);
    count_work(L, "move", COUNT_MOVE);
    count_work(L, "insert", COUNT_INSERT);
    count_work(L, "remove", COUNT_REMOVE);
    count_work(L, "sort", COUNT_SORT);
    lua_pop(L, 1);
    lua_getglobal(L, "coroutine");
    count_work(L, "resume", COUNT_RESUME);
    count_work(L, "wrap", COUNT_WRAP);
    lua_pop(L, 1);

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

    /* io: output to the terminal only (write, stdout, stderr), write-only
     * streams without seek or read; no files */
    lua_newtable(L);
    push_out(L, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "stdout");
    lua_pushcclosure(L, sb_io_write, 1);
    lua_setfield(L, -2, "write");
    push_out(L, 1);
    lua_setfield(L, -2, "stderr");
    lua_setglobal(L, "io");

    /* the memory cap counts from what the state holds already */
    s->used = (uint64_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024u + (uint64_t)lua_gc(L, LUA_GCCOUNTB, 0);
    s->prev = lua_getallocf(L, &s->prev_ud);
    lua_setallocf(L, sb_alloc, s);
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
    if (s->time_limit > 0)
        arm_timer(s);
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
        lua_pushfstring(L, "%sscript used more than %d MB of memory (the sandbox's limit%s)",
                        s->where, (int)(cap >> 20),
                        s->where[0] ? "; the line is where the watchdog last looked" : "");
        s->max_bytes = cap;
    }
    return rc;
}

void sandbox_stop_timer(lua_State *L)
{
    sandbox_t *s = get_sandbox(L);
    if (s)
        disarm_timer(s);
}

void sandbox_close(lua_State *L)
{
    sandbox_t *s = get_sandbox(L);
    if (s)
        disarm_timer(s);
    lua_close(L);
    if (s)
        sandbox_free(s);
}

/* ---- files ---------------------------------------------------------------- */

static int in_list(const pathlist_t *l, const char *p)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->p[i], p) == 0)
            return 1;
    return 0;
}

/* 1 if the resolved path lies inside one of the roots. */
static int under_root(const sandbox_t *s, const char *real)
{
    for (int i = 0; i < s->roots.n; i++) {
        const char *r = s->roots.p[i];
        size_t n = strlen(r);
        if (n > 0 && r[n - 1] == '/')
            n--;
        if (strncmp(real, r, n) == 0 && (real[n] == '/' || real[n] == '\0'))
            return 1;
    }
    return 0;
}

const char *sandbox_read_dirs(lua_State *L, char *buf, size_t n)
{
    sandbox_t *s = get_sandbox(L);
    size_t used = 0;
    buf[0] = '\0';
    if (!s)
        return buf;
    const char *parts[2 + SANDBOX_MAX_DIRS];
    int np = 0;
    if (s->lib_dir[0])
        parts[np++] = "simtlab's lessons/lib";
    if (s->script_dir[0])
        parts[np++] = s->script_dir;
    for (int i = 0; i < s->read_dirs.n; i++)
        parts[np++] = s->read_dirs.p[i];
    for (int i = 0; i < np && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", parts[i]);
    return buf;
}

int sandbox_check_read(lua_State *L, const char *path, char *resolved, size_t n, simt_err_t *err)
{
    sandbox_t *s = get_sandbox(L);
    char real[PATH_MAX], dirs[512];
    if (!s || in_list(&s->read_files, path)) {
        if (snprintf(resolved, n, "%s", path) >= (int)n)
            return simt_errf(err, SIMT_E_USAGE, "path too long: '%.200s'", path);
        return 0;
    }
    /* the same answer for a file that does not exist and one outside:
     * nothing tells a script what lies outside its folders */
    if (!realpath(path, real) || !under_root(s, real))
        return simt_errf(err, SIMT_E_USAGE,
                         "'%.300s' was not found in the folders a sandboxed script may read (%s; "
                         "more with simtlab run --read-dir DIR)",
                         path, sandbox_read_dirs(L, dirs, sizeof dirs));
    {
        struct stat st;
        if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
            return simt_errf(err, SIMT_E_USAGE, "'%.300s' is not a regular file", path);
    }
    if (snprintf(resolved, n, "%s", real) >= (int)n)
        return simt_errf(err, SIMT_E_USAGE, "path too long: '%.200s'", path);
    return 0;
}

int sandbox_push_file(lua_State *L, const char *path, size_t max, char *resolved, size_t n,
                      simt_err_t *err)
{
    sandbox_t *s = get_sandbox(L);
    char real[PATH_MAX];
    struct stat st;
    int fd;
    if (sandbox_check_read(L, path, real, sizeof real, err) != 0)
        return -1;
    if (resolved && n)
        snprintf(resolved, n, "%s", real);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    fd = open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return simt_errf(err, SIMT_E_USAGE, "%s '%.300s'", errno == ENOENT ? "no such file" : "cannot open",
                         path);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return simt_errf(err, SIMT_E_USAGE, "'%.300s' is not a regular file", path);
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        return simt_errf(err, SIMT_E_USAGE, "'%.300s' is larger than %zu KB (the limit for this kind of file)",
                         path, max >> 10);
    }
    /* the buffer and the string count against the cap: check both fit so
     * that no allocation below raises while fd is open */
    if (s && s->used + s->ext + 2 * (uint64_t)st.st_size + 4096 > s->max_bytes) {
        close(fd);
        return simt_errf(err, SIMT_E_NOMEM, "no memory left to read '%.300s' (the sandbox's limit)", path);
    }
    {
        size_t size = (size_t)st.st_size, got = 0;
        char *buf = (char *)lua_newuserdatauv(L, size ? size : 1, 0);
        while (got < size) {
            ssize_t r = read(fd, buf + got, size - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        close(fd);
        lua_pushlstring(L, buf, got);
        lua_remove(L, -2);
    }
    return 0;
}

/* 1 if name is a relative path whose parts are plain names. */
static int plain_relative(const char *name)
{
    const char *p = name;
    size_t len = strlen(name);
    if (len == 0 || len > NAME_MAX_LEN || name[0] == '/')
        return 0;
    while (*p) {
        size_t k = strcspn(p, "/");
        if (k == 0 || (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        for (size_t i = 0; i < k; i++)
            if ((unsigned char)p[i] < 0x20 || p[i] == '\\')
                return 0;
        p += k;
        if (*p == '/')
            p++;
        else
            break;
        if (!*p)
            return 0;   /* a trailing '/' names a folder */
    }
    return 1;
}

FILE *sandbox_open_write(lua_State *L, const char *name, char *shown, size_t n, simt_err_t *err)
{
    sandbox_t *s = get_sandbox(L);
    int dfd, fd;
    char part[NAME_MAX_LEN + 1];
    const char *p;
    struct stat st;
    FILE *f;
    snprintf(shown, n, "%s", name);
    if (!s || in_list(&s->write_files, name)) {
        f = fopen(name, "wb");
        if (!f)
            simt_errf(err, SIMT_E_USAGE, "cannot write '%.300s'", name);
        return f;
    }
    if (!s->out_dir[0]) {
        simt_errf(err, SIMT_E_USAGE, "cannot write '%.300s': this sandboxed script has no output folder",
                  name);
        return NULL;
    }
    if (!plain_relative(name)) {
        simt_errf(err, SIMT_E_USAGE,
                  "cannot write '%.300s': a sandboxed script writes only into its output folder '%.300s' "
                  "(simtlab run --out DIR), by a relative name without '.' or '..' parts, such as 'results.csv'",
                  name, s->out_dir);
        return NULL;
    }
    snprintf(shown, n, "%s/%s", s->out_dir, name);
    /* the default folder lies beside the student's script, where a
     * student could have put a symlink: do not follow one there */
    int dflags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (s->out_dir_named ? 0 : O_NOFOLLOW);
    dfd = open(s->out_dir, dflags);
    if (dfd < 0 && errno == ENOENT && mkdir(s->out_dir, 0755) == 0)
        dfd = open(s->out_dir, dflags);
    if (dfd < 0) {
        simt_errf(err, SIMT_E_USAGE, "cannot write '%.300s': the output folder '%.300s' %s", name, s->out_dir,
                  errno == ELOOP || errno == ENOTDIR ? "is not a folder (a symbolic link is refused; name one "
                                                       "with simtlab run --out DIR)"
                                                     : "cannot be made or opened");
        return NULL;
    }
    /* walk the subfolders without following symlinks; create nothing */
    p = name;
    for (;;) {
        size_t k = strcspn(p, "/");
        memcpy(part, p, k);
        part[k] = '\0';
        p += k;
        if (*p != '/')
            break;
        p++;
        int sub = openat(dfd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dfd);
        if (sub < 0) {
            simt_errf(err, SIMT_E_USAGE, "cannot write '%.300s': '%s' is not a folder inside the output folder "
                      "(a script cannot make folders or follow symbolic links)", shown, part);
            return NULL;
        }
        dfd = sub;
    }
    fd = openat(dfd, part, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    close(dfd);
    if (fd < 0) {
        simt_errf(err, SIMT_E_USAGE, "cannot write '%.300s'%s", shown,
                  errno == ELOOP ? ": it is a symbolic link (refused)" : "");
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        simt_errf(err, SIMT_E_USAGE, "cannot write '%.300s': it is not a regular file", shown);
        return NULL;
    }
    f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        simt_errf(err, SIMT_E_USAGE, "cannot write '%.300s'", shown);
    }
    return f;
}
