/* lcpu.h - the Lua side of the CPU model (sim/core/cpu.h): simt.cpu{...}.
 *
 *   local c = simt.cpu{arch = "cpu-server", cores = 16, simd = 8}
 *   local A = c:tensor{256, 256, init = "random", seed = 1}
 *   local r = c:launch(k, {grid = {16, 16}, block = {16, 16}}, A, B, C, 256)
 *   r.cycles r.time_us r.launch_us r.gflops r.tflops r.time.memory ...
 *
 * A CPU object has the GPU object's methods where they make sense
 * (tensor, launch, name, desc), so lesson helpers that take "a device"
 * (lessons/lib/workloads.lua) run unchanged on either.
 */
#ifndef SIMT_LCPU_H
#define SIMT_LCPU_H

#include <lua.h>

/* Register the CPU class and set simt.cpu in the table at the top of the
 * stack (the simt module table). Leaves the stack as it found it. */
void lcpu_register(lua_State *L);

#endif
