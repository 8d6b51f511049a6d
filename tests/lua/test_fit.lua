-- test_fit.lua - the memory planner (lessons/lib/fit.lua, models.lua), each
-- ledger item against a sum worked by hand; size-only tensors and the
-- out-of-memory report; decode's shape (lessons/lib/decode.lua).
local fit = require("fit")
local models = require("models")
local T = require("expect")
local expect = T.expect

local function item(p, key)
  for _, it in ipairs(p.items) do if it.key == key then return it.bytes end end
  error("no item " .. key)
end
local function near(a, b) return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)) end

-- parameter counts from the shapes = the published totals
for _, name in ipairs(models.names()) do
  local m = models.get(name)
  expect(models.params(m).total == m.published, string.format("%s: %d parameters, published %d", name,
         models.params(m).total, m.published))
end

-- llama2-7b, training, bf16 mixed precision + AdamW, batch 1, 2048 tokens, flash attention
local N = 6738415616
local p = fit.plan("llama2-7b", { gpu = "a100", mode = "train", precision = "bf16-mixed", optimizer = "adamw",
                                  batch = 1, seq = 2048 })
expect(item(p, "weights") == N * 2, "weights: 2 bytes per parameter")
expect(item(p, "gradients") == N * 2, "gradients: 2 bytes per parameter")
expect(item(p, "optimizer") == N * 12, "optimizer: fp32 master + 2 fp32 states = 12 bytes per parameter")
-- per layer: 16-bit inputs of 2 norms, QKV, Q, K, V, attention output, MLP (8 x s h)
-- + softmax statistics (4 bytes x heads x s) + gate, up, SwiGLU output (3 x s x ffn), x 32 layers
local act = 32 * (2 * 2048 * 4096 * 8 + 4 * 32 * 2048 + 2 * 2048 * 3 * 11008)
expect(item(p, "activations") == act, "activations: " .. item(p, "activations") .. " vs " .. act)
expect(act == 8631877632, "the hand sum itself")
expect(item(p, "logits") == 2048 * 32000 * 6, "logits: s x vocab x (2 + 4) bytes")
expect(item(p, "workspace") == 32 * 1048576, "workspace 32 MiB")
local tensors = N * 2 + N * 12 + math.max(act + 2048 * 32000 * 6, N * 2) + 32 * 1048576
expect(near(item(p, "overhead"), 0.5e9 + 0.05 * tensors), "overhead: 0.5 GB + 5%")
expect(near(p.peak_bytes, tensors * 1.05 + 0.5e9), "peak = the sum with max(activations, gradients)")
expect(near(p.peak_bytes, 113740614502.4), "peak 113.7 GB: " .. p.peak_bytes)
expect(not p.fits and p.capacity == 80e9 and near(p.left, 80e9 - p.peak_bytes), "7B training does not fit 80 GB")
expect(fit.plan("llama2-7b", { gpu = "h200", batch = 1, seq = 2048 }).fits, "... but fits 141 GB")

-- other optimizers and precisions
expect(item(fit.plan("gpt2-124m", { gpu = "t4", precision = "fp32", optimizer = "sgd" }), "optimizer") == 124439808 * 4,
       "SGD momentum in fp32: 4 bytes")
expect(item(fit.plan("gpt2-124m", { gpu = "t4", optimizer = "adam8bit" }), "optimizer") == 124439808 * 6,
       "8-bit Adam, mixed: 4 master + 2 x 1")
expect(item(fit.plan("gpt2-124m", { gpu = "t4", precision = "bf16" }), "optimizer") == 124439808 * 4,
       "pure bf16 AdamW: 2 x 2 bytes")
-- GPT-2 with eager attention and dropout, fp32: scores 2 x 4 + 1 bytes x a s^2 b, masks 2 s b h
local g2 = fit.plan("gpt2-124m", { gpu = "t4", precision = "fp32", batch = 2, seq = 1024, attention = "eager" })
local s, b, h, f, a = 1024, 2, 768, 3072, 12
-- 4-byte inputs of 2 norms, QKV, Q, K, V, attention output, MLP: 8 x s b h
local per = 4 * s * b * h * 8 + (2 * 4 + 1) * a * s * s * b + 2 * 4 * s * b * f + 2 * s * b * h
expect(item(g2, "activations") == 12 * per, "gpt2 eager fp32 activations " .. item(g2, "activations") .. " vs " .. 12 * per)
-- checkpointing: each layer's input, plus one layer recomputed
local ck = fit.plan("llama2-7b", { gpu = "h200", batch = 1, seq = 2048, checkpointing = true })
expect(item(ck, "activations") == 32 * 2 * 2048 * 4096 + act / 32, "checkpointing keeps 2 s b h per layer + one layer")

-- inference: the 70B in 16 bits does not fit one 80 GB A100 (weights alone 138 GB)
local i70 = fit.plan("llama2-70b", { gpu = "a100", mode = "infer", seq = 4096 })
expect(item(i70, "weights") == 68976648192 * 2 and not i70.fits, "70B bf16 weights 138 GB, no fit on 80 GB")
expect(item(i70, "kv_cache") == 2 * 80 * 1024 * 4096 * 2, "70B KV cache: K and V x 80 layers x 8 KV heads x 128")
-- llama3-8b int4: layers' matrices 0.5 byte + a 2-byte scale per 128, the rest 16-bit
local q4 = fit.plan("llama3-8b", { gpu = "rtx4090", mode = "infer", weights = "int4", seq = 8192, batch = 1 })
local lin = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
expect(item(q4, "weights") == lin / 2 + 2 * lin / 128 + (8030261248 - lin) * 2, "int4 weights " .. item(q4, "weights"))
expect(item(q4, "kv_cache") == 8192 * 131072, "llama3-8b: 128 KB of K and V per token (GQA: 8 KV heads)")
local q8 = fit.plan("llama2-7b", { gpu = "l4", mode = "infer", weights = "int8", seq = 1 })
local lin7 = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)
expect(item(q8, "weights") == lin7 + 2 * 32 * (3 * 4096 + 2 * 4096 + 2 * 11008) + (N - lin7) * 2, "int8 weights")
-- the largest batch that fits is the last one that fits
local lb = fit.largest_batch("llama2-7b", { gpu = "a100", mode = "infer", seq = 4096 }, 512)
expect(fit.plan("llama2-7b", { gpu = "a100", mode = "infer", seq = 4096, batch = lb }).fits
       and not fit.plan("llama2-7b", { gpu = "a100", mode = "infer", seq = 4096, batch = lb + 1 }).fits,
       "largest batch " .. lb)
-- a model given as a table and as JSON
local tm = fit.plan({ layers = 2, hidden = 256, heads = 4, vocab = 1000, ffn = 1024 }, { gpu = "edu-tiny" })
local js = fit.plan('{"layers": 2, "hidden": 256, "heads": 4, "vocab": 1000, "ffn": 1024}', { gpu = "edu-tiny" })
expect(tm.params == 2 * (4 * 65536 + 3 * 262144 + 512) + 256000 + 256 + 256000 and js.peak_bytes == tm.peak_bytes,
       "custom model " .. tm.params)
expect(fit.json(p):find('"peak_bytes": 113740614502', 1, true) and fit.json(p):find('"key": "kv_cache"', 1, true) == nil
       and fit.json(i70):find('"key": "kv_cache", "name": "KV cache (K and V)", "bytes": 1342177280', 1, true),
       "JSON has peak_bytes and every item")
local ok, e = pcall(fit.plan, "llama2-7b", { mode = "train", weights = "int4" })
expect(not ok and e:find("for inference"), "quantised weights are for inference")

-- size-only tensors fill a card; what does not fit is named with what is there
local g = simt.gpu{ arch = "a100" }
local W = g:tensor{ 70e9 // 2, dtype = "bf16", size_only = true, name = "weights" }
expect(g:memory().used == 70e9 and g:memory().size_only == 70e9, "70 GB reserved, none on the host")
ok, e = pcall(g.tensor, g, { 6e9 // 1, dtype = "bf16", size_only = true, name = "kv cache" })
expect(not ok and e:find("out of memory: 12.0 GB requested for 'kv cache' on a GPU with 80.0 GB of device memory, "
                         .. "10.0 GB free; already there: 'weights' 70.0 GB", 1, true), e)
ok, e = pcall(function() return W:get(1) end)
expect(not ok and e:find("size only"), "a size-only tensor has no elements")
ok, e = pcall(g.launch, g, simt.kernel("lessons/kernels/vecadd.s"), { grid = { 1 }, block = { 32 }, warm = W }, W, W, W, 32)
expect(not ok and e:find("size_only"), "a size-only tensor is refused by launches: " .. tostring(e))
expect(tostring(W):find("size only", 1, true) and W.addr == 0 and #W == 35e9, tostring(W))
local S = g:tensor{ 100, size_only = true }
for _, m in ipairs{ "to_host", "sum", "to_table", "fill" } do
  ok, e = pcall(S[m], S, 1)
  expect(not ok and e:find("size only"), m .. " refuses a size-only tensor")
end
local before = g:memory().used
ok, e = pcall(S.reshape, S, 10, 10)
expect(not ok and e:find("size only") and g:memory().used == before,
       "reshape refuses a size-only tensor before allocating its copy: " .. tostring(e) .. ", "
       .. (g:memory().used - before) .. " bytes more in use")
ok, e = pcall(g.tensor, g, { 100, init = S })
expect(not ok and e:find("size only"), "a size-only tensor is no init for another")
S = nil
ok, e = pcall(g.tensor, g, { 4, size_only = true, init = "ones" })
expect(not ok and e:find("no init"), "a size-only tensor takes no init")
W = nil
collectgarbage()
expect(g:memory().used == 0, "released when collected")

T.done("fit")
