/* cli.h - the commands of `simtlab` (sim/cli/), called by sim/main.c,
 * which keeps the usage text, the options and the dispatch:
 *
 *   run.c      run / show / demo: a script in a Lua state with module simt
 *   sweep.c    sweep: one knob over a workload (lessons/lib/sweep.lua)
 *   course.c   lessons, lesson N, check N FILE.s, check N --answer A
 *   tools.c    collective, fit, decode (scripts of lessons/)
 *   presets.c  presets [--json | --names]
 *   listing.c  asm FILE.s
 *
 * Every command returns the exit status: 0 success, 1 the script or file
 * failed, 2 bad usage (after printing why).
 */
#ifndef SIMT_CLI_H
#define SIMT_CLI_H

#include <stdint.h>

#include <lua.h>

#include "sandbox.h"

#define CLI_MAX_SETS 64

/* Options of `run` and `sweep`, pointing into argv. */
typedef struct cli_opts {
    const char *arch;              /* --arch NAME                          */
    const char *set[CLI_MAX_SETS];     /* --set FIELD=VALUE (and the shortcuts) */
    const char *set_value[CLI_MAX_SETS]; /* shortcut values (NULL for --set)    */
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

/* ---- main.c: options ----------------------------------------------------- */

/* Print "simtlab: " fmt (with what) " (try 'simtlab --help')"; returns 2. */
int cli_usage_error(const char *fmt, const char *what);
/* s ends with suffix */
int cli_ends_with(const char *s, const char *suffix);
/* The whole number text s (like "1e10" or "4096") if it lies in [lo, hi],
 * else 0. */
uint64_t cli_parse_count(const char *s, double lo, double hi);
/* Parse the options of run / show / sweep ... from argv[i] into o: for
 * `run` up to the first argument that is not an option (returned: its
 * index), for `sweep` all of them (returned: argc); -1 on bad usage. */
int cli_parse_opts(int argc, char **argv, int i, int sweep, int stage, cli_opts_t *o);
/* Move the options among argv[from..] before the other arguments. */
void cli_options_first(int argc, char **argv, int from);
/* s is a small whole number (a lesson number, -j N) */
int cli_is_number(const char *s);

/* ---- run.c --------------------------------------------------------------- */

/* A Lua state for `script` (NULL: none) with the module simt, sandboxed
 * unless `unsafe`; o (may be NULL) gives --out, --read-dir, limits. Close
 * it with sandbox_close. NULL (after printing why) when out of memory. */
lua_State *cli_new_state(const char *script, int unsafe, const cli_opts_t *o);
/* The message handler of a script's pcall: "message\ntraceback", or a
 * planned failure's table ({simtlab_exit = N, message = ...}) as it is. */
int cli_msghandler(lua_State *L);
/* Push text s as a Lua value: a number if it reads as one, a table for
 * a,b,c, else the string. */
void cli_push_text_value(lua_State *L, const char *s);
/* Push the table of GPU fields the options set (--set, --sms ...); prints
 * the problem and returns -1 when they make no valid GPU. */
int cli_push_sets(lua_State *L, const cli_opts_t *o);
/* Run script with nargs arguments (arg[1..], and the chunk's ...), with
 * the options' overrides, --stats, --trace and stage. */
int cli_run_script(const char *script, int nargs, char **args, const cli_opts_t *o);

/* ---- the other commands -------------------------------------------------- */

int cli_run_sweep(const cli_opts_t *o);              /* sweep.c   */
int cli_lessons(int argc, char **argv);              /* course.c  */
int cli_lesson(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_collective(int argc, char **argv);           /* tools.c   */
int cli_planner(int argc, char **argv);
int cli_presets(int json, int names);                /* presets.c */
int cli_asm_listing(const char *path);               /* listing.c */

#endif
