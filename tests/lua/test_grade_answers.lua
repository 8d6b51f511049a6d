-- test_grade_answers.lua - exercises answered with a word or a number
-- (lessons/lib/grade_answers.lua) and the precision.lua helpers they use:
-- P.layer is deterministic and shaped as documented, P.accumulate loses a
-- small update in FP16/BF16 and keeps it in FP32, and the graders pass the
-- reference answers, fail the starters and other wrong answers for the
-- reason the simulator's numbers give.
-- Run: simtlab run tests/lua/test_grade_answers.lua
local P = require("precision")
local GA = require("grade_answers")
local T = require("expect")
local expect = T.expect

-- ---- P.layer ----------------------------------------------------------------
do
  local a, b = P.layer(64), P.layer(64)
  expect(T.same(a.A, b.A) and T.same(a.B, b.B), "P.layer is deterministic")
  local A, zeros, big = a.A:to_table(), 0, 0
  for i = 1, #A do
    if A[i] == 0 then zeros = zeros + 1 end
    if A[i] > 65504 then big = big + 1 end
  end
  expect(zeros > 0.4 * #A and zeros < 0.6 * #A, ("about half the activations are 0 after ReLU (%d of %d)"):format(zeros, #A))
  expect(big == 0, "no outliers unless asked")
  local o = P.layer(64, { outliers = 1e5 }).A:to_table()
  big = 0
  for i = 1, #o do if o[i] > 65504 then big = big + 1 end end
  expect(big >= 64 and big <= 2 * 64, ("outliers fill two feature columns (%d values past 65504)"):format(big))
  local B, ss = a.B:to_table(), 0
  for i = 1, #B do ss = ss + B[i] * B[i] end
  local sd = math.sqrt(ss / #B)
  expect(math.abs(sd * math.sqrt(64) - 1) < 0.1, ("weights have spread 1/sqrt(n) (%.3f)"):format(sd))
end

-- ---- P.accumulate -----------------------------------------------------------
do
  expect(P.accumulate("f16", 1e-4, 50) == 1.0 and P.accumulate("bf16", 1e-4, 50) == 1.0,
         "an update of 1e-4 is lost in FP16 and BF16")
  expect(math.abs(P.accumulate("f32", 1e-4, 50) - 1.005) < 1e-5, "FP32 keeps it")
end

-- ---- exercise 9 -------------------------------------------------------------
do
  local function run(a) return GA.check(9, a, { quiet = true, lang = "en" }) end
  expect(run("bf16").pass, "9: bf16 (the reference) passes")
  expect(run("BF16").pass and run("fp16").answer == "fp16", "9: names are read case-insensitively, fp16 = f16")
  local f32 = run("f32")
  expect(not f32.pass and f32.msg:find("runs %d+%% faster"), "9: f32 (the starter) keeps the error but is not the cheapest: " .. f32.msg)
  local f16 = run("f16")
  expect(not f16.pass and f16.msg:find("NaN"), "9: f16 overflows on the outliers: " .. f16.msg)
  local e4 = run("e4m3")
  expect(not e4.pass and e4.msg:find("above the bound"), "9: e4m3 is faster but misses the bound: " .. e4.msg)
  expect(not run("tf32").pass, "9: tf32 keeps the error but is slower than bf16")
  expect(not run("fp64").pass and run("fp64").msg:find("not an answer"), "9: an unknown format is refused")
end

-- ---- exercise 13 ------------------------------------------------------------
do
  local function run(a) return GA.check(13, a, { quiet = true, lang = "en" }) end
  expect(run("132").pass, "13: 132 blocks (the reference) pass")
  local r = run("128")
  expect(not r.pass and r.msg:find("only 128 of 132 SMs"), "13: 128 (the starter) leaves SMs idle: " .. r.msg)
  r = run("133")
  expect(not r.pass and r.msg:find("only 1 of 132"), "13: 133 adds a nearly empty second wave: " .. r.msg)
  expect(not run("0").pass and not run("1321").pass and not run("12.5").pass, "13: out-of-range answers are refused")
  local ex = GA.EXERCISES[13]
  expect(ex.times[133] > 1.8 * ex.times[132], ("13: the partial wave costs almost twice the time (%.2f vs %.2f us)"):format(
         ex.times[133], ex.times[132]))
end

T.done("grade_answers")
print("test_grade_answers: ok")
