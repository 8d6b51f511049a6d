-- expect.lua - the soft checks the Lua integration tests share. A failed
-- check is reported on stderr ("FAIL: ...") and counted, and the test goes
-- on; done() then ends it with an error saying how many failed, so one run
-- shows everything that is wrong:
--   local T = require("expect")
--   local expect = T.expect
--   expect(r.cycles > 0, "the launch took time")
--   T.done("vector load/store")   -- "2 vector load/store check(s) failed"
local M = { failures = 0 }

function M.expect(cond, msg)
  if not cond then
    M.failures = M.failures + 1
    io.stderr:write("FAIL: " .. msg .. "\n")
  end
end

-- Error (reported at the test's own line) if any check failed; `what`
-- (optional) names the checks.
function M.done(what)
  if M.failures > 0 then
    error(M.failures .. " " .. (what and what .. " " or "") .. "check(s) failed", 2)
  end
end

-- Element-by-element equality of two tensors (f32 values are exact in Lua
-- numbers).
function M.same(a, b)
  local x, y = a:to_table(), b:to_table()
  if #x ~= #y then return false end
  for i = 1, #x do if x[i] ~= y[i] then return false end end
  return true
end

return M
