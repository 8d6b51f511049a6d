-- test_tensor_cores.lua - number-format tensors, cvt, wmma exactness and
-- accumulation order, Tensor Core matmul error per format, and the h200
-- Tensor Core timing (peak per precision, speed-up over FP32 lanes).
-- Run: simtlab run tests/lua/test_tensor_cores.lua
package.path = "lessons/lib/?.lua;" .. package.path
local P = require("precision")

local failures = 0
local function expect(cond, msg)
  if not cond then
    failures = failures + 1
    io.stderr:write("FAIL: " .. msg .. "\n")
  end
end

-- f32 rounding of a double (round to nearest even), via string.pack
local function f32(x) return (string.unpack("f", string.pack("f", x))) end

-- ---- tensor dtypes: values worked out by hand from the formats ----------
do
  local cases = {
    -- dtype, stored, read back
    { "f16", 1 / 3, 1365 / 4096 },       -- 0x3555: 1.0101010101b x 2^-2
    { "bf16", 1 / 3, 171 / 512 },        -- 0x3EAB: 1.0101011b x 2^-2
    { "tf32", 1 / 3, 1365 / 4096 },      -- 10 fraction bits, like f16
    { "e4m3", 1 / 3, 0.34375 },          -- 1.011b x 2^-2 = 11/32
    { "e5m2", 1 / 3, 0.3125 },           -- 1.01b x 2^-2 = 5/16
    { "e4m3", 1000, 448 },               -- satfinite
    { "e4m3", 464, 448 },                -- tie between 448 and 480: even
    { "e5m2", 1e6, 57344 },              -- satfinite
    { "f16", 2 ^ -24, 2 ^ -24 },         -- smallest subnormal
    { "f16", 2 ^ -25, 0 },               -- tie with 0: even
    { "f16", 3 * 2 ^ -26, 2 ^ -24 },
    { "bf16", 1e30, 202 / 128 * 2 ^ 99 },   -- bf16 keeps FP32's range
  }
  for _, c in ipairs(cases) do
    local t = simt.tensor{ 1, dtype = c[1] }
    t:set(1, c[2])
    expect(t:get(1) == c[3], ("%s: stored %.17g, read %.17g, expected %.17g"):format(
      c[1], c[2], t:get(1), c[3]))
    expect(t.dtype == c[1], "dtype field " .. tostring(t.dtype))
  end
  local h = simt.tensor{ 2, dtype = "f16" }
  expect(#h == 2, "f16 tensor length")
  -- copy between dtypes converts (f32 -> e4m3 -> f32)
  local a = simt.tensor{ 3, dtype = "f32" }
  a:set(1, 0.3); a:set(2, -500); a:set(3, 2)
  local q = simt.tensor{ 3, dtype = "e4m3" }
  q:copy_from(a)
  expect(q:get(1) == 0.3125 and q:get(2) == -448 and q:get(3) == 2, "f32 -> e4m3 copy")
end

-- ---- FP16 overflows past 65504, BF16 does not ----------------------------
do
  local rows = P.overflow_demo{ 65504, 65520, 70000 }
  expect(rows[1][2] == 65504, "65504 fits f16")
  expect(rows[2][2] == math.huge, "65520 rounds to inf in f16 (tie to even -> 65536)")
  expect(rows[3][2] == math.huge, "70000 -> inf in f16")
  expect(rows[3][3] == 70144, "70000 -> 70144 in bf16 (1.0001001b x 2^16), got " .. rows[3][3])
end

-- ---- cvt on the GPU: bit patterns worked out by hand ---------------------
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local k = simt.kernel("tests/asm/tc_cvt.s")
  local vals = { 65504, 65520, 448, 464, 57344, 2 ^ -24, 2 ^ -25, -1.5 }
  local inp = g:tensor{ #vals }
  for i, v in ipairs(vals) do inp:set(i, v) end
  local out = g:tensor{ 7 * #vals, dtype = "i32" }
  g:launch(k, { grid = { 1 }, block = { 32 } }, inp, out, #vals)
  local function res(i, j) return out:get(7 * (i - 1) + j) end
  -- {f16, bf16, e4m3, e5m2} patterns per input
  local want = {
    { 0x7BFF, 0x4780, 0x7E, 0x7B },  -- 65504: bf16 rounds up to 2^16; fp8 saturate
    { 0x7C00, 0x4780, 0x7E, 0x7B },  -- 65520: f16 inf
    { 0x5F00, 0x43E0, 0x7E, 0x5F },  -- 448 = 1.11b x 2^8
    { 0x5F40, 0x43E8, 0x7E, 0x5F },  -- 464: e4m3 tie -> 448; e5m2 tie 448/512 -> 448 (even)
    { 0x7B00, 0x4760, 0x7E, 0x7B },  -- 57344 = 1.11b x 2^15
    { 0x0001, 0x3380, 0x00, 0x00 },  -- 2^-24: f16 subnormal; fp8 underflow
    { 0x0000, 0x3300, 0x00, 0x00 },  -- 2^-25: tie with 0 in f16
    { 0xBE00, 0xBFC0, 0xBC, 0xBE },  -- -1.5
  }
  for i, w in ipairs(want) do
    local got = { res(i, 1), res(i, 2), res(i, 4), res(i, 5) }
    for j = 1, 4 do
      expect(got[j] == w[j], ("cvt of %g: format %d pattern 0x%X, expected 0x%X"):format(
        vals[i], j, got[j], w[j]))
    end
  end
  expect(res(1, 3) == 0x477FE000, "cvt.tf32.f32 65504 keeps its bits")
  local f = g:tensor{ 7 * #vals }   -- same memory read as f32 for the decodes
  f:copy_from(out)                  -- (ints; only used for the shape)
  -- decodes: cvt.f32.f16 of 0x7BFF and 0x7C00, cvt.f32.e4m3 of 0x7E
  local raw = out:to_table()
  local function as_f32(bits) return (string.unpack("<f", string.pack("<i4", bits))) end
  expect(as_f32(raw[6]) == 65504, "cvt.f32.f16 0x7BFF = 65504")
  expect(as_f32(raw[7 + 6]) == math.huge, "cvt.f32.f16 0x7C00 = inf")
  expect(as_f32(raw[7]) == 448, "cvt.f32.e4m3 0x7E = 448")
end

-- ---- wmma: layout, exactness and the accumulation order -------------------
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local k = simt.kernel("tests/asm/tc_order.s")
  local A = g:tensor{ 16, 16, dtype = "f16" }
  local B = g:tensor{ 16, 16, dtype = "f16" }
  local C = g:tensor{ 16, 16 }
  local D = g:tensor{ 16, 16 }
  local a, b, c = {}, {}, {}
  for i = 1, 16 do
    a[i], b[i], c[i] = {}, {}, {}
    for j = 1, 16 do
      a[i][j] = (i + 2 * j) % 7 - 3
      b[i][j] = (3 * i + j) % 5 - 2
      c[i][j] = i * 100 - j
    end
  end
  -- row 16: C = 2^24 and A = 1, so D = 2^24 + sum of B's column in
  -- sequential f32 steps: 2^24 + 1 rounds back to 2^24 (tie to even)
  for j = 1, 16 do a[16][j] = 1; c[16][j] = 2 ^ 24 end
  for i = 1, 16 do for j = 1, 16 do
    A:set(i, j, a[i][j]); B:set(i, j, b[i][j]); C:set(i, j, c[i][j])
  end end
  g:launch(k, { grid = { 1 }, block = { 32 } }, A, B, C, D)
  local differs = 0
  for i = 1, 16 do
    for j = 1, 16 do
      local acc, exact = c[i][j], c[i][j]
      for kk = 1, 16 do
        acc = f32(acc + a[i][kk] * b[kk][j])   -- documented order: k ascending, f32
        exact = exact + a[i][kk] * b[kk][j]
      end
      expect(D:get(i, j) == acc, ("D[%d][%d] = %.9g, expected %.9g"):format(i, j, D:get(i, j), acc))
      if acc ~= exact then differs = differs + 1 end
    end
  end
  expect(differs > 0, "row 16 should show f32 sequential rounding (differs from exact)")
end

-- ---- Tensor Core matmuls per format: error near the expected size --------
do
  local g = simt.gpu{ arch = "edu-tiny" }
  for _, how in ipairs{ "global", "tiled" } do
    for _, fmt in ipairs{ "f16", "bf16", "tf32", "e4m3", "e5m2" } do
      local r = P.matmul(g, fmt, 64, how)
      expect(r.rel_err < 1.5 * r.expected and r.rel_err > 0.2 * r.expected,
        ("%s %s n=64: relative error %.3g, expected ~%.3g"):format(how, fmt, r.rel_err, r.expected))
    end
  end
  -- K = 256, FP16 inputs: relative error ~1e-3 or below (the issue's figure)
  local r = P.matmul(g, "f16", 256, "tiled")
  expect(r.rel_err < 1e-3 and r.rel_err > 1e-4, ("f16 n=256 relative error %.3g"):format(r.rel_err))
end

-- ---- a format the GPU has no Tensor Core for ------------------------------
do
  local g = simt.gpu{ arch = "edu-tiny", tc_flops_per_clk_fp8 = 0 }
  local ok, err = pcall(P.matmul, g, "e4m3", 32, "global")
  expect(not ok and tostring(err):find("no e4m3 Tensor Core", 1, true),
    "fp8 without FP8 Tensor Cores should fail, got " .. tostring(err))
end

-- ---- h200 timing -----------------------------------------------------------
do
  local g = simt.gpu{ arch = "h200" }
  local sheet = { f16 = 989.4, bf16 = 989.4, tf32 = 494.7, e4m3 = 1978.9, e5m2 = 1978.9 }
  for _, fmt in ipairs{ "f16", "bf16", "tf32", "e4m3", "e5m2" } do
    local r = P.peak(g, fmt, nil, 64)
    expect(math.abs(r.ratio - 1) < 0.15, ("h200 %s peak %.1f TF/s vs preset %.1f"):format(
      fmt, r.tflops, r.peak))
    expect(math.abs(r.tflops / sheet[fmt] - 1) < 0.15, ("h200 %s peak %.1f TF/s vs datasheet %.1f"):format(
      fmt, r.tflops, sheet[fmt]))
  end
  -- matmul on Tensor Cores vs FP32 lanes (8 SMs so that n = 256 fills them)
  local g8 = simt.gpu{ arch = "h200", sms = 8 }
  local tc = P.matmul(g8, "f16", 256, "tiled")
  local fp = P.matmul(g8, "f32", 256)
  expect(tc.time_us * 3 < fp.time_us, ("tc f16 %.2f us vs fp32 %.2f us: want >= 3x faster"):format(
    tc.time_us, fp.time_us))
end

if failures > 0 then
  error(failures .. " check(s) failed")
end
print("test_tensor_cores: ok")
