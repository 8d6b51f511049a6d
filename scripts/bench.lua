-- bench.lua - one simulator speed benchmark case, run by scripts/bench.sh.
-- usage: simtlab run scripts/bench.lua CASE
-- Prints one line: case, simulated cycles and warp instructions, the CPU
-- seconds the simulation took (median of the repeats), and derived speeds.
-- The kernel checker (on by default in g:launch) is off here: the bench
-- measures the simulator; a CASE ending in _check (e.g. tiled512_check)
-- runs with it on, to show what it costs.
local case = arg[1] or "tiled512"
local reps = tonumber(arg[2] or "3")
local check = case:match("_check$") ~= nil
local label = case
case = case:gsub("_check$", "")

local function ceil_div(a, b) return (a + b - 1) // b end

local cases = {
  naive512 = { arch = "h200", kernel = "matmul_naive", n = 512, block = { 16, 16 }, tile = 16 },
  tiled512 = { arch = "h200", kernel = "matmul_tiled16", n = 512, block = { 16, 16 }, tile = 16 },
  tiny_tiled = { arch = "edu-tiny", kernel = "matmul_tiled16", n = 256, block = { 16, 16 }, tile = 16 },
  vecadd16m = { arch = "h200", kernel = "vecadd", n = 16 * 1024 * 1024, block = { 256 } },
}
-- Tensor Core cases tc512, tc1024: tc_matmul_2x2_FMT (64 x 64 block
-- tiles) for FP16, BF16, TF32 and FP8 (E4M3), one line each with the
-- simulator speed as above plus TFLOP/s, % of the preset's (datasheet)
-- peak, and the speed-up over the FP32-lane matmul_tiled16 at the same n
-- (run once; at n = 1024 that alone takes minutes of host time).
-- Cases tcasync512, tcasync1024, tcasync2048, tcasync4096: tc_gemm_async_FMT (bulk
-- copies + wgmma, 128 x 256 tiles) and tc_gemm_cluster_FMT (the same in
-- thread-block clusters that multicast shared tiles) on the whole h200 for every format:
-- TFLOP/s, % of the Tensor Core peak at the preset's clock and of the
-- datasheet figure, the measured library GEMM (8192^3, reference/
-- h200-measured.md), the ceiling L2 bandwidth alone would allow (the
-- bytes L2 served / l2_bytes_per_clk), and the speed-up over tc_matmul_2x2 and over the
-- FP32-lane matmul_reg64 at the same n (run once; minutes of host time
-- at n = 2048, so tcasync4096 skips both baselines).
-- Cases sgemm512, sgemm1024, sgemm2048: sgemm_128x128 (the library-class
-- FP32 GEMM, 128 x 128 x 8 tiles, ld.shared.v4 fragments) on the whole
-- h200: TF/s and % of the FP32 peak (132 SMs x 128 lanes x 2 x 1.98 GHz =
-- 66.9 TF), beside the real library's 50.6 TF (n = 8192, reference/
-- h200-measured.md). Case gemv: y = A x with gemv.s for a 4096 x 4096 A
-- (64 MB, more than L2): GB/s and % of the preset's DRAM bandwidth.
-- Case convbatch: the implicit-GEMM convolution (conv.igemm, default
-- kernel) of a ResNet-like layer (C = K = 64, 56 x 56, 3 x 3, pad 1, the
-- 3x3 convolutions of ResNet-18/34's conv2_x) on the whole h200 at batch
-- 1, 2, 4, 8, 16, 32: blocks, blocks per SM, time, TFLOP/s and % of the
-- FP32 peak; then im2col + GEMM at batch 32 (im2col.s, then the same GEMM
-- mainloop over the cols matrix, and matmul_rect.s) against it (run once;
-- ~4 minutes of host time, ~9 more for the matmul_rect row).
-- arch/CALIBRATION.md, "Convolution".
local sgemm_n = ({ sgemm512 = 512, sgemm1024 = 1024, sgemm2048 = 2048 })[case]

local tc_n = ({ tc512 = 512, tc1024 = 1024 })[case]
local async_n = ({ tcasync512 = 512, tcasync1024 = 1024, tcasync2048 = 2048, tcasync4096 = 4096 })[case]
local c = cases[case]
if case == "convbatch" then
  local conv = require("conv")
  local g = simt.gpu{ arch = "h200" }
  local d = g.desc
  local peak = d.sms * d.fp32_lanes_per_sm * 2 * d.clock_mhz * 1e-6 -- TFLOP/s
  local C, HW = 64, 56
  local Wt = g:tensor{ C, C, 3, 3, init = "random", seed = 2 }
  local Wr = conv.filter_rsck(g, Wt)
  local last
  for _, N in ipairs{ 1, 2, 4, 8, 16, 32 } do
    local X = g:tensor{ N, C, HW, HW, init = "random", seed = 1 }
    local t0 = os.clock()
    local _, runs = conv.igemm(g, X, Wt, { pad = 1, Wr = Wr, check = check })
    local r = runs.igemm
    local tf = 2 * N * C * HW * HW * C * 9 / (r.time_us * 1e6) -- useful FLOPs (not the idle tile edges)
    print(string.format("convbatch %-13s batch %2d  blocks %5d (%.2f per SM, %d fit)  %8.1f us  %6.2f TFLOP/s  %4.1f%% of FP32 peak  sim %.1f s",
                        r.kernel, N, r.blocks, r.blocks / d.sms, r.blocks_fit_per_sm or r.blocks_per_sm, r.time_us, tf, 100 * tf / peak, os.clock() - t0))
    last = { X = X, us = r.time_us }
  end
  for _, gemm in ipairs{ "igemm", "rect" } do
    local t0 = os.clock()
    local _, runs = conv.im2col(g, last.X, Wt, { pad = 1, gemm = gemm, check = check, times_only = true })
    local total = runs.im2col.time_us + runs.gemm.time_us
    print(string.format("convbatch im2col+%-7s batch 32  im2col %8.1f us + GEMM (%s) %8.1f us = %8.1f us: implicit GEMM x%.2f faster  sim %.1f s",
                        gemm, runs.im2col.time_us, runs.gemm.kernel, runs.gemm.time_us, total, total / last.us, os.clock() - t0))
  end
  return
end
if not c and not tc_n and not async_n and not sgemm_n and case ~= "gemv" then
  error("unknown case '" .. case .. "' (naive512, tiled512, tiny_tiled, vecadd16m, sgemm512, sgemm1024, sgemm2048, gemv, tc512, tc1024, "
        .. "tcasync512, tcasync1024, tcasync2048, tcasync4096, convbatch)")
end

local function median_run(run)
  local times, r = {}, nil
  for i = 1, reps do
    local t0 = os.clock()
    r = run()
    times[i] = os.clock() - t0
  end
  table.sort(times)
  return r, times[(reps + 1) // 2]
end

local function speed_line(name, arch, r, s)
  return string.format("%-11s %-9s cycles %12d  warp-instr %11d  sim %7.3f s  %6.2f M warp-instr/s  %7.3f M cycles/s  slowdown x%.0f",
    name, arch, r.cycles, r.warp_instrs, s, r.warp_instrs / s / 1e6, r.cycles / s / 1e6, s / (r.time_us * 1e-6))
end

if sgemm_n or case == "gemv" then
  local g = simt.gpu{ arch = "h200" }
  local d = g.desc
  local r, s, extra
  if sgemm_n then
    local n = sgemm_n
    local A = g:tensor{ n, n, init = "random", seed = 1 }
    local B = g:tensor{ n, n, init = "random", seed = 2 }
    local C = g:tensor{ n, n }
    local k = simt.kernel("lessons/kernels/sgemm_128x128.s")
    r, s = median_run(function()
      return g:launch(k, { grid = { ceil_div(n, 128), ceil_div(n, 128) }, block = { 256 }, check = check }, A, B, C, n, n, n)
    end)
    local peak = d.sms * d.fp32_lanes_per_sm * 2 * d.clock_mhz * 1e6 / 1e12
    extra = string.format("\n  sgemm_128x128 n=%d: %5.1f TF/s = %4.1f%% of the FP32 peak (%4.1f TF); real library 50.6 TF (n=8192, ~72%%)",
                          n, r.tflops, 100 * r.tflops / peak, peak)
  else
    local M, K = 4096, 4096
    local A = g:tensor{ M, K, init = "random", seed = 1 }
    local x = g:tensor{ K, 1, init = "random", seed = 2 }
    local y = g:tensor{ M, 1 }
    local k = simt.kernel("lessons/kernels/gemv.s")
    r, s = median_run(function()
      return g:launch(k, { grid = { ceil_div(M, 8) }, block = { 256 }, check = check }, A, x, y, M, K)
    end)
    local gbs = M * K * 4 / r.time_us / 1e3
    extra = string.format("\n  gemv %dx%d: %6.0f GB/s of A = %4.1f%% of the preset's %d GB/s DRAM", M, K, gbs, 100 * gbs / d.dram_gbps, d.dram_gbps)
  end
  print(speed_line(label, "h200", r, s) .. extra)
  return
end

if async_n then
  local g = simt.gpu{ arch = "h200" }
  local d = g.desc
  local n = async_n
  local A = g:tensor{ n, n, init = "random", seed = 1 }
  local B = g:tensor{ n, n, init = "random", seed = 2 }
  local C = g:tensor{ n, n }
  local fp
  if n <= 2048 then
    fp = g:launch(simt.kernel("lessons/kernels/matmul_reg64.s"),
                  { grid = { ceil_div(n, 64), ceil_div(n, 64) }, block = { 16, 16 }, check = check }, A, B, C, n)
  end
  local sheet = { f16 = 989.4, bf16 = 989.4, tf32 = 494.7, e4m3 = 1978.9, e5m2 = 1978.9 }
  local library = { f16 = 737, bf16 = 756, tf32 = 395, e4m3 = 1332 }   -- [meas], n = 8192
  local cx, cy = require("precision").cluster_shape()
  for _, fmt in ipairs{ "f16", "bf16", "tf32", "e4m3", "e5m2" } do
    local At = g:tensor{ n, n, dtype = fmt }
    local Bt = g:tensor{ n, n, dtype = fmt }
    At:copy_from(A)
    Bt:copy_from(B)
    local key = (fmt == "e4m3" or fmt == "e5m2") and "fp8" or fmt
    local peak = d.sms * d["tc_flops_per_clk_" .. key] * d.clock_mhz * 1e6 / 1e12
    -- TF/s, % of peak and datasheet, the library ratio and the L2 ceiling of one run
    local function figures(r)
      local line = string.format("%6.1f TF/s = %4.1f%% of the Tensor Core peak at %d MHz (%4.0f TF), "
        .. "%4.1f%% of the datasheet's %4.0f TF", r.tflops, 100 * r.tflops / peak, d.clock_mhz, peak,
        100 * r.tflops / sheet[fmt], sheet[fmt])
      if library[fmt] then
        line = line .. string.format("; %.2f x the measured library GEMM (n=8192, %d TF)", r.tflops / library[fmt], library[fmt])
      end
      -- what L2 bandwidth allows: every sector it served (copies in, C out)
      -- at l2_bytes_per_clk, nothing else in the way
      local l2_bytes = (r.l2_hits + r.l2_misses) * d.sector_bytes
      local l2_cycles = l2_bytes / d.l2_bytes_per_clk
      if r.power_model then   -- arch/CALIBRATION.md "Power and sustained clocks"
        line = line .. string.format("\n        power model: %.0f MHz sustained (%.0f W at %d MHz, TDP %d W; %.1f TF/s at %d MHz), %.1f mJ",
          r.clock_mhz_sustained, r.power_boost_w, d.clock_mhz, d.tdp_watts, r.flops / r.time_us_boost / 1e6, d.clock_mhz,
          r.energy_j * 1e3)
      end
      return line .. string.format("\n        L2 moved %.0f MB = %.0f%% of its %d B/clk over the run: an L2-bound ceiling of %.0f TF/s",
        l2_bytes / 1e6, 100 * l2_cycles / r.cycles, d.l2_bytes_per_clk, r.tflops * r.cycles / l2_cycles)
    end
    local k = simt.kernel("lessons/kernels/tc_gemm_async_" .. fmt .. ".s")
    local r, s = median_run(function()
      return g:launch(k, { grid = { n // 256, n // 128 }, block = { 1024 }, check = check }, At, Bt, C, n)
    end)
    local line = string.format("\n  %-4s n=%d tc_gemm_async:   ", fmt, n) .. figures(r)
    if fp then
      local b2 = g:launch(simt.kernel("lessons/kernels/tc_matmul_2x2_" .. fmt .. ".s"),
                          { grid = { ceil_div(n, 64), ceil_div(n, 64) }, block = { 32, 4 }, check = check }, At, Bt, C, n)
      line = line .. string.format("\n        x%.1f over tc_matmul_2x2 (%.1f TF/s), x%.1f over FP32 matmul_reg64 (%.1f TF/s)",
        r.tflops / b2.tflops, b2.tflops, r.tflops / fp.tflops, fp.tflops)
    end
    print(speed_line(("async_%s_%d"):format(fmt, n), "h200", r, s) .. line)
    -- the same GEMM in thread-block clusters that multicast the shared tiles
    local kc = simt.kernel("lessons/kernels/tc_gemm_cluster_" .. fmt .. ".s")
    local rc, sc = median_run(function()
      return g:launch(kc, { grid = { n // 256, n // 128 }, block = { 1024 }, cluster = { cx, cy, 1 }, check = check },
                      At, Bt, C, n)
    end)
    line = string.format("\n  %-4s n=%d tc_gemm_cluster: ", fmt, n) .. figures(rc)
      .. string.format("\n        %dx%d clusters: x%.2f over tc_gemm_async", cx, cy, rc.tflops / r.tflops)
    if fp then
      line = line .. string.format(", x%.1f over FP32 matmul_reg64", rc.tflops / fp.tflops)
    end
    print(speed_line(("cluster_%s_%d"):format(fmt, n), "h200", rc, sc) .. line)
  end
  return
end

if tc_n then
  local g = simt.gpu{ arch = "h200" }
  local d = g.desc
  local n = tc_n
  local A = g:tensor{ n, n, init = "random", seed = 1 }
  local B = g:tensor{ n, n, init = "random", seed = 2 }
  local C = g:tensor{ n, n }
  local gx = ceil_div(n, 16)
  local fp = g:launch(simt.kernel("lessons/kernels/matmul_tiled16.s"), { grid = { gx, gx }, block = { 16, 16 }, check = check },
                      A, B, C, n)
  for _, fmt in ipairs{ "f16", "bf16", "tf32", "e4m3" } do
    local At = g:tensor{ n, n, dtype = fmt }
    local Bt = g:tensor{ n, n, dtype = fmt }
    At:copy_from(A)
    Bt:copy_from(B)
    local k = simt.kernel("lessons/kernels/tc_matmul_2x2_" .. fmt .. ".s")
    local r, s = median_run(function()
      return g:launch(k, { grid = { ceil_div(n, 64), ceil_div(n, 64) }, block = { 32, 4 }, check = check }, At, Bt, C, n)
    end)
    local key = fmt == "e4m3" and "fp8" or fmt
    local peak = d.sms * d["tc_flops_per_clk_" .. key] * d.clock_mhz * 1e6 / 1e12
    print(speed_line(("tc_%s_%d"):format(fmt, n), "h200", r, s) ..
      string.format("\n  %-4s n=%d: %6.1f TF/s = %4.1f%% of the preset's %4.0f TF, x%.1f over FP32 matmul_tiled16 (%.1f TF/s)",
        fmt, n, r.tflops, 100 * r.tflops / peak, peak, r.tflops / fp.tflops, fp.tflops))
  end
  return
end

local g = simt.gpu{ arch = c.arch }
local k = simt.kernel("lessons/kernels/" .. c.kernel .. ".s")
local run
if c.kernel == "vecadd" then
  local A = g:tensor{ c.n, init = "random", seed = 1 }
  local B = g:tensor{ c.n, init = "random", seed = 2 }
  local C = g:tensor{ c.n }
  run = function()
    return g:launch(k, { grid = { ceil_div(c.n, c.block[1]) }, block = c.block, check = check }, A, B, C, c.n)
  end
else
  local A = g:tensor{ c.n, c.n, init = "random", seed = 1 }
  local B = g:tensor{ c.n, c.n, init = "random", seed = 2 }
  local C = g:tensor{ c.n, c.n }
  local gx = ceil_div(c.n, c.tile)
  run = function()
    return g:launch(k, { grid = { gx, gx }, block = c.block, check = check }, A, B, C, c.n)
  end
end

local r, s = median_run(run)
print(speed_line(label, c.arch, r, s))
