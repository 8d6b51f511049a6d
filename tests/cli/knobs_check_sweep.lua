-- knobs_check_sweep.lua CSV PNG1 PNG2 - check `simtlab sweep --param sms
-- --values 1,2,4,8 ... --out CSV --png PNG` (run twice).
local csv, png1, png2 = ...
local function read(path)
  local f = assert(io.open(path, "rb"), "cannot open " .. tostring(path))
  local s = f:read("a")
  f:close()
  return s
end

local lines = {}
for line in read(csv):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
assert(#lines == 5, "expected a header and 4 rows, got " .. #lines .. " lines")
local head = {}
for cell in (lines[1] .. ","):gmatch("([^,]*),") do head[#head + 1] = cell end
local col = {}
for i, h in ipairs(head) do col[h] = i end
assert(head[1] == "param" and head[2] == "value", "first columns: " .. lines[1])
for _, k in ipairs{ "cycles", "time_us", "tflops", "dram_gbs", "occupancy", "ok" } do
  assert(col[k], "CSV lacks " .. k)
end
local want, prev = { 1, 2, 4, 8 }, math.huge
for i = 2, 5 do
  local row = {}
  for cell in (lines[i] .. ","):gmatch("([^,]*),") do row[#row + 1] = cell end
  assert(row[1] == "sms" and tonumber(row[2]) == want[i - 1], "row " .. i .. ": " .. lines[i])
  assert(row[col.ok] == "true", "row " .. i .. " not checked correct")
  local c = tonumber(row[col.cycles])
  -- more SMs never make this kernel slower (9 blocks of 16x16 on edu-tiny)
  if not (c <= prev) then
    error(string.format("cycles rose from %s to %s at sms=%s", prev, c, row[2]))
  end
  prev = c
end

-- PNG: signature, IHDR width and height (big-endian at bytes 17..24)
local a, b = read(png1), read(png2)
assert(a:sub(1, 8) == "\137PNG\r\n\26\n", "not a PNG")
assert(a:sub(13, 16) == "IHDR", "no IHDR")
local w, h = string.unpack(">I4>I4", a, 17)
assert(w == 800 and h == 500, string.format("chart is %dx%d, expected 800x500", w, h))
assert(a == b, "two runs drew different PNG bytes")
print("sweep ok")
