-- lesson.lua - the lesson format and the API a lesson author uses.
--
-- A lesson is lessons/NN_name.lua and returns a table:
--
--   return {
--     meta = {
--       number = 3,
--       title   = {en = "Divergence", zh = "分支发散"},
--       concept = {en = "one sentence", zh = "一句话"},
--       minutes = 10,
--       knobs = {   -- what a student may change: simtlab lesson 3 paths=8
--         {name = "paths", range = {1, 32}, default = 32,
--          en = "paths per warp", zh = "每个 warp 的分支数"},
--         -- a word knob: range = {"what it takes"}; example = "h100" is shown
--         -- in the stage's knob line when the default is no example ("")
--       },
--     },
--     steps = {
--       function(L) L.say{en = "...", zh = "..."} end,
--       function(L) local r = L.run(g, "micro_diverge", cfg, ...)
--                   L.expect(r.cycles > 0, {en = "...", zh = "..."}, "detail") end,
--     },
--   }
--
-- Steps run in order. In a window the lesson waits after each step:
-- PageDown / Space / Right go on, PageUp goes back and runs that step
-- again. Headless (a server, `--check`), every step runs to the end with
-- its checks. The same lesson gives the same numbers both ways.
--
-- The API (L is passed to every step; it is also the lesson's scratch
-- table: set L.foo in one step, read it in a later one):
--   L.say{en=, zh=}         the words below the picture (stdout headless)
--   L.text{en=, zh=}        the string in the chosen language (for format)
--   L.kernel(name)          lessons/kernels/NAME.s (or a path ending in .s)
--   L.run(dev, k, cfg, ...) dev:launch(k, cfg, ...) (k: a kernel or a name),
--                           shown on the stage when there is one; cfg.show = false
--                           paints no output (a checksum), cfg.pace = US slows a blink
--                           of a run to US simulated µs per second on the stage
--   L.race{{dev, k, cfg, args...}, ...}  several launches on one clock
--   L.chart{title=, x_label=, y_label=, x=, series={{name=, y=}}, log_x=,
--           roofline = {peak_gflops=, peak_gbs=, points={{name=, ai=, gflops=}}}}
--                           a table on stdout, a PNG when the runner was
--                           with charts on, as NAME.png in the output folder (simt.roofline;
--                           on a stage the roofline is shown in place of the runs);
--                           on a stage the chart is drawn beside the runs (axes,
--                           legend, both languages). Optional fields: note = {en=, zh=}
--                           (the one-sentence conclusion under it), measured = true in
--                           a series (a real GPU's numbers: hollow squares, dashed),
--                           xtext = {"1", "2", ...} (how the x values are written).
--                           A roofline is a board too (redrawn every frame: size, zoom,
--                           theme, the L key); with live = true it returns c with
--                           c:add{name=, ai=, gflops=} (the point appears) and c:done(note).
--     live = true           returns a chart that fills in as the experiment runs:
--                             local c = L.chart{..., live = true, run_label = {en = "paths = %s", zh = "路径数 = %s"}}
--                             for i, P in ipairs(PATHS) do
--                               local r = c:run(i, g, "micro_diverge", cfg, ...)  -- L.run labelled "paths = 8"
--                               c:set(1, i, r.cycles)                             -- the point appears
--                             end
--                             c:done{en = "conclusion", zh = "结论"}              -- stdout table, PNG, note
--                           (series y tables may start empty; run_label defaults to
--                           "X_LABEL = x"). When a library launches the runs
--                           (conv.igemm, decode.matrix), c:at(i) labels them and marks x i
--                           before the call, and c:set fills the point after it.
--   L.table{name=, title=, columns={c1, c2, ...}, rows={{v1, v2, ...}, ...}, note=}
--                           a table with aligned columns (titles and column
--                           names a string or {en=, zh=}; cells strings, numbers or
--                           {en=, zh=}); on a stage drawn as a table beside the runs
--   L.label{en=, zh=}       what the next runs are, shown on them ("warps per SM = 16"; nil: none)
--   L.gpu{arch=, ...}       simt.gpu with the window's knob keys applied ([ ] halve or
--                           double the SMs, , . the DRAM bandwidth); a step that makes
--                           its GPUs with L.gpu is re-run by those keys
--   L.knob(name)            the knob's value: the command line's, else the default
--   L.answered(ok, right, wrong)  the verdict on the student's `answer=` knob:
--                           says `right` or `wrong` ({en=, zh=}) and keeps it in
--                           L.answer = {ok =, msg =} for `simtlab check N --answer A`
--   L.expect(cond, {en=, zh=}, detail)  a claim checked on the simulator's
--                           numbers; false raises "lessons/NN_x.lua:LINE:
--                           claim does not hold: ..." (the caller's line);
--                           detail a string or {en=, zh=} (L.text_both(fmt_en,
--                           fmt_zh, ...) makes one from two formats)
--   L.pause()               wait for a key in a window (returns its event);
--                           nothing headless (returns nil)
--   L.lang, L.window        "en"/"zh"; true when a person is watching
--   L.fmt_us(us), L.fmt_x(ratio [, "zh"]), L.commas(n)   number formatting
--                           ("283x"; with "zh": "283 倍")
-- Knobs (meta.knobs {name, range, default, en, zh}) are checked before the
-- first step: a misspelled or out-of-range knob is an error naming them all.
-- Every number a lesson shows must come from a launch result or a cited
-- measurement (say which). A claim that does not hold must fail loudly.

local lesson = {}

local function commas(x)
  local s = string.format("%d", math.floor(x + 0.5))
  local neg = s:sub(1, 1) == "-"
  if neg then s = s:sub(2) end
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return (neg and "-" or "") .. out
end

-- a number as a reader reads it: 16,384 rather than 1.64e+04, 3.5, 0.042
local function readable(x)
  local a = math.abs(x)
  if a ~= a or a == math.huge then return tostring(x) end   -- nan, inf
  if a >= 1000 then return commas(x) end
  if a >= 100 or x == math.floor(x) then return string.format("%.0f", x) end   -- a count: 32, not 32.0
  if a >= 10 then return string.format("%.1f", x) end
  if a == 0 then return "0" end
  return string.format("%.2g", x)
end

local function fmt_us(us)
  if us >= 1e6 then return string.format("%.2f s", us / 1e6) end
  if us >= 1000 then return string.format("%.2f ms", us / 1000) end
  if us >= 10 then return string.format("%.1f µs", us) end
  return string.format("%.2f µs", us)
end

local function fmt_x(r, lang)
  local s
  if r >= 100 then s = commas(r) elseif r >= 10 then s = string.format("%.0f", r) else s = string.format("%.1f", r) end
  return lang == "zh" and (s .. " 倍") or (s .. "x")
end

lesson.commas, lesson.fmt_us, lesson.fmt_x = commas, fmt_us, fmt_x

local kernels = {}
local function kernel(k)
  if type(k) ~= "string" then return k end
  local path = k:match("%.s$") and k or ("lessons/kernels/" .. k .. ".s")
  if not kernels[path] then kernels[path] = simt.kernel(path) end
  return kernels[path]
end
lesson.kernel = kernel

-- Check a lesson table's shape; raise naming what is wrong.
function lesson.validate(t, where)
  where = where or "lesson"
  local function bad(msg) error(where .. ": " .. msg, 0) end
  if type(t) ~= "table" then bad("a lesson file must return a table {meta = ..., steps = ...}") end
  local m = t.meta
  if type(m) ~= "table" then bad("meta is missing") end
  if math.type(m.number) ~= "integer" then bad("meta.number must be an integer") end
  for _, f in ipairs{ "title", "concept" } do
    if type(m[f]) ~= "table" or type(m[f].en) ~= "string" or type(m[f].zh) ~= "string" then
      bad("meta." .. f .. " needs en = \"...\" and zh = \"...\"")
    end
  end
  if type(m.minutes) ~= "number" then bad("meta.minutes must be a number") end
  for i, k in ipairs(m.knobs or {}) do
    if type(k.name) ~= "string" or type(k.range) ~= "table" or k.default == nil
       or type(k.en) ~= "string" or type(k.zh) ~= "string" then
      bad("meta.knobs[" .. i .. "] needs name, range = {lo, hi}, default, en and zh")
    end
  end
  if type(t.steps) ~= "table" or #t.steps == 0 then bad("steps must be a list of functions") end
  for i, s in ipairs(t.steps) do
    if type(s) ~= "function" then bad("steps[" .. i .. "] is not a function") end
  end
  return t
end

-- Check the knobs given on the command line ({name = "value"}) against
-- meta.knobs before anything runs: an unknown name, a value that is not a
-- number or one outside the range raises a message (in lang) that names
-- every knob of the lesson with its range.
-- the terminal width of a string: CJK characters take two columns
local function display_width(str)
  local w = 0
  for _, c in utf8.codes(str) do w = w + ((c >= 0x1100 and (c <= 0x115f or (c >= 0x2e80 and c <= 0xa4cf)
    or (c >= 0xac00 and c <= 0xd7a3) or (c >= 0xf900 and c <= 0xfaff) or (c >= 0xfe30 and c <= 0xfe4f)
    or (c >= 0xff00 and c <= 0xff60) or (c >= 0xffe0 and c <= 0xffe6))) and 2 or 1) end
  return w
end

-- str padded with spaces to w terminal columns, on the left (right-aligned) or right
local function pad_to(str, w, left)
  local sp = string.rep(" ", math.max(0, w - display_width(str)))
  return left and sp .. str or str .. sp
end

-- a knob's range as said to a student: "1..32" for a number, its one
-- description for a word ({en = "a preset name", zh = "一个预设名"})
local function range_text(k, lang)
  local r = k.range[1]
  if k.range[2] ~= nil then return string.format("%s..%s", tostring(r), tostring(k.range[2])) end
  return type(r) == "table" and (r[lang] or r.en) or tostring(r)
end

-- a knob's value as said to a student ("" is "none")
local function value_text(v, lang)
  if v == "" then return lang == "zh" and "无" or "none" end
  return tostring(v)
end

function lesson.check_knobs(meta, given, lang)
  local zh = lang == "zh"
  local list = {}
  for _, k in ipairs(meta.knobs or {}) do
    list[#list + 1] = string.format(zh and "%s = %s（默认 %s）：%s" or "%s = %s (default %s): %s", k.name,
                                    range_text(k, lang), value_text(k.default, lang), zh and k.zh or k.en)
  end
  local known = #list == 0 and (zh and string.format("第 %d 课没有可调参数。", meta.number)
                                    or string.format("lesson %d has no knobs.", meta.number))
                or ((zh and "本课的参数：\n  " or "its knobs:\n  ") .. table.concat(list, "\n  "))
  local names = {}
  for name in pairs(given or {}) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local v, spec = given[name], nil
    for _, k in ipairs(meta.knobs or {}) do if k.name == name then spec = k end end
    local why
    if not spec then
      why = zh and string.format("第 %d 课没有叫“%s”的参数", meta.number, name)
               or string.format("lesson %d has no knob '%s'", meta.number, name)
    elseif type(spec.default) == "number" then
      local x = tonumber(v)
      if not x or (math.type(spec.default) == "integer" and x ~= math.floor(x)) then
        why = zh and string.format("参数 %s 要一个%s，得到的是“%s”", name,
                                   math.type(spec.default) == "integer" and "整数" or "数", tostring(v))
                 or string.format("knob %s needs a %s, got '%s'", name,
                                  math.type(spec.default) == "integer" and "whole number" or "number", tostring(v))
      elseif x < spec.range[1] or x > spec.range[2] then
        why = zh and string.format("参数 %s = %s 超出范围 %s..%s", name, tostring(v), tostring(spec.range[1]),
                                   tostring(spec.range[2]))
                 or string.format("knob %s = %s is outside %s..%s", name, tostring(v), tostring(spec.range[1]),
                                  tostring(spec.range[2]))
      end
    end
    -- bad usage: exit status 2, no traceback (sim/main.c)
    if why then error({ simtlab_exit = 2, message = why .. (zh and "。" or "; ") .. known }, 0) end
  end
end

-- the knobs as one line for the stage: "knobs: paths = 32 (1..32)"
function lesson.knobs_line(meta, given)
  if not meta.knobs or #meta.knobs == 0 then return nil end
  local en, zh = {}, {}
  for _, k in ipairs(meta.knobs) do
    local v = (given or {})[k.name] or k.default
    if tostring(v) == "" then   -- not given, no default: the knob and its range
      en[#en + 1] = string.format("%s (%s)", k.name, range_text(k, "en"))
      zh[#zh + 1] = string.format("%s（%s）", k.name, range_text(k, "zh"))
    else
      en[#en + 1] = string.format("%s = %s (%s)", k.name, tostring(v), range_text(k, "en"))
      zh[#zh + 1] = string.format("%s = %s（%s）", k.name, tostring(v), range_text(k, "zh"))
    end
  end
  local k1 = meta.knobs[1]
  -- a word knob without a default (an answer) shows its own example (knob.example)
  local example = k1.example and tostring(k1.example) or k1.range[2] ~= nil and tostring(k1.range[1])
                  or tostring(k1.default)
  return { en = string.format("knobs: %s, e.g. simtlab lesson %d %s=%s", table.concat(en, ", "), meta.number,
                             k1.name, example),
           zh = string.format("参数：%s，例如 simtlab lesson %d %s=%s", table.concat(zh, "，"), meta.number,
                             k1.name, example) }
end

-- A fresh L for one run of lesson t. opts: lang ("en"/"zh"), knobs
-- ({name = value} from the command line), file (for messages), charts
-- (a folder for chart PNGs, or nil), quiet (no stdout from say/expect).
function lesson.new(t, opts)
  opts = opts or {}
  local L = {}
  local meta = t.meta
  L.meta = meta
  L.file = opts.file or string.format("lessons/%02d", meta.number)
  L.lang = opts.lang or simt.lang()
  L.window = simt.on_stage() == "window"
  L.checks = {}       -- {ok = bool, en = ..., zh = ..., detail = ...} per expect
  L.notes = {}        -- the conclusions ({en=, zh=}) under the charts and tables, for the summary
  L.fmt_us, L.commas, L.kernel = fmt_us, commas, kernel

  local function text(t2)
    if type(t2) == "string" then return t2 end
    if L.lang == "zh" and t2.zh then return t2.zh end
    return t2.en or t2.zh
  end
  L.text = text
  local function text_in(t2, lang)
    if type(t2) == "string" then return t2 end
    return (lang == "zh" and t2.zh) or t2.en or t2.zh
  end
  -- "283x" in English, "283 倍" in Chinese (for zh = ... strings pass "zh")
  function L.fmt_x(r, lang) return fmt_x(r, lang or "en") end

  function L.say(t2)
    if type(t2) ~= "string" and (type(t2) ~= "table" or not (t2.en or t2.zh)) then
      error("L.say needs {en = \"...\", zh = \"...\"}", 2)
    end
    if opts.quiet and not simt.on_stage() then return end
    simt.say(t2)
  end

  -- knobs: command line value (checked against the range), else default
  local given = opts.knobs or {}
  L.given = given
  function L.knob(name)
    for _, k in ipairs(meta.knobs or {}) do
      if k.name == name then
        local v = given[name]
        if v == nil then return k.default end
        if type(k.default) == "number" then
          local x = tonumber(v)
          if not x then error(string.format("knob %s: '%s' is not a number", name, tostring(v)), 0) end
          if math.type(k.default) == "integer" then
            if x ~= math.floor(x) then error(string.format("knob %s must be a whole number, got %s", name, v), 0) end
            x = math.tointeger(x)
          end
          if x < k.range[1] or x > k.range[2] then
            error(string.format("knob %s = %s is outside %s .. %s", name, tostring(v),
                                tostring(k.range[1]), tostring(k.range[2])), 0)
          end
          return x
        end
        return v
      end
    end
    error("L.knob: this lesson has no knob '" .. tostring(name) .. "'", 2)
  end

  function L.run(dev, k, cfg, ...)
    return dev:launch(kernel(k), cfg, ...)
  end

  function L.race(list)
    local l2 = {}
    for i, e in ipairs(list) do
      local c = table.move(e, 1, #e, 1, {})
      c[2] = kernel(c[2])
      l2[i] = c
    end
    l2.interruptible = list.interruptible
    return simt.race(l2)
  end

  -- simt.roofline's arguments for a chart's roofline (GFLOP/s and GB/s in,
  -- TFLOP/s and TB/s out); points that have no DRAM traffic are left out
  local function roofline_args(c, path, title)
    local rf, pts = c.roofline, {}
    for _, p in ipairs(rf.points) do
      if p.ai and p.ai > 0 and p.ai < math.huge and p.gflops and p.gflops > 0 then
        pts[#pts + 1] = { name = p.name, intensity = p.ai, tflops = p.gflops / 1000 }
      end
    end
    return { path = path, title = title, roofs = { { name = "FP32", tflops = rf.peak_gflops / 1000 } },
             bandwidths = { { name = "DRAM", tbs = rf.peak_gbs / 1000 } }, points = pts }
  end

  -- a chart's x values as the lesson writes them
  local function xtexts(c)
    local t = {}
    for i, x in ipairs(c.x) do
      t[i] = c.xtext and c.xtext[i] or (type(x) == "string" and x)
             or (math.type(x) == "integer" and tostring(x) or readable(x))
    end
    return t
  end
  -- a chart's x values as numbers: words (GPU names) are placed 1, 2, 3 ...
  local function xnums(c)
    local t = {}
    for i, x in ipairs(c.x) do t[i] = type(x) == "number" and x or i end
    return t
  end

  -- show chart c on the stage (now: the index of the x being run, or nil)
  local function show_chart(c, now)
    if not simt.on_stage() or simt.board == nil then return end
    local series = {}
    for k, sr in ipairs(c.series) do series[k] = { name = sr.name, y = sr.y, measured = sr.measured } end
    simt.board{ kind = "chart", title = c.title or "", note = c.note, x_label = c.x_label or "", y_label = c.y_label or "",
                x = xnums(c), xtext = xtexts(c), series = series, log_x = c.log_x, now = now }
  end

  -- show a roofline chart on the stage: a board redrawn every frame (size,
  -- zoom, theme, the L key), its points those there are so far
  local function show_roofline(c)
    if not simt.on_stage() or simt.board == nil then return false end
    local rf, pts = c.roofline, {}
    for i, p in ipairs(rf.points) do
      local ok = p.ai and p.ai > 0 and p.ai < math.huge and p.gflops and p.gflops > 0
      pts[i] = { name = p.name, ai = ok and p.ai or nil, gflops = ok and p.gflops or nil }
    end
    simt.board{ kind = "roofline", title = c.title or "", note = c.note, x_label = c.x_label, y_label = c.y_label,
                roof = rf.roof_name or "FP32", peak_gflops = rf.peak_gflops, peak_gbs = rf.peak_gbs, points = pts,
                alone = c.alone }
    return true
  end

  -- the chart's table on stdout and its PNG (--charts)
  local function chart_out(c)
    local title = text(c.title or "")
    if not (opts.quiet and not simt.on_stage()) then
      local yl = not c.roofline and c.y_label and text(c.y_label) or ""
      if display_width(yl) > 12 then yl = "" end   -- a unit ("GB") is said; a long axis name is the title's
      print("  " .. title .. (yl ~= "" and text{ en = " (y: " .. yl .. ")", zh = "（纵轴：" .. yl .. "）" } or ""))
      if c.roofline then
        local rf = c.roofline
        print(string.format("    %-22s %12s %14s %14s", "", "FLOP/byte", "GFLOP/s", text{en = "ceiling", zh = "上限"}))
        for _, p in ipairs(rf.points) do
          local roof = math.min(rf.peak_gflops, p.ai * rf.peak_gbs)
          print(string.format("    %-22s %12.3g %14.4g %14.4g", p.name, p.ai, p.gflops, roof))
        end
      else
        local head = "    " .. pad_to(text(c.x_label or "x"), 14)
        for _, sr in ipairs(c.series) do head = head .. " " .. pad_to(text(sr.name), 14, true) end
        print(head)
        for i, x in ipairs(c.x) do
          local row = "    " .. pad_to(c.xtext and c.xtext[i] or tostring(x), 14)
          for _, sr in ipairs(c.series) do
            local y = sr.y[i]
            row = row .. (y and string.format(" %14.4g", y) or string.format(" %14s", "-"))
          end
          print(row)
        end
      end
      if c.note then print("  " .. text(c.note)) end
    end
    if opts.charts and c.name then
      -- a plain name: the sandbox writes it into the output folder (--out DIR)
      local path = (type(opts.charts) == "string" and opts.charts .. "/" or "") .. c.name .. ".png"
      if c.roofline and simt.roofline ~= nil then
        simt.roofline(roofline_args(c, path, title))
      elseif not c.roofline and simt.chart ~= nil then
        local series = {}
        for k, sr in ipairs(c.series) do series[k] = { name = text(sr.name), y = sr.y } end
        pcall(simt.chart, { path = path, title = title, x_label = text(c.x_label or ""),
                            y_label = text(c.y_label or ""), x = xnums(c), series = series, log_x = c.log_x })
      end
    end
  end

  -- a live chart: points set as their runs finish (see the header)
  local Live = {}
  Live.__index = Live
  function Live:at(i)
    local c, xt = self.c, xtexts(self.c)[i]
    local fmt = c.run_label or { en = text_in(c.x_label or "x", "en") .. " = %s", zh = text_in(c.x_label or "x", "zh") .. " = %s" }
    L.label{ en = string.format(text_in(fmt, "en"), xt), zh = string.format(text_in(fmt, "zh"), xt) }
    show_chart(c, i)
  end
  function Live:run(i, dev, k, cfg, ...)
    self:at(i)
    local r = L.run(dev, k, cfg, ...)
    return r
  end
  function Live:set(k, i, y)
    self.c.series[k].y[i] = y
    show_chart(self.c, nil)
  end
  function Live:done(note)
    if note then self.c.note = note end
    if self.c.note then L.notes[#L.notes + 1] = self.c.note end
    L.label(nil)
    show_chart(self.c, nil)
    chart_out(self.c)
  end

  -- a live roofline: a point appears as each kernel's run finishes
  local LiveRoof = {}
  LiveRoof.__index = LiveRoof
  function LiveRoof:add(p)
    local pts = self.c.roofline.points
    pts[#pts + 1] = p
    show_roofline(self.c)
  end
  function LiveRoof:done(note)
    if note then self.c.note = note end
    if self.c.note then L.notes[#L.notes + 1] = self.c.note end
    L.label(nil)
    self.c.alone = true   -- the runs are over: the roofline takes the whole body
    show_roofline(self.c)
    chart_out(self.c)
  end

  function L.chart(c)
    if type(c) ~= "table" or (not c.roofline and (type(c.x) ~= "table" or type(c.series) ~= "table")) then
      error("L.chart needs {title = ..., x = {...}, series = {{name = ..., y = {...}}, ...}}", 2)
    end
    local title = text(c.title or "")
    if c.live and not c.roofline then
      for _, sr in ipairs(c.series) do sr.y = sr.y or {} end
      show_chart(c, nil)
      return setmetatable({ c = c }, Live)
    end
    if c.live then
      c.roofline.points = c.roofline.points or {}
      show_roofline(c)
      return setmetatable({ c = c }, LiveRoof)
    end
    if c.roofline and simt.on_stage() then
      c.alone = true
      if not show_roofline(c) and simt.roofline ~= nil then
        simt.roofline(roofline_args(c, nil, title))   -- a picture in place of the runs
      end
    elseif not c.roofline then
      show_chart(c, nil)
    end
    if c.note then L.notes[#L.notes + 1] = c.note end
    chart_out(c)
  end

  function L.label(t2)
    if simt.on_stage() then simt.run_label(t2) end
  end

  -- simt.gpu with the window's knob keys applied: [ ] scale the SMs, , . the DRAM bandwidth
  L.scale = opts.scale or { sms = 1, dram = 1 }
  function L.gpu(t2)
    L.uses_gpu_keys = true
    if L.scale.sms == 1 and L.scale.dram == 1 then return simt.gpu(t2) end
    local d = simt.gpu{ arch = t2.arch }.desc
    local t3 = {}
    for k, v in pairs(t2) do t3[k] = v end
    t3.sms = math.max(1, math.min(1024, math.floor((t2.sms or d.sms) * L.scale.sms + 0.5)))
    t3.dram_gbps = (t2.dram_gbps or d.dram_gbps) * L.scale.dram
    return simt.gpu(t3)
  end

  local width = display_width

  -- the rows of a table as aligned text lines in language lang
  local function table_lines(t2, lang)
    local function tx(v)
      if type(v) == "table" then return (lang == "zh" and v.zh) or v.en or "" end
      if type(v) == "number" then return readable(v) end
      return tostring(v == nil and "-" or v)
    end
    local cells, w = { {} }, {}
    for j, c in ipairs(t2.columns) do cells[1][j] = tx(c) end
    for i, r in ipairs(t2.rows) do
      cells[i + 1] = {}
      for j = 1, #t2.columns do cells[i + 1][j] = tx(r[j]) end
    end
    for _, r in ipairs(cells) do
      for j, v in ipairs(r) do w[j] = math.max(w[j] or 0, width(v)) end
    end
    local lines = {}
    for i, r in ipairs(cells) do
      local parts = {}
      for j, v in ipairs(r) do
        -- the first column to the left, numbers to the right
        local pad = string.rep(" ", w[j] - width(v))
        parts[j] = (j == 1 or (i > 1 and type(t2.rows[i - 1][j]) ~= "number")) and v .. pad or pad .. v
      end
      lines[#lines + 1] = table.concat(parts, "  ")
    end
    return lines
  end

  function L.table(t2)
    if type(t2) ~= "table" or type(t2.columns) ~= "table" or type(t2.rows) ~= "table" then
      error("L.table needs {title = ..., columns = {...}, rows = {{...}, ...}}", 2)
    end
    local function tx(v, lang) if type(v) == "table" then return (lang == "zh" and v.zh) or v.en end return v or "" end
    if simt.on_stage() and simt.board ~= nil then
      local rows, numeric = {}, {}
      for j = 1, #t2.columns do numeric[j] = #t2.rows > 0 end
      for i, r in ipairs(t2.rows) do
        rows[i] = {}
        for j = 1, #t2.columns do
          local v = r[j]
          if type(v) ~= "number" then numeric[j] = false end
          rows[i][j] = type(v) == "number" and readable(v) or (v == nil and "-" or v)
        end
      end
      simt.board{ kind = "table", title = t2.title or "", note = t2.note, columns = t2.columns, rows = rows,
                  numeric = numeric, alone = t2.alone }
    end
    if t2.note then L.notes[#L.notes + 1] = t2.note end
    if not (opts.quiet and not simt.on_stage()) then
      print("  " .. tx(t2.title, L.lang))
      for _, line in ipairs(table_lines(t2, L.lang)) do print("    " .. line) end
      if t2.note then print("  " .. tx(t2.note, L.lang)) end
    end
  end

  -- {en =, zh =} from one format each and the same values (a claim's detail)
  function L.text_both(fmt_en, fmt_zh, ...)
    return { en = string.format(fmt_en, ...), zh = string.format(fmt_zh, ...) }
  end

  function L.expect(cond, claim, detail)
    if type(claim) ~= "table" or not claim.en or not claim.zh then
      error("L.expect needs a claim {en = \"...\", zh = \"...\"}", 2)
    end
    if type(detail) == "table" then detail = text(detail) end   -- {en =, zh =}: in the chosen language
    local rec = { ok = cond and true or false, en = claim.en, zh = claim.zh, detail = detail }
    L.checks[#L.checks + 1] = rec
    if cond then
      if not opts.quiet then
        print(string.format("  [%s] %s%s", text{en = "holds", zh = "成立"}, text(claim),
                            detail and ("  (" .. detail .. ")") or ""))
      end
      return true
    end
    if L.scale.sms ~= 1 or L.scale.dram ~= 1 then
      -- the window's knob keys changed the GPU: the lesson's story may not
      -- hold on it, and that is worth seeing, not a crash
      simt.status{ en = "on this changed GPU the claim does not hold: " .. claim.en,
                   zh = "换了参数的 GPU 上，这个结论不成立：" .. claim.zh }
      return false
    end
    error(string.format("claim does not hold: %s%s\n  (%s: the lesson must not tell this story "
                        .. "when the simulator's numbers disagree)", claim.en,
                        detail and (" [" .. detail .. "]") or "", claim.zh), 2)
  end

  function L.answered(ok, right, wrong)
    L.answer = { ok = ok and true or false, msg = ok and right or wrong }
    L.say(L.answer.msg)
  end

  function L.pause()
    if simt.on_stage() ~= "window" then return nil end
    return simt.pause()
  end

  return L
end

return lesson
