-- models.lua - transformer language models for the memory planner (fit.lua)
-- and decode on the simulator (decode.lua): their shapes, with sources, and
-- their parameter counts computed from the shapes (the counts are checked
-- against the published totals in tests/lua/test_fit.lua).
--
--   local models = require("models")
--   local m = models.get("llama3-8b")     -- a built-in, or a table / JSON string:
--   local m = models.get{layers = 32, hidden = 4096, heads = 32, kv_heads = 8,
--                        vocab = 128256, ffn = 14336}
--   local p = models.params(m)            -- {embed, per_layer, final, head, total, linear}
--   models.names()                        -- the built-ins, in order
--
-- Fields of a model: layers, hidden, heads, kv_heads (grouped-query
-- attention: fewer K/V heads than query heads; = heads without GQA), vocab,
-- ffn (the MLP's inner size), mlp ("gelu": two matrices, GPT-2; "swiglu":
-- three, LLaMA), tied (the output layer shares the embedding matrix),
-- positions (learned position embeddings, GPT-2; 0 for rotary), biases (GPT-2
-- has biases and LayerNorm's two vectors; LLaMA has neither: RMSNorm, one
-- vector), dropout (GPT-2 trains with dropout: its masks are activations),
-- context (the longest sequence it was trained for), name, source.

local models = {}

local BUILTIN = {
  ["gpt2-124m"] = {
    layers = 12, hidden = 768, heads = 12, kv_heads = 12, vocab = 50257, ffn = 3072,
    mlp = "gelu", tied = true, positions = 1024, biases = true, dropout = true, context = 1024,
    published = 124439808,
    source = "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners'; "
          .. "Hugging Face openai-community/gpt2 config.json (n_layer 12, n_embd 768, n_head 12, "
          .. "vocab 50257, n_positions 1024); 124,439,808 parameters",
  },
  ["gpt2-xl"] = {
    layers = 48, hidden = 1600, heads = 25, kv_heads = 25, vocab = 50257, ffn = 6400,
    mlp = "gelu", tied = true, positions = 1024, biases = true, dropout = true, context = 1024,
    published = 1557611200,
    source = "Radford et al. 2019; Hugging Face openai-community/gpt2-xl config.json "
          .. "(n_layer 48, n_embd 1600, n_head 25); 1,557,611,200 parameters",
  },
  ["tinyllama-1.1b"] = {
    layers = 22, hidden = 2048, heads = 32, kv_heads = 4, vocab = 32000, ffn = 5632,
    mlp = "swiglu", tied = false, positions = 0, biases = false, dropout = false, context = 2048,
    published = 1100048384,
    source = "Zhang et al. 2024, 'TinyLlama: An Open-Source Small Language Model'; Hugging Face "
          .. "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T config.json (22 layers, hidden 2048, "
          .. "32 heads, 4 KV heads, intermediate 5632, vocab 32000); 1,100,048,384 parameters",
  },
  ["llama2-7b"] = {
    layers = 32, hidden = 4096, heads = 32, kv_heads = 32, vocab = 32000, ffn = 11008,
    mlp = "swiglu", tied = false, positions = 0, biases = false, dropout = false, context = 4096,
    published = 6738415616,
    source = "Touvron et al. 2023, 'Llama 2' (Table 1); Hugging Face meta-llama/Llama-2-7b-hf "
          .. "config.json (32 layers, hidden 4096, 32 heads, intermediate 11008, vocab 32000); "
          .. "6,738,415,616 parameters",
  },
  ["llama3-8b"] = {
    layers = 32, hidden = 4096, heads = 32, kv_heads = 8, vocab = 128256, ffn = 14336,
    mlp = "swiglu", tied = false, positions = 0, biases = false, dropout = false, context = 8192,
    published = 8030261248,
    source = "Meta 2024, 'The Llama 3 Herd of Models' (Table 3); Hugging Face "
          .. "meta-llama/Meta-Llama-3-8B config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, "
          .. "intermediate 14336, vocab 128256); 8,030,261,248 parameters",
  },
  ["llama2-70b"] = {
    layers = 80, hidden = 8192, heads = 64, kv_heads = 8, vocab = 32000, ffn = 28672,
    mlp = "swiglu", tied = false, positions = 0, biases = false, dropout = false, context = 4096,
    published = 68976648192,
    source = "Touvron et al. 2023, 'Llama 2'; Hugging Face meta-llama/Llama-2-70b-hf config.json "
          .. "(80 layers, hidden 8192, 64 heads, 8 KV heads, intermediate 28672, vocab 32000); "
          .. "68,976,648,192 parameters",
  },
}
local ORDER = { "gpt2-124m", "gpt2-xl", "tinyllama-1.1b", "llama2-7b", "llama3-8b", "llama2-70b" }

function models.names() return table.move(ORDER, 1, #ORDER, 1, {}) end

-- A flat JSON object of numbers, strings and booleans ({"layers": 32, ...}).
local function parse_json(s)
  local t, pos = {}, s:find("{")
  if not pos then error("a model in JSON is an object {\"layers\": 32, ...}", 0) end
  for k, v in s:gmatch('"([%w_]+)"%s*:%s*([^,}]+)') do
    v = v:gsub("^%s+", ""):gsub("%s+$", "")
    if v == "true" or v == "false" then t[k] = v == "true"
    elseif v:match('^".*"$') then t[k] = v:sub(2, -2)
    else t[k] = tonumber(v) or error("model field '" .. k .. "': '" .. v .. "' is not a number", 0) end
  end
  return t
end

-- models.get(x): a copy of built-in x, or x (a table or a JSON string) checked
-- and completed with defaults (LLaMA-style: SwiGLU, untied, no biases).
function models.get(x)
  local m
  if type(x) == "string" and BUILTIN[x:lower()] then
    m = {}
    for k, v in pairs(BUILTIN[x:lower()]) do m[k] = v end
    m.name = x:lower()
    return m
  elseif type(x) == "string" and x:find("{") then
    m = parse_json(x)
  elseif type(x) == "table" then
    m = {}
    for k, v in pairs(x) do m[k] = v end
  else
    error(string.format("unknown model '%s' (built-ins: %s; or a table / JSON object with layers, "
                        .. "hidden, heads, kv_heads, vocab, ffn)", tostring(x), table.concat(ORDER, ", ")), 0)
  end
  for _, f in ipairs{ "layers", "hidden", "heads", "vocab" } do
    if math.type(m[f]) ~= "integer" and not (type(m[f]) == "number" and m[f] == math.floor(m[f])) then
      error("model field '" .. f .. "' must be a whole number, got " .. tostring(m[f]), 0)
    end
    m[f] = math.tointeger(m[f])
    if m[f] < 1 then error("model field '" .. f .. "' must be at least 1", 0) end
  end
  m.kv_heads = math.tointeger(m.kv_heads or m.heads)
  m.mlp = m.mlp or "swiglu"
  if m.mlp ~= "swiglu" and m.mlp ~= "gelu" then error("model field 'mlp' is \"swiglu\" or \"gelu\"", 0) end
  m.ffn = math.tointeger(m.ffn or (m.mlp == "gelu" and 4 * m.hidden or 0))
  if not m.ffn or m.ffn < 1 then error("model field 'ffn' (the MLP's inner size) is needed", 0) end
  if not m.kv_heads or m.heads % m.kv_heads ~= 0 then
    error("model field 'kv_heads' must divide heads (grouped-query attention)", 0)
  end
  if m.hidden % m.heads ~= 0 then error("model field 'hidden' must be a multiple of heads", 0) end
  m.tied = m.tied == true
  m.positions = math.tointeger(m.positions or 0)
  m.biases, m.dropout = m.biases == true, m.dropout == true
  m.context = math.tointeger(m.context or 4096)
  m.name = m.name or string.format("custom (%d layers, hidden %d)", m.layers, m.hidden)
  m.source = m.source or "given by the user"
  return m
end

-- Parameters, counted from the shapes. Per layer: the attention's Q and O
-- (hidden x hidden each), K and V (hidden x kv_heads*head_dim each), the MLP
-- (2 or 3 matrices of hidden x ffn), the norms (LayerNorm: weight and bias,
-- RMSNorm: weight) and, for GPT-2, every linear layer's bias.
function models.params(m)
  local h, f = m.hidden, m.ffn
  local kvd = m.kv_heads * (h // m.heads)
  local attn = 2 * h * h + 2 * h * kvd
  local mlp = (m.mlp == "swiglu" and 3 or 2) * h * f
  local norm = m.biases and 2 * h or h
  local bias = m.biases and (h + 2 * kvd + h + f + h) or 0
  local per_layer = attn + mlp + 2 * norm + bias
  local embed = m.vocab * h + m.positions * h
  local head = m.tied and 0 or m.vocab * h
  local final = norm
  return { embed = embed, per_layer = per_layer, final = final, head = head,
           linear = attn + mlp,   -- per layer: the matrices quantisation shrinks
           kv_dim = kvd, head_dim = h // m.heads,
           total = embed + m.layers * per_layer + final + head }
end

return models
