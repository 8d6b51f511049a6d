-- test_power.lua - the power model on h200 (sim/core/power.h, arch/CALIBRATION.md
-- "Power and sustained clocks"), on a few SMs with the chip's per-SM shares of
-- DRAM and L2 bandwidth, TDP and static power (calibrate.scaled_gpu), so each
-- SM throttles exactly as it would on the whole chip:
--   an FP32-FMA-saturated launch and an HBM stream keep the boost clock
--   (their power is under the TDP); the Tensor Core GEMM (tc_gemm_cluster,
--   FP16) is over it at boost and runs at the clock where it draws the TDP,
--   its time and TFLOP/s at that clock; a preset without a power model keeps
--   cycles / clock and reports no energy; compare.lua uses the model's energy.
-- Run: simtlab run tests/lua/test_power.lua
local C = require("calibrate")
local compare = require("compare")

local T = require("expect")
local expect = T.expect
local function near(a, b, tol) return math.abs(a - b) <= tol * math.max(math.abs(a), math.abs(b)) end

local d = simt.gpu{ arch = "h200" }.desc
local function K(name) return simt.kernel("lessons/kernels/" .. name .. ".s") end

-- ---- under the TDP: the boost clock ------------------------------------------
do
  local sms = 4
  local f = 132 / sms
  local g = C.scaled_gpu(sms)
  local out = g:tensor{ sms * 2048 }
  local r = g:launch(K("micro_fma8"), { grid = 2 * sms, block = 1024 }, 16, out)
  expect(r.power_model, "h200 has a power model")
  expect(r.clock_mhz_sustained == d.clock_mhz and not r.throttled,
    ("FMA-saturated: clock %.0f MHz, expected the boost clock %d"):format(r.clock_mhz_sustained, d.clock_mhz))
  expect(r.time_us == r.time_us_boost and near(r.time_us, r.cycles / d.clock_mhz, 1e-12), "FMA: time = cycles / clock")
  expect(r.tflops * f > 50, ("FMA: %.1f TF/s whole-chip equivalent"):format(r.tflops * f))
  local w = r.avg_power_w * f
  expect(w < d.tdp_watts and w > d.power_static_w,
    ("FMA-saturated draws %.0f W (chip), should be under the %d W TDP"):format(w, d.tdp_watts))
  expect(near(r.energy_j, r.avg_power_w * r.time_us * 1e-6, 1e-9), "FMA: energy = power x time")
  expect(r.energy_static_j > 0 and r.energy_static_j < r.energy_j, "FMA: static energy is a part")
  local A = g:tensor{ sms * 2048 * 4 * 8 }
  local s = g:launch(K("micro_stream"), { grid = 2 * sms, block = 1024, check = false }, A, 8, out)
  expect(s.clock_mhz_sustained == d.clock_mhz, "HBM stream keeps the boost clock")
  expect(s.dram_gbs * f > 4000, ("HBM stream %.0f GB/s"):format(s.dram_gbs * f))
  expect(s.energy_dram_j > 0.2 * s.energy_j, "HBM stream: DRAM is a large part of its energy")
end

-- ---- over the TDP: the Tensor Core GEMM throttles -----------------------------
do
  local sms = 8
  local f = 132 / sms
  local g = C.scaled_gpu(sms)
  local n = 1024
  local A = g:tensor{ n, n, dtype = "f16", init = "random", seed = 1, lo = -1, hi = 1 }
  local B = g:tensor{ n, n, dtype = "f16", init = "random", seed = 2, lo = -1, hi = 1 }
  local Cm = g:tensor{ n, n }
  local r = g:launch(K("tc_gemm_cluster_f16"), { grid = { n // 256, n // 128 }, block = 1024, cluster = { 1, 2, 1 },
                     check = false }, A, B, Cm, n)
  expect(r.throttled and r.clock_mhz_sustained < d.clock_mhz, "the FP16 GEMM throttles")
  expect(r.clock_mhz_sustained > 1400 and r.clock_mhz_sustained < 1800,
    ("FP16 GEMM clock %.0f MHz: expected 1.4-1.8 GHz (reports of H100/H200 under dense GEMM load)"):format(
      r.clock_mhz_sustained))
  expect(r.power_boost_w * f > d.tdp_watts, ("at boost it would draw %.0f W"):format(r.power_boost_w * f))
  expect(near(r.avg_power_w * f, d.tdp_watts, 1e-6), ("it draws the TDP: %.1f W"):format(r.avg_power_w * f))
  expect(near(r.time_us, r.time_us_boost * d.clock_mhz / r.clock_mhz_sustained, 1e-9),
    "time = boost time x boost / sustained clock")
  expect(near(r.tflops, r.flops / r.time_us / 1e6, 1e-9), "TFLOP/s at the sustained clock")
  expect(near(r.energy_j, r.avg_power_w * r.time_us * 1e-6, 1e-9), "energy = power x time")
  expect(r.cycles > 0 and r.time_us_boost == r.cycles / d.clock_mhz, "cycles stay the boost-clock model's")
  -- the same launch with the limit out of reach: the boost clock, same cycles
  local g2 = simt.gpu{ arch = "h200", sms = sms, dram_gbps = d.dram_gbps / f, dram_channels = g.desc.dram_channels,
                       l2_bytes_per_clk = d.l2_bytes_per_clk / f, tdp_watts = 1e5 }
  local A2 = g2:tensor{ n, n, dtype = "f16", init = "random", seed = 1, lo = -1, hi = 1 }
  local B2 = g2:tensor{ n, n, dtype = "f16", init = "random", seed = 2, lo = -1, hi = 1 }
  local C2 = g2:tensor{ n, n }
  local u = g2:launch(K("tc_gemm_cluster_f16"), { grid = { n // 256, n // 128 }, block = 1024, cluster = { 1, 2, 1 },
                      check = false }, A2, B2, C2, n)
  expect(u.cycles == r.cycles and u.clock_mhz_sustained == d.clock_mhz, "unlimited: same cycles, boost clock")
  expect(u.energy_j > r.energy_j, "the throttled run uses less energy (lower voltage)")
end

-- ---- no power model: cycles / clock, no energy --------------------------------
do
  local g = simt.gpu{ arch = "a100", sms = 2 }
  local out = g:tensor{ 2 * 1024 }
  local r = g:launch(K("micro_fma8"), { grid = 2, block = 1024 }, 4, out)
  expect(r.power_model == false and r.energy_j == 0 and not r.throttled, "a100: no power model")
  expect(r.time_us == r.cycles / g.desc.clock_mhz, "a100: time = cycles / clock")
end

-- ---- compare.lua: the model's energy on h200, TDP x time on the CPU -----------
do
  local c = compare.run{ workload = "matmul_tiled16", n = 64, cpu = "cpu-core", gpu = "h200", quiet = true }
  expect(c.gpu.energy_method == "model" and c.cpu.energy_method == "tdp", "compare: energy methods")
  local want = c.gpu.result.energy_j + c.gpu.launch_us * 1e-6 * simt.gpu{ arch = "h200" }.desc.power_static_w
  expect(near(c.gpu.energy_j, want, 1e-9), "compare: GPU energy = kernel energy + static x launch")
  expect(c.gpu.energy_j < d.tdp_watts * c.gpu.time_us * 1e-6, "compare: the model's energy is below TDP x time")
  expect(c.summary:find("power model", 1, true), "compare: the summary names the power model")
end

T.done("power")
print("power: ok")
