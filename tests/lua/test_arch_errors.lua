-- A CPU preset given to simt.gpu says to use simt.cpu instead of listing
-- CPU fields as unknown GPU fields.
local ok, e = pcall(simt.gpu, { arch = "cpu-core" })
assert(not ok, "simt.gpu{arch='cpu-core'} must fail")
assert(e:find("describes a CPU", 1, true) and e:find("simt.cpu", 1, true), e)
local c = simt.cpu{ arch = "cpu-core" }
assert(c.name == "cpu-core", tostring(c.name))
print("arch errors ok")

-- The DRAM refresh fields are checked by name: a window as long as the
-- time between two refreshes would leave the memory no time to move data.
ok, e = pcall(simt.gpu, { arch = "h200", dram_refresh_ns = 3900 })
assert(not ok and e:find("dram_refresh_ns", 1, true) and e:find("dram_trefi_ns", 1, true), tostring(e))
ok, e = pcall(simt.gpu, { arch = "h200", dram_channels = 0 })
assert(not ok and e:find("dram_channels", 1, true), tostring(e))
-- refresh off: the whole bandwidth moves data, dram_efficiency scales it
local g = simt.gpu{ arch = "h200", dram_trefi_ns = 0, dram_efficiency = 0.5 }
assert(g.desc.dram_trefi_ns == 0 and g.desc.dram_efficiency == 0.5)
print("dram field errors ok")
