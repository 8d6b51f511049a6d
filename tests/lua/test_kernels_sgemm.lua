-- test_kernels_sgemm.lua - the library-class and compiled-like FP32 kernels:
--   lessons/kernels/sgemm_128x128.s   (CUTLASS-class SGEMM, 128x128x8 tiles)
--   lessons/kernels/matmul_naive_cc.s, matmul_tiled16_cc.s, matmul_tiled32_cc.s
--                                     (the simple CUDA sources as nvcc compiles them)
--   lessons/kernels/gemv.s, skinny_gemm.s   (decode: y = A x, C = A B with small M)
-- Results: bit-identical to the simple kernels where the sum order is the same
-- (k ascending, one accumulator), and within f32 dot-product rounding of
-- simt.ref.matmul (double) everywhere, at sizes that are not multiples of the tiles.
-- Shapes: the SGEMM reaches >= 65% of the FP32 peak on a 4-SM h200 holding
-- the same 2 blocks per SM as n = 2048 on 132 SMs; naive_cc beats naive; GEMV
-- streams A at most of the DRAM bandwidth.
-- Run: simtlab run tests/lua/test_kernels_sgemm.lua   (~10 s)

local T = require("expect")
local expect = T.expect
local function ceil_div(a, b) return (a + b - 1) // b end
local function K(name) return simt.kernel("lessons/kernels/" .. name .. ".s") end
local same = T.same
-- f32 dot products of length k against the double reference
local function close(C, ref, k) return C:allclose(ref, 1e-4, 2e-6 * k + 1e-6) end

-- A 4-SM h200 with each SM's share of DRAM (bandwidth and channels) and L2
-- bandwidth (lessons/lib/calibrate.lua).
local SMS = 4
local g = simt.gpu(require("calibrate").share(SMS))
local peak = SMS * 128 * 2 * 1.98e-3    -- TFLOP/s of 4 SMs: 128 FP32 lanes, FMA = 2 FLOP, 1.98 GHz

-- ---- sgemm_128x128: any M, N % 4 == 0, K % 8 == 0 ---------------------------------
local sgemm, rect = K("sgemm_128x128"), K("matmul_rect")
for _, s in ipairs{ { 1, 4, 8 }, { 128, 128, 8 }, { 100, 132, 72 }, { 300, 260, 64 }, { 129, 384, 136 } } do
  local M, N, KK = s[1], s[2], s[3]
  local A = g:tensor{ M, KK, init = "random", seed = M, name = "A" }
  local B = g:tensor{ KK, N, init = "random", seed = N, name = "B" }
  local C, C0 = g:tensor{ M, N, name = "C" }, g:tensor{ M, N, name = "C0" }
  local r = g:launch(sgemm, { grid = { ceil_div(N, 128), ceil_div(M, 128) }, block = { 256 } }, A, B, C, M, N, KK)
  g:launch(rect, { grid = { ceil_div(N, 16), ceil_div(M, 16) }, block = { 16, 16 } }, A, B, C0, M, N, KK)
  local ok, err = close(C, simt.ref.matmul(A, B), KK)
  expect(ok, string.format("sgemm %dx%dx%d: max error %g", M, N, KK, err))
  expect(same(C, C0), string.format("sgemm %dx%dx%d: not bit-identical to matmul_rect", M, N, KK))
  -- every thread does its 64 FMAs per k, inside M x N or not
  local fl = 2 * ceil_div(M, 128) * 128 * ceil_div(N, 128) * 128 * KK
  expect(r.flops == fl, string.format("sgemm %dx%dx%d: flops %d, expected %d", M, N, KK, r.flops, fl))
end

-- The shape: n = 2048 on 132 SMs is 16 x 16 = 256 blocks, 2 per SM (128
-- registers x 256 threads = half the register file). 8 blocks (M = 256, N =
-- 512) on 4 SMs are the same 2 blocks per SM with the same K = 2048 each.
do
  local M, N, KK = 256, 512, 2048
  local A = g:tensor{ M, KK, init = "random", seed = 1 }
  local B = g:tensor{ KK, N, init = "random", seed = 2 }
  local C = g:tensor{ M, N }
  local r = g:launch(sgemm, { grid = { N // 128, M // 128 }, block = { 256 }, check = false }, A, B, C, M, N, KK)
  local frac = r.tflops / peak
  expect(r.blocks_per_sm >= 2, "sgemm: 2 blocks per SM, got " .. tostring(r.blocks_per_sm))
  expect(frac >= 0.65, string.format("sgemm 256x512x2048 on 4 SMs: %.1f%% of the FP32 peak (want >= 65%%)", 100 * frac))
  expect(frac <= 0.95, string.format("sgemm: %.1f%% of peak is more than its issue slots allow", 100 * frac))
  print(string.format("sgemm_128x128 256x512x2048 on 4 h200 SMs: %.2f TF/s = %.1f%% of FP32 peak (stalls: pipe %.2f, barrier %.2f, memory %.2f)",
                      r.tflops, 100 * frac, r.stall_frac.pipe, r.stall_frac.barrier, r.stall_frac.memory))
end

-- ---- compiled-like simple kernels: same bits as matmul_naive, faster ------------------
do
  local naive, cc = K("matmul_naive"), K("matmul_naive_cc")
  local t16, t32 = K("matmul_tiled16_cc"), K("matmul_tiled32_cc")
  for _, n in ipairs{ 1, 7, 33, 100 } do
    local A = g:tensor{ n, n, init = "random", seed = n }
    local B = g:tensor{ n, n, init = "random", seed = n + 1 }
    local C0 = g:tensor{ n, n }
    g:launch(naive, { grid = { ceil_div(n, 16), ceil_div(n, 16) }, block = { 16, 16 } }, A, B, C0, n)
    expect(close(C0, simt.ref.matmul(A, B), n), "naive n=" .. n)
    for _, k in ipairs{ { cc, 16, { 16, 16 }, "naive_cc" }, { t16, 16, { 16, 16 }, "tiled16_cc" },
                        { t32, 32, { 32, 32 }, "tiled32_cc" } } do
      local C = g:tensor{ n, n }
      g:launch(k[1], { grid = { ceil_div(n, k[2]), ceil_div(n, k[2]) }, block = k[3] }, A, B, C, n)
      expect(same(C, C0), string.format("%s n=%d: not bit-identical to matmul_naive", k[4], n))
    end
  end
  local n = 256
  local A = g:tensor{ n, n, init = "random", seed = 1 }
  local B = g:tensor{ n, n, init = "random", seed = 2 }
  local C = g:tensor{ n, n }
  local cfg = { grid = { n // 16, n // 16 }, block = { 16, 16 }, check = false }
  local rn = g:launch(naive, cfg, A, B, C, n)
  local rc = g:launch(cc, cfg, A, B, C, n)
  expect(rc.time_us < rn.time_us / 1.5,
         string.format("naive_cc %.1f us vs naive %.1f us at n=256 on 4 SMs: want 1.5x faster", rc.time_us, rn.time_us))
  print(string.format("matmul_naive_cc n=256 on 4 h200 SMs: %.2fx matmul_naive", rn.time_us / rc.time_us))
end

-- ---- GEMV: y = A x, any M, K (float4 path when K % 4 == 0, scalar otherwise) ---------
local gemv = K("gemv")
for _, s in ipairs{ { 1, 1 }, { 7, 5 }, { 9, 1000 }, { 33, 100 }, { 100, 513 }, { 13, 2052 } } do
  local M, KK = s[1], s[2]
  local A = g:tensor{ M, KK, init = "random", seed = M }
  local x = g:tensor{ KK, 1, init = "random", seed = KK }
  local y = g:tensor{ M, 1 }
  g:launch(gemv, { grid = { ceil_div(M, 8) }, block = { 256 } }, A, x, y, M, KK)
  local ok, err = close(y, simt.ref.matmul(A, x), KK)
  expect(ok, string.format("gemv %dx%d: max error %g", M, KK, err))
end
do -- bandwidth: a 1024 x 1024 GEMV is a 4 MB stream over A
  local M, KK = 1024, 1024
  local A = g:tensor{ M, KK, init = "random", seed = 1 }
  local x = g:tensor{ KK, 1, init = "random", seed = 2 }
  local y = g:tensor{ M, 1 }
  local r = g:launch(gemv, { grid = { M // 8 }, block = { 256 }, check = false }, A, x, y, M, KK)
  local gbs = M * KK * 4 / r.time_us / 1e3
  local frac = gbs / (4800 * SMS / 132)
  expect(frac >= 0.75, string.format("gemv 1024x1024 on 4 SMs: %.0f GB/s = %.0f%% of DRAM (want >= 75%%)", gbs, 100 * frac))
  print(string.format("gemv 1024x1024 on 4 h200 SMs: %.0f GB/s = %.0f%% of their DRAM bandwidth", gbs, 100 * frac))
end

-- ---- skinny GEMM: C = A B for M = 1..128, any N, K ---------------------------------
local skinny = K("skinny_gemm")
for _, s in ipairs{ { 1, 1, 1 }, { 1, 100, 37 }, { 3, 33, 129 }, { 8, 256, 256 }, { 17, 130, 300 }, { 128, 64, 250 } } do
  local M, N, KK = s[1], s[2], s[3]
  local A = g:tensor{ M, KK, init = "random", seed = M }
  local B = g:tensor{ KK, N, init = "random", seed = N }
  local C = g:tensor{ M, N }
  g:launch(skinny, { grid = { ceil_div(N, 32), ceil_div(M, 8) }, block = { 256 } }, A, B, C, M, N, KK)
  local ok, err = close(C, simt.ref.matmul(A, B), KK)
  expect(ok, string.format("skinny %dx%dx%d: max error %g", M, N, KK, err))
end

T.done("sgemm/gemv")
print("test_kernels_sgemm ok")
