-- picture.lua - matrices whose product is a picture, for the races of
-- lesson 1 and the demo: the class watches a real image being painted.
--
--   local picture = require("picture")
--   local A, B, C = picture.operands(dev, n)   -- C = A x B is the picture
--
-- A is an n x n picture of the Mandelbrot set (values 0.05 .. 1: escape
-- time, so no pixel is 0, which the stage shows as "not computed yet");
-- B is a blur: column j of C = (column j-1 + 2 x column j + column j+1) / 4
-- of A (a tridiagonal matrix, rows normalised at the edges). So C = A x B is
-- a real matrix product, n^3 multiply-adds, whose result is the picture
-- slightly blurred sideways, and which simt.ref.matmul checks as usual.
local picture = {}

-- Escape time of c = x + iy, scaled to 0.05 .. 1.
local function escape(x, y, limit)
  local zx, zy = 0.0, 0.0
  for k = 1, limit do
    local zx2, zy2 = zx * zx, zy * zy
    if zx2 + zy2 > 4.0 then return 0.05 + 0.95 * (k / limit) ^ 0.5 end
    zy = 2.0 * zx * zy + y
    zx = zx2 - zy2 + x
  end
  return 0.05
end

-- The picture as a flat table, row by row.
function picture.image(n)
  local t, limit = {}, 48
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      t[i * n + j + 1] = escape(-2.1 + 2.8 * j / n, -1.25 + 2.5 * i / n, limit)
    end
  end
  return t
end

-- The blur matrix as a flat table.
function picture.blur(n)
  local t = {}
  for k = 0, n - 1 do
    for j = 0, n - 1 do
      local d = math.abs(k - j)
      local w = d == 0 and 0.5 or d == 1 and 0.25 or 0.0
      -- the first and last columns have one neighbour: weights 2/3, 1/3
      if (j == 0 or j == n - 1) and n > 1 then w = d == 0 and 2 / 3 or d == 1 and 1 / 3 or 0.0 end
      t[k * n + j + 1] = w
    end
  end
  return t
end

function picture.operands(dev, n)
  local A = dev:tensor{ n, n, name = "A" }
  local B = dev:tensor{ n, n, name = "B" }
  local C = dev:tensor{ n, n, name = "C" }
  A:copy_from(picture.image(n))
  B:copy_from(picture.blur(n))
  return A, B, C
end

return picture
