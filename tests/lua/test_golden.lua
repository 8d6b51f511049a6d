-- test_golden.lua - golden cycle counts, instruction counts, DRAM bytes and
-- result checksums for a fixed set of workloads on edu-tiny, h200 and
-- cpu-core. Any change to the timing model or the kernels that moves a
-- number fails here, so that every such change is deliberate.
--
-- Every GPU case also runs with the scheduler's plain reference pick
-- (sched_reference = 1, sim/core/sched.h) and must give the same golden
-- numbers and the same stall counts as the fast pick, reason by reason.
--
-- After an intended change, regenerate the golden file and review the diff:
--   build/simtlab run tests/lua/test_golden.lua update > tests/lua/golden_cycles.lua
local W = require("workloads")
local conv = require("conv")
local P = require("precision")
local update = arg and arg[1] == "update"

-- FNV-1a over the output's float32 bit patterns: the results, exactly.
local function checksum(t)
  local h = 0xcbf29ce484222325
  for _, v in ipairs(t:to_table()) do
    local bits = string.unpack("<I4", string.pack("<f", v))
    for i = 0, 3 do
      h = (h ~ ((bits >> (8 * i)) & 0xff)) * 0x100000001b3
    end
  end
  return string.format("%016x", h)
end

local cases = {}
local function add(name, fn) cases[#cases + 1] = { name = name, fn = fn } end

-- The same GPU with the kernel checker off in every launch: the checker
-- only reports, so every number must match the golden ones with it off
-- too (the simulator has separate fast paths for unchecked launches).
local function unchecked(g)
  return setmetatable({}, { __index = function(_, key)
    if key == "launch" then
      return function(_, k, cfg, ...)
        local c = {}
        for f, v in pairs(cfg) do c[f] = v end
        c.check = false
        return g:launch(k, c, ...)
      end
    end
    local v = g[key]
    if type(v) == "function" then return function(_, ...) return v(g, ...) end end
    return v
  end })
end

for _, run in ipairs({ { arch = "edu-tiny" }, { arch = "h200" },
                       { arch = "edu-tiny", off = true }, { arch = "h200", off = true },
                       { arch = "edu-tiny", ref = true }, { arch = "h200", ref = true } }) do
  local arch = run.arch
  local function gpu(sched)
    local g = simt.gpu{ arch = arch, sched = sched, sched_reference = run.ref and 1 or 0 }
    return run.off and unchecked(g) or g
  end
  local add = function(name, fn)
    add(name .. (run.off and " [check off]" or run.ref and " [reference]" or ""), fn)
  end
  for _, k in ipairs({ "matmul_naive", "matmul_naive_T", "matmul_tiled16", "matmul_tiled32", "matmul_reg64" }) do
    add(arch .. " " .. k .. " 48", function()
      local r = W.matmul(gpu(), k, 48)
      assert(r.ok, k .. " wrong result")
      return r, r.out
    end)
  end
  add(arch .. " vecadd 5000", function()
    local r = W.vecadd(gpu(), 5000)
    assert(r.ok)
    return r, r.out
  end)
  add(arch .. " conv2d_direct", function()
    local g = gpu()
    local X = g:tensor{ 2, 3, 9, 9, init = "random", seed = 3 }
    local Wt = g:tensor{ 4, 3, 3, 3, init = "random", seed = 4 }
    local Y, info = conv.direct(g, X, Wt, { pad = 1, stride = 2 })
    return info.direct, Y
  end)
  add(arch .. " branchy P=4", function()
    local r = W.branchy(gpu(), 4)
    assert(r.ok)
    return r, r.out
  end)
  add(arch .. " tc_matmul_2x2_f16 64", function()
    local r = P.matmul(gpu(), "f16", 64, "2x2")
    return r, r.C
  end)
  -- the greedy-then-oldest scheduler (the others use loose round robin)
  for _, k in ipairs({ "matmul_naive", "matmul_tiled16" }) do
    add(arch .. " gto " .. k .. " 48", function()
      local r = W.matmul(gpu("gto"), k, 48)
      assert(r.ok, k .. " wrong result")
      return r, r.out
    end)
  end
  if arch == "h200" then   -- bulk copies, mbarriers and wgmma (edu-tiny has no wgmma rate)
    add(arch .. " tc_gemm_async_f16 256", function()
      local r = P.matmul(gpu(), "f16", 256, "async")
      return r, r.C
    end)
  end
end
add("cpu-core matmul_tiled16 24", function()
  local r = W.matmul(simt.cpu{ arch = "cpu-core" }, "matmul_tiled16", 24)
  assert(r.ok)
  return r, r.out
end)

local got = {}
for _, c in ipairs(cases) do
  local r, out = c.fn()
  got[c.name] = { cycles = r.cycles, instrs = r.warp_instrs, dram = r.dram_bytes, result = checksum(out),
                  stalls = r.stalls }
end

if update then
  print("-- golden_cycles.lua: written by `simtlab run tests/lua/test_golden.lua update`; see that file")
  print("return {")
  for _, c in ipairs(cases) do
    local v = got[c.name]
    if c.name:find(" [check off]", 1, true) or c.name:find(" [reference]", 1, true) then goto continue end
    print(string.format("  [%q] = { cycles = %d, instrs = %d, dram = %d, result = %q },",
                        c.name, v.cycles, v.instrs, v.dram, v.result))
    ::continue::
  end
  print("}")
  return
end

local golden = require("golden_cycles")
local bad = 0
for _, c in ipairs(cases) do
  local base = c.name:gsub(" %[check off%]$", ""):gsub(" %[reference%]$", "")
  local want, have = golden[base], got[c.name]
  if not want then
    print("no golden entry for " .. c.name); bad = bad + 1
  else
    for _, f in ipairs({ "cycles", "instrs", "dram", "result" }) do
      if want[f] ~= have[f] then
        print(string.format("%s: %s %s, golden %s", c.name, f, tostring(have[f]), tostring(want[f])))
        bad = bad + 1
      end
    end
  end
  if c.name:find("[reference]", 1, true) then   -- the reference pick: every stall reason too
    assert(got[base].stalls and have.stalls, c.name .. ": a launch result without stalls")
    for reason, n in pairs(got[base].stalls) do
      if have.stalls[reason] ~= n then
        print(string.format("%s: %s stalls %d, fast pick %d", c.name, reason, have.stalls[reason], n))
        bad = bad + 1
      end
    end
  end
end
assert(bad == 0, bad .. " golden value(s) changed (see above); if intended, regenerate (see the top of this file)")
print(("golden: %d cases ok"):format(#cases))
