-- course.lua - the entry point for the course commands (it lives in
-- lessons/ so that the sandbox's require finds the lesson files here and
-- the libraries in lessons/lib).
--
--   simtlab run  lessons/course.lua list                 the lessons, titles in --lang
--   simtlab show lessons/course.lua lesson N [k=v ...] [--charts]
--                                                         lesson N on the stage (knobs k=v;
--                                                         --charts: each chart as NAME.png in
--                                                         the output folder, --out DIR)
--   simtlab run  lessons/course.lua lesson N [k=v ...]    the same, text only
--   simtlab run  lessons/course.lua check [N ...]         lessons headless with their claims,
--                                                         then the exercises' reference solutions
--   simtlab run  lessons/course.lua check --part J K      the same for every K-th lesson from
--                                                         the J-th (0-based; `simtlab lessons -j K`)
--   simtlab run  lessons/course.lua grade N FILE.s [--json]   grade a student's kernel
--   simtlab run  lessons/course.lua answer N ANSWER [--json]  grade an answer (a format, a number:
--                                                         lib/grade_answers.lua; simtlab check N --answer A)
-- Exit status: 0 ok, 1 a claim, a check or a grade failed.

local runner = require("runner")

local a = arg or {}
local cmd = a[1] or "list"

local function usage()
  error("usage: course.lua list | lesson N [knob=value ...] [--charts] | check [N ...] | check --part J K | grade N FILE.s [--json] | answer N ANSWER [--json]", 0)
end

if cmd == "list" then
  runner.list(simt.lang())
elseif cmd == "lesson" then
  local n = math.tointeger(tonumber(a[2] or ""))
  if not n then usage() end
  local knobs, charts = {}, nil
  local i = 3
  while i <= #a do
    if a[i] == "--charts" then
      charts = true   -- into the sandbox's output folder (--out DIR)
      i = i + 1
    else
      local k, v = a[i]:match("^([%a_][%w_]*)=(.+)$")
      if not k then error("a knob is NAME=VALUE, got '" .. a[i] .. "'", 0) end
      knobs[k] = v
      i = i + 1
    end
  end
  runner.run(n, { knobs = knobs, charts = charts })
elseif cmd == "check" then
  local only = {}
  if a[2] == "--part" then
    local j, k = math.tointeger(tonumber(a[3] or "")), math.tointeger(tonumber(a[4] or ""))
    if not j or not k or k < 1 or j < 0 or j >= k then usage() end
    for i, n in ipairs(runner.numbers()) do
      if (i - 1) % k == j then only[#only + 1] = n end
    end
    if #only == 0 then print("ok: no lesson in this part"); return end
  else
    for i = 2, #a do only[#only + 1] = math.tointeger(tonumber(a[i])) or usage() end
  end
  local t0 = os.clock()
  local res = runner.check_all{ only = only }
  local grade = require("grade")
  local ex = grade.check_references{ only = #only > 0 and only or nil }
  local ans = require("grade_answers").check_references{ only = #only > 0 and only or nil }
  ex.ok = ex.ok and ans.ok
  print(string.format("%s: lessons %s, reference solutions %s (%.1f s)", res.ok and ex.ok and "ok" or "FAILED",
                      res.ok and "pass" or "FAIL", ex.ok and "pass" or "FAIL", os.clock() - t0))
  if not (res.ok and ex.ok) then error("the course check failed (see above)", 0) end
elseif cmd == "grade" then
  local n = math.tointeger(tonumber(a[2] or ""))
  local file = a[3]
  if not n or not file then usage() end
  local json = a[4] == "--json"
  local grade = require("grade")
  if not grade.EXERCISES[n] and require("grade_answers").EXERCISES[n] then
    error({ simtlab_exit = 1, message = string.format("exercise %d is answered with a word or a number, not a kernel: "
            .. "simtlab check %d --answer ANSWER (lessons/exercises/%s.md)", n, n, require("grade_answers").EXERCISES[n].name) }, 0)
  end
  local r = grade.check(n, file, { json = json })
  -- a planned failure: simtlab exits 1 without a traceback (sim/main.c)
  if not r.pass then error({ simtlab_exit = 1, message = json and "" or "check: not passed yet" }, 0) end
elseif cmd == "answer" then
  -- an exercise answered with a word or a number (lib/grade_answers.lua)
  local n = math.tointeger(tonumber(a[2] or ""))
  if not n or not a[3] then usage() end
  local json = a[4] == "--json"
  local GA = require("grade_answers")
  if not GA.EXERCISES[n] then
    local have = {}
    for k in pairs(GA.EXERCISES) do have[#have + 1] = k end
    table.sort(have)
    error({ simtlab_exit = 1, message = string.format("exercise %d is not answered with --answer (those are %s; "
            .. "the others take a kernel: simtlab check %d FILE.s)", n, table.concat(have, ", "), n) }, 0)
  end
  local r = GA.check(n, a[3], { json = json })
  if not r.pass then error({ simtlab_exit = 1, message = json and "" or "check: not passed yet" }, 0) end
else
  usage()
end
