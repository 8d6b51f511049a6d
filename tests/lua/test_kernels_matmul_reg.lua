-- test_kernels_matmul_reg.lua - lessons/kernels/matmul_reg64.s, the
-- register-tiled FP32 matmul (64 x 64 tile per block, 4 x 4 outputs per
-- thread): correct against simt.ref.matmul at sizes that are and are not
-- multiples of its tiles, on edu-tiny, h200 and cpu-server (bit-identical
-- on all three), and the point of the kernel: fewer shared-memory loads
-- per FLOP, so it is faster than the tiled kernels.
-- Run: simtlab run tests/lua/test_kernels_matmul_reg.lua

local kernel = simt.kernel("lessons/kernels/matmul_reg64.s")
local T = require("expect")
local expect = T.expect

local function ceil_div(a, b) return (a + b - 1) // b end

-- C = A x B with matmul_reg64 on dev; returns the launch result and C.
local function run(dev, n, seed)
  local A = dev:tensor{ n, n, init = "random", seed = seed, name = "A" }
  local B = dev:tensor{ n, n, init = "random", seed = seed + 1, name = "B" }
  local C = dev:tensor{ n, n, name = "C" }
  local r = dev:launch(kernel, { grid = { ceil_div(n, 64), ceil_div(n, 64) }, block = { 16, 16 } }, A, B, C, n)
  return r, C, simt.ref.matmul(A, B)
end

local same = T.same

local tiny, h200, server = simt.gpu{ arch = "edu-tiny" }, simt.gpu{ arch = "h200" }, simt.cpu("cpu-server")
for _, n in ipairs{ 1, 17, 64, 100, 256 } do
  local outs = {}
  for _, dev in ipairs{ tiny, h200, server } do
    if not (dev == tiny and n == 256) then -- (256 on edu-tiny's 2 SMs is slow and adds nothing)
      local r, C, ref = run(dev, n, n)
      -- f32 dot products of length n against the double reference
      local ok, err = C:allclose(ref, 1e-4, 2e-6 * n + 1e-6)
      expect(ok, string.format("n=%d on %s: max error %g", n, dev.name, err))
      -- every thread does 16 FMAs per k for the padded sizes: 64-wide
      -- output tiles, 16-deep k steps (the padding is multiplied as zeros)
      local m, kk = ceil_div(n, 64) * 64, ceil_div(n, 16) * 16
      expect(r.flops == 2 * m * m * kk, string.format("n=%d on %s: flops %d, expected %d", n, dev.name, r.flops, 2 * m * m * kk))
      outs[#outs + 1] = C
    end
  end
  for i = 2, #outs do expect(same(outs[1], outs[i]), string.format("n=%d: results differ between devices", n)) end
end

-- The reference catches a wrong answer: corrupt one element.
do
  local r, C, ref = run(tiny, 17, 3)
  local t = C:to_table()
  t[5] = t[5] + 0.5
  local bad = tiny:tensor{ 17, 17, init = t }
  expect(not bad:allclose(ref, 1e-4, 2e-6 * 17 + 1e-6), "a corrupted element must be caught")
  expect(r.flops > 0, "flops")
end

-- Why it is faster. Shared-memory loads per FLOP, from the kernel's inner
-- loops: tiled16 loads 2 floats (8 bytes) per FMA (2 FLOP) = 4 bytes/FLOP;
-- tiled32 loads 1 B value per 4 FMAs and 1 A value per FMA = 5 floats per
-- 8 FLOP = 2.5 bytes/FLOP; matmul_reg64 loads 8 floats per 16 FMAs = 1 byte
-- per FLOP. On a GPU whose load/store units issue a quarter as many warp
-- instructions per cycle as the FP32 lanes (h200: 32 LSU vs 128 FP32
-- lanes per SM), fewer loads per FMA is directly more FLOP/s.
-- An 8-SM h200 (DRAM and L2 bandwidth scaled by 8/132, as in
-- arch/CALIBRATION.md) at n = 256 keeps every SM busy and runs in a second.
local g8 = simt.gpu{ arch = "h200", sms = 8, dram_gbps = 4800 * 8 / 132, l2_bytes_per_clk = 3072 * 8 / 132 }
local W = require("workloads")
local t16 = W.matmul(g8, "matmul_tiled16", 256, { check = false })
local t32 = W.matmul(g8, "matmul_tiled32", 256, { check = false })
local reg = run(g8, 256, 1)
expect(math.abs(t16.sld_bytes / t16.flops - 4.0) < 1e-9, "tiled16: 4 shared bytes per FLOP, got " .. t16.sld_bytes / t16.flops)
expect(math.abs(t32.sld_bytes / t32.flops - 2.5) < 1e-9, "tiled32: 2.5 shared bytes per FLOP, got " .. t32.sld_bytes / t32.flops)
expect(math.abs(reg.sld_bytes / reg.flops - 1.0) < 1e-9, "reg64: 1 shared byte per FLOP, got " .. reg.sld_bytes / reg.flops)
expect(reg.time_us < t32.time_us / 1.5 and t32.time_us < t16.time_us,
       string.format("n=256 on 8 SMs: reg64 %.1f us, tiled32 %.1f us, tiled16 %.1f us", reg.time_us, t32.time_us, t16.time_us))
-- ... but not beyond what the load/store units allow: 8 loads of 4 LSU
-- cycles each per 16 FMAs of 1 cycle caps it at 50% of the FP32 peak
-- (8 SMs x 128 lanes x 2 x 1.98 GHz = 4.055 TFLOP/s)
local frac = reg.flops / reg.time_us / 1e6 / (8 * 128 * 2 * 1.98e-3)
expect(frac > 0.2 and frac <= 0.5, string.format("reg64 at %.0f%% of the FP32 peak of 8 SMs", frac * 100))
print(string.format("matmul_reg64 n=256 on 8 h200 SMs: %.0f%% of FP32 peak; %.1fx tiled32, %.1fx tiled16",
                    frac * 100, t32.time_us / reg.time_us, t16.time_us / reg.time_us))

T.done("matmul_reg64")
print("test_kernels_matmul_reg ok")
