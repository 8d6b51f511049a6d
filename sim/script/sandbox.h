/* sandbox.h - a safe Lua environment for lessons and student scripts.
 *
 * sandbox_open replaces luaL_openlibs: it opens only the libraries that
 * cannot touch the machine (base, string, table, math, utf8, coroutine),
 * with these changes:
 *   - no dofile, loadfile; `load` compiles text only (mode "t"): a binary
 *     chunk fails with "attempt to load a binary chunk";
 *   - os has only clock, time and date; io has only write, stdout and
 *     stderr (output to the terminal, no files); there is no package or
 *     debug;
 *   - require(name) loads NAME.lua from simtlab's lessons/lib directory or
 *     the script's own directory (names are letters, digits and '_');
 *     modules already loaded (simt) are returned as usual;
 *   - a watchdog: a script that runs more than max_instructions Lua VM
 *     instructions stops with "script ran for more than N instructions";
 *   - a memory cap: a script whose state grows past max_bytes stops with
 *     "script used more than N MB of memory".
 * Files are then reachable only through simt's own functions.
 *
 * Usage:
 *   lua_State *L = luaL_newstate();
 *   sandbox_opts_t o = { .lib_dir = ".../lessons/lib", .script_dir = "." };
 *   sandbox_open(L, &o);
 *   luaL_requiref(L, "simt", luaopen_simt, 1); lua_pop(L, 1);
 *   luaL_loadfilex(L, path, "t"); sandbox_pcall(L, 0, 0, msgh);
 *   sandbox_close(L);          -- instead of lua_close
 */
#ifndef SIMT_SANDBOX_H
#define SIMT_SANDBOX_H

#include <stdint.h>

#include <lua.h>

#define SANDBOX_DEFAULT_INSTRUCTIONS 10000000000ull /* 1e10 VM instructions */
#define SANDBOX_DEFAULT_BYTES (4ull << 30)          /* 4 GB of Lua memory   */

typedef struct sandbox_opts {
    uint64_t max_instructions;  /* watchdog; 0: SANDBOX_DEFAULT_INSTRUCTIONS */
    uint64_t max_bytes;         /* memory cap; 0: SANDBOX_DEFAULT_BYTES      */
    const char *lib_dir;        /* simtlab's lessons/lib, or NULL: none      */
    const char *script_dir;     /* the script's own directory, or NULL       */
} sandbox_opts_t;

/* Open the safe libraries in the fresh state L (instead of luaL_openlibs)
 * and install the watchdog and the memory cap. The directories are
 * copied. Returns 0, or -1 if the host is out of memory (L unchanged
 * apart from libraries already opened). Call sandbox_close, not
 * lua_close, to close L (it also frees the sandbox's own state). */
int sandbox_open(lua_State *L, const sandbox_opts_t *o);

/* lua_pcall that turns an allocation refused by the memory cap (Lua's
 * "not enough memory") into "script used more than N MB of memory". */
int sandbox_pcall(lua_State *L, int nargs, int nresults, int msgh);

/* Close L and free the sandbox state (lua_close if L has no sandbox). */
void sandbox_close(lua_State *L);

#endif
