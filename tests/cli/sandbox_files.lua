-- sandbox_files.lua - a student's attacks on files (issue 13, classes 1
-- and 2), run by sandbox_files.cmake as `simtlab run [--out W/out]
-- attack.lua W MODE`. Every attack must fail with a message that says
-- why, and no message may show the secret's content. Prints "attacks
-- refused: MODE" when all of them did.
local W, mode = arg[1], arg[2]
local secret = W .. "/secret.txt"
local rows = { { a = "x" } }

local function refused(what, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, what .. ": was allowed")
  assert(not tostring(err):find("SECRET", 1, true), what .. ": message shows the content: " .. err)
  return tostring(err)
end
local function has(err, text)
  assert(err:find(text, 1, true), "expected '" .. text .. "' in: " .. err)
end

-- 1. writes: only into the output folder, by plain relative names
for _, save in ipairs({ simt.save_csv, simt.save_json }) do
  has(refused("absolute", save, W .. "/evil.csv", rows), "writes only into its output folder")
  has(refused("absolute /tmp", save, "/tmp/simtlab-evil.csv", rows), "writes only into its output folder")
  has(refused("climb", save, "../evil.csv", rows), "without '.' or '..' parts")
  has(refused("climb inside", save, "sub/../../evil.csv", rows), "without '.' or '..' parts")
  has(refused("dot", save, "./evil.csv", rows), "without '.' or '..' parts")
  has(refused("trailing slash", save, "sub/", rows), "without '.' or '..' parts")
  has(refused("empty", save, "", rows), "writes only into its output folder")
  if mode == "named" then
    has(refused("symlink file", save, "link.csv", rows), "symbolic link")
    has(refused("symlink folder", save, "up/evil.csv", rows), "not a folder inside the output folder")
    has(refused("missing folder", save, "nosuch/evil.csv", rows), "cannot make folders")
  else
    -- the default folder beside the script is a planted symlink
    has(refused("default symlink", save, "ok.csv", rows), "a symbolic link is refused")
  end
end
has(refused("chart absolute", simt.chart, { path = W .. "/evil.png", x = { 1, 2 },
    series = { { name = "a", y = { 1, 2 } } } }), "writes only into its output folder")
local rf = { roofs = { { name = "FP32", tflops = 1 } }, bandwidths = { { name = "DRAM", tbs = 0.1 } },
             points = { { name = "k", intensity = 1, tflops = 0.05 } } }
rf.path = W .. "/evil-roofline.png"
has(refused("roofline absolute", simt.roofline, rf), "writes only into its output folder")
rf.path = "../evil-roofline.png"
has(refused("roofline climb", simt.roofline, rf), "without '.' or '..' parts")
has(refused("chart font", simt.chart, { path = "c.png", font = secret, x = { 1, 2 },
    series = { { y = { 1, 2 } } } }), "was not found in the folders a sandboxed script may read")

if mode == "named" then
  simt.save_csv("ok.csv", { { a = "=HYPERLINK(1)", b = "+1" }, { a = "-cmd", b = "@x" } })
  simt.save_json("ok.json", { a = 1 })
  simt.save_csv("sub/deep.csv", rows)
end

-- 2. reads: kernels and presets only from allowed folders, regular
-- files, no content in messages, the same answer whether a file exists
local e1 = refused("kernel secret", simt.kernel, secret)
local e2 = refused("kernel missing", simt.kernel, W .. "/no-such-file.s")
has(e1, "was not found in the folders a sandboxed script may read")
assert(e1:gsub("secret.txt", "X") == e2:gsub("no%-such%-file.s", "X"),
       "existing and missing files answer differently:\n" .. e1 .. "\n" .. e2)
has(refused("kernel /etc/passwd", simt.kernel, "/etc/passwd"), "was not found in the folders")
has(refused("kernel climb", simt.kernel, "../secret.txt"), "was not found in the folders")
has(refused("kernel symlink", simt.kernel, W .. "/script/evil.s"), "was not found in the folders")
has(refused("kernel fifo", simt.kernel, W .. "/script/fifo.s"), "is not a regular file")
has(refused("kernel /dev/zero", simt.kernel, "/dev/zero"), "was not found in the folders")
has(refused("kernel /dev/stdin", simt.kernel, "/dev/stdin"), "was not found in the folders")
has(refused("kernel /proc", simt.kernel, "/proc/self/environ"), "was not found in the folders")
has(refused("preset path", simt.gpu, { arch = secret }), "was not found in the folders")
has(refused("preset lua", simt.gpu, W .. "/secret.lua"), "was not found in the folders")
has(refused("cpu preset climb", simt.cpu, { arch = "../../../../../../etc/passwd" }), "unknown CPU preset")
has(refused("module symlink", require, "evilmod"), "was not found in the folders")
-- the project's own kernels still load
assert(simt.kernel("lessons/kernels/matmul_tiled16.s").name == "matmul_tiled16")
print("attacks refused: " .. mode)
