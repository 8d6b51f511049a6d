-- Lesson 2: warps and SIMT (单指令多线程).
-- 32 lanes share one instruction: the GPU counts its work in warps, so 33
-- threads cost as many instructions as 64, and an SM holds a limited
-- number of warps at once.

-- the simulator's names for what limits occupancy, in Chinese
local LIMIT_ZH = { ["blocks per SM"] = "每个 SM 的线程块数", ["threads per SM"] = "每个 SM 的线程数",
                   ["registers"] = "寄存器", ["shared memory"] = "共享内存" }

return {
  meta = {
    number = 2,
    title = { en = "Warps and SIMT", zh = "线程束（warp）与 SIMT" },
    concept = { en = "A GPU issues one instruction for 32 threads at once (a warp): work is counted in warps, not threads.",
                zh = "GPU 一条指令同时驱动 32 个线程（一个 warp）：工作量按 warp 计，而不是按线程计。" },
    minutes = 10,
    knobs = {
      { name = "threads", range = { 1, 256 }, default = 33, en = "threads in the block of the second launch",
        zh = "第二次启动时一个线程块里的线程数" },
    },
  },
  steps = {
    function(L)
      L.say{
        en = "A GPU thread is not a core. An SM's scheduler picks a warp (32 threads) and issues ONE instruction "
          .. "that all 32 lanes execute together. This is SIMT, single instruction, multiple threads. On the stage the 32 lanes of a warp light up together. We run the "
          .. "same arithmetic kernel (micro_fma8: 8 independent multiply-add chains per thread) on edu-tiny with "
          .. "one block of 32 threads, then with the knob's number of threads, then with 64.",
        zh = "GPU 的“线程”不是一个核心。SM 里的调度器挑出一个 warp（32 个线程），发出“一条”指令，32 条通道一起执行：这就是单指令多线程（SIMT）。"
          .. "在舞台上可以看到一个 warp 的 32 条通道同时亮起。我们在 edu-tiny 上运行同一个算术核函数（micro_fma8："
          .. "每个线程 8 条互不依赖的乘加链），先用一个 32 线程的线程块，再用参数 threads 给的线程数，最后用 64 个线程。",
      }
    end,
    function(L)
      local g = L.gpu{ arch = "edu-tiny" }
      local T = L.knob("threads")
      L.say{
        en = string.format("Three launches of one block: 32 threads, %d threads, 64 threads. Watch the rows of SM 0: a "
          .. "row is a warp, a cell one of its 32 lanes; hollow cells are lanes with no thread (lane off).", T),
        zh = string.format("三次启动，每次一个线程块：32 个线程、%d 个线程、64 个线程。看 SM 0 的每一行：一行是一个 warp，"
          .. "一个小格是它的 32 条通道之一；空心的小格是没有线程的通道（图例中的“未用的通道”）。", T),
      }
      local rs, rows = {}, {}
      for _, t in ipairs{ 32, T, 64 } do
        local out = g:tensor{ t, name = "out" }
        L.label{ en = string.format("threads = %d", t), zh = string.format("线程数 = %d", t) }
        -- show = false: its output is a checksum; pace: a 1 µs run lasts about two seconds on the stage
        local r = L.run(g, "micro_fma8", { grid = 1, block = t, show = false, pace = 0.5 }, 8, out)
        rs[#rs + 1] = r
        rows[#rows + 1] = { t, (t + 31) // 32, r.warp_instrs, r.thread_instrs, string.format("%.0f%%", 100 * r.lane_utilisation) }
        L.table{ title = { en = "one block, three sizes", zh = "一个线程块，三种大小" },
                 columns = { { en = "threads", zh = "线程数" }, { en = "warps", zh = "warp 数" },
                             { en = "warp instructions", zh = "warp 指令" }, { en = "thread instructions", zh = "线程指令" },
                             { en = "lanes busy", zh = "干活的通道" } },
                 rows = rows, note = #rows == 3 and { en = "The cost is counted in warps: a warp with one thread costs a whole warp.",
                                                      zh = "开销按 warp 计：只有一个线程的 warp 也要花一整个 warp 的指令。" } or nil }
      end
      L.label(nil)
      local r32, rT, r64 = rs[1], rs[2], rs[3]
      local warps = (T + 31) // 32
      L.say{
        en = string.format("32 threads: %s warp instructions, %s thread instructions (%.0f%% of the lanes busy). "
          .. "%d threads: %d warp%s, %s warp instructions, %.0f%% of the lanes busy. 64 threads: %s warp "
          .. "instructions. The hardware pays per warp: a warp with one live thread costs as much as a full one.",
          L.commas(r32.warp_instrs), L.commas(r32.thread_instrs), 100 * r32.lane_utilisation, T, warps,
          warps == 1 and "" or "s", L.commas(rT.warp_instrs), 100 * rT.lane_utilisation, L.commas(r64.warp_instrs)),
        zh = string.format("32 个线程：%s 条 warp 指令，%s 条线程指令（%.0f%% 的通道在干活）。%d 个线程：%d 个 warp，"
          .. "%s 条 warp 指令，%.0f%% 的通道在干活。64 个线程：%s 条 warp 指令。硬件按 warp 付账：只有一个线程在干活的 warp，"
          .. "和满员的 warp 花的指令一样多。", L.commas(r32.warp_instrs), L.commas(r32.thread_instrs),
          100 * r32.lane_utilisation, T, warps, L.commas(rT.warp_instrs), 100 * rT.lane_utilisation,
          L.commas(r64.warp_instrs)),
      }
      L.expect(r32.lane_utilisation >= 0.99, {
        en = "one warp instruction does the work of 32 threads", zh = "一条 warp 指令完成 32 个线程的工作" },
        L.text_both("%d thread instructions / %d warp instructions = %.2f", "%d 条线程指令 / %d 条 warp 指令 = %.2f",
                    r32.thread_instrs, r32.warp_instrs,
                      r32.thread_instrs / r32.warp_instrs))
      L.expect(rT.warp_instrs == warps * r32.warp_instrs, {
        en = "the cost in warp instructions is the number of warps, ceil(threads / 32), times one warp's",
        zh = "warp 指令数 = warp 的个数 ceil(线程数 / 32) 乘以一个 warp 的指令数" },
        L.text_both("%d threads: %d = %d x %d", "%d 个线程：%d = %d x %d", T, rT.warp_instrs, warps, r32.warp_instrs))
      L.expect(r64.warp_instrs == 2 * r32.warp_instrs, { en = "64 threads are two warps", zh = "64 个线程就是两个 warp" })
    end,
    function(L)
      L.say{
        en = "How many warps fit on one SM at a time? 16 blocks of 128 threads (4 warps each) on edu-tiny's 2 SMs.",
        zh = "一个 SM 同时能放多少个 warp？在 edu-tiny 的 2 个 SM 上启动 16 个 128 线程的线程块（每块 4 个 warp）。",
      }
      local g = L.gpu{ arch = "edu-tiny" }
      local d = g.desc
      local out = g:tensor{ 16 * 128, name = "out" }
      local r = L.run(g, "micro_fma8", { grid = 16, block = 128, show = false, pace = 4 }, 8, out)   -- about 2.5 s on the stage
      local limit = d.max_threads_per_sm // 32
      local h = simt.gpu{ arch = "h200" }.desc
      local hw, hs, ht = h.max_threads_per_sm // 32, h.sms, h.max_threads_per_sm
      L.say{
        en = string.format("How many warps fit on one SM at a time? edu-tiny allows %d threads per SM, that is %d "
          .. "warps. Launching 16 blocks of 128 threads (4 warps each), each SM held %d warps (%d blocks) at once "
          .. "(occupancy %.0f%%: the warps an SM holds against the most it can hold; limited by %s); the other blocks waited for a free slot. An H200 SM holds up to "
          .. "64 warps: 132 SMs x 2,048 threads = 270,336 threads in flight.", d.max_threads_per_sm, limit,
          r.warps_per_sm, r.blocks_per_sm, 100 * r.occupancy, tostring(r.occupancy_limit)),
        zh = string.format("一个 SM 同时能放多少个 warp？edu-tiny 每个 SM 最多 %d 个线程，也就是 %d 个 warp。"
          .. "启动 16 个 128 线程的线程块（每块 4 个 warp），每个 SM 同时放了 %d 个 warp（%d 个块），占用率 %.0f%%"
          .. "（占用率：SM 上驻留的 warp 数占它最多能放的 warp 数的比例；受限于%s）；其余的块排队等空位。H200 的一个 SM 最多放 %d 个 warp：%d 个 SM x %s 个线程 = "
          .. "%s 个线程同时在跑。", d.max_threads_per_sm, limit, r.warps_per_sm, r.blocks_per_sm,
          100 * r.occupancy, LIMIT_ZH[r.occupancy_limit] or tostring(r.occupancy_limit), hw, hs, L.commas(ht),
          L.commas(hs * ht)),
      }
      L.expect(r.warps_per_sm <= limit and r.warps_per_sm == r.blocks_per_sm * 4, {
        en = "an SM holds whole blocks, never more warps than its limit", zh = "SM 按整个线程块装入，warp 数不超过上限" },
        L.text_both("%d warps per SM, limit %d", "每个 SM %d 个 warp，上限 %d", r.warps_per_sm, limit))
    end,
  },
}
