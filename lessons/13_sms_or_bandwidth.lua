-- Lesson 13: more SMs or more bandwidth?
-- Two knobs of a GPU, turned one at a time, on a kernel that computes
-- (micro_fma8) and one that streams from DRAM (micro_stream): each kernel
-- speeds up only with the knob that limits it. Then wave quantisation (a
-- grid one block larger than the SMs takes twice as long), small problems
-- on a big GPU, and the roofline's ridge moving as the knobs move.
--
-- Scaled: the sweeps run on slices of the H200 (2 to 32 SMs; the base is 8
-- SMs with 8/132 of its DRAM bandwidth and channels, calibrate.share) so the
-- lesson runs in seconds; the wave and small-problem steps use the whole
-- 132-SM model with a short loop.

local SHARE8 = require("calibrate").share(8)
local H200_SMS = 132
local SM_SWEEP = { 2, 4, 8, 16, 32 }
local BW_SWEEP = { 0.125, 0.25, 0.5, 1, 2 }     -- x the 8-SM slice's share of 4,800 GB/s
local BLOCKS, THREADS = 64, 1024                -- the fixed job of every sweep point
-- reference/h200-measured.md "SM scaling": FMA kernel, one block of 1,024 per SM
local REAL_BLOCKS = { 1, 2, 4, 8, 16, 33, 66, 99, 132 }
local REAL_TFLOPS = { 0.449, 0.894, 1.73, 3.47, 7.07, 14.6, 29.3, 43.5, 57.8 }

-- one point of a sweep: the compute-bound and the memory-bound kernel on a
-- slice of sms SMs with dram_gbps of DRAM bandwidth
local function point(L, sms, gbps)
  -- the 8-SM slice's DRAM channels and L2 bandwidth (calibrate.share), its
  -- power budget in proportion to the SMs; the SMs and DRAM GB/s as asked
  local t, d = require("calibrate").share(8), simt.gpu{ arch = "h200" }.desc
  t.sms, t.dram_gbps = sms, gbps
  t.tdp_watts, t.power_static_w = d.tdp_watts * sms / H200_SMS, d.power_static_w * sms / H200_SMS
  local g = simt.gpu(t)
  local out = g:tensor{ BLOCKS * THREADS, name = "out" }
  local rf = L.run(g, "micro_fma8", { grid = BLOCKS, block = THREADS }, 8, out)
  local A = g:tensor{ BLOCKS * THREADS * 4 * 8, name = "A" }
  -- check off: micro_stream reads memory nothing wrote (its values do not matter)
  local rs = L.run(g, "micro_stream", { grid = BLOCKS, block = THREADS, check = false }, A, 8, out)
  return { fma = rf, stream = rs, tflops = rf.tflops, gbs = rs.dram_gbs, peak = g.desc.sms * g.desc.fp32_lanes_per_sm
           * 2 * g.desc.clock_mhz / 1e6 }
end

-- a sweep drawn live as chart c (name, title, x_label, y_label, x): point i
-- is run_point(i); each point's speed relative to point base_i (time of the
-- base / time) for both kernels appears once the base has run
local function speedup_sweep(L, base_i, c, run_point)
  c.log_x, c.live = true, true
  c.series = { { name = "micro_fma8", y = {} }, { name = "micro_stream", y = {} } }
  local lc = L.chart(c)
  local pts, fma, mem = {}, {}, {}
  for i = 1, #c.x do
    lc:at(i)
    pts[i] = run_point(i)
    local base = pts[base_i]
    for j = base and 1 or i + 1, i do
      fma[j] = base.fma.time_us / pts[j].fma.time_us
      mem[j] = base.stream.time_us / pts[j].stream.time_us
      lc:set(1, j, fma[j])
      lc:set(2, j, mem[j])
    end
  end
  lc:done()
  return pts, fma, mem
end

local function wave(L, g, blocks, iters, out)
  out = out or g:tensor{ blocks * THREADS, name = "out" }
  return L.run(g, "micro_fma8", { grid = blocks, block = THREADS }, iters, out)
end

return {
  meta = {
    number = 13,
    title = { en = "More SMs or more bandwidth?", zh = "更多的 SM，还是更高的显存带宽？" },
    concept = { en = "A faster GPU helps a kernel only where its limit is: compute-bound kernels need more SMs, memory-bound ones more bandwidth; and a grid must fill the SMs in whole waves.",
                zh = "GPU 更强，只有强在内核的瓶颈上才有用：受算力限制的内核要更多 SM，受内存限制的要更高显存带宽；线程网格还要按整波填满所有 SM。" },
    minutes = 15,
    knobs = {
      { name = "blocks", range = { 1, 1056 }, default = 133, en = "blocks of 1,024 threads in the wave step (the H200 has 132 SMs)",
        zh = "“波”那一步的线程块数（每块 1024 个线程；H200 有 132 个 SM）" },
    },
  },
  steps = {
    function(L)
      L.say{
        en = "Articles compare GPUs by one number, usually TFLOPS. But a GPU has two big knobs: how many SMs compute (流多处理器) "
          .. "and how fast DRAM feeds them (显存带宽). We turn each knob on its own and time two kernels: micro_fma8, "
          .. "which only multiplies and adds (compute-bound), and micro_stream, which only reads DRAM (memory-bound). "
          .. string.format("Each run is the same job: %d blocks of %s threads. Scaled so it runs in seconds: slices of the "
          .. "H200 from 2 to 32 of its %d SMs, the base being 8 SMs with 8/%d of its DRAM bandwidth (%.0f GB/s) and "
          .. "channels (%d).", BLOCKS, L.commas(THREADS), H200_SMS, H200_SMS, SHARE8.dram_gbps, SHARE8.dram_channels),
        zh = "文章比较 GPU 往往只看一个数字，通常是 TFLOPS。但 GPU 有两个大旋钮：有多少个流多处理器（SM）在计算，"
          .. "以及显存带宽有多快地给它们送数据。我们每次只转一个旋钮，给两个核函数计时：micro_fma8 只做乘加（受算力限制），"
          .. "micro_stream 只读显存（受内存限制）。"
          .. string.format("每次运行都是同一份工作：%d 个线程块，每块 %s 个线程。为了几秒内跑完，我们用 H200 的切片："
          .. "%d 个 SM 中的 2 到 32 个；基准是 8 个 SM，配 8/%d 的显存带宽（%.0f GB/s）和显存通道（%d 个）。",
          BLOCKS, L.commas(THREADS), H200_SMS, H200_SMS, SHARE8.dram_gbps, SHARE8.dram_channels),
      }
    end,
    function(L)
      L.say{ en = "First knob: the SMs, 2 to 32, with the DRAM bandwidth fixed. Both kernels run at each setting; the "
               .. "speed-ups (against 8 SMs) appear once the 8-SM run has finished.",
             zh = "第一个旋钮：SM 数，从 2 到 32，显存带宽不变。每个设置都跑两个核函数；8 个 SM 的运行结束后，"
               .. "各点的加速倍数（相对 8 个 SM）就出现在图上。" }
      local pts, fma, mem = speedup_sweep(L, 3, { name = "13_sms",   -- base: 8 SMs
        title = { en = "speed-up from more SMs (DRAM bandwidth fixed)", zh = "增加 SM 带来的加速（显存带宽不变）" },
        x_label = { en = "SMs", zh = "SM 数" }, y_label = { en = "x speed of 8 SMs", zh = "相对 8 个 SM 的速度倍数" }, x = SM_SWEEP },
        function(i) return point(L, SM_SWEEP[i], SHARE8.dram_gbps) end)
      local base = pts[3]
      L.sm_pts = pts
      L.say{
        en = string.format("More SMs, same bandwidth: the compute-bound kernel runs %.1fx as fast on 32 SMs as on 8 (%.1f "
          .. "against %.1f TFLOP/s), in proportion to the SMs. The memory-bound kernel gains nothing past 8 SMs: it "
          .. "reads %.0f GB/s on 8, 16 and 32 SMs, because DRAM (%.0f GB/s here) is its limit. Below 8 SMs it is too few "
          .. "SMs to keep enough loads in flight (%.0f GB/s on 2 SMs): lesson 4.", fma[5], pts[5].tflops, base.tflops,
          base.gbs, SHARE8.dram_gbps, pts[1].gbs),
        zh = string.format("带宽不变、SM 增加：受算力限制的核函数在 32 个 SM 上比 8 个 SM 快 %.1f 倍（%.1f 对 %.1f TFLOP/s），"
          .. "与 SM 数成正比。受内存限制的核函数超过 8 个 SM 后毫无收益：8、16、32 个 SM 都只读到 %.0f GB/s，"
          .. "因为它的瓶颈是显存（这里 %.0f GB/s）。少于 8 个 SM 时，是 SM 太少，同时在飞的读取不够多"
          .. "（2 个 SM 只有 %.0f GB/s）：见第 4 课。", fma[5], pts[5].tflops, base.tflops, base.gbs, SHARE8.dram_gbps, pts[1].gbs),
      }
      L.expect(fma[5] >= 3.6 and fma[1] <= 0.3, { en = "the compute-bound kernel speeds up in proportion to the SMs",
                                                  zh = "受算力限制的核函数随 SM 数成正比加速" },
               string.format("2 SMs %.2fx, 32 SMs %.2fx of 8", fma[1], fma[5]))
      L.expect(mem[5] <= 1.1 and mem[4] <= 1.1, { en = "the memory-bound kernel gains less than 10% from 4x the SMs",
                                                  zh = "SM 增加到 4 倍，受内存限制的核函数快不到 10%" },
               string.format("16 SMs %.2fx, 32 SMs %.2fx of 8", mem[4], mem[5]))
      L.expect(base.gbs <= SHARE8.dram_gbps * 1.001, { en = "no run reads faster than the DRAM allows",
                                                       zh = "没有一次运行超过显存带宽" },
               string.format("%.0f <= %.0f GB/s", base.gbs, SHARE8.dram_gbps))
    end,
    function(L)
      local gb = {}
      for i, f in ipairs(BW_SWEEP) do gb[i] = math.floor(SHARE8.dram_gbps * f + 0.5) end
      L.say{ en = string.format("Second knob: the DRAM bandwidth, %d to %d GB/s, on 8 SMs. The speed-ups (against %d GB/s) "
                                .. "appear once that run has finished.", gb[1], gb[#gb], gb[4]),
             zh = string.format("第二个旋钮：显存带宽，从 %d 到 %d GB/s，8 个 SM。%d GB/s 的运行结束后，各点的加速倍数（相对它）就出现在图上。",
                                gb[1], gb[#gb], gb[4]) }
      local pts, fma, mem = speedup_sweep(L, 4, { name = "13_bandwidth",
        title = { en = "speed-up from more DRAM bandwidth (8 SMs)", zh = "提高显存带宽带来的加速（8 个 SM）" },
        x_label = { en = "DRAM GB/s", zh = "显存 GB/s" },
        y_label = { en = string.format("x speed at %d GB/s", gb[4]), zh = string.format("相对 %d GB/s 的速度倍数", gb[4]) }, x = gb },
        function(i) return point(L, 8, SHARE8.dram_gbps * BW_SWEEP[i]) end)
      local base = pts[4]
      L.bw_pts, L.bw_gb = pts, gb
      L.say{
        en = string.format("More bandwidth, same 8 SMs: the memory-bound kernel follows the bandwidth (%.0f GB/s read with "
          .. "%d available, %.0f with %d, %.0f with %d); the compute-bound kernel does not move (%.2f TFLOP/s at every "
          .. "setting). So which is \"the faster GPU\" depends on the kernel: a big matrix multiply wants SMs (and Tensor "
          .. "Cores), generating text token by token (LLM decoding) wants bandwidth (lesson 12).",
          pts[1].gbs, gb[1], base.gbs, gb[4], pts[5].gbs, gb[5], base.tflops),
        zh = string.format("SM 不变（8 个）、带宽提高：受内存限制的核函数跟着带宽走（可用 %d GB/s 时读到 %.0f，%d 时 %.0f，"
          .. "%d 时 %.0f）；受算力限制的核函数纹丝不动（每种设置都是 %.2f TFLOP/s）。所以哪块 GPU “更快”要看核函数："
          .. "大矩阵乘法要 SM（和张量核心），大模型逐个生成 token（推理解码）要显存带宽（第 12 课）。",
          gb[1], pts[1].gbs, gb[4], base.gbs, gb[5], pts[5].gbs, base.tflops),
      }
      L.expect(mem[1] <= 0.15 and mem[5] >= 1.5, { en = "the memory-bound kernel speeds up with the bandwidth",
                                                   zh = "受内存限制的核函数随显存带宽加速" },
               string.format("1/8 bandwidth %.2fx, 2x bandwidth %.2fx", mem[1], mem[5]))
      local lo, hi = math.huge, 0
      for _, v in ipairs(fma) do lo, hi = math.min(lo, v), math.max(hi, v) end
      L.expect(hi / lo <= 1.02, { en = "the compute-bound kernel's time does not depend on the bandwidth (within 2%)",
                                  zh = "受算力限制的核函数的时间与显存带宽无关（误差 2% 以内）" },
               string.format("%.3f .. %.3f", lo, hi))
    end,
    function(L)
      local g = simt.gpu{ arch = "h200" }
      local n = g.desc.sms
      local b = L.knob("blocks")
      local r1 = wave(L, g, n, 4)
      local r2 = wave(L, g, n + 1, 4)
      local r3 = wave(L, g, 2 * n, 4)
      local rk = wave(L, g, b, 4)
      local args = { n, L.commas(THREADS), n, n, L.fmt_us(r1.time_us), n + 1, L.fmt_us(r2.time_us),
                     r2.time_us / r1.time_us, n - 1, 2 * n, L.fmt_us(r3.time_us), b, L.fmt_us(rk.time_us), (b + n - 1) // n }
      L.say{
        en = string.format("Waves, on the whole H200 model (%d SMs, a short loop): a block of %s threads fills an SM's FP32 "
          .. "lanes, so the SMs run the blocks in waves of %d. %d blocks: %s. %d blocks: %s, %.1fx as long for 1%% more "
          .. "work, because one SM runs two blocks while %d wait. %d blocks: %s, the second wave is full and costs no more. "
          .. "Your setting, blocks = %d: %s, %d wave(s) (try simtlab lesson 13 blocks=264).",
          table.unpack(args)),
        zh = string.format("波（wave），在完整的 H200 模型上（%d 个 SM，循环很短）：一个 %s 线程的线程块就能占满一个 SM 的 FP32 通道，"
          .. "所以 SM 按每波 %d 块来运行。%d 块：%s。%d 块：%s，工作只多 1%%，时间却是 %.1f 倍，因为一个 SM 要跑两块，"
          .. "其余 %d 个 SM 在等。%d 块：%s，第二波是满的，不再多花时间。你的设置 blocks = %d：%s，%d 波"
          .. "（试试 simtlab lesson 13 blocks=264）。",
          table.unpack(args)),
      }
      L.expect(r2.time_us >= 1.8 * r1.time_us, { en = "one block more than the SMs almost doubles the time",
                                                 zh = "比 SM 数多一个线程块，时间几乎翻倍" },
               string.format("%.2f vs %.2f us", r2.time_us, r1.time_us))
      L.expect(r3.time_us <= 1.05 * r2.time_us, { en = "a full second wave costs no more than a partial one",
                                                  zh = "满的第二波不比只有一块的第二波更费时" },
               string.format("%.2f vs %.2f us", r3.time_us, r2.time_us))
    end,
    function(L)
      local g = simt.gpu{ arch = "h200" }
      local n = g.desc.sms
      local sim, real = {}, {}
      for i = 1, #REAL_BLOCKS do real[i] = REAL_TFLOPS[i] end
      L.say{ en = string.format("The whole H200 model (%d SMs), one launch per grid of 1 to 132 blocks of 1,024 threads, "
                                .. "beside a real H200's measured TFLOP/s (hollow squares). Each point appears when its run finishes.", n),
             zh = string.format("完整的 H200 模型（%d 个 SM），线程块数从 1 到 132（每块 1024 个线程），每个设置启动一次，"
                                .. "旁边是真实 H200 实测的 TFLOP/s（空心方块）。每次运行结束，图上就出现一个点。", n) }
      local c = L.chart{ name = "13_small", live = true,
                         title = { en = "FP32 TFLOP/s against blocks on a 132-SM H200", zh = "132 个 SM 的 H200 上，FP32 TFLOP/s 与线程块数" },
                         x_label = { en = "blocks of 1,024", zh = "线程块数（每块 1024）" }, y_label = { en = "TFLOP/s", zh = "TFLOP/s" },
                         log_x = true, x = REAL_BLOCKS,
                         series = { { name = "simtlab", y = {} },
                                    { name = { en = "H200 measured", zh = "H200 实测" }, y = real, measured = true } } }
      -- one output for every run: no tensor is freed between them, so the runs' addresses (and
      -- cycles) do not depend on when Lua collects garbage (the stage draws between runs)
      local out = g:tensor{ REAL_BLOCKS[#REAL_BLOCKS] * THREADS, name = "out" }
      for i, b in ipairs(REAL_BLOCKS) do
        c:at(i)
        sim[i] = wave(L, g, b, 16, out).tflops
        c:set(1, i, sim[i])
      end
      c:done()
      L.say{
        en = string.format("Small problems cannot fill a big GPU. With one block the H200 model computes %.2f TFLOP/s (the "
          .. "real H200, measured: %.3f), with 33 blocks %.1f (real %.1f), with 132 blocks %.1f (real %.1f): the "
          .. "same time per launch, the throughput in proportion to the SMs that have work. A problem of 8 blocks uses "
          .. "8 of 132 SMs, 6%%: a GPU twice as big would not run it any faster.", sim[1], real[1], sim[6], real[6],
          sim[9], real[9]),
        zh = string.format("小问题填不满大 GPU。只有 1 个线程块时，H200 模型算出 %.2f TFLOP/s（真实 H200 实测 %.3f），"
          .. "33 块时 %.1f（实测 %.1f），132 块时 %.1f（实测 %.1f）：每次启动的时间一样，吞吐量与有活干的 SM 数成正比。"
          .. "只有 8 个线程块的问题只用到 132 个 SM 中的 8 个（6%%）：换一块大一倍的 GPU 也不会更快。",
          sim[1], real[1], sim[6], real[6], sim[9], real[9]),
      }
      for i, b in ipairs(REAL_BLOCKS) do
        L.expect(math.abs(sim[i] / sim[1] - b) <= 0.05 * b, { en = "throughput is in proportion to the blocks, up to one per SM (within 5%)",
                                                              zh = "吞吐量与线程块数成正比，直到每个 SM 一块（误差 5% 以内）" },
                 string.format("%d blocks: %.2fx of one", b, sim[i] / sim[1]))
      end
      L.expect(math.abs(sim[9] / real[9] - 1) <= 0.15, { en = "the model's 132-block figure is within 15% of the measured H200",
                                                         zh = "模型 132 块的结果与真实 H200 实测相差 15% 以内" },
               string.format("%.1f vs %.1f TFLOP/s", sim[9], real[9]))
    end,
    function(L)
      -- the ridge, measured: the compute kernel's FLOP/s over the memory kernel's bytes/s, per setting
      local rows, ridge = {}, {}
      local function add(label, p, gbps)
        local rd = p.tflops * 1000 / p.gbs
        ridge[#ridge + 1] = rd
        rows[#rows + 1] = { label, p.peak, math.floor(gbps + 0.5), p.tflops, p.gbs, rd }
      end
      add({ en = "8 SMs (base)", zh = "8 个 SM（基准）" }, L.sm_pts[3], SHARE8.dram_gbps)
      add({ en = "32 SMs", zh = "32 个 SM" }, L.sm_pts[5], SHARE8.dram_gbps)
      add({ en = "8 SMs, 2x bandwidth", zh = "8 个 SM，2 倍带宽" }, L.bw_pts[5], L.bw_gb[5])
      add({ en = "8 SMs, 1/2 bandwidth", zh = "8 个 SM，1/2 带宽" }, L.bw_pts[3], L.bw_gb[3])
      L.table{ name = "13_ridge", title = { en = "the ridge point as the knobs move (measured: FMA TFLOP/s / stream GB/s)",
                                            zh = "旋钮变化时的屋脊点（实测：FMA TFLOP/s ÷ 读显存 GB/s）" },
               columns = { { en = "GPU", zh = "GPU" }, { en = "FP32 peak TF", zh = "FP32 峰值 TF" },
                           { en = "DRAM GB/s", zh = "显存 GB/s" }, { en = "FMA TF", zh = "FMA TF" },
                           { en = "read GB/s", zh = "读 GB/s" }, { en = "ridge FLOP/B", zh = "屋脊点 FLOP/B" } },
               rows = rows }
      L.say{
        en = string.format("The roofline's ridge (lesson 8) is compute rate over bandwidth, so it moves with the knobs: "
          .. "%.1f FLOP per byte on the base slice, %.1f with 4x the SMs, %.1f with twice the bandwidth, %.1f with half. "
          .. "A kernel doing 20 FLOP per byte is compute-bound on the base slice and memory-bound with 4x the SMs: "
          .. "adding SMs moves kernels to the memory side of the ridge. That is the \"memory wall\": GPUs have gained "
          .. "FLOPS faster than bandwidth, and the H200's BF16 ridge is about 206 FLOP per byte.",
          ridge[1], ridge[2], ridge[3], ridge[4]),
        zh = string.format("屋顶线的屋脊点（第 8 课）等于算力除以带宽，所以它随旋钮移动：基准切片上是每字节 %.1f 次运算，"
          .. "SM 增加到 4 倍时 %.1f，带宽翻倍时 %.1f，带宽减半时 %.1f。每字节做 20 次运算的核函数在基准切片上受算力限制，"
          .. "SM 增加到 4 倍后就变成受内存限制：加 SM 会把核函数推到屋脊点的内存一侧。这就是“内存墙”：GPU 的算力增长比带宽快，"
          .. "H200 用 BF16 时屋脊点约为每字节 206 次运算。", ridge[1], ridge[2], ridge[3], ridge[4]),
      }
      L.expect(ridge[2] >= 3.5 * ridge[1] and ridge[3] <= 0.6 * ridge[1] and ridge[4] >= 1.8 * ridge[1], {
        en = "the ridge moves right with more SMs and left with more bandwidth",
        zh = "SM 越多屋脊点越往右，带宽越高屋脊点越往左" },
        string.format("%.1f, %.1f, %.1f, %.1f FLOP/B", ridge[1], ridge[2], ridge[3], ridge[4]))
      L.expect(ridge[1] < 20 and ridge[2] > 20, { en = "20 FLOP/byte is right of the base ridge and left of the 32-SM one",
                                                  zh = "每字节 20 次运算在基准屋脊点右边、32 个 SM 的屋脊点左边" },
               string.format("%.1f < 20 < %.1f", ridge[1], ridge[2]))
    end,
    function(L)
      L.say{
        en = "Before buying (or renting) a bigger GPU, ask two questions: which roof is my kernel under, and does my "
          .. "problem have enough blocks to fill every SM in whole waves? Exercise 13 (lessons/exercises/13_waves.md): "
          .. "split a fixed job into the number of blocks that finishes first on the H200; answer with a number: "
          .. "simtlab check 13 --answer N.",
        zh = "买（或租）更大的 GPU 之前，先问两个问题：我的核函数在哪一片屋顶下面？我的问题有没有足够多的线程块，"
          .. "能按整波填满每个 SM？练习 13（lessons/exercises/13_waves.md）：把一份固定的工作切成若干线程块，"
          .. "找出在 H200 上最快跑完的块数；用一个数回答：simtlab check 13 --answer N。",
      }
    end,
  },
}
