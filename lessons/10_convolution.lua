-- Lesson 10: convolution two ways.
-- The same 3 x 3 convolution layer as implicit GEMM (conv_igemm_v4.s: one
-- kernel, the unfolded matrix never built, as cuDNN does) and as im2col +
-- GEMM (im2col.s writes the unfolded matrix to memory, then the same GEMM
-- mainloop reads it back): the extra bytes, by level. Then throughput
-- against batch size (批大小): it rises while the blocks do not yet fill the
-- SMs, then flattens; a batch of 1 cannot fill 132 SMs.
--
-- Scaled: the layer runs on an 8-SM slice of the H200 (8/132 of its DRAM and
-- L2 bandwidth, DRAM channels and power budget, calibrate.scaled_gpu); one batch-1 run uses the whole
-- 132-SM model.

local conv = require("conv")
local SMS, H200_SMS = 8, 132
local CH, HW = 64, 28            -- channels in and out, image height and width (the first step)
local BATCHES = { 1, 2, 4, 8, 16, 32 }

-- SMS SMs with their share of the H200's DRAM and L2 bandwidth, channels and power
local function slice() return require("calibrate").scaled_gpu(SMS) end

-- bytes a run moved at each level: asked for by the threads (global loads
-- and stores), between the SMs and L2 (32-byte sectors), and to or from DRAM
local function levels(r)
  return { r.gld_bytes + r.gst_bytes, (r.l2_hits + r.l2_misses) * 32, r.dram_bytes }
end

return {
  meta = {
    number = 10,
    title = { en = "Convolution two ways", zh = "卷积的两种算法" },
    concept = { en = "A convolution is a matrix multiply in disguise: unfolding the image first (im2col) moves many extra bytes; doing it on the fly (implicit GEMM) does not. A small batch leaves most SMs idle.",
                zh = "卷积其实是换了装扮的矩阵乘法：先把图像展开（im2col）要多搬很多字节，边算边展开（隐式 GEMM）就不用。批大小太小，大多数 SM 都闲着。" },
    minutes = 15,
    knobs = {
      { name = "batch", range = { 1, 16 }, default = 4, en = "images in the two-ways step", zh = "“两种算法”那一步的图像张数" },
    },
  },
  steps = {
    function(L)
      local n = L.knob("batch")
      L.say{
        en = string.format("An image network's layer slides a 3 x 3 filter over every pixel: each output is a dot product "
          .. "of %d channels x 3 x 3 = %d inputs with a filter, for %d filters. Written out, that is a matrix multiply: "
          .. "(pixels x %d) times (%d x filters). im2col builds that left matrix in memory, copying every input pixel 9 "
          .. "times, then runs a GEMM; implicit GEMM (what cuDNN does) reads the image directly and unfolds it inside "
          .. "the kernel, in shared memory. Our layer: %d images of %d x %d pixels, %d channels in and out, padding 1. "
          .. "Scaled: %d of the H200's %d SMs, with %d/%d of its memory bandwidth.",
          CH, CH * 9, CH, CH * 9, CH * 9, n, HW, HW, CH, SMS, H200_SMS, SMS, H200_SMS),
        zh = string.format("图像网络的一层用 3 x 3 的卷积核扫过每个像素：每个输出是 %d 个通道 x 3 x 3 = %d 个输入与一个卷积核的点积，"
          .. "一共 %d 个卷积核。写出来就是矩阵乘法：（像素 x %d）乘以（%d x 卷积核数）。im2col 先在内存里把左边这个矩阵造出来，"
          .. "每个输入像素复制 9 遍，然后做一次 GEMM；隐式 GEMM（cuDNN 的做法）直接读图像，在核函数内部、在共享内存里展开。"
          .. "我们这一层：%d 张 %d x %d 的图像，输入输出都是 %d 个通道，填充 1。缩小规模：H200 %d 个 SM 中的 %d 个，"
          .. "配 %d/%d 的内存带宽。", CH, CH * 9, CH, CH * 9, CH * 9, n, HW, HW, CH, H200_SMS, SMS, SMS, H200_SMS),
      }
    end,
    function(L)
      local n = L.knob("batch")
      local g = slice()
      local X = g:tensor{ n, CH, HW, HW, init = "random", seed = 1, name = "X" }
      local Wt = g:tensor{ CH, CH, 3, 3, init = "random", seed = 2, name = "W" }
      local Yi, ri = conv.igemm(g, X, Wt, { pad = 1, check = false })
      -- the same GEMM mainloop for both (conv.im2col's gemm = "igemm"), so only the unfolding differs
      local Ye, re = conv.im2col(g, X, Wt, { pad = 1, gemm = "igemm", check = false, Wr = nil })
      local ok1 = conv.check(Yi, X, Wt, { pad = 1 })
      local ok2 = conv.check(Ye, X, Wt, { pad = 1 })
      local li, lu, lg = levels(ri.igemm), levels(re.im2col), levels(re.gemm)
      local MB = 1e6
      local rows = {}
      local names = { { en = "asked by threads (L1)", zh = "线程请求（L1）" }, { en = "SMs <-> L2", zh = "SM <-> L2" },
                      { en = "L2 <-> DRAM", zh = "L2 <-> 显存" } }
      for k = 1, 3 do
        rows[k] = { names[k], li[k] / MB, lu[k] / MB, lg[k] / MB, (lu[k] + lg[k]) / li[k] }
      end
      rows[4] = { { en = "time (us)", zh = "时间（微秒）" }, ri.igemm.time_us, re.im2col.time_us, re.gemm.time_us,
                  (re.im2col.time_us + re.gemm.time_us) / ri.igemm.time_us }
      L.table{ name = "10_two_ways", title = { en = "the same layer two ways: MB moved at each level, and time",
                                               zh = "同一层的两种算法：每一级搬运的 MB 数和时间" },
               columns = { { en = "level", zh = "层级" }, { en = "implicit GEMM", zh = "隐式 GEMM" }, "im2col", "+ GEMM",
                           { en = "two-step / implicit", zh = "两步 / 隐式" } },
               rows = rows }
      local cols_mb = n * HW * HW * CH * 9 * 4 / MB
      local ratio_t = (re.im2col.time_us + re.gemm.time_us) / ri.igemm.time_us
      local ratio_d = (lu[3] + lg[3]) / li[3]
      L.say{
        en = string.format("Both give the right answer (checked against the CPU reference). The unfolded matrix is %.1f MB "
          .. "(%d x %d x %d x 9 x 4 bytes): im2col writes it and the GEMM reads it back, so the two steps move %.1fx the "
          .. "DRAM bytes of the implicit GEMM (%.1f MB against %.1f) and take %.1fx as long (%s against %s), though the "
          .. "arithmetic is the same. Implicit GEMM loads each input tile once into shared memory and unfolds it there.",
          cols_mb, n, HW * HW, CH, ratio_d, (lu[3] + lg[3]) / MB, li[3] / MB, ratio_t,
          L.fmt_us(re.im2col.time_us + re.gemm.time_us), L.fmt_us(ri.igemm.time_us)),
        zh = string.format("两种算法的结果都对（与 CPU 参考结果比对过）。展开后的矩阵有 %.1f MB（%d x %d x %d x 9 x 4 字节）："
          .. "im2col 把它写出去，GEMM 再读回来，所以两步加起来搬运的显存字节是隐式 GEMM 的 %.1f 倍（%.1f MB 对 %.1f），"
          .. "时间是 %.1f 倍（%s 对 %s），而运算量完全一样。隐式 GEMM 把每块输入只读一次到共享内存，在那里展开。",
          cols_mb, n, HW * HW, CH, ratio_d, (lu[3] + lg[3]) / MB, li[3] / MB, ratio_t,
          L.fmt_us(re.im2col.time_us + re.gemm.time_us), L.fmt_us(ri.igemm.time_us)),
      }
      L.expect(ok1 and ok2, { en = "both ways compute the convolution correctly", zh = "两种算法都算对了卷积" })
      L.expect(ratio_d >= 3, { en = "im2col + GEMM moves at least 3x the DRAM bytes", zh = "im2col + GEMM 搬运的显存字节至少是 3 倍" },
               string.format("%.1fx", ratio_d))
      L.expect(ratio_t >= 1.2, { en = "im2col + GEMM takes longer than the implicit GEMM", zh = "im2col + GEMM 比隐式 GEMM 慢" },
               string.format("%.2fx", ratio_t))
      L.expect(lu[3] >= 0.9 * cols_mb * MB, { en = "im2col writes the whole unfolded matrix to DRAM",
                                              zh = "im2col 把整个展开矩阵写进了显存" },
               string.format("%.1f of %.1f MB", lu[3] / MB, cols_mb))
    end,
    function(L)
      local g = slice()
      local Wt = g:tensor{ CH, CH, 3, 3, init = "random", seed = 2, name = "W" }
      local Wr = conv.filter_rsck(g, Wt)
      local tf, blocks = {}, {}
      local S = 14   -- smaller images for the sweep (14 x 14, as deeper in a network)
      L.say{ en = string.format("Now the implicit GEMM alone, on %d x %d images, with batches of 1 to 32 images on the %d-SM "
                                .. "slice. Each point appears when its run finishes.", S, S, SMS),
             zh = string.format("现在只跑隐式 GEMM，图像 %d x %d，批大小从 1 到 32，在 %d 个 SM 的切片上。每次运行结束，图上就出现一个点。",
                                S, S, SMS) }
      local c = L.chart{ name = "10_batch", live = true,
                         title = { en = "implicit-GEMM convolution: TFLOP/s against batch size (8 SMs)",
                                   zh = "隐式 GEMM 卷积：TFLOP/s 与批大小（8 个 SM）" },
                         x_label = { en = "batch", zh = "批大小" }, y_label = { en = "TFLOP/s", zh = "TFLOP/s" },
                         log_x = true, x = BATCHES, series = { { name = "simtlab", y = {} } } }
      for i, n in ipairs(BATCHES) do
        local X = g:tensor{ n, CH, S, S, init = "random", seed = 1, name = "X" }
        c:at(i)
        local _, r = conv.igemm(g, X, Wt, { pad = 1, check = false, Wr = Wr })
        tf[i], blocks[i] = r.igemm.tflops, r.igemm.blocks
        c:set(1, i, tf[i])
        L.fit = r.igemm.blocks_fit_per_sm
      end
      c:done()
      local hg = simt.gpu{ arch = "h200" }
      local X1 = hg:tensor{ 1, CH, S, S, init = "random", seed = 1, name = "X" }
      local _, r1 = conv.igemm(hg, X1, hg:tensor{ CH, CH, 3, 3, init = "random", seed = 2 }, { pad = 1, check = false })
      L.batch1 = r1.igemm
      local cap = SMS * L.fit
      L.say{
        en = string.format("Throughput against batch size, on %d x %d images: batch 1 gives %d blocks of 128 pixels x 64 "
          .. "filters and %.2f TFLOP/s; batch 8, %d blocks, %.2f; batch 32, %d blocks, %.2f. It rises while more images "
          .. "mean more blocks for idle SMs, and flattens once every one of the %d SMs has a block: each could hold %d "
          .. "(%d in all), but one block of this kernel already takes all an SM can give it, so two on one SM take twice "
          .. "as long. "
          .. "On the whole H200 model a batch of 1 is still %d blocks: %d of 132 SMs work, %.2f TFLOP/s, about what 8 "
          .. "SMs do. That is why inference servers batch requests together, and why a small batch trains slowly.",
          S, S, blocks[1], tf[1], blocks[4], tf[4], blocks[6], tf[6], SMS, L.fit, cap, r1.igemm.blocks,
          r1.igemm.blocks, r1.igemm.tflops),
        zh = string.format("在 %d x %d 的图像上看吞吐量与批大小：批大小 1 只有 %d 个线程块（每块 128 个像素 x 64 个卷积核），"
          .. "%.2f TFLOP/s；批大小 8，%d 块，%.2f；批大小 32，%d 块，%.2f。图像越多，线程块越多，闲着的 SM 就有活干，吞吐量上升；"
          .. "等 %d 个 SM 每个都分到一块后就不再增长：每个 SM 能放 %d 块（共 %d 块），但这个核函数一块就用尽了 SM 能给它的一切，一个 SM 上放两块就要两倍时间。在完整的 H200 模型上，批大小 1 还是只有 %d 个线程块："
          .. "132 个 SM 里只有 %d 个在干活，%.2f TFLOP/s，和 8 个 SM 差不多。所以推理服务要把请求攒成一批，批太小训练也慢。",
          S, S, blocks[1], tf[1], blocks[4], tf[4], blocks[6], tf[6], SMS, L.fit, cap, r1.igemm.blocks,
          r1.igemm.blocks, r1.igemm.tflops),
      }
      L.expect(tf[2] >= 1.6 * tf[1] and tf[3] >= 1.5 * tf[2], { en = "throughput rises with the batch while SMs are idle",
                                                                zh = "SM 还有空闲时，吞吐量随批大小上升" },
               string.format("batch 1 %.2f, 2 %.2f, 4 %.2f TFLOP/s", tf[1], tf[2], tf[3]))
      L.expect(tf[6] <= 1.25 * tf[4] and tf[5] <= 1.25 * tf[4], {
        en = "once every SM has a block it flattens (batch 16 and 32 within 25% of batch 8)",
        zh = "每个 SM 都有一块之后就持平（批大小 16 和 32 与 8 相差不到 25%）" },
               string.format("%.2f, %.2f vs %.2f TFLOP/s", tf[5], tf[6], tf[4]))
      L.expect(r1.igemm.blocks < 132 / 8, { en = "a batch of 1 gives fewer blocks than an eighth of the H200's SMs",
                                            zh = "批大小 1 的线程块数不到 H200 SM 数的八分之一" },
               string.format("%d blocks", r1.igemm.blocks))
      L.expect(r1.igemm.tflops <= 1.3 * tf[1], {
        en = "the whole H200 does not run batch 1 much faster than 8 SMs do", zh = "完整的 H200 跑批大小 1 并不比 8 个 SM 快多少" },
        string.format("%.2f vs %.2f TFLOP/s", r1.igemm.tflops, tf[1]))
    end,
    function(L)
      L.say{
        en = "Convolution, attention and fully connected layers all end up as matrix multiplies; the fastest way to run "
          .. "one is usually the one that moves the fewest bytes and gives every SM enough blocks. Lesson 13 turns the "
          .. "GPU's knobs: more SMs, or more bandwidth?",
        zh = "卷积、注意力和全连接层最后都变成矩阵乘法；跑得最快的办法，通常是搬运字节最少、又能给每个 SM 足够多线程块的那一种。"
          .. "第 13 课转动 GPU 的旋钮：更多的 SM，还是更高的显存带宽？",
      }
    end,
  },
}
