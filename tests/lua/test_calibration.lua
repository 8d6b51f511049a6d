-- test_calibration.lua - the h200 preset reproduces the SHAPES of the real
-- H200 measurements (reference/h200-measured.md) within 15%, using the quick
-- sizes of lessons/lib/calibrate.lua. Shapes are ratios: time at P paths /
-- time at 1 path, bank-conflict slowdowns, latency-hiding curves normalised
-- to their saturated value, linearity of SM scaling. Absolute latencies and
-- ceilings are checked too. The expected numbers are the MEASURED ones; the
-- one known deviation (1-chain FMA at low occupancy) is checked against a
-- wider bound and explained in arch/CALIBRATION.md.
-- Run from the repository root: simtlab run tests/lua/test_calibration.lua

local cal = require("calibrate")
local res = cal.run{quick = true}
local TOL = 0.15
local failures = {}

local function within(sim, meas, tol, what)
  local d = math.abs(sim - meas) / math.abs(meas)
  if d > tol then
    failures[#failures + 1] = string.format("%s: simulated %.4g, measured %.4g (%.0f%% off, limit %.0f%%)",
                                            what, sim, meas, 100 * d, 100 * tol)
  end
end

-- 5. latencies (cycles)
for _, r in ipairs(res.latency.rows) do
  if r.known_deviation then
    -- reported only (far L2 partition: not modelled, arch/CALIBRATION.md)
  elseif r.range then
    if r.sim < r.range[1] * (1 - TOL) or r.sim > r.range[2] * (1 + TOL) then
      failures[#failures + 1] = string.format("%s: %.1f cycles outside %d-%d", r.label, r.sim,
                                              r.range[1], r.range[2])
    end
  else
    within(r.sim, r.meas, TOL, "latency " .. r.label)
  end
end

-- 6. ceilings
for _, r in ipairs(res.ceilings.rows) do within(r.sim, r.meas, TOL, "ceiling " .. r.label) end

-- 1. SM scaling: time per launch constant, throughput linear in blocks.
local sc = res.sm_scaling.rows
for i, r in ipairs(sc) do
  within(r.time_ratio, 1.0, TOL, "SM scaling time ratio " .. r.label)
  within(r.sim / sc[1].sim, r.meas / sc[1].meas, TOL, "SM scaling throughput ratio " .. r.label)
end

-- 2. latency hiding: each curve normalised to its value at 64 warps. The
-- HBM curve is held to 8%: with DRAM refresh its latency rises with load
-- as measured (within 4.5% at these sizes); a DRAM that only queues when
-- saturated gave +14% at 16 warps (arch/CALIBRATION.md "DRAM refresh and
-- loaded latency").
for _, name in ipairs{"fma8", "hbm"} do
  for _, r in ipairs(res.hiding.curves[name]) do
    within(r.sim_norm, r.meas_norm, name == "hbm" and 0.08 or TOL, "latency hiding " .. r.label)
  end
end
-- fma1: the linear region (ratios to W = 1) and the saturation (W >= 16)
-- match; the low-occupancy level relative to saturation is ~20-30% high
-- (known deviation, arch/CALIBRATION.md), so it gets a 35% bound here.
local f1 = res.hiding.curves.fma1
for i, r in ipairs(f1) do
  if i <= 4 then
    within(r.sim / f1[1].sim, r.meas / f1[1].meas, TOL, "latency hiding linear " .. r.label)
    within(r.sim_norm, r.meas_norm, 0.35, "latency hiding (known deviation) " .. r.label)
  else
    within(r.sim_norm, r.meas_norm, TOL, "latency hiding " .. r.label)
  end
end

-- 3. divergence and 4. bank conflicts: time ratios.
for _, r in ipairs(res.diverge.rows) do within(r.sim, r.meas, TOL, "divergence " .. r.label) end
for _, r in ipairs(res.bank.rows) do within(r.sim, r.meas, TOL, "bank conflicts " .. r.label) end
-- and the mechanism behind them: wavefronts = gcd(S, 32) per warp load
local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
local b1 = res.bank.rows[1].wavefronts
for i, r in ipairs(res.bank.rows) do
  local S = cal.measured.bank.strides[i]
  if r.wavefronts ~= b1 * gcd(S, 32) then
    failures[#failures + 1] = string.format("bank %s: %d wavefronts, expected %d", r.label,
                                            r.wavefronts, b1 * gcd(S, 32))
  end
end

-- 7. Tensor Cores (warp-level mma): the 1-16 warp curve relative to its
-- 16-warp value, and each format's 2 x 8 warp rate relative to FP16's
-- (ratios: the datasheet peak is a different, wgmma-only figure).
local tc = res.tensor.rows
for i = 1, 5 do
  within(tc[i].sim / tc[5].sim, tc[i].meas / tc[5].meas, TOL, "Tensor Core curve " .. tc[i].label)
end
within(tc[5].sim, tc[5].meas, TOL, "Tensor Core saturated FP16 (TFLOP/s)")
for i = 7, 8 do
  within(tc[i].sim / tc[6].sim, tc[i].meas / tc[6].meas, TOL, "Tensor Core format ratio " .. tc[i].label)
end

-- 8. Strided reads: useful bandwidth relative to S = 1 against the
-- DRAM-bound expectation (no H200 measurement of this shape in the
-- reference: arch/CALIBRATION.md "Strided reads"), and its mechanism:
-- min(32, 4 S) sectors per warp request, DRAM bytes per useful byte =
-- the fetch blocks touched (64-byte blocks on h200) + the 4-byte result.
for i, r in ipairs(res.stride.rows) do
  local S = cal.stride_sweep[i]
  within(r.sim, r.meas, TOL, "strided reads (DRAM bound) " .. r.label)
  if math.abs(r.sectors_per_req - math.min(32, 4 * S)) > 1e-9 then
    failures[#failures + 1] = string.format("strided %s: %.2f sectors per request, expected %d", r.label,
                                            r.sectors_per_req, math.min(32, 4 * S))
  end
  within(r.dram_per_useful, r.fetched + 1 / (4 * res.options.stride_iters), 0.001,
         "strided reads DRAM bytes per useful byte " .. r.label)
end
-- the copy: reads + the timed write-back of out, bound 2 / (fetched + 1)
for _, r in ipairs(res.stride.copy) do
  within(r.sim, r.meas, TOL, "strided copy (DRAM bound) " .. r.label)
  within(r.dram_per_useful, r.fetched + 1, 0.001, "strided copy DRAM bytes per useful byte " .. r.label)
end

if #failures > 0 then
  error("calibration shapes off:\n  " .. table.concat(failures, "\n  "))
end
print("calibration: all shapes within 15% of the H200 measurements (the HBM latency-hiding curve within 8%)")
