-- Prints what a script can reach: "sandboxed" when files, os.execute,
-- package and debug are out of reach and lessons/lib modules still load;
-- "unsafe" when run with --unsafe (io.open exists).
local W = require("workloads")
assert(type(W.matmul) == "function", "lessons/lib must be reachable from the sandbox")
if io.open then
  print("unsafe: io.open present")
else
  assert(os.execute == nil and package == nil and debug == nil and dofile == nil)
  assert(not pcall(require, "os"), "require must not load system modules")
  print("sandboxed: no files, no os.execute")
end
