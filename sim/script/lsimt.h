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

struct lgpu;

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

/* Shared by g:launch and c:launch (lcpu.c). */

/* Read launch-table field `key` ("grid", "block") of the table at idx: a
 * positive integer or a table of 1 to 3; raises a Lua error naming it. */
void lsimt_get_dim3(lua_State *L, int idx, const char *key, uint32_t out[3]);

/* The 32 bits of the kernel argument at stack index arg (parameter i of
 * p): a tensor of `owner` (its device address), simt.f32/simt.i32, a Lua
 * integer (int32 bits) or float (f32 bits). `maker` names the call that
 * makes tensors of the owner ("g:tensor" or "c:tensor") for messages. */
uint32_t lsimt_arg_bits(lua_State *L, const struct lgpu *owner, const char *maker,
                        const isa_program_t *p, int arg, int i);

/* The assembled program of the simt.kernel at arg (raises if it is not
 * one, or not loaded). Valid while that value is alive. */
const isa_program_t *lsimt_check_kernel(lua_State *L, int arg);

#endif
