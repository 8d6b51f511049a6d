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
-- lesson's number is the NN of its name (the course may have gaps while it
-- grows): runner.numbers() lists the ones there are.
runner.LESSONS = {
  "01_painters", "02_warps", "03_divergence", "04_hiding_the_wait",
  "05_coalescing", "06_tiling", "07_bank_conflicts", "08_roofline",
  "09_tensor_cores", "10_convolution", "11_will_it_fit", "12_waiting_on_memory",
  "13_sms_or_bandwidth", "14_many_gpus", "15_choosing_a_gpu",
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
    -- bad usage: exit status 2, no traceback (sim/main.c)
    error({ simtlab_exit = 2, message = string.format("there is no lesson %s (the lessons are %s)", tostring(n),
                                                      table.concat(nums, ", ")) }, 0)
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

-- the knob keys of the window and how each changes the GPU of L.gpu
local KEYS = { sms_half = { "sms", 0.5 }, sms_double = { "sms", 2 }, dram_half = { "dram", 0.5 },
               dram_double = { "dram", 2 } }

-- The summary screen after the last step: the lesson's point and every
-- claim the simulator's numbers upheld, as a table.
local function summary(L, t, title)
  local m = t.meta
  simt.title(title, { en = "summary", zh = "小结" })
  simt.lesson_knobs(lesson.knobs_line(m, L.given), true)
  local rows, seen = {}, {}
  for _, n in ipairs(L.notes) do   -- what the charts and tables showed
    if #rows < 6 then rows[#rows + 1] = { "•", n } end
  end
  for _, c in ipairs(L.checks) do
    local key = c.en
    if not seen[key] and #rows < 14 then
      seen[key] = true
      rows[#rows + 1] = { c.ok and "✓" or "✗", { en = c.en, zh = c.zh } }
    end
  end
  if simt.board ~= nil and simt.on_stage() and #rows > 0 then
    simt.board{ kind = "table", title = { en = "What the simulator showed", zh = "模拟器证实了什么" },
                columns = { "", { en = "• measured   ✓ claim checked on the simulator's numbers",
                                  zh = "• 测量结果   ✓ 用模拟器的数字核对过的结论" } },
                rows = rows, alone = true }
  end
  L.say{ en = string.format("Lesson %d in one sentence: %s %s", m.number, m.concept.en,
                            L.window and "Space or PageDown closes the lesson; PageUp goes back." or ""),
         zh = string.format("第 %d 课一句话：%s%s", m.number, m.concept.zh,
                            L.window and "按空格或 PageDown 结束本课，PageUp 返回上一步。" or "") }
end

-- runner.run(n, opts): run lesson n. opts: lang, knobs, quiet, charts.
-- The knobs are checked first (an error names them all). In a window the
-- first run of each step waits for Space, the knob keys re-run a step that
-- makes its GPU with L.gpu, and the lesson ends on a summary screen.
-- Returns L (L.checks holds every expect). Raises on a failed claim.
function runner.run(n, opts)
  opts = opts or {}
  local t, name = load_lesson(n)
  local m = t.meta
  lesson.check_knobs(m, opts.knobs, opts.lang or simt.lang())
  local scale = { sms = 1, dram = 1 }
  local L = lesson.new(t, { lang = opts.lang, knobs = opts.knobs, quiet = opts.quiet, scale = scale,
                            charts = opts.charts, file = "lessons/" .. name .. ".lua" })
  local nsteps = #t.steps
  local title = {
    en = string.format("Lesson %d: %s", m.number, m.title.en),
    zh = string.format("第 %d 课：%s", m.number, m.title.zh),
  }
  local knobs = lesson.knobs_line(m, opts.knobs)
  if simt.on_stage() then simt.hold_runs(L.window) end
  local i = 1
  while i <= nsteps + 1 do
    if i > nsteps then   -- the summary screen (a window waits on it; headless it is the last picture)
      if not simt.on_stage() then break end
      summary(L, t, title)
      if not L.window then break end
      local ev
      repeat ev = simt.pause() until ev == nil or ev == "next" or ev == "prev" or ev == "quit"
      if ev == "prev" then i = nsteps else break end
    end
    -- both languages: the window's L key switches them while the step runs
    local step = { en = string.format("step %d of %d", i, nsteps), zh = string.format("第 %d 步，共 %d 步", i, nsteps) }
    if not (opts.quiet and not simt.on_stage()) then simt.title(title, step) end
    L.uses_gpu_keys = false
    if simt.on_stage() then simt.lesson_knobs(knobs, true) end
    -- a knob key (or R) while the step's first run waits for Space: the run
    -- did not start; the launch raised {simtlab_knob = key} (sim/script/lstage.c)
    local held
    if L.window then
      local ok, err = pcall(t.steps[i], L)
      if not ok then
        if type(err) ~= "table" or not err.simtlab_knob then error(err, 0) end
        held = err.simtlab_knob
      end
    else
      t.steps[i](L)
    end
    if simt.on_stage() then simt.lesson_knobs(knobs, L.uses_gpu_keys) end
    if L.window then
      -- wait for a key that moves: next (PageDown, Space, Right), prev
      -- (PageUp: the step before, run again), restart (R: this step again);
      -- a knob key re-runs a step that made its GPU with L.gpu, and says so
      -- when the step has none (a key pressed before the run started re-runs
      -- the step either way: it waits for Space again, on the changed GPU)
      local ev
      repeat
        if held then ev, held = held, "restart" else ev = simt.pause() end
        local key = KEYS[ev]
        if key and L.uses_gpu_keys then
          scale[key[1]] = math.max(1 / 8, math.min(8, scale[key[1]] * key[2]))
          simt.status{ en = string.format("step %d again on a changed GPU: SMs x%g, DRAM bandwidth x%g", i, scale.sms,
                                          scale.dram),
                       zh = string.format("用改过的 GPU 重跑第 %d 步：SM 数 x%g，显存带宽 x%g", i, scale.sms, scale.dram) }
          ev = "restart"
        elseif key then
          simt.status{ en = "this step runs no GPU that the keys [ ] , . change", zh = "这一步没有可以用 [ ] , . 键改变的 GPU" }
        end
      until ev == nil or ev == "next" or ev == "prev" or ev == "restart" or ev == "quit"
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
