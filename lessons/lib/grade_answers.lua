-- grade_answers.lua - exercises answered with a word or a number, not a
-- kernel (part two's audience includes people who write no code):
--
--   simtlab check 9 --answer bf16        (course.lua answer 9 bf16 [--json])
--   local GA = require("grade_answers")
--   local r = GA.check(13, "132", {quiet = true})   -- r.pass, r.msg, r.rows
--
-- The answer is checked on the simulator's numbers, never against a stored
-- string: the grader runs the student's choice and every other choice on the
-- same simulated GPU and passes it when it meets the exercise's condition
-- and nothing else does better (within a stated tolerance). The starter
-- answer (in lessons/exercises/NN_name.md) must fail and the reference
-- answer (lessons/exercises/solutions/NN_name.md, repeated here as
-- `reference` so `simtlab lessons --check` can test it) must pass.
--
-- Lessons 11, 12, 14 and 15 ask their question in the lesson and take the
-- answer as the knob `answer=` (`simtlab lesson 11 answer=109`); the same
-- answer given here (`simtlab check 11 --answer 109`) runs that lesson
-- headless with the knob and reports its verdict (L.answered), with the
-- lesson's other knobs at their defaults. `lessons --check` runs those
-- lessons already (each claims that its answer exists), so check_references
-- does not run them again.

local P = require("precision")

local GA = {}

local function ceil_div(a, b) return (a + b - 1) // b end

GA.EXERCISES = {
  -- 9: the cheapest format whose error stays under the bound, on a layer
  -- with large activations (P.layer, outliers near 100,000), 256 x 256 x 256
  -- on an 8-SM slice of the H200. Cheapest = the shortest simulated time; a
  -- format within 2% of the fastest passing one passes too.
  [9] = {
    name = "09_formats", starter = "f32", reference = "bf16", bound = 0.01, n = 256, outliers = 1e5,
    what = { en = "a format: f32, tf32, f16, bf16, e4m3 or e5m2", zh = "一种格式：f32、tf32、f16、bf16、e4m3 或 e5m2" },
    parse = function(a)
      a = tostring(a):lower():gsub("^fp8[_ -]?", ""):gsub("^fp", "f")
      for _, f in ipairs(P.formats) do if a == f then return f end end
      return nil
    end,
    -- every format's {time_us, rel_err}, run once per process
    measure = function(ex)
      if ex.cache then return ex.cache end
      local g = require("calibrate").scaled_gpu(8)   -- 8 SMs and their share of bandwidth and power
      local layer = P.layer(ex.n, { outliers = ex.outliers, seed = 3 })
      local m = {}
      for _, f in ipairs(P.formats) do
        local r = P.matmul(g, f, ex.n, "fast", false, layer)
        m[f] = { time_us = r.time_us, err = r.rel_err, kernel = r.kernel }
      end
      ex.cache = m
      return m
    end,
    judge = function(ex, f, T)
      local m = ex.measure(ex)
      local best
      for _, k in ipairs(P.formats) do
        if m[k].err <= ex.bound and (not best or m[k].time_us < m[best].time_us) then best = k end
      end
      local yours = m[f]
      local ok_err = yours.err <= ex.bound          -- false for NaN (an overflow)
      local ok_cost = best and yours.time_us <= 1.02 * m[best].time_us
      local err_s = yours.err ~= yours.err and T("NaN (an overflow: inf - inf)", "NaN（溢出：inf - inf）")
                    or string.format("%.2e", yours.err)
      local msg
      if not ok_err then
        msg = string.format(T("%s: the error is %s, above the bound %.0e", "%s：误差 %s，超过了上限 %.0e"), f, err_s, ex.bound)
      elseif not ok_cost then
        msg = string.format(T("%s keeps the error under %.0e (%s), but another format does too and runs %.0f%% faster",
                              "%s 的误差在 %.0e 以内（%s），但另一种格式也做得到，而且快 %.0f%%"), f, ex.bound, err_s,
                            100 * (1 - m[best].time_us / yours.time_us))
      else
        msg = string.format(T("%s: error %s under %.0e, and no format that keeps it under runs faster",
                              "%s：误差 %s 在 %.0e 以内，而且误差达标的格式里没有更快的"), f, err_s, ex.bound)
      end
      return ok_err and ok_cost, msg, { { T("your format", "你的格式"), f }, { T("time (8-SM slice)", "时间（8 个 SM 的切片）"),
               string.format("%.2f us", yours.time_us) }, { T("error vs FP64", "相对 FP64 的误差"), err_s },
               { T("kernel", "核函数"), yours.kernel } }
    end,
  },
  -- 13: a fixed job (TRIPS loop trips of micro_fma8 in blocks of 1,024
  -- threads) split into G blocks of ceil(TRIPS / G) trips each, on the whole
  -- H200 model. Passes when its time is within 3% of the best G in 1 .. 1,320.
  [13] = {
    name = "13_waves", starter = "128", reference = "132", trips = 2640, lo = 1, hi = 1320, tolerance = 1.03,
    what = { en = "a whole number of blocks from 1 to 1,320", zh = "1 到 1,320 之间的整数块数" },
    parse = function(a)
      local v = math.tointeger(tonumber(a))
      if v and v >= 1 and v <= 1320 then return v end
      return nil
    end,
    time = function(ex, G)
      ex.times = ex.times or {}
      if ex.times[G] then return ex.times[G] end
      local g = simt.gpu{ arch = "h200" }
      local out = g:tensor{ G * 1024 }
      local r = g:launch(simt.kernel("lessons/kernels/micro_fma8.s"), { grid = G, block = 1024 },
                         ceil_div(ex.trips, G), out)
      ex.times[G] = r.time_us
      return r.time_us
    end,
    judge = function(ex, G, T)
      local yours = ex.time(ex, G)
      -- the best split: the time is set by the busiest SM (blocks per SM x
      -- trips per block), so the candidates are whole waves of the SMs;
      -- each is run, never assumed
      local sms = simt.gpu{ arch = "h200" }.desc.sms
      local best, bestG = math.huge, nil
      for k = 1, 2 do      -- one and two whole waves (more waves only add block starts)
        local c = k * sms
        do
          local t = ex.time(ex, c)
          if t < best then best, bestG = t, c end
        end
      end
      if yours < best then best, bestG = yours, G end
      local ok = yours <= ex.tolerance * best
      local waves = ceil_div(G, sms)
      local msg
      if ok then
        msg = string.format(T("%d blocks: %.2f us, within %.0f%% of the fastest split", "%d 块：%.2f 微秒，与最快的切法相差不到 %.0f%%"),
                            G, yours, 100 * (ex.tolerance - 1))
      else
        msg = string.format(T("%d blocks: %.2f us, %.0f%% slower than the fastest split (wave(s) of the %d SMs: %d; %s)",
                              "%d 块：%.2f 微秒，比最快的切法慢 %.0f%%（%d 个 SM 要跑 %d 波；%s）"),
                            G, yours, 100 * (yours / best - 1), sms, waves,
                            G % sms == 0 and string.format(T("the waves are full, but each block's share, %d trips, "
                              .. "is rounded up or too short to pay for starting a block", "每波都是满的，但每块分到的 %d "
                              .. "次循环被向上取整了，或者太短，抵不上启动一个线程块的开销"), ceil_div(ex.trips, G))
                              or string.format(T("in the last one only %d of %d SMs work", "最后一波只有 %d/%d 个 SM 在干活"),
                                               G % sms, sms))
      end
      return ok, msg, { { T("your blocks", "你的块数"), tostring(G) }, { T("trips per block", "每块循环次数"), tostring(ceil_div(ex.trips, G)) },
                        { T("waves of the SMs", "SM 的波数"), tostring(waves) }, { T("time", "时间"), string.format("%.2f us", yours) } }
    end,
  },
}

-- the exercises a lesson judges itself (its `answer=` knob)
for _, n in ipairs{ 11, 12, 14, 15 } do
  GA.EXERCISES[n] = { lesson = true }
end

-- Run lesson n headless with answer = a; its verdict as (pass, msg).
local function lesson_verdict(n, a, T, lang)
  local runner = require("runner")
  local ok, L = pcall(runner.run, n, { quiet = true, lang = lang, knobs = { answer = tostring(a) } })
  if not ok then   -- a knob the lesson refuses: not a number, out of range
    return false, string.format(T("'%s' is not an answer to exercise %d: %s", "“%s”不是练习 %d 的答案：%s"),
                                tostring(a), n, ((type(L) == "table" and L.message or tostring(L)):gsub("\n.*", "")))
  end
  if not L.answer then
    return false, string.format(T("'%s' is not an answer to exercise %d: run `simtlab lesson %d` to see the question",
                                  "“%s”不是练习 %d 的答案：运行 `simtlab lesson %d` 看题目"), tostring(a), n, n)
  end
  return L.answer.ok, lang == "zh" and L.answer.msg.zh or L.answer.msg.en
end

local grade = require("grade")
local json_str = grade.json_str

-- GA.check(n, answer, opts) -> {exercise, answer, pass, msg, rows}.
-- opts: json (one line of JSON), quiet, lang.
function GA.check(n, answer, opts)
  opts = opts or {}
  local ex = grade.exercise(GA.EXERCISES, n, "exercise %s is not answered with --answer (those are: %s)")
  local T, zh = grade.chooser(opts)
  local res = { exercise = n, answer = tostring(answer), pass = false, rows = {} }
  local v = not ex.lesson and ex.parse(answer)
  if ex.lesson then
    res.pass, res.msg = lesson_verdict(n, answer, T, zh and "zh" or "en")
  elseif v == nil then
    res.msg = string.format(T("'%s' is not an answer to exercise %d: give %s", "“%s”不是练习 %d 的答案：请给出%s"),
                            tostring(answer), n, T(ex.what.en, ex.what.zh))
  else
    res.pass, res.msg, res.rows = ex.judge(ex, v, T)
  end
  if opts.quiet then return res end
  if opts.json then
    print(string.format('{"exercise": %d, "answer": %s, "pass": %s, "msg": %s}', n, json_str(res.answer),
                        tostring(res.pass), json_str(res.msg)))
    return res
  end
  print(string.format(T("exercise %d (answer %s): %s", "练习 %d（答案 %s）：%s"), n, res.answer,
                      res.pass and T("PASS", "通过") or T("NOT YET", "还没通过")))
  print("  " .. res.msg)
  for _, r in ipairs(res.rows) do print(string.format("    %-22s %s", r[1], r[2])) end
  return res
end

-- Every answer exercise: the starter answer must fail, the reference pass.
function GA.check_references(opts)
  opts = opts or {}
  local out = { ok = true }
  local list = {}
  for k in pairs(GA.EXERCISES) do list[#list + 1] = k end
  table.sort(list)
  for _, n in ipairs(list) do
    local want = not opts.only
    for _, m in ipairs(opts.only or {}) do if m == n then want = true end end
    if want and not GA.EXERCISES[n].lesson then
      local ex = GA.EXERCISES[n]
      local sol = GA.check(n, ex.reference, { quiet = true })
      local st = GA.check(n, ex.starter, { quiet = true })
      local ok = sol.pass and not st.pass
      if not ok then out.ok = false end
      out[n] = { solution = sol, starter = st, ok = ok }
      print(string.format("exercise %d: reference answer %s, starter answer %s%s", n, sol.pass and "passes" or "FAILS",
                          st.pass and "PASSES" or "fails", ok and "" or "  <- wrong"))
    end
  end
  return out
end

return GA
