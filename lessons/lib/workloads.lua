-- workloads.lua - run the lesson kernels (lessons/kernels/*.s) on a
-- simulated GPU and check them against simt.ref, in one call each.
--
--   (scripts find lessons/lib with require; the sandbox has no package.path)
--   local W = require("workloads")
--   local r, err = W.matmul(g, "matmul_tiled16", 64)   -- r.cycles, r.ok ...
--
-- Every runner allocates its inputs with a fixed seed (deterministic),
-- launches with the shape the kernel's header asks for, and returns the
-- launch's result table (see g:launch) with extra fields:
--   r.ok       true when the output matches the reference
--   r.max_err  largest absolute difference from the reference
--   r.out      the output tensor (device), plus the inputs (r.A, r.B ...)
-- and r.max_err as a second value. Runners never raise on a wrong answer
-- (a lesson may want to show one); they raise on bad arguments.

local W = {}

local kernels = {} -- name -> assembled kernel (assemble each file once)

-- The assembled kernel lessons/kernels/NAME.s (cached).
function W.kernel(name)
  if not kernels[name] then
    kernels[name] = simt.kernel("lessons/kernels/" .. name .. ".s")
  end
  return kernels[name]
end

local function ceil_div(a, b) return (a + b - 1) // b end

-- Launch shapes of the square matmul kernels, from their headers.
local matmul_shapes = {
  matmul_naive   = { block = { 16, 16 }, tile = 16 },
  matmul_naive_T = { block = { 16, 16 }, tile = 16 },
  matmul_tiled16 = { block = { 16, 16 }, tile = 16 },
  matmul_tiled32 = { block = { 32, 8 }, tile = 32 },
  matmul_reg64   = { block = { 16, 16 }, tile = 64 },
  -- the same CUDA sources as nvcc -O3 compiles them (headers say how)
  matmul_naive_cc   = { block = { 16, 16 }, tile = 16 },
  matmul_tiled16_cc = { block = { 16, 16 }, tile = 16 },
  matmul_tiled32_cc = { block = { 32, 32 }, tile = 32 },
  -- a library-class SGEMM: 128 x 128 tiles, 8 x 8 per thread, 128-bit
  -- loads; params A, B, C, M, N, K (n a multiple of 8 here)
  sgemm_128x128     = { block = { 256 }, tile = 128, mnk = true },
}

-- The names W.matmul accepts, sorted.
function W.matmul_kernels()
  local t = {}
  for k in pairs(matmul_shapes) do t[#t + 1] = k end
  table.sort(t)
  return t
end

-- Tolerance for an f32 dot product of length k against the double
-- reference: rounding grows with k; a real bug gives errors near 1.
local function dot_tol(k) return 1e-4, 2e-6 * k + 1e-6 end

local function merge(dst, src)
  for k, v in pairs(src or {}) do dst[k] = v end
  return dst
end

-- Check out (device tensor) against ref; fill r.ok and r.max_err.
local function check(r, out, ref, rtol, atol)
  local ok, maxerr = out:allclose(ref, rtol, atol)
  r.ok, r.max_err = ok, maxerr
  return r, maxerr
end

-- W.matmul(g, kernel_name, n, opts) -> r, max_err
-- n x n random A and B (values in [-1, 1), seeds opts.seed and seed + 1,
-- default 1), C = A x B with the named kernel, compared to simt.ref.matmul.
-- opts: seed, check (default true), warm_caches, max_cycles.
-- "matmul_rect" also works here (M = N = K = n).
function W.matmul(g, name, n, opts)
  opts = opts or {}
  assert(math.type(n) == "integer" and n >= 1, "matmul: n must be an integer >= 1")
  local shape = matmul_shapes[name]
  if not shape and name ~= "matmul_rect" then
    error("matmul: unknown kernel '" .. tostring(name) .. "' (kernels: "
          .. table.concat(W.matmul_kernels(), ", ") .. ", matmul_rect)", 2)
  end
  local seed = opts.seed or 1
  local A = g:tensor{ n, n, init = "random", seed = seed, name = "A" }
  local B = g:tensor{ n, n, init = "random", seed = seed + 1, name = "B" }
  local C = g:tensor{ n, n, name = "C" }
  local cfg = { warm_caches = opts.warm_caches, max_cycles = opts.max_cycles }
  local r
  if name == "matmul_rect" then
    cfg.grid, cfg.block = { ceil_div(n, 16), ceil_div(n, 16) }, { 16, 16 }
    r = g:launch(W.kernel(name), cfg, A, B, C, n, n, n)
  else
    local t = shape.tile
    cfg.grid, cfg.block = { ceil_div(n, t), ceil_div(n, t) }, shape.block
    if shape.mnk then
      if n % 8 ~= 0 then error("matmul: " .. name .. " needs n a multiple of 8 (128-bit loads), got " .. n, 2) end
      r = g:launch(W.kernel(name), cfg, A, B, C, n, n, n)
    else
      r = g:launch(W.kernel(name), cfg, A, B, C, n)
    end
  end
  r.A, r.B, r.out, r.kernel = A, B, C, name
  if opts.check == false then return r, nil end
  return check(r, C, simt.ref.matmul(A, B), dot_tol(n))
end

-- W.matmul_rect(g, A, B, C) -> launch result: C = A x B for device
-- tensors A {M, K}, B {K, N}, C {M, N} with matmul_rect.s (no check).
function W.matmul_rect(g, A, B, C, opts)
  local M, K = A:shape()
  local K2, N = B:shape()
  local M3, N3 = C:shape()
  assert(K == K2 and M == M3 and N == N3, "matmul_rect: shapes do not fit")
  local cfg = merge({ grid = { ceil_div(N, 16), ceil_div(M, 16) }, block = { 16, 16 } }, opts)
  return g:launch(W.kernel("matmul_rect"), cfg, A, B, C, M, N, K)
end

-- W.vecadd(g, n, opts) -> r, max_err. opts: block (default 128), seed.
function W.vecadd(g, n, opts)
  opts = opts or {}
  local bx, seed = opts.block or 128, opts.seed or 1
  local A = g:tensor{ n, init = "random", seed = seed, name = "A" }
  local B = g:tensor{ n, init = "random", seed = seed + 1, name = "B" }
  local C = g:tensor{ n, name = "C" }
  local r = g:launch(W.kernel("vecadd"), { grid = ceil_div(n, bx), block = bx }, A, B, C, n)
  r.A, r.B, r.out = A, B, C
  -- one f32 addition, rounded once: the reference (double, rounded) is exact
  return check(r, C, simt.ref.add(A, B), 0, 0)
end

-- W.reduce(g, A, opts) -> total, r1, r2: the sum of device tensor A.
-- opts.atomic: use reduce_atomic.s (one launch, r2 = nil); otherwise
-- reduce_sum.s twice (blocks -> partials, then one block -> total).
-- opts.block: threads per block (power of two, default 128);
-- opts.blocks: blocks in the first launch (default ceil(n / block), at
-- most opts.block so that the second launch's one block covers them).
function W.reduce(g, A, opts)
  opts = opts or {}
  local n, bx = #A, opts.block or 128
  local gx = opts.blocks or math.min(ceil_div(n, bx), bx)
  if opts.atomic then
    local out = g:tensor{ 1, name = "sum", init = "zeros" }
    local r = g:launch(W.kernel("reduce_atomic"), { grid = gx, block = bx }, A, out, n)
    return out:get(1), r, nil
  end
  local partial = g:tensor{ gx, name = "partial" }
  local total = g:tensor{ 1, name = "sum" }
  local r1 = g:launch(W.kernel("reduce_sum"), { grid = gx, block = bx }, A, partial, n)
  local r2 = g:launch(W.kernel("reduce_sum"), { grid = 1, block = bx }, partial, total, gx)
  return total:get(1), r1, r2
end

-- W.branchy(g, P, opts) -> r, bad: branchy.s with P paths over n threads
-- (opts.n default 256, opts.iters default 64, opts.block default 128);
-- bad = number of wrong outputs (out[i] must be iters * (laneid % P + 1),
-- paths above 7 folded into 7, laneid = i % 32 for 1-D blocks of
-- multiples of 32).
function W.branchy(g, P, opts)
  opts = opts or {}
  local n, iters, bx = opts.n or 256, opts.iters or 64, opts.block or 128
  local out = g:tensor{ n, name = "out" }
  local r = g:launch(W.kernel("branchy"), { grid = ceil_div(n, bx), block = bx },
                     out, iters, P, n)
  local v, bad = out:to_table(), 0
  for i = 1, n do
    local lane = ((i - 1) % bx) % 32
    local path = math.min(lane % P, 7)
    if v[i] ~= iters * (path + 1) then bad = bad + 1 end
  end
  r.out, r.ok = out, bad == 0
  return r, bad
end

-- Collatz step count of x (the reference for collatz.s).
function W.collatz_steps(x, limit)
  local steps = 0
  while x > 1 and steps < limit do
    if x % 2 == 0 then x = x // 2 else x = 3 * x + 1 end
    steps = steps + 1
  end
  return steps
end

-- W.collatz(g, n, opts) -> r, bad: collatz.s from opts.start (default 1),
-- opts.limit (default 1000), opts.block (default 128).
function W.collatz(g, n, opts)
  opts = opts or {}
  local start, limit, bx = opts.start or 1, opts.limit or 1000, opts.block or 128
  local out = g:tensor{ n, dtype = "i32", name = "steps" }
  local r = g:launch(W.kernel("collatz"), { grid = ceil_div(n, bx), block = bx },
                     out, start, limit, n)
  local v, bad = out:to_table(), 0
  for i = 1, n do
    if v[i] ~= W.collatz_steps(start + i - 1, limit) then bad = bad + 1 end
  end
  r.out, r.ok = out, bad == 0
  return r, bad
end

return W
