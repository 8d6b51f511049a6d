-- test_kernels.lua - vecadd.s and the reductions (reduce_sum.s twice,
-- reduce_atomic.s once) against host references, at sizes that are not
-- multiples of the block, on edu-tiny and an 8-SM variant.
-- (Matmul: test_kernels_matmul.lua; convolution: test_kernels_conv.lua.)
-- Run: simtlab run tests/lua/test_kernels.lua
local W = require("workloads")

local T = require("expect")
local expect = T.expect

local gpus = { { arch = "edu-tiny" }, { arch = "edu-tiny", sms = 8 } }

-- vecadd: one rounding per element, so the result must be exact.
for _, gpu in ipairs(gpus) do
  local g = simt.gpu(gpu)
  for _, n in ipairs{ 1, 17, 33, 64, 100, 1000 } do
    for _, bx in ipairs{ 32, 128 } do
      local r, err = W.vecadd(g, n, { block = bx, seed = n })
      expect(r.ok, string.format("vecadd n=%d block=%d: max error %g", n, bx, err))
      expect(r.threads == (n + bx - 1) // bx * bx, "vecadd: threads launched")
      expect(r.gst_bytes == 4 * n, string.format("vecadd n=%d: stored %d bytes", n, r.gst_bytes))
    end
  end
end

-- Reductions on small integers: every partial sum is an integer below
-- 2^24, so any summation order gives the exact total.
local function int_data(n, seed)
  local t, x, s = {}, seed, 0
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    t[i] = x % 17 - 8 -- -8 .. 8
    s = s + t[i]
  end
  return t, s
end

for _, gpu in ipairs(gpus) do
  local g = simt.gpu(gpu)
  for _, n in ipairs{ 1, 17, 33, 64, 100, 1000, 5000 } do
    local vals, want = int_data(n, n)
    local A = g:tensor{ n, init = vals }
    for _, bx in ipairs{ 1, 32, 128, 256 } do
      local got, r1, r2 = W.reduce(g, A, { block = bx })
      expect(got == want, string.format("reduce_sum n=%d block=%d: got %g, want %d", n, bx, got,
                                        want))
      expect(r1.blocks >= 1 and r2.blocks == 1, "reduce_sum: two launches")
      got = W.reduce(g, A, { block = bx, atomic = true })
      expect(got == want, string.format("reduce_atomic n=%d block=%d: got %g, want %d", n, bx,
                                        got, want))
    end
    -- fewer blocks than elements / block: the grid-stride loop
    local got = W.reduce(g, A, { block = 32, blocks = 3 })
    expect(got == want, string.format("reduce_sum n=%d 3 blocks: got %g, want %d", n, got, want))
    got = W.reduce(g, A, { block = 64, blocks = 5, atomic = true })
    expect(got == want, string.format("reduce_atomic n=%d 5 blocks: got %g", n, got))
  end
  -- random floats: close to the double-precision sum
  local A = g:tensor{ 3000, init = "random", seed = 5 }
  local want = simt.ref.sum(A)
  for _, atomic in ipairs{ false, true } do
    local got = W.reduce(g, A, { block = 128, atomic = atomic })
    expect(math.abs(got - want) < 1e-3, string.format("reduce (atomic=%s) of 3000 floats: got "
                                                      .. "%.6f, want %.6f", atomic, got, want))
  end
end

T.done()
print("test_kernels: ok")
