-- dataparallel.lua - one data-parallel training step on a node of simulated
-- GPUs (lesson 14): every GPU runs the forward and backward pass of a stack
-- of linear layers on its share of the batch, then the gradients are summed
-- over the GPUs with a ring all-reduce (simt.node), with or without
-- overlap (buckets, as frameworks do: a layer's gradients start their
-- all-reduce as soon as every GPU has them, while the backward pass goes on).
--
--   local DP = require("dataparallel")
--   local run = DP.run{gpus = {1, 2, 4, 8}, links = {"nvlink", "pcie4-host"}}
--   run.rows[k] = {n, link, overlap, compute_s, step_s, speedup, efficiency}
--
-- The GPUs are a scale model: each is an H200 cut to `sms` SMs with its
-- share of the memory bandwidth (calibrate.share), and every link's
-- bandwidth is cut by the same factor (simt.node scale = sms / 132), so
-- compute and communication keep the proportions of a whole H200 server
-- running a model sms/132 times smaller... or rather: the times are those
-- of the real server on a model 132/sms times bigger. Link latencies are
-- not scaled.
--
-- The layers: Y[l+1] = Y[l] x W[l] (f32, lessons/kernels/sgemm_128x128.s),
-- loss gradient D[L+1] = Y[L+1] - target (vecadd_v4.s with the target
-- negated), backward dW[l] = Y[l]^T x D[l+1] and D[l] = D[l+1] x W[l]^T
-- (transposes by lessons/kernels/transpose.s). Strong scaling: the global
-- batch is fixed and split evenly, so N GPUs each do 1/N of the work.
--
-- The kernels run with nd:launch (not shown on a stage: hundreds of short
-- launches would take minutes to watch). The compute of N GPUs runs once,
-- for real, on the first N GPUs; its
-- kernel times are then laid out on the clock of each machine (link) and
-- mode: the GPUs' work does not depend on the link between them. Before
-- each all-reduce the local gradients are put back, and every all-reduced
-- gradient is checked against the gradient of the whole batch computed on
-- one GPU (data parallelism must not change the result).

local cal = require("calibrate")

local DP = {}

DP.DEFAULTS = {layers = 3, width = 128, batch = 1024, sms = 1}

local kernels = {}
local function kernel(name)
  kernels[name] = kernels[name] or simt.kernel("lessons/kernels/" .. name .. ".s")
  return kernels[name]
end

local function cdiv(a, b) return (a + b - 1) // b end

-- The 8 GPUs of the scale model (made once per run).
function DP.make_gpus(o)
  local gs = {}
  for i = 1, 8 do gs[i] = simt.gpu(cal.share(o.sms)) end
  return gs
end

-- Forward and backward of the layer stack on GPU g for rows X (b x h);
-- returns the gradients dW[1..L] and the list of launches {s = seconds,
-- bucket = l when dW[l] is complete}.
local function pass(cn, i, X, negT, Ws, o)
  local L, h = o.layers, o.width
  local g = cn:gpu(i)
  local b = X:shape()
  local launches = {}
  local function go(name, cfg, ...)
    local r = cn:launch(i, kernel(name), cfg, ...)
    launches[#launches + 1] = {s = r.time_us * 1e-6}
    return r
  end
  local function gemm(A, B, C, M, N, K)
    go("sgemm_128x128", {grid = {cdiv(N, 128), cdiv(M, 128)}, block = {256}}, A, B, C, M, N, K)
  end
  local function transpose(A, AT, R, C)
    go("transpose", {grid = {cdiv(C, 16), cdiv(R, 16)}, block = {16, 16}}, A, AT, R, C)
  end
  local Y = {X}
  for l = 1, L do
    Y[l + 1] = g:tensor{b, h}
    gemm(Y[l], Ws[l], Y[l + 1], b, h, h)
  end
  local D = {}
  D[L + 1] = g:tensor{b, h}
  go("vecadd_v4", {grid = {cdiv(b * h, 4 * 256)}, block = {256}}, Y[L + 1], negT, D[L + 1], b * h)
  local dW, YT, WT = {}, g:tensor{h, b}, g:tensor{h, h}
  for l = L, 1, -1 do
    transpose(Y[l], YT, b, h)
    dW[l] = g:tensor{h, h}
    gemm(YT, D[l + 1], dW[l], h, h, b)
    launches[#launches].bucket = l
    if l > 1 then
      transpose(Ws[l], WT, h, h)
      D[l] = g:tensor{b, h}
      gemm(D[l + 1], WT, D[l], b, h, h)
    end
  end
  return dW, launches
end

-- The rows of host tensor t (as a flat table) for part i of n.
local function part(flat, i, n, rows, h)
  local b = rows // n
  return table.move(flat, (i - 1) * b * h + 1, i * b * h, 1, {})
end

-- The compute of one step on the first n GPUs: gradients and launches per GPU.
function DP.compute(gs, n, o, data)
  local h, b = o.width, o.batch // n
  local out = {grads = {}, launches = {}, n = n}
  -- a node only to run the kernels (its clocks are not used: DP.schedule
  -- lays the times out on each machine's own node)
  local list = {}
  for i = 1, n do list[i] = gs[i] end
  local cn = simt.node{gpus = list}
  for i = 1, n do
    local g = gs[i]
    local X = g:tensor{b, h}
    X:copy_from(part(data.X, i, n, o.batch, h))
    local negT = g:tensor{b, h}
    negT:copy_from(part(data.negT, i, n, o.batch, h))
    local Ws = {}
    for l = 1, o.layers do
      Ws[l] = g:tensor{h, h}
      Ws[l]:copy_from(data.W[l])
    end
    out.grads[i], out.launches[i] = pass(cn, i, X, negT, Ws, o)
  end
  return out
end

-- Lay one step out on node nd: every GPU's launches on its compute stream,
-- the all-reduce of each layer's gradients (the last layer first, as the
-- backward pass makes them) once all GPUs have them (overlap) or after
-- the whole backward pass (no overlap). Returns compute_s, step_s, comm_s.
function DP.schedule(nd, comp, o, overlap)
  local n, L = comp.n, o.layers
  local ready, done = {}, 0
  for i = 1, n do
    for _, ln in ipairs(comp.launches[i]) do
      local t = nd:busy(i, ln.s)
      if ln.bucket then ready[ln.bucket] = math.max(ready[ln.bucket] or 0, t) end
      done = math.max(done, t)
    end
  end
  local finish, comm = done, 0
  if n > 1 then
    for l = L, 1, -1 do
      local ts = {}
      for i = 1, n do ts[i] = comp.grads[i][l] end
      local r = nd:allreduce(ts, {after = overlap and ready[l] or done})
      finish, comm = math.max(finish, r.finish_s), comm + r.time_s
    end
  end
  return done, finish, comm
end

-- The whole experiment. o: gpus (list of N), links (list of link names),
-- and DP.DEFAULTS' fields. Returns {rows = ..., o = ..., ok = all gradients right}.
function DP.run(o)
  o = o or {}
  for k, v in pairs(DP.DEFAULTS) do if o[k] == nil then o[k] = v end end
  o.gpus = o.gpus or {1, 2, 4, 8}
  o.links = o.links or {"nvlink", "pcie4-host"}
  local h = o.width
  local data = {
    X = simt.tensor{o.batch, h, init = "random", seed = 1, lo = -1, hi = 1}:to_table(),
    negT = simt.tensor{o.batch, h, init = "random", seed = 2, lo = -1, hi = 1}:to_table(),
    W = {},
  }
  for l = 1, o.layers do
    data.W[l] = simt.tensor{h, h, init = "random", seed = 10 + l, lo = -0.1, hi = 0.1}
  end
  local gs = DP.make_gpus(o)
  local rows, ok, base, want = {}, true, {}, nil
  local scale = o.sms / cal.CHIP_SMS
  for _, n in ipairs(o.gpus) do
    assert(o.batch % (8 * n) == 0, "dataparallel: the batch must split into 8-row multiples")
    local comp = DP.compute(gs, n, o, data)
    local saved = {}
    for i = 1, n do
      saved[i] = {}
      for l = 1, o.layers do saved[i][l] = comp.grads[i][l]:to_host() end
    end
    if not want then want = saved[1] end   -- the first run (n = 1): the whole batch
    for _, link in ipairs(o.links) do
      for _, overlap in ipairs{false, true} do
        for i = 1, n do
          for l = 1, o.layers do comp.grads[i][l]:copy_from(saved[i][l]) end
        end
        local list = {}
        for i = 1, n do list[i] = gs[i] end
        local nd = simt.node{gpus = list, link = link, scale = scale}
        local compute, step, comm = DP.schedule(nd, comp, o, overlap)
        for i = 1, n do
          for l = 1, o.layers do
            if not comp.grads[i][l]:allclose(want[l], 1e-4, 1e-4) then ok = false end
          end
        end
        local key = link .. (overlap and "+" or "")
        base[key] = base[key] or (n == 1 and step or nil)
        rows[#rows + 1] = {n = n, link = link, overlap = overlap, compute_s = compute,
                           step_s = step, comm_s = comm, node = nd,
                           speedup = base[key] and base[key] / step or nil,
                           efficiency = base[key] and base[key] / (n * step) or nil}
      end
    end
  end
  return {rows = rows, o = o, ok = ok, scale = scale}
end

-- The row for n GPUs on link (overlap true/false), or nil.
function DP.find(run, n, link, overlap)
  for _, r in ipairs(run.rows) do
    if r.n == n and r.link == link and r.overlap == overlap then return r end
  end
end

return DP
