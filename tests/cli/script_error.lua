-- script_error.lua - fixture for tests/CMakeLists.txt: fails on line 4.
local function fail() error("boom") end

fail()
