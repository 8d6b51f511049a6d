-- compare.lua - run one workload on a CPU and on a GPU, the same kernel on
-- the same data, and say honestly which was faster, by how much, and why.
--
--   (scripts find lessons/lib with require; the sandbox has no package.path)
--   local compare = require("compare")
--   local c = compare.run{workload = "matmul_tiled16", n = 256,
--                         cpu = "cpu-server", gpu = "h200"}
--   print(c.speedup, c.cpu.gflops, c.gpu.gflops, c.identical)
--
-- Options:
--   workload  a matmul kernel name (matmul_naive, matmul_naive_T,
--             matmul_tiled16, matmul_tiled32, matmul_rect, matmul_reg64:
--             n x n matrices; matmul_reg64 is the fastest on both kinds of
--             device, the one to use for a fair large-size comparison),
--             "vecadd" (n elements) or "conv2d_direct" (an n x n image,
--             conv = {N = 1, C = 4, K = 8, R = 3, S = 3, pad = 1} by default)
--   n         problem size
--   cpu, gpu  a preset name, or a device made with simt.cpu / simt.gpu
--             (either side may be a CPU or a GPU: compare two CPUs if you like)
--   cpu_opts, gpu_opts  overrides when the side is given by name
--             (e.g. cpu_opts = {cores = 16})
--   conv      convolution shape (see above); seed (default 1)
--   quiet     true: do not print the summary
--   race      false: on a stage, run the two sides one after the other
--             (by default vecadd and matmul_reg64 race on one clock there,
--             both devices shown; the numbers are the same either way)
--   context   false: leave the "in context" paragraph (real measured
--             figures, see compare.CONTEXT) out of the summary
--
-- Time on each side = kernel time + that device's launch_us. For a GPU,
-- launch_us is the host-side cost of one kernel launch (measured 3.2 us on
-- an H200); for a CPU, the cost of waking its worker threads (0 for one
-- core: a plain function call). Copies between host and GPU memory are
-- NOT included: the data is assumed to be where each device needs it.
-- GFLOP/s = floating-point operations / that total time. Energy: on a
-- GPU whose preset has a power model (r.power_model: h200, h100; see
-- arch/CALIBRATION.md "Power and sustained clocks") the model's energy of
-- the kernel (r.energy_j, at the clock the power limit sustains) plus
-- static power x launch time; elsewhere (CPUs, presets without a power
-- model) the old estimate TDP (watts) x total time, as if the device ran at
-- full power. energy_method says which ("model" or "tdp").
--
-- The result:
--   c.cpu, c.gpu   {name, vendor, kernel_us, launch_us, time_us, gflops,
--                   kernel_gflops, energy_j, energy_method, where = {compute = fraction,
--                   memory = ..., sync = ..., idle = ..., launch = ...},
--                   result = the launch result table, out = output tensor}
--   c.speedup      cpu time / gpu time (> 1: the GPU side was faster)
--   c.faster       "gpu", "cpu" or "tie" (within 10%)
--   c.identical    true when both outputs are equal element by element
--   c.flops        floating-point operations of the workload
--   c.summary      the printed text

local W = require("workloads")
local conv = require("conv")

local compare = {}

-- A device from a name (CPU presets declare kind = "cpu") or an object.
local function device(spec, opts)
  if type(spec) ~= "string" then return spec end
  local t = { arch = spec }
  for k, v in pairs(opts or {}) do t[k] = v end
  local ok, dev = pcall(simt.cpu, t)
  if ok then return dev end
  if not tostring(dev):find("not a CPU", 1, true) then error(dev, 3) end
  return simt.gpu(t)
end

local function is_cpu(dev) return dev.kind == "cpu" end

-- What real hardware shows, for the summary (FP32 matrix multiply unless
-- said otherwise). Sources: reference/h200-measured.md (the project's copy of the figures: lessons/lib/calibrate.lua, M.measured) (H200
-- library GEMMs at 8192^3; Xeon Sapphire Rapids class, 16 cores: naive
-- loop, one-core and 16-core BLAS) and gpu-specs.md (EPYC 9554 peak).
-- The EPYC BLAS figure is an estimate: 70-85% of its 7.68 TFLOP/s peak.
compare.CONTEXT = [[
  In context (real hardware, FP32 matrix multiply, good code on both sides):
    - one CPU core vs a GPU: hundreds to tens of thousands of times. An H200
      library GEMM runs at 50.6 TFLOP/s; one Xeon core runs a plain loop at
      1.48 GFLOP/s (34,000x slower) and a tuned one-core BLAS with AVX-512 at
      110 GFLOP/s (460x). cpu-core here is one scalar core: ~2,000x.
    - a whole server CPU vs a GPU: tens of times at most. A 16-core Xeon BLAS
      reaches 1,229 GFLOP/s (41x slower than the H200); a 64-core EPYC 9554
      peaks at 7.68 TFLOP/s and a BLAS gets ~70-85% of that (~8-9x slower).
      This simulator gives ~6x for matmul_reg64 at n = 1024 (h200 19 TFLOP/s,
      cpu-server 3 TFLOP/s; tests/lua/test_cpu_order.lua): that simple GPU
      kernel reaches 29% of its peak. The library-class sgemm_128x128
      (128-bit loads, 8 x 8 outputs per thread) reaches 53 TFLOP/s, 79% of
      the H200's FP32 peak, at n = 2048 (arch/CALIBRATION.md), like the real
      library's 50.6; at lesson sizes (n <= 512) it has too few 128 x 128
      tiles for 132 SMs, so the ratio stays a few times there.
    - Tensor Cores widen the gap: H200 library GEMMs reach 395 TFLOP/s in
      TF32 and 756 in BF16, ~60-75x and ~115-140x a 64-core CPU's FP32 BLAS
      (a CPU's own BF16 instructions narrow this about 2x).
    - Small problems are different: a launch costs a few microseconds and a
      small grid leaves most of a GPU idle, so there the CPU can win.
]]

local function ceil_div(a, b) return (a + b - 1) // b end

-- matmul_reg64 (lessons/kernels/matmul_reg64.s; workloads.lua does not
-- know it yet): 64 x 64 tiles, 16 x 16 threads. Returns r with r.out.
local function matmul_reg64(dev, n, seed)
  seed = seed or 1
  local A = dev:tensor{ n, n, init = "random", seed = seed, name = "A" }
  local B = dev:tensor{ n, n, init = "random", seed = seed + 1, name = "B" }
  local C = dev:tensor{ n, n, name = "C" }
  -- check = false on both devices (a CPU has no checker to turn off)
  local cfg = { grid = { ceil_div(n, 64), ceil_div(n, 64) }, block = { 16, 16 }, check = false }
  local r = dev:launch(W.kernel("matmul_reg64"), cfg, A, B, C, n)
  r.A, r.B, r.out, r.kernel = A, B, C, "matmul_reg64"
  return r
end

-- Run the workload on dev; returns the launch result and the output tensor.
local function run_on(dev, o)
  local w, n = o.workload, o.n
  if w == "vecadd" then
    local r = W.vecadd(dev, n, { seed = o.seed })
    return r, r.out
  elseif w == "conv2d_direct" then
    local z = o.conv or {}
    local N, C, K, R, S = z.N or 1, z.C or 4, z.K or 8, z.R or 3, z.S or 3
    local X = dev:tensor{ N, C, n, n, init = "random", seed = o.seed or 1, name = "X" }
    local Wt = dev:tensor{ K, C, R, S, init = "random", seed = (o.seed or 1) + 1, name = "Wt" }
    local Y, runs = conv.direct(dev, X, Wt, { pad = z.pad or 1, stride = z.stride or 1 })
    return runs.direct, Y
  elseif w == "matmul_reg64" then
    local r = matmul_reg64(dev, n, o.seed)
    return r, r.out
  elseif w:match("^matmul") or w == "sgemm_128x128" then
    local r = W.matmul(dev, w, n, { seed = o.seed, check = false })
    return r, r.out
  end
  error("compare: unknown workload '" .. tostring(w) .. "' (matmul_*, vecadd, conv2d_direct)", 3)
end

-- Where a device's time went, as fractions of its total time (kernel +
-- launch). CPU: compute / memory / overhead (starting blocks: "sync") /
-- idle cores. GPU: issuing or waiting on arithmetic (compute), waiting on
-- memory, at barriers (sync), idle schedulers.
local function where(dev, r, total_us, launch_us)
  local k = total_us > 0 and r.time_us / total_us or 0
  local t = { launch = total_us > 0 and launch_us / total_us or 0 }
  if is_cpu(dev) then
    t.compute, t.memory = r.time.compute * k, r.time.memory * k
    t.sync, t.idle = r.time.overhead * k, r.time.idle * k
  else
    local s = r.stall_frac
    t.compute = (s.issued + s.dependency + s.pipe) * k
    t.memory, t.sync, t.idle = s.memory * k, s.barrier * k, s.idle * k
  end
  return t
end

-- On a stage, the two sides of a comparison race on one clock, so that a
-- class sees both devices (the same launches as run_on: the same numbers).
-- Returns {kernel, cfg, args} for the workloads a lesson races, or nil.
local function race_entry(dev, o)
  local n, seed = o.n, o.seed or 1
  if o.workload == "vecadd" then
    local A = dev:tensor{ n, init = "random", seed = seed, name = "A" }
    local B = dev:tensor{ n, init = "random", seed = seed + 1, name = "B" }
    local C = dev:tensor{ n, name = "C" }
    return { dev, W.kernel("vecadd"), { grid = ceil_div(n, 128), block = 128 }, A, B, C, n, out = C }
  elseif o.workload == "matmul_reg64" then
    local A = dev:tensor{ n, n, init = "random", seed = seed, name = "A" }
    local B = dev:tensor{ n, n, init = "random", seed = seed + 1, name = "B" }
    local C = dev:tensor{ n, n, name = "C" }
    local cfg = { grid = { ceil_div(n, 64), ceil_div(n, 64) }, block = { 16, 16 } }
    if not is_cpu(dev) then cfg.check = false end
    return { dev, W.kernel("matmul_reg64"), cfg, A, B, C, n, out = C }
  end
end

local function side(dev, o, r, out)
  if not r then r, out = run_on(dev, o) end
  local launch = dev.desc.launch_us
  local total = r.time_us + launch
  local energy, method = dev.desc.tdp_watts * total * 1e-6, "tdp"
  if r.power_model then   -- the kernel's modelled energy; the launch gap at static power
    energy, method = r.energy_j + dev.desc.power_static_w * launch * 1e-6, "model"
  end
  return {
    name = dev.name, vendor = dev.desc.vendor_name, kind = is_cpu(dev) and "cpu" or "gpu",
    kernel_us = r.time_us, launch_us = launch, time_us = total,
    gflops = total > 0 and r.flops / total / 1e3 or 0,
    kernel_gflops = r.time_us > 0 and r.flops / r.time_us / 1e3 or 0,
    energy_j = energy, energy_method = method,
    where = where(dev, r, total, launch), result = r, out = out, flops = r.flops,
  }
end

local function pct(x) return string.format("%d%%", math.floor(x * 100 + 0.5)) end

local function shape_of(dev)
  local d = dev.desc
  if is_cpu(dev) then
    return string.format("%d core%s x %d SIMD lane%s at %.2f GHz", d.cores, d.cores == 1 and "" or "s",
                         d.simd_width, d.simd_width == 1 and "" or "s", d.clock_mhz / 1000)
  end
  return string.format("%d SMs x %d FP32 lanes at %.2f GHz", d.sms, d.fp32_lanes_per_sm, d.clock_mhz / 1000)
end

local function describe(s, dev)
  local w = s.where
  return string.format(
    "  %s (%s; %s)\n" ..
    "    time %.2f us = kernel %.2f us + launch %.2f us;  %.1f GFLOP/s;  energy ~%.3g mJ (%s)\n" ..
    "    time went to: computing %s, waiting for memory %s, barriers/block starts %s, idle %s, launch %s\n",
    s.name, s.vendor, shape_of(dev), s.time_us, s.kernel_us, s.launch_us, s.gflops, s.energy_j * 1e3,
    s.energy_method == "model" and string.format("power model: %.0f W at %.0f MHz in the kernel",
                                                 s.result.avg_power_w, s.result.clock_mhz_sustained)
      or "TDP x time",
    pct(w.compute), pct(w.memory), pct(w.sync), pct(w.idle), pct(w.launch))
end

-- compare.run{...}: see the top of this file.
function compare.run(o)
  assert(type(o) == "table", "compare.run expects a table of options")
  assert(o.workload, "compare.run: give a workload, e.g. workload = \"matmul_tiled16\"")
  assert(math.type(o.n) == "integer" and o.n >= 1, "compare.run: n must be an integer >= 1")
  local cdev = device(o.cpu or "cpu-server", o.cpu_opts)
  local gdev = device(o.gpu or "h200", o.gpu_opts)
  local c = { workload = o.workload, n = o.n }
  local ec = simt.on_stage() and o.race ~= false and race_entry(cdev, o)
  local eg = ec and race_entry(gdev, o)
  if ec and eg then   -- both devices on the stage at once
    local res = simt.race{ ec, eg }
    c.cpu = side(cdev, o, res[1], ec.out)
    c.gpu = side(gdev, o, res[2], eg.out)
  else
    c.cpu = side(cdev, o)
    c.gpu = side(gdev, o)
  end
  c.flops = c.gpu.flops
  c.speedup = c.gpu.time_us > 0 and c.cpu.time_us / c.gpu.time_us or math.huge
  c.faster = (c.speedup > 1.1 and "gpu") or (c.speedup < 1 / 1.1 and "cpu") or "tie"
  local a, b = c.cpu.out:to_table(), c.gpu.out:to_table()
  c.identical = #a == #b
  for i = 1, #a do
    if a[i] ~= b[i] then c.identical = false break end
  end
  local verdict
  if c.faster == "gpu" then
    verdict = string.format("%s finished %.1fx sooner than %s.", c.gpu.name, c.speedup, c.cpu.name)
  elseif c.faster == "cpu" then
    verdict = string.format("%s finished %.1fx sooner than %s: the problem is too small to keep %s busy, "
                            .. "and starting a kernel costs more than the work.", c.cpu.name, 1 / c.speedup,
                            c.gpu.name, c.gpu.name)
  else
    verdict = "A tie (within 10%)."
  end
  c.summary = string.format("%s, n = %d: %.3g million floating-point operations, the same kernel on the same data\n",
                            o.workload, o.n, c.flops / 1e6)
    .. describe(c.cpu, cdev) .. describe(c.gpu, gdev)
    .. "  " .. verdict .. " Energy ratio (cpu / gpu): "
    .. string.format("%.2g", c.gpu.energy_j > 0 and c.cpu.energy_j / c.gpu.energy_j or 0) .. ".\n"
    .. "  The results are " .. (c.identical and "bit-identical." or "DIFFERENT (a bug, or a race in the kernel).")
  for _, side in ipairs{ c.cpu, c.gpu } do
    if side.where.idle > 0.5 then
      c.summary = c.summary .. string.format("\n  %s was idle %s of the time: the problem is too small to fill it "
                                             .. "(try a larger n).", side.name, pct(side.where.idle))
    end
  end
  if o.context ~= false and c.cpu.kind ~= c.gpu.kind then
    c.summary = c.summary .. "\n" .. compare.CONTEXT
  end
  if not o.quiet then print(c.summary) end
  return c
end

return compare
