-- Lesson 12: why chatbots wait on memory (显存带宽).
-- Generating one token reads every weight once; with a batch of one, that
-- makes decode a stream over the weights, so tokens per second follow the
-- memory bandwidth, not the FLOPS. Batching reuses each weight read for
-- several sequences until the arithmetic becomes the limit (the ridge).
-- Every number comes from real kernels on the full-size simulated GPU
-- (lib/decode.lua: decode_gemv_*.s, decode_attn*.s).

local decode = require("decode")
local fit = require("fit")

local MODEL = "tinyllama-1.1b"   -- small enough to simulate in class; the same kernels as a 70B
local N, K = 5632, 2048          -- its MLP's down projection, the largest matrix of a layer (transposed: 5632 rows)

local function fmt_ms(us) return string.format("%.2f ms", us / 1000) end

return {
  meta = {
    number = 12,
    title = { en = "Why chatbots wait on memory", zh = "聊天机器人为什么在等显存" },
    concept = { en = "Each new token reads every weight once, so decode speed follows memory bandwidth; batching shares the reads until arithmetic becomes the limit.",
                zh = "每生成一个词元都要把所有权重读一遍，所以解码速度跟着显存带宽走；批处理让多条序列共享一次读取，直到算力成为瓶颈。" },
    minutes = 20,
    knobs = {
      { name = "answer", range = { 0, 4096 }, default = 0, en = "your answer to the exercise (0 = none yet)", zh = "你对练习题的答案（0 = 还没答）" },
    },
  },
  steps = {
    function(L)
      local r = decode.run(MODEL, { gpu = "h200", batch = 1, precision = "fp16", context = 512, samples = 2 })
      L.r1 = r
      local proj, proj_b, att = 0, 0, 0
      for _, k in ipairs(r.kernels) do
        if k.weight_bytes then proj, proj_b = proj + k.time_us, proj_b + k.dram_gbs * k.time_us
        else att = att + k.time_us end
      end
      L.table{ title = { en = "one layer of TinyLlama-1.1B on the simulated H200, batch 1 (real kernels, full size)",
                         zh = "TinyLlama-1.1B 的一层在模拟 H200 上，批大小 1（真实核函数，完整尺寸）" },
               columns = { { en = "kernels", zh = "核函数" }, { en = "time", zh = "时间" }, { en = "from DRAM", zh = "显存读取" } },
               rows = { { { en = "4 weight matrices (qkv, o, gate_up, down)", zh = "4 个权重矩阵（qkv、o、gate_up、down）" },
                          string.format("%.1f µs", proj), string.format("%.0f GB/s", proj_b / proj) },
                        { { en = "attention over the KV cache (2 kernels)", zh = "KV 缓存上的注意力（2 个核函数）" },
                          string.format("%.1f µs", att), "" },
                        { { en = "output layer (1/8 of its rows run, x 8)", zh = "输出层（运行 1/8 的行，x 8）" },
                          string.format("%.1f µs", r.head_us), "" } } }
      L.say{
        en = string.format("Each new token reads every weight once. One layer's real kernels ran on the whole H200 (the %d layers "
          .. "are identical: x %d). One token: %s = weights %s (%.2f GB) + KV cache %s + waiting/arithmetic %s + %d "
          .. "launches %s (3.2 µs each, measured on an H200): %.0f tokens/s; bandwidth allows %s GB/s / %.2f GB = %.0f.",
          r.layers, r.layers, fmt_ms(r.us_per_token), fmt_ms(r.split.weights_ms * 1000), r.weight_bytes / 1e9,
          fmt_ms(r.split.kv_ms * 1000), fmt_ms(r.split.compute_ms * 1000), r.launches, fmt_ms(r.split.launch_ms * 1000),
          r.tokens_per_s, L.commas(r.dram_gbps), r.weight_bytes / 1e9, r.bandwidth_bound_tokens_per_s),
        zh = string.format("每生成一个词元，所有权重都要读一遍。一层的真实核函数在整块 H200 上运行（%d 层都一样：x %d）。"
          .. "一个词元：%s = 读权重 %s（%.2f GB）+ KV 缓存 %s + 等待与计算 %s + %d 次启动 %s（每次 3.2 µs，H200 实测）："
          .. "每秒 %.0f 个词元；带宽最多允许 %s GB/s / %.2f GB = %.0f 个。",
          r.layers, r.layers, fmt_ms(r.us_per_token), fmt_ms(r.split.weights_ms * 1000), r.weight_bytes / 1e9,
          fmt_ms(r.split.kv_ms * 1000), fmt_ms(r.split.compute_ms * 1000), r.launches, fmt_ms(r.split.launch_ms * 1000),
          r.tokens_per_s, L.commas(r.dram_gbps), r.weight_bytes / 1e9, r.bandwidth_bound_tokens_per_s),
      }
      L.expect(r.tokens_per_s < r.bandwidth_bound_tokens_per_s, {
        en = "no run beats weight bytes / bandwidth", zh = "没有哪次运行能快过 权重字节 / 带宽" },
        string.format("%.0f < %.0f tokens/s", r.tokens_per_s, r.bandwidth_bound_tokens_per_s))
      local flops_time = r.flops_per_token / (r.dram_gbps * 1e9 * 14)   -- seconds at the FP32 ridge rate, for scale
      L.expect(r.split.weights_ms + r.split.compute_ms > 2 * r.split.kv_ms and flops_time * 1e3 < r.split.weights_ms, {
        en = "at batch 1 reading weights, not arithmetic, takes the time", zh = "批大小为 1 时，花时间的是读权重，不是计算" })
    end,
    function(L)
      local gpus = { "l4", "rtx4090", "a100", "h100", "h200" }
      L.say{ en = "The same weight matrix (23 MB of FP16) read once, at batch 1, on five GPUs from the L4 to the H200. Each "
               .. "GPU's points appear when its run finishes.",
             zh = "同一个权重矩阵（23 MB 的 FP16）在批大小 1 下读一遍，换五块 GPU，从 L4 到 H200。每块 GPU 跑完，图上就出现它的点。" }
      local xs, t, bw = {}, {}, {}
      local c = L.chart{ name = "12_presets", live = true,
                         title = { en = "one 5632 x 2048 FP16 weight matrix, batch 1", zh = "一个 5632 x 2048 的 FP16 权重矩阵，批大小 1" },
                         x_label = "GPU", y_label = "µs", x = gpus, run_label = "GPU: %s",
                         series = { { name = { en = "time (µs)", zh = "时间 (µs)" }, y = {} },
                                    { name = { en = "DRAM GB/s (preset)", zh = "显存带宽 GB/s（预设）" }, y = {} } } }
      for i, gpu in ipairs(gpus) do
        c:at(i)
        local r = decode.matrix{ gpu = gpu, n = N, k = K, precision = "fp16" }
        xs[i], t[i], bw[i] = gpu, r.time_us, r.gpu.dram_gbps
        c:set(1, i, t[i])
        c:set(2, i, bw[i])
      end
      c:done()
      L.say{
        en = string.format("The same matrix (23 MB of FP16 weights) on five GPUs: %s. The order is the order of memory "
          .. "bandwidth (显存带宽), L4 %d GB/s to H200 %s GB/s. FLOPS do not decide it: the RTX 4090 has more FP32 "
          .. "FLOPS than the A100 and is slower here. The big GPUs reach a smaller share of their bandwidth on a matrix "
          .. "this small: starting and draining a kernel costs a few microseconds whatever the GPU.",
          table.concat((function() local s = {} for i = 1, #xs do s[i] = xs[i] .. " " .. string.format("%.1f µs", t[i]) end return s end)(), ", "),
          bw[1], L.commas(bw[5])),
        zh = string.format("同一个矩阵（23 MB 的 FP16 权重）在五块 GPU 上：%s。快慢顺序就是显存带宽的顺序，从 L4 的 %d GB/s "
          .. "到 H200 的 %s GB/s。决定它的不是算力：RTX 4090 的 FP32 算力比 A100 高，在这里却更慢。矩阵这么小时，大 GPU "
          .. "能用上的带宽比例更低：启动和收尾一个核函数，不管哪块 GPU 都要几微秒。",
          table.concat((function() local s = {} for i = 1, #xs do s[i] = xs[i] .. " " .. string.format("%.1f µs", t[i]) end return s end)(), "，"),
          bw[1], L.commas(bw[5])),
      }
      local ordered = true
      for i = 2, #t do ordered = ordered and t[i] < t[i - 1] end
      L.expect(ordered, { en = "time falls as bandwidth rises, preset by preset", zh = "带宽越高，时间越短，每个预设都是" })
      L.expect(t[3] < t[2], { en = "the A100 (2 TB/s, 19.5 FP32 TFLOPS) beats the RTX 4090 (1 TB/s, 82.6 FP32 TFLOPS)",
                              zh = "A100（2 TB/s，FP32 19.5 TFLOPS）胜过 RTX 4090（1 TB/s，FP32 82.6 TFLOPS）" })
    end,
    function(L)
      local xs, t, tot = { 1, 2, 4, 8 }, {}, {}
      L.say{ en = "The same matrix on the H200 model for batches of 1, 2, 4 and 8 sequences: one read of the weights serves "
               .. "them all. Each point appears when its run finishes.",
             zh = "同一个矩阵在 H200 模型上，批大小 1、2、4、8：读一遍权重供所有序列使用。每次运行结束，图上就出现一个点。" }
      local c = L.chart{ name = "12_batch", live = true,
                         title = { en = "the same matrix on H200 against batch", zh = "同一个矩阵在 H200 上，随批大小变化" },
                         x_label = { en = "batch", zh = "批大小" }, y_label = "µs", x = xs,
                         series = { { name = { en = "time (µs)", zh = "时间 (µs)" }, y = {} },
                                    { name = { en = "sequences per µs", zh = "每微秒的序列数" }, y = {} } } }
      for i, b in ipairs(xs) do
        c:at(i)
        local r = decode.matrix{ gpu = "h200", n = N, k = K, batch = b, precision = "fp16", samples = 1 }
        t[i], tot[i] = r.time_us, b / r.time_us
        c:set(1, i, t[i])
        c:set(2, i, tot[i])
      end
      c:done()
      L.say{
        en = string.format("Batching (批大小): the kernel reads each weight once per block and uses it for up to 8 sequences. Batch 2 "
          .. "takes %.1f µs against %.1f for one: nearly free. By batch 8 the time is %.1fx batch 1's: the arithmetic and "
          .. "the reads of the sequences' activations now take the time (past the ridge); per sequence it is still %.1fx "
          .. "cheaper. This kernel uses the FP32 lanes (2 FLOP per weight per sequence); servers use Tensor Core kernels "
          .. "for batches, whose ridge (lesson 8: ~206 FLOP per byte in BF16) is far higher: there the time stays flat to "
          .. "batches of ~100, which is why the articles' 'gains diminish past ~128'.", t[2], t[1], t[4] / t[1], 8 * t[1] / t[4]),
        zh = string.format("批处理（批大小）：核函数每个线程块只读一次权重，最多给 8 条序列用。批大小 2 用 %.1f µs，一条是 %.1f µs："
          .. "几乎不要钱。到批大小 8，时间是批大小 1 的 %.1f 倍：现在花时间的是计算和读各序列的激活值（过了屋脊点）；"
          .. "平均到每条序列仍然便宜 %.1f 倍。这个核函数用的是 FP32 通道（每条序列每个权重 2 次运算）；"
          .. "服务器处理批量时用张量核心的核函数，它的屋脊点（第 8 课：BF16 约每字节 206 次运算）高得多："
          .. "时间一直到批大小约 100 都几乎不变，这就是文章说“超过约 128 收益递减”的原因。", t[2], t[1], t[4] / t[1], 8 * t[1] / t[4]),
      }
      L.expect(t[2] < 1.5 * t[1], { en = "batch 2 costs far less than two batches of 1", zh = "批大小 2 远比两次批大小 1 便宜" },
               string.format("%.1f vs %.1f µs", t[2], t[1]))
      L.expect(tot[4] > 2 * tot[1] and tot[4] > tot[3], {
        en = "total throughput rises with the batch", zh = "总吞吐量随批大小上升" })
      L.expect(t[4] > 1.8 * t[2], { en = "past the ridge the time grows with the batch", zh = "过了屋脊点，时间随批大小增长" })
    end,
    function(L)
      local rows = {}
      local kv = {}
      for _, T in ipairs{ 1024, 4096 } do
        for _, b in ipairs{ 1, 8 } do
          local p = fit.plan("llama3-8b", { gpu = "h200", mode = "infer", seq = T, batch = b })
          local k
          for _, it in ipairs(p.items) do if it.key == "kv_cache" then k = it.bytes end end
          kv[T .. "x" .. b] = k
          rows[#rows + 1] = { T, b, string.format("%.2f GB", k / 1e9), string.format("%.2f GB", k / b / 1e9) }
        end
      end
      L.table{ title = { en = "llama3-8b's KV cache (K and V, 8 KV heads)", zh = "llama3-8b 的 KV 缓存（K 和 V，8 个 KV 头）" },
               columns = { { en = "context", zh = "上下文" }, { en = "batch", zh = "批大小" }, { en = "KV cache", zh = "KV 缓存" },
                           { en = "per sequence", zh = "每条序列" } }, rows = rows }
      local r = L.r1
      L.say{
        en = string.format("Weights are shared by the batch; the KV cache is not. Each sequence keeps K and V of every "
          .. "earlier token in every layer, so the cache grows with the context and with the batch, and each new token "
          .. "reads all of it: at 512 tokens the attention kernels took %.0f%% of a layer above; at 4,096 tokens the "
          .. "cache of one llama3-8b sequence is %.2f GB, 1/%.0f of its weights, and of 8 sequences %.1f GB.",
          100 * (r.split.kv_ms * 1000 / r.layers) / r.layer_us, kv["4096x1"] / 1e9, 8030261248 * 2 / kv["4096x1"], kv["4096x8"] / 1e9),
        zh = string.format("权重由整批共享；KV 缓存不共享。每条序列都要保存之前每个词元在每一层的 K 和 V，所以缓存随上下文和批大小增长，"
          .. "每生成一个词元都要把它全读一遍：上面 512 个词元时，注意力核函数占了一层时间的 %.0f%%；4,096 个词元时，"
          .. "llama3-8b 一条序列的缓存是 %.2f GB，是权重的 1/%.0f，8 条序列就是 %.1f GB。",
          100 * (r.split.kv_ms * 1000 / r.layers) / r.layer_us, kv["4096x1"] / 1e9, 8030261248 * 2 / kv["4096x1"], kv["4096x8"] / 1e9),
      }
      L.expect(kv["4096x8"] == 8 * kv["4096x1"] and kv["4096x1"] == 4 * kv["1024x1"], {
        en = "the KV cache grows with context and batch and does not shrink per sequence",
        zh = "KV 缓存随上下文和批大小增长，平均到每条序列也不会变小" })
    end,
    function(L)
      local t = {}
      for _, f in ipairs{ "fp16", "int8", "int4" } do
        t[f] = decode.matrix{ gpu = "h200", n = N, k = K, precision = f, samples = 2 }.time_us
      end
      L.say{
        en = string.format("Quantised weights (量化) are fewer bytes to read: the same matrix takes %.1f µs in FP16, %.1f in "
          .. "INT8 and %.1f in INT4, each kernel turning the small integers back into numbers as it reads them. Not 2x and "
          .. "4x, and INT4 is no faster than INT8 here: unpacking eight 4-bit numbers from each 32-bit word costs this "
          .. "simple kernel more instructions per byte than the smaller reads save. Real INT4 kernels (GPTQ, AWQ, Marlin) "
          .. "unpack with bit tricks and Tensor Cores; the published gpt-fast figures for Llama-2-7B on an A100 are 105, "
          .. "156 and 197 tokens/s for 16, 8 and 4 bits.", t.fp16, t.int8, t.int4),
        zh = string.format("量化后的权重要读的字节更少：同一个矩阵 FP16 用 %.1f µs，INT8 用 %.1f，INT4 用 %.1f，核函数边读边把小整数还原成数值。"
          .. "不是 2 倍和 4 倍，而且这里 INT4 并不比 INT8 快：从每个 32 位字里拆出 8 个 4 位数，对这个简单的核函数来说，"
          .. "每字节多出的指令比少读的字节更费时间。真正的 INT4 核函数（GPTQ、AWQ、Marlin）用位运算技巧和张量核心解包；"
          .. "gpt-fast 公布的 Llama-2-7B 在 A100 上的数字是 16、8、4 位分别每秒 105、156、197 个词元。", t.fp16, t.int8, t.int4),
      }
      L.expect(t.int8 < 0.85 * t.fp16 and t.int4 < 0.9 * t.fp16, {
        en = "INT8 and INT4 weights make decode faster than FP16", zh = "INT8 和 INT4 权重让解码比 FP16 快" },
        string.format("%.1f, %.1f, %.1f µs", t.fp16, t.int8, t.int4))
    end,
    function(L)
      local ans = L.knob("answer")
      local d = simt.gpu{ arch = "h200" }.desc
      local ridge = d.sms * d.fp32_lanes_per_sm * 2 * d.clock_mhz / 1e3 / d.dram_gbps   -- FLOP per byte
      local best = math.floor(ridge + 0.5)   -- FP16: 2 bytes per weight, 2 FLOP per weight per sequence -> B FLOP/byte
      L.say{
        en = "Exercise: with FP16 weights (2 bytes each), each sequence of a batch does 2 FLOP per weight read. At what "
          .. "batch does decode on the H200's FP32 lanes reach the ridge of lesson 8 (peak FP32 FLOP/s / DRAM bandwidth)? "
          .. "Answer with `simtlab lesson 12 answer=B` (nearest whole number). Then: why does the kernel above leave the "
          .. "flat part earlier than that?",
        zh = "练习：权重是 FP16（每个 2 字节），批里的每条序列每读一个权重做 2 次运算。批大小到多少时，H200 的 FP32 通道上的解码"
          .. "到达第 8 课的屋脊点（FP32 峰值算力 / 显存带宽）？用 `simtlab lesson 12 answer=B` 回答（取最接近的整数）。"
          .. "再想想：为什么上面的核函数比这更早离开平坦的部分？",
      }
      if ans > 0 then
        L.answered(ans == best, { en = string.format("Right: %.1f FLOP per byte, so batch %d.", ridge, best),
                                  zh = string.format("对：每字节 %.1f 次运算，所以批大小 %d。", ridge, best) },
                   { en = "Not quite: batch B does B FLOP per byte of FP16 weights; compare with the ridge.",
                     zh = "还不对：批大小 B 时，每字节 FP16 权重做 B 次运算；和屋脊点比一比。" })
      end
      L.expect(best == 14, { en = "the FP32 ridge of the H200 is at batch 14 for FP16 weights",
                             zh = "FP16 权重时，H200 的 FP32 屋脊点在批大小 14" }, string.format("%.2f FLOP/byte", ridge))
    end,
  },
}
