-- simtlab: --unsafe
-- Every lesson headless with its claims (runner.check_all): what
-- `simtlab lessons --check` runs. Prints the time it took.
package.path = "lessons/?.lua;lessons/lib/?.lua;" .. package.path
local runner = require("runner")
local t0 = os.clock()
local res = runner.check_all()
for _, row in ipairs(res) do
  assert(row.ok, "lesson " .. row.number .. " failed: " .. tostring(row.err))
  assert(row.checks >= 1, "lesson " .. row.number .. " checks at least one claim")
end
assert(#res == #runner.LESSONS and #res >= 8 and res.ok)
print(string.format("all %d lessons pass their claims in %.1f s of CPU time", #res, os.clock() - t0))
