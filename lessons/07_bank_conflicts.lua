-- Lesson 7: shared-memory bank conflicts (存储体冲突).
-- Shared memory is 32 banks of 4 bytes. Lane l reading word l x S puts
-- gcd(S, 32) lanes on the same bank: the access takes gcd(S, 32) passes
-- (wavefronts). Padding a row by one word (stride 33) removes them.

local STRIDES = { 1, 2, 4, 8, 16, 32, 33 }
-- reference/h200-measured.md "Shared-memory bank conflicts", ms
local H200_MS = { 0.076, 0.141, 0.274, 0.538, 1.081, 2.130, 0.076 }

local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end

return {
  meta = {
    number = 7,
    title = { en = "Bank conflicts", zh = "共享内存的存储体冲突" },
    concept = { en = "Shared memory serves 32 banks at once; lanes that hit the same bank wait for each other: time goes with gcd(stride, 32), and padding to 33 removes it.",
                zh = "共享内存有 32 个存储体（bank）可以同时服务；落在同一个 bank 上的通道只能排队：时间与 gcd(步长, 32) 成正比，补齐到 33 就没有冲突。" },
    minutes = 12,
    knobs = {
      { name = "iters", range = { 2, 64 }, default = 16, en = "loop trips (8 shared loads each)",
        zh = "循环次数（每次 8 个共享内存读取）" },
    },
  },
  steps = {
    function(L)
      L.say{
        en = "Shared memory is split into 32 banks; word w lives in bank w mod 32, and each bank delivers one word "
          .. "per pass. micro_bank: lane l of every warp reads word l x S again and again. With S = 1 the 32 lanes "
          .. "hit 32 different banks: one pass. With S = 2, lanes 0 and 16 both hit bank 0 ... Run it on one H200 SM "
          .. "with 32 warps for S = 1, 2, 4, 8, 16, 32 and 33.",
        zh = "共享内存分成 32 个存储体（bank）；第 w 个字在第 w mod 32 个 bank 里，每个 bank 每一轮只能送出一个字。"
          .. "micro_bank：每个 warp 的第 l 条通道反复读第 l x S 个字。S = 1 时 32 条通道落在 32 个不同的 bank 上：一轮就够。"
          .. "S = 2 时，通道 0 和通道 16 都落在 bank 0 上……我们在 H200 的一个 SM 上用 32 个 warp 跑 S = 1、2、4、8、16、32 和 33。",
      }
      -- those words as a table: the banks lanes 0-3 hit, and how many of the 32 lanes share the busiest bank
      local rows = {}
      for _, S in ipairs({ 1, 2, 8, 32, 33 }) do
        local per_bank, most = {}, 0
        for l = 0, 31 do
          local b = (l * S) % 32
          per_bank[b] = (per_bank[b] or 0) + 1
          most = math.max(most, per_bank[b])
        end
        rows[#rows + 1] = { S, string.format("%d, %d, %d, %d ...", 0, S % 32, (2 * S) % 32, (3 * S) % 32), most }
      end
      L.table{ title = { en = "One warp: lane l reads word l x S, in bank (l x S) mod 32",
                         zh = "一个 warp：第 l 条通道读第 l x S 个字，它在第 (l x S) mod 32 个 bank" },
               columns = { { en = "stride S", zh = "步长 S" }, { en = "banks of lanes 0, 1, 2, 3", zh = "通道 0、1、2、3 的 bank" },
                           { en = "lanes on the busiest bank (passes)", zh = "最忙的 bank 上的通道数（轮数）" } },
               rows = rows, alone = true }
    end,
    function(L)
      L.say{
        en = "One run per stride, on one H200 SM with 32 warps. Each point appears when its run finishes, beside the "
          .. "real H200's time (measured) and gcd(S, 32), the passes each access needs.",
        zh = "每个步长跑一次，在 H200 的一个 SM 上用 32 个 warp。每次运行结束，图上就出现一个点，旁边是真实 H200 的时间（实测）"
          .. "和 gcd(S, 32)，即每次访问需要的轮数。",
      }
      local g = L.gpu{ arch = "h200", sms = 1 }
      local iters = L.knob("iters")
      local cyc, wf, ratio, real, want = {}, {}, {}, {}, {}
      for i, S in ipairs(STRIDES) do
        real[i] = H200_MS[i] / H200_MS[1]
        want[i] = gcd(S, 32)
      end
      local c = L.chart{ name = "07_banks", live = true,
                         title = { en = "time relative to stride 1", zh = "相对步长 1 的时间" },
                         x_label = { en = "stride S (words)", zh = "步长 S（字）" },
                         y_label = { en = "time (x stride 1)", zh = "时间（步长 1 的倍数）" },
                         run_label = { en = "stride S = %s", zh = "步长 S = %s" }, x = STRIDES,
                         series = { { name = { en = "simtlab (1 H200 SM)", zh = "simtlab（H200 的 1 个 SM）" }, y = {} },
                                    { name = { en = "H200 measured", zh = "H200 实测" }, y = real, measured = true },
                                    { name = { en = "gcd(S, 32): passes per access", zh = "gcd(S, 32)：每次访问的轮数" },
                                      y = want } } }
      for i, S in ipairs(STRIDES) do
        local out = g:tensor{ 1024, name = "out" }
        -- the table is never written (only addresses matter): no checker for uninitialised reads
        local r = c:run(i, g, "micro_bank", { grid = 1, block = 1024, check = false }, S, iters, out)
        cyc[i], wf[i] = r.cycles, r.smem_wavefronts
        ratio[i] = cyc[i] / cyc[1]
        c:set(1, i, ratio[i])
      end
      c:done{ en = string.format("All 32 lanes on one bank (S = 32): %.0fx the time; one word of padding (S = 33) "
                                 .. "and it is 1x again.", ratio[6]),
              zh = string.format("32 条通道挤在一个 bank 上（S = 32）：时间 %.0f 倍；每行补一个字（S = 33），又回到 1 倍。",
                                 ratio[6]) }
      L.say{
        en = string.format("Stride 32 puts all 32 lanes on one bank: %.1fx the time of stride 1 (the real H200: %.1fx). "
          .. "Stride 33 (a row of 32 words padded by one) spreads them over all 32 banks again: %.2fx.",
          ratio[6], real[6], ratio[7]),
        zh = string.format("步长 32 让 32 条通道全挤在一个 bank 上：时间是步长 1 的 %.1f 倍（真实 H200：%.1f 倍）。"
          .. "步长 33（每行 32 个字再补一个）又把它们分散到全部 32 个 bank：%.2f 倍。", ratio[6], real[6], ratio[7]),
      }
      for i, S in ipairs(STRIDES) do
        L.expect(wf[i] == want[i] * wf[1], { en = "the passes (wavefronts) are gcd(S, 32) per access",
                                             zh = "每次访问的轮数（wavefront）是 gcd(S, 32)" },
                 string.format("S = %d: %d = %d x %d", S, wf[i], want[i], wf[1]))
        if S > 1 and S < 33 then
          L.expect(ratio[i] >= 0.8 * want[i] and ratio[i] <= 1.1 * want[i], {
            en = "time is in proportion to gcd(S, 32) (within 20%)", zh = "时间与 gcd(S, 32) 成正比（误差 20% 以内）" },
            string.format("S = %d: %.2fx, gcd %d", S, ratio[i], want[i]))
        end
      end
      L.expect(math.abs(ratio[7] - 1) < 0.02, { en = "stride 33 is as fast as stride 1: padding removes the conflicts",
                                                zh = "步长 33 和步长 1 一样快：补齐消除了冲突" },
               string.format("%.3fx", ratio[7]))
    end,
    function(L)
      L.say{
        en = "Where this bites: a 32 x 32 tile read down a column (a transpose, the B tile of a matrix multiply). "
          .. "The fix is one unused word per row: declare the tile 32 x 33. Exercise 7 "
          .. "(lessons/exercises/07_bank_conflicts.s): pad the shared array of a transpose. The table: with 32 words a row, "
          .. "every row of column 0 is in bank 0 (32 passes); with 33, row r is in bank r (one pass).",
        zh = "在哪里会遇到：按列读一个 32 x 32 的小块（矩阵转置、矩阵乘法里 B 的小块）。解决办法是每行多留一个不用的字："
          .. "把小块声明成 32 x 33。练习 7（lessons/exercises/07_bank_conflicts.s）：给一个转置核函数的共享数组补齐。"
          .. "看表：每行 32 个字时，第 0 列的每一行都在 bank 0（要 32 轮）；每行 33 个字时，第 r 行在 bank r（一轮就够）。",
      }
      -- the picture of those words: where column 0 of the tile lives, row by row (word = row x width, bank = word mod 32)
      local rows = {}
      for _, r in ipairs({ 0, 1, 2, 3, 31 }) do
        rows[#rows + 1] = { r, r * 32, (r * 32) % 32, r * 33, (r * 33) % 32 }
      end
      L.table{ title = { en = "Reading column 0 of a 32-row tile: which bank each row's word is in",
                         zh = "读一个 32 行小块的第 0 列：每一行的那个字在哪个 bank" },
               columns = { { en = "row", zh = "行" }, { en = "32 wide: word", zh = "每行 32 字：第几个字" },
                           { en = "bank", zh = "bank" }, { en = "33 wide: word", zh = "每行 33 字：第几个字" },
                           { en = "bank", zh = "bank" } },
               rows = rows, alone = true }
    end,
  },
}
