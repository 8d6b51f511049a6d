-- test_kernels_conv_igemm.lua - the implicit-GEMM convolutions
-- (conv_igemm.s, conv_igemm_v4.s), the compiled direct convolution
-- (conv2d_direct_cc.s) and im2col + the same GEMM, against
-- simt.ref.conv2d over odd shapes (padding, stride 2, C not a multiple
-- of the 16-channel step, K and N*P*Q not multiples of the tile, R != S);
-- then two shape checks on scaled-down h200s (a few SMs, DRAM and L2
-- bandwidth scaled with them, as calibrate.lua's scaled_gpu) that can fail:
-- convolution throughput rises with the batch, and the implicit GEMM beats
-- im2col + GEMM at the per-SM load of batch 32 on the whole chip.
-- Run: simtlab run tests/lua/test_kernels_conv_igemm.lua
local conv = require("conv")

local T = require("expect")
local expect = T.expect

local kernels = { "conv_igemm", "conv_igemm_v4" }

-- {N, C, H, W, K, R, S, pad, stride}
local cases = {
  { 1, 1, 5, 5, 1, 1, 1, 0, 1 },      -- the smallest: one block, almost all idle
  { 2, 3, 7, 6, 4, 3, 3, 1, 1 },      -- P*Q = 42: scalar stores in conv_igemm_v4
  { 2, 20, 9, 9, 70, 3, 3, 1, 2 },    -- stride 2, C = 16 + 4, K = 64 + 6
  { 1, 17, 8, 8, 5, 5, 5, 2, 1 },     -- pad 2, P*Q = 64: float4 stores
  { 3, 33, 6, 7, 9, 3, 1, 0, 1 },     -- R != S, C = 2*16 + 1
  { 1, 16, 11, 13, 64, 1, 3, 1, 2 },  -- C exactly one step, K exactly one tile
  { 2, 8, 15, 15, 8, 3, 3, 0, 2 },    -- no padding, stride 2
  { 1, 4, 3, 3, 2, 5, 5, 1, 1 },      -- filter larger than the image, padding makes it fit
  { 3, 32, 16, 15, 40, 3, 3, 1, 1 },  -- N*P*Q = 720: several pixel tiles, the last partial
}

local function label_of(c, g)
  return string.format("N=%d C=%d H=%d W=%d K=%d R=%d S=%d pad=%d stride=%d on %s/%d SMs",
                       c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], g.desc.name, g.desc.sms)
end

local function run(g, c, seed, names)
  local N, C, H, Wd, K, R, S, pad, stride = table.unpack(c)
  local opts = { pad = pad, stride = stride }
  local label = label_of(c, g)
  local X = g:tensor{ N, C, H, Wd, init = "random", seed = seed }
  local Wt = g:tensor{ K, C, R, S, init = "random", seed = seed + 100 }
  local Wr = conv.filter_rsck(g, Wt)
  for _, name in ipairs(names) do
    local Y, runs = conv.igemm(g, X, Wt, { pad = pad, stride = stride, kernel = name, Wr = Wr })
    local ok, err = conv.check(Y, X, Wt, opts)
    expect(ok, name .. " " .. label .. ": max error " .. err)
    expect(runs.igemm.cycles > 0, name .. ": no cycles reported")
    -- im2col + the same kernel as a plain GEMM (a 1 x 1 filter over cols)
    local Y2 = conv.im2col(g, X, Wt, { pad = pad, stride = stride, gemm = "igemm", kernel = name })
    ok, err = conv.check(Y2, X, Wt, opts)
    expect(ok, "im2col + " .. name .. " " .. label .. ": max error " .. err)
  end
  if R == 3 and S == 3 then
    -- the compiled direct kernel does the same FMAs in the same order
    local Y1 = conv.direct(g, X, Wt, opts)
    local Y3 = conv.direct(g, X, Wt, { pad = pad, stride = stride, cc = true })
    local ok, err = conv.check(Y3, X, Wt, opts)
    expect(ok, "conv2d_direct_cc " .. label .. ": max error " .. err)
    expect(Y3:max_abs_diff(Y1) == 0, "conv2d_direct_cc " .. label .. " differs from conv2d_direct")
  end
end

-- edu-tiny has 16384 registers per SM: conv_igemm (256 threads x 64) fits,
-- conv_igemm_v4 (128 x ~150) does not; a 2-SM h200 runs both.
do
  local g = simt.gpu{ arch = "edu-tiny" }
  for i, c in ipairs(cases) do run(g, c, i, { "conv_igemm" }) end
  -- without opts.kernel conv.igemm falls back to conv_igemm there
  local X = g:tensor{ 2, 5, 7, 7, init = "random", seed = 3 }
  local Wt = g:tensor{ 3, 5, 3, 3, init = "random", seed = 4 }
  local Y, runs = conv.igemm(g, X, Wt, { pad = 1 })
  expect(runs.igemm.kernel == "conv_igemm" and conv.check(Y, X, Wt, { pad = 1 }),
         "conv.igemm's default on edu-tiny: " .. tostring(runs.igemm.kernel))
  local h = simt.gpu{ arch = "h200", sms = 2 }
  for i, c in ipairs(cases) do run(h, c, 50 + i, kernels) end
end

-- The check must be able to fail: a corrupted output.
do
  local g = simt.gpu{ arch = "h200", sms = 1 }
  local X = g:tensor{ 1, 3, 6, 6, init = "random", seed = 9 }
  local Wt = g:tensor{ 2, 3, 3, 3, init = "random", seed = 10 }
  for _, name in ipairs(kernels) do
    local Y = conv.igemm(g, X, Wt, { pad = 1, kernel = name })
    expect(conv.check(Y, X, Wt, { pad = 1 }), name .. ": the small case fails")
    local bad = Y:reshape(1, 2, 6, 6)
    bad:set(1, 2, 6, 6, bad:get(1, 2, 6, 6) + 0.5)
    expect(not conv.check(bad, X, Wt, { pad = 1 }), name .. ": a corrupted Y still compares equal")
  end
end

-- Shapes on scaled h200s: sms SMs with sms/132 of the DRAM bandwidth and
-- channels and of the L2 bandwidth.
local function scaled_gpu(sms) return simt.gpu(require("calibrate").share(sms)) end

-- A ResNet-like 3 x 3 layer, C = K = 64, pad 1 (conv2_x of ResNet-34 at a
-- smaller image): implicit GEMM with the default kernel, TFLOP/s.
local function layer_tflops(g, N, HW, Wr, Wt)
  local X = g:tensor{ N, 64, HW, HW, init = "random", seed = N }
  local _, runs = conv.igemm(g, X, Wt, { pad = 1, Wr = Wr, check = false })
  local useful = 2 * N * 64 * HW * HW * 64 * 9 -- not the FMAs of the idle tile edges
  return useful / (runs.igemm.time_us * 1e6), runs.igemm
end

-- 1. Throughput rises with the batch. On the whole chip a 56 x 56 image is
-- 25 blocks of 128 pixels (49 of 64) for 132 SMs: batch 1 leaves most SMs
-- idle. Scaled: 8 SMs and a 12 x 12 image, 2 blocks (3 of 64) for 8 SMs,
-- the same fraction of the machine; batch 16 gives every SM several blocks.
do
  local g = scaled_gpu(8)
  local Wt = g:tensor{ 64, 64, 3, 3, init = "random", seed = 7 }
  local Wr = conv.filter_rsck(g, Wt)
  local t1, r1 = layer_tflops(g, 1, 12, Wr, Wt)
  local t16, r16 = layer_tflops(g, 16, 12, Wr, Wt)
  print(string.format("batch 1: %d blocks, %.3f TFLOP/s on 8 SMs; batch 16: %d blocks, %.3f TFLOP/s (x%.1f)",
                      r1.blocks, t1, r16.blocks, t16, t16 / t1))
  expect(t16 > 3 * t1, string.format("throughput at batch 16 (%.3f) is not > 3 x batch 1 (%.3f)", t16, t1))
end

-- 2. Implicit GEMM against im2col + GEMM (the same GEMM mainloop, run on the
-- explicit cols matrix) at the per-SM load of batch 32 on the whole chip:
-- 32 x 56 x 56 pixels on 132 SMs is 760 pixels per SM, one 56 x 56 image on
-- 4 SMs 784 (the same number of blocks per SM). The scaled L2 keeps its full size,
-- which favours im2col (its cols matrix, 12.8 MB here, fits in L2; at
-- batch 32 on the chip, 231 MB, it does not): the check is conservative.
do
  local g = scaled_gpu(4)
  local Wt = g:tensor{ 64, 64, 3, 3, init = "random", seed = 8 }
  local X = g:tensor{ 1, 64, 56, 56, init = "random", seed = 9 }
  local _, ri = conv.igemm(g, X, Wt, { pad = 1, check = false })
  local _, re = conv.im2col(g, X, Wt, { pad = 1, gemm = "igemm", check = false, times_only = true })
  local t_impl = ri.igemm.time_us
  local t_expl = re.im2col.time_us + re.gemm.time_us
  print(string.format("4 SMs, 56x56x64 -> 64, 3x3: implicit %.1f us, im2col %.1f + GEMM %.1f = %.1f us (x%.2f)",
                      t_impl, re.im2col.time_us, re.gemm.time_us, t_expl, t_expl / t_impl))
  expect(t_impl * 1.2 < t_expl, string.format("implicit GEMM (%.1f us) not clearly faster than im2col + GEMM (%.1f us)",
                                              t_impl, t_expl))
end

T.done()
print("test_kernels_conv_igemm: ok")
