-- args.lua - fixture: `simtlab run args.lua one 2` passes arguments.
local a, b = ...
assert(a == "one" and b == "2", "varargs")
assert(arg[0]:find("args.lua", 1, true), "arg[0] is the script")
assert(arg[1] == "one" and arg[2] == "2" and arg[3] == nil, "arg table")
assert(simt == require("simt"), "simt preloaded")
print("args ok")
