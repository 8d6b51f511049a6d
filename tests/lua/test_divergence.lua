-- test_divergence.lua - SIMT divergence with branchy.s (lanes split over P
-- code paths) and collatz.s (lane-dependent loop trip counts): results are
-- right, and the time grows with the number of paths a warp must run.
-- Run: simtlab run tests/lua/test_divergence.lua
local W = require("workloads")

local T = require("expect")
local expect = T.expect

-- branchy: P = 1, 2, 4, 8 paths. The useful work (iters FMAs per thread)
-- is the same for every P; only the serialisation changes.
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local cycles = {}
  for _, P in ipairs{ 1, 2, 4, 8 } do
    local r, bad = W.branchy(g, P, { n = 256, iters = 64 })
    expect(bad == 0, string.format("branchy P=%d: %d wrong outputs", P, bad))
    cycles[P] = r.cycles
    -- P = 1: every lane takes path 0, nothing diverges; P > 1 splits warps
    if P == 1 then
      expect(r.divergent_branches == 0, "branchy P=1 should not diverge, got "
                                        .. r.divergent_branches)
    else
      expect(r.divergent_branches > 0, string.format("branchy P=%d should diverge", P))
    end
    -- the FMAs done are the same for every P: 256 threads x 64 iterations x 2
    expect(r.flops == 256 * 64 * 2, string.format("branchy P=%d: flops %d", P, r.flops))
    print(string.format("branchy P=%d: %7d cycles, %d divergent branches", P, r.cycles,
                        r.divergent_branches))
  end
  expect(cycles[1] < cycles[2] and cycles[2] < cycles[4] and cycles[4] < cycles[8],
         "cycles should grow with P")
  local ratio = cycles[8] / cycles[1]
  print(string.format("cycles(P=8) / cycles(P=1) = %.2f", ratio))
  expect(ratio > 4, string.format("cycles(P=8)/cycles(P=1) = %.2f, expected > 4", ratio))
  -- paths past 7 fold into path 7 (P = 12: lanes 8..11, 20..23 take path 7)
  local r, bad = W.branchy(g, 12, { n = 100, iters = 3, block = 64 })
  expect(bad == 0, "branchy P=12: " .. bad .. " wrong outputs")
end

-- collatz: correct step counts for sizes that are not multiples of the
-- block, on 2 and 8 SMs; lanes with short sequences wait for long ones.
for _, gpu in ipairs{ { arch = "edu-tiny" }, { arch = "edu-tiny", sms = 8 } } do
  local g = simt.gpu(gpu)
  for _, n in ipairs{ 1, 17, 33, 100 } do
    local r, bad = W.collatz(g, n, { start = 1 })
    expect(bad == 0, string.format("collatz n=%d: %d wrong step counts", n, bad))
    if n >= 17 then
      expect(r.divergent_branches > 0, "collatz n=" .. n .. " should diverge")
    end
  end
  -- the step limit is honoured (27 needs 111 steps)
  local r, bad = W.collatz(g, 5, { start = 27, limit = 20 })
  expect(bad == 0, "collatz with limit 20: " .. bad .. " wrong")
  expect(r.out:get(1) == 20, "collatz(27) with limit 20 should stop at 20, got "
                             .. tostring(r.out:get(1)))
  expect(W.collatz_steps(27, 1000) == 111, "host reference: collatz(27) takes 111 steps")
end

T.done()
print("test_divergence: ok")
