-- Lesson 8: the roofline (内存墙).
-- A kernel's ceiling is min(peak FLOP/s, FLOP per byte x DRAM bandwidth).
-- The ridge point, peak / bandwidth, says how much work per byte a kernel
-- needs before the arithmetic, not the memory, is the limit.

local W = require("workloads")


local ROOF_TITLE = { en = "roofline of the H200 model (FP32)", zh = "H200 模型的屋顶线（FP32）" }
return {
  meta = {
    number = 8,
    title = { en = "The roofline", zh = "屋顶线模型与内存墙" },
    concept = { en = "FLOP per byte of DRAM traffic decides whether memory or arithmetic limits a kernel; the ridge point divides the two.",
                zh = "每从显存搬一个字节做多少次浮点运算（计算强度），决定了核函数受内存还是受算力限制；屋脊点把两者分开。" },
    minutes = 15,
    knobs = {
      { name = "n", range = { 32, 256 }, default = 128, en = "matrix size for the matrix multiplies", zh = "矩阵乘法的矩阵大小" },
    },
  },
  steps = {
    function(L)
      local d = simt.gpu{ arch = "h200" }.desc
      local peak = d.sms * d.fp32_lanes_per_sm * 2 * d.clock_mhz / 1000   -- GFLOP/s
      L.peak, L.bw = peak, d.dram_gbps
      L.say{
        en = string.format("The H200 model: %.1f TFLOP/s of FP32 (%d SMs x %d lanes x 2 x %.2f GHz) and %s GB/s of "
          .. "DRAM bandwidth. Divide: a kernel needs %.1f FLOP per byte it moves from DRAM before arithmetic "
          .. "becomes the limit (the ridge point). With BF16 Tensor Cores (989 TFLOP/s dense, datasheet) the ridge "
          .. "is at %.0f FLOP per byte: the \"memory wall\" articles talk about. The articles' memory wall has a "
          .. "second side, capacity: a model whose weights do not fit in the GPU's 141 GB of memory must be split "
          .. "over several GPUs or squeezed into smaller number formats, however fast the arithmetic.", peak / 1000, d.sms,
          d.fp32_lanes_per_sm, d.clock_mhz / 1000, L.commas(d.dram_gbps), peak / d.dram_gbps, 989400 / d.dram_gbps),
        zh = string.format("H200 模型：FP32 算力 %.1f TFLOP/s（%d 个 SM x %d 条通道 x 2 x %.2f GHz），显存带宽 %s GB/s。"
          .. "两者相除：一个核函数每从显存搬一个字节，要做 %.1f 次浮点运算，瓶颈才从内存变成算力（屋脊点）。"
          .. "用 BF16 张量核心（标称稠密 989 TFLOP/s）时，屋脊点在每字节 %.0f 次运算：这就是文章里说的“内存墙”。"
          .. "文章里的内存墙还有另一面，显存容量：模型的权重放不进 GPU 的 141 GB 显存，算得再快也只能拆到几块 GPU 上，"
          .. "或者量化成更小的数字格式。",
          peak / 1000, d.sms, d.fp32_lanes_per_sm, d.clock_mhz / 1000, L.commas(d.dram_gbps), peak / d.dram_gbps,
          989400 / d.dram_gbps),
      }
      -- the two roofs and their ridge before any kernel runs: the picture these numbers describe
      L.chart{ title = ROOF_TITLE, roofline = { peak_gflops = peak, peak_gbs = d.dram_gbps, points = {} } }
      L.expect(math.abs(989400 / d.dram_gbps - 206) < 2, {
        en = "the BF16 ridge is ~206 FLOP/byte (reference: dense BF16 989.4 TF over 4.8 TB/s)",
        zh = "BF16 的屋脊点约为每字节 206 次运算（参考：稠密 BF16 989.4 TF 除以 4.8 TB/s）" })
    end,
    function(L)
      -- the whole H200 model: with a lowered dram_gbps, vecadd's stores (counted in dram_bytes but
      -- not charged to DRAM time) put it above the lowered roof (teacher notes), so no slice here
      local g = L.gpu{ arch = "h200" }
      local d = g.desc
      local peak = d.sms * d.fp32_lanes_per_sm * 2 * d.clock_mhz / 1000
      local bw = d.dram_gbps
      local ridge = peak / bw
      local n = L.knob("n")
      local pts = {}
      L.say{
        en = "Four kernels on the H200 model, each a point on the roofline: vecadd, the naive and the tiled matrix "
          .. "multiply, and micro_fma8. Each point appears when its kernel's run finishes.",
        zh = "在 H200 模型上跑四个核函数，每个都是屋顶线上的一个点：vecadd、朴素和分块的矩阵乘法，以及 micro_fma8。"
          .. "每个核函数跑完，图上就出现它的点。",
      }
      local chart = L.chart{ name = "08_roofline", live = true,
                             title = ROOF_TITLE,
                             roofline = { peak_gflops = peak, peak_gbs = bw, points = {} } }
      local function add(name, r)
        local gflops = r.flops / r.time_us / 1000
        pts[#pts + 1] = { name = name, ai = r.flops / math.max(1, r.dram_bytes), gflops = gflops, r = r }
        chart:add(pts[#pts])
      end
      L.label("vecadd"); add("vecadd", (W.vecadd(g, 1 << 20)))
      L.label("matmul_naive"); add("matmul_naive", (W.matmul(g, "matmul_naive", n)))
      L.label("matmul_tiled16"); add("matmul_tiled16", (W.matmul(g, "matmul_tiled16", n)))
      local out = g:tensor{ d.sms * 1024, name = "out" }
      L.label("micro_fma8"); add("micro_fma8", L.run(g, "micro_fma8", { grid = d.sms, block = 1024 }, 8, out))
      chart:done{ en = string.format("Left of the ridge (%.1f FLOP/byte) the DRAM roof limits a kernel, right of it "
                                     .. "the arithmetic does.", ridge),
                  zh = string.format("屋脊点（每字节 %.1f 次运算）左边，限制核函数的是显存屋顶；右边，是算力。", ridge) }
      L.pts, L.ridge, L.roof = pts, ridge, { peak_gflops = peak, peak_gbs = bw }
      local v, mm, fm = pts[1], pts[3], pts[4]
      L.say{
        en = string.format("The ridge is at %.1f FLOP/byte. vecadd (2^20 elements) does %.3f FLOP per byte; its roof is %.0f GFLOP/s and it reached %.0f: memory-bound, more "
          .. "arithmetic units would not help it. The tiled matrix multiply does %.1f FLOP per byte here and "
          .. "micro_fma8 %.0f: they sit right of the ridge, under the flat compute roof (%s GFLOP/s). Being under a high roof is no guarantee: the tiled multiply "
          .. "reached only %.0f GFLOP/s, because its %d blocks cannot keep %d SMs busy, and a roof says nothing about "
          .. "idle SMs.", ridge, v.ai, math.min(peak, v.ai * bw), v.gflops, mm.ai, fm.ai, L.commas(peak), mm.gflops, mm.r.blocks, d.sms),
        zh = string.format("屋脊点在每字节 %.1f 次运算。vecadd（2^20 个元素）每字节只做 %.3f 次运算，"
          .. "它的屋顶是 %.0f GFLOP/s，实际达到 %.0f：受内存限制，加再多计算单元也没用。分块矩阵乘法这里每字节 %.1f 次，"
          .. "micro_fma8 每字节 %.0f 次：它们在屋脊点右边，顶上是平的算力屋顶（%s GFLOP/s）。"
          .. "屋顶高不等于跑得快：分块矩阵乘法只达到 %.0f GFLOP/s，因为它只有 %d 个线程块，喂不饱 %d 个 SM，而屋顶线并不考虑闲着的 SM。",
          ridge, v.ai, math.min(peak, v.ai * bw), v.gflops, mm.ai, fm.ai, L.commas(peak), mm.gflops, mm.r.blocks, d.sms),
      }
      for _, p in ipairs(pts) do
        local roof = math.min(peak, p.ai * bw)
        L.expect(p.gflops <= 1.02 * roof, { en = "no kernel rises above its roof", zh = "没有核函数能超过自己的屋顶" },
                 string.format("%s: %.0f <= %.0f GFLOP/s", p.name, p.gflops, roof))
      end
      L.expect(v.ai < ridge and mm.ai > ridge, {
        en = "vecadd is left of the ridge (memory-bound), the tiled matmul right of it",
        zh = "vecadd 在屋脊点左边（受内存限制），分块矩阵乘法在右边" },
        string.format("%.3f < %.1f < %.1f", v.ai, ridge, mm.ai))
      L.expect(v.gflops >= 0.3 * v.ai * bw, { en = "vecadd gets a good share of its memory roof",
                                              zh = "vecadd 达到了内存屋顶的相当比例" },
               string.format("%.0f of %.0f GFLOP/s", v.gflops, v.ai * bw))
      L.expect(fm.gflops >= 0.7 * peak, { en = "micro_fma8 reaches at least 70% of the compute roof (a real H200: 90%, 60.3 TFLOP/s measured)",
                                          zh = "micro_fma8 达到算力屋顶的 70% 以上（真实 H200 实测 60.3 TFLOP/s，即 90%）" },
               string.format("%.0f of %.0f GFLOP/s", fm.gflops, peak))
    end,
    function(L)
      L.say{
        en = "Every kernel of lessons 1-7 can be put on this roofline: count its arithmetic and the bytes it moves from DRAM. To move a point up, first ask which "
          .. "roof is above it: left of the ridge, move fewer bytes (coalescing, tiling, smaller number formats); "
          .. "right of it, do the arithmetic faster (Tensor Cores and smaller formats, part two of the course).",
        zh = "第 1 到 7 课的每个核函数都能放到这条屋顶线上：数一数它的运算次数和它从显存搬的字节数。想让一个点往上走，先看它头顶是哪一片屋顶：在屋脊点左边，"
          .. "就少搬字节（合并访存、分块、更小的数字格式）；在右边，就让计算更快（张量核心和更小的数字格式，课程的第二部分）。",
      }
      if L.pts and L.roof then   -- step 2's four points stay on the stage while these words are read
        L.chart{ title = ROOF_TITLE,
                 roofline = { peak_gflops = L.roof.peak_gflops, peak_gbs = L.roof.peak_gbs, points = L.pts } }
      end
    end,
  },
}
