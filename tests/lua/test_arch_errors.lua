-- A CPU preset given to simt.gpu says to use simt.cpu instead of listing
-- CPU fields as unknown GPU fields.
local ok, e = pcall(simt.gpu, { arch = "cpu-core" })
assert(not ok, "simt.gpu{arch='cpu-core'} must fail")
assert(e:find("describes a CPU", 1, true) and e:find("simt.cpu", 1, true), e)
local c = simt.cpu{ arch = "cpu-core" }
assert(c.name == "cpu-core", tostring(c.name))
print("arch errors ok")
