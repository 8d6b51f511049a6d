-- test_launch_options.lua - g:launch and c:launch read their options with
-- one parser (sim/script/llaunch.c) and their descriptions with one field
-- engine (sim/script/lfields.c): the same keys, the same errors at the
-- script's file:line, the same max_cycles and warm_caches, on a GPU and a CPU.
local T = require("expect")
local expect = T.expect

local g = simt.gpu{ arch = "edu-tiny" }
local c = simt.cpu("cpu-core")
local devices = { g, c }
local k = simt.kernel("lessons/kernels/matmul_naive.s")
local spin = simt.kernel("tests/cli/spin.s")   -- never ends
local n = 16

-- The launch below is on line 18: errors about the options carry it.
local LAUNCH_LINE = 18
local function launch(dev, kernel, cfg, ...)
  return dev:launch(kernel, cfg, ...)
end

local function operands(dev)
  return dev:tensor{ n, n, init = "random", seed = 1 }, dev:tensor{ n, n, init = "random", seed = 2 },
         dev:tensor{ n, n }
end

-- the matmul with options cfg (grid and block added) on dev: ok, result or error
local function matmul(dev, cfg)
  cfg.grid, cfg.block = cfg.grid or { 1, 1 }, cfg.block or { 16, 16 }
  local A, B, C = operands(dev)
  return pcall(launch, dev, k, cfg, A, B, C, n)
end

-- the error text of cfg on both devices: the same, and returned
local function same_error(cfg, what)
  local ok_g, eg = matmul(g, cfg)
  local ok_c, ec = matmul(c, cfg)
  expect(not ok_g and not ok_c, what .. ": both devices refuse it")
  expect(eg == ec, what .. ": the same message on GPU and CPU:\n  " .. tostring(eg) .. "\n  " .. tostring(ec))
  return tostring(eg)
end

local ALL_KEYS = "grid, block, cluster, max_cycles, max_instrs, max_warp_instrs, warm_caches, warm, check, show, pace"

-- a misspelled key: named, with the closest key, every key and the line
local e = same_error({ gird = 1 }, "misspelled key")
local want = "test_launch_options.lua:" .. LAUNCH_LINE .. ": launch: unknown configuration key 'gird' "
             .. "(did you mean 'grid'?); the keys are " .. ALL_KEYS
expect(e:sub(-#want) == want, "misspelled key message: " .. e)
e = same_error({ colour = "red" }, "unknown key")
expect(e:find(": launch: unknown configuration key 'colour'; the keys are " .. ALL_KEYS, 1, true),
       "unknown key message: " .. e)
-- two unknown keys: the alphabetically first, whatever the table's order
e = same_error({ zzz = 1, bloc = 4, aaa = 2 }, "three unknown keys")
expect(e:find("unknown configuration key 'aaa'", 1, true), "first unknown key reported: " .. e)
e = same_error({ [1] = 4 }, "a positional value")
expect(e:find("launch: the configuration's keys are names (grid = 4, ...), got a number key", 1, true),
       "positional value: " .. e)

-- max_cycles: a positive integer on both devices (0 is not "no limit")
for _, bad in ipairs{ 0, -5, 1.5, "100" } do
  e = same_error({ max_cycles = bad }, "max_cycles = " .. tostring(bad))
  expect(e:find("launch: max_cycles must be a positive integer, got " .. tostring(bad), 1, true),
         "max_cycles = " .. tostring(bad) .. ": " .. e)
end
-- sizes and limits computed with '/' are floats: a whole value is a whole
-- number (n / 16 = 1.0), a fraction or a string is not
for _, dev in ipairs(devices) do
  local ok, r = matmul(dev, { grid = { n / 16, n / 16 }, block = { 16.0, 16 }, max_instrs = 1e9 })
  expect(ok and r.cycles > 0, "grid = {n / 16, ...} (floats with whole values) launches: " .. tostring(r))
end
for _, bad in ipairs{ { grid = { 1.5, 1 } }, { grid = { "1", 1 } }, { block = 16.5 } } do
  local key = bad.grid and "grid[1]" or "block"
  e = same_error(bad, key .. " not whole")
  expect(e:find("launch: " .. key .. " must be a positive integer", 1, true), key .. ": " .. e)
end
e = same_error({ max_instrs = 0 }, "max_instrs = 0")
expect(e:find("launch: max_instrs must be a positive integer, got 0", 1, true), "max_instrs = 0: " .. e)
e = same_error({ max_instrs = 10, max_warp_instrs = 10 }, "both instruction limits")
expect(e:find("max_instrs and max_warp_instrs are the same limit", 1, true), "both limits: " .. e)

-- ... and it stops an endless kernel on both (the CPU ignored it before)
for _, dev in ipairs(devices) do
  local ok, err = pcall(launch, dev, spin, { grid = 1, block = 1, max_cycles = 5000 })
  expect(not ok and tostring(err):find("did not finish after 5000 cycles", 1, true),
         dev.name .. ": max_cycles = 5000 stops the endless kernel: " .. tostring(err))
  for _, key in ipairs{ "max_instrs", "max_warp_instrs" } do
    ok, err = pcall(launch, dev, spin, { grid = 1, block = 1, [key] = 100 })
    expect(not ok and tostring(err):find("did not finish after", 1, true) and tostring(err):find("100 ", 1, true),
           dev.name .. ": " .. key .. " = 100 stops the endless kernel: " .. tostring(err))
  end
  -- a limit the kernel does not reach changes nothing (same tensors: same addresses)
  local A, B, C = operands(dev)
  local ok1, r1 = pcall(launch, dev, k, { grid = { 1, 1 }, block = { 16, 16 } }, A, B, C, n)
  local ok2, r2 = pcall(launch, dev, k, { grid = { 1, 1 }, block = { 16, 16 }, max_cycles = 1 << 30,
                                          max_instrs = 1 << 30 }, A, B, C, n)
  expect(ok1 and ok2 and r1.cycles == r2.cycles and r1.warp_instrs == r2.warp_instrs,
         dev.name .. ": limits not reached change nothing")
  -- too low a limit for a kernel that does end: it fails, naming it
  local ok3, e3 = matmul(dev, { max_cycles = 10 })
  expect(not ok3 and tostring(e3):find("max_cycles", 1, true), dev.name .. ": max_cycles = 10 is too few: " .. tostring(e3))
end

-- warm_caches: true or false on both devices (warm_caches = 0 was "warm" on a CPU)
for _, bad in ipairs{ 0, 1, "yes" } do
  e = same_error({ warm_caches = bad }, "warm_caches = " .. tostring(bad))
  expect(e:find("launch: warm_caches must be true or false, got " .. type(bad), 1, true),
         "warm_caches = " .. tostring(bad) .. ": " .. e)
end
-- ... and it keeps the last launch's caches on both: the same data again
-- hits where the cold launch missed, so it takes fewer cycles
for _, dev in ipairs(devices) do
  local A, B, C = operands(dev)
  local cfg = { grid = { 1, 1 }, block = { 16, 16 } }
  local cold = launch(dev, k, cfg, A, B, C, n)
  cfg.warm_caches = false
  local cold2 = launch(dev, k, cfg, A, B, C, n)
  cfg.warm_caches = true
  local warm = launch(dev, k, cfg, A, B, C, n)
  expect(cold.cycles == cold2.cycles and cold.l1_misses == cold2.l1_misses,
         dev.name .. ": warm_caches = false is the default (cold)")
  expect(warm.cycles < cold.cycles, dev.name .. ": warm caches take fewer cycles (" .. warm.cycles .. " vs "
         .. cold.cycles .. ")")
  expect(warm.l1_misses + warm.l2_misses < cold.l1_misses + cold.l2_misses,
         dev.name .. ": warm caches miss less")
end

-- keys that only mean something on a GPU: a CPU says why
local Ac = c:tensor{ n, n }
for _, case in ipairs{
  { { cluster = { 1, 1, 1 } }, "cluster is a GPU key: a CPU has no thread-block clusters" },
  { { warm = Ac }, "warm is a GPU key" },
  { { check = true }, "check = true: the kernel checker runs on GPUs only" },
} do
  local ok, err = matmul(c, case[1])
  expect(not ok and tostring(err):find(case[2], 1, true), "CPU refuses: " .. case[2] .. ": " .. tostring(err))
end
local okc, rc = matmul(c, { check = false })   -- nothing to turn off, so accepted
expect(okc and rc.cycles > 0, "check = false runs on a CPU: " .. tostring(rc))
local okg, rg = matmul(g, { check = false, cluster = { 1, 1, 1 } })
expect(okg and rg.cycles > 0, "check and cluster run on a GPU: " .. tostring(rg))

-- the kernel and its arguments: one accessor, one message
local A, B = operands(g)
local ok_g, eg = pcall(launch, g, k, { grid = 1, block = 4 }, A, B)
A, B = operands(c)
local ok_c, ec = pcall(launch, c, k, { grid = 1, block = 4 }, A, B)
expect(not ok_g and not ok_c and eg == ec, "argument count: same message:\n  " .. tostring(eg) .. "\n  " .. tostring(ec))
expect(tostring(eg):find("kernel 'matmul_naive' takes 4 arguments (A, B, C, n), got 2", 1, true),
       "argument count names the parameters: " .. tostring(eg))
ok_g, eg = pcall(launch, g, A, { grid = 1, block = 4 })
ok_c, ec = pcall(launch, c, A, { grid = 1, block = 4 })
expect(not ok_g and not ok_c and eg == ec and tostring(eg):find("simt.kernel expected", 1, true),
       "not a kernel: same message: " .. tostring(eg) .. " / " .. tostring(ec))

-- the descriptions: one field engine, the same rules and messages
local function desc_error(make, t)
  local ok, err = pcall(make, t)
  expect(not ok, "refused: " .. tostring(err))
  return tostring(err)
end
local eg2 = desc_error(simt.gpu, { sms = "x" })
local ec2 = desc_error(simt.cpu, { cores = "x" })
expect(eg2:find("GPU field 'sms' expects an integer, got string", 1, true), eg2)
expect(ec2:find("CPU field 'cores' expects an integer, got string", 1, true), ec2)
ec2 = desc_error(simt.cpu, { cores = 1.5 })
expect(ec2:find("CPU field 'cores' expects an integer, got 1.5", 1, true), ec2)
ec2 = desc_error(simt.cpu, { cores = -1 })
expect(ec2:find("CPU field 'cores' must be between 0 and 4294967295, got -1", 1, true), ec2)
ec2 = desc_error(simt.cpu, { name = string.rep("x", 100) })
expect(ec2:find("CPU field 'name' is too long (100 characters, at most 63)", 1, true), ec2)
ec2 = desc_error(simt.cpu, { qqqqqq = 1, cores = 2 })
expect(ec2:find("unknown CPU field 'qqqqqq' (see simt.cpu{}.desc for the field names)", 1, true), ec2)
eg2 = desc_error(simt.gpu, { qqqqqq = 1 })
expect(eg2:find("unknown GPU field 'qqqqqq' (see simt.gpu{}.desc for the field names)", 1, true), eg2)
ec2 = desc_error(simt.cpu, { zcores = 1, acores = 2 })
expect(ec2:find("unknown CPU field 'acores' (did you mean 'cores'?)", 1, true), "first unknown CPU field: " .. ec2)
ec2 = desc_error(simt.cpu, { [1] = 4 })
expect(ec2:find("CPU description keys must be field names, got a number key", 1, true), ec2)
-- the CPU's own words still work: simd for simd_width, in_order = true
local cs = simt.cpu{ arch = "cpu-server", simd = 8, in_order = true }
expect(cs.desc.simd_width == 8 and cs.desc.in_order == 1, "simd and in_order = true")
ec2 = desc_error(simt.cpu, { simd = "wide" })
expect(ec2:find("CPU field 'simd_width' expects an integer, got string", 1, true), ec2)

-- show = false (paint nothing) and pace (slower on the stage) are stage options: the
-- result is the same; a bad pace or show is an error on both devices
for _, dev in ipairs(devices) do
  local A, B, C = operands(dev)
  local ok, r = pcall(launch, dev, k, { grid = { 1, 1 }, block = { 16, 16 }, show = false, pace = 0.5 }, A, B, C, n)
  expect(ok and r.cycles > 0, "show = false, pace = 0.5 accepted: " .. tostring(r))
  expect(C:allclose(simt.ref.matmul(A, B), 1e-4, 1e-4), "show = false, pace = 0.5: the same product")
end
for _, bad in ipairs{ 0, -1, "slow" } do
  e = same_error({ pace = bad }, "pace = " .. tostring(bad))
  expect(e:find("launch: pace must be a number > 0 (simulated µs per second on the stage)", 1, true),
         "pace = " .. tostring(bad) .. ": " .. e)
end
e = same_error({ show = 3 }, "show = 3")
expect(e:find("launch: show must be a device tensor of f32 values (the output to paint) or false (paint none)", 1, true),
       "show = 3: " .. e)

T.done("launch option")
