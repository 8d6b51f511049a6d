-- figures_roofline.lua - the README's roofline (scripts/figures.sh):
-- the shipped kernels on the h200 model, each checked, as dots.
-- usage: simtlab run --unsafe scripts/figures_roofline.lua OUT.png
local RL = require("roofline")
RL.main{arch = "h200", png = arg[1] or "roofline.png"}
