/* lsimt.h - the Lua module `simt`: GPUs, tensors, kernels, launches.
 *
 *   luaL_requiref(L, "simt", luaopen_simt, 1);   -- global + require("simt")
 *
 * Every error a script can cause is raised as a Lua error whose message
 * names the argument or field and what was expected; the core's own
 * messages (assembler, launch, kernel faults) are passed through.
 */
#ifndef SIMT_LSIMT_H
#define SIMT_LSIMT_H

#include <stdint.h>

#include <lua.h>

#include "gpu.h"
#include "isa.h"
#include "trace.h"

/* Open the module: pushes the `simt` table. */
int luaopen_simt(lua_State *L);

/* Command-line hooks (sim/main.c). Overrides: the table simt.overrides
 * (field = value, and arch = name) is applied last by every simt.gpu{...}
 * and g:with{...}, so the command line wins over a script's own numbers. */

/* Pop the table of overrides (field = value, arch = name) and make it the
 * one every simt.gpu{...} and g:with{...} applies last; simt.overrides
 * becomes a read-only view of it (scripts cannot clear or change it). */
void lsimt_set_overrides(lua_State *L);

/* Start recording every later launch (one row per launch: kernel, gpu,
 * grid, block and every statistic); lsimt_push_launch_log gets them. */
void lsimt_enable_launch_log(lua_State *L);

/* Push the recorded rows (a sequence of tables), or nil if not enabled. */
void lsimt_push_launch_log(lua_State *L);

/* Attach trace t as the observer of every later launch, with a counter
 * sample every `every` cycles (0: no samples); t = NULL detaches. The
 * caller owns t and must keep it open while the state can launch. */
void lsimt_set_trace(lua_State *L, trace_t *t, uint64_t every);

/* Estimated host bytes of a GPU of description d (counted against the
 * sandbox's memory cap). */
uint64_t lsimt_gpu_host_bytes(const gpu_desc_t *d);

#endif
