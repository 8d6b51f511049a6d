-- stage_text.lua - issue 20, class 3: a stage refuses text longer than a
-- screen could show (the surfaces it would draw are not charged to the
-- memory cap); shorter text is drawn.
local ok, e = pcall(simt.title, string.rep("x", 100000))
print(ok, e)
ok, e = pcall(simt.say, { en = "short", zh = string.rep("字", 30000) })
print(ok, e)
simt.title({ en = "fine", zh = "好" }, "step")
