-- sandbox_overrides.lua - run with --sms 3 --set dram_gbps=77 --set max_grid=9,9,9:
-- whatever the script does to simt.overrides, its GPUs get the teacher's
-- knobs (issue 13, class 7).
assert(not pcall(function() simt.overrides.sms = 64 end))
assert(not pcall(function() simt.overrides.dram_gbps = nil end))
local grid = simt.overrides.max_grid
grid[1] = 65535                              -- a copy: changes nothing
rawset(simt.overrides, "sms", 64)            -- the view only
local n = 0
for k, v in pairs(simt.overrides) do n = n + 1 end
simt.overrides = { sms = 64 }                -- replaces the view only
local g = simt.gpu{ arch = "edu-tiny", sms = 1, dram_gbps = 1 }
local h = g:with{ sms = 2 }
print(string.format("sms %d %d dram %g grid %d fields %d", g.desc.sms, h.desc.sms, g.desc.dram_gbps,
                    g.desc.max_grid[1], n))
