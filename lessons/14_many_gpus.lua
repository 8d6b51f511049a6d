-- Lesson 14: many GPUs, one model (数据并行, all-reduce, NVLink).
-- Eight simulated H200s in one server, joined by NVLink through a switch or
-- by PCIe without peer-to-peer: copies, the all-reduce that data-parallel
-- training needs (ring against a parameter server), message sizes, and a
-- training step on 1, 2, 4 and 8 GPUs.
--
-- Every number comes from the simulator (sim/core/link.c, node.c): data
-- really moves between the GPUs' memories and every sum is a real kernel
-- (lessons/kernels/vecadd_v4.s) on a simulated GPU. Link figures are the
-- presets' (arch/h200.lua, sim/core/node.c), each with its source.

local C = require("collective")
local DP = require("dataparallel")

local PCIE = "pcie4-host"          -- the exercise's machine: PCIe 4, no peer-to-peer

local function gbs(x) return string.format("%.1f GB/s", x) end

-- 8 whole H200s, made once; a node is a way of joining them
local function h200s(L)
  if not L.h200 then
    L.h200 = {}
    for i = 1, 8 do L.h200[i] = simt.gpu{arch = "h200"} end
  end
  return L.h200
end

return {
  meta = {
    number = 14,
    title = { en = "Many GPUs, one model", zh = "多块 GPU，一个模型" },
    concept = { en = "Data-parallel training splits the batch over GPUs and adds their gradients with an all-reduce; the link between the GPUs decides whether more GPUs still help.",
                zh = "数据并行训练把一个批次分给多块 GPU，再用 all-reduce 把它们的梯度加起来；GPU 之间的连接决定了多加 GPU 还有没有用。" },
    minutes = 20,
    knobs = {
      { name = "batch", range = { 1024, 8192 }, default = 4096,
        en = "rows in the training step's batch (a multiple of 64)", zh = "训练一步的批大小（行数，64 的倍数）" },
      { name = "answer", range = { 0, 8 }, default = 0,
        en = "your answer to the exercise (0: none)", zh = "你对练习的回答（0：不回答）" },
    },
  },
  steps = {
    -- 1. the machine: links, one copy
    function(L)
      local gs = h200s(L)
      local nv = simt.node{gpus = gs, link = "nvlink"}
      local pc = simt.node{gpus = gs, link = PCIE}
      L.nv_link, L.pc_link = nv.link, pc.link
      L.say{
        en = string.format("A server with 8 H200s. Each GPU has NVLink to a switch: %s in each direction (NVIDIA's 900 GB/s "
          .. "counts both directions), and a PCIe 5 link to the host: %s for a copy from pinned memory, about %s from "
          .. "ordinary (pageable) memory (both measured on a real H200). A cheaper server has only PCIe 4 and no "
          .. "peer-to-peer, as RTX 4090 or L4 machines: GPU to GPU goes through the host's memory, %s per GPU, and "
          .. "all GPUs share the host's bridge (%s, an estimate).",
          gbs(nv.link.gbps), gbs(nv.link.host_gbps), gbs(nv.link.pageable_gbps), gbs(pc.link.gbps),
          gbs(pc.link.bridge_gbps)),
        zh = string.format("一台有 8 块 H200 的服务器。每块 GPU 通过 NVLink 连到交换芯片：每个方向 %s（NVIDIA 说的 900 GB/s "
          .. "是两个方向加起来），另有一条 PCIe 5 连到主机：从锁页内存拷贝 %s，从普通（可分页）内存大约 %s（都是在真实 "
          .. "H200 上测的）。便宜一些的服务器只有 PCIe 4，而且不支持点对点，比如 RTX 4090 或 L4 的机器：GPU 到 GPU "
          .. "要经过主机内存，每块 GPU %s，所有 GPU 还要共用主机的桥（%s，估计值）。",
          gbs(nv.link.gbps), gbs(nv.link.host_gbps), gbs(nv.link.pageable_gbps), gbs(pc.link.gbps),
          gbs(pc.link.bridge_gbps)),
      }
      local bytes = 16 * 1024 * 1024
      local src = gs[1]:tensor{bytes // 4, init = "random", seed = 7}
      local dst = gs[2]:tensor{bytes // 4}
      local t_nv = nv:copy(src, dst)
      local t_pc = pc:copy(src, dst)
      local pinned = nv:host_copy{gpu = 1, bytes = 2 ^ 30, pinned = true}
      local t0 = nv:now()
      local pageable = nv:host_copy{gpu = 1, bytes = 2 ^ 30, pinned = false} - t0
      L.say{
        en = string.format("Copy 16 MiB from GPU 1 to GPU 2: %s over NVLink, %s over %s (%s). From the host, 1 GiB: "
          .. "%s pinned, %s pageable.", L.fmt_us(t_nv * 1e6), L.fmt_us(t_pc * 1e6), PCIE,
          L.fmt_x(t_pc / t_nv) .. " slower", L.fmt_us(pinned * 1e6), L.fmt_us(pageable * 1e6)),
        zh = string.format("从 GPU 1 拷 16 MiB 到 GPU 2：走 NVLink 用 %s，走 %s 用 %s（慢 %s）。从主机拷 1 GiB："
          .. "锁页内存 %s，可分页内存 %s。", L.fmt_us(t_nv * 1e6), PCIE, L.fmt_us(t_pc * 1e6),
          L.fmt_x(t_pc / t_nv, "zh"), L.fmt_us(pinned * 1e6), L.fmt_us(pageable * 1e6)),
      }
      local want = nv.link.latency_us * 1e-6 + bytes / (nv.link.gbps * 1e9)
      L.expect(math.abs(t_nv - want) <= 0.01 * want, {
        en = "a copy alone on its link takes latency + bytes / bandwidth",
        zh = "独占链路的一次拷贝用时 = 延迟 + 字节数 / 带宽" }, string.format("%.2f us, expected %.2f", t_nv * 1e6, want * 1e6))
      L.expect(dst:allclose(src, 0, 0), { en = "the copy moved the data", zh = "拷贝确实搬了数据" })
      L.expect(math.abs(pageable / pinned - nv.link.host_gbps / nv.link.pageable_gbps) < 0.01 * pageable / pinned, {
        en = "pageable copies are slower by the measured ratio (55.5 against ~8 GB/s)",
        zh = "可分页内存拷贝慢的倍数和实测一致（55.5 对约 8 GB/s）" })
    end,

    -- 2. the all-reduce: ring against a parameter server
    function(L)
      local gs = h200s(L)
      local bytes = 4 * 1024 * 1024
      L.say{
        en = "Data-parallel training (数据并行): every GPU holds the whole model, learns from its own part of the "
          .. "batch, and gets its own gradients. Before the next step every GPU needs the SUM of all of them: an "
          .. "all-reduce. The simple way is a parameter server: everyone sends to GPU 1, it adds, it sends the sum "
          .. "back. The ring way: cut the gradients into 8 pieces; each GPU passes a piece to its neighbour and adds "
          .. "what it receives (reduce-scatter, 7 steps), then the finished pieces go round once more (all-gather, "
          .. "7 steps). Here each GPU has 4 MiB of gradients.",
        zh = "数据并行训练：每块 GPU 都放着整个模型，只学批次里属于自己的那一份，得到自己的梯度。下一步之前，每块 GPU "
          .. "都需要所有梯度的和：这就是 all-reduce（全归约）。最简单的办法是参数服务器：大家都发给 GPU 1，它加起来再发回去。"
          .. "环形（ring）办法：把梯度切成 8 份；每块 GPU 把一份传给邻居，并把收到的加到自己那份上（reduce-scatter，7 步），"
          .. "然后把算好的各份再传一圈（all-gather，7 步）。这里每块 GPU 有 4 MiB 梯度。",
      }
      local res = {}
      for _, algo in ipairs{ "ring", "ps" } do
        local nd = simt.node{gpus = gs, link = "nvlink"}
        local r = C.run{node = nd, bytes = bytes, algo = algo}
        local most = 0
        for i = 1, 8 do most = math.max(most, nd:sent(i)) end
        res[algo] = {r = r, most = most, ring = nd:sent(3)}
      end
      local ring, ps = res.ring, res.ps
      L.table{ name = "14_ring_vs_ps",
        title = { en = "all-reduce of 4 MiB on 8 H200s, NVLink", zh = "8 块 H200 上 4 MiB 的 all-reduce，NVLink" },
        columns = { { en = "algorithm", zh = "算法" }, { en = "time", zh = "时间" },
                    { en = "most bytes one GPU sends", zh = "单块 GPU 最多发送的字节" }, "busbw" },
        rows = {
          { { en = "ring", zh = "环形" }, L.fmt_us(ring.r.time_us), string.format("%.2f MiB", ring.most / 2 ^ 20), gbs(ring.r.busbw_gbs) },
          { { en = "parameter server", zh = "参数服务器" }, L.fmt_us(ps.r.time_us), string.format("%.2f MiB", ps.most / 2 ^ 20), gbs(ps.r.busbw_gbs) },
        } }
      L.say{
        en = string.format("The ring: every GPU sends 2 x 7/8 of its gradients (%.2f MiB) and all links work at once: %s. "
          .. "The parameter server: GPU 1 receives 7 x 4 MiB through its one port and sends 7 x 4 MiB back: %s, %s slower. "
          .. "Both give exactly the sum (checked against the host).",
          ring.ring / 2 ^ 20, L.fmt_us(ring.r.time_us), L.fmt_us(ps.r.time_us), L.fmt_x(ps.r.time_s / ring.r.time_s)),
        zh = string.format("环形：每块 GPU 只发送梯度的 2 x 7/8（%.2f MiB），所有链路同时工作：%s。参数服务器：GPU 1 "
          .. "从它唯一的端口收进 7 x 4 MiB，再发出 7 x 4 MiB：%s，慢 %s。两种办法得到的和完全正确（与主机上算的对过）。",
          ring.ring / 2 ^ 20, L.fmt_us(ring.r.time_us), L.fmt_us(ps.r.time_us), L.fmt_x(ps.r.time_s / ring.r.time_s, "zh")),
      }
      L.expect(ring.r.correct and ps.r.correct, { en = "both all-reduces give the sum of all GPUs' data",
                                                  zh = "两种 all-reduce 都得到所有 GPU 数据的和" })
      L.expect(math.abs(ring.ring - 2 * 7 / 8 * ring.r.bytes) < 1, {
        en = "in a ring each GPU sends 2(N-1)/N of the data", zh = "环形中每块 GPU 发送数据的 2(N-1)/N" })
      L.expect(ps.r.time_s > 3 * ring.r.time_s, { en = "the ring is several times faster than a parameter server on 8 GPUs",
                                                  zh = "8 块 GPU 上环形比参数服务器快好几倍" })
    end,

    -- 3. message size: latency rules small messages, bandwidth large ones
    function(L)
      local gs = h200s(L)
      local sizes = { 8 * 1024, 256 * 1024, 4 * 1024 * 1024 }
      local series, nv_bw, pc_bw = {}, {}, {}
      for _, link in ipairs{ "nvlink", PCIE } do
        local y = {}
        for i, b in ipairs(sizes) do
          local r = C.run{node = simt.node{gpus = gs, link = link}, bytes = b}
          L.expect(r.correct, { en = "the all-reduce gives the sum", zh = "all-reduce 得到正确的和" })
          y[i] = r.busbw_gbs
        end
        series[#series + 1] = { name = link, y = y }
        if link == "nvlink" then nv_bw = y else pc_bw = y end
      end
      local x = {}
      for i, b in ipairs(sizes) do x[i] = b / 1024 end
      L.chart{ name = "14_busbw", title = { en = "all-reduce bus bandwidth, 8 H200s", zh = "all-reduce 总线带宽，8 块 H200" },
               x_label = { en = "message per GPU (KiB)", zh = "每块 GPU 的消息（KiB）" },
               y_label = { en = "busbw (GB/s)", zh = "busbw（GB/s）" }, x = x, series = series, log_x = true }
      L.say{
        en = string.format("nccl-tests, the benchmark everyone quotes, reports 'bus bandwidth': bytes / time x 2(N-1)/N "
          .. "for an all-reduce, so it can be held against one link's speed. NVLink: %s for 8 KiB, %s for 4 MiB (the "
          .. "link: %s). Small messages are ruled by latency (14 steps of a few microseconds), big ones by bandwidth. "
          .. "%s: %s for 4 MiB, because 8 GPUs share the host's bridge. Published: 8 x H100 on NVLink reach 460-480 "
          .. "GB/s with very large messages; try simtlab collective allreduce --bytes 64M.",
          gbs(nv_bw[1]), gbs(nv_bw[#nv_bw]), gbs(L.nv_link.gbps), PCIE, gbs(pc_bw[#pc_bw])),
        zh = string.format("大家引用的基准测试 nccl-tests 报告“总线带宽”（busbw）：all-reduce 的字节数 / 时间 x 2(N-1)/N，"
          .. "这样就能和一条链路的速度直接比较。NVLink：8 KiB 时 %s，4 MiB 时 %s（链路本身 %s）。小消息受延迟支配（14 步，"
          .. "每步几微秒），大消息受带宽支配。%s：4 MiB 时只有 %s，因为 8 块 GPU 共用主机的桥。公开数据：8 块 H100 用 NVLink "
          .. "在很大的消息上达到 460-480 GB/s；可以试试 simtlab collective allreduce --bytes 64M。",
          gbs(nv_bw[1]), gbs(nv_bw[#nv_bw]), gbs(L.nv_link.gbps), PCIE, gbs(pc_bw[#pc_bw])),
      }
      L.expect(nv_bw[1] < 0.1 * nv_bw[#nv_bw], { en = "small messages are ruled by latency: busbw far below the large message's",
                                                 zh = "小消息受延迟支配：busbw 远低于大消息" })
      for i = 1, #sizes do
        L.expect(nv_bw[i] <= L.nv_link.gbps and pc_bw[i] <= L.pc_link.gbps, {
          en = "bus bandwidth never exceeds the link's", zh = "总线带宽从不超过链路带宽" })
      end
      L.expect(nv_bw[#nv_bw] > 10 * pc_bw[#pc_bw], { en = "NVLink is more than 10x faster than PCIe through the host",
                                                     zh = "NVLink 比经过主机的 PCIe 快 10 倍以上" })
    end,

    -- 4. a data-parallel training step on 1, 2, 4, 8 GPUs
    function(L)
      local batch = L.knob("batch")
      if batch % 64 ~= 0 then error("knob batch must be a multiple of 64 (8 GPUs x 8 rows)", 0) end
      L.say{
        en = string.format("Now a training step: two linear layers of 128 x 128 weights, a batch of %d rows split evenly "
          .. "over 1, 2, 4 or 8 GPUs; forward, backward, then the all-reduce of the gradients, either after the whole "
          .. "backward pass or overlapped with it (each layer's gradients start as soon as all GPUs have them, as "
          .. "PyTorch's buckets do). So that this runs in seconds, it is a scale model: each GPU is 1 SM of an H200 "
          .. "(1/132 of the chip, with its share of the memory bandwidth) and every link has 1/132 of its bandwidth, "
          .. "so the times are those of the real server on a model 132 times bigger.", batch),
        zh = string.format("现在看一次训练：两层 128 x 128 权重的线性层，%d 行的批次平均分给 1、2、4 或 8 块 GPU；前向、"
          .. "反向，然后对梯度做 all-reduce，或者等整个反向结束再做，或者和反向重叠（每层的梯度一旦所有 GPU 都算好就开始传，"
          .. "就像 PyTorch 的分桶）。为了几秒钟就能跑完，这是一个缩小的模型：每块 GPU 只是 H200 的 1 个 SM（芯片的 1/132，"
          .. "显存带宽也按比例），每条链路也只有 1/132 的带宽，所以时间相当于真实服务器训练一个大 132 倍的模型。", batch),
      }
      local run = DP.run{ gpus = { 1, 2, 4, 8 }, links = { "nvlink", PCIE }, batch = batch, layers = 2 }
      L.dp = run
      local rows, eff_nv, eff_pc, ns = {}, {}, {}, { 1, 2, 4, 8 }
      for k, n in ipairs(ns) do
        local a, b = DP.find(run, n, "nvlink", false), DP.find(run, n, "nvlink", true)
        local c = DP.find(run, n, PCIE, true)
        eff_nv[k], eff_pc[k] = b.efficiency, c.efficiency
        rows[k] = { n, L.fmt_us(a.compute_s * 1e6), L.fmt_us(a.step_s * 1e6), L.fmt_us(b.step_s * 1e6),
                    string.format("%.0f%%", 100 * b.efficiency), L.fmt_us(c.step_s * 1e6),
                    string.format("%.0f%%", 100 * c.efficiency) }
        L.expect(b.step_s <= a.step_s * (1 + 1e-9), { en = "overlapping the all-reduce never makes a step slower",
                                                     zh = "让 all-reduce 与反向重叠，一步从不会变慢" })
      end
      L.table{ name = "14_training_step",
        title = { en = "one training step (time per step; efficiency = T1 / (N x TN))", zh = "训练一步（每步时间；效率 = T1 / (N x TN)）" },
        columns = { { en = "GPUs", zh = "GPU 数" }, { en = "compute", zh = "计算" }, { en = "NVLink, wait", zh = "NVLink，等待" },
                    { en = "NVLink, overlap", zh = "NVLink，重叠" }, { en = "efficiency", zh = "效率" },
                    { en = PCIE .. ", overlap", zh = PCIE .. "，重叠" }, { en = "efficiency", zh = "效率" } },
        rows = rows }
      L.chart{ name = "14_scaling", title = { en = "scaling efficiency of a training step", zh = "训练一步的扩展效率" },
               x_label = { en = "GPUs", zh = "GPU 数" }, y_label = { en = "efficiency", zh = "效率" }, x = ns,
               series = { { name = "NVLink", y = eff_nv }, { name = PCIE, y = eff_pc } } }
      local n8nv, n8pc = DP.find(run, 8, "nvlink", true), DP.find(run, 8, PCIE, true)
      L.say{
        en = string.format("On NVLink 8 GPUs keep %.0f%% efficiency (a step %s faster than one GPU); the all-reduce hides "
          .. "behind the backward pass. Through the host the same 8 GPUs keep %.0f%%: the all-reduce takes %s while the "
          .. "compute takes %s. The gradients after the all-reduce equal the gradients of the whole batch on one GPU "
          .. "(checked): data parallelism changes the time, not the answer.",
          100 * n8nv.efficiency, L.fmt_x(n8nv.speedup), 100 * n8pc.efficiency, L.fmt_us(n8pc.comm_s * 1e6),
          L.fmt_us(n8pc.compute_s * 1e6)),
        zh = string.format("用 NVLink 时 8 块 GPU 的效率还有 %.0f%%（一步比一块 GPU 快 %s）；all-reduce 藏在了反向计算后面。"
          .. "经过主机时同样 8 块 GPU 只剩 %.0f%%：all-reduce 要 %s，计算只要 %s。all-reduce 之后的梯度与一块 GPU 算整个"
          .. "批次的梯度相同（已核对）：数据并行改变的是时间，不是答案。",
          100 * n8nv.efficiency, L.fmt_x(n8nv.speedup, "zh"), 100 * n8pc.efficiency, L.fmt_us(n8pc.comm_s * 1e6),
          L.fmt_us(n8pc.compute_s * 1e6)),
      }
      L.expect(run.ok, { en = "the all-reduced gradients equal the whole batch's gradients on one GPU",
                         zh = "all-reduce 后的梯度等于一块 GPU 上整个批次的梯度" })
      L.expect(n8nv.efficiency > 3 * n8pc.efficiency, { en = "NVLink keeps 8 GPUs more than 3x as efficient as PCIe through the host",
                                                        zh = "NVLink 让 8 块 GPU 的效率是经过主机的 PCIe 的 3 倍以上" })
    end,

    -- 5. the exercise
    function(L)
      local run = L.dp
      local best, best_n = math.huge, 1
      for _, n in ipairs{ 1, 2, 4, 8 } do
        local r = DP.find(run, n, PCIE, true)
        if r.step_s < best then best, best_n = r.step_s, n end
      end
      L.best_n = best_n
      L.say{
        en = "Exercise 14 (lessons/exercises/14_many_gpus.md): on the " .. PCIE .. " server, how many GPUs (1, 2, 4 or 8) "
          .. "give the fastest step, so that one more doubling makes the all-reduce cost more than the compute it "
          .. "saves? Read the table, then answer: simtlab lesson 14 answer=N. Then change the batch "
          .. "(batch=1024 or batch=8192): does the answer move? Why?",
        zh = "练习 14（lessons/exercises/14_many_gpus.md）：在 " .. PCIE .. " 服务器上，用几块 GPU（1、2、4 或 8）一步最快，"
          .. "再翻一倍时 all-reduce 多花的时间就超过了省下的计算？看表格，然后回答：simtlab lesson 14 answer=N。"
          .. "再改一改批大小（batch=1024 或 batch=8192）：答案会变吗？为什么？",
      }
      local a = L.knob("answer")
      if a > 0 then
        L.answered(a == best_n,
          { en = string.format("Right: %d GPUs. Beyond that the all-reduce through the host grows faster than the compute shrinks.", a),
            zh = string.format("对：%d 块。再多的话，经过主机的 all-reduce 增加的时间比计算省下的还多。", a) },
          { en = string.format("Not quite: %d is not the fastest. Compare the step times in the %s column.", a, PCIE),
            zh = string.format("不太对：%d 块不是最快的。比较表格中 %s 那一列的每步时间。", a, PCIE) })
      end
      local r8 = DP.find(run, 8, PCIE, true)
      L.expect(best_n < 8 and r8.step_s > best, { en = "on PCIe through the host, 8 GPUs are slower than fewer",
                                                   zh = "经过主机的 PCIe 上，8 块 GPU 比更少的 GPU 还慢" })
    end,

    -- 6. what is and is not modelled
    function(L)
      L.say{
        en = "What the simulator models: each GPU is a whole simulated GPU with its own memory; every link has a "
          .. "bandwidth per direction and a latency; transfers that share a link or the host's bridge share its "
          .. "bandwidth (never more than the link's); data moves in 512 KiB slices and each sum is a real kernel on the "
          .. "receiving GPU. What it leaves out: the sums taking SMs away from the training kernels, NVLink SHARP (the "
          .. "switch adding for the GPUs, why real H100s reach 460-480 GB/s), PCIe switches and CPU sockets in detail, "
          .. "and everything beyond one server: no network between machines (InfiniBand), no model or pipeline "
          .. "parallelism (模型并行).",
        zh = "模拟器模拟了什么：每块 GPU 都是一块完整的模拟 GPU，有自己的显存；每条链路有单向带宽和延迟；共用一条链路或"
          .. "主机桥的传输平分它的带宽（绝不超过链路带宽）；数据按 512 KiB 一片一片地传，每次求和都是接收方 GPU 上真正跑的"
          .. "核函数。没有模拟的：求和占用训练核函数的 SM、NVLink SHARP（交换芯片替 GPU 做加法，这是真实 H100 能达到 "
          .. "460-480 GB/s 的原因）、PCIe 交换芯片和 CPU 插槽的细节，以及一台服务器之外的一切：机器之间没有网络"
          .. "（InfiniBand），也没有模型并行或流水线并行。",
      }
    end,
  },
}
