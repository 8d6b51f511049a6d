-- stage_same.lua - the same launches with and without the stage (run by
-- tests/cli/same_output.cmake under `run` and under `show --headless`):
-- every number printed must be the same.
local k = simt.kernel("lessons/kernels/matmul_tiled16.s")
local n = 48
local g = simt.gpu{arch = "edu-tiny"}
local c = simt.cpu{arch = "cpu-core"}
local function mats(d)
  return d:tensor{n, n, init = "random", seed = 1}, d:tensor{n, n, init = "random", seed = 2}, d:tensor{n, n}
end
local A, B, C = mats(g)
local r = g:launch(k, {grid = {3, 3}, block = {16, 16}}, A, B, C, n)
print("gpu", r.cycles, r.warp_instrs, r.dram_bytes, r.stalls.memory, C:sum())
local A2, B2, C2 = mats(c)
local res = simt.race{{c, k, {grid = {3, 3}, block = {16, 16}}, A2, B2, C2, n},
                      {g, k, {grid = {3, 3}, block = {16, 16}}, A, B, C, n}}
print("race", res[1].cycles, res[1].instrs, res[2].cycles, res[2].warp_instrs, C2:sum(), C:sum())
