-- test_output_integrity.lua - issue 20, class 7: a sandboxed script gets
-- write-only stdout and stderr: no seek (rewriting earlier lines of a
-- shared results file), no read, no close or setvbuf; write and flush work
-- and return the stream, io.write returns io.stdout (not the real handle).
local T = require("expect")
local expect = T.expect
for _, name in ipairs({ "stdout", "stderr" }) do
  local f = io[name]
  for _, m in ipairs({ "seek", "read", "lines", "close", "setvbuf" }) do
    expect(f[m] == nil, name .. " has no " .. m)
    local ok = pcall(function() return f[m](f) end)
    expect(not ok, name .. ":" .. m .. "() fails")
  end
  expect(type(f.write) == "function" and type(f.flush) == "function", name .. " writes and flushes")
  expect(getmetatable(f) == "locked", name .. "'s metatable is locked")
end
expect(io.stdout:write("") == io.stdout, "write returns the stream")
expect(io.stdout:flush() == io.stdout, "flush returns the stream")
expect(io.write("") == io.stdout, "io.write returns the write-only io.stdout")
expect(tostring(io.stdout) == "stdout (write only)", "io.stdout says what it is")
for _, m in ipairs({ "read", "open", "lines", "output", "input", "popen", "tmpfile", "close" }) do
  expect(io[m] == nil, "io." .. m .. " is absent")
end
-- io.write formats numbers as the io library does
expect(pcall(io.write, 1, 2.5, "\n"), "io.write takes numbers")
expect(not pcall(io.write, {}), "io.write refuses a table")
T.done("output integrity")
print("output integrity held")
