-- Lesson 3: divergence (分支发散).
-- The lanes of a warp split into P groups that take P different branches:
-- the warp runs the paths one after another, so the time grows with P.

local PATHS = { 1, 2, 4, 8, 16, 32 }
-- reference/h200-measured.md "SIMT divergence", time in ms for P = 1 .. 32
local H200_MS = { 0.078, 0.148, 0.287, 0.568, 1.126, 2.241 }

return {
  meta = {
    number = 3,
    title = { en = "Divergence", zh = "分支发散" },
    concept = { en = "When the threads of one warp take different branches, the warp runs every branch in turn: time grows with the number of paths.",
                zh = "同一个 warp 里的线程走不同的分支时，warp 只能把每条分支轮流跑一遍：路径越多，时间越长。" },
    minutes = 12,
    knobs = {
      { name = "paths", range = { 1, 32 }, default = 32, en = "paths per warp for the stage run",
        zh = "舞台上那次运行每个 warp 的分支数" },
    },
  },
  steps = {
    function(L)
      L.say{
        en = "micro_diverge splits the 32 lanes of each warp into P groups (group = lane mod P); each group runs the "
          .. "same loop of multiply-adds, but in its own branch. The useful work per thread is the same for every P. "
          .. "What happens to the time?",
        zh = "micro_diverge 把每个 warp 的 32 条通道分成 P 组（组号 = 通道号 mod P）；每组跑同样的乘加循环，"
          .. "但各走各的分支。无论 P 是多少，每个线程的有效工作量都一样。时间会怎样变化？",
      }
      local g = L.gpu{ arch = "edu-tiny" }
      local P = L.knob("paths")
      local out = g:tensor{ 64, name = "out" }
      -- show = false: its output is a checksum (a grey square until the end); the lanes are the point
      L.label{ en = string.format("paths = %d", P), zh = string.format("路径数 = %d", P) }
      local r = L.run(g, "micro_diverge", { grid = 1, block = 64, show = false }, P, 64, out)
      L.label(nil)
      L.say{
        en = string.format("With P = %d: %s cycles, %.0f%% of the lanes busy on average.", P, L.commas(r.cycles),
                           100 * r.lane_utilisation),
        zh = string.format("P = %d 时：%s 个周期，平均只有 %.0f%% 的通道在干活。", P, L.commas(r.cycles),
                           100 * r.lane_utilisation),
      }
    end,
    function(L)
      L.say{
        en = "Now P = 1, 2, 4, 8, 16 and 32, one run each. Each point appears when its run finishes, beside the real "
          .. "H200's time for the same P (measured).",
        zh = "现在 P = 1、2、4、8、16、32 各跑一次。每次运行结束，图上就出现一个点，旁边是真实 H200 在同样 P 下的时间（实测）。",
      }
      local g = L.gpu{ arch = "edu-tiny" }
      local cyc, ratio, util = {}, {}, {}
      local real = {}
      for i = 1, #PATHS do real[i] = H200_MS[i] / H200_MS[1] end
      local c = L.chart{ name = "03_divergence", live = true,
                         title = { en = "time relative to one path", zh = "相对一条路径的时间" },
                         x_label = { en = "paths P per warp", zh = "每个 warp 的路径数 P" },
                         y_label = { en = "time (x the time of P = 1)", zh = "时间（P = 1 时的倍数）" },
                         run_label = { en = "paths = %s", zh = "路径数 = %s" },
                         log_x = true, x = PATHS, series = { { name = { en = "simtlab (edu-tiny)", zh = "simtlab（edu-tiny）" }, y = {} },
                                               { name = { en = "H200 measured", zh = "H200 实测" }, y = real,
                                                 measured = true } } }
      for i, P in ipairs(PATHS) do
        local out = g:tensor{ 64, name = "out" }
        local r = c:run(i, g, "micro_diverge", { grid = 1, block = 64, show = false }, P, 64, out)
        cyc[i], util[i] = r.cycles, r.lane_utilisation
        ratio[i] = r.cycles / cyc[1]
        c:set(1, i, ratio[i])
      end
      L.cyc, L.util = cyc, util
      c:done{ en = string.format("A warp runs its paths one after another: 32 paths take %.0fx the time of one "
                                 .. "(the real H200: %.0fx).", ratio[#PATHS], real[#PATHS]),
              zh = string.format("warp 把各条路径一条接一条地跑：32 条路径的时间是 1 条的 %.0f 倍（真实 H200：%.0f 倍）。",
                                 ratio[#PATHS], real[#PATHS]) }
      L.say{
        en = string.format("Time grows with the number of paths: 32 paths take %.1fx as long as one (the real H200, "
          .. "measured: %.1fx). Each warp runs path 0 with only its lanes switched on, then path 1, and so on; the "
          .. "lanes of the other paths wait. Busy lanes fall from %.0f%% to %.0f%%.", ratio[#PATHS], real[#PATHS],
          100 * util[1], 100 * util[#PATHS]),
        zh = string.format("时间随路径数增长：32 条路径用的时间是 1 条路径的 %.1f 倍（真实 H200 实测：%.1f 倍）。"
          .. "每个 warp 先只打开走路径 0 的通道跑一遍，再跑路径 1，依此类推；其他路径的通道只能等着。"
          .. "干活的通道比例从 %.0f%% 降到 %.0f%%。", ratio[#PATHS], real[#PATHS], 100 * util[1], 100 * util[#PATHS]),
      }
      for i, P in ipairs(PATHS) do
        L.expect(math.abs(ratio[i] - P) <= 0.15 * P, {
          en = "time is in proportion to the number of paths (within 15%)",
          zh = "时间与路径数成正比（误差 15% 以内）" }, L.text_both("P = %d: %.2fx", "P = %d：%.2f 倍", P, ratio[i]))
      end
      L.expect(util[#PATHS] < util[1] / 16, { en = "with 32 paths almost every lane idles",
                                              zh = "32 条路径时几乎所有通道都在闲着" })
    end,
    function(L)
      L.say{
        en = "The cure is not fewer branches but branches that split whole warps: if all 32 lanes of a warp agree, "
          .. "the warp runs one path and the others cost nothing. Exercise 3 (lessons/exercises/03_divergence.s): "
          .. "rewrite a kernel so that each warp takes one side of its branch.",
        zh = "解决办法不是少写分支，而是让分支按整个 warp 来分：一个 warp 的 32 条通道意见一致，warp 就只跑一条路径，"
          .. "另一条路径不花任何时间。练习 3（lessons/exercises/03_divergence.s）：改写一个核函数，让每个 warp 只走分支的一边。",
      }
      -- the picture of that sentence: what the run cost in step 2 when its lanes agreed and when they split 32 ways
      if L.cyc then
        local n = #PATHS
        local function pct(u) return string.format("%.0f%%", 100 * u) end
        L.table{ title = { en = "What the run cost in step 2 (64 threads, 2 warps)", zh = "第 2 步里运行的代价（64 个线程，2 个 warp）" },
                 columns = { { en = "the warp's lanes", zh = "warp 的通道" }, { en = "cycles", zh = "周期数" },
                             { en = "lanes busy", zh = "干活的通道" } },
                 rows = { { { en = "all agree (P = 1)", zh = "意见一致（P = 1）" }, L.cyc[1], pct(L.util[1]) },
                          { { en = string.format("split %d ways (P = %d)", PATHS[n], PATHS[n]),
                              zh = string.format("分成 %d 路（P = %d）", PATHS[n], PATHS[n]) }, L.cyc[n], pct(L.util[n]) } },
                 note = { en = "Branches that split whole warps keep every warp in the first row.",
                          zh = "按整个 warp 分开的分支，让每个 warp 都留在第一行。" },
                 alone = true }
      end
    end,
  },
}
