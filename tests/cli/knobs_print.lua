-- knobs_print.lua - fixture: print what the script's own GPU became after
-- the command-line overrides (the script asks for edu-tiny with 2 SMs).
local g = simt.gpu{ arch = "edu-tiny", sms = 2 }
local h = g:with{ dram_gbps = 16 }
print(string.format("sms %d arch %s dram %g with-sms %d with-dram %g", g.desc.sms, g.name,
                    g.desc.dram_gbps, h.desc.sms, h.desc.dram_gbps))
