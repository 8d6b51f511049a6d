-- test_cpu_barrier_mismatch.lua - the CPU model refuses a kernel whose
-- warps wait at different barriers, as the GPU does (issue 13, class 8),
-- and still runs one whose threads all reach the same barrier.
local bad = simt.kernel("tests/lua/kernels/two_barriers.s")
local function refused(dev, want)
  local out = dev:tensor{ 64, dtype = "i32" }
  local ok, err = pcall(dev.launch, dev, bad, { grid = 2, block = 64 }, out)
  assert(not ok, tostring(dev) .. " ran a kernel with mismatched barriers")
  assert(err:find(want, 1, true), err)
  return err
end
refused(simt.gpu("edu-tiny"), "warps of a block wait at different barriers")
for _, name in ipairs({ "cpu-core", "cpu-server" }) do
  local err = refused(simt.cpu(name), "warps of a block wait at different barriers in kernel 'two_barriers' on CPU '" .. name .. "'")
  assert(err:find("bar.sync of tests/lua/kernels/two_barriers.s:13 and at the one of line 10", 1, true), err)
end
-- every thread at one barrier: fine on the CPU, same result as the GPU
local W = require("workloads")
local r = W.matmul(simt.cpu("cpu-core"), "matmul_tiled16", 32)
assert(r.ok, "tiled matmul (bar.sync in a loop) fails on the CPU")
print("cpu barrier mismatch ok")
