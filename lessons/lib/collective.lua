-- collective.lua - collectives on a node of simulated GPUs, as nccl-tests
-- measures them (simtlab collective ...; lesson 14).
--
--   local C = dofile("lessons/lib/collective.lua")   -- or require("collective")
--   local r = C.run{op = "allreduce", gpus = 8, arch = "h200", link = "nvlink",
--                   bytes = 1 << 20, algo = "ring"}
--   r.time_s r.algbw_gbs r.busbw_gbs r.correct r.bytes
--
-- Every GPU starts with its own random f32 data; the collective really
-- moves it (simt.node, sim/core/node.h) and reduces it with
-- lessons/kernels/vecadd_v4.s on the GPUs; the result is compared with a
-- reference sum made on the host before the collective ran.
--
-- algbw = bytes / time; busbw = algbw x 2(n-1)/n for all-reduce, (n-1)/n
-- for reduce-scatter and all-gather, 1 for broadcast: the definitions of
-- nccl-tests (its doc/PERFORMANCE.md), so busbw can be held against the
-- link's own bandwidth whatever the number of GPUs.

local M = {}

M.OPS = {allreduce = "allreduce", reduce_scatter = "reduce_scatter",
         all_gather = "all_gather", broadcast = "broadcast"}

-- "64M" -> 67108864 (K, M, G are powers of 1024, as nccl-tests reads them)
function M.parse_bytes(s)
  local num, unit = tostring(s):match("^(%d+)([KkMmGg]?)[iI]?[Bb]?$")
  if not num then return nil end
  local mult = ({[""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3})[unit:lower()]
  return math.tointeger(tonumber(num) * mult)
end

-- bytes rounded up to whole groups of 4 floats, at least one group per GPU
function M.round_bytes(bytes, gpus)
  return math.max(16 * gpus, (bytes + 15) // 16 * 16)
end

-- the first element (0-based) of ring chunk c of count floats over n GPUs
-- (sim/core/node.c chunk_off: whole groups of 4 floats)
local function chunk_first(count, n, c) return 4 * ((count // 4) * c // n) end

-- One collective on a new node. o: op, gpus, arch, link, bytes, algo, node
-- (an existing node to reuse instead of making one), check (default true).
function M.run(o)
  local op = M.OPS[o.op or "allreduce"]
  assert(op, "unknown collective '" .. tostring(o.op) .. "'")
  local nd = o.node or simt.node{gpus = o.gpus or 8, arch = o.arch or "h200",
                                 link = o.link or "nvlink"}
  local n = nd.n
  local bytes = M.round_bytes(o.bytes or (1 << 20), n)
  local count = bytes // 4
  local ts = {}
  for i = 1, n do
    ts[i] = nd:gpu(i):tensor{count, init = "random", seed = 100 + i, lo = -1, hi = 1}
  end
  -- the reference, on the host, before anything moves
  local want
  if op == "broadcast" then
    want = ts[1]:to_host()
  elseif op ~= "all_gather" then
    want = ts[1]:to_host()
    for i = 2, n do want = simt.ref.add(want, ts[i]) end
  end
  local r
  if op == "all_gather" then
    -- GPU i contributes chunk rs(i); give every GPU's chunk a value the
    -- others can check: the whole buffer of GPU 1 after copying each
    -- GPU's own chunk into it
    want = ts[1]:to_host()
    for i = 1, n do
      local c = i % n            -- node_rs_chunk: (i - 1 + 1) mod n, 0-based
      local h = ts[i]:to_host()
      for k = chunk_first(count, n, c), chunk_first(count, n, c + 1) - 1 do want:set(k + 1, h:get(k + 1)) end
    end
    r = nd:all_gather(ts)
  elseif op == "allreduce" then
    r = nd:allreduce(ts, {algo = o.algo or "ring"})
  elseif op == "reduce_scatter" then
    r = nd:reduce_scatter(ts)
  else
    r = nd:broadcast(ts)
  end
  local correct = true
  if o.check ~= false then
    for i = 1, n do
      if op == "reduce_scatter" then
        local c, h = i % n, ts[i]:to_host()
        for k = chunk_first(count, n, c) + 1, chunk_first(count, n, c + 1) do
          if math.abs(h:get(k) - want:get(k)) > 1e-5 * n then correct = false end
        end
      elseif not ts[i]:allclose(want, 1e-5) then
        correct = false
      end
    end
  end
  r.correct, r.bytes, r.count, r.gpus, r.op = correct, bytes, count, n, op
  r.link, r.algo = nd.link, (op == "allreduce" and (o.algo or "ring") or "ring")
  if op == "broadcast" then r.algo = "tree" end
  r.node = nd
  return r
end

local function usage(msg)
  error({simtlab_exit = 2, message = msg .. " (try 'simtlab --help')"}, 0)
end

local function sizes(spec)
  local out = {}
  local a, b = spec:match("^([^:]+):([^:]+)$")
  if a then
    local lo, hi = M.parse_bytes(a), M.parse_bytes(b)
    if not lo or not hi or lo < 1 or hi < lo then usage("--bytes A:B needs two sizes, A <= B") end
    local s = lo
    while s <= hi do out[#out + 1] = s; s = s * 2 end
  else
    for item in spec:gmatch("[^,]+") do
      local v = M.parse_bytes(item)
      if not v or v < 1 then usage("--bytes: '" .. item .. "' is not a size (e.g. 4096, 64K, 16M)") end
      out[#out + 1] = v
    end
  end
  if #out == 0 or #out > 24 then usage("--bytes: 1 to 24 sizes") end
  return out
end

local function json_row(r)
  return string.format('{"op":"%s","algo":"%s","gpus":%d,"link":"%s","bytes":%d,'
    .. '"time_s":%.9g,"algbw_gbs":%.6g,"busbw_gbs":%.6g,"correct":%s}',
    r.op, r.algo, r.gpus, r.link.name, r.bytes, r.time_s, r.algbw_gbs, r.busbw_gbs,
    tostring(r.correct))
end

-- simtlab collective OP --gpus N --arch P --link L --bytes SIZE [--algo A] [--json]
-- [--png FILE: the GPUs and their links, each as thick as it was busy]
-- [--frames DIR: 12 such pictures, each of 1/12 of the last collective]
-- [--links: bytes, peak and utilisation of every link that moved data]
function M.main(args)
  local o = {op = args[1], gpus = 8, arch = "h200", link = "nvlink", algo = "ring"}
  if not o.op or not M.OPS[o.op] then
    usage("'collective' needs an operation: allreduce, reduce_scatter, all_gather or broadcast")
  end
  local spec, json, png, frames, links = "1M", false, nil, nil, false
  local i = 2
  while i <= #args do
    local k, v = args[i], args[i + 1]
    if k == "--json" then json = true; i = i + 1
    elseif k == "--links" then links = true; i = i + 1
    else
      if not v then usage("option '" .. k .. "' needs a value") end
      if k == "--gpus" then
        o.gpus = math.tointeger(tonumber(v))
        if not o.gpus or o.gpus < 1 or o.gpus > 8 then usage("--gpus must be 1..8") end
      elseif k == "--arch" then o.arch = v
      elseif k == "--link" then o.link = v
      elseif k == "--bytes" then spec = v
      elseif k == "--png" then png = v
      elseif k == "--frames" then frames = v
      elseif k == "--algo" then
        if v ~= "ring" and v ~= "tree" and v ~= "ps" then usage("--algo must be ring, tree or ps") end
        o.algo = v
      else usage("unknown option '" .. k .. "' for 'collective'") end
      i = i + 2
    end
  end
  local list = sizes(spec)
  local ok, nd = pcall(simt.node, {gpus = o.gpus, arch = o.arch, link = o.link})
  if not ok then usage((tostring(nd):gsub("^.-simt%.node: ", ""))) end
  local rows, wrong = {}, 0
  for _, b in ipairs(list) do
    o.bytes, o.node = b, nd
    local r = M.run(o)
    rows[#rows + 1] = r
    if not r.correct then wrong = wrong + 1 end
  end
  if json then
    local parts = {}
    for k, r in ipairs(rows) do parts[k] = json_row(r) end
    print(#parts == 1 and parts[1] or "[" .. table.concat(parts, ",\n") .. "]")
  else
    local lk = nd.link
    print(string.format("# %s, %d x %s, link %s (%s): %.1f GB/s one way per GPU, %.1f us per transfer",
      o.op, o.gpus, o.arch, lk.name, lk.topology, lk.gbps, lk.latency_us))
    print("# link figures: " .. lk.source)
    for _, b in ipairs(list) do
      if M.round_bytes(b, o.gpus) ~= b then
        print(string.format("# sizes rounded up to whole groups of 4 floats (16 bytes), at least %d bytes", 16 * o.gpus))
        break
      end
    end
    print("# algbw = bytes / time; busbw = algbw x " .. (o.op == "allreduce" and "2(n-1)/n"
      or o.op == "broadcast" and "1" or "(n-1)/n") .. " (nccl-tests); result checked against a host sum")
    print(string.format("%12s %12s %6s %12s %10s %10s %6s", "size(B)", "count(f32)", "algo",
      "time(us)", "algbw", "busbw", "wrong"))
    for _, r in ipairs(rows) do
      print(string.format("%12d %12d %6s %12.2f %10.2f %10.2f %6d", r.bytes, r.count, r.algo,
        r.time_s * 1e6, r.algbw_gbs, r.busbw_gbs, r.correct and 0 or 1))
    end
  end
  if links and not json then
    -- every link of the node over all the sizes above: bytes and utilisation
    print(string.format("# links over all %d run(s), %.2f us on the node's clock:", #rows, nd:now() * 1e6))
    print(string.format("%-18s %10s %14s %12s %12s", "link", "GB/s", "bytes", "peak GB/s", "utilisation"))
    for _, l in ipairs(nd:links()) do
      if l.bytes > 0 then
        print(string.format("%-18s %10.1f %14.0f %12.1f %11.1f%%", l.name, l.gbps, l.bytes, l.peak_gbs,
                            100 * l.utilisation))
      end
    end
  end
  if png or frames then
    -- the machine during the last size alone (a fresh node: its links' bytes are that run's)
    local last = simt.node{gpus = o.gpus, arch = o.arch, link = o.link, record = frames ~= nil}
    o.node = last
    local r = M.run(o)
    local title = string.format("%s of %d bytes on %d x %s", o.op, rows[#rows].bytes, o.gpus, o.arch)
    if png then last:picture{path = png, title = title} end
    local n = 12
    for k = 0, frames and n - 1 or -1 do
      local a = r.start_s + (r.finish_s - r.start_s) * k / n
      local b = r.start_s + (r.finish_s - r.start_s) * (k + 1) / n
      last:picture{path = string.format("frame_%03d.png", k), from = a, to = b,
                   title = string.format("%s, %d/%d", title, k + 1, n)}
    end
    if frames then print(string.format("# %d pictures written to %s", n, frames)) end
  end
  if wrong > 0 then error("collective: " .. wrong .. " result(s) differ from the reference sum", 0) end
end

if arg and arg[1] == "collective" and arg[0] and arg[0]:match("collective%.lua$") then
  M.main({table.unpack(arg, 2)})
end
return M
