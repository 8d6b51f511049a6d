-- decode.lua - a chatbot's token on the simulator: one transformer layer's
-- real kernels on the full-size GPU, times the layer count.
--
--   local decode = require("decode")
--   local r = decode.run("llama2-7b", {gpu = "h200", batch = 1, precision = "fp16", context = 1024})
--   r.tokens_per_s (per sequence), r.total_tokens_per_s, r.ms_per_token,
--   r.split = {weights_ms, kv_ms, compute_ms, launch_ms}, r.kernels (one layer's launches)
--   decode.print(r, lang)   decode.json(r)
--
-- What runs: for ONE layer, with the model's full sizes and the batch's
-- sequences, the QKV projection, attention over the KV cache (decode_attn +
-- decode_attn_combine), the output projection, the MLP's gate+up and down
-- projections: decode_gemv_{f16,bf16,int8,int4}.s read the weights in their
-- format and dequantise in the kernel. The layers of a model are identical,
-- so one layer's time x layers is the stack's (said on screen). The output
-- layer (vocab x hidden) runs on 1/8 of its rows, its time x 8 (the rows are
-- identical work). Elementwise kernels (norms, rotary, the residual adds,
-- SwiGLU, writing the new K and V) move ~b x hidden values: they are not run,
-- but their launches are counted. Launch cost: the preset's launch_us (3.2 µs
-- measured on the H200: reference/h200-measured.md) per kernel. Activations
-- are random; every GEMV's outputs are checked against a CPU reference on
-- sampled rows, attention on sampled heads.

local models = require("models")

local decode = {}

local FMT = {   -- weight format -> kernel, weight tensor spec, bytes per weight
  fp16 = { k = "f16", bytes = 2 }, bf16 = { k = "bf16", bytes = 2 },
  int8 = { k = "int8", bytes = 1 }, int4 = { k = "int4", bytes = 0.5 },
}
-- kernel launches per layer that are not run (elementwise): 2 norms, rotary,
-- K/V append, 2 residual adds, SwiGLU (GELU for GPT-2)
local ELEMENTWISE = 7

local function ceil_div(a, b) return (a + b - 1) // b end

-- a weight matrix N x K in format f on g (random), its scales, and w(n, k)
local function weights(g, f, N, K, seed, name)
  local W, S
  if f == "fp16" or f == "bf16" then
    W = g:tensor{ N, K, dtype = f == "fp16" and "f16" or "bf16", init = "random", seed = seed, lo = -0.05, hi = 0.05, name = name }
    S = g:tensor{ 1, init = "zeros" }
  elseif f == "int8" then
    W = g:tensor{ N, K // 4, dtype = "i32", init = "random", seed = seed, lo = -2147483648, hi = 2147483647, name = name }
    S = g:tensor{ N, init = "random", seed = seed + 1, lo = 0.0002, hi = 0.0005 }
  else
    W = g:tensor{ N, K // 8, dtype = "i32", init = "random", seed = seed, lo = -2147483648, hi = 2147483647, name = name }
    S = g:tensor{ N, K // 128, init = "random", seed = seed + 1, lo = 0.003, hi = 0.008 }
  end
  local function w(n, k)   -- 0-based
    if f == "fp16" or f == "bf16" then return W:get(n + 1, k + 1) end
    if f == "int8" then
      local v = (W:get(n + 1, k // 4 + 1) >> (8 * (k % 4))) & 0xff
      return (v >= 128 and v - 256 or v) * S:get(n + 1)
    end
    local v = (W:get(n + 1, k // 8 + 1) >> (4 * (k % 8))) & 0xf
    return (v >= 8 and v - 16 or v) * S:get(n + 1, k // 128 + 1)
  end
  return W, S, w
end

-- Y = X W^T with the format's kernel; checks `samples` outputs; returns the launch result
local function gemv(ctx, name, X, M, N, K, seed)
  local g, f = ctx.g, ctx.fmt
  local W, S, w = weights(g, f, N, K, seed, name)
  local Y = g:tensor{ M, N }
  local r = g:launch(ctx.kernels.gemv, { grid = { ceil_div(M, 8), ceil_div(N, 16) }, block = { 256 }, check = false },
                     W, S, X, Y, M, N, K)
  for i = 0, ctx.samples - 1 do   -- sampled outputs against a CPU sum
    local m, n = (i * 7) % M, (i * 2654435761 + seed) % N
    local ref, mag = 0.0, 0.0
    for k = 0, K - 1 do
      local p = X:get(m + 1, k + 1) * w(n, k)
      ref, mag = ref + p, mag + math.abs(p)
    end
    local got = Y:get(m + 1, n + 1)
    if math.abs(got - ref) > 1e-4 * mag + 1e-6 then
      error(string.format("decode: %s output [%d][%d] is %.7g, the CPU reference %.7g", name, m, n, got, ref), 0)
    end
  end
  r.name, r.weight_bytes = name, N * K * FMT[f].bytes + (f == "int8" and N * 4 or f == "int4" and N * (K // 128) * 4 or 0)
  W, S = nil, nil
  return r, Y
end

-- decode.matrix{gpu=, precision=, n=, k=, batch=, samples=}: one weight matrix
-- (n x k) read by the format's GEMV for `batch` sequences on the full GPU;
-- the launch result (time_us, dram_gbs, ...) with weight_bytes. For lessons
-- that compare GPUs or batches on one layer's largest matrix.
function decode.matrix(o)
  local f = o.precision or "fp16"
  if not FMT[f] then error("precision is fp16, bf16, int8 or int4, got " .. tostring(f), 0) end
  local g = simt.gpu{ arch = o.gpu or "h200" }
  local ctx = { g = g, fmt = f, samples = o.samples or 2, kernels = decode.kernels() }
  ctx.kernels.gemv = ctx.kernels[f]
  local X = g:tensor{ o.batch or 1, o.k, init = "random", seed = 11 }
  local r = gemv(ctx, "W", X, o.batch or 1, o.n, o.k, 101)
  r.gpu = g.desc
  return r
end

function decode.kernels()
  local K = {}
  for f, v in pairs(FMT) do K[f] = simt.kernel("lessons/kernels/decode_gemv_" .. v.k .. ".s") end
  K.attn = simt.kernel("lessons/kernels/decode_attn.s")
  K.combine = simt.kernel("lessons/kernels/decode_attn_combine.s")
  return K
end

-- decode.run(model, opts): opts gpu (preset), batch, precision (the weights'
-- format: fp16 bf16 int8 int4; the KV cache is fp16), context (tokens in the
-- cache, even, >= 2), samples (outputs checked per GEMV, default 4),
-- sms / dram_gbps (GPU overrides, for lessons).
function decode.run(model, opts)
  opts = opts or {}
  local m = models.get(model)
  local P = models.params(m)
  local f = opts.precision or "fp16"
  if not FMT[f] then error("precision is fp16, bf16, int8 or int4, got " .. tostring(f), 0) end
  local b = math.tointeger(tonumber(opts.batch or 1))
  if not b or b < 1 or b > 256 then error("batch must be a whole number from 1 to 256", 0) end
  local T = math.tointeger(tonumber(opts.context or 1024))
  if not T or T < 2 or T % 2 ~= 0 or T > m.context * 4 then
    error(string.format("context must be an even number of tokens from 2 to %d", m.context * 4), 0)
  end
  local h, hd, kvd, ffn = m.hidden, P.head_dim, P.kv_dim, m.ffn
  local need = f == "int4" and 128 or 16
  if h % need ~= 0 or ffn % need ~= 0 then
    error(string.format("decode needs hidden and ffn multiples of %d for %s weights", need, f), 0)
  end
  if hd > 128 or hd % 8 ~= 0 then error("decode needs a head size <= 128, a multiple of 8", 0) end
  local spec = { arch = opts.gpu or "h200", sms = opts.sms, dram_gbps = opts.dram_gbps }
  local okg, g = pcall(simt.gpu, spec)
  if not okg then error(g, 0) end   -- a preset name from the command line: the message, not decode.lua's line
  local ctx = { g = g, fmt = f, samples = opts.samples or 4, kernels = decode.kernels() }
  ctx.kernels.gemv = ctx.kernels[f]
  local t_host = os.clock()
  local launches = {}
  -- the layer's input (after the first norm), random
  local X = g:tensor{ b, h, init = "random", seed = 11 }
  local nqkv = h + 2 * kvd
  local r, QKV = gemv(ctx, "qkv", X, b, nqkv, h, 101)
  launches[#launches + 1] = r
  -- attention over the cache: K transposed per head, V as is (fp16)
  local Kc = g:tensor{ b * m.kv_heads * hd, T, dtype = "f16", init = "random", seed = 21, lo = -1, hi = 1, name = "K cache" }
  local Vc = g:tensor{ b * m.kv_heads * T, hd, dtype = "f16", init = "random", seed = 22, lo = -1, hi = 1, name = "V cache" }
  local splits = ceil_div(T, 256)
  local O = g:tensor{ b * m.heads * splits, hd }
  local ML = g:tensor{ b * m.heads * splits, 2 }
  local A = g:tensor{ b, h }
  local group = m.heads // m.kv_heads
  local ra = g:launch(ctx.kernels.attn, { grid = { splits, m.heads, b }, block = { 128 }, check = false },
                      QKV, Kc, Vc, O, ML, T, nqkv, group, hd, simt.f32(1 / math.sqrt(hd)))
  local rc = g:launch(ctx.kernels.combine, { grid = { m.heads, b }, block = { hd }, check = false },
                      O, ML, A, splits, hd, h)
  -- attention checked on sampled (sequence, head) pairs against a CPU softmax
  for i = 0, math.min(ctx.samples, b * m.heads) - 1 do
    local bb, hh = i % b, (i * 5) % m.heads
    local kvh = hh // group
    local base = bb * m.kv_heads + kvh
    local s, mx = {}, -math.huge
    for t = 0, T - 1 do
      local acc = 0.0
      for d = 0, hd - 1 do acc = acc + QKV:get(bb + 1, hh * hd + d + 1) * Kc:get(base * hd + d + 1, t + 1) end
      s[t] = acc / math.sqrt(hd)
      mx = math.max(mx, s[t])
    end
    local l = 0.0
    for t = 0, T - 1 do s[t] = math.exp(s[t] - mx); l = l + s[t] end
    for d = 0, hd - 1, math.max(1, hd // 4) do
      local o = 0.0
      for t = 0, T - 1 do o = o + s[t] * Vc:get(base * T + t + 1, d + 1) end
      local got = A:get(bb + 1, hh * hd + d + 1)
      if math.abs(got - o / l) > 2e-3 * (1 + math.abs(o / l)) then
        error(string.format("decode: attention of sequence %d head %d, d %d is %.6g, the CPU reference %.6g",
                            bb, hh, d, got, o / l), 0)
      end
    end
  end
  ra.name, rc.name = "attention", "attention_combine"
  ra.kv_bytes = 2 * b * kvd * T * 2
  launches[#launches + 1] = ra
  launches[#launches + 1] = rc
  Kc, Vc, O, ML = nil, nil, nil, nil
  r = gemv(ctx, "o", A, b, h, h, 201)
  launches[#launches + 1] = r
  local up = m.mlp == "swiglu" and 2 * ffn or ffn
  local U = g:tensor{ b, ffn, init = "random", seed = 12 }
  r = gemv(ctx, m.mlp == "swiglu" and "gate_up" or "fc", X, b, up, h, 301)
  launches[#launches + 1] = r
  r = gemv(ctx, "down", U, b, h, ffn, 401)
  launches[#launches + 1] = r
  -- the output layer: 1/8 of its rows (identical work), time x 8
  local rows = ceil_div(m.vocab, 8)
  local saved = ctx.fmt
  ctx.fmt, ctx.kernels.gemv = "fp16", ctx.kernels.fp16   -- kept in 16 bits (fit.lua)
  local rh = gemv(ctx, "lm_head", X, b, rows, h, 501)
  ctx.fmt, ctx.kernels.gemv = saved, ctx.kernels[saved]
  collectgarbage()
  local host_s = os.clock() - t_host

  local layer_us, w_us, kv_us = 0, 0, 0
  for _, l in ipairs(launches) do
    layer_us = layer_us + l.time_us
    if l.weight_bytes then w_us = w_us + l.time_us end
    if l.kv_bytes or l.name == "attention_combine" then kv_us = kv_us + l.time_us end
  end
  local head_us = rh.time_us * m.vocab / rows
  local d = g.desc
  local nlaunch = (#launches + ELEMENTWISE) * m.layers + 1
  local launch_us = nlaunch * (d.launch_us or 0)
  local token_us = layer_us * m.layers + head_us + launch_us
  local wbytes = 0
  for _, l in ipairs(launches) do wbytes = wbytes + (l.weight_bytes or 0) end
  wbytes = wbytes * m.layers + m.vocab * h * 2
  local flops = 0
  for _, l in ipairs(launches) do flops = flops + l.flops end
  local res = {
    model = m, gpu = d.name, batch = b, precision = f, context = T, layers = m.layers,
    kernels = launches, lm_head = rh, head_rows_run = rows,
    layer_us = layer_us, head_us = head_us, launches = nlaunch, launch_us = launch_us, launch_each_us = d.launch_us,
    us_per_token = token_us, ms_per_token = token_us / 1000,
    tokens_per_s = 1e6 / token_us, total_tokens_per_s = b * 1e6 / token_us,
    split = { weights_ms = (w_us * m.layers + head_us) / 1000, kv_ms = kv_us * m.layers / 1000,
              launch_ms = launch_us / 1000 },
    weight_bytes = wbytes, kv_bytes = 2 * m.layers * kvd * T * 2 * b,
    dram_gbps = d.dram_gbps, bandwidth_bound_tokens_per_s = d.dram_gbps * 1e9 / wbytes,
    flops_per_token = flops * m.layers / b, host_seconds = host_s,
  }
  -- compute: the part of the GEMVs' time beyond streaming their bytes at the
  -- preset's DRAM bandwidth (0 when they keep DRAM busy)
  local stream_ms = wbytes / (d.dram_gbps * 1e9) * 1000
  res.split.compute_ms = math.max(0, res.split.weights_ms - stream_ms)
  res.split.weights_ms = res.split.weights_ms - res.split.compute_ms
  return res
end

function decode.print(r, lang)
  local zh = lang == "zh"
  local m = r.model
  print(string.format(zh and "%s 在 %s 上解码：批大小 %d，权重 %s，上下文 %d 个词元"
                         or "%s decoding on %s: batch %d, %s weights, context %d tokens",
                      m.name, r.gpu, r.batch, r.precision, r.context))
  print(zh and string.format("  在模拟的完整 GPU 上真实运行了一层的核函数（%d 层都相同，所以一层的时间 x %d）：",
                             r.layers, r.layers)
           or string.format("  one layer's kernels ran on the full simulated GPU (the %d layers are identical, "
                            .. "so one layer's time x %d):", r.layers, r.layers))
  for _, l in ipairs(r.kernels) do
    print(string.format(zh and "    %-18s %10s   从显存读 %7.0f GB/s" or "    %-18s %10s   %7.0f GB/s from DRAM",
                        l.name, string.format("%.1f µs", l.time_us), l.dram_gbs))
  end
  print(string.format(zh and "    %-18s %10s   （运行了 1/8 的行，时间 x 8）" or "    %-18s %10s   (1/8 of its rows run, time x 8)",
                      "lm_head", string.format("%.1f µs", r.head_us)))
  print(string.format(zh and "  每个词元：%.2f ms = 读权重 %.2f + 读 KV 缓存 %.2f + 计算与延迟 %.2f + 启动 %d 个核函数 %.2f（每个 %.1f µs，H200 实测）"
                         or "  per token: %.2f ms = weight reads %.2f + KV-cache reads %.2f + compute and latency %.2f + %d launches %.2f (%.1f µs each, measured on an H200)",
                      r.ms_per_token, r.split.weights_ms, r.split.kv_ms, r.split.compute_ms, r.launches, r.split.launch_ms,
                      r.launch_each_us or 0))
  print(string.format(zh and "  每条序列 %.1f 词元/秒，合计 %.1f 词元/秒（上限：显存带宽 %d GB/s / 权重 %.2f GB = %.1f 词元/秒）"
                         or "  %.1f tokens/s per sequence, %.1f tokens/s in total (ceiling: %d GB/s / %.2f GB of weights = %.1f tokens/s)",
                      r.tokens_per_s, r.total_tokens_per_s, r.dram_gbps, r.weight_bytes / 1e9, r.bandwidth_bound_tokens_per_s))
  print(string.format(zh and "  （模拟用时 %.1f 秒）" or "  (simulated in %.1f s of host time)", r.host_seconds))
end

function decode.json(r)
  local ks = {}
  for _, l in ipairs(r.kernels) do
    ks[#ks + 1] = string.format('{"name": "%s", "time_us": %.3f, "dram_gbs": %.1f}', l.name, l.time_us, l.dram_gbs)
  end
  return string.format('{"model": "%s", "gpu": "%s", "batch": %d, "precision": "%s", "context": %d, "layers": %d, '
                       .. '"tokens_per_s": %.4f, "total_tokens_per_s": %.4f, "ms_per_token": %.5f, '
                       .. '"weights_ms": %.5f, "kv_ms": %.5f, "compute_ms": %.5f, "launch_ms": %.5f, "launches": %d, '
                       .. '"layer_us": %.3f, "lm_head_us": %.3f, "weight_bytes": %.0f, "kv_bytes": %.0f, '
                       .. '"kernels": [%s]}',
                       r.model.name, r.gpu, r.batch, r.precision, r.context, r.layers, r.tokens_per_s,
                       r.total_tokens_per_s, r.ms_per_token, r.split.weights_ms, r.split.kv_ms, r.split.compute_ms,
                       r.split.launch_ms, r.launches, r.layer_us, r.head_us, r.weight_bytes, r.kv_bytes,
                       table.concat(ks, ", "))
end

return decode
