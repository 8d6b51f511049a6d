-- test_lifetime_attacks.lua - issue 20, class 1: C code must not keep a
-- raw pointer to a Lua string, GPU, kernel or tensor that nothing anchors
-- across a call that can run Lua (__index, __len, __tostring, a race
-- entry's launch function that drops its objects and collects garbage).
-- Each attack either works with the right results or ends in a clear
-- error; under ASan (scripts/test.sh) a use after free would abort.
local T = require("expect")
local expect = T.expect

local function churn()
  -- collect, then reuse the freed memory with other strings
  collectgarbage()
  collectgarbage()
  local t = {}
  for i = 1, 2000 do t[i] = string.rep(string.char(65 + i % 26), 40 + i % 60) end
  return #t
end

local function fails(want, f, ...)
  local ok, err = pcall(f, ...)
  expect(not ok, "expected an error with: " .. want)
  expect(tostring(err):find(want, 1, true) ~= nil, "expected '" .. want .. "' in: " .. tostring(err))
end

local k = simt.kernel("lessons/kernels/vecadd.s")
local cfg = { grid = { 1 }, block = { 64 } }

-- 1. a race entry's launch function that launches on objects only it holds,
--    drops them and collects garbage before the race runs them
do
  local function dev(seed)
    return { launch = function(_, kk, c)
      local g = simt.gpu{ arch = "edu-tiny" }
      local A = g:tensor{ 64, init = "random", seed = seed }
      local B = g:tensor{ 64, init = "random", seed = seed + 1 }
      local C = g:tensor{ 64 }
      local kk2 = simt.kernel("lessons/kernels/vecadd.s")
      g:launch(kk2, c, A, B, C, 64)
      g, A, B, C, kk2 = nil, nil, nil, nil, nil
      churn()
    end }
  end
  local res = simt.race{ { dev(1), k, cfg }, { dev(5), k, cfg } }
  churn()
  expect(#res == 2 and res[1].cycles > 0 and res[2].cycles > 0, "dropped objects: the race ran both")
  local g = simt.gpu{ arch = "edu-tiny" }
  local A, B, C = g:tensor{ 64, init = "random", seed = 1 }, g:tensor{ 64, init = "random", seed = 2 }, g:tensor{ 64 }
  local solo = g:launch(k, cfg, A, B, C, 64)
  expect(res[1].cycles == solo.cycles, "dropped objects: the same cycles as a plain launch")
end

-- 2. the shown tensor made by an __index, held by nothing else, in a race
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local A, B = g:tensor{ 64, init = "random", seed = 1 }, g:tensor{ 64, init = "random", seed = 2 }
  local C = g:tensor{ 64 }
  local c2 = setmetatable({ grid = { 1 }, block = { 64 } }, { __index = function(_, key)
    if key == "show" then
      local t = g:tensor{ 64 }
      churn()
      return t
    end
  end })
  local res = simt.race{ { { launch = function(_, ...) g:launch(...) churn() end }, k, c2, A, B, C, 64 } }
  churn()
  expect(res[1].cycles > 0, "show made by __index: the race ran")
  expect(math.abs(C:get(1) - (A:get(1) + B:get(1))) < 1e-6, "show made by __index: C = A + B")
end

-- 3. an entry whose __len says 2^32 + 1 (an (int) cast would make it 1)
--    and other lengths that are not a list of launch values
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local A, B, C = g:tensor{ 64, init = "zeros" }, g:tensor{ 64, init = "zeros" }, g:tensor{ 64 }
  for _, len in ipairs({ 4294967297, 4294967296 + 7, -1, 0, 1 << 62, 257 }) do
    local e = setmetatable({ g, k, cfg, A, B, C, 64 }, { __len = function() return len end })
    fails("must hold 1 to 256 values", simt.race, { e })
  end
  fails("object length is not an integer", simt.race,
        { setmetatable({ g, k, cfg }, { __len = function() return 2.5 end }) })
  -- the race list's own __len
  fails("a list of 1 to 4 launches", simt.race, setmetatable({}, { __len = function() return 4294967297 end }))
  -- an extra argument does not move the race's own object
  local res = simt.race({ { g, k, cfg, A, B, C, 64 } }, "extra", {})
  expect(res[1].cycles > 0, "extra arguments to simt.race are ignored")
end

-- 4. simt.title / simt.say: a later field's __index drops the earlier one
do
  local t1 = { en = string.rep("x", 50) .. "-title" }
  local t2 = setmetatable({ en = string.rep("y", 50) .. "-step" }, { __index = function(_, key)
    t1.en = nil
    churn()
    if key == "zh" then return string.rep("z", 60) end
  end })
  simt.title(t1, t2)
  local t3 = setmetatable({}, { __index = function(self, key)
    if key == "en" then return string.rep("e", 70) end
    churn()
    return nil
  end })
  simt.say(t3)
  local t4 = setmetatable({ en = "only en" }, { __index = function(self, key)
    rawset(self, "en", nil)
    churn()
    return string.rep("q", 30)
  end })
  simt.title(t4, t3)
  expect(churn() == 2000, "title and say survive dropped fields")
end

-- 5. roofline and chart options: fields made by __index, and names removed
--    from their entries while later fields are read
if simt.roofline then
  local roof = { name = string.rep("R", 30) }
  setmetatable(roof, { __index = function(self, key)
    if key == "tflops" then
      roof.name = nil
      churn()
      return 60
    end
  end })
  local bw = setmetatable({}, { __index = function(_, key)
    if key == "name" then return string.rep("D", 40) end
    churn()
    if key == "tbs" then return 4.8 end
  end })
  local arg = setmetatable({ roofs = { roof }, bandwidths = { bw },
                             points = { { name = "bad", intensity = -1, tflops = 1 } } },
                           { __index = function(_, key)
                             churn()
                             if key == "path" or key == "title" or key == "subtitle" then
                               return string.rep(key, 20)
                             end
                           end })
  fails("intensity", simt.roofline, arg)
  fails("must be an integer from 0 to 1000000", simt.roofline,
        { path = "r.png", width = 4294967296 + 800, roofs = { { name = "a", tflops = 1 } },
          bandwidths = { { name = "b", tbs = 1 } } })
end
if simt.chart then
  local s1 = { y = { 1, 2, 3 } }
  setmetatable(s1, { __index = function(_, key)
    churn()
    if key == "name" then return string.rep("n", 50) end
  end })
  local arg = setmetatable({ x = { 1, 2, 3 }, series = { s1 } }, { __index = function(_, key)
    churn()
    if key == "path" then return "../outside.png" end   -- refused after every field is read
    if key == "title" then return string.rep("t", 80) end
  end })
  fails("cannot write '../outside.png'", simt.chart, arg)
  fails("must be an integer from 0 to 1000000", simt.chart,
        { path = "c.png", x = { 1 }, series = { { y = { 1 } } }, height = -(1 << 40) })
end

-- 6. save_csv's column names removed while the rows are read
do
  local cols = { "a", "b" }
  local ok, err = pcall(simt.save_csv, "../x.csv", { { a = 1, b = 2 } }, { columns = cols })
  expect(not ok and tostring(err):find("cannot write", 1, true), "save_csv outside the output folder refused")
end

-- 7. tensor specs and values whose metamethods collect garbage
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local spec = setmetatable({ 4, 4 }, { __index = function(_, key)
    churn()
    if key == "dtype" then return "f" .. "32" end
  end })
  local t = g:tensor(spec)
  expect(t:get(1, 1) == 0 and #t == 16, "tensor spec with __index")
  local vals = setmetatable({}, { __len = function() churn() return 16 end,
                                  __index = function(_, i) churn() return i * 2 end })
  local t2 = g:tensor{ 16, init = vals }
  expect(t2:get(16) == 32, "tensor values from __len / __index")
  fails("tensor values", function() return g:tensor{ 4, init = setmetatable({}, {
    __len = function() return 1 << 40 end, __index = function() return "x" end }) } end)
end

T.done("lifetime attack")
print("lifetime attacks held")
