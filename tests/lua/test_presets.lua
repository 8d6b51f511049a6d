-- test_presets.lua - every GPU preset loads, validates and matches its
-- datasheet (reference/gpu-specs.md, "Memory, throughput, power" table).
--
-- Peak FP32 = SMs x FP32 lanes per SM x 2 FLOP x clock must be within 1% of
-- the datasheet FP32 figure; memory capacity (GB = 1e9 bytes), bandwidth
-- and TDP must equal it. Ascend 910B2's FP32 is "?" in gpu-specs.md: only
-- its memory, bandwidth and power (third-party estimates) are checked.

-- figures copied from reference/gpu-specs.md (the datasheet figures the arch/*.lua presets cite)
local sheet = {
  v100       = { fp32_tf = 15.7,  gb = 32,  gbps = 900,  w = 300 },
  t4         = { fp32_tf = 8.1,   gb = 16,  gbps = 320,  w = 70 },
  a100       = { fp32_tf = 19.5,  gb = 80,  gbps = 2039, w = 400 },
  rtx4090    = { fp32_tf = 82.6,  gb = 24,  gbps = 1008, w = 450 },
  l4         = { fp32_tf = 30.3,  gb = 24,  gbps = 300,  w = 72 },
  h100       = { fp32_tf = 67,    gb = 80,  gbps = 3350, w = 700 },
  h200       = { fp32_tf = 67,    gb = 141, gbps = 4800, w = 700 },
  mi300x     = { fp32_tf = 81.7,  gb = 192, gbps = 5300, w = 750 }, -- non-packed figure
  ascend910b = { fp32_tf = nil,   gb = 64,  gbps = 1600, w = 400 },
}

local names = {}
for _, p in ipairs(simt.presets()) do names[p] = true end

local checked = 0
for name, s in pairs(sheet) do
  assert(names[name], "preset missing from simt.presets(): " .. name)
  local ok, g = pcall(simt.gpu, { arch = name }) -- simt.gpu validates the description
  assert(ok, name .. ": does not load or validate: " .. tostring(g))
  local d = g.desc
  assert(d.name == name, name .. ": name field is " .. d.name)
  if s.fp32_tf then
    local tf = d.sms * d.fp32_lanes_per_sm * 2 * d.clock_mhz * 1e6 / 1e12
    assert(math.abs(tf - s.fp32_tf) / s.fp32_tf <= 0.01,
           string.format("%s: peak FP32 %.2f TF, datasheet %.1f TF", name, tf, s.fp32_tf))
  end
  assert(d.mem_bytes == s.gb * 1000000000,
         string.format("%s: mem_bytes %d, datasheet %d GB", name, d.mem_bytes, s.gb))
  assert(d.dram_gbps == s.gbps, string.format("%s: dram_gbps %g, datasheet %g", name, d.dram_gbps, s.gbps))
  assert(d.tdp_watts == s.w, string.format("%s: tdp_watts %g, datasheet %g", name, d.tdp_watts, s.w))
  checked = checked + 1
end
assert(checked == 9)

-- every preset file in arch/ that describes a GPU loads and validates (CPU
-- presets have kind = "cpu" and are loaded by simt.cpu)
for _, p in ipairs(simt.presets()) do
  if not p:match("^cpu") then
    local ok, err = pcall(simt.gpu, { arch = p })
    assert(ok, "preset " .. p .. " fails: " .. tostring(err))
  end
end

-- Tensor Core peaks, dense, FP32 accumulate (gpu-specs.md): per-SM FLOP per
-- clock x SMs x the clock the datasheet's tensor figures use (NVIDIA quotes
-- H100/H200 tensor TFLOP/s at 1830 MHz, not the 1980 MHz boost clock).
-- 0 = the chip has no Tensor Core for that format.
local tc = {
  v100       = { mhz = 1530, f16 = 125,    bf16 = 0,      tf32 = 0,     fp8 = 0 },
  t4         = { mhz = 1590, f16 = 65,     bf16 = 0,      tf32 = 0,     fp8 = 0 },
  a100       = { mhz = 1410, f16 = 312,    bf16 = 312,    tf32 = 156,   fp8 = 0 },
  rtx4090    = { mhz = 2520, f16 = 165.2,  bf16 = 165.2,  tf32 = 82.6,  fp8 = 330.3 },
  l4         = { mhz = 2040, f16 = 121,    bf16 = 121,    tf32 = 60,    fp8 = 242.5 },
  h100       = { mhz = 1830, f16 = 989.4,  bf16 = 989.4,  tf32 = 494.7, fp8 = 1978.9 },
  h200       = { mhz = 1830, f16 = 989.4,  bf16 = 989.4,  tf32 = 494.7, fp8 = 1978.9 },
  mi300x     = { mhz = 2100, f16 = 1307.4, bf16 = 1307.4, tf32 = 653.7, fp8 = 2614.9 },
}
for name, s in pairs(tc) do
  local d = simt.gpu{ arch = name }.desc
  for _, f in ipairs({ "f16", "bf16", "tf32", "fp8" }) do
    local tf = d["tc_flops_per_clk_" .. f] * d.sms * s.mhz * 1e6 / 1e12
    assert(math.abs(tf - s[f]) <= 0.01 * s[f] + 1e-9,
           string.format("%s: %s Tensor Core peak %.1f TF, datasheet %.1f TF", name, f, tf, s[f]))
  end
end

-- the MI300X preset uses the non-packed rate (64 lanes): 163.4 TF packed
-- would need 128
local m = simt.gpu("mi300x").desc
assert(m.fp32_lanes_per_sm == 64)
print("presets ok")
