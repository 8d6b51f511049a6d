/* arch.h - architecture presets: Lua tables -> gpu_desc_t.
 *
 * A preset is a Lua file (arch/NAME.lua) that returns a table whose keys
 * are gpu_desc_t field names:
 *
 *   return { name = "edu-tiny", sms = 2, clock_mhz = 1000, sched = "lrr",
 *            max_grid = {65535, 65535, 65535}, ... }
 *
 * It runs in a restricted environment (math, string, table and the basic
 * pure functions; no io, os, require, load or dofile). The same
 * field-setting code (arch_apply_table) applies a preset and the overrides
 * that a script passes to simt.gpu{...}.
 *
 * Files are searched for in this order: $SIMTLAB_HOME/<rel>, ./<rel>,
 * SIMT_SOURCE_DIR/<rel> (the source tree the program was built from).
 *
 * None of these functions raises a Lua error (they return -1 and fill a
 * simt_err_t); they only push and pop values on L's stack, leaving it as
 * they found it.
 */
#ifndef SIMT_ARCH_H
#define SIMT_ARCH_H

#include <stddef.h>

#include <lua.h>

#include "err.h"
#include "gpu.h"

/* Apply the table at stack index idx to d, field by field. Keys that are
 * not gpu_desc_t fields fail ("unknown GPU field 'smz' (did you mean
 * 'sms'?)"), as do values of the wrong type or range ("GPU field 'sms'
 * expects an integer, got string"). The key "arch" is skipped: it selects
 * the preset and is read by the caller. On failure d may be partly
 * updated. Does not validate the result (see gpu_desc_validate). */
int arch_apply_table(lua_State *L, int idx, gpu_desc_t *d, simt_err_t *err);

/* Load a preset by name ("h200": found as arch/h200.lua on the search
 * path) or by path (anything containing '/' or ending in ".lua"): start
 * from gpu_desc_default, set name to the file's stem, then apply the table
 * the file returns. Fails (SIMT_E_USAGE) if the preset is not found, the
 * file has an error, does not return a table, or a field is bad. */
int arch_load(lua_State *L, const char *name_or_path, gpu_desc_t *d,
              simt_err_t *err);

/* Build a description from a simt.gpu{...} table at stack index idx:
 * load the preset named by its "arch" key (gpu_desc_default when absent),
 * apply the other keys as overrides, then gpu_desc_validate. */
int arch_desc_from_table(lua_State *L, int idx, gpu_desc_t *d, simt_err_t *err);

/* Push a new table holding every field of d (the inverse of
 * arch_apply_table: applying it to any description reproduces d). */
void arch_push_desc(lua_State *L, const gpu_desc_t *d);

/* Find rel (e.g. "arch/h200.lua") on the search path. Writes the first
 * readable candidate to out and returns 0, or returns -1 if none exists. */
int arch_find_file(const char *rel, char *out, size_t n);

/* From now on leave the current folder out of the search path: only
 * $SIMTLAB_HOME and simtlab's installed or source folders are searched
 * (`simtlab check`: the course, grader and presets never come from the
 * student's folder). */
void arch_installed_only(void);

/* Push a sorted table (1..n) of preset names found in arch/ on every
 * search-path directory, without duplicates. */
void arch_push_presets(lua_State *L);

/* Push the chunk of preset file path (text only; in the sandbox only a
 * regular file the script may read). Returns 0, or -1 with err filled. */
int arch_load_chunk(lua_State *L, const char *path, simt_err_t *err);

/* Run the preset chunk on top of the stack like lua_pcall(L, 0, 1, 0),
 * under a watchdog (the sandbox's, or a preset's own limit). */
int arch_run_chunk(lua_State *L);

#endif
