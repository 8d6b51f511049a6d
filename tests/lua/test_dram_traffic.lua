-- DRAM traffic counts what a kernel reads and what it writes: vecadd of n
-- floats reads A and B and writes C, 12 bytes per element, once each
-- (C's write-back at the end is counted and timed: memsys.h).
for _, arch in ipairs({ "edu-tiny", "h200" }) do
  local g = simt.gpu{ arch = arch }
  local n = 8192
  local A = g:tensor{ n, init = "random", seed = 1 }
  local B = g:tensor{ n, init = "random", seed = 2 }
  local C = g:tensor{ n }
  local k = simt.kernel("lessons/kernels/vecadd.s")
  local r = g:launch(k, { grid = { n // 256 }, block = { 256 } }, A, B, C, n)
  assert(r.dram_bytes == 12 * n, arch .. ": dram_bytes " .. r.dram_bytes .. ", expected " .. 12 * n)
  assert(r.gld_bytes == 8 * n and r.gst_bytes == 4 * n, arch .. ": requested bytes")
  -- a second launch with warm caches finds A and B in L2 (edu-tiny's L2 is
  -- 128 KB, the inputs 64 KB) and writes C back again
  local w = g:launch(k, { grid = { n // 256 }, block = { 256 }, warm_caches = true }, A, B, C, n)
  if arch == "edu-tiny" then
    assert(w.dram_bytes == 4 * n, arch .. ": warm dram_bytes " .. w.dram_bytes)
    assert(w.cycles < r.cycles, "warm caches must be faster")
  end
end

-- The end-of-launch write-back takes DRAM time: a store-heavy kernel never
-- reports more than the usable DRAM bandwidth (dram_gbps x dram_efficiency,
-- less the share of time refresh blocks a channel: dram.h), even on a slow
-- memory whose write-back cannot hide in the kernel's idle time.
for _, gbps in ipairs({ 291, 4800 }) do
  local g = simt.gpu{ arch = "h200", dram_gbps = gbps }
  local d = g.desc
  local usable = gbps * d.dram_efficiency
  if d.dram_trefi_ns > 0 then usable = usable * (1 - d.dram_refresh_ns / d.dram_trefi_ns) end
  local n = 1 << 18
  local A = g:tensor{ n, init = "random", seed = 1 }
  local B = g:tensor{ n, init = "random", seed = 2 }
  local C = g:tensor{ n }
  local r = g:launch(simt.kernel("lessons/kernels/vecadd.s"), { grid = n // 256, block = 256 }, A, B, C, n)
  assert(r.dram_bytes == 12 * n, "write-back: dram_bytes " .. r.dram_bytes)
  assert(r.dram_gbs <= usable * 1.001,
         string.format("dram_gbps %d: %.1f GB/s reported, usable %.1f", gbps, r.dram_gbs, usable))
  if gbps == 291 then   -- DRAM bound: at the usable peak, not far below
    assert(r.dram_gbs > usable * 0.97, string.format("%.1f GB/s of %.1f", r.dram_gbs, usable))
  end
  print(string.format("dram_gbps %d: %.1f GB/s reported, usable %.1f", gbps, r.dram_gbs, usable))
end

-- warm = {tensors}: those tensors start in L2 (clean), as after a
-- framework's warm-up run; the inputs cost no DRAM reads, only C's
-- write-back remains, and their sectors are L2 hits.
do
  local g = simt.gpu{ arch = "h200" }
  local n = 1 << 16
  local A = g:tensor{ n, init = "random", seed = 1 }
  local B = g:tensor{ n, init = "random", seed = 2 }
  local C = g:tensor{ n }
  local k = simt.kernel("lessons/kernels/vecadd.s")
  local cfg = { grid = n // 256, block = 256 }
  local cold = g:launch(k, cfg, A, B, C, n)
  cfg.warm = { A, B }
  local warm = g:launch(k, cfg, A, B, C, n)
  assert(cold.dram_bytes == 12 * n, "cold dram_bytes " .. cold.dram_bytes)
  assert(warm.dram_bytes == 4 * n, "warm dram_bytes " .. warm.dram_bytes)
  assert(cold.l2_hit_rate == 0 and warm.l2_hit_rate > 0.6,
         string.format("L2 hit rate cold %.2f, warm %.2f", cold.l2_hit_rate, warm.l2_hit_rate))
  assert(warm.cycles < cold.cycles, "warm must be faster")
  cfg.warm = A   -- one tensor alone
  local a = g:launch(k, cfg, A, B, C, n)
  assert(a.dram_bytes == 8 * n, "warm A dram_bytes " .. a.dram_bytes)
  -- bad values are named
  local ok, msg = pcall(g.launch, g, k, { grid = 1, block = 32, warm = 3 }, A, B, C, 32)
  assert(not ok and msg:find("warm must be a device tensor"), msg)
  local h = simt.gpu{ arch = "h200" }
  local X = h:tensor{ 32 }
  ok, msg = pcall(g.launch, g, k, { grid = 1, block = 32, warm = { A, X } }, A, B, C, 32)
  assert(not ok and msg:find("warm%[2%]"), msg)
  ok, msg = pcall(g.launch, g, k, { grid = 1, block = 32, warmm = { A } }, A, B, C, 32)
  assert(not ok and msg:find("did you mean 'warm'"), msg)
end
print("dram traffic ok")
