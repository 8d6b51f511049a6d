-- test_wgmma_presets.lua - wgmma runs only on GPUs that have warpgroup MMA
-- (h100, h200: preset field wgmma = 1); every other GPU refuses a kernel
-- that uses it at launch, by name and line (issue 13, class 8).
local k = simt.kernel("tests/lua/kernels/async_misuse.s")
local function launch(g)
  local A = g:tensor{ 16, 32, dtype = "f16", init = "random", seed = 3 }
  local out = g:tensor{ 4 }
  return pcall(g.launch, g, k, { grid = { 1 }, block = { 128 }, max_cycles = 100000 }, A, out, 64, 0)
end
for _, spec in ipairs({ { arch = "a100" }, { arch = "rtx4090" }, { arch = "h200", wgmma = 0 } }) do
  local g = simt.gpu(spec)
  local ok, err = launch(g)
  assert(not ok, spec.arch .. " ran wgmma")
  assert(err:find("kernel 'async_misuse' line %d+: " .. g.name .. " has no warpgroup MMA %(wgmma is Hopper's"), err)
end
for _, arch in ipairs({ "h100", "h200" }) do
  local g = simt.gpu(arch)
  assert(g.desc.wgmma == 1, arch .. " should have wgmma")
  local ok, err = launch(g)
  assert(ok, arch .. ": " .. tostring(err))
end
local ok, err = pcall(simt.gpu, { arch = "h200", wgmma = 2 })
assert(not ok and err:find("GPU field 'wgmma' = 2 is out of range (0..1)", 1, true), err)
print("wgmma presets ok")
