-- sweep.lua - turn one knob of a GPU and run a workload at every setting.
--
--   (scripts find lessons/lib with require; the sandbox has no package.path)
--   local S = require("sweep")
--   local rows = S.run{arch = "h200", param = "sms", values = {1, 2, 4, 8},
--                      workload = "matmul_tiled16", size = 256}
--   S.save_csv(rows, "sweep.csv")         -- one row per value
--   S.chart(rows, "sweep.png")            -- time against the knob
--
-- Also the engine of `simtlab sweep ...` (S.main). Every run is checked
-- against the reference (simt.ref); a wrong result stops the sweep with an
-- error, because timing a wrong answer teaches nothing.
--
-- Rows hold: param, value, workload, size, gpu, ok, max_err and every
-- number of the launch result (cycles, time_us, tflops, dram_gbs, l2_gbs,
-- occupancy, ipc, lane_utilisation, l1_hit_rate, l2_hit_rate, stalls,
-- stall_frac, ...).

local W = require("workloads")

local S = {}

-- Workload runners: name -> function(g, size) returning the launch result
-- (with r.ok and r.max_err filled by the workloads library).
local runners = {}
for _, k in ipairs(W.matmul_kernels()) do
  runners[k] = function(g, n) return W.matmul(g, k, n) end
end
runners.matmul_rect = function(g, n) return W.matmul(g, "matmul_rect", n) end
runners.vecadd = function(g, n) return W.vecadd(g, n) end

-- The workload names S.run accepts, sorted.
function S.workloads()
  local t = {}
  for k in pairs(runners) do t[#t + 1] = k end
  table.sort(t)
  return t
end

-- Axis labels (with units) of the common knobs.
local param_labels = {
  sms = "streaming multiprocessors (SMs)",
  dram_gbps = "DRAM bandwidth (GB/s)",
  clock_mhz = "core clock (MHz)",
  l2_bytes_per_clk = "L2 bandwidth (bytes per cycle)",
  max_threads_per_sm = "threads per SM",
  max_mem_inflight = "memory requests in flight per SM",
  l1_bytes = "L1 size (bytes)",
  l2_bytes = "L2 size (bytes)",
  lat_dram = "DRAM latency (cycles)",
}

function S.param_label(p) return param_labels[p] or p end

-- S.run(opts) -> rows. opts:
--   arch      preset name (default "edu-tiny")
--   param     the gpu_desc_t field to change ("sms", "dram_gbps", ...)
--   values    list of settings, run in this order
--   workload  a name from S.workloads(), default "matmul_tiled16"
--   size      problem size (matrix n or vector length), default 64
--   set       other fields to fix for every run ({dram_gbps = 1000})
--   progress  function(row) called after each run (optional)
function S.run(opts)
  assert(type(opts) == "table", "sweep.run: expects a table of options")
  local arch = opts.arch or "edu-tiny"
  local param = opts.param
  local values = opts.values
  local workload = opts.workload or "matmul_tiled16"
  local size = opts.size or 64
  if type(param) ~= "string" then error("sweep: 'param' must be a GPU field name like \"sms\"", 2) end
  if type(values) ~= "table" or #values == 0 then error("sweep: 'values' must be a non-empty list", 2) end
  local run = runners[workload]
  if not run then
    error("sweep: unknown workload '" .. tostring(workload) .. "' (workloads: "
          .. table.concat(S.workloads(), ", ") .. ")", 2)
  end
  if math.type(size) ~= "integer" or size < 1 then error("sweep: 'size' must be an integer >= 1", 2) end
  if param == "arch" or param == "name" then error("sweep: cannot sweep '" .. param .. "'", 2) end
  local ov = simt.overrides
  if type(ov) == "table" and ov[param] ~= nil then
    error("sweep: the sweep changes '" .. param .. "' but the command line fixes it "
          .. "(simt.overrides." .. param .. " = " .. tostring(ov[param]) .. ")", 2)
  end
  local rows = {}
  for i, v in ipairs(values) do
    local spec = { arch = arch }
    for k, x in pairs(opts.set or {}) do spec[k] = x end
    spec[param] = v
    local g = simt.gpu(spec)
    local r = run(g, size)
    if not r.ok then
      error(string.format("sweep: %s gave a wrong result at %s = %s (max error %g)",
                          workload, param, tostring(v), r.max_err or -1), 2)
    end
    local row = {}
    for k, x in pairs(r) do
      if type(x) ~= "userdata" then row[k] = x end
    end
    row.param, row.value, row.workload, row.size = param, v, workload, size
    row.gpu = g.name
    rows[i] = row
    if opts.progress then opts.progress(row) end
  end
  return rows
end

-- The first CSV columns; the rest follow sorted by name.
S.columns = { "param", "value", "workload", "size", "gpu", "ok", "cycles", "time_us",
              "tflops", "dram_gbs", "l2_gbs", "l1_gbs", "occupancy", "ipc",
              "lane_utilisation", "l1_hit_rate", "l2_hit_rate", "max_err" }

function S.save_csv(rows, path)
  simt.save_csv(path, rows, { columns = S.columns })
end

local short_names = { time_us = "kernel time", cycles = "cycles", tflops = "TFLOP/s",
                      dram_gbs = "DRAM GB/s", sms = "SMs", dram_gbps = "DRAM bandwidth",
                      clock_mhz = "clock" }

-- S.chart(rows, path, opts): kernel time against the swept value.
-- opts: title, y ("time_us" default, or any numeric row field), y_label,
-- log_x (default: when the values span a factor of 8 or more).
function S.chart(rows, path, opts)
  opts = opts or {}
  local yk = opts.y or "time_us"
  local x, y = {}, {}
  local lo, hi = math.huge, -math.huge
  for i, r in ipairs(rows) do
    x[i], y[i] = r.value, r[yk]
    lo, hi = math.min(lo, r.value), math.max(hi, r.value)
  end
  local r1 = rows[1]
  local log_x = opts.log_x
  if log_x == nil then log_x = lo > 0 and hi / lo >= 8 end
  local ylabels = { time_us = "kernel time (µs, lower is better)", cycles = "cycles",
                    tflops = "TFLOP/s (higher is better)", dram_gbs = "DRAM GB/s" }
  simt.chart{
    path = path,
    title = opts.title or string.format("%s (size %d) on %s: %s vs %s", r1.workload, r1.size,
                                        r1.gpu, short_names[yk] or yk,
                                        short_names[r1.param] or r1.param),
    x_label = S.param_label(r1.param) .. (log_x and "  [log scale]" or ""),
    y_label = opts.y_label or ylabels[yk] or yk,
    x = x,
    series = { { name = string.format("%s %d", r1.workload, r1.size), y = y } },
    log_x = log_x,
  }
end

-- S.main(opts): `simtlab sweep`: run, print a table, write opts.out (CSV)
-- and opts.png when given.
function S.main(opts)
  print(string.format("%-10s %12s %12s %9s %10s %9s  %s", opts.param, "cycles", "time_us",
                      "TFLOP/s", "DRAM GB/s", "occupancy", "correct"))
  opts.progress = function(r)
    print(string.format("%-10s %12d %12.3f %9.4f %10.1f %9.2f  %s", tostring(r.value), r.cycles,
                        r.time_us, r.tflops, r.dram_gbs, r.occupancy, r.ok and "yes" or "NO"))
    io.stdout:flush()
  end
  local rows = S.run(opts)
  if opts.out then
    S.save_csv(rows, opts.out)
    print("wrote " .. opts.out)
  end
  if opts.png then
    S.chart(rows, opts.png)
    print("wrote " .. opts.png)
  end
  return rows
end

return S
