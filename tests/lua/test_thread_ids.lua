-- test_thread_ids.lua - %tid.x/y/z and %laneid have the right value in
-- every lane, for block shapes whose rows do not line up with the warps
-- (exec.c computes them for a whole warp at once, counting up from lane
-- 0's thread index).
local k = simt.kernel("tests/lua/kernels/thread_ids.s")
local g = simt.gpu{ arch = "edu-tiny" }
for _, b in ipairs{ { 32, 1, 1 }, { 5, 3, 4 }, { 7, 9, 2 }, { 3, 1, 20 }, { 1, 33, 1 }, { 16, 16, 1 }, { 6, 5, 5 } } do
  local n = b[1] * b[2] * b[3]
  local out = g:tensor{ 4 * n, dtype = "i32" }
  g:launch(k, { grid = 1, block = b }, out)
  local v = out:to_table()
  local bad = 0
  for t = 0, n - 1 do
    local x, y, z = t % b[1], (t // b[1]) % b[2], t // (b[1] * b[2])
    local want = { x, y, z, t % 32 }
    for i = 1, 4 do
      if v[4 * t + i] ~= want[i] then
        bad = bad + 1
        if bad <= 5 then
          io.stderr:write(string.format("FAIL: block {%d,%d,%d}, thread %d: register %d is %s, want %d\n",
                                        b[1], b[2], b[3], t, i, tostring(v[4 * t + i]), want[i]))
        end
      end
    end
  end
  assert(bad == 0, string.format("block {%d,%d,%d}: %d wrong values", b[1], b[2], b[3], bad))
end
print("thread ids ok")
