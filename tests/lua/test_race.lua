-- test_race.lua - simt.race without a stage: launches run one after another
-- with the same results as g:launch / c:launch, and bad entries are named.
local g = simt.gpu{arch = "edu-tiny"}
local c = simt.cpu{arch = "cpu-core"}
local k = simt.kernel("lessons/kernels/vecadd.s")
local function vecs(d)
  return d:tensor{64, init = "random", seed = 1}, d:tensor{64, init = "random", seed = 2}, d:tensor{64}
end
local A, B, C = vecs(g)
local A2, B2, C2 = vecs(c)
local cfg = {grid = {1}, block = {64}}
local solo = g:launch(k, cfg, A, B, C, 64)
local res = simt.race{{c, k, cfg, A2, B2, C2, 64}, {g, k, cfg, A, B, C, 64}}
assert(#res == 2 and res.interrupted == nil)
assert(res[2].cycles == solo.cycles and res[2].warp_instrs == solo.warp_instrs, "same as g:launch")
assert(res[1].instrs > 0 and C2:allclose(C, 0, 0), "the CPU adds the same vectors")
assert(simt.on_stage() == false and simt.pause() == nil and simt.event() == nil)

local function fails(want, ...)
  local ok, err = pcall(simt.race, ...)
  assert(not ok, "expected an error with: " .. want)
  assert(tostring(err):find(want, 1, true), "expected '" .. want .. "' in: " .. tostring(err))
end
fails("a list of 1 to 4 launches", {})
fails("entry 1 must be a table {device, kernel, config, args...}", {1})
fails("entry 1: its first value must be a GPU or a CPU", {{{}}})
fails("takes 4 arguments (A, B, C, n), got 2", {{g, k, cfg, A, B, C, 64}, {g, k, cfg, A, B}})
fails("a list of 1 to 4 launches", {{g, k, cfg, A, B, C, 64}, {g, k, cfg, A, B, C, 64}, {g, k, cfg, A, B, C, 64},
                             {g, k, cfg, A, B, C, 64}, {g, k, cfg, A, B, C, 64}})
-- after a failed race, launches run normally again (it stopped collecting)
assert(g:launch(k, cfg, A, B, C, 64).cycles == solo.cycles)
print("race ok")
