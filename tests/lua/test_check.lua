-- test_check.lua - the kernel checker from Lua: on by default in
-- g:launch, off with check = false; a tensor made without init is
-- uninitialised for it (like fresh GPU memory), init = "zeros" is not.
local k = simt.kernel("tests/lua/kernels/copy_first.s")
local g = simt.gpu{arch = "edu-tiny"}

-- 1. reading a tensor nobody wrote is reported, with the tensor's name
local A = g:tensor{8, name = "A"}
local B = g:tensor{8, name = "B"}
local ok, msg = pcall(g.launch, g, k, {grid = 1, block = 8}, A, B)
assert(not ok, "expected the checker to stop the launch")
local first = "read of uninitialised global memory in kernel 'copy_first' at pc 4 " ..
              "(tests/lua/kernels/copy_first.s:10: ld.global.f32 %r3, [%r2])"
assert(msg:find(first, 1, true), msg)
assert(msg:find("block (0,0,0), thread (0,0,0) [warp 0 of the block, lane 0]", 1, true), msg)
assert(msg:find(string.format("address 0x%08x: byte 0 of 'A' (0x%08x, 32 bytes), which no host copy or " ..
                              "kernel store has written", A.addr or 0x10000000, A.addr or 0x10000000), 1, true), msg)

-- 2. the same launch with the checker off runs and copies the zeros
local r = g:launch(k, {grid = 1, block = 8, check = false}, A, B)
assert(r.cycles > 0)
assert(B:get(1) == 0 and B:get(8) == 0)

-- 3. one element set from the host: that element is initialised, the next is not
A:set(1, 5)
ok, msg = pcall(g.launch, g, k, {grid = 1, block = 8}, A, B)
assert(not ok and msg:find("thread (1,0,0)", 1, true) and msg:find("byte 4 of 'A'", 1, true), msg)

-- 4. init = "zeros" (or any init) makes the tensor initialised
local Z = g:tensor{8, init = "zeros", name = "Z"}
g:launch(k, {grid = 1, block = 8}, Z, B)
local R = g:tensor{8, init = "range"}
g:launch(k, {grid = 1, block = 8}, R, B)
assert(B:get(8) == 7)
-- what a kernel stored counts as written for the next launch
g:launch(k, {grid = 1, block = 8}, B, A)
assert(A:get(8) == 7)

-- 5. the option is checked
ok, msg = pcall(g.launch, g, k, {grid = 1, block = 8, check = "yes"}, Z, B)
assert(not ok and msg:find("launch: check must be true or false, got string", 1, true), msg)
ok, msg = pcall(g.launch, g, k, {grid = 1, block = 8, chek = true}, Z, B)
assert(not ok and msg:find("did you mean 'check'", 1, true), msg)
print("test_check ok")
