-- test_kernel_path.lua - simt.kernel finds a relative path beside the
-- calling script first (tests/lua/kernels/... from here, although ctest
-- runs in the source tree's root), then from the current folder and
-- simtlab's folders (lessons/kernels/...), and names what it could not find.
local k = simt.kernel("kernels/copy_first.s")
assert(k.file:find("tests/lua/kernels/copy_first.s", 1, true), "found beside the script: " .. k.file)
local v = simt.kernel("lessons/kernels/vecadd.s")
assert(v.name == "vecadd" and v.nparams == 4, "found in simtlab's folders")
local ok, err = pcall(simt.kernel, "kernels/no_such_kernel.s")
assert(not ok and tostring(err):find("simt.kernel", 1, true), "a missing kernel is named: " .. tostring(err))
print("kernel path ok: " .. k.file)
