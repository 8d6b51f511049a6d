-- test_kernels_matmul.lua - every matmul kernel in lessons/kernels against
-- simt.ref.matmul at sizes that are and are not multiples of the tiles,
-- on edu-tiny (2 SMs) and on an 8-SM variant; plus the coalescing and
-- timing shape the lessons rely on. Run: simtlab run tests/lua/test_kernels_matmul.lua
local W = require("workloads")

local T = require("expect")
local expect = T.expect

local kernels = { "matmul_naive", "matmul_naive_T", "matmul_tiled16", "matmul_tiled32",
                  "matmul_rect" }
local sizes = { 1, 17, 33, 64, 100 }
-- the tile each kernel pads n up to (padded elements are multiplied too,
-- as zeros, so a tiled kernel's FMA count is that of the padded size)
local tile = { matmul_naive = 1, matmul_naive_T = 1, matmul_tiled16 = 16,
               matmul_tiled32 = 32, matmul_rect = 16 }

for _, gpu in ipairs{ { arch = "edu-tiny" }, { arch = "edu-tiny", sms = 8 } } do
  local g = simt.gpu(gpu)
  for _, name in ipairs(kernels) do
    for _, n in ipairs(sizes) do
      local r, err = W.matmul(g, name, n, { seed = n })
      expect(r.ok, string.format("%s n=%d on %d SMs: max error %g", name, n, g.desc.sms, err))
      local np = (n + tile[name] - 1) // tile[name] * tile[name]
      expect(r.cycles > 0 and r.flops == 2 * np * np * np,
             string.format("%s n=%d: flops %d, expected %d", name, n, r.flops, 2 * np * np * np))
    end
  end
end

-- The reference must be able to catch a wrong answer: corrupt one element.
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local r = W.matmul(g, "matmul_tiled16", 17)
  r.out:set(17, 17, r.out:get(17, 17) + 0.01)
  expect(not r.out:allclose(simt.ref.matmul(r.A, r.B), 1e-4, 1e-4),
         "a corrupted C still compares equal")
end

-- One larger run: 128 x 128 with the fastest kernel.
do
  local g = simt.gpu{ arch = "edu-tiny", sms = 8 }
  local r, err = W.matmul(g, "matmul_tiled32", 128)
  expect(r.ok, "matmul_tiled32 n=128: max error " .. tostring(err))
end

-- Rectangular shapes for matmul_rect (used by im2col convolution).
do
  local g = simt.gpu{ arch = "edu-tiny" }
  for _, s in ipairs{ { 1, 1, 1 }, { 17, 5, 33 }, { 3, 100, 9 }, { 40, 1, 70 }, { 16, 48, 27 } } do
    local M, N, K = s[1], s[2], s[3]
    local A = g:tensor{ M, K, init = "random", seed = 3 }
    local B = g:tensor{ K, N, init = "random", seed = 4 }
    local C = g:tensor{ M, N, init = 7 } -- every element must be overwritten
    W.matmul_rect(g, A, B, C)
    local ok, err = C:allclose(simt.ref.matmul(A, B), 1e-4, 2e-6 * K + 1e-6)
    expect(ok, string.format("matmul_rect %dx%dx%d: max error %g", M, N, K, err))
  end
end

-- Coalescing and timing shape at n = 64 on edu-tiny (lessons 5 and 6):
-- the transposed mapping needs more global sectors than the naive one;
-- tiling cuts global traffic; cycles order tiled32 < tiled16 < naive < naive_T.
do
  local g = simt.gpu{ arch = "edu-tiny" }
  local res = {}
  for _, name in ipairs(kernels) do
    res[name] = W.matmul(g, name, 64)
    print(string.format("n=64 %-15s cycles %8d  gld_sectors %7d  dram_bytes %8d", name,
                        res[name].cycles, res[name].gld_sectors, res[name].dram_bytes))
  end
  local nv, nt = res.matmul_naive, res.matmul_naive_T
  local t16, t32 = res.matmul_tiled16, res.matmul_tiled32
  expect(nt.gld_sectors > 2 * nv.gld_sectors, "naive_T should read many more sectors than naive")
  expect(nt.gst_sectors > 2 * nv.gst_sectors, "naive_T should write many more sectors than naive")
  expect(t16.gld_sectors * 4 < nv.gld_sectors, "tiled16 should read far fewer sectors than naive")
  expect(t32.gld_sectors < t16.gld_sectors, "tiled32 should read fewer sectors than tiled16")
  expect(t32.cycles < t16.cycles, "cycles: tiled32 should beat tiled16")
  expect(t16.cycles < nv.cycles, "cycles: tiled16 should beat naive")
  expect(nv.cycles < nt.cycles, "cycles: naive should beat naive_T")
  -- the same launch on the same tensors gives the same cycles (determinism)
  local again = g:launch(W.kernel("matmul_naive"), { grid = { 4, 4 }, block = { 16, 16 } },
                         nv.A, nv.B, nv.out, 64)
  expect(again.cycles == nv.cycles, string.format("the same launch took %d then %d cycles",
                                                  nv.cycles, again.cycles))
end

-- Bad kernel names are reported, not silently ignored.
do
  local ok, msg = pcall(W.matmul, simt.gpu{ arch = "edu-tiny" }, "matmul_nope", 4)
  expect(not ok and msg:find("unknown kernel 'matmul_nope'", 1, true), "unknown kernel name")
end

T.done()
print("test_kernels_matmul: ok")
