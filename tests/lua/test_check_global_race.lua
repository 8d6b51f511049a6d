-- test_check_global_race.lua - the kernel checker's global write-write
-- races (issue 20, class 4d): two threads storing one global element with
-- nothing ordering them (different blocks, or one block without a bar.sync
-- between) stop the launch; one thread per element, stores ordered by a
-- barrier within a block, and atomics do not.
local T = require("expect")
local expect = T.expect
local k = simt.kernel("tests/lua/kernels/store_slot.s")
local g = simt.gpu{ arch = "edu-tiny" }
local function run(blocks, div, again, atom, check, threads)
  local out = g:tensor{ 256, init = "zeros", name = "out" }
  return pcall(g.launch, g, k, { grid = blocks, block = threads or 64, check = check }, out, div, again, atom)
end

-- one thread per element, twice: fine; with a barrier-ordered second store
-- to a neighbour's element: fine; with atomics on out[0]: fine
expect(run(4, 1, 0, 0), "one thread per element")
expect(run(4, 1, 1, 0), "a second store after bar.sync in the same block")
local ok, err = run(4, 1, 0, 1)
expect(ok, "atomics do not race: " .. tostring(err))

-- two threads of one block, no barrier between
ok, err = run(1, 2, 0, 0)
expect(not ok and tostring(err):find("global-memory data race (write after write) in kernel 'store_slot'", 1, true),
       "two threads of a block: " .. tostring(err))
expect(tostring(err):find("which thread 0 of this block already stored in this launch with no bar.sync between", 1, true),
       "names the first thread: " .. tostring(err))
expect(tostring(err):find("byte 0 of 'out'", 1, true), "names the element: " .. tostring(err))
-- threads of different blocks: blocks of one thread, two per element
ok, err = run(2, 2, 0, 0, true, 1)
expect(not ok and tostring(err):find("write after write", 1, true)
       and tostring(err):find("which thread 0 of another block already stored", 1, true), "two blocks: " .. tostring(err))
-- without the checker the launch runs
expect(run(2, 2, 0, 0, false, 1), "check = false runs")
T.done("global race")
print("global write-write races found")
