-- bench_stage.lua - the stage's frame time (scripts/bench.sh stage): the
-- demo's first race, one CPU core against edu-tiny on a 128 x 128 matrix
-- multiply, watched frame by frame (show --headless --frames) or run
-- without watching (run, show --headless) to see what watching costs.
local n = tonumber(arg[1]) or 128
local k = simt.kernel("lessons/kernels/matmul_tiled16.s")
local function mats(d)
  return d:tensor{n, n, init = "random", seed = 1}, d:tensor{n, n, init = "random", seed = 2}, d:tensor{n, n}
end
local g, c = simt.gpu{arch = "edu-tiny"}, simt.cpu{arch = "cpu-core"}
local A, B, C = mats(g)
local A2, B2, C2 = mats(c)
local t = os.clock()
local cfg = {grid = {n // 16, n // 16}, block = {16, 16}, check = false}
local res = simt.race{{c, k, {grid = cfg.grid, block = cfg.block}, A2, B2, C2, n}, {g, k, cfg, A, B, C, n}}
print(string.format("bench_stage: gpu %d cycles, cpu %d cycles, %.2f s of host CPU time", res[2].cycles,
                    res[1].cycles, os.clock() - t))
