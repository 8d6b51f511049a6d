-- simtlab: --unsafe (this test writes a temporary PNG)
-- test_roofline.lua - lessons/lib/roofline.lua and simt.roofline: the roofs
-- computed for h200 against the preset's own numbers, every run checked and
-- under its roof, naive matmul left of the ridge at n = 64 and right of it
-- at n = 256, the PNG written, and the errors that name a bad field.
-- Run: simtlab run --unsafe tests/lua/test_roofline.lua
local RL = require("roofline")

local T = require("expect")
local expect = T.expect
local function near(a, b, rel) return math.abs(a - b) <= rel * math.abs(b) end

-- ---- the roofs against arch/h200.lua ------------------------------------------
local preset = dofile("arch/h200.lua")
local clk = preset.clock_mhz * 1e6
local roofs, bws = RL.roofs(simt.gpu{ arch = "h200" }.desc)
local want_roofs = {
  { "FP32", preset.fp32_lanes_per_sm * 2 * preset.sms * clk / 1e12 },
  { "Tensor TF32", preset.tc_flops_per_clk_tf32 * preset.sms * clk / 1e12 },
  { "Tensor FP16/BF16", preset.tc_flops_per_clk_f16 * preset.sms * clk / 1e12 },
  { "Tensor FP8", preset.tc_flops_per_clk_fp8 * preset.sms * clk / 1e12 },
}
expect(#roofs == #want_roofs, ("%d compute roofs, expected %d"):format(#roofs, #want_roofs))
for i, w in ipairs(want_roofs) do
  local r = roofs[i] or { name = "?", tflops = 0 }
  expect(r.name == w[1], ("roof %d is '%s', expected '%s'"):format(i, r.name, w[1]))
  expect(near(r.tflops, w[2], 1e-12), ("%s roof %.4f TFLOP/s, expected %.4f"):format(w[1], r.tflops, w[2]))
end
-- and the preset's own checks: 66.9 TFLOP/s FP32, FP16 1070 and FP8 2141 at 1980 MHz
expect(near(roofs[1].tflops, 66.9, 0.001), "FP32 roof should be the preset's 66.9 TFLOP/s")
expect(near(roofs[3].tflops, 1070.5, 0.001), "FP16 roof should be 1070 TFLOP/s")
expect(near(roofs[4].tflops, 2141.1, 0.001), "FP8 roof should be 2141 TFLOP/s")
local want_bws = {
  { "DRAM", preset.dram_gbps / 1000 },
  { "L2", preset.l2_bytes_per_clk * clk / 1e12 },
  { "shared", preset.smem_banks * 4 * preset.sms * clk / 1e12 },
}
for i, w in ipairs(want_bws) do
  local b = bws[i] or { name = "?", tbs = 0 }
  expect(b.name == w[1] and near(b.tbs, w[2], 1e-12),
    ("memory roof %d: %s %.4f TB/s, expected %s %.4f"):format(i, b.name, b.tbs, w[1], w[2]))
end
expect(near(bws[1].tbs, 4.8, 1e-12) and near(bws[2].tbs, 10.1376, 1e-9) and near(bws[3].tbs, 33.45408, 1e-9),
  "h200 memory roofs should be 4.8, 10.14 and 33.45 TB/s")
local ridge = RL.ridge(roofs, bws)
expect(near(ridge, 66.90816 / 4.8, 1e-9), ("ridge %.4f FLOP/byte, expected 13.94"):format(ridge))

-- ---- the runs and the chart ----------------------------------------------------
local png = os.tmpname() .. ".png"
local rows = RL.main{ arch = "h200", png = png }
local by = {}
for _, r in ipairs(rows) do by[r.name] = r end
expect(#rows == #RL.cases, ("%d rows, expected %d"):format(#rows, #RL.cases))
for _, r in ipairs(rows) do
  expect(r.intensity > 0 and r.tflops > 0, r.name .. ": intensity and TFLOP/s must be > 0")
  -- nothing runs above its roof: the lower of the compute roof and DRAM x intensity
  expect(r.tflops <= r.attainable * 1.0001,
    ("%s: %.3f TFLOP/s is above its roof %.3f"):format(r.name, r.tflops, r.attainable))
end
local n64, n256 = by["matmul_naive 64"], by["matmul_naive 256"]
expect(n64 and n256, "the naive runs at n = 64 and 256 are in the table")
if n64 and n256 then
  -- a matmul that fits in L2 moves each matrix once: 2 n^3 FLOP / 12 n^2 bytes = n / 6
  expect(near(n64.intensity, 64 / 6, 1e-12), ("naive 64 intensity %.4f, expected 64/6"):format(n64.intensity))
  expect(near(n256.intensity, 256 / 6, 1e-12), ("naive 256 intensity %.4f, expected 256/6"):format(n256.intensity))
  expect(n64.intensity < ridge and n64.side == "memory bound",
    ("naive 64 should be left of the ridge (memory bound): %.2f vs %.2f"):format(n64.intensity, ridge))
  expect(n256.intensity > ridge and n256.side == "compute bound", "naive 256 should be right of the ridge")
  local t32 = by["matmul_tiled32 256"]
  expect(t32 and t32.intensity == n256.intensity and t32.tflops > 2 * n256.tflops,
    "tiled32 at n = 256: the same intensity as naive, more than twice as fast")
end
local va = by["vecadd 1M"]
expect(va and near(va.intensity, 1 / 12, 1e-12) and va.side == "memory bound",
  "vecadd: 1 FLOP per 12 bytes, memory bound")
local tc = by["tc_gemm_async_f16 1024"]
expect(tc and tc.roof == "Tensor FP16/BF16" and tc.tflops > roofs[1].tflops,
  "the Tensor Core GEMM is held to the FP16 roof and beats the FP32 one")

local f = io.open(png, "rb")
expect(f ~= nil, "the PNG " .. png .. " was written")
if f then
  local data = f:read("a")
  f:close()
  expect(data:sub(1, 8) == "\137PNG\r\n\26\n", "the file is a PNG")
  expect(#data > 30000, ("the PNG has %d bytes, a real chart has more"):format(#data))
  local w = string.unpack(">I4", data, 17)
  local h = string.unpack(">I4", data, 21)
  expect(w == 1280 and h == 720, ("the PNG is %dx%d, expected 1280x720"):format(w, h))
  os.remove(png)
end
os.remove(png:sub(1, -5))

-- ---- simt.roofline's errors name the bad field -----------------------------------
local function fails(t, part)
  local ok, err = pcall(simt.roofline, t)
  expect(not ok and tostring(err):find(part, 1, true),
    ("expected an error with '%s', got %s"):format(part, tostring(err)))
end
local good_roofs, good_bws = { { name = "FP32", tflops = 67 } }, { { name = "DRAM", tbs = 4.8 } }
fails({ roofs = good_roofs, bandwidths = good_bws }, "'path'")
fails({ path = "x.png", bandwidths = good_bws }, "'roofs' must be a list")
fails({ path = "x.png", roofs = {}, bandwidths = good_bws }, "'roofs' must hold 1 to")
fails({ path = "x.png", roofs = { { name = "FP32", tflops = "fast" } }, bandwidths = good_bws },
  "'roofs[1].tflops' must be a number, got string")
fails({ path = "x.png", roofs = { good_roofs[1], { tflops = 5 } }, bandwidths = good_bws },
  "'roofs[2].name' must be a string")
fails({ path = "x.png", roofs = good_roofs, bandwidths = { { name = "DRAM" } } },
  "'bandwidths[1].tbs' must be a number, got nil")
fails({ path = "x.png", roofs = good_roofs, bandwidths = { { name = "DRAM", tbs = -1 } } },
  "bandwidths[1].tbs ('DRAM') must be a number > 0")
fails({ path = "x.png", roofs = good_roofs, bandwidths = good_bws,
        points = { { name = "a", intensity = 0, tflops = 1 } } }, "points[1].intensity ('a') must be a number > 0")
fails({ path = "x.png", roofs = good_roofs, bandwidths = good_bws,
        points = { { name = "a", intensity = 1, tflops = 1 }, 7 } }, "'points[2]' must be a table")
fails({ path = "x.png", roofs = good_roofs, bandwidths = good_bws, width = 100 }, "outside 320x240")
fails({ path = "/nonexistent-dir/x.png", roofs = good_roofs, bandwidths = good_bws }, "cannot write")

T.done("roofline")
print("test_roofline: ok")
