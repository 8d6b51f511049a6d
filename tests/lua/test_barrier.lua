-- simtlab: --unsafe (this test writes temporary files)
-- test_barrier.lua - bar.sync: threads exchanging data through shared
-- memory across a barrier get the right answer (block_reverse.s); a barrier
-- inside a divergent if and an out-of-bounds access stop the launch with a
-- report that names the problem and the kernel.
-- Run: simtlab run tests/lua/test_barrier.lua
local W = require("workloads")

local T = require("expect")
local expect = T.expect

-- Assemble kernel source text through a temporary file.
local function kernel_from(src)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(src)
  f:close()
  local ok, k = pcall(simt.kernel, path)
  os.remove(path)
  if not ok then error(k, 2) end
  return k
end

-- block_reverse: out[b*bx + t] = in[b*bx + m-1-t] within each chunk.
for _, gpu in ipairs{ { arch = "edu-tiny" }, { arch = "edu-tiny", sms = 8 } } do
  local g = simt.gpu(gpu)
  for _, n in ipairs{ 1, 17, 33, 64, 100, 700 } do
    for _, bx in ipairs{ 32, 64, 256 } do
      local A = g:tensor{ n, init = "range" }
      local B = g:tensor{ n, init = -1 }
      g:launch(W.kernel("block_reverse"), { grid = (n + bx - 1) // bx, block = bx }, A, B, n)
      local v, bad = B:to_table(), 0
      for i = 0, n - 1 do
        local first = i // bx * bx
        local m = math.min(n - first, bx)
        local want = first + (m - 1 - (i - first))
        if v[i + 1] ~= want then bad = bad + 1 end
      end
      expect(bad == 0, string.format("block_reverse n=%d block=%d on %d SMs: %d wrong",
                                     n, bx, g.desc.sms, bad))
    end
  end
end

-- bar.sync inside an if that splits a warp: reported, not hung.
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local out = g:tensor{ 64 }
  local branch = kernel_from([[
.kernel bar_in_if
.param out
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p0, %r0, 16;      // lanes 0..15 of warp 0 only
    @!%p0 bra SKIP;
    bar.sync;                      // wrong: the other lanes never get here
SKIP:
    exit;
]])
  local ok, msg = pcall(g.launch, g, branch, { grid = 1, block = 64 }, out)
  expect(not ok, "bar.sync in a divergent if should fail")
  expect(not ok and msg:find("barrier in divergent code", 1, true),
         "message should say 'barrier in divergent code', got: " .. tostring(msg))
  expect(not ok and msg:find("bar_in_if", 1, true), "message should name the kernel")

  -- the same barrier reached by every lane is fine
  local fine = kernel_from([[
.kernel bar_ok
.param out
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p0, %r0, 16;
    @!%p0 bra JOIN;
    add.u32 %r1, %r0, 1;
JOIN:
    bar.sync;                      // after the if: all lanes reconverged
    exit;
]])
  ok, msg = pcall(g.launch, g, fine, { grid = 1, block = 64 }, out)
  expect(ok, "bar.sync after reconvergence should run, got: " .. tostring(msg))
end

-- An out-of-bounds access: vecadd with the bound test off by one.
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local oob = kernel_from([[
.kernel vecadd_oob
.param A
.param B
.param C
.param n
    mov.u32 %r0, %ctaid.x;
    mad.u32 %r0, %r0, %ntid.x, %tid.x;
    ld.param.u32 %r1, [n];
    setp.gt.u32 %p0, %r0, %r1;     // BUG: should be ge, so i == n gets through
    @%p0 exit;
    shl.b32 %r2, %r0, 2;
    ld.param.u32 %r3, [A];
    add.u32 %r3, %r3, %r2;
    ld.global.f32 %r4, [%r3];
    ld.param.u32 %r3, [B];
    add.u32 %r3, %r3, %r2;
    ld.global.f32 %r5, [%r3];
    add.f32 %r4, %r4, %r5;
    ld.param.u32 %r3, [C];
    add.u32 %r3, %r3, %r2;
    st.global.f32 [%r3], %r4;
    exit;
]])
  local n = 100
  local A = g:tensor{ n, init = 1 }
  local B = g:tensor{ n, init = 2 }
  local C = g:tensor{ n }
  local ok, msg = pcall(g.launch, g, oob, { grid = 1, block = 128 }, A, B, C, n)
  expect(not ok, "the off-by-one kernel should fail")
  expect(not ok and msg:find("out-of-bounds global", 1, true),
         "message should say 'out-of-bounds global', got: " .. tostring(msg))
  expect(not ok and msg:find("vecadd_oob", 1, true),
         "message should name the kernel, got: " .. tostring(msg))
  -- with the right n (a multiple of the block) nothing is out of bounds
  local A2, B2, C2 = g:tensor{ 127, init = 1 }, g:tensor{ 127, init = 2 }, g:tensor{ 127 }
  ok, msg = pcall(g.launch, g, oob, { grid = 1, block = 127 }, A2, B2, C2, 127)
  expect(ok, "no thread reaches i == n when the grid has exactly n threads: "
             .. tostring(msg))
  expect(ok and C2:get(127) == 3, "vecadd_oob result with exactly n threads")
end

T.done()
print("test_barrier: ok")
