-- helper_mod.lua - a module that test_sandbox.c requires from "the
-- script's directory".
return { answer = 42 }
