-- simtlab: --unsafe (this test writes temporary files)
-- test_api.lua - the Lua API of module simt: tensors, GPUs, kernels, errors.
-- Run from the repository root: simtlab run tests/lua/test_api.lua

local function eq(a, b, what)
  if a ~= b then
    error(string.format("%s: expected %s, got %s", what, tostring(b), tostring(a)), 2)
  end
end

local function near(a, b, tol, what)
  if math.abs(a - b) > tol then
    error(string.format("%s: expected %.9g, got %.9g", what, b, a), 2)
  end
end

-- f must fail with a message containing text (plain find).
local function fails(text, f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error containing '" .. text .. "', but the call succeeded", 2) end
  msg = tostring(msg)
  if not msg:find(text, 1, true) then
    error(string.format("expected an error containing '%s', got '%s'", text, msg), 2)
  end
  return msg
end

local function same_list(t, expected, what)
  eq(#t, #expected, what .. " length")
  for i = 1, #expected do eq(t[i], expected[i], what .. "[" .. i .. "]") end
end

-- module basics ------------------------------------------------------------
eq(type(simt), "table", "simt global")
eq(require("simt"), simt, "require returns the global")
eq(type(simt.version), "string", "version")
assert(simt.version:match("^%d+%.%d+%.%d+"), "version looks like x.y.z")
local presets = simt.presets()
local has = {}
for _, p in ipairs(presets) do has[p] = true end
assert(has["edu-tiny"] and has["h200"], "presets lists edu-tiny and h200")

-- host tensors ------------------------------------------------------------
local t = simt.tensor{2, 3}
eq(select("#", t:shape()), 2, "shape returns 2 dims")
local d1, d2 = t:shape()
eq(d1, 2, "dim 1"); eq(d2, 3, "dim 2")
eq(#t, 6, "#t")
eq(t.dtype, "f32", "default dtype")
eq(t.addr, nil, "host tensor has no address")
eq(t.device, false, "host tensor")
eq(t.ndim, 2, "ndim")
eq(t:sum(), 0, "zeros by default")
t:set(2, 3, 1.5)
eq(t:get(2, 3), 1.5, "get after set")
eq(t:get(1, 1), 0, "other element untouched")
same_list(t:to_table(), {0, 0, 0, 0, 0, 1.5}, "to_table row-major")
t:fill(0.25)
eq(t:sum(), 1.5, "fill then sum")
assert(tostring(t):find("tensor{2, 3} f32 (host) [0.25, 0.25", 1, true), tostring(t))

-- f32 rounding: 0.1 is stored as the nearest float
near(simt.tensor{1, init = 0.1}:get(1), 0.100000001490116, 1e-15, "f32 rounding of 0.1")

-- init forms
same_list(simt.tensor{4, init = "range"}:to_table(), {0, 1, 2, 3}, "range")
same_list(simt.tensor{3, init = "ones"}:to_table(), {1, 1, 1}, "ones")
same_list(simt.tensor{2, 2, init = 7}:to_table(), {7, 7, 7, 7}, "number init")
same_list(simt.tensor{2, 2, init = {{1, 2}, {3, 4}}}:to_table(), {1, 2, 3, 4}, "nested init")
same_list(simt.tensor{2, 2, init = {5, 6, 7, 8}}:to_table(), {5, 6, 7, 8}, "flat init")
local r4 = simt.tensor{2, 2, 1, 1, init = "range"}
eq(r4:get(2, 1, 1, 1), 2, "4-d indexing is row-major")

-- i32
local it = simt.tensor{3, dtype = "i32", init = {-1, 0, 2147483647}}
eq(it.dtype, "i32", "i32 dtype")
eq(math.type(it:get(1)), "integer", "i32 elements are Lua integers")
eq(it:get(3), 2147483647, "i32 max")

-- random: deterministic per seed, different across seeds, in range
local ra = simt.tensor{1000, init = "random", seed = 7}
local rb = simt.tensor{1000, init = "random", seed = 7}
local rc = simt.tensor{1000, init = "random", seed = 8}
eq(ra:max_abs_diff(rb), 0, "same seed, same values")
assert(ra:max_abs_diff(rc) > 0.1, "different seed, different values")
local lo_seen, hi_seen, mean = math.huge, -math.huge, 0
for _, v in ipairs(ra:to_table()) do
  lo_seen = math.min(lo_seen, v); hi_seen = math.max(hi_seen, v); mean = mean + v / 1000
end
assert(lo_seen >= -1 and hi_seen < 1, "default random range [-1, 1)")
assert(lo_seen < -0.9 and hi_seen > 0.9, "random values spread over the range")
assert(math.abs(mean) < 0.1, "random mean near 0, got " .. mean)
local rr = simt.tensor{2000, init = "random", seed = 3, lo = 2, hi = 3}
for _, v in ipairs(rr:to_table()) do assert(v >= 2 and v < 3, "lo/hi respected: " .. v) end
local ri = simt.tensor{2000, dtype = "i32", init = "random", seed = 3, lo = -2, hi = 2}
local counts = {}
for _, v in ipairs(ri:to_table()) do counts[v] = (counts[v] or 0) + 1 end
for v = -2, 2 do assert((counts[v] or 0) > 300, "i32 random hits " .. v .. " about 400 times") end
eq(counts[3], nil, "i32 random stays within [lo, hi]")

-- copy_from, allclose, max_abs_diff
local a = simt.tensor{2, 2, init = {1, 2, 3, 4}}
local b = simt.tensor{2, 2}
b:copy_from(a)
eq(b:max_abs_diff(a), 0, "copy_from tensor")
b:copy_from({{4, 3}, {2, 1}})
same_list(b:to_table(), {4, 3, 2, 1}, "copy_from table")
local ok, err, bad = a:allclose(a)
eq(ok, true, "allclose with itself"); eq(err, 0, "max err 0"); eq(bad, nil, "no bad index")
local c = simt.tensor{2, 2, init = {1, 2, 3, 4.5}}
ok, err, bad = a:allclose(c)
eq(ok, false, "allclose detects a difference"); eq(err, 0.5, "max abs err"); eq(bad, 4, "first bad")
ok = a:allclose(c, 0, 0.5)
eq(ok, true, "within atol")
ok = a:allclose(c, 0.1, 0)      -- |4 - 4.5| = 0.5 > 0.1 * 4.5
eq(ok, false, "rtol relative to the second tensor")
ok = a:allclose(c, 0.12, 0)     -- 0.5 <= 0.12 * 4.5 = 0.54
eq(ok, true, "rtol large enough")
local nan = simt.tensor{1, init = 0/0}
eq((nan:allclose(nan)), false, "NaN is never close")
eq(b:reshape(4):get(4), 1, "reshape keeps row-major order")
eq(#b:reshape(1, 4), 4, "reshape element count")

-- reference functions -------------------------------------------------------
local A = simt.tensor{2, 2, init = {{1, 2}, {3, 4}}}
local B = simt.tensor{2, 2, init = {{5, 6}, {7, 8}}}
same_list(simt.ref.matmul(A, B):to_table(), {19, 22, 43, 50}, "ref.matmul 2x2")
local A23 = simt.tensor{2, 3, init = {{1, 2, 3}, {4, 5, 6}}}
local B31 = simt.tensor{3, 1, init = {1, 0, -1}}
local C21 = simt.ref.matmul(A23, B31)
eq(select(1, C21:shape()), 2, "matmul rows"); eq(select(2, C21:shape()), 1, "matmul cols")
same_list(C21:to_table(), {-2, -2}, "ref.matmul 2x3 x 3x1")
same_list(simt.ref.add(A, B):to_table(), {6, 8, 10, 12}, "ref.add")
eq(simt.ref.sum(A), 10, "ref.sum")

-- conv2d: X = 1..9 as 3x3, W = 2x2 ones
local X = simt.tensor{1, 1, 3, 3, init = {1, 2, 3, 4, 5, 6, 7, 8, 9}}
local W = simt.tensor{1, 1, 2, 2, init = "ones"}
local Y = simt.ref.conv2d(X, W)
same_list({Y:shape()}, {1, 1, 2, 2}, "conv2d shape")
same_list(Y:to_table(), {12, 16, 24, 28}, "conv2d stride 1 pad 0")
-- pad 1, stride 2: P = (3 + 2 - 2) // 2 + 1 = 2; windows start at -1 and 1
same_list(simt.ref.conv2d(X, W, {stride = 2, pad = 1}):to_table(), {1, 5, 11, 28},
          "conv2d stride 2 pad 1")
-- two channels, two filters (1x1): k0 picks channel 0, k1 adds both
local X2 = simt.tensor{1, 2, 2, 2, init = {1, 2, 3, 4, 10, 20, 30, 40}}
local W2 = simt.tensor{2, 2, 1, 1, init = {1, 0, 1, 1}}
same_list(simt.ref.conv2d(X2, W2):to_table(), {1, 2, 3, 4, 11, 22, 33, 44}, "conv2d channels")
-- im2col: rows (r, s), columns (p, q)
local cols = simt.ref.im2col(X, 2, 2)
same_list({cols:shape()}, {4, 4}, "im2col shape {C*R*S, N*P*Q}")
same_list(cols:to_table(), {1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}, "im2col values")
-- convolution = W{K, C*R*S} x im2col
local Wr = simt.tensor{2, 3, 2, 2, init = "random", seed = 5}
local Xr = simt.tensor{1, 3, 5, 4, init = "random", seed = 6}
local direct = simt.ref.conv2d(Xr, Wr, {stride = 1, pad = 1})
local gemm = simt.ref.matmul(Wr:reshape(2, 12), simt.ref.im2col(Xr, 2, 2, {stride = 1, pad = 1}))
same_list({direct:shape()}, {1, 2, 6, 5}, "conv2d shape with pad")
ok, err = direct:reshape(2, 30):allclose(gemm, 1e-6, 1e-6)
assert(ok, "im2col + matmul equals conv2d (N = 1), max err " .. err)

-- ref.matmul speed: 256^3 well under a second
local big = simt.tensor{256, 256, init = "random", seed = 1}
local t0 = os.clock()
local P = simt.ref.matmul(big, big)
assert(os.clock() - t0 < 1.0, "256^3 reference matmul takes under a second")
eq(#P, 65536, "256x256 result")

-- GPUs and device tensors -------------------------------------------------------
local g = simt.gpu{arch = "edu-tiny"}
eq(g.name, "edu-tiny", "g.name")
local desc = g.desc
eq(desc.sms, 2, "desc.sms"); eq(desc.sched, "lrr", "desc.sched"); eq(#desc.max_grid, 3, "max_grid")
desc.sms = 99
eq(g.desc.sms, 2, "desc is a fresh copy")
local g16 = simt.gpu{arch = "h200", sms = 16, dram_gbps = 1000}
eq(g16.desc.sms, 16, "override sms"); eq(g16.desc.dram_gbps, 1000, "override dram")
eq(g16.desc.fp32_lanes_per_sm, 128, "preset value kept")
eq(simt.gpu("h200").desc.sms, 132, "simt.gpu(name)")
assert(tostring(g):find("gpu 'edu-tiny' (2 SMs, 1000 MHz)", 1, true), tostring(g))

local D = g:tensor{2, 2, init = {1, 2, 3, 4}}
eq(D.device, true, "device tensor")
assert(D.addr >= 0x10000000, "device address in the device range")
eq(D:get(2, 1), 3, "device get")
D:set(2, 1, -3)
eq(D:get(2, 1), -3, "device set")
same_list(simt.ref.matmul(D, A):to_table(), {7, 10, 9, 10}, "ref on device tensors")
local Dr = g:tensor{1000, init = "random", seed = 7}
eq(Dr:max_abs_diff(ra), 0, "device random equals host random with the same seed")
local H = D:to_host()
eq(H.device, false, "to_host gives a host tensor"); eq(H:get(2, 1), -3, "to_host copies")

-- device memory is freed by the garbage collector: 20 x 32 MB > 256 MB
for _ = 1, 20 do
  local tmp = g:tensor{8 * 1024 * 1024}
  tmp = nil
  collectgarbage()
end
-- a tensor keeps its GPU alive
local orphan = simt.gpu{arch = "edu-tiny"}:tensor{4, init = "range"}
collectgarbage(); collectgarbage()
eq(orphan:get(4), 3, "tensor outlives its GPU variable")

-- kernels ------------------------------------------------------------------
local k = simt.kernel("lessons/kernels/matmul_naive.s")
eq(k.name, "matmul_naive", "kernel name")
eq(k.nparams, 4, "nparams")
same_list(k.params, {"A", "B", "C", "n"}, "params")
assert(k.nregs >= 1 and k.nregs <= 64, "nregs")
eq(k.shared_bytes, 0, "no shared memory")
assert(k.ninstr > 10, "ninstr")
local listing = k:listing()
assert(listing:find("fma.f32", 1, true) and listing:find(".param A", 1, true), "listing")

-- error messages ------------------------------------------------------------------
fails("bad argument #1 to 'simt.tensor' (table expected, got string)", simt.tensor, "x")
fails("dimension 1 must be a positive integer, got 0", simt.tensor, {0})
fails("expected 1 to 4 dimensions", simt.tensor, {1, 2, 3, 4, 5})
fails("unknown dtype 'f64' (dtypes: f32, i32, f16, bf16, tf32, e4m3, e5m2)", simt.tensor, {2, dtype = "f64"})
fails("unknown tensor option 'ini' (did you mean 'init'?)", simt.tensor, {2, ini = "ones"})
fails("unknown init 'rand'", simt.tensor, {2, init = "rand"})
fails("table has 3 values, tensor {2, 2} needs 4", simt.tensor, {2, 2, init = {1, 2, 3}})
fails("tensor values must be numbers, value 2 is string", simt.tensor, {2, init = {1, "x"}})
fails("index 1 is 3, out of range 1..2", a.get, a, 3, 1)
fails("index 2 is 0, out of range 1..2", a.get, a, 1, 0)
fails("a 2-dimensional tensor needs 2 indices, got 1", a.get, a, 1)
fails("i32 tensor needs an integer in the int32 range, got 2.5", it.set, it, 1, 2.5)
fails("allclose: shapes differ: {2, 2} vs {4}", a.allclose, a, simt.tensor{4})
fails("copy_from: shapes differ: {2, 2} vs {3}", a.copy_from, a, simt.tensor{3})
fails("ref.matmul: inner dimensions differ: A is {2, 3}, B is {2, 3}", simt.ref.matmul, A23, A23)
fails("ref.matmul: A must have 2 dimensions, got shape {4}", simt.ref.matmul, simt.tensor{4}, A)
fails("ref.conv2d: channels differ: X is {1, 1, 3, 3}, W is {2, 2, 1, 1}", simt.ref.conv2d, X, W2)
fails("ref.add: shapes differ: A is {2, 2}, B is {4}", simt.ref.add, A, simt.tensor{4})
fails("reshape: tensor {2, 2} has 4 elements, the new shape has 6", a.reshape, a, 2, 3)
fails("unknown GPU preset 'nope' (presets: ", simt.gpu, {arch = "nope"})
fails("unknown GPU field 'smz' (did you mean 'sms'?)", simt.gpu, {smz = 4})
fails("GPU field 'sms' expects an integer, got string", simt.gpu, {sms = "x"})
fails("GPU field 'sms' = 0 is out of range", simt.gpu, {sms = 0})
fails("bad argument #1 to 'simt.gpu' (table like {arch = \"h200\"} or a preset name expected, got number)",
      simt.gpu, 5)
local C3 = g:tensor{2, 2}
fails("kernel 'matmul_naive' takes 4 arguments (A, B, C, n), got 3", g.launch, g, k,
      {grid = 1, block = {2, 2}}, D, D, C3)
fails("argument 1 (A) is a host tensor", g.launch, g, k, {grid = 1, block = 4}, A, D, C3, 2)
fails("argument 2 (B) is a tensor on another GPU", g.launch, g, k, {grid = 1, block = 4}, D,
      Dr and g16:tensor{4}, C3, 2)
fails("argument 4 (n) = 4294967296 does not fit in 32 bits", g.launch, g, k,
      {grid = 1, block = 4}, D, D, C3, 1 << 32)
fails("argument 4 (n) must be a device tensor or a number, got string", g.launch, g, k,
      {grid = 1, block = 4}, D, D, C3, "2")
fails("unknown configuration key 'grd' (did you mean 'grid'?)", g.launch, g, k,
      {grd = 1, block = 4}, D, D, C3, 2)
fails("the configuration needs 'grid'", g.launch, g, k, {block = 4}, D, D, C3, 2)
fails("block[2] must be a positive integer, got 0", g.launch, g, k, {grid = 1, block = {4, 0}},
      D, D, C3, 2)
-- launch limits come from the core and name the problem
local msg = fails("", g.launch, g, k, {grid = 1, block = 1024}, D, D, C3, 2)
assert(msg:find("1024") and msg:find("256"), "block too large for edu-tiny: " .. msg)
-- assembler errors pass through unchanged: they start with file:line:col
local path = os.tmpname()
local f = assert(io.open(path, "w"))
f:write(".param a\n  add.f32 %r1, %r99, 1.0\n")
f:close()
msg = fails(path .. ":2:", simt.kernel, path)
eq(msg:find(path .. ":2:", 1, true), 1, "assembler message is unchanged")
os.remove(path)
fails("", simt.kernel, "no/such/kernel.s")
-- kernel faults: n = 64 on 2x2 tensors reads out of bounds
msg = fails("", g.launch, g, k, {grid = 1, block = {2, 2}}, D, D, C3, 64)
assert(msg:find("matmul_naive", 1, true), "fault names the kernel: " .. msg)

-- scalars
assert(tostring(simt.f32(1.5)):find("f32(1.5", 1, true), "f32 scalar")
assert(tostring(simt.i32(-3)):find("i32(-3)", 1, true), "i32 scalar")
fails("number has no integer value", simt.i32, 1.5)

print("test_api: all assertions passed")
