-- Lesson 5: coalescing (合并访存).
-- Memory moves in 32-byte sectors. When the 32 threads of a warp read 32
-- neighbouring floats, one request needs 4 sectors; spread them out and
-- every thread needs a sector of its own.

local STRIDES = { 1, 2, 4, 8, 16, 32 }

return {
  meta = {
    number = 5,
    title = { en = "Coalescing", zh = "合并访存" },
    concept = { en = "Neighbouring threads should read neighbouring addresses: then a warp's 32 loads share a few 32-byte sectors.",
                zh = "相邻的线程应该读相邻的地址：这样一个 warp 的 32 次读取只用到少数几个 32 字节的扇区。" },
    minutes = 12,
    knobs = {
      { name = "n", range = { 256, 16384 }, default = 4096, en = "elements copied", zh = "复制的元素个数" },
    },
  },
  steps = {
    function(L)
      L.say{
        en = "copy_strided copies n floats: thread i reads in[i x S] and writes out[i]. With S = 1 a warp reads 32 "
          .. "floats side by side, 128 bytes. With a larger S the same 32 useful floats lie far apart. Memory "
          .. "(L1, L2, DRAM) always moves whole 32-byte sectors, so count the sectors each warp request needs (the table counts them for a few strides).",
        zh = "copy_strided 复制 n 个浮点数：线程 i 读 in[i x S]，写 out[i]。S = 1 时一个 warp 读的是并排的 32 个数，"
          .. "共 128 字节。S 变大时，同样 32 个有用的数就分散得很开。内存（L1、L2、显存）每次都搬运完整的 32 字节扇区，"
          .. "所以要数一数每个 warp 的一次请求需要多少个扇区（表里替几个步长数好了）。",
      }
      -- the counting those words ask for, done by the lesson: lane l reads byte 4 x l x S; sector = byte // 32
      local rows = {}
      for _, S in ipairs({ 1, 2, 8, 32 }) do
        local seen, sectors = {}, 0
        for l = 0, 31 do
          local sec = (4 * l * S) // 32
          if not seen[sec] then seen[sec], sectors = true, sectors + 1 end
        end
        rows[#rows + 1] = { S, string.format("%d, %d, %d ...", 0, 4 * S, 8 * S), 4 * 31 * S + 4, sectors }
      end
      L.table{ title = { en = "One warp request: the bytes its 32 lanes read, counted in 32-byte sectors",
                         zh = "一次 warp 请求：32 条通道读的字节，按 32 字节扇区计数" },
               columns = { { en = "stride S", zh = "步长 S" }, { en = "lanes 0, 1, 2 read byte", zh = "通道 0、1、2 读的字节" },
                           { en = "bytes spanned", zh = "跨越的字节数" }, { en = "sectors", zh = "扇区数" } },
               rows = rows, alone = true }
    end,
    function(L)
      L.say{
        en = "Six copies of the same n floats, with strides S = 1, 2, 4 ... 32. Each point appears when its run finishes.",
        zh = "同样 n 个数复制六次，步长 S = 1、2、4……32。每次运行结束，图上就出现一个点。",
      }
      local n = L.knob("n")
      local g = L.gpu{ arch = "edu-tiny" }
      local per_req, us, dram, eff = {}, {}, {}, {}
      local c = L.chart{ name = "05_sectors", live = true,
                         title = { en = "32-byte sectors per warp request", zh = "每次 warp 请求的 32 字节扇区数" },
                         x_label = { en = "stride S (floats)", zh = "步长 S（个浮点数）" },
                         y_label = { en = "sectors per request", zh = "每次请求的扇区数" },
                         run_label = { en = "stride S = %s", zh = "步长 S = %s" }, log_x = true, x = STRIDES,
                         series = { { name = { en = "simtlab (edu-tiny)", zh = "simtlab（edu-tiny）" }, y = {} } } }
      for i, S in ipairs(STRIDES) do
        local A = g:tensor{ n * S, init = "random", seed = 1, name = "in" }
        local out = g:tensor{ n, name = "out" }
        local r = c:run(i, g, "copy_strided", { grid = (n + 127) // 128, block = 128 }, A, out, S, n)
        local warps = (n + 31) // 32
        per_req[i] = r.gld_sectors / warps
        c:set(1, i, per_req[i])
        us[i], dram[i] = r.time_us, r.dram_bytes
        eff[i] = 100 * (n * 4) / (r.gld_sectors * 32)
        if i == 1 then
          local v, a = out:to_table(), A:to_table()
          local ok = true
          for j = 1, n do if v[j] ~= a[(j - 1) * S + 1] then ok = false break end end
          L.expect(ok, { en = "the copy is correct", zh = "复制的结果正确" })
        end
      end
      c:done{ en = string.format("Spread out, the same 32 useful floats need %.0f sectors instead of %.0f: %.1fx the time.",
                                 per_req[#STRIDES], per_req[1], us[#STRIDES] / us[1]),
              zh = string.format("分散开以后，同样 32 个有用的数要 %.0f 个扇区，而不是 %.0f 个：时间是 %.1f 倍。",
                                 per_req[#STRIDES], per_req[1], us[#STRIDES] / us[1]) }
      L.sweep = { per_req = per_req, us = us, eff = eff, dram = dram }
      L.say{
        en = string.format("S = 1: %.0f sectors per request, %.0f%% of the bytes moved are used, %s. S = 32: %.0f "
          .. "sectors, %.1f%% used, %s (%.1fx slower) for exactly the same useful data.", per_req[1], eff[1],
          L.fmt_us(us[1]), per_req[#STRIDES], eff[#STRIDES], L.fmt_us(us[#STRIDES]), us[#STRIDES] / us[1]),
        zh = string.format("S = 1：每次请求 %.0f 个扇区，搬运的字节 %.0f%% 有用，用时 %s。S = 32：%.0f 个扇区，只有 %.1f%% 有用，"
          .. "用时 %s（慢 %.1f 倍），而有用的数据一模一样。", per_req[1], eff[1], L.fmt_us(us[1]), per_req[#STRIDES],
          eff[#STRIDES], L.fmt_us(us[#STRIDES]), us[#STRIDES] / us[1]),
      }
      for i, S in ipairs(STRIDES) do
        local want = math.min(32, 4 * S)
        L.expect(math.abs(per_req[i] - want) < 0.01, {
          en = "a warp request needs min(32, 4 x S) sectors", zh = "一次 warp 请求需要 min(32, 4 x S) 个扇区" },
          string.format("S = %d: %.2f", S, per_req[i]))
      end
      L.expect(us[#STRIDES] > 2 * us[1], { en = "the uncoalesced copy is more than twice as slow",
                                           zh = "不合并的复制慢了一倍以上" },
               string.format("%.1f vs %.1f us", us[#STRIDES], us[1]))
      L.expect(dram[#STRIDES] > 4 * dram[1], { en = "and it moves several times the DRAM bytes",
                                               zh = "而且从显存搬运的字节多好几倍" },
               string.format("%d vs %d bytes", dram[#STRIDES], dram[1]))
    end,
    function(L)
      local rows = {}
      for i, S in ipairs(STRIDES) do
        rows[i] = { S, L.sweep.per_req[i], string.format("%.1f%%", L.sweep.eff[i]), L.fmt_us(L.sweep.us[i]),
                    L.commas(L.sweep.dram[i]) }
      end
      L.table{ title = { en = "The sweep of step 2", zh = "第 2 步的测量" },
               columns = { { en = "stride S", zh = "步长 S" }, { en = "sectors per request", zh = "每次请求的扇区" },
                           { en = "bytes used", zh = "有用的字节" }, { en = "time", zh = "时间" },
                           { en = "DRAM bytes", zh = "显存字节" } },
               rows = rows, alone = true,   -- no run in this step: the table takes the whole body
               note = { en = "Same useful data, every row: only the pattern of the addresses changed.",
                        zh = "每一行有用的数据都一样：变的只是地址的排列方式。" } }
      L.say{
        en = "The rule for a kernel author: let threadIdx.x (the fastest-changing thread index) walk along the "
          .. "fastest-changing array index. Exercise 5 (lessons/exercises/05_coalescing.s): a kernel walks a matrix "
          .. "down its columns; make it walk along the rows.",
        zh = "写核函数的规则：让 threadIdx.x（变化最快的线程下标）沿着数组里变化最快的下标走。练习 5"
          .. "（lessons/exercises/05_coalescing.s）：一个核函数沿着矩阵的列往下走，把它改成沿着行走。",
      }
    end,
  },
}
