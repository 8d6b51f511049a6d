-- test_sandbox_safety.lua - memory safety under metamethods, sizes that
-- overflow and the read-only overrides (issue 13, classes 3, 4 and 7).
-- Runs in the sandbox; under ASan a regression is a crash report.
local function fails(want, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error containing '" .. want .. "', but it succeeded")
  assert(tostring(err):find(want, 1, true), "expected '" .. want .. "', got '" .. tostring(err) .. "'")
end

local g = simt.gpu("edu-tiny")
local k = simt.kernel("tests/asm/vecadd.s")

-- 3. closed metatables: no __gc by hand, no changing methods
for _, obj in ipairs({ g:tensor{ 4 }, simt.tensor{ 4 }, g, k, simt.f32(1), simt.cpu("cpu-core") }) do
  local mt = getmetatable(obj)
  assert(type(mt) == "string" and mt:find("^simt%."), "metatable of " .. tostring(obj) .. " is open: " .. tostring(mt))
  assert(rawequal(getmetatable(obj), mt) and type(mt.__gc) ~= "function", "__gc reachable")
end
assert(getmetatable(simt.overrides) == "read-only")

-- 3. C code that runs Lua in the middle: the callbacks free, collect and
-- allocate while copy_from and tensor{init=} read the values
local t = g:tensor{ 8, dtype = "f32" }
local churn = 0
local evil = setmetatable({}, { __index = function(_, i)
  churn = churn + 1
  for _ = 1, 3 do local x = g:tensor{ 1024 } end   -- device memory comes and goes
  collectgarbage()
  return i * 1.5
end, __len = function() collectgarbage(); return 8 end })
t:copy_from(evil)
assert(churn == 8)
for i = 1, 8 do assert(t:get(i) == i * 1.5, "element " .. i .. " is " .. t:get(i)) end
local h = simt.tensor{ 2, 2, init = setmetatable({}, { __len = function() return 2 end,
  __index = function(_, i) collectgarbage() return { i, i + 10 } end }) }
assert(h:get(1, 1) == 1 and h:get(2, 2) == 12)
fails("table has more than 4 values", simt.tensor, { 2, 2, init = setmetatable({}, {
  __len = function() return math.maxinteger end, __index = function() return 1 end }) })
fails("table has 0 values", t.copy_from, t, setmetatable({}, { __len = function() return -5 end }))
-- strings handed to C by __index functions that nothing else keeps
local spec = setmetatable({}, { __index = function(_, key)
  collectgarbage()
  if key == "arch" then return "edu-" .. "tiny" end
end })
assert(simt.gpu(spec).name == "edu-tiny")
-- a launch table whose fields run code
local A = g:tensor{ 64, init = "ones" }
local B = g:tensor{ 64, init = "ones" }
local C = g:tensor{ 64 }
local cfg = setmetatable({ grid = 1, block = 64 }, { __index = function() collectgarbage() end })
g:launch(k, cfg, A, B, C, 64)
assert(C:get(64) == 2)

-- 4. sizes that overflow are refused by name, before any allocation
local X = simt.tensor{ 1, 1, 4, 4 }
local W = simt.tensor{ 1, 1, 3, 3 }
fails("pad must be an integer from 0 to 2^30", simt.ref.conv2d, X, W, { pad = (1 << 31) - 1 })
fails("ref.conv2d: the output", simt.ref.conv2d, X, W, { pad = 1 << 30 })
fails("stride must be an integer from 1 to 2^30", simt.ref.conv2d, X, W, { stride = 1 << 62 })
fails("does not fit input", simt.ref.im2col, X, 1 << 40, 3)
fails("ref.im2col: C*R*S is too large", simt.ref.im2col, simt.tensor{ 1, 1 << 20, 1, 1 }, 1, 1 << 13, { pad = 1 << 12 })
fails("the new shape has more than 2^40", X.reshape, X, 1 << 32, 1 << 32)
fails("the new shape has more than 2^40", X.reshape, X, math.maxinteger, 2)
fails("tensor too large", simt.tensor, { 1 << 31, 1 << 31 })
-- the reference functions' work limit: 4096 x 2048 times 2048 x 4096 is 2^35 multiply-adds
local M = simt.tensor{ 4096, 2048 }
local N = simt.tensor{ 2048, 4096 }
fails("ref.matmul: the work M*N*K is too large", simt.ref.matmul, M, N)
M, N = nil, nil

-- 7. the command line's overrides cannot be changed or cleared
fails("simt.overrides is read-only", function() simt.overrides.sms = 99 end)
fails("simt.overrides is read-only", function() simt.overrides.arch = "h200" end)
rawset(simt.overrides, "sms", 99)          -- lands in the view only
simt.overrides = nil                       -- and this only drops the view
assert(simt.gpu("edu-tiny").desc.sms == 2, "overrides changed the GPU")
print("sandbox safety ok")
