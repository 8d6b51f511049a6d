-- DRAM traffic counts what a kernel reads and what it writes: vecadd of n
-- floats reads A and B and writes C, 12 bytes per element, once each
-- (C's write-back happens after the kernel and is counted, not timed).
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
print("dram traffic ok")
