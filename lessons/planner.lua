-- planner.lua - the entry point for `simtlab fit` and `simtlab decode` (it
-- lives in lessons/ so that the sandbox's require finds lessons/lib).
--
--   simtlab fit MODEL [--gpu P] [--train|--infer] [--optimizer adamw|adam8bit|sgd]
--       [--precision fp32|bf16-mixed|bf16|fp16] [--weights int8|int4] [--batch B]
--       [--seq S] [--checkpointing] [--attention flash|eager] [--json]
--   simtlab decode MODEL --gpu P [--batch B] [--precision fp16|bf16|int8|int4]
--       [--context T] [--json]
-- MODEL: a built-in (gpt2-124m gpt2-xl llama2-7b llama3-8b llama2-70b) or a
-- JSON object {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
-- "vocab": 128256, "ffn": 14336}. Exit status 0; 1 on an error.

local a = arg or {}
local cmd = a[1]

local function parse(from, flags, valued)
  local o, pos = {}, {}
  local i = from
  while i <= #a do
    local k = a[i]
    if valued[k] then
      if a[i + 1] == nil then error(k .. " needs a value", 0) end
      o[valued[k]] = a[i + 1]
      i = i + 2
    elseif flags[k] then
      o[flags[k][1]] = flags[k][2]
      i = i + 1
    elseif k:sub(1, 2) == "--" then
      error("unknown option '" .. k .. "' (see simtlab --help)", 0)
    else
      pos[#pos + 1] = k
      i = i + 1
    end
  end
  return o, pos
end

local function main()
if cmd == "fit" then
  local fit = require("fit")
  local o, pos = parse(2, { ["--train"] = { "mode", "train" }, ["--infer"] = { "mode", "infer" },
                            ["--checkpointing"] = { "checkpointing", true }, ["--json"] = { "json", true } },
                       { ["--gpu"] = "gpu", ["--optimizer"] = "optimizer", ["--precision"] = "precision",
                         ["--weights"] = "weights", ["--batch"] = "batch", ["--seq"] = "seq",
                         ["--attention"] = "attention" })
  if #pos ~= 1 then error("usage: simtlab fit MODEL [--gpu P] [--train|--infer] [options] (see simtlab --help)", 0) end
  local p = fit.plan(pos[1], o)
  if o.json then print(fit.json(p)) else fit.print(p, simt.lang()) end
elseif cmd == "decode" then
  local decode = require("decode")
  local o, pos = parse(2, { ["--json"] = { "json", true } },
                       { ["--gpu"] = "gpu", ["--batch"] = "batch", ["--precision"] = "precision",
                         ["--context"] = "context" })
  if #pos ~= 1 then error("usage: simtlab decode MODEL --gpu P [--batch B] [--precision fp16|bf16|int8|int4] [--context T] [--json]", 0) end
  local r = decode.run(pos[1], o)
  if o.json then print(decode.json(r)) else decode.print(r, simt.lang()) end
else
  error("usage: planner.lua fit MODEL [options] | decode MODEL --gpu P [options]", 0)
end
end

-- a mistake in the arguments (an error without a file:line) is bad usage:
-- the message without a traceback, exit status 2
local ok, e = pcall(main)
if not ok then
  if type(e) == "string" and not e:match("^[^:]+%.lua:%d+:") then error({ simtlab_exit = 2, message = e }, 0) end
  error(e, 0)
end
