-- simtlab: --unsafe
-- test_grade_cheats.lua - issue 20, class 4: kernels that try to earn a
-- PASS without solving the exercise must fail, in the part that catches
-- them (tests/lua/cheats/README.md), while every reference solution still
-- passes with full marks. Some cheats are files in tests/lua/cheats/, the
-- others are made here from the reference solutions by text substitution.
package.path = "lessons/?.lua;lessons/lib/?.lua;" .. package.path
local grade = require("grade")
local T = require("expect")
local expect = T.expect

local function read(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

-- Grade source text (written to a temporary file) for exercise n.
local function grade_text(n, src)
  local path = os.tmpname() .. ".s"
  local f = assert(io.open(path, "w"))
  f:write(src)
  f:close()
  local r = grade.check(n, path, { quiet = true })
  os.remove(path)
  return r
end

-- The solution of exercise n with one substitution (which must apply).
local function variant(n, pattern, repl)
  local src, k = read(grade.solution_path(n)):gsub(pattern, repl, 1)
  assert(k == 1, "the substitution applies to solution " .. n .. ": " .. pattern)
  return src
end

-- r must not pass; `part` (correct, sound or cheap) must fail with `want`
-- in its message.
local function caught(name, r, part, want)
  expect(not r.pass, name .. ": does not pass")
  expect(not r[part].ok, name .. ": fails " .. part .. " (correct: " .. tostring(r.correct.msg) .. "; sound: "
         .. tostring(r.sound.msg) .. "; cheap: " .. tostring(r.cheap.msg) .. ")")
  expect(tostring(r[part].msg):find(want, 1, true) ~= nil,
         name .. ": " .. part .. " says '" .. want .. "', got: " .. tostring(r[part].msg))
end

-- the files
local files = {
  { 3, "c3_closed_form", "correct", "cells differ" },
  { 6, "c6_zero_inputs", "correct", "changed its input 'A'" },
  { 7, "c7_no_shared", "cheap", "does not pass the data through shared memory" },
}
for _, c in ipairs(files) do
  caught(c[2], grade.check(c[1], "tests/lua/cheats/" .. c[2] .. ".s", { quiet = true }), c[3], c[4])
end

-- (b) exit early when n is the budget size: the budget case is checked too
caught("c3_budget_exit", grade_text(3, variant(3, "    ld%.param%.u32 %%r5, %[n%];\n",
  "    ld.param.u32 %%r5, [n];\n    setp.eq.u32 %%p3, %%r5, 4096;\n    @%%p3 exit;\n")), "correct", "n = 4096")

-- (d) threads past the end store the last element again (the same value):
-- right numbers, but two threads write one element: a global race
caught("c3_double_store", grade_text(3, variant(3, "    @%%p0 exit;\n",
  "    @%%p0 sub.u32 %%r4, %%r5, 1;\n")), "sound", "global-memory data race (write after write)")

-- (a) overwrite the input after reading it
caught("c5_overwrite_input", grade_text(5, variant(5, "    ld%.global%.f32 %%r11, %[%%r10%];\n",
  "    ld.global.f32 %%r11, [%%r10];\n    mov.f32 %%r20, 0.0;\n    st.global.f32 [%%r10], %%r20;\n")),
  "correct", "changed its input 'in'")

-- (c) the naive multiply (lessons/kernels/matmul_naive.s) with every load
-- done as atom.add 0.0, which a grader counting load sectors only would not
-- see: it reads no shared memory; and with a token use of shared memory
-- its global traffic (atomics count as reads and writes) still fails cheap
do
  local src, k = read("lessons/kernels/matmul_naive.s"):gsub("ld%.global%.f32 (%%r1[45]), (%[%%r[19]0?%]);",
                                                              "atom.global.add.f32 %1, %2, %%r20;")
  assert(k == 2, "two loads made atomic")
  src, k = src:gsub("    mov%.u32 %%r13, 0;", "    mov.u32 %%r13, 0;\n    mov.f32 %%r20, 0.0;", 1)
  assert(k == 1)
  caught("c6_atom_loads", grade_text(6, src), "cheap", "reads no shared memory")
  src, k = src:gsub("%.param n\n", ".param n\n.shared token 4\n", 1)
  assert(k == 1)
  src, k = src:gsub("    mov%.f32 %%r20, 0%.0;",
    "    mov.f32 %%r20, 0.0;\n    mov.u32 %%r21, token;\n    st.shared.f32 [%%r21], %%r20;\n"
    .. "    bar.sync;\n    ld.shared.f32 %%r20, [%%r21];", 1)
  assert(k == 1)
  local r = grade_text(6, src)
  caught("c6_atom_loads_token_shared", r, "cheap", "global load + store sectors")
  expect(r.cheap.ratio and r.cheap.ratio > 4, "atomic loads: traffic ratio " .. tostring(r.cheap.ratio) .. " > 4")
end

-- every reference solution passes with full marks; starters fail as their
-- headers say (also in test_lessons.lua)
local refs = grade.check_references()
expect(refs.ok, "references pass and starters fail")
for _, n in ipairs({ 3, 5, 6, 7 }) do
  local s = refs[n].solution
  expect(s.pass and s.cheap.score == 1, "reference " .. n .. " passes with full marks")
end
expect(refs[3].starter.correct.ok and not refs[3].starter.cheap.ok, "starter 3: right answer, too many cycles")

T.done("cheating kernel")
print("every cheating kernel failed")
