-- Lesson 15: choosing a GPU (性价比, 功耗).
-- The same decode work on every GPU preset: time, what share of the
-- preset's memory bandwidth the kernel reached, and what it costs per
-- dollar and per watt; where "the RTX 4090 is better value than the H100
-- for inference" holds and where it does not; utilisation (achieved /
-- peak) for every preset. Prices and power are the presets' sourced figures
-- (arch/*.lua: price_per_hour, tdp_watts; prices are volatile list prices).

local decode = require("decode")
local fit = require("fit")

local GPUS = { "t4", "l4", "v100", "rtx4090", "a100", "ascend910b", "h100", "h200", "mi300x" }
local N, K = 5632, 2048   -- one FP16 weight matrix of TinyLlama-1.1B's MLP (23 MB), as in lesson 12

return {
  meta = {
    number = 15,
    title = { en = "Choosing a GPU", zh = "怎么选 GPU" },
    concept = { en = "Speed, price per hour and power decide value; which GPU is 'best' depends on the work and on whether it fits.",
                zh = "速度、每小时价格和功耗一起决定性价比；哪块 GPU “最好”取决于要做的事，以及放不放得下。" },
    minutes = 15,
    knobs = {
      { name = "answer", range = { { en = "a preset name", zh = "一个预设名" } }, default = "", example = "h100", en = "your answer to the exercise (a preset name)", zh = "你对练习题的答案（一个预设名）" },
    },
  },
  steps = {
    function(L)
      L.say{ en = "One 23 MB FP16 weight matrix read at batch 1 (one step of a chatbot's decoding) on every GPU preset. Each "
               .. "GPU's time and share of its bandwidth appear when its run finishes; the value per dollar and per watt "
               .. "(H100 = 1) once the H100 has run.",
             zh = "每个 GPU 预设都读一遍 23 MB 的 FP16 权重矩阵，批大小 1（聊天机器人解码的一步）。每块 GPU 跑完，"
               .. "它的时间和带宽利用率就出现在图上；H100 跑完后，出现每美元和每瓦的性价比（H100 = 1）。" }
      local res = {}
      local t, u, pd, pw = {}, {}, {}, {}
      -- a chart, not a table: on the stage its numbers fit the text panel as one paragraph; each GPU's
      -- points appear when its run finishes (value per $ and per watt once the H100, the reference, has run)
      local c = L.chart{ name = "15_value", live = true,
                         title = { en = "one 23 MB FP16 weight matrix (decode, batch 1) on every GPU; value: H100 = 1",
                                   zh = "每块 GPU 读一个 23 MB 的 FP16 权重矩阵（解码，批大小 1）；性价比：H100 = 1" },
                         x_label = "GPU", y_label = "", x = GPUS, run_label = "GPU: %s",
                         series = { { name = "µs", y = {} }, { name = { en = "% of GB/s", zh = "带宽利用率 %" }, y = {} },
                                    { name = { en = "per $", zh = "每美元" }, y = {} },
                                    { name = { en = "per watt", zh = "每瓦" }, y = {} } } }
      for i, gpu in ipairs(GPUS) do
        c:at(i)
        local r = decode.matrix{ gpu = gpu, n = N, k = K, precision = "fp16", samples = 1 }
        local d = r.gpu
        local util = r.weight_bytes / (r.time_us * 1e-6) / (d.dram_gbps * 1e9)
        local e = { gpu = gpu, t = r.time_us, util = util, price = d.price_per_hour, w = d.tdp_watts, bw = d.dram_gbps }
        e.per_dollar = d.price_per_hour > 0 and 3600e6 / (r.time_us * d.price_per_hour) or nil   -- matrices per dollar
        e.per_joule = 1e6 / (r.time_us * d.tdp_watts)                                          -- matrices per joule
        res[gpu] = e
        res[#res + 1] = e
        t[i], u[i] = e.t, 100 * e.util
        c:set(1, i, t[i])
        c:set(2, i, u[i])
        local ref = res.h100
        for j = ref and (gpu == "h100" and 1 or i) or i + 1, i do
          local ej = res[j]
          pd[j] = ej.per_dollar and ej.per_dollar / ref.per_dollar or nil   -- no price: no value
          pw[j] = ej.per_joule / ref.per_joule
          if pd[j] then c:set(3, j, pd[j]) end
          c:set(4, j, pw[j])
        end
      end
      c:done()
      local ref = res.h100
      L.res = res
      local best_d, best_w = res[1], res[1]
      for _, e in ipairs(res) do
        if e.per_dollar and (not best_d.per_dollar or e.per_dollar > best_d.per_dollar) then best_d = e end
        if e.per_joule > best_w.per_joule then best_w = e end
      end
      L.say{
        en = string.format("Decode reads weights, so the fastest GPUs are the ones with the most memory bandwidth (MI300X, "
          .. "H200). Value is another ranking: per dollar of rent the %s does the most reads (%.1fx the H100), per joule "
          .. "(power x time, at each card's rated power) the %s (%.1fx). Prices are list prices per GPU-hour and change "
          .. "often (the presets cite them); power is the rated board power, not a measurement.",
          best_d.gpu, best_d.per_dollar / ref.per_dollar, best_w.gpu, best_w.per_joule / ref.per_joule),
        zh = string.format("解码主要在读权重，所以最快的是显存带宽最高的 GPU（MI300X、H200）。性价比是另一个排名：每花一美元租金，"
          .. "%s 读得最多（H100 的 %.1f 倍）；每焦耳（功耗 x 时间，按额定功耗）是 %s（%.1f 倍）。价格是每 GPU 小时的公开报价，"
          .. "经常变（预设文件里有出处）；功耗是额定整卡功耗，不是实测。",
          best_d.gpu, best_d.per_dollar / ref.per_dollar, best_w.gpu, best_w.per_joule / ref.per_joule),
      }
      L.expect(res.mi300x.t < res.h100.t and res.h200.t < res.h100.t and res.l4.t > res.a100.t, {
        en = "the time follows memory bandwidth", zh = "时间跟着显存带宽走" })
      L.expect(res.rtx4090.per_dollar > 2 * res.h100.per_dollar, {
        en = "per dollar, the RTX 4090 does over twice the H100's decode work on this matrix",
        zh = "按每美元算，这个矩阵上 RTX 4090 的解码工作量是 H100 的两倍以上" },
        string.format("%.1fx", res.rtx4090.per_dollar / res.h100.per_dollar))
    end,
    function(L)
      local res = L.res
      local p70 = fit.plan("llama2-70b", { gpu = "rtx4090", mode = "infer", weights = "int4", seq = 4096 })
      local p70h = fit.plan("llama2-70b", { gpu = "h100", mode = "infer", weights = "int4", seq = 4096 })
      local b4090 = fit.largest_batch("llama2-7b", { gpu = "rtx4090", mode = "infer", seq = 4096 }, 1024)
      local bh100 = fit.largest_batch("llama2-7b", { gpu = "h100", mode = "infer", seq = 4096 }, 1024)
      L.say{
        en = string.format("A common article says the RTX 4090 is better value than the H100 for inference. True where the "
          .. "model fits 24 GB and the batch is small: here %.1fx the work per dollar. Not true when it does not fit: "
          .. "llama2-70b even in INT4 needs %.0f GB (the H100's 80 GB: %s; the 4090's 24: no), and a server batching "
          .. "llama2-7b with 4,096-token contexts fits %d sequences on the 4090 against %d on the H100. GeForce cards "
          .. "also run FP16 Tensor Cores with FP32 accumulation at half rate, have no NVLink and may not be used in "
          .. "data centres under NVIDIA's driver licence.", res.rtx4090.per_dollar / res.h100.per_dollar,
          p70.peak_bytes / 1e9, p70h.fits and "fits" or "no fit either", b4090, bh100),
        zh = string.format("常见的文章说：做推理，RTX 4090 比 H100 性价比高。在模型放得进 24 GB、批很小时是对的：这里每美元的工作量是 %.1f 倍。"
          .. "放不下时就不对了：llama2-70b 即使 INT4 也要 %.0f GB（4090 只有 24 GB，H100 有 80 GB：%s）；"
          .. "服务器批量处理 4,096 词元上下文的 llama2-7b 时，4090 放得下 %d 条序列，H100 放得下 %d 条。GeForce 卡的 FP16 张量核心"
          .. "在 FP32 累加时只有一半速度，没有 NVLink，NVIDIA 的驱动许可也不允许在数据中心使用。",
          res.rtx4090.per_dollar / res.h100.per_dollar, p70.peak_bytes / 1e9, p70h.fits and "放得下" or "也放不下", b4090, bh100),
      }
      L.expect(not p70.fits and p70h.fits, { en = "llama2-70b in INT4 fits an H100 but not an RTX 4090",
                                              zh = "INT4 的 llama2-70b 放得进 H100，放不进 RTX 4090" })
      L.expect(bh100 > 4 * b4090, { en = "the H100 holds over 4x the 4090's batch of long sequences",
                                    zh = "长序列时 H100 放得下的批是 4090 的 4 倍以上" }, string.format("%d vs %d", bh100, b4090))
    end,
    function(L)
      local res = L.res
      local lo, hi = res[1], res[1]
      for _, e in ipairs(res) do
        if e.util < lo.util then lo = e end
        if e.util > hi.util then hi = e end
      end
      L.say{
        en = string.format("Utilisation (效能释放率) = achieved / peak. A common article says domestic GPUs reach only 60-70%% "
          .. "of peak in practice against 85%%+ for mature software stacks. Here the same kernel reaches from %.0f%% (%s) "
          .. "down to %.0f%% (%s) of each preset's bandwidth; the H200 %.0f%%, the Ascend 910B %.0f%% (its preset is an "
          .. "estimate: Huawei publishes no full specification). On a matrix this small the big, fast chips lose the most: "
          .. "utilisation depends on the kernel and the problem size as much as on the chip, so a single percentage for "
          .. "a chip says little unless the work is named.", 100 * hi.util, hi.gpu, 100 * lo.util, lo.gpu,
          100 * res.h200.util, 100 * res.ascend910b.util),
        zh = string.format("效能释放率 = 实际 / 峰值。常见的文章说：国产 GPU 实际只能发挥峰值的 60-70%%，成熟的软件栈能到 85%% 以上。"
          .. "这里同一个核函数在 %s 上达到带宽的 %.0f%%，在 %s 上只有 %.0f%%；H200 是 %.0f%%，昇腾 910B 是 %.0f%%"
          .. "（它的预设是估计值：华为没有公布完整规格）。矩阵这么小时，又大又快的芯片损失最多："
          .. "利用率既取决于芯片，也取决于核函数和问题规模，所以不说清楚是什么工作，一个芯片的百分比说明不了什么。",
          hi.gpu, 100 * hi.util, lo.gpu, 100 * lo.util, 100 * res.h200.util, 100 * res.ascend910b.util),
      }
      L.expect(hi.util - lo.util > 0.25 and res.h200.util < 0.6, {
        en = "the same kernel's utilisation differs by over 25 points between presets; the H200 stays under 60% here",
        zh = "同一个核函数在不同预设上的利用率相差 25 个百分点以上；这里 H200 也不到 60%" })
    end,
    function(L)
      -- exercise: the cheapest GPU that meets a deadline
      local need_tps, users = 60, 8
      local best, best_price
      for _, gpu in ipairs(GPUS) do
        local d = simt.gpu{ arch = gpu }.desc
        local p = fit.plan("llama2-7b", { gpu = gpu, mode = "infer", weights = "int8", seq = 4096, batch = users })
        local w = p.items[1].bytes
        local ceiling = d.dram_gbps * 1e9 / w   -- tokens/s per sequence at best: every weight read once per token
        if p.fits and ceiling >= need_tps and d.price_per_hour > 0 and (not best_price or d.price_per_hour < best_price) then
          best, best_price = gpu, d.price_per_hour
        end
      end
      L.say{
        en = string.format("Exercise: you must serve llama2-7b in INT8 to %d users at once, 4,096-token contexts, and each "
          .. "must get at least %d tokens per second (the bandwidth ceiling: every weight read once per token). Which "
          .. "preset with a known price is the cheapest per hour that fits and meets it? Use `simtlab fit llama2-7b --infer "
          .. "--weights int8 --seq 4096 --batch %d --gpu P` and `simtlab presets`; answer with `simtlab lesson 15 answer=P`.",
          users, need_tps, users),
        zh = string.format("练习：要用 INT8 的 llama2-7b 同时服务 %d 个用户，上下文 4,096 个词元，每人每秒至少 %d 个词元"
          .. "（带宽上限：每个词元把每个权重读一遍）。有价格的预设里，放得下又达标、每小时最便宜的是哪一个？用 `simtlab fit llama2-7b --infer "
          .. "--weights int8 --seq 4096 --batch %d --gpu P` 和 `simtlab presets` 算，用 `simtlab lesson 15 answer=P` 回答。",
          users, need_tps, users),
      }
      local ans = L.knob("answer")
      local known = ans == "" or pcall(simt.gpu, { arch = ans })
      if not known then   -- a typo: say so, not "not quite"
        L.answered(false, nil, { en = string.format("'%s' is not a preset name: `simtlab presets` lists them.", ans),
                                 zh = string.format("“%s”不是预设名：`simtlab presets` 列出了所有预设。", ans) })
      elseif ans ~= "" then
        L.answered(ans == best, { en = string.format("Right: the %s, $%.2f per hour.", best, best_price),
                                  zh = string.format("对：%s，每小时 %.2f 美元。", best, best_price) },
                   { en = "Not quite: check that it fits, that bandwidth / weight bytes reaches the target, then compare prices.",
                     zh = "还不对：先看放不放得下，再看 带宽 / 权重字节 是否达标，最后比价格。" })
      end
      L.expect(best ~= nil, { en = "some preset meets the deadline", zh = "有预设能满足要求" }, tostring(best))
    end,
  },
}
