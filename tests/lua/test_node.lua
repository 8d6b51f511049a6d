-- test_node.lua - simt.node from Lua (sim/script/lnode.c): link presets and
-- their figures, collectives that equal a host sum, busbw never above the
-- link, per-link statistics, the clock (busy, launch, after), GPUs shared by
-- two nodes, the scale option, and errors that name what is wrong.
local T = require("expect")
local expect = T.expect
local C = require("collective")

-- presets: the GPU's own NVLink, PCIe caps, estimates said
local nd = simt.node{gpus = 4, arch = "h200", link = "nvlink"}
expect(nd.n == 4 and nd.link.gbps == 450 and nd.link.topology == "switch", "h200 NVLink4: 450 GB/s one way")
expect(nd.link.host_gbps == 55.5 and nd.link.pageable_gbps == 8, "h200 host links from reference/h200-measured.md")
local a100 = simt.node{gpus = 2, arch = "a100", link = "nvlink"}
expect(a100.link.gbps == 300, "a100 NVLink3: 300 GB/s one way")
local ring = simt.node{gpus = 4, arch = "h200", link = "nvlink-ring"}
expect(ring.link.gbps == 225 and ring.link.topology == "ring", "NVLink ring: half the links to each neighbour")
local pc = simt.node{gpus = 4, arch = "rtx4090", link = "pcie4-host"}
expect(pc.link.gbps == 26 and pc.link.topology == "pcie-host", "rtx4090 on PCIe 4 without P2P")
expect(pc.link.source:find("estimate", 1, true) ~= nil, "estimates are said")
expect(tostring(pc):find("4 x rtx4090, pcie4-host", 1, true) ~= nil, "tostring names the node")

-- every collective equals its reference, on every kind of link
for _, link in ipairs{"nvlink", "nvlink-ring", "pcie5", "pcie5-host"} do
  for _, op in ipairs{"allreduce", "reduce_scatter", "all_gather", "broadcast"} do
    local r = C.run{op = op, gpus = 4, arch = "h200", link = link, bytes = 64 * 1024}
    expect(r.correct, op .. " on " .. link .. " equals the reference")
    expect(r.time_s > 0 and r.busbw_gbs > 0, op .. " on " .. link .. " took time")
    local port = r.link.gbps * (link == "nvlink-ring" and 2 or 1)
    expect(r.busbw_gbs <= port, string.format("%s on %s: busbw %.1f <= link %.1f", op, link, r.busbw_gbs, port))
  end
  for _, algo in ipairs{"tree", "ps"} do
    local r = C.run{gpus = 3, arch = "h200", link = link, bytes = 48 * 1024, algo = algo}
    expect(r.correct, algo .. " all-reduce on 3 GPUs, " .. link)
  end
end

-- nccl-tests' factors: busbw / algbw = 2(n-1)/n, (n-1)/n, 1
do
  local r = C.run{gpus = 8, arch = "h200", link = "nvlink", bytes = 1 << 20}
  expect(math.abs(r.busbw_gbs / r.algbw_gbs - 2 * 7 / 8) < 1e-9, "all-reduce busbw = algbw x 2(n-1)/n")
  expect(math.abs(r.algbw_gbs - r.bytes / r.time_s / 1e9) < 1e-6, "algbw = bytes / time")
  local g = C.run{op = "all_gather", gpus = 8, arch = "h200", link = "nvlink", bytes = 1 << 20}
  expect(math.abs(g.busbw_gbs / g.algbw_gbs - 7 / 8) < 1e-9, "all-gather busbw = algbw x (n-1)/n")
  -- the sizes a sweep shows: latency rules small, bandwidth large
  local small = C.run{gpus = 8, arch = "h200", link = "nvlink", bytes = 4096}
  expect(small.busbw_gbs < r.busbw_gbs / 20, "small messages: latency rules")
end

-- per-link statistics: bytes, utilisation in [0, 1], and the clock
do
  local n2 = simt.node{gpus = 2, arch = "h200", link = "pcie5"}
  local a = n2:gpu(1):tensor{1 << 18, init = "random", seed = 1}
  local b = n2:gpu(2):tensor{1 << 18}
  local fin = n2:copy(a, b)
  expect(b:allclose(a, 0, 0), "a peer copy moves the data")
  expect(math.abs(fin - (2e-6 + (1 << 20) / 55.5e9)) < 1e-12, "copy = latency + bytes / bandwidth")
  local moved = 0
  for _, l in ipairs(n2:links()) do
    expect(l.utilisation >= 0 and l.utilisation <= 1, l.name .. ": utilisation in [0, 1]")
    expect(l.peak_gbs <= l.gbps * (1 + 1e-9), l.name .. ": never above its bandwidth")
    moved = moved + l.bytes
  end
  expect(math.abs(moved - 2 * (1 << 20)) < 1, "the bytes counted on both links the copy crossed")
  expect(n2:busy(1, 1e-3) == 1e-3, "busy moves GPU 1's compute clock")
  local comp, comm = n2:clock(1)
  expect(comp == 1e-3 and comm > 0, "clock: compute and communication streams")
  local r = n2:allreduce({n2:gpu(1):tensor{64, init = "random"}, n2:gpu(2):tensor{64, init = "random"}}, {after = 0.5})
  expect(r.start_s == 0.5, "a collective waits for 'after'")
  expect(n2:now() >= r.finish_s, "now() is the latest end")
  -- nd:launch runs on GPU i's compute stream
  local k = simt.kernel("lessons/kernels/vecadd_v4.s")
  local lr = n2:launch(2, k, {grid = 1, block = 64}, b, b, b, 256)
  expect(lr.time_us > 0 and math.abs(lr.finish_s - lr.start_s - lr.time_us * 1e-6) < 1e-15, "launch timed on the clock")
  expect(math.abs(b:get(1) - 2 * a:get(1)) < 1e-6, "the launch computed")
  -- it takes grid and block only: another key is named, not ignored
  local ok, e = pcall(n2.launch, n2, 2, k, {grid = 1, block = 64, max_cycles = 10}, b, b, b, 256)
  expect(not ok and e:find("nd:launch: unknown configuration key 'max_cycles'", 1, true)
         and e:find("the keys are grid, block", 1, true), "nd:launch names an unknown key: " .. tostring(e))
end

-- two nodes on the same GPUs; scale
do
  local gs = {simt.gpu{arch = "h200"}, simt.gpu{arch = "h200"}}
  local fast = simt.node{gpus = gs, link = "nvlink"}
  local slow = simt.node{gpus = gs, link = "nvlink", scale = 0.5}
  expect(fast:gpu(1) == gs[1] and slow:gpu(2) == gs[2], "nodes share the GPUs they are given")
  expect(slow.link.gbps == 225 and slow.link.scale == 0.5, "scale cuts the bandwidth")
  local x = C.run{node = fast, bytes = 1 << 20}
  local y = C.run{node = slow, bytes = 1 << 20}
  expect(x.correct and y.correct and y.time_s > x.time_s, "half the bandwidth, slower")
  local a, b = gs[1]:tensor{1 << 20, init = "random"}, gs[2]:tensor{1 << 20}
  local lat = fast.link.latency_us * 1e-6
  local f2 = simt.node{gpus = gs, link = "nvlink"}
  local s2 = simt.node{gpus = gs, link = "nvlink", scale = 0.5}
  local t_fast, t_slow = f2:copy(a, b), s2:copy(a, b)
  expect(math.abs((t_slow - lat) - 2 * (t_fast - lat)) < 1e-12, "a copy at half the bandwidth moves its bytes in twice the time")

end

-- errors name the problem
local function fails(f, want, what)
  local ok, err = pcall(f)
  expect(not ok and tostring(err):find(want, 1, true) ~= nil, what .. ": " .. tostring(err))
end
fails(function() simt.node{gpus = 9} end, "gpus must be an integer 1..8", "too many GPUs")
fails(function() simt.node{gpus = 2, link = "infiniband"} end, "unknown link 'infiniband'", "unknown link")
fails(function() simt.node{gpus = 2, arch = "l4", link = "nvlink"} end, "has no NVLink", "L4 has no NVLink")
fails(function() simt.node{gpus = 2, scale = 2} end, "scale must be a number in (0, 1]", "scale")
fails(function() simt.node{gpus = {1, 2}} end, "gpus[1] is not a GPU", "not a GPU")
local g1 = simt.gpu{arch = "edu-tiny"}
fails(function() simt.node{gpus = {g1, g1}} end, "gpus[2] is gpus[1] again", "a GPU twice")
fails(function() simt.node{gpus = {g1}, sms = 4} end, "'sms' has no place", "fields with a list of GPUs")
local e2 = simt.node{gpus = 2, arch = "edu-tiny"}
local t1, t2 = e2:gpu(1):tensor{64}, e2:gpu(2):tensor{60}
fails(function() e2:allreduce({t1, t2}) end, "the same size", "sizes differ")
fails(function() e2:allreduce({t1, e2:gpu(1):tensor{64}}) end, "item 2 must be an f32 tensor on nd:gpu(2)", "wrong GPU")
fails(function() e2:allreduce({t1, e2:gpu(2):tensor{64}}, {algo = "star"}) end, "unknown algo 'star'", "algo")
fails(function() e2:allreduce({e2:gpu(1):tensor{6}, e2:gpu(2):tensor{6}}) end, "multiple of 4 floats", "size rule")
-- uneven chunks: 3 GPUs, 7 groups of 4 floats
for _, op in ipairs{"allreduce", "reduce_scatter", "all_gather"} do
  local r = C.run{op = op, gpus = 3, arch = "edu-tiny", link = "nvlink", bytes = 7 * 16}
  expect(r.correct and r.bytes == 112, op .. " with chunks of unequal size")
end
fails(function() e2:gpu(3) end, "a GPU number 1..2", "GPU number")
T.done("node")
print("node ok")
-- (appended) the picture needs something to have moved
local fresh = simt.node{gpus = 2, arch = "edu-tiny"}
local okp, ep = pcall(fresh.picture, fresh, {path = "never.png"})
assert(not okp and tostring(ep):find("nothing has moved yet", 1, true), tostring(ep))
-- a time window needs record = true; with it, the window's bytes are the links'
do
  local rec = simt.node{gpus = 2, arch = "edu-tiny", link = "pcie5", record = true}
  local r = C.run{node = rec, bytes = 4096}
  local okw, ew = pcall(fresh.picture, fresh, {path = "x.png", from = 0, to = 1})
  assert(not okw and tostring(ew):find("nothing has moved yet", 1, true), tostring(ew))
  local plain = simt.node{gpus = 2, arch = "edu-tiny", link = "pcie5"}
  C.run{node = plain, bytes = 4096}
  local okr, er = pcall(plain.picture, plain, {path = "x.png", from = 0, to = 1})
  assert(not okr and tostring(er):find("need a node made with record = true", 1, true), tostring(er))
  local okb, eb = pcall(rec.picture, rec, {path = "x.png", from = r.finish_s, to = r.start_s})
  assert(not okb and tostring(eb):find("0 <= from < to", 1, true), tostring(eb))
end
print("node pictures ok")
