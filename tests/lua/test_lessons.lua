-- simtlab: --unsafe
-- The course's machinery: the lesson API (expect names the lesson file and
-- line, knobs, validation), the runner's list, and the graded exercises:
-- every starter fails, every reference solution passes, and a tiled
-- multiply without its second barrier fails "sound".
package.path = "lessons/?.lua;lessons/lib/?.lua;" .. package.path
local lesson = require("lesson")
local runner = require("runner")
local grade = require("grade")

local t0 = os.clock()

-- expect: a failing claim raises with the caller's file and line
do
  local t = { meta = { number = 99, title = { en = "t", zh = "t" }, concept = { en = "c", zh = "c" }, minutes = 1,
                       knobs = { { name = "k", range = { 1, 8 }, default = 4, en = "k", zh = "k" } } },
              steps = { function() end } }
  lesson.validate(t)
  local L = lesson.new(t, { quiet = true, knobs = {} })
  assert(L.expect(true, { en = "holds", zh = "成立" }))
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, err = pcall(function() L.expect(1 > 2, { en = "one is more than two", zh = "一大于二" }, "1 vs 2") end)
  assert(not ok, "a false claim must raise")
  assert(err:find("test_lessons.lua:" .. line .. ":", 1, true), "the error names the file and line: " .. err)
  assert(err:find("claim does not hold: one is more than two", 1, true), err)
  assert(err:find("1 vs 2", 1, true) and err:find("一大于二", 1, true), err)
  assert(#L.checks == 2 and L.checks[1].ok and not L.checks[2].ok)
  -- knobs: default, command line, range
  assert(L.knob("k") == 4)
  local L2 = lesson.new(t, { quiet = true, knobs = { k = "6" } })
  assert(L2.knob("k") == 6 and math.type(L2.knob("k")) == "integer")
  local ok2, e2 = pcall(lesson.new(t, { quiet = true, knobs = { k = "9" } }).knob, "k")
  assert(not ok2 and e2:find("outside 1 .. 8", 1, true), tostring(e2))
  local ok3, e3 = pcall(L.knob, "nope")
  assert(not ok3 and e3:find("no knob 'nope'", 1, true), tostring(e3))
  -- validation names what is missing
  local ok4, e4 = pcall(lesson.validate, { meta = { number = 1, title = { en = "x" } }, steps = {} }, "lessons/x.lua")
  assert(not ok4 and e4:find("lessons/x.lua: meta.title needs en", 1, true), tostring(e4))
end

-- the runner lists every lesson in both languages: part one's 1 .. 8, then
-- part two's by number (gaps allowed)
do
  local en, zh = runner.list("en", true), runner.list("zh", true)
  local nums = runner.numbers()
  assert(#en == #runner.LESSONS and #zh == #runner.LESSONS and #en >= 8, "every lesson listed")
  for i = 1, #en do
    assert(en[i].number == nums[i] and (i > 8 or nums[i] == i), "lesson numbers in order")
    assert(en[i].title ~= zh[i].title, "lesson " .. i .. " has a Chinese title")
    assert(zh[i].concept:find("[\228-\233]"), "lesson " .. i .. " has a Chinese concept")
  end
  local ok, e = pcall(runner.run, 42, { quiet = true })
  -- bad usage (exit 2, no traceback: sim/main.c), naming the lessons there are
  assert(not ok and type(e) == "table" and e.simtlab_exit == 2
         and e.message:find("there is no lesson 42 (the lessons are 1, 2, 3,", 1, true), tostring(e))
end

-- check_all reports a lesson whose claim fails, or that has a bug, as FAIL
-- with the lesson file and line, and goes on with the next lesson
do
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir))
  local f = io.open(dir .. "/fake_claim.lua", "w")
  f:write([[
return { meta = { number = 9, title = { en = "fake", zh = "假的" }, concept = { en = "c", zh = "c" }, minutes = 1 },
  steps = { function(L) L.say{ en = "hi", zh = "你好" } end,
            function(L)
              L.expect(2 + 2 == 5, { en = "two and two make five", zh = "二加二等于五" })
            end } }
]])
  f:close()
  f = io.open(dir .. "/fake_bug.lua", "w")
  f:write("return { meta = { number = 10, title = { en = 'b', zh = '错' }, concept = { en = 'c', zh = 'c' }, minutes = 1 },\n"
          .. "  steps = { function(L) local t = nil; return t.x end } }\n")
  f:close()
  package.path = dir .. "/?.lua;" .. package.path
  local saved = runner.LESSONS
  -- numbers: fake_claim is 1 (its place), 02_warps 2 (its name), fake_bug 3
  runner.LESSONS = { "fake_claim", "02_warps", "fake_bug" }
  local res = runner.check_all{ only = { 1, 3, 2 } }
  runner.LESSONS = saved
  os.execute("rm -rf " .. dir)
  assert(not res.ok and not res[1].ok and not res[2].ok and res[3].ok, "two failures, then lesson 2 still runs")
  assert(res[1].err:find("fake_claim.lua:4: claim does not hold: two and two make five", 1, true), res[1].err)
  assert(res[2].err:find("fake_bug.lua:2:", 1, true), res[2].err)
end

-- exercises: starters fail, references pass
local refs = grade.check_references()
assert(refs.ok, "every reference solution passes and every starter fails")
for _, n in ipairs{ 3, 5, 6, 7 } do
  assert(refs[n], "exercise " .. n .. " exists")
  local s = refs[n].solution
  assert(s.correct.ok and s.sound.ok and s.cheap.ok and s.cheap.score == 1, "reference " .. n .. " gets full marks")
end
-- each starter fails for the reason its header says
assert(refs[3].starter.correct.ok and not refs[3].starter.cheap.ok, "starter 3: right answer, too many cycles")
assert(refs[5].starter.correct.ok and not refs[5].starter.cheap.ok, "starter 5: right answer, too many sectors")
assert(not refs[6].starter.correct.ok and not refs[6].starter.sound.ok, "starter 6: unfinished")
assert(refs[7].starter.correct.ok and not refs[7].starter.cheap.ok, "starter 7: right answer, bank conflicts")

-- a tiled multiply without the barrier before the next copy: unsound
do
  local src = io.open(grade.solution_path(6)):read("a")
  local cut, k = src:gsub("\n    bar%.sync;%s*// done reading before the next copy", "\n", 1)
  assert(k == 1, "found the second barrier")
  local path = os.tmpname() .. ".s"
  local f = io.open(path, "w"); f:write(cut); f:close()
  local r = grade.check(6, path, { quiet = true })
  os.remove(path)
  assert(not r.pass and not r.sound.ok, "a missing barrier fails sound")
  assert(r.sound.msg:find("race", 1, true) or r.sound.msg:find("barrier", 1, true), r.sound.msg)
  print("missing barrier: correct " .. tostring(r.correct.ok) .. ", sound: " .. r.sound.msg:match("[^\n]*"))
end

-- a file that does not assemble fails "correct" with the assembler's message
do
  local path = os.tmpname() .. ".s"
  local f = io.open(path, "w"); f:write(".kernel k\n    frobnicate %r0;\n"); f:close()
  local r = grade.check(5, path, { quiet = true })
  os.remove(path)
  assert(not r.pass and r.correct.msg:find("does not assemble", 1, true), r.correct.msg)
end

-- a wrong answer names the cells: "yours / expected"
do
  local src = io.open(grade.solution_path(5)):read("a")
  local wrong = src:gsub("fma%.f32 %%r11, %%r11, 2%.0, 1%.0;", "fma.f32 %%r11, %%r11, 2.0, 2.0;", 1)
  local path = os.tmpname() .. ".s"
  local f = io.open(path, "w"); f:write(wrong); f:close()
  local r = grade.check(5, path, { quiet = true })
  os.remove(path)
  assert(not r.correct.ok and r.correct.msg:find("yours", 1, true) and r.correct.msg:find("expected", 1, true),
         r.correct.msg)
end

-- --json: one object per kernel with the three parts
do
  local j = grade.to_json(refs[6].starter)
  assert(j:find('"exercise": 6', 1, true) and j:find('"pass": false', 1, true), j)
  assert(j:find('"sound": {"ok": false', 1, true) and not j:find("\n", 1, true), j)
  local j2 = grade.to_json(refs[7].solution)
  assert(j2:find('"pass": true', 1, true) and j2:find('"metric": "smem_wavefronts"', 1, true), j2)
end

print(string.format("test_lessons ok (%.1f s)", os.clock() - t0))
