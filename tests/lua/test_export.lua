-- simtlab: --unsafe (this test writes temporary files)
-- test_export.lua - simt.save_csv / simt.save_json escaping and key order,
-- g:with, and the derived launch statistics.
local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end
local tmp = os.tmpname()

-- CSV: sorted columns after the requested first ones, quoting, nesting,
-- missing cells, no tensors
local A = simt.tensor{ 2 }
simt.save_csv(tmp, {
  { name = 'say "hi", bye', n = 3, x = 0.1, t = { b = true, a = 2 }, tensor = A },
  { name = "line\nbreak", n = -1, z = 1e300 },
}, { columns = { "name", "n" } })
assert(read(tmp) == 'name,n,t.a,t.b,x,z\n'
       .. '"say ""hi"", bye",3,2,true,0.1,\n'
       .. '"line\nbreak",-1,,,,1e+300\n', "CSV text:\n" .. read(tmp))

-- JSON: sorted keys, arrays, escapes, integers vs floats, nan -> null
simt.save_json(tmp, { b = { 1, 2.5, "q\"\\\t\1" }, a = {}, c = 0 / 0, d = false, e = A })
assert(read(tmp) == '{"a":[],"b":[1,2.5,"q\\"\\\\\\t\\u0001"],"c":null,"d":false}\n',
       "JSON text: " .. read(tmp))

-- errors name the problem
local ok, err = pcall(simt.save_csv, tmp, { 1, 2 })
assert(not ok and err:find("CSV row 1 must be a table, got number", 1, true), err)
local t = {}
t.self = t
ok, err = pcall(simt.save_json, tmp, t)
assert(not ok and err:find("nested more than 32 deep", 1, true), err)
ok, err = pcall(simt.save_csv, "/no/such/dir/x.csv", {})
assert(not ok and err:find("cannot write '/no/such/dir/x.csv'", 1, true), err)
os.remove(tmp)

-- g:with keeps the description and changes only the given fields
local g = simt.gpu("h200")
local h = g:with{ sms = 8, dram_gbps = 1000 }
assert(h.desc.sms == 8 and h.desc.dram_gbps == 1000 and h.name == "h200")
assert(h.desc.l2_bytes == g.desc.l2_bytes and g.desc.sms == 132)
ok, err = pcall(g.with, g, { smz = 1 })
assert(not ok and err:find("did you mean 'sms'", 1, true), err)
ok, err = pcall(g.with, g, { sms = 0 })
assert(not ok and err:find("'sms' = 0 is out of range", 1, true), err)
ok, err = pcall(g.with, g, { arch = "t4" })
assert(not ok and err:find("'arch' cannot change", 1, true), err)

-- derived statistics agree with the counters they come from
local W = require("workloads")
local e = simt.gpu("edu-tiny")
local r = W.matmul(e, "matmul_tiled16", 32)
assert(r.ok and r.kernel == "matmul_tiled16" and r.gpu == "edu-tiny")
local secs = r.time_us * 1e-6
local function near(a, b) return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)) end
assert(near(r.l1_gbs, (r.l1_hits + r.l1_misses) * 32 / secs / 1e9))
assert(near(r.l2_gbs, (r.l2_hits + r.l2_misses) * 32 / secs / 1e9))
assert(near(r.dram_gbs, r.dram_bytes / secs / 1e9))
assert(near(r.l2_hit_rate, r.l2_hits / (r.l2_hits + r.l2_misses)))
assert(near(r.stall_frac.memory, r.stalls.memory / r.issue_slots))
-- 32x32 tiled matmul: 4 blocks of 256 threads, every lane active in every
-- instruction (no bounds checks fail, no divergence)
assert(r.lane_utilisation > 0.99, "lane utilisation " .. r.lane_utilisation)
print("export ok")
