-- fit.lua - will a model fit on a GPU? An itemised memory ledger.
--
--   local fit = require("fit")
--   local p = fit.plan("llama2-7b", {gpu = "a100", mode = "train", optimizer = "adamw",
--                      precision = "bf16-mixed", batch = 1, seq = 4096, checkpointing = false})
--   p.items      -- {{key=, en=, zh=, bytes=, formula=, source=}, ...}
--   p.peak_bytes, p.capacity, p.fits, p.left    -- bytes; left < 0: short by -left
--   fit.print(p, lang)   fit.json(p)
--
-- opts: gpu (a preset name; its mem_bytes is the capacity), mode "train" |
-- "infer", optimizer "adamw" | "adam8bit" | "sgd" (momentum), precision
-- "fp32" | "bf16-mixed" | "bf16" | "fp16", weights nil | "int8" | "int4"
-- (inference: the layers' matrices quantised, embeddings and output layer
-- kept in 16 bits, as GPTQ, AWQ and bitsandbytes do), batch, seq (tokens
-- per sequence; for inference the context held in the KV cache),
-- checkpointing (keep only each layer's input, recompute the rest in the
-- backward pass), attention "flash" (scores never stored, the default) |
-- "eager" (the seq x seq scores of every head are stored).
--
-- Units: bytes; GB = 10^9 bytes, as GPU datasheets and presets use.

local models = require("models")

local fit = {}

local GB = 1e9
local PREFILL = 8192   -- most prompt tokens processed at once (chunked prefill)

local models_commas = require("lesson").commas   -- 6738415616 -> "6,738,415,616"

-- Bytes per parameter for each precision: weights, gradients, optimizer
-- states (by optimizer; the fp32 master copy of mixed precision is counted
-- with the optimizer, as the ZeRO paper does).
local PREC = {
  ["fp32"]       = { w = 4, g = 4, master = 0, state = 4, act = 4 },
  ["bf16-mixed"] = { w = 2, g = 2, master = 4, state = 4, act = 2 },
  ["fp16"]       = { w = 2, g = 2, master = 4, state = 4, act = 2 },
  ["bf16"]       = { w = 2, g = 2, master = 0, state = 2, act = 2 },
}
local OPT = {   -- number of states per parameter, and bytes each (nil: the precision's)
  adamw = { n = 2 }, sgd = { n = 1 }, adam8bit = { n = 2, bytes = 1 },
}

local SRC = {
  zero = "Rajbhandari et al. 2020, 'ZeRO' sec. 3.1: mixed-precision Adam keeps fp16 weights and "
      .. "gradients (2 + 2 bytes) and fp32 master weights, momentum and variance (12 bytes)",
  adam = "Loshchilov & Hutter 2019 (AdamW): two states per parameter, momentum and variance",
  bnb = "Dettmers et al. 2022, '8-bit Optimizers via Block-wise Quantization': 1 byte per state "
     .. "(plus a block scale per 2048 values, left out)",
  sgd = "SGD with momentum: one state per parameter (torch.optim.SGD, momentum > 0)",
  act = "Korthikanti et al. 2022, 'Reducing Activation Recomputation in Large Transformer Models', "
     .. "sec. 4.1: a layer stores 34 s b h + 5 a s^2 b bytes in 16 bits (GPT, 4h MLP, dropout); "
     .. "here each tensor is listed, so SwiGLU, grouped K/V, no dropout and flash attention change it",
  ckpt = "Chen et al. 2016, 'Training Deep Nets with Sublinear Memory Cost'; Korthikanti et al. "
      .. "2022 sec. 5: full recomputation keeps 2 s b h bytes per layer (the layer's input)",
  kv = "every layer keeps K and V (2 tensors) of kv_heads x head_dim per token "
    .. "(grouped-query attention: Ainslie et al. 2023, 'GQA'; vLLM and Hugging Face cache the same)",
  logits = "the output layer's logits for every position, in 16 bits and again in fp32 for the "
        .. "loss (Hugging Face LlamaForCausalLM / GPT2LMHeadModel upcast logits before the cross-entropy)",
  quant = "GPTQ (Frantar et al. 2022), AWQ (Lin et al. 2023), bitsandbytes LLM.int8 (Dettmers et al. 2022): "
       .. "the layers' matrices in 8 or 4 bits with a 16-bit scale per output row (int8) or per group "
       .. "of 128 weights (int4); embeddings, output layer and norms stay 16-bit",
  ws = "cuBLAS workspace: 32 MiB on Hopper, 4 MiB + 8 MiB before (CUBLAS_WORKSPACE_CONFIG, cuBLAS docs)",
  ctx = "estimate: the CUDA context and kernels of PyTorch take ~0.3-0.5 GB on the GPU "
     .. "(PyTorch 'CUDA semantics' docs note it; 0.5 GB here), plus ~5% for the caching allocator's "
     .. "fragmentation (estimate)",
}

local function num(x, name, lo)
  x = tonumber(x)
  if not x or x ~= math.floor(x) or x < (lo or 1) then
    error(string.format("%s must be a whole number >= %d, got %s", name, lo or 1, tostring(x)), 0)
  end
  return math.tointeger(x)
end

-- fit.plan(model, opts): the ledger. Every item's bytes come from its formula
-- with the model's numbers put in (the test checks each against a hand sum).
function fit.plan(model, opts)
  opts = opts or {}
  local m = models.get(model)
  local P = models.params(m)
  local mode = opts.mode or "train"
  if mode ~= "train" and mode ~= "infer" then error("mode is \"train\" or \"infer\", got " .. tostring(mode), 0) end
  local precision = opts.precision or (mode == "train" and "bf16-mixed" or "bf16")
  local pr = PREC[precision]
  if not pr then error("precision is fp32, bf16-mixed, bf16 or fp16, got " .. tostring(precision), 0) end
  local optimizer = opts.optimizer or "adamw"
  local op = OPT[optimizer]
  if not op then error("optimizer is adamw, adam8bit or sgd, got " .. tostring(optimizer), 0) end
  local wq = opts.weights
  if wq ~= nil and wq ~= "int8" and wq ~= "int4" then error("weights is int8 or int4, got " .. tostring(wq), 0) end
  if wq and mode == "train" then error("quantised weights (--weights) are for inference (--infer)", 0) end
  local b = num(opts.batch or 1, "batch")
  local s = num(opts.seq or (mode == "train" and math.min(m.context, 2048) or m.context), "seq")
  local attention = opts.attention or "flash"
  if attention ~= "flash" and attention ~= "eager" then error("attention is flash or eager", 0) end
  local h, f, L, a, V = m.hidden, m.ffn, m.layers, m.heads, m.vocab
  local kvd, hd = P.kv_dim, P.head_dim
  local N = P.total
  local items = {}
  local function add(key, en, zh, bytes, formula, source)
    items[#items + 1] = { key = key, en = en, zh = zh, bytes = bytes, formula = formula, source = source }
    return bytes
  end

  local gpu = opts.gpu or "h200"
  local capacity = opts.capacity
  if not capacity then
    local ok, g = pcall(simt.gpu, { arch = gpu })
    if not ok then error(g, 0) end
    capacity = g.desc.mem_bytes
  end

  local weights, grads, optim, acts, logits, kv = 0, 0, 0, 0, 0, 0
  if mode == "train" then
    weights = add("weights", "weights", "参数（权重）", N * pr.w,
                  string.format("%s parameters x %d bytes (%s)", models_commas(N), pr.w, precision),
                  pr.master > 0 and SRC.zero or "bytes per parameter of the format")
    grads = add("gradients", "gradients", "梯度", N * pr.g,
                string.format("%s parameters x %d bytes", models_commas(N), pr.g), SRC.zero)
    local sb = op.bytes or pr.state
    local per = pr.master + op.n * sb
    optim = add("optimizer", "optimizer states", "优化器状态", N * per,
                string.format("%s parameters x (%s%d state%s x %d bytes) = %d bytes each (%s)", models_commas(N),
                              pr.master > 0 and (pr.master .. " fp32 master + ") or "", op.n,
                              op.n > 1 and "s" or "", sb, per, optimizer),
                (optimizer == "adam8bit" and SRC.bnb) or (optimizer == "sgd" and SRC.sgd)
                or (pr.master > 0 and SRC.zero or SRC.adam))
    -- activations one layer stores for the backward pass, tensor by tensor
    local e = pr.act
    local sbh = s * b * h
    local per_layer, parts
    if opts.checkpointing then
      per_layer = e * sbh
      parts = string.format("%d bytes x s x b x h (the layer's input only)", e)
    else
      local norms = 2 * e * sbh                                -- inputs of the two norms
      local qkv_in = e * sbh                                   -- the normed input of Q, K, V
      local q, kvb = e * sbh, 2 * e * s * b * kvd             -- Q, and K and V (grouped)
      local att_out = e * sbh                                  -- attention output = O's input
      local scores = attention == "eager" and (2 * e + (m.dropout and 1 or 0)) * a * s * s * b or 4 * a * s * b
      local mlp_in = e * sbh
      local mlp = m.mlp == "swiglu" and 3 * e * s * b * f or 2 * e * s * b * f   -- gate, up, act | fc, gelu
      local drop = m.dropout and 2 * sbh or 0                  -- two 1-byte dropout masks
      per_layer = norms + qkv_in + q + kvb + att_out + scores + mlp_in + mlp + drop
      parts = string.format("%d B x s b (2h norms + h QKV in + h Q + 2x%d K,V + h attn out + h MLP in + %dx%d MLP)"
                            .. "%s%s", e, kvd, m.mlp == "swiglu" and 3 or 2, f,
                            attention == "eager" and " + scores a s^2 b" or " + softmax stats 4 a s b (flash)",
                            m.dropout and " + dropout masks 2 s b h" or "")
    end
    local layers_bytes = L * per_layer
    if opts.checkpointing then
      -- one layer's full activations are rebuilt during its backward pass
      local full = fit.plan(m, { gpu = gpu, capacity = capacity, mode = "train", precision = precision,
                                 optimizer = optimizer, batch = b, seq = s, attention = attention })
      for _, it in ipairs(full.items) do if it.key == "activations" then layers_bytes = layers_bytes + it.bytes / L end end
    end
    acts = add("activations", "activations", "激活值", layers_bytes,
               string.format("%d layers x %s = %s per layer%s (batch %d, seq %d)", L, parts,
                             fit.gb(per_layer), opts.checkpointing and ", + one layer recomputed" or "", b, s),
               opts.checkpointing and SRC.ckpt or SRC.act)
    logits = add("logits", "output logits", "输出 logits", s * b * V * (2 + 4),
                 string.format("s x b x vocab x (2 + 4 bytes) = %d x %d x %s x 6", s, b, models_commas(V)), SRC.logits)
  else
    local qb = wq == "int8" and 1 or wq == "int4" and 0.5 or pr.w
    local lin = L * P.linear
    local scale = wq == "int8" and 2 * L * (2 * h + 2 * kvd + (m.mlp == "swiglu" and 2 or 1) * f + h)
                  or wq == "int4" and 2 * lin / 128 or 0
    local rest = N - lin
    local wform = wq and string.format("%s layer weights x %g byte + scales %s + %s other (embeddings, norms) x 2 bytes",
                                       models_commas(lin), qb, fit.gb(scale), models_commas(rest))
                  or string.format("%s parameters x %d bytes (%s)", models_commas(N), pr.w, precision)
    weights = add("weights", "weights", "参数（权重）", wq and (lin * qb + scale + rest * 2) or N * pr.w,
                  wform, wq and SRC.quant or "bytes per parameter of the format")
    kv = add("kv_cache", "KV cache (K and V)", "KV 缓存（K 和 V）", 2 * L * kvd * s * b * 2,
             string.format("2 (K and V) x %d layers x %d (kv_heads %d x head_dim %d) x %d tokens x batch %d x 2 bytes",
                           L, kvd, m.kv_heads, hd, s, b), SRC.kv)
    -- one layer at a time during the prompt (prefill), freed as the next runs;
    -- the prompts are processed at most PREFILL tokens at a time
    local tokens = math.min(s * b, PREFILL)
    local per = 2 * tokens * (2 * h + 2 * kvd + (m.mlp == "swiglu" and 3 or 2) * f)
    acts = add("activations", "activations (one layer, prompt)", "激活值（一层，处理提示词时）", per,
               string.format("2 bytes x %d tokens (min(s x b, %d)) x (2h + 2x%d K,V + %dx%d MLP): freed layer by layer",
                             tokens, PREFILL, kvd, m.mlp == "swiglu" and 3 or 2, f),
               "inference keeps no activations for a backward pass, only the running layer's; prompts are "
            .. "processed in chunks of at most 8,192 tokens (chunked prefill, as vLLM does; the chunk size is an assumption)")
    logits = add("logits", "output logits (last token)", "输出 logits（最后一个词元）", b * V * 4,
                 string.format("b x vocab x 4 bytes = %d x %s x 4", b, models_commas(V)), SRC.logits)
  end
  local ws = add("workspace", "workspace (cuBLAS)", "工作区（cuBLAS）", 32 * 1024 * 1024, "32 MiB", SRC.ws)
  -- the peak: backward frees each layer's activations as its gradients appear
  local dynamic = mode == "train" and math.max(acts + logits, grads) or (acts + logits)
  local tensors = weights + optim + kv + dynamic + ws
  local overhead = add("overhead", "framework overhead", "框架开销", 0.5 * GB + 0.05 * tensors,
                       string.format("0.5 GB CUDA context + 5%% of %s for fragmentation", fit.gb(tensors)), SRC.ctx)
  local peak = tensors + overhead
  local plan = {
    model = m, params = N, mode = mode, precision = precision, optimizer = mode == "train" and optimizer or nil,
    weights_format = wq, batch = b, seq = s, checkpointing = opts.checkpointing and true or false,
    attention = attention, gpu = gpu, capacity = capacity, items = items, peak_bytes = peak,
    fits = peak <= capacity, left = capacity - peak,
    peak_formula = mode == "train"
      and "weights + optimizer states + max(activations + logits, gradients) + workspace + overhead: the "
       .. "backward pass frees each layer's activations as its gradients appear (PyTorch 2: zero_grad "
       .. "sets gradients to None), so both are not held in full at once"
      or "weights + KV cache + activations + logits + workspace + overhead",
  }
  return plan
end

function fit.gb(x)
  if x >= 1e9 then return string.format("%.2f GB", x / 1e9) end
  if x >= 1e6 then return string.format("%.1f MB", x / 1e6) end
  return string.format("%.1f KB", x / 1e3)
end

-- The largest batch (1..limit) whose plan fits; 0 if even batch 1 does not.
function fit.largest_batch(model, opts, limit)
  local lo, hi = 0, limit or 4096
  while lo < hi do
    local mid = (lo + hi + 1) // 2
    local o = {}
    for k, v in pairs(opts) do o[k] = v end
    o.batch = mid
    if fit.plan(model, o).fits then lo = mid else hi = mid - 1 end
  end
  return lo
end

-- str padded to w terminal columns (CJK characters take two)
local function pad(str, w)
  local n = 0
  for _, c in utf8.codes(str) do n = n + ((c >= 0x2e80 and c <= 0xffef) and 2 or 1) end
  return str .. string.rep(" ", math.max(0, w - n))
end

-- A formula of the ledger in Chinese: its words replaced, longest first; the
-- symbols (s, b, h, x) and numbers stay. The JSON keeps the English.
local FORMULA_ZH = {
  { "the backward pass frees each layer's activations as its gradients appear (PyTorch 2: zero_grad "
    .. "sets gradients to None), so both are not held in full at once",
    "反向传播时，每层的梯度出现，这层的激活值就被释放（PyTorch 2：zero_grad 把梯度设为 None），所以两者不会同时全部占用显存" },
  { "(the layer's input only)", "（只存这层的输入）" }, { "freed layer by layer", "逐层释放" },
  { ", + one layer recomputed", "，另加重算的一层" },
  { "CUDA context", "CUDA 上下文" }, { "optimizer states", "优化器状态" }, { "KV cache", "KV 缓存" },
  { "fp32 master", "份 fp32 主权重" }, { "layer weights", "个层权重" }, { "other (embeddings, norms)", "个其他参数（嵌入、归一化）" },
  { "softmax stats", "softmax 统计量" }, { "dropout masks", "dropout 掩码" }, { "scores", "注意力分数" },
  { "attn out", "注意力输出" }, { "MLP in", "MLP 输入" }, { "QKV in", "QKV 输入" }, { "norms", "归一化" },
  { "K and V", "K 和 V" }, { "parameters", "个参数" }, { "per layer", "每层" },
{ "states", "份状态" }, { "state", "份状态" }, { "bytes", "字节" },
  { "byte", "字节" }, { "layers", "层" }, { "tokens", "个词元" }, { "batch", "批大小" }, { "seq", "序列长度" },
  { "scales", "缩放因子" }, { "weights", "权重" }, { "activations", "激活值" }, { "gradients", "梯度" },
  { "workspace", "工作区" }, { "overhead", "框架开销" }, { "vocab", "词表" }, { "of", "的" },
}
function fit.formula_zh(f)
  f = f:gsub("(%d+%%) of ([%d%.]+ %a+) for fragmentation", "%2 的 %1（内存碎片）")
       :gsub("= (%d+) bytes each", "= 每个参数 %1 字节")
  for _, w in ipairs(FORMULA_ZH) do
    local from = w[1]:gsub("[%(%)%.%%%+%-%*%?%[%]%^%$]", "%%%0")
    local pat = (w[1]:match("^%a") and "%f[%a]" or "") .. from .. (w[1]:match("%a$") and "%f[%A]" or "")
    f = f:gsub(pat, (w[2]:gsub("%%", "%%%%")))
  end
  return f
end

-- Print the ledger (lang "en" or "zh").
function fit.print(p, lang)
  local zh = lang == "zh"
  local m = p.model
  print(string.format(zh and "%s（%s 个参数，%d 层，隐藏维度 %d，%d 个注意力头，%d 个 KV 头，词表 %s）"
                         or "%s (%s parameters, %d layers, hidden %d, %d heads, %d KV heads, vocab %s)",
                      m.name, models_commas(p.params), m.layers, m.hidden, m.heads, m.kv_heads, models_commas(m.vocab)))
  print(string.format(zh and "%s，%s，批大小 %d，序列长度 %d%s" or "%s, %s, batch %d, sequence %d%s",
                      p.mode == "train" and (zh and "训练" or "training") or (zh and "推理" or "inference"),
                      p.weights_format or p.precision .. (p.optimizer and (" + " .. p.optimizer) or ""),
                      p.batch, p.seq, p.checkpointing and (zh and "，激活重计算" or ", activation checkpointing") or ""))
  for _, it in ipairs(p.items) do
    print(string.format("  %s %12s   %s", pad(zh and it.zh or it.en, 34), fit.gb(it.bytes),
                        zh and fit.formula_zh(it.formula) or it.formula))
  end
  print(string.format("  %s %12s   %s", pad(zh and "峰值" or "peak", 34), fit.gb(p.peak_bytes),
                      zh and fit.formula_zh(p.peak_formula) or p.peak_formula))
  local cap = fit.gb(p.capacity)
  if p.fits then
    print(string.format(zh and "能放下 %s（%s 显存容量），还剩 %s" or "fits on %s (%s of memory): %s left",
                        p.gpu, cap, fit.gb(p.left)))
  else
    print(string.format(zh and "放不下 %s（%s 显存容量）：还差 %s" or "does not fit on %s (%s of memory): %s short",
                        p.gpu, cap, fit.gb(-p.left)))
  end
  print(zh and "来源：" or "sources:")
  local seen = {}
  for _, it in ipairs(p.items) do
    if not seen[it.source] then seen[it.source] = true; print("  " .. (zh and it.zh or it.key) .. ": " .. it.source) end
  end
  print("  " .. (zh and "模型" or "model") .. ": " .. m.source)
end

local function jstr(s) return '"' .. tostring(s):gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"' end

-- The plan as a JSON object: peak_bytes, capacity_bytes, fits, left_bytes and every item.
function fit.json(p)
  local its = {}
  for _, it in ipairs(p.items) do
    its[#its + 1] = string.format('{"key": %s, "name": %s, "bytes": %.0f, "formula": %s, "source": %s}',
                                  jstr(it.key), jstr(it.en), it.bytes, jstr(it.formula), jstr(it.source))
  end
  return string.format('{"model": %s, "parameters": %d, "mode": %s, "precision": %s, "weights": %s, '
                       .. '"optimizer": %s, "batch": %d, "seq": %d, "checkpointing": %s, "gpu": %s, '
                       .. '"capacity_bytes": %.0f, "peak_bytes": %.0f, "fits": %s, "left_bytes": %.0f, '
                       .. '"peak_formula": %s, "items": [%s]}',
                       jstr(p.model.name), p.params, jstr(p.mode), jstr(p.precision),
                       p.weights_format and jstr(p.weights_format) or "null",
                       p.optimizer and jstr(p.optimizer) or "null", p.batch, p.seq, tostring(p.checkpointing),
                       jstr(p.gpu), p.capacity, p.peak_bytes, tostring(p.fits), p.left, jstr(p.peak_formula),
                       table.concat(its, ", "))
end

return fit
