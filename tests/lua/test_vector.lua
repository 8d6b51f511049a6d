-- test_vector.lua - vector loads and stores (ld/st .v2/.v4, isa.h) from
-- Lua: lessons/kernels/vecadd_v4.s against the host and against vecadd.s
-- (a quarter of the global requests for the same sectors), shared-memory
-- .v4 accesses and their wavefronts (tests/lua/kernels/smem_v4.s, which
-- also uses %r200..%r203), the same results on the CPU model, the kernel
-- checker on vector accesses, and the preset's register limit.
local T = require("expect")
local expect = T.expect

local k4 = simt.kernel("lessons/kernels/vecadd_v4.s")
local k1 = simt.kernel("lessons/kernels/vecadd.s")

local function inputs(dev, n)
  local a, b = {}, {}
  for i = 1, n do
    a[i] = (i * 37 % 101) * 0.25
    b[i] = (i * 53 % 97) - 40.5
  end
  return dev:tensor{ n, init = a }, dev:tensor{ n, init = b }, a, b
end

-- 1. vecadd_v4 gives exact sums, with 1/4 of vecadd's requests and the same sectors
local bx = 128
for _, arch in ipairs{ "edu-tiny", "h200" } do
  local g = simt.gpu(arch)
  for _, n in ipairs{ 4, 64, 1000, 4096 } do
    local A, B, a, b = inputs(g, n)
    local C4, C1 = g:tensor{ n }, g:tensor{ n }
    local r4 = g:launch(k4, { grid = (n + 4 * bx - 1) // (4 * bx), block = bx }, A, B, C4, n)
    local r1 = g:launch(k1, { grid = (n + bx - 1) // bx, block = bx }, A, B, C1, n)
    local c4 = C4:to_table()
    local bad = 0
    for i = 1, n do
      if c4[i] ~= a[i] + b[i] then bad = bad + 1 end
    end
    expect(bad == 0, string.format("%s vecadd_v4 n=%d: %d wrong sums", arch, n, bad))
    expect(r4.gld_bytes == 8 * n and r4.gst_bytes == 4 * n,
           string.format("%s vecadd_v4 n=%d: bytes %d / %d", arch, n, r4.gld_bytes, r4.gst_bytes))
    expect(r4.gld_sectors == r1.gld_sectors and r4.gst_sectors == r1.gst_sectors,
           string.format("%s n=%d: sectors v4 %d/%d, scalar %d/%d", arch, n, r4.gld_sectors,
                         r4.gst_sectors, r1.gld_sectors, r1.gst_sectors))
    if n % (32 * 4) == 0 then   -- whole warps: exactly a quarter
      expect(4 * r4.gld_requests == r1.gld_requests and 4 * r4.gst_requests == r1.gst_requests,
             string.format("%s n=%d: requests v4 %d/%d, scalar %d/%d", arch, n, r4.gld_requests,
                           r4.gst_requests, r1.gld_requests, r1.gst_requests))
    end
  end
end

-- 2. shared .v4: another thread's 16 bytes (4 + 4 wavefronts), or one
-- broadcast 16 bytes (the load takes 2: one bank cycle, but the data path
-- returns 128 bytes a cycle, packed 2x for equal addresses; lsu.h)
local ks = simt.kernel("tests/lua/kernels/smem_v4.s")
local g = simt.gpu("h200")
local want_wf = { [0] = 8, [1] = 6 }   -- broadcast .v4: 2 (the 128 B/cycle data path, lsu.h)
for _, mode in ipairs{ 0, 1 } do
  local out = g:tensor{ 4 * 32, dtype = "i32" }
  local r = g:launch(ks, { grid = 1, block = 32 }, out, 3, mode)
  local t = out:to_table()
  local bad = 0
  for th = 0, 31 do
    local src = mode == 0 and (th + 3) % 32 or 0
    for e = 0, 3 do
      if t[4 * th + e + 1] ~= 10 * src + e then bad = bad + 1 end
    end
  end
  expect(bad == 0, string.format("smem_v4 mode %d: %d wrong words", mode, bad))
  expect(r.smem_wavefronts == want_wf[mode],
         string.format("smem_v4 mode %d: %d wavefronts, want %d", mode, r.smem_wavefronts, want_wf[mode]))
  expect(r.sld_requests == 1 and r.sst_requests == 1, "smem_v4: one shared load and one store")
end

-- 3. the CPU model runs the same kernels to the same results
for _, name in ipairs{ "cpu-core", "cpu-server" } do
  local cpu = simt.cpu(name)
  local n = 1000
  local A, B, a, b = inputs(cpu, n)
  local C = cpu:tensor{ n }
  local r = cpu:launch(k4, { grid = (n + 4 * bx - 1) // (4 * bx), block = bx }, A, B, C, n)
  local c = C:to_table()
  local bad = 0
  for i = 1, n do
    if c[i] ~= a[i] + b[i] then bad = bad + 1 end
  end
  expect(bad == 0, string.format("%s vecadd_v4: %d wrong sums", name, bad))
  expect(r.gld_bytes == 8 * n, string.format("%s vecadd_v4: %d bytes loaded", name, r.gld_bytes))
  local out = cpu:tensor{ 4 * 32, dtype = "i32" }
  cpu:launch(ks, { grid = 1, block = 32 }, out, 5, 0)
  local t = out:to_table()
  expect(t[1] == 50 and t[4] == 53 and t[4 * 31 + 1] == 40,
         string.format("%s smem_v4: got %s %s %s", name, tostring(t[1]), tostring(t[4]), tostring(t[4 * 31 + 1])))
end

-- 4. the checker: vector accesses are checked byte by byte
do
  local A = g:tensor{ 16, name = "A" }     -- uninitialised
  local B, C = g:tensor{ 16, init = 1 }, g:tensor{ 16 }
  A:set(1, 1)                              -- element 0 only: bytes 4.. of lane 0's 16 are not
  local ok, msg = pcall(g.launch, g, k4, { grid = 1, block = 4 }, A, B, C, 16)
  expect(not ok and msg:find("read of uninitialised global memory in kernel 'vecadd_v4'", 1, true) and
         msg:find("byte 4 of 'A'", 1, true), "checker on a .v4 load: " .. tostring(msg))
  local out = g:tensor{ 4 * 32, dtype = "i32" }
  ok, msg = pcall(g.launch, g, simt.kernel("tests/lua/kernels/smem_v4_race.s"), { grid = 1, block = 64 }, out)
  expect(not ok and msg:find("race", 1, true), "checker on a .v4 shared race: " .. tostring(msg))
  ok = pcall(g.launch, g, ks, { grid = 1, block = 32 }, out, 1, 0)
  expect(ok, "the checker accepts smem_v4")
end

-- 5. the register limit is the preset's: smem_v4 needs 204 registers
do
  local small = simt.gpu{ arch = "h200", max_regs_per_thread = 128 }
  local out = small:tensor{ 4 * 32, dtype = "i32" }
  local ok, msg = pcall(small.launch, small, ks, { grid = 1, block = 32 }, out, 0, 0)
  expect(not ok and msg:find("kernel 'smem_v4' needs 204 registers per thread (%r0..%r203), more than the " ..
                             "128 a thread may have on h200 (max_regs_per_thread)", 1, true), tostring(msg))
  local cpu = simt.cpu{ arch = "cpu-core", max_regs_per_thread = 200 }
  out = cpu:tensor{ 4 * 32, dtype = "i32" }
  ok, msg = pcall(cpu.launch, cpu, ks, { grid = 1, block = 32 }, out, 0, 0)
  expect(not ok and msg:find("kernel 'smem_v4' needs 204 registers per thread (%r0..%r203), more than the " ..
                             "200 a thread may have on cpu-core (max_regs_per_thread)", 1, true), tostring(msg))
end

T.done("vector load/store")
print("vector loads and stores ok")
