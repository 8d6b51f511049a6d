/* export.h - save results as CSV or JSON (simt.save_csv, simt.save_json,
 * and `simtlab run --stats FILE`).
 *
 * Both writers are deterministic: table keys are written in sorted order
 * (byte-wise), integers exactly, floats with the fewest digits that read
 * back to the same double. The whole text is built first and written in
 * one go, so a failure leaves no half-written file behind (unless the
 * disk fills up while writing).
 *
 * The C functions raise no Lua error for bad input (they return -1 and
 * fill err); they may raise only if Lua runs out of memory. They leave the
 * stack as they found it.
 */
#ifndef SIMT_EXPORT_H
#define SIMT_EXPORT_H

#include <lua.h>

#include "err.h"

/* Write the rows at stack index idx (a sequence of tables) to path as CSV:
 * a header line, then one line per row. Nested tables are flattened with
 * dotted names ("stalls.memory"); values that are not numbers, strings or
 * booleans (tensors, functions) are left out. Columns are the union of all
 * rows' names, sorted, except that the names listed in first[0..nfirst-1]
 * that occur come first, in that order; a missing value is an empty cell.
 * Cells with commas, quotes or line breaks are quoted ("" for a quote).
 * Fails (SIMT_E_USAGE) if rows is not a sequence of tables or the file
 * cannot be written. */
int export_csv(lua_State *L, int idx, const char *path, const char *const *first,
               int nfirst, simt_err_t *err);

/* Write the value at stack index idx to path as JSON (a newline at the
 * end). Tables whose keys are exactly 1..n become arrays (an empty table
 * is []), others objects with keys sorted; numbers that are not finite
 * become null; values JSON cannot hold (functions, userdata such as
 * tensors) are left out of objects and written as null in arrays. Fails
 * (SIMT_E_USAGE) on tables nested more than 32 deep (a cycle?), keys that
 * are neither strings nor numbers, or a file that cannot be written. */
int export_json(lua_State *L, int idx, const char *path, simt_err_t *err);

/* Add save_csv(path, rows [, {columns = {...}}]) and save_json(path, value)
 * to the table on top of the stack. They raise a Lua error on failure. */
void export_register(lua_State *L);

#endif
