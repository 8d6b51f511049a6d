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
 *   - setmetatable refuses metatables with a __gc field (finalizers run
 *     with hooks off, so nothing could stop an endless one); getmetatable
 *     of simt's own objects returns a string (their metatables are closed);
 *   - require(name) loads NAME.lua from simtlab's lessons/lib directory or
 *     the script's own directory (names are letters, digits and '_');
 *     modules already loaded (simt) are returned as usual;
 *   - a watchdog: a script that runs more than max_instructions Lua VM
 *     instructions (plus the work simt's C functions charge with
 *     sandbox_charge_work) stops with "FILE:LINE: script ran for more than
 *     N instructions". The stop is sticky: once it fired, every later
 *     instruction raises it again, so pcall cannot swallow it;
 *   - a wall-clock limit (time_limit seconds, 0: none), sticky the same
 *     way; C code that runs past the limit (a long launch, a string
 *     pattern) is ended 2 s later by SIGALRM, which prints the reason and
 *     exits the process with status 1;
 *   - a memory cap: the Lua heap plus what simt's C functions charge with
 *     sandbox_charge_bytes (device memory, simulator state) may not pass
 *     max_bytes ("script used more than N MB of memory").
 *
 * Files are reachable only through simt's own functions, which ask the
 * sandbox first:
 *   - writes (sandbox_open_write): only into the output folder out_dir,
 *     by a relative name without "." or ".." parts that follows no
 *     symbolic link, or to one of the exact paths in write_files (files
 *     the user named on the command line);
 *   - reads (sandbox_push_file): only regular files of at most a given
 *     size inside lib_dir, script_dir or read_dirs (after resolving
 *     symbolic links), or the exact paths in read_files. A refused path
 *     gets the same answer whether it exists or not, and no content.
 * A state without a sandbox (simtlab run --unsafe, unit tests that use
 * plain states) may read and write anything, as before; sandbox_push_file
 * still refuses non-regular files and files over the size limit.
 *
 * Usage:
 *   lua_State *L = luaL_newstate();
 *   sandbox_opts_t o = { .lib_dir = ".../lessons/lib", .script_dir = ".",
 *                        .out_dir = "./simtlab-out" };
 *   sandbox_open(L, &o);
 *   luaL_requiref(L, "simt", luaopen_simt, 1); lua_pop(L, 1);
 *   luaL_loadfilex(L, path, "t"); sandbox_pcall(L, 0, 0, msgh);
 *   sandbox_close(L);          -- instead of lua_close
 */
#ifndef SIMT_SANDBOX_H
#define SIMT_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <lua.h>

#include "err.h"

#define SANDBOX_DEFAULT_INSTRUCTIONS 10000000000ull /* 1e10 VM instructions */
#define SANDBOX_DEFAULT_BYTES (4ull << 30)          /* 4 GB in all          */
#define SANDBOX_TEXT_WORK 64   /* watchdog instructions per byte of text drawn */
#define SANDBOX_DEFAULT_SECONDS 600.0               /* simtlab's default wall-clock limit
                                                       (not in a window)     */
#define SANDBOX_MAX_DIRS 16                         /* entries per list     */

typedef struct sandbox_opts {
    uint64_t max_instructions;  /* watchdog; 0: SANDBOX_DEFAULT_INSTRUCTIONS */
    uint64_t max_bytes;         /* memory cap; 0: SANDBOX_DEFAULT_BYTES      */
    double time_limit;          /* wall-clock seconds; 0: none               */
    const char *lib_dir;        /* simtlab's lessons/lib, or NULL: none      */
    const char *script_dir;     /* the script's own directory, or NULL       */
    const char *out_dir;        /* where scripts write, or NULL: nowhere     */
    int out_dir_named;          /* 1: the user named out_dir (--out); 0: the
                                   default, refused if it is a symlink      */
    const char *const *read_dirs;   /* more readable folders, NULL-ended   */
    const char *const *read_files;  /* exact readable paths, NULL-ended    */
    const char *const *write_files; /* exact writable paths, NULL-ended    */
} sandbox_opts_t;

/* Open the safe libraries in the fresh state L (instead of luaL_openlibs)
 * and install the watchdog and the memory cap. Everything in o is
 * copied (at most SANDBOX_MAX_DIRS entries per list). Returns 0, or -1 if
 * the host is out of memory or a list is too long (L unchanged apart from
 * libraries already opened). Call sandbox_close, not lua_close, to close
 * L (it also frees the sandbox's own state and stops the timer). */
int sandbox_open(lua_State *L, const sandbox_opts_t *o);

/* lua_pcall that turns an allocation refused by the memory cap (Lua's
 * "not enough memory") into "script used more than N MB of memory ...". */
int sandbox_pcall(lua_State *L, int nargs, int nresults, int msgh);

/* Stop the wall-clock timer of L's sandbox (the script has ended; what
 * the host does next is not the script's time). Limits stay in force. */
void sandbox_stop_timer(lua_State *L);

/* Close L and free the sandbox state (lua_close if L has no sandbox). */
void sandbox_close(lua_State *L);

/* 1 if L runs in a sandbox. */
int sandbox_active(lua_State *L);

/* Count `units` of work done in C (about one Lua instruction's worth
 * each) against the watchdog; raises the sticky watchdog or time-limit
 * error (with the calling script line) if a limit has passed. Also the
 * place where long C functions check the clock. No-op without sandbox. */
void sandbox_charge_work(lua_State *L, uint64_t units);

/* Count delta bytes of memory held outside the Lua heap (device memory,
 * simulator state; negative: released) against the memory cap. Returns
 * 0, or -1 (nothing counted) if the cap would be passed. Without a
 * sandbox always 0. */
int sandbox_charge_bytes(lua_State *L, int64_t delta);

/* Bytes the memory cap still allows (at least 1), or 0 when L has no
 * sandbox (no limit). */
uint64_t sandbox_bytes_left(lua_State *L);

/* Raise "script used more than N MB of memory" for a charge that
 * sandbox_charge_bytes refused (what: "device memory for tensor#3"). */
int sandbox_memory_error(lua_State *L, const char *what, uint64_t bytes);

/* Open `name` for writing ("wb") as a script asked (simt.save_csv ...).
 * Sandboxed: name must be a relative path inside the output folder (no
 * absolute path, no "." or ".." parts, no symbolic links, only an
 * existing subfolder), or one of write_files; the output folder is made
 * if missing. shown gets the path as written (for messages). Returns the
 * file, or NULL with err filled (SIMT_E_USAGE) saying why. */
FILE *sandbox_open_write(lua_State *L, const char *name, char *shown, size_t n,
                         simt_err_t *err);

/* Check that a script may read `path` (see above), without reading it;
 * resolved gets the path to open. Returns 0 or -1 with err filled. */
int sandbox_check_read(lua_State *L, const char *path, char *resolved, size_t n,
                       simt_err_t *err);

/* Push the contents of `path` as a Lua string if a script may read it and
 * it is a regular file of at most max bytes; resolved (may be NULL) gets
 * the path opened. Returns 0, or -1 with err filled and nothing pushed
 * ("not found in the folders a sandboxed script may read (...)", "is not
 * a regular file", "is larger than N KB"). Raises only when Lua is out of
 * memory (the contents count against the cap). */
int sandbox_push_file(lua_State *L, const char *path, size_t max, char *resolved, size_t n,
                      simt_err_t *err);

/* The readable folders as "a, b, c" (for messages). */
const char *sandbox_read_dirs(lua_State *L, char *buf, size_t n);

#endif
