-- args_count.lua - prints how many arguments it got, as arg and as ...
local n = select("#", ...)
assert(n == #arg, "... has " .. n .. ", arg has " .. #arg)
print(n .. " args")
