-- test_cluster_gemm.lua - tc_gemm_cluster (tc_gemm_async in thread-block
-- clusters that multicast the tiles they share): results against the FP64
-- reference and bit for bit against tc_gemm_async, the L2 traffic it
-- saves, and the reports of launching it wrongly.
-- Run: simtlab run tests/lua/test_cluster_gemm.lua
local P = require("precision")

local T = require("expect")
local expect = T.expect

local fmts = { "f16", "bf16", "tf32", "e4m3", "e5m2" }
local cx, cy = P.cluster_shape()
local n0 = math.max(256 * cx, 128 * cy)   -- the smallest n the cluster tiles

-- ---- results: every format, checker on, vs reference and vs tc_gemm_async --
do
  local g = simt.gpu{ arch = "h200", sms = 4 }
  for _, fmt in ipairs(fmts) do
    local c = P.matmul(g, fmt, n0, "cluster")
    expect(c.rel_err < 1.5 * c.expected and c.rel_err > 0.2 * c.expected,
      ("cluster %s n=%d: relative error %.3g, expected ~%.3g"):format(fmt, n0, c.rel_err, c.expected))
    -- the same products in the same order as tc_gemm_async: bit-identical
    local a = P.matmul(g, fmt, n0, "async")
    local ta, tc = a.C:to_table(), c.C:to_table()
    local same = #ta == n0 * n0 and #tc == #ta
    for i = 1, #ta do same = same and ta[i] == tc[i] end
    expect(same, fmt .. ": tc_gemm_cluster differs from tc_gemm_async at n=" .. n0)
  end
end

-- ---- L2 traffic: the shared operand is read once per cluster --------------
-- Every sector the kernels move through L2 is one of: A (each CTA reads
-- 128 rows x n), B (n rows x 256 columns) or C (128 x 256 f32 stores).
-- In a cx x cy cluster, A is read once per cluster row and B once per
-- cluster column; a 1 x 2 cluster halves B and leaves A as it was.
do
  local g = simt.gpu{ arch = "h200", sms = 8 }
  for _, fmt in ipairs{ "f16", "e4m3" } do
    local n = 2 * n0
    local a = P.matmul(g, fmt, n, "async", false)
    local c = P.matmul(g, fmt, n, "cluster", false)
    local eb = P.storage[fmt]
    local ctas = (n // 256) * (n // 128)
    local a_sec = ctas * 128 * n * eb // 32          -- A, every CTA
    local b_sec = ctas * n * 256 * eb // 32          -- B, every CTA
    local c_sec = ctas * 128 * 256 * 4 // 32         -- C stores
    local sa, sc = a.l2_hits + a.l2_misses, c.l2_hits + c.l2_misses
    expect(sa == a_sec + b_sec + c_sec, ("%s async: %d L2 sectors, expected %d"):format(fmt, sa, a_sec + b_sec + c_sec))
    local want = a_sec // cx + b_sec // cy + c_sec
    expect(sc == want, ("%s cluster: %d L2 sectors, expected %d (A/%d + B/%d + C)"):format(fmt, sc, want, cx, cy))
    -- the shared operand's share: half of what tc_gemm_async reads
    local shared_async = cy > 1 and b_sec or a_sec
    local shared_cluster = sc - c_sec - (cy > 1 and a_sec // cx or b_sec // cy)
    expect(shared_cluster * 2 == shared_async,
      ("%s: the shared operand took %d L2 sectors in clusters, %d without"):format(fmt, shared_cluster, shared_async))
    expect(c.gld_bytes * 3 <= a.gld_bytes * 2 + 16, ("%s: bulk-copied bytes %d with clusters vs %d without"):format(
      fmt, c.gld_bytes, a.gld_bytes))
  end
end

-- ---- where L2 bandwidth is the limit, sharing tiles pays ---------------------
-- 8 SMs with 8/132 of h200's L2 bandwidth stand for the whole chip: each
-- SM gets the L2 share it has on the real one.
do
  local g = simt.gpu{ arch = "h200", sms = 8, l2_bytes_per_clk = 5120 * 8 / 132 }
  local a = P.matmul(g, "f16", 1024, "async", false)
  local c = P.matmul(g, "f16", 1024, "cluster", false)
  local l2a = (a.l2_hits + a.l2_misses) * 32 / g.desc.l2_bytes_per_clk / a.cycles
  expect(l2a > 0.85, ("async f16 n=1024 on 8 SMs: L2 busy %.0f%% of the run, expected the limit"):format(100 * l2a))
  expect(c.tflops > 1.1 * a.tflops, ("cluster %.1f TF/s vs async %.1f TF/s: want > 1.1x where L2 is the limit"):format(
    c.tflops, a.tflops))
end

-- ---- deterministic: the same launch twice, same cycles -----------------------
do
  local g = simt.gpu{ arch = "h200", sms = 8 }
  local n = 2 * n0
  local A = g:tensor{ n, n, dtype = "bf16", init = "random", seed = 1 }
  local B = g:tensor{ n, n, dtype = "bf16", init = "random", seed = 2 }
  local C = g:tensor{ n, n }
  local k = simt.kernel("lessons/kernels/tc_gemm_cluster_bf16.s")
  local cfg = { grid = { n // 256, n // 128 }, block = { 1024 }, cluster = { cx, cy, 1 }, check = false }
  local r1 = g:launch(k, cfg, A, B, C, n)
  local r2 = g:launch(k, cfg, A, B, C, n)
  expect(r1.cycles == r2.cycles and r1.l2_hits == r2.l2_hits,
    ("cluster bf16: cycles %d then %d"):format(r1.cycles, r2.cycles))
end

-- ---- launching it wrongly ---------------------------------------------------
do
  local g = simt.gpu{ arch = "h200", sms = 4 }
  local k = simt.kernel("lessons/kernels/tc_gemm_cluster_f16.s")
  local n = n0
  local A = g:tensor{ n, n, dtype = "f16", init = "random", seed = 1 }
  local B = g:tensor{ n, n, dtype = "f16", init = "random", seed = 2 }
  local C = g:tensor{ n, n }
  -- without a cluster launch: its multicast names ranks beyond a cluster of one
  local ok, err = pcall(g.launch, g, k, { grid = { n // 256, n // 128 }, block = { 1024 } }, A, B, C, n)
  expect(not ok and tostring(err):find("names a CTA outside the cluster", 1, true)
    and tostring(err):find("tc_gemm_cluster_f16", 1, true),
    "tc_gemm_cluster without cluster = {...} should fault, got " .. tostring(err))
  -- a grid that is not a multiple of the cluster
  ok, err = pcall(g.launch, g, k, { grid = { 1, 3 }, block = { 1024 }, cluster = { cx, cy, 1 } }, A, B, C, n)
  expect(not ok and tostring(err):find("not a multiple of the cluster", 1, true),
    "a grid of {1, 3} should be refused, got " .. tostring(err))
  -- bad launch keys and shapes
  ok, err = pcall(g.launch, g, k, { grid = { 1, 2 }, block = { 1024 }, cluster = { 0, 2 } }, A, B, C, n)
  expect(not ok and tostring(err):find("cluster[1] must be a positive integer", 1, true),
    "cluster = {0, 2} should be refused, got " .. tostring(err))
  ok, err = pcall(g.launch, g, k, { grid = { 1, 2 }, block = { 1024 }, clustr = { 1, 2 } }, A, B, C, n)
  expect(not ok and tostring(err):find("did you mean 'cluster'", 1, true),
    "a misspelt cluster key should be named, got " .. tostring(err))
  -- a GPU without clusters
  local a100 = simt.gpu{ arch = "a100", sms = 4 }
  ok, err = pcall(a100.launch, a100, simt.kernel("lessons/kernels/vecadd.s"),
    { grid = { 2 }, block = { 32 }, cluster = { 2 } }, a100:tensor{ 64 }, a100:tensor{ 64 }, a100:tensor{ 64 }, 64)
  expect(not ok and tostring(err):find("a100 has no thread-block clusters", 1, true),
    "a cluster launch on a100 should be refused, got " .. tostring(err))
  expect(g.desc.max_cluster_size == 8 and a100.desc.max_cluster_size == 1,
    "max_cluster_size: h200 8, a100 1")
end

T.done()
print("test_cluster_gemm: ok")
