-- bench.lua - one simulator speed benchmark case, run by scripts/bench.sh.
-- usage: simtlab run scripts/bench.lua CASE
-- Prints one line: case, simulated cycles and warp instructions, the CPU
-- seconds the simulation took (median of the repeats), and derived speeds.
local case = arg[1] or "tiled512"
local reps = tonumber(arg[2] or "3")

local function ceil_div(a, b) return (a + b - 1) // b end

local cases = {
  naive512 = { arch = "h200", kernel = "matmul_naive", n = 512, block = { 16, 16 }, tile = 16 },
  tiled512 = { arch = "h200", kernel = "matmul_tiled16", n = 512, block = { 16, 16 }, tile = 16 },
  tiny_tiled = { arch = "edu-tiny", kernel = "matmul_tiled16", n = 256, block = { 16, 16 }, tile = 16 },
  vecadd16m = { arch = "h200", kernel = "vecadd", n = 16 * 1024 * 1024, block = { 256 } },
}
local c = cases[case]
if not c then error("unknown case '" .. case .. "' (naive512, tiled512, tiny_tiled, vecadd16m)") end

local g = simt.gpu{ arch = c.arch }
local k = simt.kernel("lessons/kernels/" .. c.kernel .. ".s")
local run
if c.kernel == "vecadd" then
  local A = g:tensor{ c.n, init = "random", seed = 1 }
  local B = g:tensor{ c.n, init = "random", seed = 2 }
  local C = g:tensor{ c.n }
  run = function()
    return g:launch(k, { grid = { ceil_div(c.n, c.block[1]) }, block = c.block }, A, B, C, c.n)
  end
else
  local A = g:tensor{ c.n, c.n, init = "random", seed = 1 }
  local B = g:tensor{ c.n, c.n, init = "random", seed = 2 }
  local C = g:tensor{ c.n, c.n }
  local gx = ceil_div(c.n, c.tile)
  run = function()
    return g:launch(k, { grid = { gx, gx }, block = c.block }, A, B, C, c.n)
  end
end

local times, r = {}, nil
for i = 1, reps do
  local t0 = os.clock()
  r = run()
  times[i] = os.clock() - t0
end
table.sort(times)
local s = times[(reps + 1) // 2]
print(string.format("%-11s %-9s cycles %12d  warp-instr %11d  sim %7.3f s  %6.2f M warp-instr/s  %7.3f M cycles/s  slowdown x%.0f",
  case, c.arch, r.cycles, r.warp_instrs, s, r.warp_instrs / s / 1e6, r.cycles / s / 1e6, s / (r.time_us * 1e-6)))
