-- huge_error.lua - fixture: an error message of 2 MB (a million two-byte characters)
error(string.rep("\u{e9}", 1e6), 0)
