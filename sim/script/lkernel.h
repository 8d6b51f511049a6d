/* lkernel.h - kernels and their arguments for Lua (sim/script).
 *
 *   local k = simt.kernel("lessons/kernels/x.s")     assemble a kernel
 *   k.name k.file k.nregs k.nparams k.params k.shared_bytes k.ninstr k:listing()
 *   simt.f32(x) simt.i32(x)  force how a number is passed to a kernel
 *
 * Every launch (g:launch in lsimt.c, c:launch in lcpu.c, nd:launch in
 * lnode.c) gets the program through lkernel_check and its arguments
 * through lkernel_args: no other file knows the userdata's layout.
 */
#ifndef SIMT_LKERNEL_H
#define SIMT_LKERNEL_H

#include <stdint.h>

#include <lua.h>

#include "isa.h"

struct lgpu;   /* tensor.h */

/* Register the kernel and scalar classes (metatables only). */
void lkernel_register(lua_State *L);

/* simt.kernel(path), simt.f32(x), simt.i32(x) (lua_CFunctions). */
int lkernel_new(lua_State *L);
int lkernel_f32(lua_State *L);
int lkernel_i32(lua_State *L);

/* The assembled program of the simt.kernel at arg (raises if it is not
 * one, or not loaded). Valid while that value is alive. */
const isa_program_t *lkernel_check(lua_State *L, int arg);

/* The 32 bits of the kernel argument at stack index arg (parameter i of
 * p): a tensor of `owner` (its device address), simt.f32/simt.i32, a Lua
 * integer (int32 bits) or float (f32 bits). `maker` names the call that
 * makes tensors of the owner ("g:tensor" or "c:tensor") for messages. */
uint32_t lkernel_arg_bits(lua_State *L, const struct lgpu *owner, const char *maker,
                          const isa_program_t *p, int arg, int i);

/* All nargs arguments from stack index first into args: raises "kernel
 * 'k' takes 4 arguments (A, B, C, n), got 3" unless nargs == p->nparams. */
void lkernel_args(lua_State *L, const struct lgpu *owner, const char *maker, const isa_program_t *p,
                  int first, int nargs, uint32_t *args);

#endif
