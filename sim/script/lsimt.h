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

#include <lua.h>

/* Open the module: pushes the `simt` table. */
int luaopen_simt(lua_State *L);

#endif
