-- test_async_gemm.lua - the asynchronous Tensor Core path (cp.async.bulk,
-- mbarriers, wgmma.mma_async from shared memory): results against the FP64
-- reference and against the warp-level kernel, misuse reports, and the
-- h200 performance shape (faster than tc_matmul_2x2 and the FP32 lanes,
-- near the Tensor Core rate per SM).
-- Run: simtlab run tests/lua/test_async_gemm.lua
local P = require("precision")

local T = require("expect")
local expect = T.expect

local fmts = { "f16", "bf16", "tf32", "e4m3", "e5m2" }

-- ---- results: every format, checker on ------------------------------------
do
  local g = simt.gpu{ arch = "h200", sms = 4 }
  for _, fmt in ipairs(fmts) do
    local r = P.matmul(g, fmt, 256, "async")
    expect(r.rel_err < 1.5 * r.expected and r.rel_err > 0.2 * r.expected,
      ("async %s n=256: relative error %.3g, expected ~%.3g"):format(fmt, r.rel_err, r.expected))
    if fmt == "f16" then
      -- element by element: an element the kernel skipped or mixed up is off by ~1
      local c, ref, bad = r.C:to_table(), r.R:to_table(), 0
      for i = 1, 256 * 256 do
        if not (math.abs(c[i] - ref[i]) < 0.1) then bad = bad + 1 end
      end
      expect(bad == 0, ("async f16 n=256: %d elements off by more than 0.1"):format(bad))
    end
  end
  -- wgmma adds the same products in the same order (k ascending, one
  -- rounding each) as the wmma kernels: bit-identical to tc_matmul_2x2
  for _, fmt in ipairs{ "f16", "tf32", "e4m3" } do
    local a, b = P.matmul(g, fmt, 256, "async"), P.matmul(g, fmt, 256, "2x2")
    local ta, tb = a.C:to_table(), b.C:to_table()
    local same = #ta == 256 * 256
    for i = 1, #ta do same = same and ta[i] == tb[i] end
    expect(same, fmt .. ": tc_gemm_async differs from tc_matmul_2x2 at n=256")
  end
  local ok, err = pcall(P.matmul, g, "f16", 200, "async")
  expect(not ok and tostring(err):find("multiple of 256", 1, true), "n=200 should be refused: " .. tostring(err))
end

-- ---- one wgmma by hand, and the misuse reports ------------------------------
do
  local g = simt.gpu{ arch = "h200", sms = 1 }
  local k = simt.kernel("tests/lua/kernels/async_misuse.s")
  local A = g:tensor{ 16, 32, dtype = "f16", init = "random", seed = 3 }
  local out = g:tensor{ 4 }
  local function run(mode)
    return pcall(g.launch, g, k, { grid = { 1 }, block = { 128 }, max_cycles = 100000 }, A, out, 64, mode)
  end
  -- mode 0: D[0][0] = sum_k A[0][k] * B[k][0], B's row k = A's row k (pitch 64
  -- bytes), so B[k][0] = A[k][0]; the products are exact, the sum in k order
  local ok, err = run(0)
  expect(ok, "async_misuse mode 0 should run: " .. tostring(err))
  local a = A:to_table()
  local want = 0.0
  for kk = 0, 15 do
    want = string.unpack("f", string.pack("f", want + a[1 + kk] * a[1 + kk * 32]))
  end
  for w, v in ipairs(out:to_table()) do
    expect(v == want, ("warp %d: wgmma gave %.9g, expected %.9g"):format(w - 1, v, want))
  end
  local cases = {
    { 1, "mbarrier not initialised" },
    { 2, "waits on an mbarrier phase that nothing can complete" },
    { 3, "read of uninitialised shared memory" },
    { 4, "inactive lanes" },
  }
  for _, c in ipairs(cases) do
    ok, err = run(c[1])
    expect(not ok and tostring(err):find(c[2], 1, true),
      ("async_misuse mode %d should report '%s', got %s"):format(c[1], c[2], tostring(err)))
  end
  -- a bulk copy past the end of its tensor
  ok, err = pcall(g.launch, g, k, { grid = { 1 }, block = { 128 } }, g:tensor{ 8, 32, dtype = "f16", init = "random", seed = 4 }, out, 64, 0)
  expect(not ok and tostring(err):find("out-of-bounds bulk copy source", 1, true),
    "a bulk copy past the tensor should be reported, got " .. tostring(err))
end

-- ---- a format the GPU has no Tensor Core for ------------------------------
do
  local g = simt.gpu{ arch = "h200", sms = 2, tc_flops_per_clk_fp8 = 0 }
  local ok, err = pcall(P.matmul, g, "e4m3", 256, "async")
  expect(not ok and tostring(err):find("no e4m3 Tensor Core", 1, true),
    "wgmma.e4m3 without FP8 Tensor Cores should fail at launch, got " .. tostring(err))
end

-- ---- h200 performance shape (4 SMs stand for the chip: per-SM rates) ------
do
  local g = simt.gpu{ arch = "h200", sms = 4 }
  local d = g.desc
  local function peak(fmt)
    local key = (fmt == "e4m3" or fmt == "e5m2") and "fp8" or fmt
    return d.sms * d["tc_flops_per_clk_" .. key] * d.clock_mhz * 1e6 / 1e12
  end
  -- n = 1024: 32 blocks on 4 SMs, long enough that filling and draining
  -- the pipeline of each block costs ~10%; wgmma's shared-memory reads
  -- (128 bytes per cycle at the full Tensor Core rate with N = 64) and the
  -- per-slice bar.sync cost the rest
  local r = P.matmul(g, "f16", 1024, "async", false)
  local ratio = r.tflops / peak("f16")
  expect(ratio > 0.7 and ratio < 1.0, ("async f16 n=1024 on 4 SMs: %.1f TF/s = %.0f%% of the Tensor Core peak %.1f"):format(
    r.tflops, 100 * ratio, peak("f16")))
  -- n = 512: faster than the warp-level kernel and far faster than FP32 lanes
  local async = P.matmul(g, "f16", 512, "async", false)
  local blk = P.matmul(g, "f16", 512, "2x2", false)
  expect(async.time_us * 3 < blk.time_us, ("async %.2f us vs 2x2 %.2f us at n=512: want >= 3x faster"):format(
    async.time_us, blk.time_us))
  local fp = P.matmul(g, "f32", 256, nil, false)
  local a256 = P.matmul(g, "f16", 256, "async", false)
  expect(a256.time_us * 20 < fp.time_us, ("async f16 %.2f us vs fp32 %.2f us at n=256: want >= 20x faster"):format(
    a256.time_us, fp.time_us))
  -- FP8 moves half the bytes per flop of FP16 at twice the rate, TF32 twice
  -- the bytes at half the rate: the ordering of the peaks
  local e4 = P.matmul(g, "e4m3", 512, "async", false)
  local tf = P.matmul(g, "tf32", 512, "async", false)
  expect(e4.tflops > 1.2 * async.tflops and tf.tflops < 0.8 * async.tflops,
    ("n=512 TF/s: e4m3 %.1f, f16 %.1f, tf32 %.1f: want e4m3 > f16 > tf32"):format(e4.tflops, async.tflops, tf.tflops))
end

T.done()
print("test_async_gemm: ok")
