-- test_demo_matmul.lua - the naive matmul kernel (lessons/kernels/matmul_naive.s)
-- against simt.ref.matmul at sizes that are and are not multiples of the block,
-- and the launch statistics that follow from the launch shape alone.

local k = simt.kernel("lessons/kernels/matmul_naive.s")
local BLOCK = 16

local function check(preset, n, seed)
  local g = simt.gpu{arch = preset}
  local A = g:tensor{n, n, init = "random", seed = seed}
  local B = g:tensor{n, n, init = "random", seed = seed + 1}
  local C = g:tensor{n, n, init = -99}          -- every element must be overwritten
  local nb = (n + BLOCK - 1) // BLOCK
  local r = g:launch(k, {grid = {nb, nb}, block = {BLOCK, BLOCK}}, A, B, C, n)
  local ok, err, bad = C:allclose(simt.ref.matmul(A, B), 1e-5, 1e-5)
  assert(ok, string.format("%s n=%d: max error %g at flat index %s", preset, n, err, tostring(bad)))
  -- facts that follow from the launch shape and the kernel's loop:
  assert(r.blocks == nb * nb, "blocks run")
  assert(r.threads == nb * nb * BLOCK * BLOCK, "threads launched")
  assert(r.flops == 2 * n * n * n, string.format("one fma (2 flops) per k per element: %d", r.flops))
  assert(r.gst_bytes == 4 * n * n, "one 4-byte store per element of C")
  assert(r.gld_bytes == 2 * 4 * n * n * n, "two 4-byte loads per k per element")
  assert(r.cycles > 0 and r.warp_instrs > 0, "something ran")
  local clock = g.desc.clock_mhz
  assert(math.abs(r.time_us - r.cycles / clock) < 1e-9 * r.time_us + 1e-12, "time = cycles / clock")
  assert(math.abs(r.ipc - r.warp_instrs / r.cycles) < 1e-12, "ipc = warp_instrs / cycles")
  assert(r.thread_instrs <= 32 * r.warp_instrs, "at most 32 active lanes per warp instruction")
  for _, why in ipairs{"memory", "dependency", "barrier", "pipe", "idle"} do
    assert(math.type(r.stalls[why]) == "integer", "stall count " .. why)
  end
  return r
end

for _, n in ipairs{1, 17, 64} do check("edu-tiny", n, n) end
check("h200", 17, 5)

-- deterministic: the same launch gives the same cycle count
local r1 = check("edu-tiny", 33, 9)
local r2 = check("edu-tiny", 33, 9)
assert(r1.cycles == r2.cycles and r1.warp_instrs == r2.warp_instrs, "same inputs, same cycles")

print("test_demo_matmul: all assertions passed")
