-- Lesson 11: will it fit? (显存容量)
-- A model needs memory for its weights, and training adds gradients,
-- optimizer states and activations; inference adds the KV cache. The planner
-- (lib/fit.lua) itemises it; the simulated GPU refuses what does not fit and
-- says what is already there.

local fit = require("fit")

local CARDS = { "rtx4090", "a100", "h200" }   -- 24, 80 and 141 GB

local function gb(x) return x / 1e9 end

return {
  meta = {
    number = 11,
    title = { en = "Will it fit?", zh = "显存装得下吗？" },
    concept = { en = "Weights, gradients, optimizer states, activations and the KV cache all need GPU memory; add them up before you rent a card.",
                zh = "参数、梯度、优化器状态、激活值和 KV 缓存都要占显存；租卡之前先把账算清楚。" },
    minutes = 15,
    knobs = {
      { name = "gpu", range = { { en = "any preset", zh = "任一预设" } }, default = "a100", en = "the GPU for the batch question", zh = "批大小问题用的 GPU" },
      { name = "seq", range = { 256, 8192 }, default = 4096, en = "tokens per sequence (context)", zh = "每条序列的词元数（上下文）" },
      { name = "answer", range = { 0, 4096 }, default = 0, en = "your answer to the exercise (0 = none yet)", zh = "你对练习题的答案（0 = 还没答）" },
    },
  },
  steps = {
    function(L)
      -- inference in 16 bits: 7B and 70B against 24, 80, 141 GB
      local rows, res = {}, {}
      for _, model in ipairs{ "llama2-7b", "llama2-70b" } do
        local row = { model }
        for _, gpu in ipairs(CARDS) do
          local p = fit.plan(model, { gpu = gpu, mode = "infer", seq = 4096, batch = 1 })
          res[model .. gpu] = p
          row[#row + 1] = string.format("%.0f / %.0f GB %s", gb(p.peak_bytes), gb(p.capacity),
                                        p.fits and L.text{ en = "fits", zh = "能放下" } or L.text{ en = "NO", zh = "放不下" })
        end
        rows[#rows + 1] = row
      end
      L.table{ title = { en = "inference, 16-bit weights, one sequence of 4,096 tokens: peak / capacity",
                         zh = "推理，16 位权重，一条 4,096 词元的序列：峰值 / 显存容量" },
               columns = { { en = "model", zh = "模型" }, "RTX 4090", "A100 80GB", "H200" }, rows = rows }
      local p70 = res["llama2-70ba100"]
      local w70 = p70.items[1].bytes
      L.say{
        en = string.format("A common article says a 70B model does not fit one 80 GB A100. The planner agrees: its "
          .. "weights alone are 68,976,648,192 parameters x 2 bytes = %.0f GB, before the KV cache and the framework's "
          .. "~%.0f GB. A 7B model needs %.1f GB: it fits a 24 GB gaming card. Even the 141 GB H200 cannot hold the 70B "
          .. "in 16 bits with room to work.", gb(w70), gb(p70.items[#p70.items].bytes), gb(res["llama2-7brtx4090"].peak_bytes)),
        zh = string.format("常见的文章说：70B 的模型一张 80 GB 的 A100 放不下。规划器同意：光是权重就是 68,976,648,192 个参数 x 2 字节 = %.0f GB，"
          .. "还没算 KV 缓存和框架的约 %.0f GB。7B 模型要 %.1f GB：24 GB 的游戏卡就放得下。"
          .. "就连 141 GB 的 H200 也放不下 16 位的 70B 还留出工作空间。", gb(w70), gb(p70.items[#p70.items].bytes),
          gb(res["llama2-7brtx4090"].peak_bytes)),
      }
      L.expect(not p70.fits and w70 > 80e9, { en = "70B in 16 bits does not fit one 80 GB A100: the weights alone are 138 GB",
                                              zh = "16 位的 70B 一张 80 GB 的 A100 放不下：光权重就 138 GB" },
               string.format("%.1f GB", gb(w70)))
      L.expect(res["llama2-7brtx4090"].fits, { en = "a 7B model fits a 24 GB card for inference", zh = "7B 模型推理时 24 GB 的卡放得下" })
    end,
    function(L)
      -- the simulated A100 refuses: size-only tensors fill it, the error names what is there
      local g = simt.gpu{ arch = "a100" }
      local p = fit.plan("llama2-70b", { gpu = "a100", mode = "infer" })
      local w = p.items[1].bytes
      local ok, err = pcall(g.tensor, g, { math.floor(w / 2), dtype = "bf16", size_only = true, name = "70B weights" })
      local W7 = g:tensor{ 6738415616, dtype = "bf16", size_only = true, name = "7B weights" }
      local p7 = fit.plan("llama2-7b", { gpu = "a100", mode = "infer", seq = 4096, batch = 1 })
      local kv1 = 0
      for _, it in ipairs(p7.items) do if it.key == "kv_cache" then kv1 = it.bytes end end
      local KV = {}
      local n, err2 = 0, nil
      while true do   -- one sequence's KV cache after another until the card is full
        local ok2, t = pcall(g.tensor, g, { math.floor(kv1 / 2), dtype = "f16", size_only = true,
                                             name = "KV cache " .. (n + 1) })
        if not ok2 then err2 = t break end
        n = n + 1
        KV[n] = t
      end
      local m = g:memory()
      -- the simulator's refusal, in Chinese for the Chinese text (same numbers)
      local function oom_zh(e)
        local t = e:gsub("^.-: out", "out")
        t = t:gsub("^out of memory: (%S+ %a+) requested for '(.-)' on a GPU with (%S+ %a+) of device memory, "
                   .. "(%S+ %a+) free; already there: ", "显存不足：为“%2”申请 %1，这块 GPU 的显存是 %3，还空着 %4；已经占用的：")
        t = t:gsub("：nothing$", "：没有"):gsub(" and (%d+) more %((.-)%)$", "，另外还有 %1 个（共 %2）")
        return (t:gsub("'(.-)' ", "“%1” "):gsub(", ", "，"))
      end
      L.say{
        en = string.format("Now on the simulated A100 (80 GB). Its memory holds \"size-only\" tensors: counted, with no data "
          .. "behind them. Asking for the 70B's weights:\n  %s\nThe 7B's weights (%.1f GB) fit; then each sequence of "
          .. "4,096 tokens needs %.2f GB of KV cache (K and V, 32 layers, 32 heads x 128, 2 bytes). %d sequences fit, "
          .. "the next does not:\n  %s", err:gsub("^.-: out", "out"), gb(6738415616 * 2), gb(kv1), n,
          err2:gsub("^.-: out", "out")),
        zh = string.format("现在在模拟的 A100（80 GB）上。它的显存可以放“只有大小”的张量：占容量，但后面没有数据。"
          .. "申请 70B 的权重：\n  %s\n7B 的权重（%.1f GB）放得下；然后每条 4,096 词元的序列要 %.2f GB 的 KV 缓存"
          .. "（K 和 V，32 层，32 个头 x 128，2 字节）。能放 %d 条序列，再多一条就不行：\n  %s",
          oom_zh(err), gb(6738415616 * 2), gb(kv1), n, oom_zh(err2)),
      }
      L.expect(not ok and err:find("out of memory", 1, true) and err:find("70B weights", 1, true),
               { en = "the 70B's weights are refused, by name", zh = "70B 的权重被拒绝，并且写明了名字" })
      L.expect(err2:find("'7B weights' 13.5 GB", 1, true) and m.used + kv1 > m.capacity and n >= 1,
               { en = "the refusal names what is already there (the 7B weights first, the largest)",
                 zh = "拒绝信息写明了显存里已经有什么（最大的 7B 权重排在最前）" }, string.format("%d sequences", n))
      L.expect(n == math.floor((80e9 - 6738415616 * 2) / kv1), {
        en = "the number of sequences is the free memory divided by one sequence's KV cache",
        zh = "序列条数 = 剩余显存 / 每条序列的 KV 缓存" })
      W7, KV = nil, nil
    end,
    function(L)
      -- training: the ledger
      local p = fit.plan("llama2-7b", { gpu = "a100", mode = "train", precision = "bf16-mixed", optimizer = "adamw",
                                        batch = 1, seq = 2048 })
      local by = {}
      for _, it in ipairs(p.items) do by[it.key] = it.bytes end
      local other = p.peak_bytes - by.weights - by.gradients - by.optimizer - by.activations
      local rows = {
        { { en = "weights + gradients", zh = "参数 + 梯度" }, string.format("%.1f GB", gb(by.weights + by.gradients)) },
        { { en = "optimizer states", zh = "优化器状态" }, string.format("%.1f GB", gb(by.optimizer)) },
        { { en = "activations", zh = "激活值" }, string.format("%.1f GB", gb(by.activations)) },
        { { en = "peak (with logits, overhead)", zh = "峰值（含 logits、框架开销）" }, string.format("%.1f GB", gb(p.peak_bytes)) },
      }
      L.table{ title = { en = "training llama2-7b: bf16 mixed precision, AdamW, batch 1, 2,048 tokens",
                         zh = "训练 llama2-7b：bf16 混合精度，AdamW，批大小 1，2,048 个词元" },
               columns = { { en = "item", zh = "项目" }, { en = "memory", zh = "显存" } }, rows = rows }
      local per = (p.items[1].bytes + p.items[2].bytes + p.items[3].bytes) / p.params
      L.say{
        en = string.format("Training keeps far more than the weights: 2 bytes of weights + 2 of gradients + 12 of optimizer "
          .. "states (fp32 master copy, AdamW's two moments) = %.0f bytes per parameter, %.0f GB for 7B before activations. "
          .. "Peak %.0f GB: no fit on an 80 GB A100, though inference fitted a 24 GB card.", per,
          gb(per * p.params), gb(p.peak_bytes)),
        zh = string.format("训练要保存的远不止权重：2 字节权重 + 2 字节梯度 + 12 字节优化器状态（fp32 主权重、AdamW 的两个动量）"
          .. "= 每个参数 %.0f 字节，7B 不算激活值就 %.0f GB。峰值 %.0f GB：80 GB 的 A100 放不下，虽然推理时 24 GB 的卡就够了。",
          per, gb(per * p.params), gb(p.peak_bytes)),
      }
      L.expect(per == 16, { en = "mixed-precision AdamW: 16 bytes per parameter before activations",
                            zh = "混合精度 AdamW：不算激活值，每个参数 16 字节" })
      L.expect(not p.fits, { en = "full training of 7B does not fit one 80 GB A100", zh = "7B 全量训练一张 80 GB 的 A100 放不下" },
               string.format("%.1f GB", gb(p.peak_bytes)))
    end,
    function(L)
      -- batch and sequence length against memory
      local seq = L.knob("seq")
      local xs, peak, kv = { 1, 2, 4, 8, 16, 32 }, {}, {}
      for i, b in ipairs(xs) do
        local p = fit.plan("llama2-7b", { gpu = "a100", mode = "infer", seq = seq, batch = b })
        peak[i] = gb(p.peak_bytes)
        for _, it in ipairs(p.items) do if it.key == "kv_cache" then kv[i] = gb(it.bytes) end end
      end
      L.chart{ name = "11_batch", title = { en = "llama2-7b inference on A100: memory against batch", zh = "llama2-7b 在 A100 上推理：显存与批大小" },
               x_label = { en = "batch", zh = "批大小" }, y_label = "GB", x = xs,
               series = { { name = L.text{ en = "peak", zh = "峰值" }, y = peak },
                          { name = L.text{ en = "KV cache", zh = "KV 缓存" }, y = kv } } }
      local per = kv[1]
      L.say{
        en = string.format("Memory grows in a straight line with the batch (批大小) and with the sequence length: every sequence "
          .. "of %d tokens adds %.2f GB of KV cache (and a little activation memory), and the weights stay %.1f GB. "
          .. "That is why a card's memory, not its speed, often sets the batch.", seq, per, 6738415616 * 2 / 1e9),
        zh = string.format("显存随批大小、随序列长度线性增长：每条 %d 词元的序列多 %.2f GB 的 KV 缓存（还有一点激活值），"
          .. "权重始终是 %.1f GB。所以常常是显存容量、而不是速度，决定了批大小。", seq, per, 6738415616 * 2 / 1e9),
      }
      L.expect(math.abs((kv[6] - kv[5]) - 16 * per) < 1e-6 * kv[6], {
        en = "the KV cache is linear in the batch", zh = "KV 缓存与批大小成正比" })
    end,
    function(L)
      -- quantisation
      local rows, r = {}, {}
      for _, w in ipairs{ false, "int8", "int4" } do
        local p = fit.plan("llama2-70b", { gpu = "a100", mode = "infer", seq = 4096, weights = w or nil })
        r[w or "bf16"] = p
        rows[#rows + 1] = { w or "bf16", string.format("%.1f GB", gb(p.items[1].bytes)),
                            string.format("%.1f GB", gb(p.peak_bytes)),
                            p.fits and L.text{ en = "fits", zh = "能放下" } or L.text{ en = "no", zh = "放不下" } }
      end
      L.table{ title = { en = "llama2-70b on one A100 80GB: quantised weights (量化)", zh = "llama2-70b 在一张 A100 80GB 上：量化权重" },
               columns = { { en = "weights", zh = "权重格式" }, { en = "weights", zh = "权重" }, { en = "peak", zh = "峰值" }, "A100" },
               rows = rows }
      L.say{
        en = string.format("Quantisation (量化) stores the layers' weights in 8 or 4 bits with a scale per row or per group of "
          .. "128: the 70B shrinks from %.0f to %.0f (INT8) and %.0f GB (INT4; embeddings and output layer stay 16-bit). "
          .. "In INT8 it just fits one A100, with %.1f GB left for the KV cache of more sequences; in INT4 %.0f GB are left.",
          gb(r.bf16.items[1].bytes), gb(r.int8.items[1].bytes), gb(r.int4.items[1].bytes), gb(r.int8.left), gb(r.int4.left)),
        zh = string.format("量化把各层的权重存成 8 位或 4 位，每行或每 128 个一组配一个缩放系数：70B 从 %.0f GB 降到 %.0f GB（INT8）"
          .. "和 %.0f GB（INT4；嵌入层和输出层仍是 16 位）。INT8 时一张 A100 刚好放得下，只剩 %.1f GB 给更多序列的 KV 缓存；INT4 时剩 %.0f GB。",
          gb(r.bf16.items[1].bytes), gb(r.int8.items[1].bytes), gb(r.int4.items[1].bytes), gb(r.int8.left), gb(r.int4.left)),
      }
      L.expect(not r.bf16.fits and r.int8.fits and r.int8.left < 10e9 and r.int4.left > 30e9, {
        en = "70B fits one 80 GB A100 in INT8 with under 10 GB to spare, in INT4 with over 30 GB",
        zh = "70B 在一张 80 GB 的 A100 上：INT8 放得下但剩不到 10 GB，INT4 剩 30 GB 以上" })
      L.expect(r.int8.items[1].bytes < 0.52 * r.bf16.items[1].bytes and r.int4.items[1].bytes < 0.28 * r.bf16.items[1].bytes, {
        en = "INT8 about halves and INT4 about quarters the weights", zh = "INT8 大约减半，INT4 大约只剩四分之一" })
    end,
    function(L)
      -- exercise: the largest batch that fits
      local gpu, seq, ans = L.knob("gpu"), L.knob("seq"), L.knob("answer")
      local best = fit.largest_batch("llama3-8b", { gpu = gpu, mode = "infer", seq = seq }, 4096)
      L.say{
        en = string.format("Exercise: serving llama3-8b in 16 bits on %s with %d-token sequences, what is the largest batch "
          .. "that fits? Use `simtlab fit llama3-8b --infer --gpu %s --seq %d --batch B` and answer with "
          .. "`simtlab lesson 11 gpu=%s seq=%d answer=B`. (llama3-8b has 8 KV heads for 32 query heads: how much does that save?)",
          gpu, seq, gpu, seq, gpu, seq),
        zh = string.format("练习：在 %s 上用 16 位部署 llama3-8b，每条序列 %d 个词元，最多能放多大的批？"
          .. "用 `simtlab fit llama3-8b --infer --gpu %s --seq %d --batch B` 试，然后用 `simtlab lesson 11 gpu=%s seq=%d answer=B` 回答。"
          .. "（llama3-8b 的 32 个查询头只有 8 个 KV 头：省了多少？）", gpu, seq, gpu, seq, gpu, seq),
      }
      if ans > 0 then
        L.answered(ans == best, { en = string.format("Right: %d fits, %d does not.", best, best + 1),
                                  zh = string.format("对：%d 放得下，%d 放不下。", best, best + 1) },
                   { en = string.format("Not quite: try batch %d in the planner, and look at the line 'fits' / 'short'.", ans),
                     zh = string.format("还不对：在规划器里试一下批大小 %d，看“能放下 / 还差”那一行。", ans) })
      end
      L.expect(best >= 1 and fit.plan("llama3-8b", { gpu = gpu, mode = "infer", seq = seq, batch = best }).fits
               and not fit.plan("llama3-8b", { gpu = gpu, mode = "infer", seq = seq, batch = best + 1 }).fits, {
        en = "the answer exists: one batch fits, one more does not", zh = "答案存在：这个批大小放得下，再加一条就放不下" })
    end,
  },
}
