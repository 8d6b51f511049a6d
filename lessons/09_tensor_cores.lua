-- Lesson 9: Tensor Cores and number formats (张量核心与混合精度).
-- One layer's matrix multiply (activations x weights) on FP32 lanes and on
-- Tensor Cores in TF32, FP16, BF16 and FP8: speed against the error of each
-- against an FP64 reference; FP16's overflow past 65504; the FP32 master
-- copy training keeps; the measured H200 library figures beside the
-- simulator's; two figures the articles get wrong.
--
-- Scaled: the GEMM is 512 x 512 x 512 on an 8-SM slice of the H200 (8/132 of
-- its DRAM and L2 bandwidth, DRAM channels and 700 W power budget,
-- calibrate.scaled_gpu); the slice's TFLOP/s
-- times 132/8 is the whole-chip equivalent printed beside the measurements.

local P = require("precision")
local SMS, H200_SMS = 8, 132
local N = 512
local NAMES = { f32 = "FP32", tf32 = "TF32", f16 = "FP16", bf16 = "BF16", e4m3 = "FP8 e4m3", e5m2 = "FP8 e5m2" }
-- reference/h200-measured.md "Ceilings": library GEMM 8192^3 on the real H200, TFLOP/s
-- (FP8: e4m3 measured; e5m2 has no measurement)
local LIBRARY = { f32 = 50.6, tf32 = 395, f16 = 737, bf16 = 756, e4m3 = 1332 }

-- the slice: SMS SMs with their share of the H200's DRAM and L2 bandwidth,
-- DRAM channels and power budget (a Tensor Core GEMM is held back by power)
local function gpu() return require("calibrate").scaled_gpu(SMS) end

return {
  meta = {
    number = 9,
    title = { en = "Tensor Cores and number formats", zh = "张量核心与数字格式（混合精度）" },
    concept = { en = "Tensor Cores multiply small matrices in one step, many times faster than FP32 lanes; fewer bits are faster still but less exact, so training mixes precisions.",
                zh = "张量核心一步就能算完一个小矩阵乘法，比 FP32 通道快很多倍；位数越少越快，但越不精确，所以训练要混合使用几种精度（混合精度）。" },
    minutes = 20,
    knobs = {
      { name = "update", range = { 1e-6, 1e-1 }, default = 1e-4, en = "the small weight update of the master-copy step",
        zh = "“主副本”那一步里每次权重更新的大小" },
    },
  },
  steps = {
    function(L)
      L.say{
        en = string.format("A neural-network layer is a matrix multiply: activations (one row per token or image) times "
          .. "weights. The lesson makes one: %d x %d activations after a ReLU (half of them zero, the rest mostly 0 to 3) "
          .. "and %d x %d weights drawn as a network starts (normal, spread 1/sqrt(%d)). We multiply them on the H200 "
          .. "model's FP32 lanes (sgemm_128x128, a library-class kernel) and on its Tensor Cores (张量核心, "
          .. "tc_gemm_async_*), which multiply whole 16 x 16 tiles per instruction. Scaled so it runs in seconds: %d of "
          .. "the %d SMs, with %d/%d of the memory bandwidth and of the 700 W power budget; TFLOP/s are multiplied by "
          .. "%d/%d to give the whole chip.",
          N, N, N, N, N, SMS, H200_SMS, SMS, H200_SMS, H200_SMS, SMS),
        zh = string.format("神经网络的一层就是一次矩阵乘法：激活值（每行一个 token 或一张图）乘以权重。本课生成这样一层："
          .. "%d x %d 个经过 ReLU 的激活值（一半是 0，其余大多在 0 到 3 之间），以及 %d x %d 个按网络初始化方式抽取的权重"
          .. "（正态分布，标准差 1/sqrt(%d)）。我们在 H200 模型的 FP32 通道上（sgemm_128x128，库级别的核函数）"
          .. "和张量核心上（tc_gemm_async_*，每条指令算一整块 16 x 16）分别计算。为了几秒内跑完：只用 %d 个 SM 中的 %d 个，"
          .. "配 %d/%d 的内存带宽和 700 W 功耗预算；TFLOP/s 乘以 %d/%d 换算成整块芯片。",
          N, N, N, N, N, H200_SMS, SMS, SMS, H200_SMS, H200_SMS, SMS),
      }
    end,
    function(L)
      local g = gpu()
      local layer = P.layer(N)
      local rows, res = {}, {}
      for _, fmt in ipairs(P.formats) do
        local r = P.matmul(g, fmt, N, "fast", false, layer)
        r.chip = r.tflops * H200_SMS / SMS
        res[fmt] = r
        rows[#rows + 1] = { NAMES[fmt], tostring(P.bits[fmt]), r.chip, LIBRARY[fmt] or "-", string.format("%.1e", r.rel_err),
                            r.clock_mhz_sustained }
      end
      L.res = res
      L.table{ name = "09_formats", title = { en = "one layer, 512 x 512 x 512: speed against error (H200 model, whole-chip TFLOP/s)",
                                              zh = "同一层 512 x 512 x 512：速度与误差（H200 模型，整芯片 TFLOP/s）" },
               columns = { { en = "format", zh = "格式" }, { en = "bits", zh = "位数" }, { en = "simtlab TF", zh = "simtlab TF" },
                           { en = "H200 library TF", zh = "H200 实测库 TF" }, { en = "error vs FP64", zh = "相对 FP64 的误差" },
                           { en = "clock MHz", zh = "频率 MHz" } },
               rows = rows }
      local f32, f16 = res.f32, res.f16
      L.say{
        en = string.format("FP32 lanes: %.0f TFLOP/s. Tensor Cores: TF32 %.0f, FP16 %.0f, BF16 %.0f, FP8 %.0f: FP16 is "
          .. "%s the FP32 lanes on the same multiply, because one Tensor Core instruction does a whole tile of "
          .. "multiply-adds. The price is exactness: the error against an FP64 reference (the same product in double "
          .. "precision) grows from %.0e (FP32) to %.0e (TF32, FP16: 11 significant bits), %.0e (BF16: 8 bits) and "
          .. "%.0e (FP8 e4m3: 4 bits). Each format's error is what rounding its inputs predicts (precision.lua).",
          f32.chip, res.tf32.chip, f16.chip, res.bf16.chip, res.e4m3.chip, L.fmt_x(f16.chip / f32.chip), f32.rel_err,
          res.tf32.rel_err, res.bf16.rel_err, res.e4m3.rel_err),
        zh = string.format("FP32 通道：%.0f TFLOP/s。张量核心：TF32 %.0f，FP16 %.0f，BF16 %.0f，FP8 %.0f：同一个矩阵乘法，"
          .. "FP16 是 FP32 通道的 %s，因为张量核心一条指令就完成一整块乘加。代价是精确度：相对 FP64 参考结果"
          .. "（同一个乘积用双精度算）的误差从 %.0e（FP32）变成 %.0e（TF32、FP16：11 位有效位）、%.0e（BF16：8 位）"
          .. "和 %.0e（FP8 e4m3：4 位）。每种格式的误差都与把输入舍入到该格式所预测的一致（见 precision.lua）。",
          f32.chip, res.tf32.chip, f16.chip, res.bf16.chip, res.e4m3.chip, L.fmt_x(f16.chip / f32.chip, "zh"), f32.rel_err,
          res.tf32.rel_err, res.bf16.rel_err, res.e4m3.rel_err),
      }
      L.expect(f16.chip >= 8 * f32.chip, { en = "FP16 Tensor Cores are at least 8x the FP32 lanes on the same GEMM",
                                           zh = "同一个矩阵乘法，FP16 张量核心至少是 FP32 通道的 8 倍" },
               string.format("%.0f vs %.0f TFLOP/s", f16.chip, f32.chip))
      L.expect(res.tf32.chip > f32.chip and f16.chip > res.tf32.chip and res.e4m3.chip > f16.chip, {
        en = "fewer bits run faster: FP32 < TF32 < FP16 < FP8", zh = "位数越少越快：FP32 < TF32 < FP16 < FP8" },
        string.format("%.0f < %.0f < %.0f < %.0f", f32.chip, res.tf32.chip, f16.chip, res.e4m3.chip))
      L.expect(math.abs(f16.chip / res.bf16.chip - 1) < 0.02, { en = "FP16 and BF16 run at the same speed",
                                                                zh = "FP16 和 BF16 速度相同" })
      L.expect(f32.rel_err < 1e-5 and f32.rel_err < res.tf32.rel_err and res.f16.rel_err < res.bf16.rel_err
               and res.bf16.rel_err < res.e4m3.rel_err and res.e4m3.rel_err < res.e5m2.rel_err, {
        en = "fewer significant bits give a larger error", zh = "有效位越少，误差越大" })
      for _, fmt in ipairs{ "tf32", "f16", "bf16", "e4m3", "e5m2" } do
        local r = res[fmt]
        L.expect(r.rel_err > 0.3 * r.expected and r.rel_err < 2 * r.expected, {
          en = "each format's error is what rounding its inputs predicts (within 0.3x .. 2x)",
          zh = "每种格式的误差与输入舍入的预测一致（0.3 到 2 倍之内）" },
          string.format("%s: %.2e, predicted %.2e", fmt, r.rel_err, r.expected))
      end
    end,
    function(L)
      local rows = P.overflow_demo{ 1000.3, 60000, 65504, 65520, 70000, 3e38 }
      local t = {}
      for i, r in ipairs(rows) do t[i] = { string.format("%.6g", r[1]), string.format("%.6g", r[2]), string.format("%.6g", r[3]) } end
      L.table{ name = "09_overflow", title = { en = "a value stored in FP16 and in BF16", zh = "同一个数存成 FP16 和 BF16" },
               columns = { { en = "value", zh = "数值" }, "FP16", "BF16" }, rows = t }
      L.say{
        en = string.format("FP16 and BF16 both have 16 bits, split differently. FP16 keeps 10 bits of fraction and 5 of "
          .. "exponent: its largest number is 65,504, and anything from 65,520 up becomes infinity (70,000 -> %s). BF16 "
          .. "keeps FP32's 8 exponent bits and only 7 of fraction: 70,000 becomes %s and even 3e38 survives, but 1000.3 "
          .. "comes back as %s. So BF16 trains without the \"loss scaling\" FP16 needs to keep small gradients and large "
          .. "activations in range; FP16 is more exact where values fit.", tostring(rows[5][2]),
          L.commas(rows[5][3]), string.format("%g", rows[1][3])),
        zh = string.format("FP16 和 BF16 都是 16 位，只是分法不同。FP16 有 10 位尾数、5 位指数：最大只能表示 65,504，"
          .. "从 65,520 起都变成无穷大（70,000 -> %s）。BF16 保留了 FP32 的 8 位指数，只有 7 位尾数：70,000 变成 %s，"
          .. "连 3e38 都存得下，但 1000.3 回来时是 %s。所以用 BF16 训练不需要 FP16 那样的“损失缩放”来让很小的梯度和很大的"
          .. "激活值保持在范围内；在数值放得下的范围里，FP16 更精确。", tostring(rows[5][2]), L.commas(rows[5][3]),
          string.format("%g", rows[1][3])),
      }
      L.expect(rows[3][2] == 65504 and rows[5][2] == math.huge and rows[6][2] == math.huge, {
        en = "FP16 keeps 65,504 and overflows to infinity past it", zh = "FP16 能存 65,504，超过就溢出成无穷大" })
      L.expect(math.abs(rows[5][3] / 70000 - 1) < 0.01 and math.abs(rows[6][3] / 3e38 - 1) < 0.01, {
        en = "BF16 keeps 70,000 and 3e38 within 1%", zh = "BF16 存 70,000 和 3e38 误差都在 1% 以内" })
      L.expect(math.abs(rows[1][2] - 1000.3) < math.abs(rows[1][3] - 1000.3), {
        en = "FP16 is more exact than BF16 where the value fits", zh = "数值放得下时，FP16 比 BF16 更精确" })
    end,
    function(L)
      local d = L.knob("update")
      local steps = 100
      local w32, w16, wb = P.accumulate("f32", d, steps), P.accumulate("f16", d, steps), P.accumulate("bf16", d, steps)
      local want = 1 + steps * d
      L.table{ name = "09_master", title = { en = string.format("a weight of 1.0 after %d updates of +%g", steps, d),
                                             zh = string.format("权重 1.0 加上 %d 次 +%g 之后", steps, d) },
               columns = { { en = "stored in", zh = "存储格式" }, { en = "weight", zh = "权重" } },
               rows = { { "FP32", string.format("%.6f", w32) }, { "FP16", string.format("%.6f", w16) },
                        { "BF16", string.format("%.6f", wb) }, { { en = "exact", zh = "精确值" }, string.format("%.6f", want) } } }
      L.say{
        en = string.format("Training changes each weight by a tiny step (learning rate x gradient): here +%g, %d times, to a "
          .. "weight of 1.0. In FP32 the weight reaches %.4f. In FP16 it ends at %.4f and in BF16 at %.4f: near 1.0 the "
          .. "next FP16 number is 1.001 and the next BF16 number 1.008, so an update smaller than half that gap rounds "
          .. "away, every time. That is why mixed-precision training (混合精度) multiplies in FP16 or BF16 on the Tensor "
          .. "Cores but keeps an FP32 master copy of the weights to add the updates to. Try simtlab lesson 9 update=0.001.",
          d, steps, w32, w16, wb),
        zh = string.format("训练时每个权重每次只改变一点点（学习率 x 梯度）：这里给 1.0 的权重加 %d 次 +%g。用 FP32 存，"
          .. "权重变成 %.4f。用 FP16 存最后是 %.4f，用 BF16 是 %.4f：在 1.0 附近，FP16 的下一个数是 1.001，BF16 的是 1.008，"
          .. "比间隔一半还小的更新每次都被舍入掉了。所以混合精度训练在张量核心上用 FP16 或 BF16 做乘法，却保留一份 FP32 "
          .. "的权重“主副本”来累加更新。试试 simtlab lesson 9 update=0.001。", steps, d, w32, w16, wb),
      }
      L.expect(math.abs(w32 - want) <= 0.01 * steps * d + 1e-6, { en = "the FP32 weight keeps the updates",
                                                                   zh = "FP32 权重保住了这些更新" },
               string.format("%.6f vs %.6f", w32, want))
      if d < 2 ^ -11 then
        L.expect(w16 == 1.0 and wb == 1.0, { en = "an update below half the gap to the next number is lost in FP16 and BF16",
                                             zh = "小于到下一个数间隔一半的更新，在 FP16 和 BF16 里全部丢失" },
                 string.format("FP16 %.6f, BF16 %.6f", w16, wb))
      end
    end,
    function(L)
      local res, d = L.res, simt.gpu{ arch = "h200" }.desc
      local tc_peak = d.sms * d.tc_flops_per_clk_f16 * d.clock_mhz / 1e6
      -- the same kernels on a layer twice as wide (8 x the work, 4 waves of tiles on the 8 SMs)
      local g = gpu()
      local big = {}
      for _, fmt in ipairs{ "f16", "e4m3" } do
        big[fmt] = P.matmul(g, fmt, 2 * N, "async", false)
        big[fmt].chip = big[fmt].tflops * H200_SMS / SMS
      end
      local args = { res.f32.chip, res.tf32.chip, res.f16.chip, res.bf16.chip, res.e4m3.chip, 2 * N, big.f16.chip,
                     big.e4m3.chip, tc_peak, L.commas(res.tf32.clock_mhz_sustained), L.commas(res.f16.clock_mhz_sustained) }
      L.say{
        en = string.format("The real H200's library GEMM (8192 x 8192 x 8192, measured, reference/h200-measured.md): FP32 "
          .. "50.6, TF32 395, FP16 737, BF16 756, FP8 1,332 TFLOP/s. The model's 512 layer: %.0f, %.0f, %.0f, %.0f, %.0f. "
          .. "On the FP32 lanes they agree. On Tensor Cores the library is faster because its problem is bigger: our 512 "
          .. "layer gives each of the 8 SMs one tile, whose first loads nothing hides, while the library's 2,048 tiles "
          .. "keep every SM busy wave after wave. Make the layer %d wide and the same kernels reach FP16 %.0f and FP8 "
          .. "%.0f TFLOP/s. Neither reaches the datasheet's 989 (FP16) and 1,979 (FP8), which assume every Tensor Core "
          .. "busy every cycle (this model's peak at 1.98 GHz: %.0f): a chip drawing its 700 W lowers its clock, and "
          .. "the model does the same (the clock column: TF32 ran at %s MHz, FP16 at %s).",
          table.unpack(args)),
        zh = string.format("真实 H200 上的库 GEMM（8192 x 8192 x 8192，实测，见 reference/h200-measured.md）：FP32 50.6、"
          .. "TF32 395、FP16 737、BF16 756、FP8 1,332 TFLOP/s。模型上这个 512 的层：%.0f、%.0f、%.0f、%.0f、%.0f。"
          .. "FP32 通道上两者一致。张量核心上库更快，因为它的问题更大：我们 512 的层只给 8 个 SM 每个一块，开头的读取没有东西来掩盖；"
          .. "库的 2,048 块让每个 SM 一波接一波地忙。把这一层加宽到 %d，同样的核函数就达到 FP16 %.0f、FP8 %.0f TFLOP/s。"
          .. "两者都达不到数据手册的 989（FP16）和 1,979（FP8）：那是假设每个张量核心每个周期都在算（本模型在 1.98 GHz 的峰值：%.0f）；"
          .. "芯片用满 700 W 功耗时会降频，模型也一样（见表中频率一列：TF32 跑在 %s MHz，FP16 跑在 %s MHz）。",
          table.unpack(args)),
      }
      for _, fmt in ipairs{ "tf32", "f16", "bf16", "e4m3" } do
        L.expect(res[fmt].chip < LIBRARY[fmt] * 1.05 and res[fmt].chip > 0.4 * LIBRARY[fmt], {
          en = "on Tensor Cores the model's small layer is slower than the library's big GEMM, within 0.4x .. 1x",
          zh = "在张量核心上，模型的小层比库的大 GEMM 慢，在 0.4 到 1 倍之间" },
          string.format("%s: %.0f vs %.0f TFLOP/s", fmt, res[fmt].chip, LIBRARY[fmt]))
      end
      for _, fmt in ipairs{ "f16", "e4m3" } do
        L.expect(big[fmt].chip > 1.1 * res[fmt].chip and big[fmt].chip < 1.05 * LIBRARY[fmt], {
          en = "a wider layer comes closer to the library's figure", zh = "层更宽时更接近库的数字" },
          string.format("%s: %.0f -> %.0f of %.0f TFLOP/s", fmt, res[fmt].chip, big[fmt].chip, LIBRARY[fmt]))
      end
      L.expect(math.abs(res.f32.chip / LIBRARY.f32 - 1) < 0.15, {
        en = "on FP32 lanes the model is within 15% of the library", zh = "在 FP32 通道上，模型与库相差 15% 以内" },
        string.format("%.1f vs %.1f TFLOP/s", res.f32.chip, LIBRARY.f32))
      L.expect(res.tf32.clock_mhz_sustained < d.clock_mhz and res.f32.clock_mhz_sustained == d.clock_mhz, {
        en = "the Tensor Core GEMM lowers the clock to stay within the power budget; the FP32 one does not",
        zh = "张量核心 GEMM 为了不超功耗预算而降频，FP32 的不会" },
        string.format("TF32 %.0f MHz, FP32 %.0f MHz", res.tf32.clock_mhz_sustained, res.f32.clock_mhz_sustained))
    end,
    function(L)
      local a = simt.gpu{ arch = "a100" }.desc
      local r = simt.gpu{ arch = "rtx4090" }.desc
      local a_fp16 = a.sms * a.tc_flops_per_clk_f16 * a.clock_mhz / 1e6
      local r_fp32 = r.sms * r.fp32_lanes_per_sm * 2 * r.clock_mhz / 1e6
      L.table{ name = "09_articles", title = { en = "figures the articles quote, checked", zh = "文章引用的数字，核对一下" },
               columns = { { en = "claim", zh = "说法" }, { en = "what it really is", zh = "实际是什么" }, { en = "TFLOP/s", zh = "TFLOP/s" } },
               rows = {
                 { { en = "A100 \"5 PFLOPS\"", zh = "A100“5 PFLOPS”" }, { en = "DGX A100: 8 GPUs x 624 (FP16, 2:4 sparse)", zh = "DGX A100：8 块 GPU x 624（FP16，2:4 稀疏）" }, 8 * 2 * a_fp16 },
                 { { en = "one A100", zh = "一块 A100" }, { en = "FP16 dense, Tensor Cores", zh = "FP16 稠密，张量核心" }, a_fp16 },
                 { { en = "RTX 4090 \"24.1 TFLOPS\"", zh = "RTX 4090“24.1 TFLOPS”" }, { en = "FP32 peak: 128 SMs x 128 lanes x 2 x 2.52 GHz", zh = "FP32 峰值：128 SM x 128 通道 x 2 x 2.52 GHz" }, r_fp32 },
               } }
      L.say{
        en = string.format("Two figures in the articles are wrong. \"A100: 5 PFLOPS of mixed precision\" is NVIDIA's figure "
          .. "for a DGX A100, a server of 8 A100s, counting FP16 with 2:4 structured sparsity (twice the dense rate): "
          .. "8 x 2 x %.0f = %s TFLOP/s (NVIDIA, \"Defining AI Innovation with DGX A100\"). One A100 does %.0f TFLOP/s "
          .. "of dense FP16 (datasheet, reference/gpu-specs.md; the a100 preset: %d SMs x %s FLOP per clock x %.2f GHz). "
          .. "\"RTX 4090: 24.1 TFLOPS\" is not its FP32 peak: the rtx4090 preset's %d SMs x %d lanes x 2 x %.2f GHz give "
          .. "%.1f TFLOP/s, the datasheet's 82.6.", a_fp16, L.commas(8 * 2 * a_fp16), a_fp16, a.sms,
          L.commas(a.tc_flops_per_clk_f16), a.clock_mhz / 1000, r.sms, r.fp32_lanes_per_sm, r.clock_mhz / 1000, r_fp32),
        zh = string.format("文章里有两个数字是错的。“A100 混合精度 5 PFLOPS”是 NVIDIA 给 DGX A100 的数字，那是一台装了 8 块 "
          .. "A100 的服务器，而且按 2:4 结构化稀疏的 FP16（稠密速度的两倍）算：8 x 2 x %.0f = %s TFLOP/s（NVIDIA，"
          .. "“Defining AI Innovation with DGX A100”）。一块 A100 的稠密 FP16 是 %.0f TFLOP/s（数据手册，reference/gpu-specs.md；"
          .. "a100 预设：%d 个 SM x 每周期 %s 次运算 x %.2f GHz）。“RTX 4090：24.1 TFLOPS”不是它的 FP32 峰值："
          .. "rtx4090 预设的 %d 个 SM x %d 条通道 x 2 x %.2f GHz 得 %.1f TFLOP/s，即数据手册的 82.6。", a_fp16,
          L.commas(8 * 2 * a_fp16), a_fp16, a.sms, L.commas(a.tc_flops_per_clk_f16), a.clock_mhz / 1000, r.sms,
          r.fp32_lanes_per_sm, r.clock_mhz / 1000, r_fp32),
      }
      L.expect(math.abs(a_fp16 - 312) < 3, { en = "one A100: 312 TFLOP/s dense FP16", zh = "一块 A100：稠密 FP16 312 TFLOP/s" },
               string.format("%.1f", a_fp16))
      L.expect(math.abs(16 * a_fp16 / 5000 - 1) < 0.02, { en = "8 A100s with sparsity make the \"5 PFLOPS\"",
                                                          zh = "8 块 A100 加上稀疏才是那个“5 PFLOPS”" },
               string.format("%.0f TFLOP/s", 16 * a_fp16))
      L.expect(math.abs(r_fp32 - 82.6) < 0.5 and r_fp32 > 3 * 24.1, { en = "the RTX 4090's FP32 peak is 82.6 TFLOP/s, not 24.1",
                                                                       zh = "RTX 4090 的 FP32 峰值是 82.6 TFLOP/s，不是 24.1" },
               string.format("%.1f", r_fp32))
    end,
    function(L)
      L.say{
        en = "Choosing a format is a trade: bits against speed, memory and error. Exercise 9 (lessons/exercises/09_formats.md): "
          .. "a layer with a few very large activations must keep its error under 1%; which is the cheapest format that "
          .. "does? Answer with a name, no code: simtlab check 9 --answer FORMAT (f32, tf32, f16, bf16, e4m3, e5m2); the "
          .. "grader runs your format on the simulator.",
        zh = "选格式就是做权衡：位数换速度、显存和误差。练习 9（lessons/exercises/09_formats.md）：一层里有几个特别大的激活值，"
          .. "误差必须小于 1%；哪种格式最便宜又能做到？只需回答格式名，不用写代码：simtlab check 9 --answer 格式名"
          .. "（f32、tf32、f16、bf16、e4m3、e5m2）；评分程序会在模拟器上用你选的格式来运行。",
      }
    end,
  },
}
