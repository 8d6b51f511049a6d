-- test_robust.lua - regression tests for bugs found by fuzzing (tests/fuzz/,
-- scripts/fuzz.sh) that show through the Lua API.

local function fails_with(f, want, ...)
  local ok, msg = pcall(f, ...)
  assert(not ok, "expected an error containing: " .. want)
  assert(tostring(msg):find(want, 1, true), "got: " .. tostring(msg))
end

-- fuzz_lua: a random-init seed far outside the integer range was cast to
-- int64 (undefined behaviour); now it is refused by name.
fails_with(simt.tensor, "tensor option 'seed' must be an integer (|seed| < 2^63), got 8.8e+82",
           {2, init = "random", seed = 8.8e82})
fails_with(simt.tensor, "tensor option 'seed' must be an integer (|seed| < 2^63), got -1e+19",
           {2, init = "random", seed = -1e19})
-- ... and so were integer lo / hi bounds
fails_with(simt.tensor, "i32 random init needs integer lo and hi (|lo|, |hi| <= 2^32), got lo=0 hi=1e+30",
           {2, dtype = "i32", init = "random", lo = 0, hi = 1e30})
-- values inside the ranges still work, on host and device
local T = simt.tensor{64, dtype = "i32", init = "random", lo = -5, hi = 5, seed = 2^62}
for i = 1, 64 do assert(T:get(i) >= -5 and T:get(i) <= 5) end
local g = simt.gpu{arch = "edu-tiny"}
local D = g:tensor{8, init = "random", seed = -(2^53)}
assert(D:get(1) >= -1 and D:get(1) < 1)
print("test_robust ok")
