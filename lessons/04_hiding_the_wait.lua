-- Lesson 4: hiding the wait (occupancy, 占用率).
-- A load from DRAM takes hundreds of cycles; an SM hides that wait by
-- switching to other warps. More warps in flight = more bytes in flight
-- (Little's law). With independent work inside each warp (ILP), arithmetic
-- needs far fewer warps.

local SMS = 4           -- a 4-SM slice of the H200 (fast to simulate) ...
local H200_SMS = 132    -- ... with 4/132 of its DRAM bandwidth and channels, so each SM gets its real share
-- the slice's share of the H200's DRAM bandwidth and channels (each channel
-- keeps its real bandwidth): lessons/lib/calibrate.lua
local SHARE = require("calibrate").share(SMS)
-- reference/h200-measured.md "Latency hiding with warps" (whole chip, 132 SMs)
local REAL_W = { 1, 2, 4, 8, 16, 32, 64 }
local REAL_GBS = { 165, 336, 665, 1286, 2384, 3782, 4363 }
local REAL_FMA1 = { 2.68, 5.55, 10.9, 21.5, 40.0, 46.8, 51.0 }
local REAL_FMA8 = { 10.4, 20.7, 41.5, 55.9, 55.0, 58.1, 60.0 }

local function first_reaching(ws, ys, frac)
  local best = 0
  for _, y in ipairs(ys) do best = math.max(best, y) end
  for i, y in ipairs(ys) do if y >= frac * best then return ws[i] end end
end

return {
  meta = {
    number = 4,
    title = { en = "Hiding the wait", zh = "用更多的 warp 掩盖等待" },
    concept = { en = "An SM hides the long wait for memory by running other warps meanwhile: memory needs many warps in flight, arithmetic with independent work needs few.",
                zh = "SM 在等内存的时候切换去运行别的 warp，把等待藏起来（隐藏延迟）：访存需要很多 warp 同时发出请求，有独立计算的算术只需要很少。" },
    minutes = 15,
    knobs = {
      { name = "warps", range = { 1, 64 }, default = 64, en = "most warps per SM in the sweep",
        zh = "扫描中每个 SM 最多的 warp 数" },
    },
  },
  steps = {
    function(L)
      local d = simt.gpu{ arch = "h200" }.desc
      L.say{
        en = string.format("A global load that misses the caches waits about %d cycles on the H200 model, a little "
          .. "more when other loads queue ahead of it (measured on a real H200: 672 on average). While one warp waits, the "
          .. "scheduler issues from another: the SM hides the wait. How many warps an SM holds against the most it "
          .. "can hold is its occupancy (64 warps on an H200 SM). We run three kernels "
          .. "with 1, 2, 4 ... warps per SM: micro_stream (streaming loads), micro_fma1 (one chain of dependent "
          .. "multiply-adds per thread) and micro_fma8 (eight independent chains). To keep it quick we use %d of "
          .. "the H200's %d SMs and give them %d/%d of its DRAM bandwidth and of its memory channels (%d of %d), "
          .. "so that each SM has its real share.",
          d.lat_dram, SMS, H200_SMS, SMS, H200_SMS, SHARE.dram_channels, d.dram_channels),
        zh = string.format("一次没命中缓存的全局内存读取，在 H200 模型上要等大约 %d 个周期，前面有别的读取在排队时还要多等一会儿"
          .. "（真实 H200 实测平均 672）。"
          .. "一个 warp 在等，调度器就去发射另一个 warp 的指令：SM 把等待藏了起来（隐藏延迟）。一个 SM 上驻留的 warp 数占它最多能放的 "
          .. "warp 数的比例，叫占用率（H200 的一个 SM 最多 64 个 warp）。我们让每个 SM 分别跑 1、2、4……个 warp，运行三个核函数："
          .. "micro_stream（连续读内存）、micro_fma1（每个线程一条相互依赖的乘加链）和 micro_fma8（八条互不依赖的链）。"
          .. "为了跑得快，我们只用 H200 %d 个 SM 中的 %d 个，并给它们 %d/%d 的显存带宽和显存通道（%d 个中的 %d 个），"
          .. "让每个 SM 分到真实的份额。",
          d.lat_dram, H200_SMS, SMS, SMS, H200_SMS, d.dram_channels, SHARE.dram_channels),
      }
    end,
    function(L)
      L.say{
        en = "Memory first: micro_stream with 1, 2, 4 ... 64 warps per SM. Each point of the chart appears when its "
          .. "run finishes, beside the real H200's (measured on the whole chip, divided by its 132 SMs).",
        zh = "先看访存：micro_stream，每个 SM 分别 1、2、4……64 个 warp。每次运行结束，图上就出现一个点，"
          .. "旁边是真实 H200 的测量值（整块芯片测得，除以 132 个 SM）。",
      }
      local g = L.gpu{ arch = "h200", sms = SMS, dram_gbps = SHARE.dram_gbps, dram_channels = SHARE.dram_channels }
      local maxw = L.knob("warps")
      local ws, gbs, real_gbs, real_f1, real_f8 = {}, {}, {}, {}, {}
      for i, W in ipairs(REAL_W) do
        if W > maxw then break end
        ws[i] = W
        real_gbs[i] = REAL_GBS[i] / H200_SMS
        real_f1[i], real_f8[i] = REAL_FMA1[i] * 1000 / H200_SMS, REAL_FMA8[i] * 1000 / H200_SMS
      end
      L.ws, L.real_f1, L.real_f8 = ws, real_f1, real_f8
      local c = L.chart{ name = "04_memory", live = true,
                         title = { en = "DRAM read bandwidth per SM", zh = "每个 SM 的显存读带宽" },
                         x_label = { en = "warps per SM", zh = "每个 SM 的 warp 数" },
                         y_label = { en = "GB/s per SM", zh = "每个 SM 的 GB/s" },
                         run_label = { en = "warps per SM = %s", zh = "每个 SM 的 warp 数 = %s" },
                         log_x = true, x = ws,
                         series = { { name = { en = "simtlab (4-SM slice)", zh = "simtlab（4 个 SM 的切片）" }, y = {} },
                                    { name = { en = "H200 measured", zh = "H200 实测" }, y = real_gbs, measured = true } } }
      for i, W in ipairs(ws) do
        local grid, block = SMS, 32 * W
        if W > 32 then grid, block = SMS * W // 32, 1024 end    -- as measured: 2 blocks of 1,024 per SM
        local threads, iters = grid * block, 8
        local A = g:tensor{ threads * 4 * iters, init = "zeros", name = "A" }
        local out = g:tensor{ threads, name = "out" }
        -- show = false: what these kernels write is a checksum, not a picture; the chart is the point
        local rs = c:run(i, g, "micro_stream", { grid = grid, block = block, show = false }, A, iters, out)
        gbs[i] = rs.dram_gbs / SMS
        c:set(1, i, gbs[i])
      end
      local n = #ws
      c:done{ en = string.format("More warps, more loads in flight: %.1f GB/s per SM with 1 warp, %.1f with %d (the "
                                 .. "real H200: %.1f and %.1f).", gbs[1], gbs[n], ws[n], real_gbs[1], real_gbs[n]),
              zh = string.format("warp 越多，同时等待的读取越多：1 个 warp 时每个 SM %.1f GB/s，%d 个时 %.1f（真实 H200："
                                 .. "%.1f 和 %.1f）。", gbs[1], ws[n], gbs[n], real_gbs[1], real_gbs[n]) }
      L.mem_w80 = first_reaching(ws, gbs, 0.8)
      -- Little's law backwards: the cycles one warp's 512-byte load took =
      -- bytes in flight per SM / bytes per cycle per SM
      local mhz = g.desc.clock_mhz
      local function wait_cycles(i, v) return ws[i] * 512 / (v[i] * 1000 / mhz) end
      local wait_en, wait_zh = "", ""
      if n >= 6 then
        L.wait1, L.wait32 = wait_cycles(1, gbs), wait_cycles(6, gbs)
        local real1, real32 = wait_cycles(1, real_gbs), wait_cycles(6, real_gbs)
        wait_en = string.format(" Each load waited %.0f cycles with 1 warp, %.0f with 32 (Little's law; the real "
          .. "H200: %.0f, %.0f): the busier the memory, the longer the wait, because loads queue for the memory "
          .. "channels. (In this model the queue forms when a channel pauses now and then to refresh its DRAM; on "
          .. "the real chip many more things make loads queue.)", L.wait1, L.wait32, real1, real32)
        wait_zh = string.format("每次读取在 1 个 warp 时等 %.0f 个周期，32 个 warp 时等 %.0f 个（利特尔定律；真实 H200："
          .. "%.0f、%.0f）：显存越忙，等得越久，因为读取要排队等显存通道。（在这个模型里，队伍是在通道时不时停下来刷新 DRAM "
          .. "时排起来的；真实芯片上让读取排队的原因还有很多。）", L.wait1, L.wait32, real1, real32)
      end
      L.say{
        en = string.format("Memory: %.1f GB/s per SM with 1 warp, %.1f with %d (the real H200: %.1f and %.1f). Each "
          .. "warp keeps only so many bytes in flight, so bandwidth grows with the warps until the memory itself is "
          .. "the limit.%s", gbs[1], gbs[n], ws[n], real_gbs[1], real_gbs[n], wait_en),
        zh = string.format("访存：1 个 warp 时每个 SM %.1f GB/s，%d 个 warp 时 %.1f GB/s（真实 H200：%.1f 和 %.1f）。"
          .. "每个 warp 同时发出、还没返回的读取只有那么多字节，所以带宽随 warp 数增长，直到显存本身成为瓶颈。%s",
          gbs[1], ws[n], gbs[n], real_gbs[1], real_gbs[n], wait_zh),
      }
      if n >= 5 then
        L.expect(gbs[5] >= 8 * gbs[1], { en = "16 warps move at least 8x the bytes of one warp",
                                         zh = "16 个 warp 搬运的字节至少是 1 个 warp 的 8 倍" },
                 L.text_both("%.1f vs %.1f GB/s per SM", "每个 SM %.1f 对 %.1f GB/s", gbs[5], gbs[1]))
      end
      if n >= 6 then
        L.expect(L.wait32 >= 1.2 * L.wait1, { en = "a load waits longer when 32 warps share the memory than when one does",
                                               zh = "32 个 warp 共用显存时，每次读取比只有 1 个 warp 时等得更久" },
                 L.text_both("%.0f vs %.0f cycles", "%.0f 对 %.0f 个周期", L.wait32, L.wait1))
      end
      for i = 2, n do
        L.expect(gbs[i] >= gbs[i - 1], { en = "more warps never lower the bandwidth", zh = "warp 越多，带宽不会变低" },
                 L.text_both("%d warps: %.1f GB/s", "%d 个 warp：%.1f GB/s", ws[i], gbs[i]))
      end
    end,
    function(L)
      L.say{
        en = "Arithmetic next: micro_fma1 (one chain of dependent multiply-adds per thread) and micro_fma8 (eight "
          .. "independent chains), with the same numbers of warps.",
        zh = "再看算术：micro_fma1（每个线程一条相互依赖的乘加链）和 micro_fma8（八条互不依赖的链），warp 数和上面一样。",
      }
      local g = L.gpu{ arch = "h200", sms = SMS, dram_gbps = SHARE.dram_gbps, dram_channels = SHARE.dram_channels }
      local ws, f1, f8 = L.ws, {}, {}
      local c = L.chart{ name = "04_fma", live = true, title = { en = "FMA GFLOP/s per SM", zh = "每个 SM 的 FMA GFLOP/s" },
                         x_label = { en = "warps per SM", zh = "每个 SM 的 warp 数" },
                         y_label = { en = "GFLOP/s per SM", zh = "每个 SM 的 GFLOP/s" },
                         run_label = { en = "warps per SM = %s", zh = "每个 SM 的 warp 数 = %s" },
                         log_x = true, x = ws,
                         series = { { name = { en = "8 chains", zh = "8 条链" }, y = {} },
                                    { name = { en = "1 chain", zh = "1 条链" }, y = {} },
                                    { name = { en = "H200 8 chains", zh = "H200 8 条链" }, y = L.real_f8, measured = true },
                                    { name = { en = "H200 1 chain", zh = "H200 1 条链" }, y = L.real_f1, measured = true } } }
      for i, W in ipairs(ws) do
        local grid, block = SMS, 32 * W
        if W > 32 then grid, block = SMS * W // 32, 1024 end
        local out = g:tensor{ grid * block, name = "out" }
        local cfg = { grid = grid, block = block, show = false }
        local r1 = c:run(i, g, "micro_fma1", cfg, 8, out)
        f1[i] = r1.tflops * 1000 / SMS
        c:set(2, i, f1[i])
        local r8 = c:run(i, g, "micro_fma8", cfg, 4, out)
        f8[i] = r8.tflops * 1000 / SMS
        c:set(1, i, f8[i])
      end
      local n = #ws
      L.f1_w80, L.f8_w80 = first_reaching(ws, f1, 0.8), first_reaching(ws, f8, 0.8)
      c:done{ en = string.format("With independent work each warp keeps busy: 8 chains need %d warps for 80%% of the best "
                                 .. "rate, 1 chain needs %d.", L.f8_w80 or -1, L.f1_w80 or -1),
              zh = string.format("有独立的活儿，每个 warp 就不闲着：8 条链要 %d 个 warp 达到最高速度的 80%%，1 条链要 %d 个。",
                                 L.f8_w80 or -1, L.f1_w80 or -1) }
      L.say{
        en = string.format("Arithmetic: with one dependent chain a warp waits for its own last result; it took %d warps "
          .. "to reach 80%% of the best rate. With 8 independent chains each warp always has work: %d warps were "
          .. "enough (the real H200 shows the same, in the chart's units: with 8 warps, 8 chains reach %.0f of %.0f "
          .. "GFLOP/s per SM, one chain %.0f).",
          L.f1_w80 or -1, L.f8_w80 or -1, REAL_FMA8[4] * 1000 / H200_SMS, REAL_FMA8[7] * 1000 / H200_SMS,
          REAL_FMA1[4] * 1000 / H200_SMS),
        zh = string.format("算术：只有一条依赖链时，warp 要等自己的上一个结果；要 %d 个 warp 才能达到最高速度的 80%%。"
          .. "有 8 条独立链时，每个 warp 总有活干：%d 个 warp 就够了（真实 H200 也一样，按图上的单位：8 个 warp 时，8 条链达到"
          .. "每个 SM %.0f GFLOP/s（最高 %.0f），1 条链只有 %.0f）。", L.f1_w80 or -1, L.f8_w80 or -1,
          REAL_FMA8[4] * 1000 / H200_SMS, REAL_FMA8[7] * 1000 / H200_SMS, REAL_FMA1[4] * 1000 / H200_SMS),
      }
      L.expect(f8[1] >= 2 * f1[1], { en = "with independent work (ILP) one warp computes at least twice as fast",
                                     zh = "有独立的计算（指令级并行）时，一个 warp 的速度至少快一倍" },
               L.text_both("%.1f vs %.1f GFLOP/s per SM", "每个 SM %.1f 对 %.1f GFLOP/s", f8[1], f1[1]))
      if n >= 6 then
        L.expect(L.f8_w80 and L.f1_w80 and L.f8_w80 < L.f1_w80, {
          en = "with ILP fewer warps reach 80% of the peak", zh = "有指令级并行时，更少的 warp 就能达到峰值的 80%" },
          L.text_both("8 chains: %s warps, 1 chain: %s warps", "8 条链：%s 个 warp，1 条链：%s 个 warp",
                      tostring(L.f8_w80), tostring(L.f1_w80)))
      end
    end,
    function(L)
      L.say{
        en = "Occupancy (warps resident per SM) is not a goal in itself: it is a way to have enough independent work "
          .. "in flight. Registers and shared memory per block limit it; lesson 6 trades some of it for reuse.",
        zh = "占用率（每个 SM 上驻留的 warp 数）本身不是目的，它只是让足够多的独立工作同时进行的手段。"
          .. "每个线程块用的寄存器和共享内存会限制它；第 6 课会用一部分占用率去换数据复用。",
      }
      -- the picture of that sentence: how many warps each kind of work needed (steps 2 and 3, and the real H200)
      local function w(v) return v or "-" end
      L.table{ title = { en = "Warps per SM needed for 80% of the best rate", zh = "达到最高速度 80% 需要的每 SM warp 数" },
               columns = { { en = "work", zh = "工作" }, { en = "simtlab (4-SM slice)", zh = "simtlab（4 个 SM 的切片）" },
                           { en = "H200 measured", zh = "H200 实测" } },
               rows = { { { en = "loads from DRAM (micro_stream)", zh = "从显存读取（micro_stream）" }, w(L.mem_w80),
                          first_reaching(REAL_W, REAL_GBS, 0.8) },
                        { { en = "1 dependent chain (micro_fma1)", zh = "1 条依赖链（micro_fma1）" }, w(L.f1_w80),
                          first_reaching(REAL_W, REAL_FMA1, 0.8) },
                        { { en = "8 independent chains (micro_fma8)", zh = "8 条独立链（micro_fma8）" }, w(L.f8_w80),
                          first_reaching(REAL_W, REAL_FMA8, 0.8) } },
               note = { en = "Different work needs different numbers of warps: the occupancy to aim for depends on the work.",
                        zh = "不同的工作需要的 warp 数不同：该追求多高的占用率，取决于做的是什么工作。" },
               alone = true }
    end,
  },
}
