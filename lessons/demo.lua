-- demo.lua - what `simtlab demo` runs: one matrix multiply on two simulated
-- GPUs, checked against the CPU, with a plain-language summary.
--
--   simtlab demo                      (n = 128)
--   simtlab run lessons/demo.lua 64   (choose the matrix size)

local n = tonumber(arg and arg[1]) or 128
local BLOCK = 16                       -- 16 x 16 = 256 threads per block

-- Prefer the shared-memory tiled kernel when it exists; else the naive one.
local kernel, how
do
  local ok, k = pcall(simt.kernel, "lessons/kernels/matmul_tiled16.s")
  if not ok and not tostring(k):find("not found", 1, true) then
    print("note: the tiled kernel did not assemble, using the naive one:\n  " .. tostring(k))
  end
  if ok and k.nparams == 4 then
    kernel = k
    how = "each block loads 16 x 16 tiles of A and B into shared memory and reuses them"
  else
    kernel = simt.kernel("lessons/kernels/matmul_naive.s")
    how = "each thread reads its row of A and its column of B from global memory"
  end
end

local function commas(x)
  local s = string.format("%d", x)
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

local function run_on(preset)
  local g = simt.gpu{arch = preset}
  local A = g:tensor{n, n, init = "random", seed = 1, name = "A"}
  local B = g:tensor{n, n, init = "random", seed = 2, name = "B"}
  local C = g:tensor{n, n, name = "C"}
  local blocks = (n + BLOCK - 1) // BLOCK
  local wall = os.clock()
  local r = g:launch(kernel, {grid = {blocks, blocks}, block = {BLOCK, BLOCK}}, A, B, C, n)
  wall = os.clock() - wall
  -- The CPU reference sums in double precision; the GPU in single precision
  -- in a possibly different order, so tiny differences are expected.
  local ok, maxerr = C:allclose(simt.ref.matmul(A, B), 1e-4, 1e-4)
  local d = g.desc
  print(string.format("GPU: %s (%s): %d SMs at %d MHz", d.name, d.vendor_name, d.sms,
                      math.floor(d.clock_mhz + 0.5)))
  print(string.format("  result correct?    %s (largest difference from the CPU: %.2g)",
                      ok and "yes" or "NO", maxerr))
  print(string.format("  blocks x threads:  %d blocks of %d threads = %s threads",
                      r.blocks, BLOCK * BLOCK, commas(r.threads)))
  print(string.format("  cycles:            %s", commas(r.cycles)))
  print(string.format("  simulated time:    %.1f us (cycles / %d MHz)", r.time_us,
                      math.floor(d.clock_mhz + 0.5)))
  print(string.format("  instructions:      %s warp instructions (%s thread instructions)",
                      commas(r.warp_instrs), commas(r.thread_instrs)))
  print(string.format("  speed:             %.3f TFLOP/s, %.2f warp instructions per cycle",
                      r.tflops, r.ipc))
  print(string.format("  occupancy:         up to %d warps fit on one SM (%.0f%% of its maximum; "
                      .. "limit: %s)", r.warps_per_sm, 100 * r.occupancy, r.occupancy_limit))
  print(string.format("  (the simulation took %.2f s of real time on this computer)", wall))
  print()
  if not ok then error("the GPU result does not match the CPU reference") end
  r.sms = d.sms
  r.clock_mhz = d.clock_mhz
  return r
end

print(string.format("simtlab demo: multiply two random %d x %d matrices, C = A x B", n, n))
print(string.format("kernel %s (%s): one thread per element of C;", kernel.name, kernel.file))
print(string.format("  %s.", how))
print(string.format("  That is %s multiply-adds, %s floating-point operations.",
                    commas(n * n * n), commas(2 * n * n * n)))
print()

local tiny = run_on("edu-tiny")
local big = run_on("h200")

local busy = math.min(big.blocks, big.sms)
print("What it means: the same kernel gave the same correct answer on both GPUs.")
print(string.format("The H200 finished %.0fx sooner in simulated time: it runs many more threads "
                    .. "at once", tiny.time_us / big.time_us))
print(string.format("(%d of its %d SMs had a block to work on, against 2 SMs on edu-tiny) and its "
                    .. "clock is %.1fx faster.", busy, big.sms, big.clock_mhz / tiny.clock_mhz))
if busy < big.sms then
  print(string.format("Try a bigger matrix (simtlab run lessons/demo.lua 256) to give all %d SMs "
                      .. "work.", big.sms))
end
