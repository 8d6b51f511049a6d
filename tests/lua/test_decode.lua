-- test_decode.lua - decode on the simulator (lessons/lib/decode.lua and the
-- decode_gemv_* / decode_attn* kernels): results are checked inside decode
-- against CPU references; here, the shape of the speeds. Tokens per second
-- follow the DRAM bandwidth across presets; a small batch costs little more
-- than one sequence; INT8 and INT4 weights are read faster than FP16.
local decode = require("decode")
local T = require("expect")
local expect = T.expect

local N, K = 4096, 2048
local t = {}
for _, gpu in ipairs{ "l4", "a100", "h200" } do
  t[gpu] = decode.matrix{ gpu = gpu, n = N, k = K, samples = 2 }.time_us
end
expect(t.h200 < t.a100 and t.a100 < t.l4, string.format("time follows bandwidth: l4 %.1f, a100 %.1f, h200 %.1f us",
                                                         t.l4, t.a100, t.h200))
expect(t.l4 / t.h200 > 4, "L4 (300 GB/s) is over 4x slower than H200 (4,800 GB/s) on a bandwidth-bound matrix")
local b2 = decode.matrix{ gpu = "h200", n = N, k = K, batch = 2, samples = 2 }.time_us
local b8 = decode.matrix{ gpu = "h200", n = N, k = K, batch = 8, samples = 2 }.time_us
expect(b2 < 1.5 * t.h200, string.format("batch 2 %.1f us vs batch 1 %.1f: flat below the ridge", b2, t.h200))
expect(b8 > 1.5 * b2 and 8 / b8 > 2 / b2, string.format("batch 8 %.1f us: past the ridge, more tokens per us", b8))
local i8 = decode.matrix{ gpu = "h200", n = N, k = K, precision = "int8", samples = 2 }.time_us
local i4 = decode.matrix{ gpu = "h200", n = N, k = K, precision = "int4", samples = 2 }.time_us
local bf = decode.matrix{ gpu = "h200", n = N, k = K, precision = "bf16", samples = 2 }.time_us
expect(i8 < 0.85 * t.h200 and i4 < 0.9 * t.h200, string.format("int8 %.1f, int4 %.1f us < fp16 %.1f", i8, i4, t.h200))
expect(math.abs(bf - t.h200) < 0.2 * t.h200, "bf16 reads as many bytes as fp16")

-- a whole (small) model: the fields and their arithmetic
local m = { layers = 3, hidden = 512, heads = 8, kv_heads = 2, vocab = 1024, ffn = 1408 }
local r = decode.run(m, { gpu = "h200", batch = 3, context = 300, samples = 2 })
expect(#r.kernels == 6 and r.layers == 3, "six kernels per layer: qkv, attention, combine, o, gate_up, down")
local layer = 0
for _, k in ipairs(r.kernels) do layer = layer + k.time_us end
expect(math.abs(r.us_per_token - (3 * layer + r.head_us + r.launch_us)) < 1e-6, "token = layers x layer + head + launches")
expect(r.launches == (6 + 7) * 3 + 1 and math.abs(r.launch_us - r.launches * 3.2) < 1e-9, "launches counted at 3.2 us")
expect(math.abs(r.total_tokens_per_s - 3 * r.tokens_per_s) < 1e-9, "total = batch x per sequence")
local j = decode.json(r)
expect(j:find('"tokens_per_s": ', 1, true) and j:find('"total_tokens_per_s": ', 1, true), "JSON fields")
local ok, e = pcall(decode.run, m, { context = 301 })
expect(not ok and e:find("even"), "odd contexts are refused")
T.done("decode")
