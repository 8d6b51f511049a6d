-- test_kernels_conv.lua - conv2d_direct.s and im2col.s + matmul_rect.s
-- against simt.ref.conv2d / simt.ref.im2col over paddings 0/1/2, strides
-- 1/2, filters 1/3/5, batch N > 1 and channels C > 1.
-- Run: simtlab run tests/lua/test_kernels_conv.lua
local conv = require("conv")

local T = require("expect")
local expect = T.expect

-- {N, C, H, W, K, R (= S), pad, stride}
local cases = {
  { 1, 1, 5, 5, 1, 1, 0, 1 },
  { 2, 3, 7, 6, 4, 3, 1, 1 },
  { 1, 2, 9, 9, 3, 5, 2, 1 },
  { 2, 2, 8, 7, 2, 3, 0, 2 },
  { 3, 1, 6, 6, 5, 3, 1, 2 },
  { 1, 3, 5, 8, 2, 5, 2, 2 },
  { 2, 4, 4, 4, 3, 1, 1, 2 },
  { 1, 1, 3, 3, 2, 5, 1, 1 }, -- filter larger than the image, padding makes it fit
  { 2, 3, 16, 15, 8, 3, 1, 1 }, -- a small layer: N*P*Q not a multiple of the blocks
}

local function run(g, c, seed)
  local N, C, H, Wd, K, R, pad, stride = table.unpack(c)
  local opts = { pad = pad, stride = stride }
  local label = string.format("N=%d C=%d H=%d W=%d K=%d R=S=%d pad=%d stride=%d on %d SMs",
                              N, C, H, Wd, K, R, pad, stride, g.desc.sms)
  local X = g:tensor{ N, C, H, Wd, init = "random", seed = seed }
  local Wt = g:tensor{ K, C, R, R, init = "random", seed = seed + 100 }
  local Y1 = conv.direct(g, X, Wt, opts)
  local ok, err = conv.check(Y1, X, Wt, opts)
  expect(ok, "conv2d_direct " .. label .. ": max error " .. err)
  local Y2, runs = conv.im2col(g, X, Wt, opts)
  ok, err = conv.check(Y2, X, Wt, opts)
  expect(ok, "im2col+gemm " .. label .. ": max error " .. err)
  -- the unfolded matrix itself, exactly (it only moves data)
  local cols_ref = simt.ref.im2col(X, R, R, opts)
  ok, err = runs.cols:allclose(cols_ref, 0, 0)
  expect(ok, "im2col matrix " .. label .. ": max error " .. err)
  expect(runs.im2col.cycles > 0 and runs.gemm.cycles > 0, "im2col: no cycles reported")
end

for _, gpu in ipairs{ { arch = "edu-tiny" }, { arch = "edu-tiny", sms = 8 } } do
  local g = simt.gpu(gpu)
  for i, c in ipairs(cases) do
    run(g, c, i)
  end
end

-- The check must be able to fail: a wrong pad gives a different answer.
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local X = g:tensor{ 1, 2, 6, 6, init = "random", seed = 9 }
  local Wt = g:tensor{ 2, 2, 3, 3, init = "random", seed = 10 }
  local Y = conv.direct(g, X, Wt, { pad = 1 })
  local bad = Y:reshape(1, 2, 6, 6)
  bad:set(1, 1, 1, 1, bad:get(1, 1, 1, 1) + 0.5)
  expect(not conv.check(bad, X, Wt, { pad = 1 }), "a corrupted Y still compares equal")
end

T.done()
print("test_kernels_conv: ok")
