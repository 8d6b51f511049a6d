-- Lesson 1: one painter against a thousand (并行计算).
-- The demo's race (one CPU core against edu-tiny, then an H200), then the
-- honest version of "GPUs are 20-50x faster": a whole server CPU, and the
-- case where the CPU wins (a tiny vector, once a launch costs 3 µs).

local compare = require("compare")
local picture = require("picture")

local BLOCK = 16

-- A x B is a picture (lessons/lib/picture.lua): the class watches it painted
local function operands(dev, n)
  return picture.operands(dev, n)
end

-- One CPU core against gpu on C = A x B; both results checked.
local function race(L, gpu)
  local n = L.knob("n")
  local cpu = simt.cpu{ arch = "cpu-core" }
  local Ac, Bc, Cc = operands(cpu, n)
  local Ag, Bg, Cg = operands(gpu, n)
  local b = (n + BLOCK - 1) // BLOCK
  local cfg = { grid = { b, b }, block = { BLOCK, BLOCK } }
  local res = L.race{
    { cpu, "matmul_tiled16", cfg, Ac, Bc, Cc, n },
    { gpu, "matmul_tiled16", cfg, Ag, Bg, Cg, n },
  }
  local ref = simt.ref.matmul(Ag, Bg)
  local okc = Cc:allclose(ref, 1e-4, 1e-4)
  local okg = Cg:allclose(ref, 1e-4, 1e-4)
  L.expect(okc and okg, { en = "the CPU and the GPU compute the same product (checked against a reference)",
                          zh = "CPU 和 GPU 算出的乘积相同（与参考结果核对过）" })
  return res[1], res[2]
end

return {
  meta = {
    number = 1,
    title = { en = "One painter against a thousand", zh = "一个画家对一千个画家" },
    concept = { en = "A GPU is fast because it runs thousands of threads at once; how much faster depends on what you compare it with.",
                zh = "GPU 快，是因为它同时运行成千上万个线程；快多少，要看你拿它和谁比。" },
    minutes = 15,
    knobs = {
      { name = "n", range = { 16, 256 }, default = 128, en = "matrix size n (n x n)", zh = "矩阵大小 n（n x n）" },
      { name = "vec", range = { 1, 4096 }, default = 64, en = "length of the tiny vector in the last step",
        zh = "最后一步里小向量的长度" },
    },
  },
  steps = {
    function(L)
      local n = L.knob("n")
      local t = simt.gpu{ arch = "edu-tiny" }.desc
      L.say{
        en = string.format("A common article says: \"GPUs have thousands of cores doing the same math at once, CPUs do "
          .. "things one after another, so GPUs are 20-50x faster at matrix math.\" Let us test it. Both sides "
          .. "multiply the same two %d x %d matrices (%s multiply-adds). Left: one CPU core runs the %s threads of "
          .. "the kernel one after another. Right: edu-tiny, a teaching GPU with %d SMs (an SM, streaming multiprocessor, is one of "
          .. "the GPU's processors; it runs many threads at once, in groups of 32). The matrices are chosen so "
          .. "that the product is a picture: watch who paints it faster.", n, n,
          L.commas(n * n * n), L.commas(n * n), t.sms),
        zh = string.format("常见的文章说：“GPU 有成千上万个核心同时做同样的计算，CPU 只能一件一件地做，所以 GPU 做矩阵运算比 "
          .. "CPU 快 20 到 50 倍。”我们来验证一下。两边计算同样的两个 %d x %d 矩阵相乘（%s 次乘加）。左边：一个 CPU 核心"
          .. "把核函数的 %s 个线程一个接一个地跑完；右边：edu-tiny，一块只有 %d 个 SM 的教学用 GPU（SM，流多处理器，是 GPU 里的一个处理器，"
          .. "以 32 个线程为一组，同时运行很多线程）。这两个矩阵特意选得"
          .. "让乘积是一幅画：看谁画得快。", n, n,
          L.commas(n * n * n), L.commas(n * n), t.sms),
      }
    end,
    function(L)
      local tiny = L.gpu{ arch = "edu-tiny" }
      L.say{ en = "The race: left, one CPU core; right, edu-tiny. Each paints the product as it computes it.",
             zh = "比赛开始：左边是一个 CPU 核心，右边是 edu-tiny。两边都是边算边把乘积画出来。" }
      local rc, rg = race(L, tiny)
      L.cpu1, L.tiny = rc, rg
      local x = rc.time_us / rg.time_us
      local t, c = tiny.desc, simt.cpu{ arch = "cpu-core" }.desc
      local ghz = function(mhz) return string.format("%.3g GHz", mhz / 1000) end
      L.say{
        en = string.format("One CPU core (%s): %s. edu-tiny: %s, %s faster, with only %d SMs of %d lanes at %s: it "
          .. "works on up to %d warps of 32 threads at a time while the core does one thread.", ghz(c.clock_mhz),
          L.fmt_us(rc.time_us), L.fmt_us(rg.time_us), L.fmt_x(x), t.sms, t.fp32_lanes_per_sm, ghz(t.clock_mhz),
          t.sms * rg.warps_per_sm),
        zh = string.format("一个 CPU 核心（%s）：%s。edu-tiny：%s，快 %s。它只有 %d 个 SM，每个 %d 条通道、%s，"
          .. "却能同时处理最多 %d 个 warp（每个 32 个线程），而 CPU 核心一次只做一个线程。", ghz(c.clock_mhz),
          L.fmt_us(rc.time_us), L.fmt_us(rg.time_us), L.fmt_x(x, "zh"), t.sms, t.fp32_lanes_per_sm, ghz(t.clock_mhz),
          t.sms * rg.warps_per_sm),
      }
      L.expect(rg.time_us < rc.time_us, { en = "even the small teaching GPU beats one CPU core",
                                          zh = "连小小的教学 GPU 也比一个 CPU 核心快" },
               { en = string.format("%.1f µs vs %.1f µs", rg.time_us, rc.time_us),
                 zh = string.format("%.1f 微秒 对 %.1f 微秒", rg.time_us, rc.time_us) })
    end,
    function(L)
      local h200 = L.gpu{ arch = "h200" }
      L.say{
        en = string.format("The same race, now against the H200 model: %d SMs of %d FP32 lanes each.", h200.desc.sms,
                           h200.desc.fp32_lanes_per_sm),
        zh = string.format("同样的比赛，对手换成 H200 模型：%d 个 SM，每个 %d 条 FP32 通道。", h200.desc.sms,
                           h200.desc.fp32_lanes_per_sm),
      }
      local rc, rg = race(L, h200)
      L.cpu1, L.h200 = rc, rg
      local launch = h200.desc.launch_us
      local x = rc.time_us / rg.time_us
      local xl = rc.time_us / (rg.time_us + launch)
      L.x_core = xl
      L.say{
        en = string.format("The same race against the H200 model (%d SMs). Kernel time %s against the core's %s: "
          .. "%s faster; counting the %.1f µs it costs the host to start a kernel (measured on a real H200: 3.2 µs), "
          .. "%s. Against ONE simple core the GPU wins by hundreds of times or more, not 20-50: the article's "
          .. "figure must be comparing with something else.", rg.sms or h200.desc.sms, L.fmt_us(rg.time_us),
          L.fmt_us(rc.time_us), L.fmt_x(x), launch, L.fmt_x(xl)),
        zh = string.format("同样的比赛，对手换成 H200 模型（%d 个 SM）。核函数用时 %s，CPU 核心 %s：快 %s；"
          .. "再算上主机启动一个核函数的 %.1f 微秒（真实 H200 上实测 3.2 微秒），快 %s。和“一个”简单的 CPU 核心比，"
          .. "GPU 快的是几百倍甚至更多，而不是 20 到 50 倍：文章里的数字一定是在和别的东西比。",
          rg.sms or h200.desc.sms, L.fmt_us(rg.time_us), L.fmt_us(rc.time_us), L.fmt_x(x, "zh"), launch, L.fmt_x(xl, "zh")),
      }
      L.expect(rg.time_us < L.tiny.time_us, { en = "the H200 is faster than edu-tiny", zh = "H200 比 edu-tiny 快" })
      L.expect(xl >= 100, { en = "against one core the GPU is hundreds of times faster or more",
                            zh = "和一个 CPU 核心相比，GPU 快几百倍以上" }, { en = L.fmt_x(xl), zh = L.fmt_x(xl, "zh") })
    end,
    function(L)
      local n = 256
      local cores = simt.cpu{ arch = "cpu-server" }.desc.cores
      L.say{ en = string.format("A fair fight: a whole server CPU (%d cores) against the H200, side by side, both running "
                                .. "their best kernel here (matmul_reg64) on %d x %d matrices.", cores, n, n),
             zh = string.format("公平一点的比赛：一整颗服务器 CPU（%d 个核心）对 H200，并排运行，两边都用这里最快的核函数"
                                .. "（matmul_reg64），矩阵 %d x %d。", cores, n, n) }
      local c = compare.run{ workload = "matmul_reg64", n = n, cpu = "cpu-server", gpu = "h200", quiet = true }
      L.x_server = c.speedup
      local sd = simt.cpu{ arch = "cpu-server" }.desc
      local hd = simt.gpu{ arch = "h200" }.desc
      -- peak FP32 on paper: cores x SIMD x FMA ports x 2 x clock; lanes x 2 x clock (reference/gpu-specs.md)
      local cpu_peak = sd.cores * sd.simd_width * sd.fma_ports * 2 * sd.clock_mhz / 1e6
      local gpu_peak = hd.sms * hd.fp32_lanes_per_sm * 2 * hd.clock_mhz / 1e6
      L.say{
        en = string.format("A fair fight: a whole server CPU (cpu-server: %d cores with %d-wide SIMD, a model of "
          .. "the %s) against the H200, both running their best kernel here (matmul_reg64, n = %d, launch "
          .. "included): %s against %s, the GPU %s faster. That is far less than against one core. On real "
          .. "hardware, with good libraries and big matrices (measured): an H200 FP32 GEMM runs at 50.6 TFLOP/s, a "
          .. "16-core Xeon BLAS at 1,229 GFLOP/s: 41x; one Xeon core running a plain loop does 1.48 GFLOP/s: about "
          .. "34,000x. Our server model is a bigger CPU, a 64-core EPYC: on paper its FP32 peak is %.1f TFLOP/s "
          .. "against the H200's %.0f, only %.0fx apart. So \"20-50x\" is about right for a 16-core server CPU "
          .. "against a GPU in FP32, nearer 10x for a 64-core one; against one naive core it is tens of thousands. "
          .. "At this small size the simulator gives less (%s): our kernel reaches a smaller share of "
          .. "the GPU's peak than a library does.", sd.cores, sd.simd_width, sd.vendor_name, n, L.fmt_us(c.cpu.time_us), L.fmt_us(c.gpu.time_us),
          L.fmt_x(c.speedup), cpu_peak, gpu_peak, gpu_peak / cpu_peak, L.fmt_x(c.speedup)),
        zh = string.format("公平一点的比赛：一整颗服务器 CPU（cpu-server：%d 个核心、%d 路 SIMD，模拟 %s）对 H200，"
          .. "两边都用这里最快的核函数（matmul_reg64，n = %d，含启动开销）：%s 对 %s，GPU 快 %s，比对一个核心时小得多。"
          .. "真实硬件上用成熟的库、算大矩阵（实测）：H200 的 FP32 矩阵乘法 50.6 TFLOP/s，16 核 Xeon 的 BLAS 1,229 GFLOP/s："
          .. "相差 41 倍；一个 Xeon 核心跑朴素的三重循环只有 1.48 GFLOP/s：相差约 34,000 倍。我们模拟的服务器 CPU 更大，"
          .. "是 64 核的 EPYC：按规格它的 FP32 峰值是 %.1f TFLOP/s，H200 是 %.0f，只差 %.0f 倍。所以“快 20 到 50 倍”"
          .. "说的是 16 核服务器 CPU 对 GPU 的 FP32 计算，64 核的 CPU 差距更接近 10 倍；和一个朴素的核心比，是几万倍。"
          .. "在这么小的规模上模拟器给出的倍数更小（%s）：我们的核函数用到的 GPU 峰值比例比专业库低。",
          -- the preset's name without its English note "(Zen 4, 64 cores, AVX-512)": the sentence says it
          sd.cores, sd.simd_width, (sd.vendor_name:gsub("%s*%b()$", "")), n, L.fmt_us(c.cpu.time_us), L.fmt_us(c.gpu.time_us),
          L.fmt_x(c.speedup, "zh"), cpu_peak, gpu_peak, gpu_peak / cpu_peak, L.fmt_x(c.speedup, "zh")),
      }
      L.expect(c.identical, { en = "the server CPU and the GPU give bit-identical results",
                              zh = "服务器 CPU 和 GPU 的结果逐位相同" })
      L.expect(c.speedup > 1, { en = "the GPU still beats a whole server CPU", zh = "GPU 依然比整颗服务器 CPU 快" },
               { en = L.fmt_x(c.speedup), zh = L.fmt_x(c.speedup, "zh") })
      L.expect(c.speedup * 10 < L.x_core, {
        en = "a server CPU is at least ten times closer to the GPU than one core is",
        zh = "服务器 CPU 和 GPU 的差距，比单个核心和 GPU 的差距至少小十倍" },
        { en = string.format("%s vs %s", L.fmt_x(c.speedup), L.fmt_x(L.x_core)),
          zh = string.format("%s 对 %s", L.fmt_x(c.speedup, "zh"), L.fmt_x(L.x_core, "zh")) })
    end,
    function(L)
      local m = L.knob("vec")
      L.say{ en = string.format("Now a tiny job, side by side: add two vectors of %d numbers on one CPU core and on the H200.", m),
             zh = string.format("再来一个很小的任务，并排运行：在一个 CPU 核心和 H200 上把两个 %d 个数的向量相加。", m) }
      local c = compare.run{ workload = "vecadd", n = m, cpu = "cpu-core", gpu = "h200", quiet = true }
      L.x_tiny_vec = c.cpu.time_us / c.gpu.time_us
      L.say{
        en = string.format("Now a tiny job: add two vectors of %d numbers. One CPU core: %s. The H200: the kernel "
          .. "itself takes %s, but starting it costs the host %.1f µs first, so %s in all: the CPU is %s faster. "
          .. "Small problems stay on the CPU; a GPU pays off when there is enough work to fill it.", m,
          L.fmt_us(c.cpu.time_us), L.fmt_us(c.gpu.kernel_us), c.gpu.launch_us, L.fmt_us(c.gpu.time_us),
          L.fmt_x(c.gpu.time_us / c.cpu.time_us)),
        zh = string.format("再来一个很小的任务：两个 %d 个数的向量相加。一个 CPU 核心：%s。H200：核函数本身只要 %s，"
          .. "但主机先要花 %.1f 微秒启动它，总共 %s：CPU 反而快 %s。小问题留在 CPU 上算；活儿多到能把 GPU 填满，"
          .. "GPU 才划算。", m, L.fmt_us(c.cpu.time_us), L.fmt_us(c.gpu.kernel_us), c.gpu.launch_us,
          L.fmt_us(c.gpu.time_us), L.fmt_x(c.gpu.time_us / c.cpu.time_us, "zh")),
      }
      L.expect(c.identical, { en = "both add the vectors exactly alike", zh = "两边的向量加法结果完全一样" })
      L.expect(c.faster == "cpu", { en = "for a tiny vector the CPU core wins once the launch counts",
                                    zh = "向量很小时，算上启动开销，CPU 核心赢" },
               { en = string.format("CPU %.2f µs, GPU %.2f µs (kernel %.2f + launch %.2f)", c.cpu.time_us,
                                    c.gpu.time_us, c.gpu.kernel_us, c.gpu.launch_us),
                 zh = string.format("CPU %.2f 微秒，GPU %.2f 微秒（核函数 %.2f + 启动 %.2f）", c.cpu.time_us,
                                    c.gpu.time_us, c.gpu.kernel_us, c.gpu.launch_us) })
    end,
    function(L)
      -- on a stage, the last picture should be the race, not the tiny vector:
      -- race the H200 again (same numbers as step 3; headless runs skip it)
      if simt.on_stage() then
        L.say{ en = "To sum up, the H200's race once more; when it ends, every comparison of this lesson in one table.",
               zh = "最后总结：再看一遍 H200 的比赛；比完之后，这节课所有的比较放在一张表里。" }
        race(L, L.gpu{ arch = "h200" })
      end
      -- every comparison of the lesson side by side: "faster than what?"
      local sim = { en = "simulated here", zh = "这里模拟的" }
      local meas = { en = "measured (real hardware)", zh = "实测（真实硬件）" }
      local function fx(r) return { en = L.fmt_x(r), zh = L.fmt_x(r, "zh") } end
      L.table{ title = { en = "How much faster is the GPU? It depends on the other side", zh = "GPU 快多少？要看和谁比" },
               columns = { { en = "GPU", zh = "GPU" }, { en = "against", zh = "对手" }, { en = "GPU faster by", zh = "GPU 快" },
                           { en = "source", zh = "来源" } },
               rows = { { "edu-tiny", { en = "one CPU core, matrix", zh = "一个 CPU 核心，矩阵" },
                          fx(L.cpu1.time_us / L.tiny.time_us), sim },
                        { "H200", { en = "one CPU core, matrix", zh = "一个 CPU 核心，矩阵" }, fx(L.x_core), sim },
                        { "H200", { en = "64-core server CPU, matrix", zh = "64 核服务器 CPU，矩阵" }, fx(L.x_server), sim },
                        { "H200", { en = "one CPU core, tiny vector", zh = "一个 CPU 核心，小向量" },
                          fx(L.x_tiny_vec), sim },
                        { "H200", { en = "16-core Xeon, BLAS", zh = "16 核 Xeon，BLAS" }, { en = "41x", zh = "41 倍" }, meas },
                        { "H200", { en = "one Xeon core, plain loop", zh = "一个 Xeon 核心，朴素循环" }, { en = "34,000x", zh = "34,000 倍" }, meas } },
               -- the note is also the summary's "measured" line: a finding, not only a reading guide
               note = { en = string.format("The GPU's lead runs from %s (a tiny vector: below 1x the CPU wins) to "
                                           .. "34,000x (one core running a plain loop).", L.fmt_x(L.x_tiny_vec)),
                        zh = string.format("GPU 的领先从 %s（小向量：小于 1 倍就是 CPU 赢）到 34,000 倍（一个核心跑朴素循环）。",
                                           L.fmt_x(L.x_tiny_vec, "zh")) } }
      L.say{
        en = string.format("What we saw, all from the simulator's own numbers: a GPU is fast because it works on "
          .. "thousands of threads at once. Against one core it won by %s; against a whole server CPU by %s here "
          .. "(41x measured on real hardware, against a 16-core Xeon); on a tiny vector it lost. \"How much faster\" always needs \"than "
          .. "what, on how much work\".", L.fmt_x(L.x_core), L.fmt_x(L.x_server)),
        zh = string.format("小结（数字都来自模拟器本身）：GPU 快，是因为它同时处理成千上万个线程。对一个核心它快了 %s；"
          .. "对整颗服务器 CPU，这里快 %s（真实硬件上对 16 核 Xeon 实测 41 倍）；遇到很小的向量，它反而输了。说“快多少倍”，"
          .. "一定要问清楚：和谁比，算多少活儿。", L.fmt_x(L.x_core, "zh"), L.fmt_x(L.x_server, "zh")),
      }
    end,
  },
}
