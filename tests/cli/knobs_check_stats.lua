-- knobs_check_stats.lua FILE.csv FILE.json CYCLES1 CYCLES2 - check what
-- `simtlab run --stats` wrote for knobs_two_launches.lua.
local csv_path, json_path, c1, c2 = ...
c1, c2 = math.tointeger(tonumber(c1)), math.tointeger(tonumber(c2))
assert(c1 and c2, "usage: knobs_check_stats.lua CSV JSON CYCLES1 CYCLES2")

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- CSV: header + 2 rows; the cells have no quotes in this data
local lines = {}
for line in read(csv_path):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
assert(#lines == 3, "expected a header and 2 rows, got " .. #lines .. " lines")
local function split(line)
  local t = {}
  for cell in (line .. ","):gmatch("([^,]*),") do t[#t + 1] = cell end
  return t
end
local head = split(lines[1])
assert(head[1] == "kernel" and head[2] == "gpu" and head[3] == "grid" and head[4] == "block"
       and head[5] == "cycles", "first columns: " .. lines[1])
local col = {}
for i, h in ipairs(head) do col[h] = i end
for _, k in ipairs{ "l1_gbs", "l2_gbs", "dram_gbs", "l1_hit_rate", "l2_hit_rate",
                    "lane_utilisation", "stalls.memory", "stall_frac.issued", "issue_slots" } do
  assert(col[k], "CSV lacks column " .. k)
end
local row1, row2 = split(lines[2]), split(lines[3])
assert(#row1 == #head and #row2 == #head, "ragged CSV")
assert(row1[1] == "vecadd" and row2[1] == "matmul_tiled16", "kernel names: " .. row1[1] .. ", " .. row2[1])
assert(row1[2] == "edu-tiny", "gpu name")
assert(row1[3] == "8x1x1" and row1[4] == "128x1x1", "vecadd grid/block: " .. row1[3] .. " " .. row1[4])
assert(row2[3] == "2x2x1" and row2[4] == "16x16x1", "matmul grid/block")
assert(col.cluster and row1[col.cluster] == "1x1x1", "cluster column: no clusters is 1x1x1")
assert(tonumber(row1[col.cycles]) == c1 and tonumber(row2[col.cycles]) == c2,
       "CSV cycles differ from the launch results")

-- JSON: a minimal reader (objects, arrays, strings, numbers, literals)
local function parse_json(s)
  local pos = 1
  local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
  local value
  local function str()
    local out = {}
    pos = pos + 1
    while true do
      local c = s:sub(pos, pos)
      assert(c ~= "", "unterminated string")
      if c == '"' then pos = pos + 1; return table.concat(out) end
      if c == "\\" then
        local e = s:sub(pos + 1, pos + 1)
        local map = { n = "\n", t = "\t", r = "\r", b = "\b", f = "\f", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }
        if e == "u" then
          out[#out + 1] = utf8.char(tonumber(s:sub(pos + 2, pos + 5), 16)); pos = pos + 6
        else
          out[#out + 1] = assert(map[e], "bad escape"); pos = pos + 2
        end
      else
        out[#out + 1] = c; pos = pos + 1
      end
    end
  end
  function value()
    ws()
    local c = s:sub(pos, pos)
    if c == "{" then
      local t = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "}" then pos = pos + 1; return t end
      while true do
        ws(); assert(s:sub(pos, pos) == '"', "object key expected at " .. pos)
        local k = str(); ws()
        assert(s:sub(pos, pos) == ":", "':' expected"); pos = pos + 1
        t[k] = value(); ws()
        local d = s:sub(pos, pos); pos = pos + 1
        if d == "}" then return t end
        assert(d == ",", "',' or '}' expected at " .. pos)
      end
    elseif c == "[" then
      local t = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "]" then pos = pos + 1; return t end
      while true do
        t[#t + 1] = value(); ws()
        local d = s:sub(pos, pos); pos = pos + 1
        if d == "]" then return t end
        assert(d == ",", "',' or ']' expected at " .. pos)
      end
    elseif c == '"' then
      return str()
    else
      local lit = s:match("^[%w%.%+%-]+", pos)
      assert(lit, "value expected at " .. pos)
      pos = pos + #lit
      if lit == "true" then return true elseif lit == "false" then return false
      elseif lit == "null" then return nil end
      return assert(math.tointeger(tonumber(lit)) or tonumber(lit), "bad number " .. lit)
    end
  end
  local v = value(); ws()
  assert(pos == #s + 1, "trailing text after JSON value")
  return v
end

local rows = parse_json(read(json_path))
assert(#rows == 2, "JSON: expected 2 rows")
assert(rows[1].kernel == "vecadd" and rows[2].kernel == "matmul_tiled16", "JSON kernel names")
assert(rows[1].cycles == c1 and rows[2].cycles == c2, "JSON cycles")
for i, r in ipairs(rows) do
  local sum = 0
  for _, k in ipairs{ "memory", "dependency", "barrier", "pipe", "idle" } do
    sum = sum + assert(r.stalls[k], "stalls." .. k)
  end
  -- a scheduler-cycle either issues one warp instruction or stalls
  assert(sum + r.issued_slots == r.issue_slots, "row " .. i .. ": stalls + issued ~= issue_slots")
  assert(r.issued_slots == r.warp_instrs, "row " .. i .. ": one issue per warp instruction")
  local f = 0
  for _, v in pairs(r.stall_frac) do f = f + v end
  assert(math.abs(f - 1) < 1e-9, "stall fractions sum to " .. f)
  assert(r.l1_hit_rate >= 0 and r.l1_hit_rate <= 1 and r.l2_hit_rate >= 0 and r.l2_hit_rate <= 1)
end
-- vecadd (lessons/kernels/vecadd.s, 19 instructions; n = 1000 in 32 warps):
-- lanes count when their predicate holds. A full warp: 6 instructions x 32
-- lanes, "@%p0 exit" with no lane past the end (0), 12 x 32 after it = 576.
-- The last warp (8 of 32 lanes in range): 6 x 32 + 24 exiting + 12 x 8 = 312.
local vec = rows[1]
assert(vec.warp_instrs == 32 * 19, "vecadd warp instructions " .. vec.warp_instrs)
assert(vec.thread_instrs == 31 * 576 + 312, "vecadd thread instructions " .. vec.thread_instrs)
assert(math.abs(vec.lane_utilisation - (31 * 576 + 312) / (32 * 19 * 32)) < 1e-12,
       "vecadd lane utilisation " .. vec.lane_utilisation)
print("stats ok")
