-- conv.lua - 2-D convolution on the simulated GPU, three ways:
--   conv.direct(g, X, Wt, opts)  one kernel, conv2d_direct.s (one thread
--                                per output)
--   conv.im2col(g, X, Wt, opts)  im2col.s, then a GEMM (matmul_rect.s, or
--                                opts.gemm = "igemm": the
--                                register-blocked GEMM of conv_igemm*.s)
--   conv.igemm(g, X, Wt, opts)   one kernel, conv_igemm_v4.s (or
--                                conv_igemm.s): the implicit GEMM (tiled,
--                                shared memory), as cuDNN does
-- X is a device tensor {N, C, H, W}, Wt a device tensor {K, C, R, S};
-- opts = {stride = 1, pad = 0}. All return Y as a device tensor
-- {N, K, P, Q} and a table of launch results; conv.check compares Y with
-- simt.ref.conv2d. More opts: check (the launches' kernel checker, default
-- on), cc (conv.direct), kernel and Wr (conv.igemm, conv.im2col with
-- gemm = "igemm"), gemm and times_only (conv.im2col: no Y, only the runs,
-- for benchmarks: skips the host-side reorder).
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
-- opts.cc: the same source as nvcc compiles it for a 3 x 3 filter
-- (conv2d_direct_cc.s: taps unrolled, padding tests hoisted; R = S = 3).
function conv.direct(g, X, Wt, opts)
  opts = opts or {}
  local z = conv.sizes(X, Wt, opts)
  local name = "conv2d_direct"
  if opts.cc then
    assert(z.R == 3 and z.S == 3, "conv.direct: opts.cc needs a 3 x 3 filter (conv2d_direct_cc.s)")
    name = "conv2d_direct_cc"
  end
  local Y = g:tensor{ z.N, z.K, z.P, z.Q, name = "Y" }
  local bx = opts.block or 128
  local total = z.N * z.K * z.P * z.Q
  local r = g:launch(W.kernel(name), { grid = ceil_div(total, bx), block = bx, check = opts.check },
                     X, Wt, Y, z.N, z.C, z.H, z.W, z.K, z.R, z.S, z.pad, z.stride, z.P, z.Q)
  return Y, { direct = r, cycles = r.cycles }
end

-- Wt {K, C, R, S} reordered to Wr {R, S, C, K} on the host (the weights
-- are constant: a library reformats them once, when the plan is built, so
-- this is not part of any launch's time). A {K, C} matrix with R = S = 1
-- comes out as its transpose {C, K}.
function conv.filter_rsck(g, Wt)
  local K, C, R, S = Wt:shape()
  local v, out = Wt:to_table(), {}
  for k = 0, K - 1 do
    for c = 0, C - 1 do
      for rs = 0, R * S - 1 do
        out[(rs * C + c) * K + k + 1] = v[(k * C + c) * R * S + rs + 1]
      end
    end
  end
  return g:tensor{ R, S, C, K, init = out, name = "Wr" }
end

-- The implicit-GEMM kernels: pixels and filters per block tile, block.
local igemm_kernels = {
  conv_igemm    = { tm = 64, tk = 64, block = { 16, 16 } },  -- scalar, 4 x 4 per thread
  conv_igemm_v4 = { tm = 128, tk = 64, block = { 128 } },    -- 128-bit loads, 8 x 8 per thread
}
conv.igemm_default = "conv_igemm_v4"

-- The implicit-GEMM launch on a filter already in RSCK order (Wr from
-- conv.filter_rsck), z from conv.sizes; Y {N, K, P, Q}.
local function igemm_launch(g, X, Wr, Y, z, opts)
  local name = opts.kernel or conv.igemm_default
  local sh = assert(igemm_kernels[name], "conv: unknown implicit-GEMM kernel '" .. tostring(name)
                    .. "' (conv_igemm, conv_igemm_v4)")
  if not opts.kernel and W.kernel(name).nregs * 128 > g.desc.regs_per_sm then
    -- a small preset (edu-tiny: 16384 registers per SM) cannot hold one
    -- block of the default: the 64-register kernel instead
    name = "conv_igemm"
    sh = igemm_kernels[name]
  end
  local cfg = { grid = { ceil_div(z.N * z.P * z.Q, sh.tm), ceil_div(z.K, sh.tk) }, block = sh.block,
                check = opts.check, warm_caches = opts.warm_caches }
  return g:launch(W.kernel(name), cfg, X, Wr, Y, z.N, z.C, z.H, z.W, z.K, z.R, z.S,
                  z.pad, z.stride, z.P, z.Q)
end

-- Implicit GEMM: one launch, the im2col matrix never built.
-- opts.kernel: "conv_igemm_v4" (default: 128 x 64 tiles, 8 x 8 outputs per
-- thread, 128-bit shared loads; conv_igemm when its block does not fit the
-- preset's registers) or "conv_igemm" (64 x 64, 4 x 4, 32-bit loads,
-- within 64 registers). opts.Wr: the filter already reordered
-- (conv.filter_rsck), to reuse it.
function conv.igemm(g, X, Wt, opts)
  opts = opts or {}
  local z = conv.sizes(X, Wt, opts)
  local Wr = opts.Wr or conv.filter_rsck(g, Wt)
  local Y = g:tensor{ z.N, z.K, z.P, z.Q, name = "Y" }
  local r = igemm_launch(g, X, Wr, Y, z, opts)
  return Y, { igemm = r, cycles = r.cycles, Wr = Wr }
end

-- X unfolded into cols {C*R*S, N*P*Q} (the layout of simt.ref.im2col).
function conv.unfold(g, X, R, S, opts)
  opts = opts or {}
  local z = sizes_of(X, 1, R, S, opts)
  local rows, cols = z.C * R * S, z.N * z.P * z.Q
  -- opts.cols4: shape it {1, rows, 1, cols} (same memory order), the
  -- image view conv_igemm.s reads it through
  local O = opts.cols4 and g:tensor{ 1, rows, 1, cols, name = "cols" }
            or g:tensor{ rows, cols, name = "cols" }
  local r = g:launch(W.kernel("im2col"),
                     { grid = { ceil_div(cols, 64), ceil_div(rows, 4) }, block = { 64, 4 },
                       check = opts.check },
                     X, O, z.N, z.C, z.H, z.W, R, S, z.pad, z.stride, z.P, z.Q)
  return O, r
end

-- im2col + GEMM: Ymat {K, N*P*Q} = Wt {K, C*R*S} x cols, then reordered
-- on the host to {N, K, P, Q} (for N = 1 this is only a reshape).
-- opts.gemm: "rect" (default, matmul_rect.s, 16 x 16 tiles) or "igemm":
-- an implicit-GEMM kernel (opts.kernel, as conv.igemm) run as a plain GEMM
-- (a 1 x 1 filter over the cols matrix seen as one image of C*R*S channels
-- and N*P*Q pixels; conv_igemm's mainloop is matmul_reg64's, for any M, N,
-- K), so that explicit and implicit GEMM are compared with the same GEMM.
function conv.im2col(g, X, Wt, opts)
  opts = opts or {}
  local z = conv.sizes(X, Wt, opts)
  local gemm = opts.gemm or "rect"
  assert(gemm == "rect" or gemm == "igemm",
         "conv.im2col: unknown gemm '" .. tostring(gemm) .. "' (rect, igemm)")
  local cols, r1 = conv.unfold(g, X, z.R, z.S, { pad = z.pad, stride = z.stride,
                                                 cols4 = gemm == "igemm", check = opts.check })
  local npq = z.N * z.P * z.Q
  local r2, Ymat
  if gemm == "rect" then
    Ymat = g:tensor{ z.K, npq, name = "Ymat" }
    local Wm = Wt:reshape(z.K, z.C * z.R * z.S)
    r2 = W.matmul_rect(g, Wm, cols, Ymat, { check = opts.check })
  else
    local crs = z.C * z.R * z.S
    local Wr = opts.Wr or conv.filter_rsck(g, Wt:reshape(z.K, crs, 1, 1))
    local zg = { N = 1, C = crs, H = 1, W = npq, K = z.K, R = 1, S = 1, pad = 0, stride = 1,
                 P = 1, Q = npq }
    Ymat = g:tensor{ 1, z.K, 1, npq, name = "Ymat" } -- = {K, N*P*Q} in memory
    r2 = igemm_launch(g, cols, Wr, Ymat, zg, opts)
  end
  if opts.times_only then -- benchmarks: skip the host-side reorder
    return nil, { im2col = r1, gemm = r2, cols = cols, cycles = r1.cycles + r2.cycles }
  end
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
