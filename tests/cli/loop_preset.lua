-- loop_preset.lua - a preset file that never returns (sandbox_limits.lua).
while true do end
