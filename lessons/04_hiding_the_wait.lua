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
                zh = "SM 在等内存的时候切换去运行别的 warp，把等待藏起来：访存需要很多 warp 同时在飞，有独立计算的算术只需要很少。" },
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
          .. "more when its memory channel is busy refreshing (measured on a real H200: 672 on average). While one warp waits, the scheduler issues from another. We run three kernels "
          .. "with 1, 2, 4 ... warps per SM: micro_stream (streaming loads), micro_fma1 (one chain of dependent "
          .. "multiply-adds per thread) and micro_fma8 (eight independent chains). To keep it quick we use %d of "
          .. "the H200's %d SMs and give them %d/%d of its DRAM bandwidth and of its memory channels (%d of %d), "
          .. "so that each SM has its real share.",
          d.lat_dram, SMS, H200_SMS, SMS, H200_SMS, SHARE.dram_channels, d.dram_channels),
        zh = string.format("一次没命中缓存的全局内存读取，在 H200 模型上要等大约 %d 个周期，碰上正在刷新的显存通道时还要多等一会儿"
          .. "（真实 H200 实测平均 672）。"
          .. "一个 warp 在等，调度器就去发射另一个 warp 的指令。我们让每个 SM 分别跑 1、2、4……个 warp，运行三个内核："
          .. "micro_stream（连续读内存）、micro_fma1（每个线程一条相互依赖的乘加链）和 micro_fma8（八条互不依赖的链）。"
          .. "为了跑得快，我们只用 H200 %d 个 SM 中的 %d 个，并给它们 %d/%d 的显存带宽和显存通道（%d 个中的 %d 个），"
          .. "让每个 SM 分到真实的份额。",
          d.lat_dram, H200_SMS, SMS, SMS, H200_SMS, d.dram_channels, SHARE.dram_channels),
      }
    end,
    function(L)
      local g = simt.gpu{ arch = "h200", sms = SMS, dram_gbps = SHARE.dram_gbps, dram_channels = SHARE.dram_channels }
      local maxw = L.knob("warps")
      local ws, gbs, f1, f8, real_gbs, real_f1, real_f8 = {}, {}, {}, {}, {}, {}, {}
      for i, W in ipairs(REAL_W) do
        if W > maxw then break end
        local grid, block = SMS, 32 * W
        if W > 32 then grid, block = SMS * W // 32, 1024 end    -- as measured: 2 blocks of 1,024 per SM
        local threads, iters = grid * block, 8
        local A = g:tensor{ threads * 4 * iters, init = "zeros", name = "A" }
        local out = g:tensor{ threads, name = "out" }
        local cfg = { grid = grid, block = block }
        local rs = L.run(g, "micro_stream", cfg, A, iters, out)
        local r1 = L.run(g, "micro_fma1", cfg, 8, out)
        local r8 = L.run(g, "micro_fma8", cfg, 4, out)
        ws[i] = W
        gbs[i] = rs.dram_gbs / SMS
        f1[i], f8[i] = r1.tflops * 1000 / SMS, r8.tflops * 1000 / SMS
        real_gbs[i] = REAL_GBS[i] / H200_SMS
        real_f1[i], real_f8[i] = REAL_FMA1[i] * 1000 / H200_SMS, REAL_FMA8[i] * 1000 / H200_SMS
      end
      L.chart{ name = "04_memory", title = { en = "DRAM read GB/s per SM", zh = "每个 SM 的显存读带宽 GB/s" },
               x_label = { en = "warps per SM", zh = "每个 SM 的 warp 数" }, log_x = true, x = ws,
               series = { { name = "simtlab", y = gbs }, { name = "H200 measured", y = real_gbs } } }
      L.chart{ name = "04_fma", title = { en = "FMA GFLOP/s per SM", zh = "每个 SM 的 FMA GFLOP/s" },
               x_label = { en = "warps per SM", zh = "每个 SM 的 warp 数" }, log_x = true, x = ws,
               series = { { name = "1 chain", y = f1 }, { name = "8 chains", y = f8 },
                          { name = "H200 1 chain", y = real_f1 }, { name = "H200 8 chains", y = real_f8 } } }
      local n = #ws
      L.mem_w80 = first_reaching(ws, gbs, 0.8)
      L.f1_w80, L.f8_w80 = first_reaching(ws, f1, 0.8), first_reaching(ws, f8, 0.8)
      -- Little's law backwards: the cycles one warp's 512-byte load took =
      -- bytes in flight per SM / bytes per cycle per SM
      local mhz = g.desc.clock_mhz
      local function wait_cycles(i, v) return ws[i] * 512 / (v[i] * 1000 / mhz) end
      local wait_en, wait_zh = "", ""
      if n >= 6 then
        L.wait1, L.wait32 = wait_cycles(1, gbs), wait_cycles(6, gbs)
        local real1, real32 = wait_cycles(1, real_gbs), wait_cycles(6, real_gbs)
        wait_en = string.format(" Each load waited %.0f cycles with 1 warp, %.0f with 32 (Little's law; the real "
          .. "H200: %.0f, %.0f): the busier the memory, the longer the wait, as each channel pauses now and then to "
          .. "refresh and loads queue behind the pause.", L.wait1, L.wait32, real1, real32)
        wait_zh = string.format("每次读取在 1 个 warp 时等 %.0f 个周期，32 个 warp 时等 %.0f 个（利特尔定律；真实 H200："
          .. "%.0f、%.0f）：显存越忙，等得越久，因为每个通道时不时要停下来刷新，读取在停顿后面排队。",
          L.wait1, L.wait32, real1, real32)
      end
      L.say{
        en = string.format("Memory: %.1f GB/s per SM with 1 warp, %.1f with %d (the real H200: %.1f and %.1f). Each "
          .. "warp keeps only so many bytes in flight, so bandwidth grows with the warps until the memory itself is "
          .. "the limit.%s Arithmetic: with one dependent chain a warp waits for its own last result; it took %d warps "
          .. "to reach 80%% of the best rate. With 8 independent chains each warp always has work: %d warps were "
          .. "enough (the real H200 shows the same: 8 warps reach 55.9 of 60 TFLOP/s with 8 chains, 21.5 with one).",
          gbs[1], gbs[n], ws[n], real_gbs[1], real_gbs[n], wait_en, L.f1_w80 or -1, L.f8_w80 or -1),
        zh = string.format("访存：1 个 warp 时每个 SM %.1f GB/s，%d 个 warp 时 %.1f GB/s（真实 H200：%.1f 和 %.1f）。"
          .. "每个 warp 同时在路上的字节有限，所以带宽随 warp 数增长，直到内存本身成为瓶颈。%s算术：只有一条依赖链时，"
          .. "warp 要等自己的上一个结果；要 %d 个 warp 才能达到最高速度的 80%%。有 8 条独立链时，每个 warp 总有活干："
          .. "%d 个 warp 就够了（真实 H200 也一样：8 个 warp 时 8 条链达到 55.9/60 TFLOP/s，1 条链只有 21.5）。",
          gbs[1], ws[n], gbs[n], real_gbs[1], real_gbs[n], wait_zh, L.f1_w80 or -1, L.f8_w80 or -1),
      }
      if n >= 5 then
        L.expect(gbs[5] >= 8 * gbs[1], { en = "16 warps move at least 8x the bytes of one warp",
                                         zh = "16 个 warp 搬运的字节至少是 1 个 warp 的 8 倍" },
                 string.format("%.1f vs %.1f GB/s per SM", gbs[5], gbs[1]))
      end
      if n >= 6 then
        L.expect(L.wait32 >= 1.2 * L.wait1, { en = "a load waits longer when 32 warps share the memory than when one does",
                                               zh = "32 个 warp 共用显存时，每次读取比只有 1 个 warp 时等得更久" },
                 string.format("%.0f vs %.0f cycles", L.wait32, L.wait1))
      end
      for i = 2, n do
        L.expect(gbs[i] >= gbs[i - 1], { en = "more warps never lower the bandwidth", zh = "warp 越多，带宽不会变低" },
                 string.format("%d warps: %.1f GB/s", ws[i], gbs[i]))
      end
      L.expect(f8[1] >= 2 * f1[1], { en = "with independent work (ILP) one warp computes at least twice as fast",
                                     zh = "有独立的计算（指令级并行）时，一个 warp 的速度至少快一倍" },
               string.format("%.1f vs %.1f GFLOP/s per SM", f8[1], f1[1]))
      if n >= 6 then
        L.expect(L.f8_w80 and L.f1_w80 and L.f8_w80 < L.f1_w80, {
          en = "with ILP fewer warps reach 80% of the peak", zh = "有指令级并行时，更少的 warp 就能达到峰值的 80%" },
          string.format("8 chains: %s warps, 1 chain: %s warps", tostring(L.f8_w80), tostring(L.f1_w80)))
      end
    end,
    function(L)
      L.say{
        en = "Occupancy (warps resident per SM) is not a goal in itself: it is a way to have enough independent work "
          .. "in flight. Registers and shared memory per block limit it; lesson 6 trades some of it for reuse.",
        zh = "占用率（每个 SM 上驻留的 warp 数）本身不是目的，它只是让足够多的独立工作同时在飞的手段。"
          .. "每个线程块用的寄存器和共享内存会限制它；第 6 课会用一部分占用率去换数据复用。",
      }
    end,
  },
}
