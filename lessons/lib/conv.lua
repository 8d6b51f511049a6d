-- conv.lua - 2-D convolution on the simulated GPU, two ways:
--   conv.direct(g, X, Wt, opts)  one kernel, conv2d_direct.s
--   conv.im2col(g, X, Wt, opts)  im2col.s, then a GEMM (matmul_rect.s)
-- X is a device tensor {N, C, H, W}, Wt a device tensor {K, C, R, S};
-- opts = {stride = 1, pad = 0}. Both return Y as a device tensor
-- {N, K, P, Q} and a table of launch results; conv.check compares Y with
-- simt.ref.conv2d.
--
--   (scripts find lessons/lib with require; the sandbox has no package.path)
--   local conv = require("conv")
--   local Y, runs = conv.im2col(g, X, Wt, {pad = 1})
--   print(runs.im2col.cycles, runs.gemm.cycles, conv.check(Y, X, Wt, {pad = 1}))

local W = require("workloads") -- in lessons/lib, like this file

local conv = {}

local function ceil_div(a, b) return (a + b - 1) // b end

-- Sizes of a convolution of X {N, C, H, W} with a K x C x R x S filter;
-- raises if the filter does not fit (like simt.ref.conv2d).
local function sizes_of(X, K, R, S, opts)
  opts = opts or {}
  local stride, pad = opts.stride or 1, opts.pad or 0
  assert(X.ndim == 4, "conv: X must be {N, C, H, W}")
  local N, C, H, Wd = X:shape()
  assert(stride >= 1 and pad >= 0, "conv: need stride >= 1 and pad >= 0")
  assert(H + 2 * pad >= R and Wd + 2 * pad >= S, "conv: the filter does not fit the input")
  local P = (H + 2 * pad - R) // stride + 1
  local Q = (Wd + 2 * pad - S) // stride + 1
  return { N = N, C = C, H = H, W = Wd, K = K, R = R, S = S, P = P, Q = Q,
           stride = stride, pad = pad }
end

-- conv.sizes(X, Wt, opts) -> {N, C, H, W, K, R, S, P, Q, stride, pad}.
function conv.sizes(X, Wt, opts)
  assert(Wt.ndim == 4, "conv: Wt must be {K, C, R, S}")
  local K, C2, R, S = Wt:shape()
  local z = sizes_of(X, K, R, S, opts)
  assert(z.C == C2, "conv: X has " .. z.C .. " channels, Wt has " .. C2)
  return z
end

-- Direct convolution: one thread per output (block opts.block or 128).
function conv.direct(g, X, Wt, opts)
  opts = opts or {}
  local z = conv.sizes(X, Wt, opts)
  local Y = g:tensor{ z.N, z.K, z.P, z.Q, name = "Y" }
  local bx = opts.block or 128
  local total = z.N * z.K * z.P * z.Q
  local r = g:launch(W.kernel("conv2d_direct"), { grid = ceil_div(total, bx), block = bx },
                     X, Wt, Y, z.N, z.C, z.H, z.W, z.K, z.R, z.S, z.pad, z.stride, z.P, z.Q)
  return Y, { direct = r, cycles = r.cycles }
end

-- X unfolded into cols {C*R*S, N*P*Q} (the layout of simt.ref.im2col).
function conv.unfold(g, X, R, S, opts)
  opts = opts or {}
  local z = sizes_of(X, 1, R, S, opts)
  local rows, cols = z.C * R * S, z.N * z.P * z.Q
  local O = g:tensor{ rows, cols, name = "cols" }
  local r = g:launch(W.kernel("im2col"),
                     { grid = { ceil_div(cols, 64), ceil_div(rows, 4) }, block = { 64, 4 } },
                     X, O, z.N, z.C, z.H, z.W, R, S, z.pad, z.stride, z.P, z.Q)
  return O, r
end

-- im2col + GEMM: Ymat {K, N*P*Q} = Wt {K, C*R*S} x cols, then reordered
-- on the host to {N, K, P, Q} (for N = 1 this is only a reshape).
function conv.im2col(g, X, Wt, opts)
  opts = opts or {}
  local z = conv.sizes(X, Wt, opts)
  local cols, r1 = conv.unfold(g, X, z.R, z.S, opts)
  local Wm = Wt:reshape(z.K, z.C * z.R * z.S)
  local npq = z.N * z.P * z.Q
  local Ymat = g:tensor{ z.K, npq, name = "Ymat" }
  local r2 = W.matmul_rect(g, Wm, cols, Ymat)
  -- Ymat[k][(n*P + p)*Q + q] -> Y[n][k][p][q]
  local v, out, pq = Ymat:to_table(), {}, z.P * z.Q
  for n = 0, z.N - 1 do
    for k = 0, z.K - 1 do
      for j = 0, pq - 1 do
        out[(n * z.K + k) * pq + j + 1] = v[k * npq + n * pq + j + 1]
      end
    end
  end
  local Y = g:tensor{ z.N, z.K, z.P, z.Q, init = out, name = "Y" }
  return Y, { im2col = r1, gemm = r2, cols = cols, cycles = r1.cycles + r2.cycles }
end

-- conv.check(Y, X, Wt, opts) -> ok, max_err against simt.ref.conv2d.
function conv.check(Y, X, Wt, opts)
  local ref = simt.ref.conv2d(X, Wt, { stride = (opts or {}).stride or 1,
                                       pad = (opts or {}).pad or 0 })
  local _, C, R, S = Wt:shape()
  local ok, maxerr = Y:allclose(ref, 1e-4, 2e-6 * C * R * S + 1e-6)
  return ok, maxerr
end

return conv
