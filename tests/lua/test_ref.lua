-- test_ref.lua - simt.ref against plain Lua loops written independently here,
-- on random shapes that are not square and with stride and padding.

local function lua_matmul(A, B, M, K, N)
  local C = {}
  for i = 1, M do
    for j = 1, N do
      local s = 0
      for k = 1, K do s = s + A:get(i, k) * B:get(k, j) end
      C[#C + 1] = s
    end
  end
  return C
end

local function close_list(got, want, tol, what)
  assert(#got == #want, what .. ": length " .. #got .. " vs " .. #want)
  for i = 1, #want do
    if math.abs(got[i] - want[i]) > tol * (1 + math.abs(want[i])) then
      error(string.format("%s: element %d is %.9g, expected %.9g", what, i, got[i], want[i]), 2)
    end
  end
end

-- matmul on a 7x5 by 5x3 case
local A = simt.tensor{7, 5, init = "random", seed = 11}
local B = simt.tensor{5, 3, init = "random", seed = 12}
close_list(simt.ref.matmul(A, B):to_table(), lua_matmul(A, B, 7, 5, 3), 1e-6, "matmul 7x5x3")

-- i32 inputs are accepted, the result is f32
local Ai = simt.tensor{2, 2, dtype = "i32", init = {1, -2, 3, 4}}
local P = simt.ref.matmul(Ai, Ai)
assert(P.dtype == "f32")
close_list(P:to_table(), {1 - 6, -2 - 8, 3 + 12, -6 + 16}, 0, "i32 matmul")

-- conv2d: N = 2, C = 3, H = 6, W = 5, K = 4, R = 3, S = 2, stride 2, pad 1
local N, C, H, W, K, R, S, stride, pad = 2, 3, 6, 5, 4, 3, 2, 2, 1
local X = simt.tensor{N, C, H, W, init = "random", seed = 21}
local Wt = simt.tensor{K, C, R, S, init = "random", seed = 22}
local Pout = (H + 2 * pad - R) // stride + 1
local Qout = (W + 2 * pad - S) // stride + 1
assert(Pout == 3 and Qout == 3)
local want = {}
for n = 1, N do
  for k = 1, K do
    for p = 0, Pout - 1 do
      for q = 0, Qout - 1 do
        local s = 0
        for c = 1, C do
          for r = 0, R - 1 do
            for t = 0, S - 1 do
              local h, v = p * stride - pad + r, q * stride - pad + t
              if h >= 0 and h < H and v >= 0 and v < W then
                s = s + X:get(n, c, h + 1, v + 1) * Wt:get(k, c, r + 1, t + 1)
              end
            end
          end
        end
        want[#want + 1] = s
      end
    end
  end
end
local Y = simt.ref.conv2d(X, Wt, {stride = stride, pad = pad})
local y1, y2, y3, y4 = Y:shape()
assert(y1 == N and y2 == K and y3 == Pout and y4 == Qout, "conv2d shape")
close_list(Y:to_table(), want, 1e-6, "conv2d N=2 stride 2 pad 1")

-- im2col + matmul gives conv as {K, N*P*Q}: column (n*P + p)*Q + q
local cols = simt.ref.im2col(X, R, S, {stride = stride, pad = pad})
local c1, c2 = cols:shape()
assert(c1 == C * R * S and c2 == N * Pout * Qout, "im2col shape")
local G = simt.ref.matmul(Wt:reshape(K, C * R * S), cols)
for n = 1, N do
  for k = 1, K do
    for p = 1, Pout do
      for q = 1, Qout do
        local col = ((n - 1) * Pout + (p - 1)) * Qout + q
        local a, b = G:get(k, col), Y:get(n, k, p, q)
        assert(math.abs(a - b) < 1e-5, string.format("im2col gemm (%d,%d,%d,%d): %g vs %g",
                                                      n, k, p, q, a, b))
      end
    end
  end
end

-- add and sum
local S1 = simt.ref.add(A, A)
close_list(S1:to_table(), (function()
  local t = {}
  for i, v in ipairs(A:to_table()) do t[i] = 2 * v end
  return t
end)(), 1e-7, "add")
local total = 0
for _, v in ipairs(A:to_table()) do total = total + v end
assert(math.abs(simt.ref.sum(A) - total) < 1e-9, "sum")

-- filter larger than the padded input
local ok, msg = pcall(simt.ref.conv2d, simt.tensor{1, 1, 2, 2}, simt.tensor{1, 1, 3, 3})
assert(not ok and msg:find("filter of size 3 does not fit input of size 2 with pad 0", 1, true), msg)

print("test_ref: all assertions passed")
