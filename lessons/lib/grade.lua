-- grade.lua - grade a student's kernel for an exercise (lessons/exercises/).
--
--   local grade = require("grade")
--   local r = grade.check(5, "my_05.s", {json = false, quiet = false})
--   -- r = {pass, correct = {ok, msg}, sound = {ok, msg}, cheap = {ok, score, yours, reference, metric}}
--
-- Three parts, all on the exercise's fixed launch:
--   correct  the output on fixed seeds plus hidden edge cases (sizes 1, 2, 3,
--            not a power of two, more than one block) and the budget case,
--            "yours / expected" and which cells differ on failure (run with
--            check = false). Inputs stay on the host: the expected output is
--            computed from them before the launch, and a kernel that changes
--            an input it must only read fails;
--   sound    the same launches under the kernel checker (check = true):
--            out-of-bounds, races (shared memory, and two threads storing
--            the same global element), missing barriers, uninitialised
--            reads fail even when the numbers are right;
--   cheap    the costs the exercise teaches (cycles; global sectors, where
--            an atomic counts as a read and a write; shared-memory
--            wavefronts) on the budget case, whose output is checked again,
--            against the reference solution in lessons/exercises/solutions/:
--            full marks up to `full` x the reference's, none from `zero` x,
--            the lowest score of the metrics; where the exercise is about a
--            technique (tiles in shared memory) a kernel without it fails.
-- A kernel passes when all three pass. tests/lua/test_grade_cheats.lua
-- keeps the cheating kernels this has to catch.

local grade = {}

local function lcg(seed)
  local s = seed
  return function()
    s = (s * 1103515245 + 12345) % 2147483648
    return s
  end
end

-- Integer-valued floats in [-64, 64): exact in f32, so every expected
-- value is exact.
local function ints(count, seed)
  local r, t = lcg(seed), {}
  for i = 1, count do t[i] = (r() % 128) - 64 end
  return t
end

-- The f32 nearest to v (what a GPU register holds).
local function f32(v) return (string.unpack("f", string.pack("f", v))) end

-- Floats in [-64, 64) with 20 significant bits (exact in f32), so that
-- adding 0.1 rounds at almost every step.
local function fracs(count, seed)
  local r, t = lcg(seed), {}
  for i = 1, count do t[i] = ((r() % 1048576) - 524288) / 8192 end
  return t
end

local function ceil_div(a, b) return (a + b - 1) // b end

-- The inputs a kernel must only read: its device tensor against the
-- host copy the expected values were computed from (nil when unchanged).
local function changed(name, dev, host)
  local got = dev:to_table()
  for i = 1, #host do
    if got[i] ~= host[i] then
      return string.format("the kernel changed its input '%s' (cell %d: %.6g, was %.6g); it must only read it",
                           name, i - 1, got[i], host[i])
    end
  end
  return nil
end

-- Every exercise: cases (fixed seeds and edge sizes) and the budget case,
-- which is checked like the others and also timed. run(g, k, c, check)
-- keeps the inputs on the host, computes the expected output from them
-- BEFORE the launch, and returns r, got, want, tolerance and, if the
-- kernel wrote to an input, what changed. metrics: the cost the exercise
-- teaches, each scored from `full` (full marks) to `zero` x the reference
-- solution's; the score is the lowest. needs(r, ref): nil, or why the
-- kernel does not use the technique the exercise is about.
grade.EXERCISES = {
  [3] = {
    name = "03_divergence", arch = "edu-tiny",
    metrics = { { key = "cycles", full = 1.15, zero = 1.35, what = { en = "cycles", zh = "周期数" } } },
    cases = { { n = 1 }, { n = 2 }, { n = 3 }, { n = 100 }, { n = 333 }, { n = 1000, seed = 7 } },
    budget_case = { n = 4096 },
    run = function(g, k, c, check)
      local iters = c.iters or 32
      local x = fracs(c.n, c.seed or 1)
      -- the loops' f32 rounding makes the work data-dependent: a closed
      -- form (x + iters x 0.1) gives other bits than iters additions
      local want, up, down = {}, f32(0.1), f32(0.3)
      for e = 1, c.n do
        local v = x[e]
        for _ = 1, iters do v = f32((e - 1) % 2 == 0 and v + up or v - down) end
        want[e] = v
      end
      local A = g:tensor{ c.n, init = x, name = "in" }
      local out = g:tensor{ c.n, name = "out" }
      local r = g:launch(k, { grid = ceil_div(c.n, 128), block = 128, check = check }, A, out, iters, c.n)
      return r, out:to_table(), want, 0, changed("in", A, x)
    end,
  },
  [5] = {
    name = "05_coalescing", arch = "edu-tiny",
    -- atomics count as the reads and writes they are (simulator stats)
    metrics = { { key = "sectors", full = 1.1, zero = 2.0,
                  what = { en = "global load + store sectors", zh = "全局读写扇区数" } } },
    cases = { { rows = 1, cols = 1 }, { rows = 2, cols = 1 }, { rows = 1, cols = 3 }, { rows = 3, cols = 5 },
              { rows = 37, cols = 45 }, { rows = 64, cols = 64, seed = 9 } },
    budget_case = { rows = 64, cols = 64 },
    run = function(g, k, c, check)
      local n = c.rows * c.cols
      local x = ints(n, c.seed or 2)
      local want = {}
      for i = 1, n do want[i] = 2 * x[i] + 1 end
      local A = g:tensor{ n, init = x, name = "in" }
      local out = g:tensor{ n, name = "out" }
      local r = g:launch(k, { grid = ceil_div(n, 128), block = 128, check = check }, A, out, c.rows, c.cols)
      return r, out:to_table(), want, 0, changed("in", A, x)
    end,
  },
  [6] = {
    name = "06_tiling", arch = "edu-tiny",
    -- all global traffic (an atomic is a read and a write), not only
    -- loads: moving loads into atomics or stores saves nothing
    metrics = { { key = "sectors", full = 1.1, zero = 4.0,
                  what = { en = "global load + store sectors", zh = "全局读写扇区数" } } },
    cases = { { n = 1 }, { n = 2 }, { n = 3 }, { n = 17 }, { n = 33, seed = 5 } },
    budget_case = { n = 64 },
    needs = function(r, ref)
      if r.sld_requests == 0 then
        return { en = "the exercise is about tiles in shared memory: your kernel reads no shared memory",
                 zh = "这个练习讲的是共享内存中的分块：你的内核没有读共享内存" }
      end
    end,
    run = function(g, k, c, check)
      local n = c.n
      local Ah = simt.tensor{ n, n, init = "random", seed = c.seed or 1 }
      local Bh = simt.tensor{ n, n, init = "random", seed = (c.seed or 1) + 1 }
      local want = simt.ref.matmul(Ah, Bh):to_table()   -- before the launch, from the host copies
      local A = g:tensor{ n, n, init = Ah, name = "A" }
      local B = g:tensor{ n, n, init = Bh, name = "B" }
      local C = g:tensor{ n, n, name = "C" }
      local b = ceil_div(n, 16)
      local r = g:launch(k, { grid = { b, b }, block = { 16, 16 }, check = check }, A, B, C, n)
      return r, C:to_table(), want, 1e-4 + 2e-6 * n, changed("A", A, Ah:to_table()) or changed("B", B, Bh:to_table())
    end,
  },
  [7] = {
    name = "07_bank_conflicts", arch = "edu-tiny",
    -- shared-memory wavefronts, and the global traffic a transpose without
    -- the shared tile would pay instead
    metrics = { { key = "smem_wavefronts", full = 1.1, zero = 2.0,
                  what = { en = "shared-memory wavefronts", zh = "共享内存 wavefront 数" } },
                { key = "sectors", full = 1.1, zero = 2.0,
                  what = { en = "global load + store sectors", zh = "全局读写扇区数" } } },
    cases = { { rows = 1, cols = 1 }, { rows = 2, cols = 3 }, { rows = 3, cols = 2 }, { rows = 33, cols = 40 },
              { rows = 64, cols = 96, seed = 4 } },
    budget_case = { rows = 64, cols = 64 },
    needs = function(r, ref)
      if r.smem_wavefronts * 2 < ref.smem_wavefronts or r.sld_requests == 0 or r.sst_requests == 0 then
        return { en = "the exercise is about the shared-memory tile: your kernel does not pass the data through "
                      .. "shared memory as the reference does",
                 zh = "这个练习讲的是共享内存中的分块：你的内核没有像参考答案那样经过共享内存传递数据" }
      end
    end,
    run = function(g, k, c, check)
      local n = c.rows * c.cols
      local x = ints(n, c.seed or 3)
      local want = {}
      for rr = 0, c.rows - 1 do
        for cc = 0, c.cols - 1 do want[cc * c.rows + rr + 1] = x[rr * c.cols + cc + 1] end
      end
      local A = g:tensor{ n, init = x, name = "in" }
      local out = g:tensor{ n, name = "out" }
      local r = g:launch(k, { grid = { ceil_div(c.cols, 32), ceil_div(c.rows, 32) }, block = { 32, 8 },
                              check = check }, A, out, c.rows, c.cols)
      return r, out:to_table(), want, 0, changed("in", A, x)
    end,
  },
}
for _, ex in pairs(grade.EXERCISES) do ex.metric = ex.metrics[1].key end   -- the first, for --json

local function metric(key, r)
  if key == "sectors" then return r.gld_sectors + r.gst_sectors end
  return r[key]
end

-- Score of yours against ref on one metric m: 1 up to m.full x, 0 from m.zero x.
local function score_of(m, yours, ref)
  local ratio = yours / math.max(1, ref)
  return ratio <= m.full and 1 or (ratio >= m.zero and 0 or (m.zero - ratio) / (m.zero - m.full)), ratio
end

-- "path/grade.lua:88: msg" -> "msg" (the position is the grader's, not the student's)
local function clean(e) return (tostring(e):gsub("^[^\n]-grade%.lua:%d+: ", "")) end

local function case_name(c)
  if c.n then return "n = " .. c.n end
  return string.format("%d x %d", c.rows, c.cols)
end

local function starter_path(n) return "lessons/exercises/" .. grade.EXERCISES[n].name .. ".s" end
local function solution_path(n) return "lessons/exercises/solutions/" .. grade.EXERCISES[n].name .. ".s" end
grade.starter_path, grade.solution_path = starter_path, solution_path

local function json_str(s)
  return '"' .. tostring(s):gsub('[%c"\\]', function(ch)
    if ch == '"' then return '\\"' elseif ch == "\\" then return "\\\\" elseif ch == "\n" then return "\\n" end
    return string.format("\\u%04x", ch:byte())
  end) .. '"'
end

grade.json_str = json_str   -- also for lib/grade_answers.lua

-- The exercise numbered n in list, or an error naming every number there is
-- (why: a line "%s ... (%s)" with the asked number and the list).
function grade.exercise(list, n, why)
  local ex = list[n]
  if ex then return ex end
  local have = {}
  for k in pairs(list) do have[#have + 1] = k end
  table.sort(have)
  error(string.format(why, tostring(n), table.concat(have, ", ")), 0)
end

-- T(en, zh): the string in the language opts.lang asks for (else simtlab's).
function grade.chooser(opts)
  local zh = (opts.lang or simt.lang()) == "zh"
  return function(en, cn) return zh and cn or en end, zh
end

-- One line of JSON for a result of grade.check (for a class's scripts).
function grade.to_json(res)
  local c = res.cheap
  local ex = grade.EXERCISES[res.exercise]
  return string.format('{"exercise": %d, "file": %s, "pass": %s, "correct": {"ok": %s, "msg": %s}, '
                       .. '"sound": {"ok": %s, "msg": %s}, "cheap": {"ok": %s, "score": %.3f, "metric": %s, '
                       .. '"yours": %s, "reference": %s, "msg": %s}}',
                       res.exercise, json_str(res.file), tostring(res.pass), tostring(res.correct.ok),
                       json_str(res.correct.msg), tostring(res.sound.ok), json_str(res.sound.msg), tostring(c.ok),
                       c.score or 0, json_str(ex.metric), c.yours and string.format("%d", c.yours) or "null",
                       c.reference and string.format("%d", c.reference) or "null", json_str(c.msg or ""))
end

-- grade.check(n, file, opts) -> result table (see the top of the file).
-- opts: json (print JSON instead of text), quiet (print nothing),
-- lang ("en"/"zh", default simt.lang()).
function grade.check(n, file, opts)
  opts = opts or {}
  local ex = grade.exercise(grade.EXERCISES, n, "there is no exercise for lesson %s (exercises: %s)")
  local T = grade.chooser(opts)
  local res = { exercise = n, file = file, pass = false }
  local okk, k = pcall(simt.kernel, file)
  if not okk then
    res.correct = { ok = false, msg = T("does not assemble: ", "无法汇编：") .. tostring(k) }
    res.sound = { ok = false, msg = T("not run", "未运行") }
    res.cheap = { ok = false, score = 0, msg = T("not run", "未运行") }
  else
    -- correct: every case, the budget case too, without the checker
    local all = {}
    for _, c in ipairs(ex.cases) do all[#all + 1] = c end
    all[#all + 1] = ex.budget_case
    -- a wrong output, or an input the kernel changed: a message, else nil
    local function wrong(c, got, want, tol, altered)
      if altered then return string.format(T("%s: %s", "%s：%s"), case_name(c), altered) end
      local bad = {}
      for i = 1, #want do
        if not (math.abs((got[i] or 0 / 0) - want[i]) <= tol) then bad[#bad + 1] = i end
      end
      if #bad == 0 then return nil, nil end
      local lines = {}
      for j = 1, math.min(5, #bad) do
        local i = bad[j]
        lines[#lines + 1] = string.format(T("cell %d: yours %.9g / expected %.9g", "第 %d 格：你的 %.9g / 应为 %.9g"),
                                          i - 1, got[i], want[i])
      end
      return string.format(T("%s: %d of %d cells differ (0-based):\n      %s",
                             "%s：%d/%d 个格子不对（下标从 0 开始）：\n      %s"),
                           case_name(c), #bad, #want, table.concat(lines, "\n      ")), bad
    end
    local correct = { ok = true, msg = T("all cases match", "所有测试用例都正确") }
    for _, c in ipairs(all) do
      local g = simt.gpu{ arch = ex.arch }
      local ok, r, got, want, tol, altered = pcall(ex.run, g, k, c, false)
      if not ok then
        correct = { ok = false, msg = string.format(T("%s: the kernel failed: %s", "%s：内核运行失败：%s"),
                                                    case_name(c), clean(r)) }
        break
      end
      local msg, bad = wrong(c, got, want, tol or 0, altered)
      if msg then
        correct = { ok = false, cells = bad, msg = msg }
        break
      end
    end
    res.correct = correct
    -- sound: the same cases under the checker (which also reports two
    -- threads storing the same global element: a write-write race)
    local sound = { ok = true, msg = T("the checker found no fault", "检查器没有发现问题") }
    for _, c in ipairs(all) do
      local g = simt.gpu{ arch = ex.arch }
      local ok, err = pcall(ex.run, g, k, c, true)
      if not ok then
        sound = { ok = false, msg = string.format(T("%s: %s", "%s：%s"), case_name(c), clean(err)) }
        break
      end
    end
    res.sound = sound
    -- cheap: the budget case against the reference solution; its output
    -- is checked again here (the run timed is the run checked)
    -- the reference beside this file (simt.kernel looks beside its caller
    -- first), never one a student's folder could plant as lessons/exercises/
    local refk = simt.kernel("../exercises/solutions/" .. ex.name .. ".s")
    local g1, g2 = simt.gpu{ arch = ex.arch }, simt.gpu{ arch = ex.arch }
    local ok1, r1, got1, want1, tol1, altered1 = pcall(ex.run, g1, k, ex.budget_case, false)
    local r2 = ex.run(g2, refk, ex.budget_case, false)
    local first = ex.metrics[1]
    local ref_v = metric(first.key, r2)
    local bad1 = ok1 and wrong(ex.budget_case, got1, want1, tol1 or 0, altered1)
    local needs = ok1 and not bad1 and ex.needs and ex.needs(r1, r2)
    if not ok1 or bad1 or needs then
      res.cheap = { ok = false, score = 0, reference = ref_v,
                    msg = not ok1 and clean(r1) or bad1 or T(needs.en, needs.zh) }
    else
      local score, ratio, yours, msgs = 1, nil, nil, {}
      for i, m in ipairs(ex.metrics) do
        local y, rv = metric(m.key, r1), metric(m.key, r2)
        local sc, ra = score_of(m, y, rv)
        if i == 1 then yours, ratio = y, ra end
        score = math.min(score, sc)
        msgs[#msgs + 1] = string.format(T("%s: %.2f x the reference (full marks up to %.2f x, none from %.2f x)",
                                          "%s：参考答案的 %.2f 倍（%.2f 倍以内满分，%.2f 倍起零分）"),
                                        T(m.what.en, m.what.zh), ra, m.full, m.zero)
      end
      res.cheap = {
        ok = score > 0, score = score, yours = yours, reference = ref_v, ratio = ratio, metric = first.key,
        full = first.full, zero = first.zero,
        table = { { "", T("yours", "你的"), T("reference", "参考答案") },
                  { T("cycles", "周期数"), r1.cycles, r2.cycles },
                  { T("global sectors", "全局扇区"), r1.gld_sectors + r1.gst_sectors, r2.gld_sectors + r2.gst_sectors },
                  { T("DRAM bytes", "显存字节"), r1.dram_bytes, r2.dram_bytes },
                  { T("shared wavefronts", "共享内存 wavefront"), r1.smem_wavefronts, r2.smem_wavefronts } },
        msg = table.concat(msgs, T("; ", "；")) .. string.format(T(": score %.0f%%", "：得分 %.0f%%"), 100 * score),
      }
    end
  end
  if okk and not res.correct.ok and res.cheap.ok then
    res.cheap.ok, res.cheap.score = false, 0
    res.cheap.msg = T("not graded while the output is wrong", "结果不正确，暂不计分")
  end
  res.pass = res.correct.ok and res.sound.ok and res.cheap.ok
  if opts.quiet then return res end
  if opts.json then
    print(grade.to_json(res))
    return res
  end
  local function mark(ok) return ok and T("pass", "通过") or T("FAIL", "不通过") end
  print(string.format(T("exercise %d (%s): %s", "练习 %d（%s）：%s"), n, file, res.pass and T("PASS", "通过") or T("NOT YET", "还没通过")))
  print(string.format(T("  correct  %s  %s", "  正确性  %s  %s"), mark(res.correct.ok), res.correct.msg))
  print(string.format(T("  sound    %s  %s", "  可靠性  %s  %s"), mark(res.sound.ok), (res.sound.msg:gsub("\n", "\n           "))))
  print(string.format(T("  cheap    %s  %s", "  开销    %s  %s"), mark(res.cheap.ok), res.cheap.msg or ""))
  if res.cheap.table then
    for _, row in ipairs(res.cheap.table) do
      print(string.format("           %-22s %14s | %s", tostring(row[1]),
                          tostring(row[2]), tostring(row[3])))
    end
  end
  return res
end

-- Every exercise: the starter must fail and the reference solution pass.
-- Returns {ok, [n] = {starter = res, solution = res}}; prints one line each.
function grade.check_references(opts)
  opts = opts or {}
  local out = { ok = true }
  local list = {}
  for k in pairs(grade.EXERCISES) do list[#list + 1] = k end
  table.sort(list)
  for _, n in ipairs(list) do
    local want = true
    if opts.only then
      want = false
      for _, m in ipairs(opts.only) do if m == n then want = true end end
    end
    if want then
      local sol = grade.check(n, solution_path(n), { quiet = true })
      local st = grade.check(n, starter_path(n), { quiet = true })
      local ok = sol.pass and not st.pass
      out[n] = { solution = sol, starter = st, ok = ok }
      if not ok then out.ok = false end
      print(string.format("exercise %d: reference %s, starter %s%s", n, sol.pass and "passes" or "FAILS",
                          st.pass and "PASSES" or "fails", ok and "" or "  <- wrong"))
    end
  end
  return out
end

return grade
