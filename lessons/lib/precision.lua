-- precision.lua - matrix multiply in a chosen number format on Tensor Cores,
-- and how far it lands from the exact answer.
--
--   (scripts find lessons/lib with require; the sandbox has no package.path)
--   local P = require("precision")
--   local r = P.matmul(g, "f16", 256)        -- r.rel_err, r.tflops, r.time_us
--   P.table(g, 256)                          -- the table a teacher shows
--
-- Every run uses the same inputs: A and B are n x n, uniform in [-1, 1)
-- (f32, fixed seeds), rounded to the format when copied into a tensor of
-- that dtype. The reference is simt.ref.matmul of the ORIGINAL f32 inputs,
-- accumulated in double (FP64) and rounded once to f32, so the relative
-- error counts both the rounding of the inputs and the f32 accumulation.
--
-- Relative error = ||C - R|| / ||R|| (Frobenius norms). What to expect:
-- rounding to nearest makes each input wrong by a relative amount uniform
-- in [-u, u], u = 2^-p (p = precision bits incl. the implicit 1); a product
-- has two such errors and the dot product's errors average out in the
-- same way as its values, so rel_err ~ u * sqrt(2/3):
--   f16, tf32 (p = 11) ~4e-4   bf16 (8) ~3e-3   e4m3 (4) ~5e-2   e5m2 (3) ~1e-1
-- and f32 (the FP32-lane kernel, p = 24) ~1e-7, limited by accumulation.

local P = {}

P.formats = { "f32", "tf32", "f16", "bf16", "e4m3", "e5m2" }
P.bits = { f32 = 32, tf32 = 19, f16 = 16, bf16 = 16, e4m3 = 8, e5m2 = 8 }
P.storage = { f32 = 4, tf32 = 4, f16 = 2, bf16 = 2, e4m3 = 1, e5m2 = 1 }  -- bytes per element
P.precision = { f32 = 24, tf32 = 11, f16 = 11, bf16 = 8, e4m3 = 4, e5m2 = 3 }

-- Expected relative error for inputs rounded to fmt (see the header).
function P.expected_error(fmt)
  return 2.0 ^ -P.precision[fmt] * math.sqrt(2 / 3)
end

-- ||C - R|| / ||R|| over all elements (C, R tensors of the same shape).
function P.rel_error(C, R)
  local c, r = C:to_table(), R:to_table()
  local num, den = 0.0, 0.0
  local function walk(x, y)
    for i = 1, #x do
      if type(x[i]) == "table" then
        walk(x[i], y[i])
      else
        local d = x[i] - y[i]
        num, den = num + d * d, den + y[i] * y[i]
      end
    end
  end
  walk(c, r)
  return math.sqrt(num / den)
end

local kernels = {}
local function kernel(name)
  if not kernels[name] then kernels[name] = simt.kernel("lessons/kernels/" .. name .. ".s") end
  return kernels[name]
end

-- The cluster shape {cx, cy} scripts/gen_tc_kernels.lua generates
-- tc_gemm_cluster_*.s for (a kernel launched with another shape faults:
-- its multicast masks name CTAs by rank).
P.cluster = { 1, 2 }
function P.cluster_shape() return P.cluster[1], P.cluster[2] end

-- Run C = A x B (n x n) with inputs in fmt. how = "tiled" (default),
-- "global", "2x2" (register-blocked, 64 x 64 block tiles, any n that is
-- a multiple of 4 bytes / element size) or "async" (tc_gemm_async: bulk
-- copies + wgmma from shared memory, 128 x 256 block tiles, n a multiple
-- of 256), "cluster" (tc_gemm_cluster: the same in thread-block clusters
-- that multicast shared tiles, P.cluster_shape) for the Tensor Core kernels; fmt "f32" runs the FP32-lane
-- kernel matmul_tiled16 instead. check = false turns the kernel checker off
-- (faster; default on). Returns the launch result with rel_err,
-- expected (P.expected_error), fmt, kernel, C and R (the reference) added.
-- inputs (optional): {A = host tensor, B = host tensor}, both n x n f32,
-- in place of the uniform ones (P.layer makes a layer's activations and
-- weights). how = "fast": tc_gemm_async_FMT for the Tensor Core formats and
-- the library-class sgemm_128x128 for "f32" (n a multiple of 256).
function P.matmul(g, fmt, n, how, check, inputs)
  how = how or "tiled"
  local A0 = inputs and inputs.A or simt.tensor{ n, n, init = "random", seed = 11, lo = -1, hi = 1 }
  local B0 = inputs and inputs.B or simt.tensor{ n, n, init = "random", seed = 12, lo = -1, hi = 1 }
  if how == "fast" then how = "async" end
  local A = g:tensor{ n, n, dtype = fmt }
  local B = g:tensor{ n, n, dtype = fmt }
  local C = g:tensor{ n, n }
  A:copy_from(A0)
  B:copy_from(B0)
  local name, launch
  if fmt == "f32" and how == "async" and inputs ~= nil and n % 128 == 0 then
    name = "sgemm_128x128"   -- the FP32-lane kernel a library would use
    launch = { grid = { n // 128, n // 128 }, block = { 256 } }
  elseif fmt == "f32" then
    name = "matmul_tiled16"
    launch = { grid = { (n + 15) // 16, (n + 15) // 16 }, block = { 16, 16 } }
  elseif how == "2x2" then
    if n % (4 // P.storage[fmt]) ~= 0 then
      error(("tc_matmul_2x2_%s needs n a multiple of %d (whole words per row), got %d"):format(
        fmt, 4 // P.storage[fmt], n), 2)
    end
    name = "tc_matmul_2x2_" .. fmt
    launch = { grid = { (n + 63) // 64, (n + 63) // 64 }, block = { 32, 4 } }
  elseif how == "async" then
    if n % 256 ~= 0 then
      error(("tc_gemm_async_%s needs n a multiple of 256 (128 x 256 block tiles), got %d"):format(fmt, n), 2)
    end
    name = "tc_gemm_async_" .. fmt
    launch = { grid = { n // 256, n // 128 }, block = { 1024 } }
  elseif how == "cluster" then
    local cx, cy = P.cluster_shape()
    local m = math.max(256 * cx, 128 * cy)
    if n % m ~= 0 then
      error(("tc_gemm_cluster_%s needs n a multiple of %d (%d x %d clusters of 128 x 256 block tiles), got %d"):format(
        fmt, m, cx, cy, n), 2)
    end
    name = "tc_gemm_cluster_" .. fmt
    launch = { grid = { n // 256, n // 128 }, block = { 1024 }, cluster = { cx, cy, 1 } }
  elseif how == "global" then
    name = "tc_matmul_global_" .. fmt
    launch = { grid = { n // 16, (n + 63) // 64 }, block = { 32, 4 } }
  else
    name = "tc_matmul_tiled_" .. fmt
    launch = { grid = { n // 32, n // 32 }, block = { 32, 4 } }
  end
  if check ~= nil then launch.check = check end
  local r
  if name == "sgemm_128x128" then
    r = g:launch(kernel(name), launch, A, B, C, n, n, n)
  else
    r = g:launch(kernel(name), launch, A, B, C, n)
  end
  r.fmt, r.kernel, r.C = fmt, name, C
  r.R = simt.ref.matmul(A0, B0)
  r.rel_err = P.rel_error(C, r.R)
  r.expected = P.expected_error(fmt)
  return r
end

-- Print format, bits, time, TFLOP/s and relative error for every format
-- (n x n matmul, Tensor Core kernels `how`); returns the results.
function P.table(g, n, how)
  local rows = {}
  print(("%-6s %5s %12s %9s %11s %11s  %s"):format("format", "bits", "time (us)", "TFLOP/s",
        "rel. error", "expected", "kernel"))
  for _, fmt in ipairs(P.formats) do
    local r = P.matmul(g, fmt, n, how)
    rows[#rows + 1] = r
    print(("%-6s %5d %12.2f %9.2f %11.2e %11.2e  %s"):format(fmt, P.bits[fmt], r.time_us,
          r.tflops, r.rel_err, r.expected, r.kernel))
  end
  return rows
end

-- FP16 overflows past 65504 where BF16 does not: store each value into a
-- one-element tensor of both dtypes and return what comes back, as rows
-- {value, f16, bf16}. (Used by lessons and tests.)
function P.overflow_demo(values)
  values = values or { 60000, 65504, 65520, 70000, 1e6 }
  local rows = {}
  for _, v in ipairs(values) do
    local h = simt.tensor{ 1, dtype = "f16" }
    local b = simt.tensor{ 1, dtype = "bf16" }
    h:set(1, v)
    b:set(1, v)
    rows[#rows + 1] = { v, h:get(1), b:get(1) }
  end
  return rows
end

-- Peak micro-benchmark: tc_peak_FMT on `blocks` blocks of 8 warps, iters
-- trips of 8 mma per warp. Returns the launch result with peak (the
-- preset's sms x tc_flops_per_clk x clock, TFLOP/s: the datasheet figure)
-- and ratio = tflops / peak, and sync_peak (the same with the warp-level
-- rate tc_sync_flops_per_clk, which wmma.mma issues at; = peak where that
-- is 0) and sync_ratio. On h200, ratio ~0.6: see arch/CALIBRATION.md.
function P.peak(g, fmt, blocks, iters)
  local d = g.desc
  blocks = blocks or d.sms
  local out = g:tensor{ blocks * 8 * 256 }
  local r = g:launch(kernel("tc_peak_" .. fmt), { grid = { blocks }, block = { 256 } }, out, iters or 64)
  local key = (fmt == "e4m3" or fmt == "e5m2") and "fp8" or fmt
  local rate = d["tc_flops_per_clk_" .. key]
  local sync = d["tc_sync_flops_per_clk_" .. key]
  if sync == 0 then sync = rate end
  r.peak = d.sms * rate * d.clock_mhz * 1e6 / 1e12
  r.ratio = r.tflops / r.peak
  r.sync_peak = d.sms * sync * d.clock_mhz * 1e6 / 1e12
  r.sync_ratio = r.tflops / r.sync_peak
  return r
end

-- A layer's inputs, n x n host tensors (f32), fixed seeds:
--   A  activations: ReLU of a standard normal (half the values 0, the rest
--      mostly 0 .. 3), as after a ReLU layer; opts.outliers = V puts values
--      near V in two feature columns (large outliers occur in the
--      activations of big language models; V past 65504 overflows FP16);
--   B  weights: normal with standard deviation 1 / sqrt(n) (the usual
--      initialisation, so outputs stay near 1).
-- Returns {A = ..., B = ...} for P.matmul's inputs. opts.seed (default 1).
function P.layer(n, opts)
  opts = opts or {}
  local s = (opts.seed or 1) * 7919 + 17
  local function u()   -- uniform in (0, 1), a 31-bit LCG
    s = (s * 1103515245 + 12345) % 2147483648
    return (s + 0.5) / 2147483648
  end
  local function normal() return math.sqrt(-2 * math.log(u())) * math.cos(2 * math.pi * u()) end
  local a, b = {}, {}
  local sd = 1 / math.sqrt(n)
  local o1, o2 = 7 % n, (n // 3) % n
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      local x = math.max(0, normal())
      if opts.outliers and (j == o1 or j == o2) then x = opts.outliers * (0.5 + u()) end
      a[i * n + j + 1] = x
      b[i * n + j + 1] = normal() * sd
    end
  end
  return { A = simt.tensor{ n, n, init = a }, B = simt.tensor{ n, n, init = b } }
end

-- The training update that a low-precision weight loses: w = 1.0 plus
-- `steps` updates of `delta`, stored after each step in dtype (a host
-- tensor of that format rounds every store). Returns the final weight.
function P.accumulate(dtype, delta, steps)
  local w = simt.tensor{ 1, dtype = dtype }
  w:set(1, 1.0)
  for _ = 1, steps do w:set(1, w:get(1) + delta) end
  return w:get(1)
end

return P
