-- test_cpu_order.lua - the honesty checks of the CPU-versus-GPU comparison
-- (lessons/lib/compare.lua): the same kernel on the same data,
-- time = kernel time + the device's launch_us (GPU: 3.2 us measured on an
-- H200; cpu-server: 2 us to wake its threads; cpu-core: 0).
--  1. tiny problems: the CPU wins or ties (the GPU's launch cost alone is
--     longer than the whole job on a CPU);
--  2. a larger matmul: the GPU wins, but by tens of times at most, not
--     thousands; one scalar core is the slowest by far;
--  3. every pair of results is bit-identical.
package.path = "lessons/lib/?.lua;" .. package.path
local compare = require("compare")

local core, server, h200 = simt.cpu("cpu-core"), simt.cpu("cpu-server"), simt.gpu{ arch = "h200" }

-- 1. tiny problems
-- (not matmul_tiled16 at n = 4: its 16 x 16 block runs 256 threads that all load
-- tiles, 16x the work of the 16 useful ones, and one scalar core then loses)
for _, t in ipairs{ { "vecadd", 32 }, { "matmul_naive", 4 }, { "conv2d_direct", 4 } } do
  for _, cpu in ipairs{ core, server } do
    local c = compare.run{ workload = t[1], n = t[2], cpu = cpu, gpu = h200, quiet = true }
    assert(c.identical, t[1] .. ": results differ")
    assert(c.faster ~= "gpu", string.format("%s n=%d: %s should win or tie, speed-up %.2f", t[1], t[2], cpu.name, c.speedup))
    -- the GPU's time includes its launch overhead
    assert(c.gpu.time_us >= h200.desc.launch_us and c.gpu.launch_us == 3.2)
  end
end

-- 2. a larger matmul (n = 256: 33.5 MFLOP, a few seconds to simulate)
local big = compare.run{ workload = "matmul_tiled16", n = 256, cpu = server, gpu = h200, quiet = true }
assert(big.identical, "n=256: results differ")
local ratio = big.cpu.kernel_us / big.gpu.kernel_us
print(string.format("matmul_tiled16 n=256: cpu-server %.1f GFLOP/s, h200 %.1f GFLOP/s (kernel times), h200/cpu-server %.2f",
                    big.cpu.kernel_gflops, big.gpu.kernel_gflops, ratio))
assert(ratio > 1 and ratio < 200, "h200 beats cpu-server on a large matmul, by less than 200x")
-- one scalar core on the same kernel (n = 128 keeps the test short; its
-- rate is flat in n: the data fits its L2, see test output)
local one = compare.run{ workload = "matmul_tiled16", n = 128, cpu = core, gpu = server, quiet = true }
assert(one.identical)
local core_gflops = one.cpu.kernel_gflops
print(string.format("cpu-core %.2f GFLOP/s; h200/cpu-core %.0f; cpu-server/cpu-core %.0f", core_gflops,
                    big.gpu.kernel_gflops / core_gflops, big.cpu.kernel_gflops / core_gflops))
assert(core_gflops < big.cpu.kernel_gflops / 50, "one scalar core is far slower than 64 SIMD cores")
assert(core_gflops < big.gpu.kernel_gflops / 100, "and slower still than the GPU")
-- the naive kernel on one core lands near the measured naive loop (1.48 GFLOP/s, Xeon core, n = 512)
local naive = compare.run{ workload = "matmul_naive", n = 64, cpu = core, gpu = server, quiet = true }
assert(naive.cpu.kernel_gflops > 1.48 / 1.5 and naive.cpu.kernel_gflops < 1.48 * 1.5,
       string.format("cpu-core naive matmul %.2f GFLOP/s vs measured 1.48", naive.cpu.kernel_gflops))
print(string.format("cpu-core naive matmul n=64: %.2f GFLOP/s (measured naive loop: 1.48)", naive.cpu.kernel_gflops))
print("test_cpu_order ok")
