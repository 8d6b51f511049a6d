local conv = require("conv")
local C = require("calibrate")
local s = C.share(8)
local g = simt.gpu{arch="h200", sms=8, dram_gbps=s.dram_gbps, dram_channels=s.dram_channels}
local X = g:tensor{4, 64, 28, 28, init="random", seed=1}
local Wt = g:tensor{64, 64, 3, 3, init="random", seed=2}
local t0=os.time()
local Y, r = conv.igemm(g, X, Wt, {pad=1, check=false})
print("igemm", r.igemm.cycles, r.igemm.time_us, r.igemm.dram_bytes, r.igemm.gld_sectors, r.igemm.gst_sectors, r.igemm.tflops, r.igemm.blocks)
local Y2, r2 = conv.im2col(g, X, Wt, {pad=1, gemm="igemm", check=false, times_only=true})
print("im2col", r2.im2col.time_us, r2.im2col.dram_bytes, r2.im2col.gld_sectors, r2.im2col.gst_sectors)
print("gemm", r2.gemm.time_us, r2.gemm.dram_bytes, r2.gemm.gld_sectors, r2.gemm.gst_sectors, r2.gemm.tflops)
for k,v in pairs(r.igemm) do if type(v)=="number" then io.write(k,"=",v," ") end end print()
local hg = simt.gpu{arch="h200"}
for _, n in ipairs{1,2,4,8,16,32} do
  local X = hg:tensor{n, 64, 14, 14, init="random", seed=1}
  local Wt = hg:tensor{64, 64, 3, 3, init="random", seed=2}
  local Y, r = conv.igemm(hg, X, Wt, {pad=1, check=false})
  print(n, r.igemm.blocks, r.igemm.time_us, r.igemm.tflops)
end
