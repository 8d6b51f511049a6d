-- runner.lua - list, run and check the lessons (lessons/NN_name.lua).
--
--   local runner = require("runner")
--   runner.list("zh")                  -- {{number, name, title, concept, minutes}, ...} (and prints)
--   runner.run(3, {lang = "en", knobs = {paths = 8}})
--   local res = runner.check_all()     -- every lesson headless with its expects
--   -- res = {ok = bool, {number=, name=, ok=, checks=, seconds=, err=}, ...}
--
-- Lessons are loaded with require(NAME), so the lessons folder must be on
-- the module path: lessons/course.lua (the entry point simtlab uses) lives
-- there, which is enough inside the sandbox; an --unsafe test adds
-- "lessons/?.lua" to package.path.
--
-- In a window, each step ends with a wait: PageDown, Space or Right go to
-- the next step, PageUp goes back one step and runs it again, R runs the
-- step again, Q quits.
-- Headless, the steps run one after another with their checks.

local lesson = require("lesson")

local runner = {}

-- The course, in order (module names = file names without .lua). A
-- lesson's number is the NN of its name, so the course may have gaps while
-- it grows (lesson 13 before 11): runner.numbers() lists the ones there are.
runner.LESSONS = {
  "01_painters", "02_warps", "03_divergence", "04_hiding_the_wait",
  "05_coalescing", "06_tiling", "07_bank_conflicts", "08_roofline",
  "11_will_it_fit", "12_waiting_on_memory", "15_choosing_a_gpu",
}

-- the number of lesson i of runner.LESSONS: its name's leading digits, or i
-- for a name without them (tests use such names)
local function number_of(i)
  return math.tointeger(tonumber(runner.LESSONS[i]:match("^(%d+)_") or "")) or i
end

-- runner.numbers(): the lesson numbers there are, ascending
function runner.numbers()
  local t = {}
  for i = 1, #runner.LESSONS do t[#t + 1] = number_of(i) end
  table.sort(t)
  return t
end

local function load_lesson(n)
  local name
  for i = 1, #runner.LESSONS do
    if number_of(i) == n then name = runner.LESSONS[i] end
  end
  if not name then
    local nums = runner.numbers()
    error(string.format("there is no lesson %s (the lessons are %s)", tostring(n), table.concat(nums, ", ")), 0)
  end
  local ok, t = pcall(require, name)
  if not ok then error(t, 0) end
  return lesson.validate(t, "lessons/" .. name .. ".lua"), name
end
runner.load = load_lesson

local function pick(t, lang)
  return (lang == "zh" and t.zh) or t.en
end

-- runner.list(lang): prints "N  title (minutes)  concept" per lesson and
-- returns the rows.
function runner.list(lang, quiet)
  lang = lang or simt.lang()
  local rows = {}
  for _, n in ipairs(runner.numbers()) do
    local t, name = load_lesson(n)
    local m = t.meta
    rows[#rows + 1] = { number = m.number, name = name, title = pick(m.title, lang),
                        concept = pick(m.concept, lang), minutes = m.minutes }
    if not quiet then
      print(string.format("%2d  %s (%d %s)\n    %s", m.number, pick(m.title, lang), m.minutes,
                          lang == "zh" and "分钟" or "min", pick(m.concept, lang)))
    end
  end
  return rows
end

-- runner.run(n, opts): run lesson n. opts: lang, knobs, quiet, charts.
-- Returns L (L.checks holds every expect). Raises on a failed claim.
function runner.run(n, opts)
  opts = opts or {}
  local t, name = load_lesson(n)
  local m = t.meta
  local L = lesson.new(t, { lang = opts.lang, knobs = opts.knobs, quiet = opts.quiet,
                            charts = opts.charts, file = "lessons/" .. name .. ".lua" })
  local nsteps = #t.steps
  local title = {
    en = string.format("Lesson %d: %s", m.number, m.title.en),
    zh = string.format("第 %d 课：%s", m.number, m.title.zh),
  }
  local i = 1
  while i <= nsteps do
    -- both languages: the window's L key switches them while the step runs
    local step = { en = string.format("step %d of %d", i, nsteps), zh = string.format("第 %d 步，共 %d 步", i, nsteps) }
    if not (opts.quiet and not simt.on_stage()) then simt.title(title, step) end
    t.steps[i](L)
    if L.window then
      -- wait for a key that moves: next (PageDown, Space, Right), prev
      -- (PageUp: the step before, run again), restart (R: this step again);
      -- knob keys the lesson does not use are ignored
      local ev
      repeat ev = simt.pause() until ev == nil or ev == "next" or ev == "prev" or ev == "restart" or ev == "quit"
      if ev == "prev" then
        i = math.max(1, i - 1)
      elseif ev == "quit" then
        break
      elseif ev ~= "restart" then
        i = i + 1
      end
    else
      i = i + 1
    end
  end
  return L
end

-- runner.check_all(opts): every lesson headless with its expects.
-- opts.only = {numbers}, opts.quiet (default true), opts.lang.
-- Returns {ok = all passed, [i] = {number, name, ok, checks, seconds, err}}
-- and prints one line per lesson.
function runner.check_all(opts)
  opts = opts or {}
  local quiet = opts.quiet ~= false
  local list = opts.only or {}
  if #list == 0 then list = runner.numbers() end
  local out = { ok = true }
  for _, n in ipairs(list) do
    local t0 = os.clock()
    local ok, L = pcall(runner.run, n, { quiet = quiet, lang = opts.lang })
    local okname, _, name = pcall(load_lesson, n)
    local row = { number = n, name = okname and name or nil, ok = ok, seconds = os.clock() - t0 }
    if ok then
      row.checks = #L.checks
    else
      row.err = tostring(L)
      out.ok = false
    end
    out[#out + 1] = row
    print(string.format("lesson %2d %-22s %s  %d claims  %.1f s%s", n, row.name or "?",
                        ok and "pass" or "FAIL", row.checks or 0, row.seconds,
                        ok and "" or ("\n  " .. row.err:gsub("\n", "\n  "))))
  end
  return out
end

return runner
