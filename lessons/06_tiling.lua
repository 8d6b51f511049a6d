-- Lesson 6: shared-memory tiling (共享内存分块).
-- A matrix multiply reads every element of A and B n times. A block that
-- loads a 16 x 16 tile into shared memory once and reuses it 16 times cuts
-- the global-memory traffic 16-fold.

local W = require("workloads")

-- the two kernels' measurements side by side (steps 2 and 4), on the stage and on stdout
local function versus_table(L, name, title, rn, rt, note)
  local function kb(b) return L.commas(b / 1024) .. " KB" end
  L.table{ name = name, title = title,
           columns = { { en = "kernel", zh = "核函数" }, { en = "time", zh = "时间" },
                       { en = "global loads", zh = "全局内存读取" }, { en = "shared loads", zh = "共享内存读取" },
                       { en = "DRAM", zh = "显存" } },
           rows = { { "matmul_naive", L.fmt_us(rn.time_us), kb(rn.gld_bytes), kb(rn.sld_bytes), kb(rn.dram_bytes) },
                    { "matmul_tiled16", L.fmt_us(rt.time_us), kb(rt.gld_bytes), kb(rt.sld_bytes), kb(rt.dram_bytes) } },
           note = note }
end

return {
  meta = {
    number = 6,
    title = { en = "Shared-memory tiling", zh = "共享内存分块（tiling）" },
    concept = { en = "Load a tile once into fast shared memory and reuse it many times: global-memory traffic falls, time falls.",
                zh = "把一小块数据读进高速的共享内存一次，反复使用：全局内存流量下降，时间也下降。" },
    minutes = 15,
    knobs = {
      { name = "n", range = { 16, 256 }, default = 128, en = "matrix size n", zh = "矩阵大小 n" },
    },
  },
  steps = {
    function(L)
      L.say{
        en = "matmul_naive: each thread computes one element of C and reads a whole row of A and a whole column "
          .. "of B from global memory, so every element of A and B is loaded n times. matmul_tiled16: each block "
          .. "of 16 x 16 threads copies a 16 x 16 tile of A and one of B into shared memory (one element per "
          .. "thread), waits at bar.sync until the tiles are complete, multiplies them out of shared memory, and "
          .. "waits again before the next copy overwrites them.",
        zh = "matmul_naive：每个线程算 C 的一个元素，从全局内存读 A 的一整行和 B 的一整列，所以 A 和 B 的每个元素都被读了 n 次。"
          .. "matmul_tiled16：每个 16 x 16 线程的线程块把 A 和 B 各一块 16 x 16 的小块拷进共享内存（每个线程拷一个元素），"
          .. "在 bar.sync 处等小块拷完，再从共享内存里做乘法，下一次拷贝覆盖之前还要再等一次。",
      }
    end,
    function(L)
      local n = L.knob("n")
      L.say{
        en = string.format("Both kernels multiply the same two %d x %d matrices on edu-tiny: first the naive one, "
          .. "then the tiled one. Watch the L1 / shared bar and the warps waiting at the barrier.", n, n),
        zh = string.format("两个核函数在 edu-tiny 上计算同样两个 %d x %d 矩阵的乘积：先朴素版，再分块版。"
          .. "注意 L1 / 共享内存的条形和在屏障处等待的 warp。", n, n),
      }
      local g = L.gpu{ arch = "edu-tiny" }
      L.label{ en = "naive", zh = "朴素版" }
      local rn = W.matmul(g, "matmul_naive", n)
      L.label{ en = "tiled, 16 x 16", zh = "分块版，16 x 16" }
      local rt = W.matmul(g, "matmul_tiled16", n)
      L.label(nil)
      L.expect(rn.ok and rt.ok, { en = "both kernels compute C = A x B correctly", zh = "两个核函数都正确算出 C = A x B" },
               string.format("largest error %.2g, %.2g", rn.max_err, rt.max_err))
      L.step2 = { n = n, sms = g.desc.sms, bw = g.desc.dram_gbps, mhz = g.desc.clock_mhz, rn = rn, rt = rt }
      local ratio = rn.gld_bytes / rt.gld_bytes
      versus_table(L, "06_tiling", { en = "naive against tiled", zh = "朴素版对分块版" }, rn, rt,
                   { en = string.format("Tiling: %.1fx fewer global loads, %.1fx faster.", ratio, rn.time_us / rt.time_us),
                     zh = string.format("分块：全局内存读取少 %.1f 倍，快 %.1f 倍。", ratio, rn.time_us / rt.time_us) })
      local same = rt.dram_bytes > 0.9 * rn.dram_bytes
      local fit_kb = 3 * n * n * 4 / 1024
      local dram_en = same and string.format(" DRAM traffic does not change here: the naive kernel's warps read "
          .. "the same row of B at about the same time, so the L2 (%s KB; A, B and C take %s KB) serves those "
          .. "re-reads. What tiling removes is the 16x load traffic into the caches and the load instructions. Step 4 "
          .. "tries matrices six times the L2.", L.commas(g.desc.l2_bytes / 1024), L.commas(fit_kb)) or ""
      local dram_zh = same and string.format("这里显存流量没有变：朴素版同一个线程块里的各个 warp 几乎同时读 B 的同一行，"
          .. "L2（%s KB；A、B、C 共 %s KB）接住了这些重复读取。分块省掉的，是进入缓存的 16 倍读取流量和读取指令。"
          .. "第 4 步试一试六倍于 L2 的矩阵。", L.commas(g.desc.l2_bytes / 1024), L.commas(fit_kb)) or ""
      L.say{
        en = string.format("n = %d on edu-tiny. Global loads: %s KB naive, %s KB tiled (%.1fx fewer); the reads moved "
          .. "to shared memory (%s KB) instead. DRAM: %s KB against %s KB. Time: %s against %s, the tiled kernel "
          .. "%.1fx faster.%s", n, L.commas(rn.gld_bytes / 1024), L.commas(rt.gld_bytes / 1024), ratio,
          L.commas(rt.sld_bytes / 1024), L.commas(rn.dram_bytes / 1024), L.commas(rt.dram_bytes / 1024),
          L.fmt_us(rn.time_us), L.fmt_us(rt.time_us), rn.time_us / rt.time_us, dram_en),
        zh = string.format("edu-tiny 上 n = %d。全局内存读取：朴素版 %s KB，分块版 %s KB（少了 %.1f 倍）；这些读取改到了共享内存里"
          .. "（%s KB）。显存：%s KB 对 %s KB。时间：%s 对 %s，分块版快 %.1f 倍。%s", n, L.commas(rn.gld_bytes / 1024),
          L.commas(rt.gld_bytes / 1024), ratio, L.commas(rt.sld_bytes / 1024), L.commas(rn.dram_bytes / 1024),
          L.commas(rt.dram_bytes / 1024), L.fmt_us(rn.time_us), L.fmt_us(rt.time_us), rn.time_us / rt.time_us, dram_zh),
      }
      if n >= 32 then
        L.expect(ratio > 12 and ratio < 17, { en = "a 16 x 16 tile cuts global loads about 16-fold",
                                              zh = "16 x 16 的分块让全局内存读取减少约 16 倍" },
                 string.format("%.1fx", ratio))
      end
      L.expect(rt.dram_bytes <= rn.dram_bytes, { en = "DRAM bytes do not rise", zh = "显存字节数没有增加" },
               string.format("%d vs %d", rt.dram_bytes, rn.dram_bytes))
      L.expect(rt.time_us < rn.time_us, { en = "the tiled kernel is faster than the naive one",
                                          zh = "分块版比朴素版快" },
               string.format("%.1f vs %.1f us", rt.time_us, rn.time_us))
    end,
    function(L)
      -- the same two CUDA sources as nvcc -O3 compiles them (kernel headers say how)
      local n = L.knob("n")
      local g = L.gpu{ arch = "edu-tiny" }
      -- step 2's runs if the class has just watched them on this same GPU and n
      -- (the knob keys may have changed the GPU since), else run them again
      local d, p = g.desc, L.step2 or {}
      local same = p.n == n and p.sms == d.sms and p.bw == d.dram_gbps and p.mhz == d.clock_mhz
      local rn = same and p.rn or W.matmul(g, "matmul_naive", n)
      local rt = same and p.rt or W.matmul(g, "matmul_tiled16", n)
      L.say{
        en = "Now the same two sources as the nvcc compiler turns them into (matmul_naive_cc, matmul_tiled16_cc).",
        zh = "再看同样两份源代码经 nvcc 编译器编译后的样子（matmul_naive_cc、matmul_tiled16_cc）。",
      }
      L.label{ en = "naive, compiled", zh = "朴素版，编译后" }
      local cn = W.matmul(g, "matmul_naive_cc", n)
      L.label{ en = "tiled, compiled", zh = "分块版，编译后" }
      local ct = W.matmul(g, "matmul_tiled16_cc", n)
      L.label(nil)
      L.expect(cn.ok and ct.ok, { en = "the compiled-like kernels compute C = A x B correctly",
                                  zh = "按编译器方式写的核函数也正确算出 C = A x B" },
               string.format("largest error %.2g, %.2g", cn.max_err, ct.max_err))
      local simple, compiled = rn.time_us / rt.time_us, cn.time_us / ct.time_us
      L.say{
        en = string.format("A compiler does part of this job for you. matmul_naive_cc is the same naive source as "
          .. "nvcc -O3 compiles it: the k loop unrolled by 4, so each thread has 8 loads in flight instead of 2, "
          .. "and fewer address instructions. It takes %s, %.1fx faster than the hand-written naive kernel (%s). "
          .. "Compiled the same way, the tiled kernel takes %s: tiling still wins, but by %.1fx, not %.1fx. So a "
          .. "claim \"tiled is N times faster than naive\" depends on which naive: compare compiled code with "
          .. "compiled code.", L.fmt_us(cn.time_us), rn.time_us / cn.time_us, L.fmt_us(rn.time_us),
          L.fmt_us(ct.time_us), compiled, simple),
        zh = string.format("编译器会替你做一部分工作。matmul_naive_cc 是同一份朴素源代码经 nvcc -O3 编译后的样子："
          .. "k 循环展开 4 次，每个线程同时发出 8 个读取（原来是 2 个），地址计算指令也更少。它用了 %s，"
          .. "比手写的朴素版（%s）快 %.1f 倍。分块版用同样的方式编译后用了 %s：分块依然更快，但只快 %.1f 倍，而不是 %.1f 倍。"
          .. "所以“分块比朴素版快 N 倍”这句话要看和哪个朴素版比：应该拿编译后的代码和编译后的代码比。",
          L.fmt_us(cn.time_us), L.fmt_us(rn.time_us), rn.time_us / cn.time_us, L.fmt_us(ct.time_us), compiled, simple),
      }
      L.expect(cn.time_us < rn.time_us, { en = "the compiled naive kernel is faster than the hand-written one",
                                          zh = "编译后的朴素版比手写的朴素版快" },
               string.format("%.1f vs %.1f us", cn.time_us, rn.time_us))
      L.expect(ct.time_us < cn.time_us and compiled < simple, {
        en = "compiled, tiling still wins, by less than between the simple kernels",
        zh = "编译后分块依然更快，但领先幅度比两个简单核函数之间小" },
        string.format("%.2fx compiled, %.2fx simple", compiled, simple))
    end,
    function(L)
      -- the caveat of step 2: a size whose matrices do not fit in the L2
      local big = 256
      local g = L.gpu{ arch = "edu-tiny" }
      L.say{
        en = string.format("Does tiling save DRAM traffic when the matrices do not fit in the L2? n = %d: A, B and C "
          .. "take %s KB against edu-tiny's %s KB of L2. (These runs are long: PageDown skips to the result.)", big,
          L.commas(3 * big * big * 4 / 1024), L.commas(g.desc.l2_bytes / 1024)),
        zh = string.format("矩阵放不进 L2 时，分块能不能省显存流量？n = %d：A、B、C 共 %s KB，edu-tiny 的 L2 只有 %s KB。"
          .. "（这两次运行比较长：按 PageDown 直接看结果。）", big, L.commas(3 * big * big * 4 / 1024),
          L.commas(g.desc.l2_bytes / 1024)),
      }
      L.label{ en = string.format("naive, n = %d", big), zh = string.format("朴素版，n = %d", big) }
      local rn = W.matmul(g, "matmul_naive", big)
      L.label{ en = string.format("tiled, n = %d", big), zh = string.format("分块版，n = %d", big) }
      local rt = W.matmul(g, "matmul_tiled16", big)
      L.label(nil)
      versus_table(L, nil, { en = string.format("naive against tiled, n = %d (larger than the L2)", big),
                             zh = string.format("朴素版对分块版，n = %d（比 L2 大）", big) }, rn, rt,
                   { en = string.format("n = %d: DRAM %.2fx as much for the naive kernel, global loads %.1fx.", big,
                                        rn.dram_bytes / rt.dram_bytes, rn.gld_bytes / rt.gld_bytes),
                     zh = string.format("n = %d：朴素版的显存流量是分块版的 %.2f 倍，全局内存读取是 %.1f 倍。", big,
                                        rn.dram_bytes / rt.dram_bytes, rn.gld_bytes / rt.gld_bytes) })
      L.say{
        en = string.format("n = %d: DRAM %s KB naive, %s KB tiled; global loads %s KB against %s KB. In this model the "
          .. "DRAM bytes stay close even now: the naive kernel's warps on both SMs re-read each line of B within a "
          .. "short time, while it is still in the L2. The further apart in time the re-reads of a line, the more of "
          .. "them go to DRAM, and tiling (fewer re-reads in the first place) then saves DRAM traffic as well.",
          big, L.commas(rn.dram_bytes / 1024), L.commas(rt.dram_bytes / 1024), L.commas(rn.gld_bytes / 1024),
          L.commas(rt.gld_bytes / 1024)),
        zh = string.format("n = %d：显存流量朴素版 %s KB，分块版 %s KB；全局内存读取 %s KB 对 %s KB。在这个模型里，"
          .. "即使这样显存字节数也差不多：两个 SM 上朴素版的 warp 在很短时间内就重读 B 的同一个缓存行，那时它还在 L2 里。"
          .. "同一缓存行的两次重读隔得越久，就有越多的重读要去显存，这时分块（本来就少读很多次）也能省下显存流量。",
          big, L.commas(rn.dram_bytes / 1024), L.commas(rt.dram_bytes / 1024), L.commas(rn.gld_bytes / 1024),
          L.commas(rt.gld_bytes / 1024)),
      }
      L.expect(3 * big * big * 4 > g.desc.l2_bytes, { en = "the matrices do not fit in the L2",
                                                      zh = "这些矩阵放不进 L2" })
      L.expect(rt.dram_bytes <= rn.dram_bytes and rt.gld_bytes * 12 < rn.gld_bytes, {
        en = "without room in the L2 too, tiling never adds DRAM traffic and still cuts global loads 16-fold",
        zh = "L2 放不下时，分块也不会增加显存流量，全局内存读取依然少 16 倍" },
        string.format("DRAM %d vs %d bytes", rt.dram_bytes, rn.dram_bytes))
    end,
    function(L)
      L.say{
        en = "Why both barriers? The first bar.sync makes sure no thread multiplies a tile another thread has not "
          .. "finished writing; the second, that no thread overwrites a tile another is still reading. Without "
          .. "them the answer may even come out right on one run and wrong on another. Exercise 6 "
          .. "(lessons/exercises/06_tiling.s): finish the tiled multiply; the grader's checker rejects a missing "
          .. "barrier even when the numbers happen to be right.",
        zh = "为什么要两个屏障？第一个 bar.sync 保证没有线程去乘别人还没写完的小块；第二个保证没有线程去覆盖别人还在读的小块。"
          .. "少了它们，这一次结果可能碰巧对，下一次就错了。练习 6（lessons/exercises/06_tiling.s）：把分块矩阵乘法补完整；"
          .. "即使数字碰巧正确，评分器的检查器也会判缺少屏障的答案不合格。",
      }
    end,
  },
}
