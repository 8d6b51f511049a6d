-- calibrate.lua - reproduce the tables of reference/h200-measured.md on the
-- simulator and compare them with the real H200, side by side.
--
-- Used two ways:
--   local cal = dofile("lessons/lib/calibrate.lua")    -- a library (tests)
--   local res = cal.run{quick = true}                  -- every experiment
--   simtlab run lessons/lib/calibrate.lua --report [--quick]   (scripts/calibrate.sh)
--
-- Every experiment returns rows {label, sim, meas} plus the shape the
-- calibration is judged on. Shapes are RATIOS (time at P paths over time at
-- 1 path, throughput over the saturated throughput, ...), so the simulated
-- runs may be much shorter than the real ones (fewer loop trips) and, where
-- the shape allows, use fewer SMs: per-SM experiments (latency hiding, bank
-- conflicts, divergence) run on a few SMs with the chip-wide DRAM and L2
-- bandwidth scaled by sms / 132, which keeps each SM's share the same.
-- The kernels are lessons/kernels/micro_*.s; each says in its header which
-- measurement it reproduces and how. See arch/CALIBRATION.md for the results.

local M = {}

M.CHIP_SMS = 132

-- reference/h200-measured.md, copied (read-only source of truth there).
M.measured = {
  sm_scaling = { blocks = {1, 2, 4, 8, 16, 33, 66, 99, 132},
                 tflops = {0.449, 0.894, 1.73, 3.47, 7.07, 14.6, 29.3, 43.5, 57.8} },
  hiding = { warps = {1, 2, 4, 8, 16, 32, 64},
             fma1 = {2.68, 5.55, 10.9, 21.5, 40.0, 46.8, 51.0},        -- TFLOP/s
             fma8 = {10.4, 20.7, 41.5, 55.9, 55.0, 58.1, 60.0},        -- TFLOP/s
             hbm = {165, 336, 665, 1286, 2384, 3782, 4363} },          -- GB/s
  diverge = { paths = {1, 2, 4, 8, 16, 32},
              ms = {0.078, 0.148, 0.287, 0.568, 1.126, 2.241} },
  bank = { strides = {1, 2, 4, 8, 16, 32, 33},
           ms = {0.076, 0.141, 0.274, 0.538, 1.081, 2.130, 0.076} },
  latency = { fma = 4.4, smem = 29, l1 = {40, 46}, l2 = 287, l2_far = {500, 530}, dram = 672 },
  ceilings = { chip_tflops = 60.3, sm_gflops = 449, hbm_gbs = 4410, copy_gbs = 4215 },
  -- warp-level mma.sync (WMMA 16x16x16, 4 independent accumulators)
  tensor = { warps = {1, 2, 4, 8, 16}, f16 = {134, 270, 536, 613, 621},
             chip = { f16 = 626, bf16 = 595, tf32 = 229 } },   -- 2 blocks x 8 warps per SM
}

local kernel_cache = {}
local function kernel(name)
  if not kernel_cache[name] then
    kernel_cache[name] = simt.kernel("lessons/kernels/" .. name .. ".s")
  end
  return kernel_cache[name]
end

-- A GPU of `sms` SMs of the h200 preset whose chip-wide bandwidths (and
-- DRAM channel count: each channel keeps its real 25 GB/s) and power budget (tdp_watts, power_static_w: arch/CALIBRATION.md "Power and
-- sustained clocks") are scaled so that each SM sees the same share as on
-- the whole chip: a few SMs then throttle exactly when the chip would.
-- M.share(sms) is the bandwidth part alone, as a table of simt.gpu fields,
-- for callers that keep the chip's power budget (lesson 4 takes its DRAM
-- fields, the kernel tests all of it).
function M.share(sms)
  local d = simt.gpu{arch = "h200"}.desc
  local f = sms / M.CHIP_SMS
  return {arch = "h200", sms = sms, dram_gbps = d.dram_gbps * f,
          dram_channels = math.max(1, math.floor(d.dram_channels * f + 0.5)),
          l2_bytes_per_clk = d.l2_bytes_per_clk * f}
end

local function scaled_gpu(sms)
  local d = simt.gpu{arch = "h200"}.desc
  local f = sms / M.CHIP_SMS
  local t = M.share(sms)
  t.tdp_watts, t.power_static_w = d.tdp_watts * f, d.power_static_w * f
  return simt.gpu(t)
end
M.scaled_gpu = scaled_gpu

-- 1. SM scaling: fma8, 1024 threads per block, one block per SM.
function M.sm_scaling(o)
  local g = simt.gpu{arch = "h200"}
  local meas = M.measured.sm_scaling
  local out = g:tensor{M.CHIP_SMS * 1024}
  local rows, t1 = {}, nil
  for i, b in ipairs(meas.blocks) do
    local r = g:launch(kernel("micro_fma8"), {grid = b, block = 1024}, o.fma_iters, out)
    t1 = t1 or r.cycles
    rows[i] = { label = string.format("%d blocks", b), sim = r.tflops, meas = meas.tflops[i],
                time_ratio = r.cycles / t1 }
  end
  return { title = "SM scaling (TFLOP/s; time per launch relative to 1 block in time_ratio)",
           rows = rows }
end

-- 2. Latency hiding: 32 x W threads per block, one block per SM (W = 64:
-- two blocks of 1024). Curves normalised to their W = 64 value. The FMA
-- curves run on a few SMs (each SM is alone with its warps); the HBM curve
-- on the whole chip, as measured: its shape comes from the 192 DRAM
-- channels and their refresh windows (arch/CALIBRATION.md "DRAM refresh
-- and loaded latency"), which a few SMs' share of them would not show.
function M.hiding(o)
  local meas = M.measured.hiding
  local g = scaled_gpu(o.sms)
  local out = g:tensor{o.sms * 2048}
  local chip = simt.gpu{arch = "h200"}
  local n = M.CHIP_SMS
  local chip_out = chip:tensor{n * 2048}
  local A = chip:tensor{n * 2048 * 4 * o.stream_iters}
  local curves = { fma1 = {}, fma8 = {}, hbm = {} }
  for i, W in ipairs(meas.warps) do
    local grid, block = o.sms, 32 * W
    if W == 64 then grid, block = 2 * o.sms, 1024 end
    local cfg = {grid = grid, block = block}
    local f = M.CHIP_SMS / o.sms          -- per-SM figures -> whole chip
    curves.fma1[i] = g:launch(kernel("micro_fma1"), cfg, o.fma1_iters, out).tflops * f
    curves.fma8[i] = g:launch(kernel("micro_fma8"), cfg, o.fma_iters, out).tflops * f
    local ccfg = {grid = W == 64 and 2 * n or n, block = block,
                  check = false}          -- micro_stream reads unwritten memory
    curves.hbm[i] = chip:launch(kernel("micro_stream"), ccfg, A, o.stream_iters, chip_out).dram_gbs
  end
  local res = { title = "Latency hiding with warps (whole-chip equivalent; norm = value / value at 64 warps)",
                curves = {} }
  for _, name in ipairs{"fma1", "fma8", "hbm"} do
    local s, m = curves[name], meas[name]
    local rows = {}
    for i, W in ipairs(meas.warps) do
      rows[i] = { label = string.format("%s W=%d", name, W), sim = s[i], meas = m[i],
                  sim_norm = s[i] / s[#s], meas_norm = m[i] / m[#m] }
    end
    res.curves[name] = rows
  end
  return res
end

-- 3. Divergence: P paths per warp; time relative to P = 1.
function M.diverge(o)
  local meas = M.measured.diverge
  local g = scaled_gpu(1)
  local out = g:tensor{1024}
  local rows, t1 = {}, nil
  for i, P in ipairs(meas.paths) do
    local r = g:launch(kernel("micro_diverge"), {grid = 1, block = 1024}, P, o.work_iters, out)
    t1 = t1 or r.cycles
    rows[i] = { label = string.format("P=%d", P), sim = r.cycles / t1, meas = meas.ms[i] / meas.ms[1],
                cycles = r.cycles }
  end
  return { title = "SIMT divergence (time relative to P = 1)", rows = rows }
end

-- 4. Bank conflicts: stride S; time relative to S = 1.
function M.bank(o)
  local meas = M.measured.bank
  local g = scaled_gpu(1)
  local out = g:tensor{1024}
  local rows, t1 = {}, nil
  for i, S in ipairs(meas.strides) do
    local r = g:launch(kernel("micro_bank"), {grid = 1, block = 1024, check = false}, S, o.work_iters, out)
    t1 = t1 or r.cycles
    rows[i] = { label = string.format("S=%d", S), sim = r.cycles / t1, meas = meas.ms[i] / meas.ms[1],
                cycles = r.cycles, wavefronts = r.smem_wavefronts }
  end
  return { title = "Shared-memory bank conflicts (time relative to S = 1)", rows = rows }
end

-- 5. Latencies (cycles), one thread, dependent chains.
function M.latency(o)
  local meas = M.measured.latency
  local g = simt.gpu{arch = "h200", sms = 1}
  local out = g:tensor{2, dtype = "i32"}
  local rows = {}
  local iters = 16
  g:launch(kernel("micro_lat_fma"), {grid = 1, block = 1}, iters, out)
  rows[#rows + 1] = { label = "dependent FMA", sim = out:get(1) / (iters * 32), meas = meas.fma }
  g:launch(kernel("micro_chase_shared"), {grid = 1, block = 1}, 1024, 33, 256, out)
  rows[#rows + 1] = { label = "shared load", sim = out:get(1) / 256, meas = meas.smem }
  -- Global chains: footprint bytes, stride bytes, which level.
  local function chase(bytes, stride, level)
    local n = bytes // stride
    local A = g:tensor{bytes // 4, dtype = "i32"}
    g:launch(kernel("micro_chase_init"), {grid = (n + 255) // 256, block = 256}, A, n, stride)
    local warm = level == "l1" and n or 0       -- L1: one untimed pass first
    local steps = math.min(n, o.chase_steps) // 4 * 4
    -- L1 and L2: keep what the init kernel's stores left in L2 (stores do
    -- not allocate in L1); DRAM: start with empty caches.
    g:launch(kernel("micro_chase"), {grid = 1, block = 1, warm_caches = level ~= "dram"},
             A.addr, warm, steps, out)
    return out:get(1) / steps
  end
  rows[#rows + 1] = { label = "global L1 hit (16 KB)", sim = chase(16384, 128, "l1"),
                      meas = (meas.l1[1] + meas.l1[2]) / 2, range = meas.l1 }
  rows[#rows + 1] = { label = "global L2 hit (2 MB)", sim = chase(2 << 20, 128, "l2"), meas = meas.l2 }
  -- Both L2 partitions (the far one costs ~500 cycles on the H200): the
  -- preset has one partition (l2_partitions = 1), so this row is a known
  -- deviation (reported, not asserted; arch/CALIBRATION.md "Near/far L2
  -- partitions").
  rows[#rows + 1] = { label = "global L2 hit, both partitions (40 MB)", sim = chase(40 << 20, 128, "l2"),
                      meas = (meas.l2_far[1] + meas.l2_far[2]) / 2, known_deviation = true }
  rows[#rows + 1] = { label = "global DRAM (16 MB, stride 4 KB)", sim = chase(16 << 20, 4096, "dram"),
                      meas = meas.dram }
  return { title = "Latencies (cycles, dependent chain, loop overhead included)", rows = rows }
end

-- 6. Ceilings.
function M.ceilings(o)
  local meas = M.measured.ceilings
  local rows = {}
  local g1 = simt.gpu{arch = "h200", sms = 1}
  local out1 = g1:tensor{1024}
  local r = g1:launch(kernel("micro_fma8"), {grid = 1, block = 1024}, o.fma_iters, out1)
  rows[#rows + 1] = { label = "FP32 FMA, one SM (GFLOP/s)", sim = r.tflops * 1000, meas = meas.sm_gflops }
  local sms = o.ceiling_sms
  local g = scaled_gpu(sms)
  local f = M.CHIP_SMS / sms
  local out = g:tensor{sms * 2048}
  r = g:launch(kernel("micro_fma8"), {grid = 2 * sms, block = 1024}, o.fma_iters, out)
  rows[#rows + 1] = { label = string.format("FP32 FMA, chip (TFLOP/s)%s", sms < M.CHIP_SMS and
                      string.format(" [%d SMs x %d]", sms, M.CHIP_SMS // sms) or ""),
                      sim = r.tflops * f, meas = meas.chip_tflops, clock = r.clock_mhz_sustained,
                      watts = r.avg_power_w * f }
  local A = g:tensor{sms * 2048 * 4 * o.stream_iters}
  r = g:launch(kernel("micro_stream"), {grid = 2 * sms, block = 1024, check = false}, A, o.stream_iters, out)
  rows[#rows + 1] = { label = "HBM streaming read (GB/s)", sim = r.dram_gbs * f, meas = meas.hbm_gbs,
                      clock = r.clock_mhz_sustained, watts = r.avg_power_w * f }
  -- device-to-device copy, bytes read + written: twice the L2 or more, so
  -- the stores evict dirty lines and their write-backs share the DRAM
  -- (memsys.h "write-back buffer")
  local n = o.copy_floats
  local src, dst = g:tensor{n}, g:tensor{n}
  r = g:launch(kernel("copy_strided"), {grid = n // 256, block = 256, check = false}, src, dst, 1, n)
  rows[#rows + 1] = { label = string.format("HBM copy, %d MB (GB/s read + written)", 8 * n // 1000000),
                      sim = r.dram_gbs * f, meas = meas.copy_gbs,
                      clock = r.clock_mhz_sustained, watts = r.avg_power_w * f }
  return { title = "Ceilings", rows = rows }
end

-- 7. Tensor Cores through warp-level wmma.mma (lessons/kernels/tc_peak_*.s:
-- 4 independent accumulators, like the measurement), 1-16 warps in one
-- block per SM, then 2 blocks of 8 warps per SM per format. Per-SM
-- figures, so a few SMs stand for the chip (no memory traffic in the loop).
function M.tensor(o)
  local meas = M.measured.tensor
  local g = scaled_gpu(o.sms)     -- no memory traffic; scaled for the power budget
  local f = M.CHIP_SMS / o.sms
  local out = g:tensor{16 * 256}
  local rows = {}
  for i, W in ipairs(meas.warps) do
    local r = g:launch(kernel("tc_peak_f16"), {grid = o.sms, block = 32 * W}, out, o.tc_iters)
    rows[i] = { label = string.format("FP16 %d warps per SM", W), sim = r.tflops * f, meas = meas.f16[i] }
  end
  for _, fmt in ipairs{"f16", "bf16", "tf32"} do
    local r = g:launch(kernel("tc_peak_" .. fmt), {grid = 2 * o.sms, block = 256}, out, o.tc_iters)
    rows[#rows + 1] = { label = string.format("%s 2 x 8 warps per SM", ({f16 = "FP16", bf16 = "BF16", tf32 = "TF32"})[fmt]), sim = r.tflops * f,
                        meas = meas.chip[fmt], clock = r.clock_mhz_sustained, watts = r.avg_power_w * f }
  end
  return { title = "Tensor Cores, warp-level mma (TFLOP/s, whole-chip equivalent)", rows = rows }
end

-- 8. Strided reads (lessons/kernels/micro_stride.s): neighbouring threads
-- read floats S apart, full occupancy (2 blocks of 1024 per SM), 4 loads in
-- flight per thread; useful GB/s (4 bytes per load) relative to S = 1. No
-- H200 measurement of this shape is in the reference, so each row is
-- compared with the DRAM-bound expectation instead: useful bandwidth =
-- usable DRAM bandwidth / (DRAM bytes fetched per useful byte), with the
-- bytes a warp request makes the L2 fetch counted from the preset's
-- geometry (sectors, dram_fetch_bytes) - arch/CALIBRATION.md "Strided reads".
M.stride_sweep = {1, 2, 3, 4, 8, 16, 32}

-- DRAM bytes fetched per useful byte when 32 lanes read 4 bytes S floats
-- apart (aligned start): the distinct fetch blocks they touch.
function M.stride_fetched(desc, S)
  local fetch = desc.dram_fetch_bytes ~= 0 and desc.dram_fetch_bytes or desc.sector_bytes
  local blocks = {}
  local n = 0
  for lane = 0, 31 do
    local b = (lane * 4 * S) // fetch
    if not blocks[b] then blocks[b] = true; n = n + 1 end
  end
  return n * fetch / 128
end

function M.stride(o)
  local g = scaled_gpu(o.sms)
  local d = g.desc
  local f = M.CHIP_SMS / o.sms
  local T = o.sms * 2048
  local out = g:tensor{T}
  local rows, base, bound1 = {}, nil, nil
  for i, S in ipairs(M.stride_sweep) do
    local A = g:tensor{T * 4 * o.stride_iters * S}
    local r = g:launch(kernel("micro_stride"), {grid = 2 * o.sms, block = 1024, check = false},
                       A, S, o.stride_iters, out)
    local useful = T * 4 * o.stride_iters * 4
    local gbs = useful / (r.time_us * 1e-6) / 1e9 * f
    local fetched = M.stride_fetched(d, S)
    base = base or gbs
    bound1 = bound1 or 1 / fetched
    rows[i] = { label = string.format("S=%d", S), sim = gbs / base, meas = (1 / fetched) / bound1,
                gbs = gbs, dram_per_useful = r.dram_bytes / useful, fetched = fetched,
                sectors_per_req = r.gld_sectors / (T * o.stride_iters * 4 / 32) }
  end
  -- The same sweep as a copy, out[i] = in[i x S] (lessons/kernels/copy_strided.s,
  -- blocks of 256): the 4-byte store per useful byte is DRAM traffic too, timed
  -- by the end-of-launch write-back, so the bound is 2 / (fetched + 1).
  local copy, cbase = {}, nil
  local n = T * 4 * o.stride_iters
  local co = g:tensor{n}
  for i, S in ipairs(M.stride_sweep) do
    local A = g:tensor{n * S}
    local r = g:launch(kernel("copy_strided"), {grid = n // 256, block = 256, check = false}, A, co, S, n)
    local gbs = n * 4 / (r.time_us * 1e-6) / 1e9 * f
    local fetched = M.stride_fetched(d, S)
    cbase = cbase or gbs
    copy[i] = { label = string.format("copy S=%d", S), sim = gbs / cbase, gbs = gbs,
                meas = (2 / (fetched + 1)) / (2 / (M.stride_fetched(d, 1) + 1)),
                dram_per_useful = r.dram_bytes / (n * 4), fetched = fetched,
                sectors_per_req = r.gld_sectors / (n / 32) }
  end
  return { title = "Strided reads (useful GB/s relative to S = 1; bound = 1 / DRAM bytes per useful byte)",
           rows = rows, copy = copy }
end

-- Sizes: quick (for ctest) or full (scripts/calibrate.sh).
function M.options(quick)
  if quick then
    return { quick = true, sms = 4, ceiling_sms = 4, fma_iters = 8, fma1_iters = 16,
             stream_iters = 16, copy_floats = 1 << 24, work_iters = 32, chase_steps = 128, tc_iters = 32, stride_iters = 4 }
  end
  return { quick = false, sms = 8, ceiling_sms = 132, fma_iters = 32, fma1_iters = 64,
           stream_iters = 32, copy_floats = 1 << 25, work_iters = 64, chase_steps = 512, tc_iters = 128, stride_iters = 8 }
end

function M.run(opts)
  local o = M.options(opts and opts.quick)
  return { latency = M.latency(o), ceilings = M.ceilings(o), sm_scaling = M.sm_scaling(o),
           hiding = M.hiding(o), diverge = M.diverge(o), bank = M.bank(o), tensor = M.tensor(o),
           stride = M.stride(o), options = o }
end

local function dev(sim, meas)
  return 100 * (sim - meas) / meas
end

local function print_rows(title, rows, fmt, extra)
  print("== " .. title)
  print(string.format("  %-40s %12s %12s %8s", "", "simulated", "measured", "diff"))
  for _, r in ipairs(rows) do
    print(string.format("  %-40s " .. fmt .. " " .. fmt .. " %+7.1f%%%s", r.label, r.sim, r.meas,
                        dev(r.sim, r.meas), extra and extra(r) or ""))
  end
  print()
end

-- the power model's clock and whole-chip power where a row has them
local function power_note(r)
  if not r.clock then return "" end
  return string.format("   %4.0f MHz %4.0f W", r.clock, r.watts)
end

function M.report(res)
  print_rows(res.latency.title, res.latency.rows, "%12.1f")
  print_rows(res.ceilings.title, res.ceilings.rows, "%12.1f", power_note)
  print_rows(res.sm_scaling.title, res.sm_scaling.rows, "%12.3f",
             function(r) return string.format("   time ratio %.3f", r.time_ratio) end)
  print("== " .. res.hiding.title)
  for _, name in ipairs{"fma1", "fma8", "hbm"} do
    print(string.format("  %-14s %10s %10s %9s %9s %8s", name, "sim", "meas", "sim norm", "meas norm", "diff"))
    for _, r in ipairs(res.hiding.curves[name]) do
      print(string.format("  %-14s %10.1f %10.1f %9.3f %9.3f %+7.1f%%", r.label, r.sim, r.meas,
                          r.sim_norm, r.meas_norm, dev(r.sim_norm, r.meas_norm)))
    end
  end
  print()
  print_rows(res.diverge.title, res.diverge.rows, "%12.2f")
  print_rows(res.bank.title, res.bank.rows, "%12.2f")
  print_rows(res.tensor.title, res.tensor.rows, "%12.1f", power_note)
    print("== " .. res.stride.title)
  print(string.format("  %-6s %9s %9s %9s %8s %13s %12s %9s", "", "GB/s", "sim rel", "bound", "diff",
                      "sectors/req", "DRAM/useful", "fetched"))
  for _, r in ipairs(res.stride.rows) do
    print(string.format("  %-6s %9.1f %9.3f %9.3f %+7.1f%% %13.1f %12.2f %9.2f", r.label, r.gbs, r.sim, r.meas,
                        dev(r.sim, r.meas), r.sectors_per_req, r.dram_per_useful, r.fetched))
  end
  print("  copy out[i] = in[i x S] (bound = 2 / (fetched + 1): the store is DRAM traffic too)")
  for _, r in ipairs(res.stride.copy) do
    print(string.format("  %-10s %5.0f %9.3f %9.3f %+7.1f%% %13.1f %12.2f %9.2f", r.label, r.gbs, r.sim, r.meas,
                        dev(r.sim, r.meas), r.sectors_per_req, r.dram_per_useful, r.fetched))
  end
  print()
end

if arg and arg[1] == "--report" then
  local quick = arg[2] == "--quick"
  local t0 = os.clock()
  local res = M.run{quick = quick}
  M.report(res)
  print(string.format("(%s sizes; %.1f s of simulation)", quick and "quick" or "full", os.clock() - t0))
end

return M
