-- roofline.lua - where the lesson kernels land on a GPU's roofline.
--
--   local RL = require("roofline")
--   local rows, roofs, bws = RL.main{arch = "h200", png = "roofline.png"}
--
-- A roofline puts each kernel run at x = arithmetic intensity (FLOP per
-- byte moved to or from DRAM) and y = achieved TFLOP/s, under the GPU's
-- roofs: a flat line per precision (the most FLOP/s the cores can do) and
-- a slanted line per memory level (bandwidth x intensity: the most FLOP/s
-- the bytes can feed). Where the DRAM line meets the FP32 roof is the
-- ridge point: a kernel left of it cannot reach the FP32 peak whatever its
-- code does (memory bound), one right of it could (compute bound).
--
-- Something the chart shows that surprises people: at these sizes the
-- matrices fit in the 60 MB L2, so a matmul moves each matrix to or from
-- DRAM once, 12 n^2 bytes for 2 n^3 FLOP: its intensity is n / 6 whatever
-- the kernel. Kernels of the same n stand on one vertical line; the better
-- kernel is higher up (it wastes less time on L1/L2/shared traffic and
-- latency), and a bigger n moves right. matmul_naive at n = 64 is left of
-- h200's ridge (10.7 < 13.9 FLOP/byte), at n = 256 right of it (42.7),
-- and there matmul_tiled32 stands 4.6 x higher. Each kernel runs at its
-- own n (64, 128, 256, 512, 1024) so that no two dots hide each other,
-- plus naive at 256 beside tiled32 at 256; the whole run takes ~6 s.
--
-- Every result is checked against the CPU reference (simt.ref); a wrong
-- one stops with an error. The roofs come from the GPU description (g.desc):
--   FP32     fp32_lanes_per_sm x 2 (an FMA is 2 FLOP) x sms x clock
--   Tensor   tc_flops_per_clk_{tf32,f16,bf16,fp8} x sms x clock
--   DRAM     dram_gbps
--   L2       l2_bytes_per_clk x clock
--   shared   smem_banks x 4 bytes x sms x clock

local W = require("workloads")
local P = require("precision")

local RL = {}

-- RL.roofs(desc) -> roofs, bandwidths: the compute roofs (TFLOP/s, FP32
-- first) and memory roofs (TB/s, DRAM first) of a GPU description (g.desc),
-- as simt.roofline takes them. Tensor Core formats with the same peak share
-- one roof ("Tensor FP16/BF16").
function RL.roofs(d)
  local clk = d.clock_mhz * 1e6
  local roofs = { { name = "FP32", tflops = d.fp32_lanes_per_sm * 2 * d.sms * clk / 1e12 } }
  local tc = { { "TF32", d.tc_flops_per_clk_tf32 }, { "FP16", d.tc_flops_per_clk_f16 },
               { "BF16", d.tc_flops_per_clk_bf16 }, { "FP8", d.tc_flops_per_clk_fp8 } }
  local by_rate, order = {}, {}
  for _, t in ipairs(tc) do
    local rate = t[2] or 0
    if rate > 0 then
      if not by_rate[rate] then
        by_rate[rate] = {}
        order[#order + 1] = rate
      end
      table.insert(by_rate[rate], t[1])
    end
  end
  table.sort(order)
  for _, rate in ipairs(order) do
    roofs[#roofs + 1] = { name = "Tensor " .. table.concat(by_rate[rate], "/"),
                          tflops = rate * d.sms * clk / 1e12 }
  end
  local bws = {
    { name = "DRAM", tbs = d.dram_gbps / 1000 },
    { name = "L2", tbs = d.l2_bytes_per_clk * clk / 1e12 },
    { name = "shared", tbs = d.smem_banks * 4 * d.sms * clk / 1e12 },
  }
  return roofs, bws
end

-- The ridge point of DRAM against FP32, FLOP per byte.
function RL.ridge(roofs, bws) return roofs[1].tflops / bws[1].tbs end

-- The runs: label, the roof that applies, and a function(g) returning the
-- launch result with r.ok set (checked against simt.ref).
local function matmul_case(kernel, n)
  return { name = ("%s %d"):format(kernel, n), kernel = kernel, size = n, roof = "FP32",
           run = function(g) return W.matmul(g, kernel, n) end }
end

RL.cases = {
  { name = "vecadd 1M", kernel = "vecadd", size = 1 << 20, roof = "FP32",
    run = function(g) return W.vecadd(g, 1 << 20) end },
  matmul_case("matmul_naive", 64),
  matmul_case("matmul_tiled16", 128),
  matmul_case("matmul_naive", 256),
  matmul_case("matmul_tiled32", 256),
  matmul_case("matmul_reg64", 512),
  { name = "tc_gemm_async_f16 1024", kernel = "tc_gemm_async_f16", size = 1024, roof = "FP16",
    run = function(g)
      -- kernel checker off: 4 x faster here, and the statistics are the same
      -- with it on or off (tests/lua/test_golden.lua); the result is still
      -- compared with simt.ref below
      local r = P.matmul(g, "f16", 1024, "async", false)
      -- FP16 inputs: the error of rounding them, not of a wrong answer (see precision.lua)
      r.ok = r.rel_err < 1.5 * r.expected
      r.max_err = r.rel_err
      return r
    end },
}

-- The compute roof a run is held to: the first whose name mentions `want`.
local function roof_for(roofs, want)
  for _, rf in ipairs(roofs) do
    if rf.name:find(want, 1, true) then return rf end
  end
  return roofs[1]
end

-- RL.run(opts) -> rows, roofs, bandwidths. opts: arch (default "h200"),
-- cases (default RL.cases), progress (function(row), optional). Each row:
-- name, kernel, size, flops, dram_bytes, intensity (FLOP/byte), tflops,
-- time_us, roof (its name), roof_tflops, attainable (the lower of the roof
-- and DRAM x intensity), of_attainable (tflops / attainable), side
-- ("memory bound" left of the ridge, "compute bound" right of it).
function RL.run(opts)
  opts = opts or {}
  local g = simt.gpu{ arch = opts.arch or "h200" }
  local roofs, bws = RL.roofs(g.desc)
  local ridge = RL.ridge(roofs, bws)
  local rows = {}
  for _, c in ipairs(opts.cases or RL.cases) do
    local r = c.run(g)
    if not r.ok then
      error(("roofline: %s gave a wrong result on %s (error %g)"):format(c.name, g.name,
            r.max_err or -1), 2)
    end
    if r.dram_bytes <= 0 or r.flops <= 0 then
      error(("roofline: %s moved %d DRAM bytes for %d FLOP: no intensity to plot"):format(
            c.name, r.dram_bytes, r.flops), 2)
    end
    local roof = roof_for(roofs, c.roof)
    local row = { name = c.name, kernel = c.kernel, size = c.size, flops = r.flops,
                  dram_bytes = r.dram_bytes, intensity = r.flops / r.dram_bytes,
                  tflops = r.tflops, time_us = r.time_us, roof = roof.name,
                  roof_tflops = roof.tflops }
    row.attainable = math.min(roof.tflops, bws[1].tbs * row.intensity)
    row.of_attainable = row.tflops / row.attainable
    row.side = row.intensity < ridge and "memory bound" or "compute bound"
    rows[#rows + 1] = row
    if opts.progress then opts.progress(row) end
  end
  return rows, roofs, bws, g
end

-- RL.print(rows, roofs, bws, gpu_name): the roofs, then one line per run.
function RL.print(rows, roofs, bws, gpu_name)
  print(("Roofline of %s"):format(gpu_name or "?"))
  print("  compute roofs (most FLOP/s the cores can do):")
  for _, rf in ipairs(roofs) do print(("    %-22s %9.1f TFLOP/s"):format(rf.name, rf.tflops)) end
  print("  memory roofs (most bytes per second each level can move):")
  for _, b in ipairs(bws) do print(("    %-22s %9.2f TB/s"):format(b.name, b.tbs)) end
  print(("  ridge point (DRAM vs FP32): %.1f FLOP per DRAM byte; left of it memory bound"):format(
        RL.ridge(roofs, bws)))
  print()
  print(("%-24s %14s %13s %10s %10s %11s %8s  %s"):format("run", "FLOP", "DRAM bytes",
        "FLOP/byte", "TFLOP/s", "roof TF/s", "of roof", "side of the ridge"))
  for _, r in ipairs(rows) do
    print(("%-24s %14d %13d %10.3f %10.3f %11.1f %7.2f%%  %s"):format(r.name, r.flops,
          r.dram_bytes, r.intensity, r.tflops, r.attainable, 100 * r.of_attainable, r.side))
  end
  print("  (roof TF/s: the lower of the run's compute roof and DRAM bandwidth x its intensity)")
end

-- RL.chart(rows, roofs, bws, path, opts): the PNG. opts: title, width, height.
function RL.chart(rows, roofs, bws, path, opts)
  opts = opts or {}
  local points = {}
  for i, r in ipairs(rows) do
    points[i] = { name = r.name, intensity = r.intensity, tflops = r.tflops }
  end
  simt.roofline{
    path = path,
    title = opts.title or "Roofline",
    subtitle = "each dot is one checked run; a slanted line caps what memory can feed, "
               .. "a flat line what the cores can do",
    roofs = roofs, bandwidths = bws, points = points,
    width = opts.width, height = opts.height,
  }
end

-- RL.main{arch = "h200", png = "roofline.png"}: run, print the table, draw
-- the chart (when png is given). Returns rows, roofs, bandwidths.
function RL.main(opts)
  opts = opts or {}
  local rows, roofs, bws, g = RL.run(opts)
  RL.print(rows, roofs, bws, g.desc.vendor_name .. " (" .. g.name .. ", simulated)")
  if opts.png then
    RL.chart(rows, roofs, bws, opts.png, {
      title = ("Roofline: %s (simulated)"):format(g.desc.vendor_name),
      width = opts.width, height = opts.height })
    print(("wrote %s"):format(opts.png))
  end
  return rows, roofs, bws
end

return RL
