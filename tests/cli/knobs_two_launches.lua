-- knobs_two_launches.lua - fixture: two launches (vecadd, then a tiled
-- matmul) on edu-tiny; prints each launch's cycles.
local W = require("workloads")
local g = simt.gpu("edu-tiny")
local r1 = W.vecadd(g, 1000)
local r2 = W.matmul(g, "matmul_tiled16", 32)
assert(r1.ok and r2.ok, "wrong results")
print(string.format("cycles %d %d", r1.cycles, r2.cycles))
