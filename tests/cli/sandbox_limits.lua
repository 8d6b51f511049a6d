-- sandbox_limits.lua - a student's attacks on the watchdog, the time limit
-- and the memory cap (issue 13, classes 5 and 6), one per run:
--   simtlab run --max-instructions N|--time-limit S|--max-memory MB sandbox_limits.lua FORM
-- Every form must end the script with the limit's message (tests/CMakeLists.txt
-- checks it names this file and a line); none may print "escaped".
local form = arg[1]
local function spin() while true do end end

if form == "pcall" then            -- the watchdog error is not catchable
  while true do pcall(spin) end
elseif form == "xpcall" then       -- nor with a handler, nor an endless handler
  while true do xpcall(spin, function(e) while true do end end) end
elseif form == "coroutine" then    -- nor inside coroutines
  while true do pcall(coroutine.wrap(spin)) end
elseif form == "resume" then       -- switching coroutines costs the host C work: 200,000
  local co = coroutine.create(function() while true do coroutine.yield() end end)
  for _ = 1, 200000 do coroutine.resume(co) end   -- resumes are ~1e6 instructions, charged ~7e6
  print("escaped")
elseif form == "wrap_resume" then  -- the same through coroutine.wrap's function
  local co = coroutine.wrap(function() while true do coroutine.yield() end end)
  for _ = 1, 200000 do co() end
  print("escaped")
elseif form == "error_object" then -- nor by turning it into a value
  local ok, e
  repeat ok, e = pcall(spin) until false
elseif form == "preset" then       -- a preset with an endless loop is the script's time
  while true do pcall(simt.gpu, "tests/cli/loop_preset.lua") end
elseif form == "launch" then       -- simulated work counts (launches that time out)
  local g = simt.gpu("edu-tiny")
  local k = simt.kernel("tests/cli/spin.s")
  while true do pcall(g.launch, g, k, { grid = 1, block = 32, max_warp_instrs = 100000 }) end
elseif form == "ref" then          -- reference work counts
  local A = simt.tensor{ 64, 64, init = "ones" }
  while true do pcall(simt.ref.matmul, A, A) end
elseif form == "rep" then          -- work inside string functions counts
  while true do pcall(string.rep, "x", 1e6) end
elseif form == "gsub" then
  local s = ("a"):rep(1e5)
  while true do pcall(s.gsub, s, "a", "b") pcall(table.concat, { s, s }) end
-- issue 20, class 2: work done in C counts (each once caught by pcall,
-- once not)
elseif form == "move" then         -- table.move over a huge range
  while true do pcall(table.move, {}, 1, 1e12, 2) end
elseif form == "rep_empty" then    -- string.rep of an empty string still loops
  string.rep("", 1e15)
elseif form == "tensor_sum" then   -- tensor methods work per element
  local A = simt.tensor{ 1 << 20, init = "ones" }
  while true do A:sum() end
elseif form == "tensor_methods" then
  local g = simt.gpu("edu-tiny")
  local A, B = g:tensor{ 1 << 18, init = "ones" }, g:tensor{ 1 << 18, init = "ones" }
  while true do
    A:fill(2); B:copy_from(A); pcall(A.allclose, A, B); A:max_abs_diff(B); A:to_host(); A:reshape(512, 512)
  end
elseif form == "concat" then       -- '..' copies in C: bytes allocated count
  local s = ("x"):rep(1 << 20)
  while true do local t = s .. s end
elseif form == "insert_front" then -- table.insert at the front shifts every element
  local t = {}
  for i = 1, 1e5 do t[i] = i end
  while true do table.insert(t, 1, 0); table.remove(t, 1) end
elseif form == "sort" then
  local t = {}
  for i = 1, 1e5 do t[i] = (i * 7919) % 1e5 end
  while true do table.sort(t) end
-- issue 20, class 3: a launch's state (registers, scoreboards, shared
-- memory, the checker's shadow state) counts against the memory cap
elseif form == "launch_state" then
  local g = simt.gpu{ arch = "h200", sms = 1024 }
  local k = simt.kernel("lessons/kernels/matmul_tiled16.s")
  local n = 16 * 64
  local A, B, C = g:tensor{ n, n, init = "ones" }, g:tensor{ n, n, init = "ones" }, g:tensor{ n, n }
  g:launch(k, { grid = { 64, 64 }, block = { 16, 16 } }, A, B, C, n)
elseif form == "launch_race" then  -- ... each lane of a race while the race runs
  local k = simt.kernel("lessons/kernels/matmul_tiled16.s")
  local n = 16 * 64
  local lanes = {}
  for i = 1, 4 do
    local g = simt.gpu{ arch = "h200", sms = 256 }
    local A, B, C = g:tensor{ n, n, init = "ones" }, g:tensor{ n, n, init = "ones" }, g:tensor{ n, n }
    lanes[i] = { g, k, { grid = { 64, 64 }, block = { 16, 16 } }, A, B, C, n }
  end
  simt.race(lanes)
elseif form == "gc" then           -- finalizers run outside the watchdog: refused
  setmetatable({}, { __gc = spin })
elseif form == "gc_late" then      -- ... also when __gc is filled in later
  local mt = { __gc = true }
  setmetatable({}, mt)
elseif form == "pattern" then      -- C code past the time limit is stopped hard
  local s = string.rep("a", 4000)
  s:find(".-.-.-.-.-b")
elseif form == "pattern_long" then -- ... and without one, by the pattern guard
  local s = string.rep("a", 4000)
  for w in s:gmatch(".-.-.-.-.-b") do print(w) end
elseif form == "gpus" then         -- GPUs count against the memory cap
  local keep = {}
  for i = 1, 1e6 do keep[i] = simt.gpu("h200") end
elseif form == "tensors" then      -- device memory counts
  local g, keep = simt.gpu("h200"), {}
  for i = 1, 1e6 do keep[i] = g:tensor{ 1 << 20 } end
elseif form == "cpus" then
  local keep = {}
  for i = 1, 1e6 do keep[i] = simt.cpu("cpu-server") end
elseif form == "lua" then          -- and the Lua heap, with pcall around it
  local keep = {}
  for i = 1, 1e9 do keep[i] = {} end
elseif form == "collected" then    -- tensors nobody holds give their memory back
  local g = simt.gpu{ arch = "edu-tiny", mem_bytes = 1 << 20 }
  for i = 1, 3000 do local t = g:tensor{ 1 << 16 } end
  for i = 1, 300 do local h = simt.gpu("h200") end
  print("collected ok")
  return
end
print("escaped")
