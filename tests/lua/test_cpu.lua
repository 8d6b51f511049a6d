-- test_cpu.lua - simt.cpu: presets, overrides, results bit-identical to
-- the GPU's for the matmul and conv kernels, barriers, determinism.
local W = require("workloads")
local conv = require("conv")

local function fails(part, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error containing: " .. part)
  assert(tostring(err):find(part, 1, true), "expected '" .. part .. "' in: " .. tostring(err))
end

local same = require("expect").same

-- presets and overrides
local core, server = simt.cpu("cpu-core"), simt.cpu{ arch = "cpu-server" }
assert(core.kind == "cpu" and core.desc.cores == 1 and core.desc.simd_width == 1)
assert(server.desc.cores == 64 and server.desc.simd_width == 16 and server.desc.clock_mhz == 3750)
local def = simt.cpu() -- cpu_desc_default must equal arch/cpu-core.lua
for k, v in pairs(core.desc) do
  assert(def.desc[k] == v, "cpu_desc_default differs from arch/cpu-core.lua in " .. k)
end
local small = simt.cpu{ arch = "cpu-server", cores = 4, simd = 8, clock_mhz = 2000 }
assert(small.desc.cores == 4 and small.desc.simd_width == 8 and small.desc.clock_mhz == 2000)
fails("unknown CPU field 'coers' (did you mean 'cores'?)", simt.cpu, { arch = "cpu-core", coers = 2 })
fails("'simd_width' = 3 must divide 32", simt.cpu, { simd = 3 })
fails("is not a CPU", simt.cpu, "h200")
fails("unknown CPU preset 'nope'", simt.cpu, "nope")

-- bit-identical results: same kernel, same data, CPU and GPU
local devices = { core, server, small, simt.gpu{ arch = "edu-tiny" }, simt.gpu{ arch = "h200" } }
for _, k in ipairs{ "matmul_naive", "matmul_tiled16", "matmul_tiled32" } do
  for _, n in ipairs{ 17, 40 } do
    local ref, flops
    for _, dev in ipairs(devices) do
      local r = W.matmul(dev, k, n)
      assert(r.ok, k .. " n=" .. n .. " wrong on " .. dev.name)
      -- the same instructions run everywhere (tiled kernels also multiply their zero padding)
      assert(k ~= "matmul_naive" or r.flops == 2 * n * n * n, "flops counted on " .. dev.name)
      assert(not flops or r.flops == flops, "same flop count on " .. dev.name)
      if ref then assert(same(r.out, ref), k .. " n=" .. n .. ": " .. dev.name .. " differs from the first device") end
      ref, flops = ref or r.out, flops or r.flops
    end
  end
end
for _, shape in ipairs{ { N = 1, C = 3, H = 12, K = 4, R = 3, pad = 1 }, { N = 2, C = 2, H = 9, K = 3, R = 5, pad = 0 } } do
  local ref
  for _, dev in ipairs(devices) do
    local X = dev:tensor{ shape.N, shape.C, shape.H, shape.H, init = "random", seed = 5 }
    local Wt = dev:tensor{ shape.K, shape.C, shape.R, shape.R, init = "random", seed = 6 }
    local Y = conv.direct(dev, X, Wt, { pad = shape.pad })
    assert(conv.check(Y, X, Wt, { pad = shape.pad }), "conv wrong on " .. dev.name)
    if ref then assert(same(Y, ref), "conv2d_direct: " .. dev.name .. " differs") end
    ref = ref or Y
  end
end

-- barriers: block_reverse on every width (n not a multiple of the block)
for _, dev in ipairs{ core, server, small } do
  local n, bx = 300, 128
  local A = dev:tensor{ n, init = "random", seed = 3 }
  local B = dev:tensor{ n }
  dev:launch(W.kernel("block_reverse"), { grid = (n + bx - 1) // bx, block = bx }, A, B, n)
  local a, b = A:to_table(), B:to_table()
  for i = 0, n - 1 do
    local first = i // bx * bx
    local m = math.min(bx, n - first)
    local j = first + (m - 1 - (i - first))
    assert(b[i + 1] == a[j + 1], "block_reverse wrong at " .. i .. " on " .. dev.name)
  end
end

-- determinism, and a tensor of another device is refused
-- (two fresh CPUs: the same addresses, so the same cache behaviour)
local r1 = W.matmul(simt.cpu("cpu-server"), "matmul_tiled16", 48)
local r2 = W.matmul(simt.cpu("cpu-server"), "matmul_tiled16", 48)
assert(r1.cycles == r2.cycles and r1.l1_misses == r2.l1_misses and r1.dram_bytes == r2.dram_bytes)
assert(r1.cycles > 0 and r1.time_us > 0 and r1.gflops > 0)
local sum = r1.time.compute + r1.time.memory + r1.time.overhead + r1.time.idle
assert(math.abs(sum - 1) < 1e-9, "time fractions add up to 1")
local g = simt.gpu{ arch = "edu-tiny" }
fails("is not a tensor of this CPU", server.launch, server, W.kernel("vecadd"), { grid = 1, block = 32 },
      g:tensor{ 32 }, server:tensor{ 32 }, server:tensor{ 32 }, 32)
print("test_cpu ok")

-- Barriers cost a CPU runtime register saves and restores (work-item loops
-- split at bar.sync): the tiled kernel spills, the naive one (no barrier)
-- does not, and the counters reach Lua.
do
  local c = simt.cpu{ arch = "cpu-server" }
  local n = 64
  local A = c:tensor{ n, n, init = "random", seed = 1 }
  local B = c:tensor{ n, n, init = "random", seed = 2 }
  local C = c:tensor{ n, n }
  local r = c:launch(simt.kernel("lessons/kernels/matmul_tiled16.s"), { grid = { 4, 4 }, block = { 16, 16 } }, A, B, C, n)
  assert(r.spill_instrs > 0 and r.spill_bytes > 0, "tiled16 on a CPU must spill at its barriers")
  local r2 = c:launch(simt.kernel("lessons/kernels/matmul_naive.s"), { grid = { 4, 4 }, block = { 16, 16 } }, A, B, C, n)
  assert(r2.spill_instrs == 0 and r2.spill_bytes == 0, "no barrier, no spills")
end
