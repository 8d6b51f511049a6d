-- demo.lua - what `simtlab demo` runs: one matrix multiply raced by one CPU
-- core against two simulated GPUs (the small teaching GPU edu-tiny, then an
-- NVIDIA H200 model), every result checked against a reference, with a
-- plain-language summary in English or Chinese.
--
--   simtlab demo                      the window (headless: a PNG + this text)
--   simtlab show lessons/demo.lua 64  choose the matrix size
--   simtlab run lessons/demo.lua      text only, no stage
--
-- In the window, after the race: [ and ] halve and double the H200's SMs,
-- , and . its memory bandwidth, R races again, Space or PageDown ends.

local n = tonumber(arg and arg[1]) or 128
local BLOCK = 16                       -- 16 x 16 = 256 threads per block
local zh = simt.lang() == "zh"
local function T(en, cn) return zh and cn or en end

-- Prefer the shared-memory tiled kernel when it exists; else the naive one.
local kernel, how, how_zh
do
  local ok, k = pcall(simt.kernel, "lessons/kernels/matmul_tiled16.s")
  if not ok and not tostring(k):find("not found", 1, true) then
    print("note: the tiled kernel did not assemble, using the naive one:\n  " .. tostring(k))
  end
  if ok and k.nparams == 4 then
    kernel = k
    how = "each block loads 16 x 16 tiles of A and B into shared memory and reuses them"
    how_zh = "每个线程块把 A 和 B 的 16 x 16 小块读进共享内存，反复使用"
  else
    kernel = simt.kernel("lessons/kernels/matmul_naive.s")
    how = "each thread reads its row of A and its column of B from global memory"
    how_zh = "每个线程从全局内存读取 A 的一行和 B 的一列"
  end
end

local function commas(x)
  local s = string.format("%d", x)
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

local function fmt_us(us)
  if us >= 1000 then return string.format("%.2f ms", us / 1000) end
  return string.format("%.1f us", us)
end

-- A device's matrices: the same A and B everywhere, chosen so that C = A x B
-- is a picture (lessons/lib/picture.lua: the Mandelbrot set, blurred by B).
local picture = require("picture")
local function operands(dev)
  return picture.operands(dev, n)
end

local blocks = (n + BLOCK - 1) // BLOCK
local cfg = {grid = {blocks, blocks}, block = {BLOCK, BLOCK}}
local reference

-- Race one CPU core against a GPU on the same work; check both results.
local function race(gpu_spec)
  local cpu = simt.cpu{arch = "cpu-core"}
  local g = simt.gpu(gpu_spec)
  local Ac, Bc, Cc = operands(cpu)
  local Ag, Bg, Cg = operands(g)
  reference = reference or simt.ref.matmul(Ag, Bg)
  local res = simt.race{
    {cpu, kernel, cfg, Ac, Bc, Cc, n},
    {g, kernel, cfg, Ag, Bg, Cg, n},
    interruptible = true,
  }
  if res.interrupted then return nil, res.interrupted end
  local rc, rg = res[1], res[2]
  -- The reference sums in double precision, the kernel in single precision
  -- in another order: tiny differences are expected.
  local okc, errc = Cc:allclose(reference, 1e-4, 1e-4)
  local okg, errg = Cg:allclose(reference, 1e-4, 1e-4)
  local d = g.desc
  for _, side in ipairs{{rc, cpu.desc, okc, errc, "CPU"}, {rg, d, okg, errg, "GPU"}} do
    local r, desc, ok, maxerr, kind = table.unpack(side)
    print(string.format("%s: %s (%s) at %d MHz", kind, desc.name, desc.vendor_name,
                        math.floor(desc.clock_mhz + 0.5)))
    print(string.format(T("  result correct?    %s (largest difference from the reference: %.2g)",
                          "  result correct?    %s（与参考结果的最大差别：%.2g）"),
                        ok and "yes" or "NO", maxerr))
    print(string.format(T("  cycles:            %s, simulated time %s",
                          "  周期数：           %s，模拟时间 %s"), commas(r.cycles), fmt_us(r.time_us)))
    if kind == "GPU" then
      print(string.format(T("  blocks x threads:  %d blocks of %d threads = %s threads; up to %d warps per SM "
                            .. "(limit: %s)", "  线程块 x 线程：    %d 个块，每块 %d 个线程 = %s 个线程；每个 SM 最多 %d 个 warp（限制：%s）"),
                          r.blocks, BLOCK * BLOCK, commas(r.threads), r.warps_per_sm, r.occupancy_limit))
      print(string.format(T("  speed:             %.3f TFLOP/s, %.2f warp instructions per cycle",
                            "  速度：             %.3f TFLOP/s，每周期 %.2f 条 warp 指令"), r.tflops, r.ipc))
    end
    if not ok then error(kind .. " result does not match the reference") end
  end
  print()
  rg.sms, rg.clock_mhz, rg.name = d.sms, d.clock_mhz, d.name
  return {cpu = rc, gpu = rg}
end

simt.title({en = "simtlab demo: one painter against a thousand", zh = "simtlab 演示：一个画家对一千个画家"})
print(string.format(T("simtlab demo: multiply two %d x %d matrices, C = A x B (the product is a picture)",
                      "simtlab 演示：两个 %d x %d 的矩阵相乘，C = A x B（乘积是一幅画）"), n, n))
print(string.format(T("kernel %s (%s): one thread per element of C;", "内核 %s（%s）：C 的每个元素一个线程；"),
                    kernel.name, kernel.file))
print(string.format("  %s.", T(how, how_zh)))
print(string.format(T("  That is %s multiply-adds, %s floating-point operations.",
                      "  一共 %s 次乘加，%s 次浮点运算。"), commas(n * n * n), commas(2 * n * n * n)))
print()

simt.say{
  en = string.format("Both sides compute the same %d x %d matrix product, C = A x B. Left: one CPU core runs the "
    .. "%s threads one after another. Right: edu-tiny, a small teaching GPU with 2 SMs, runs 256 of them at once. "
    .. "The matrices are chosen so that the product is a picture: watch it fill in, the CPU cell by cell, the GPU "
    .. "block by block.", n, n, commas(n * n)),
  zh = string.format("两边计算同一个 %d x %d 的矩阵乘法 C = A x B。左边：一个 CPU 核心一个接一个地运行 %s 个线程。"
    .. "右边：edu-tiny，一块只有 2 个 SM 的教学用小 GPU，同时运行其中 256 个。这两个矩阵特意选得让乘积是一幅画："
    .. "看它怎样填满，CPU 一格一格地画，GPU 一块一块地画。", n, n, commas(n * n)),
}
local tiny = race{arch = "edu-tiny"}
while not tiny do tiny = race{arch = "edu-tiny"} end   -- a key interrupted the race: run it again

local h200 = {arch = "h200"}
local big, why
repeat
  simt.say{
    en = string.format("Now the same race against an NVIDIA H200 model: %d SMs, up to %s threads at once. The "
      .. "GPU finishes in a blink; the CPU core is still painting, so the clock fast-forwards (said on screen).",
      (h200.sms or 132), commas((h200.sms or 132) * 2048)),
    zh = string.format("现在同样的比赛，对手换成 NVIDIA H200 模型：%d 个 SM，最多同时运行 %s 个线程。GPU 一眨眼就算完了；"
      .. "CPU 核心还在画，所以时钟快进（屏幕上会标明）。", (h200.sms or 132), commas((h200.sms or 132) * 2048)),
  }
  big, why = race(h200)
  if not big then   -- a knob key during the race
    if why == "sms_half" then h200.sms = math.max(1, (h200.sms or 132) // 2)
    elseif why == "sms_double" then h200.sms = math.min(1024, (h200.sms or 132) * 2)
    elseif why == "dram_half" then h200.dram_gbps = (h200.dram_gbps or 4800) / 2
    elseif why == "dram_double" then h200.dram_gbps = (h200.dram_gbps or 4800) * 2 end
  end
until big

local function summary()
  local speedup_tiny = tiny.cpu.time_us / tiny.gpu.time_us
  local speedup_big = big.cpu.time_us / big.gpu.time_us
  local busy = math.min(big.gpu.blocks, big.gpu.sms)
  local en = string.format("Same answer on all three. One CPU core took %s; edu-tiny %s (%.0fx faster); the %s "
    .. "with %d SMs %s (%.0fx faster than the core). Why: the GPU runs many threads at the same time: %d of its "
    .. "%d SMs had a block to work on, each with many warps of 32 threads. ",
    fmt_us(big.cpu.time_us), fmt_us(tiny.gpu.time_us), speedup_tiny, big.gpu.name, big.gpu.sms,
    fmt_us(big.gpu.time_us), speedup_big, busy, big.gpu.sms)
  local cn = string.format("三台设备算出同样的结果。一个 CPU 核心用了 %s；edu-tiny 用了 %s（快 %.0f 倍）；"
    .. "%d 个 SM 的 %s 用了 %s（比 CPU 核心快 %.0f 倍）。原因：GPU 同时运行很多线程：它的 %d 个 SM 中有 %d 个分到了线程块，"
    .. "每个块有很多个 32 线程的 warp。", fmt_us(big.cpu.time_us), fmt_us(tiny.gpu.time_us), speedup_tiny, big.gpu.sms,
    big.gpu.name, fmt_us(big.gpu.time_us), speedup_big, big.gpu.sms, busy)
  if busy < big.gpu.sms then
    en = en .. string.format("Only %d blocks: a bigger matrix would give all %d SMs work. ", big.gpu.blocks, big.gpu.sms)
    cn = cn .. string.format("只有 %d 个线程块：矩阵再大一些，%d 个 SM 才都有活干。", big.gpu.blocks, big.gpu.sms)
  end
  if simt.on_stage() == "window" then
    en = en .. "Try [ and ] (SMs) or , and . (memory bandwidth) to race the H200 again; Space to finish."
    cn = cn .. "试试 [ 和 ]（SM 数）或 , 和 .（内存带宽），让 H200 再比一次；按空格结束。"
  end
  simt.say{en = en, zh = cn}
end
summary()

-- The knobs: each key races the H200 again with one thing changed.
while true do
  local ev = simt.pause()
  if ev == nil or ev == "next" or ev == "quit" then break end
  local changed = true
  if ev == "sms_half" then h200.sms = math.max(1, (h200.sms or big.gpu.sms) // 2)
  elseif ev == "sms_double" then h200.sms = math.min(1024, (h200.sms or big.gpu.sms) * 2)
  elseif ev == "dram_half" then h200.dram_gbps = (h200.dram_gbps or 4800) / 2
  elseif ev == "dram_double" then h200.dram_gbps = (h200.dram_gbps or 4800) * 2
  elseif ev ~= "restart" then changed = false end
  if changed then
    local again = race(h200)
    if again then big = again end
    summary()
  end
end
