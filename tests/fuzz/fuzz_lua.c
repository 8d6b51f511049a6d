/* fuzz_lua.c - libFuzzer target: the Lua API (module simt) driven by
 * arbitrary scripts.
 *
 * Each input runs as a Lua chunk in a sandboxed state (sandbox.h) with a
 * small instruction budget and memory cap, so that it cannot hang or eat
 * the machine. A prelude keeps the simulated work small too: every GPU
 * gets at most 4 MB of device memory and every launch at most 20000
 * cycles and warp instructions; E(t) wraps a table in metamethods that
 * run Lua code whenever C reads it; long strings meet only patterns
 * without repetition items. There is no output folder, so every
 * write is refused. Lua errors are expected; crashes, ASan and UBSan
 * reports are bugs. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lsimt.h"
#include "sandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PRELUDE[] =
    "local real_gpu, min = simt.gpu, math.min\n"
    "simt.gpu = function(spec, ...)\n"
    "  if type(spec) == 'table' then\n"
    "    local m = rawget(spec, 'mem_bytes')\n"
    "    rawset(spec, 'mem_bytes', type(m) == 'number' and min(m, 4194304) or 4194304)\n"
    "  end\n"
    "  local g = real_gpu(spec, ...)\n"
    "  local launch = g.launch\n"
    "  return setmetatable({}, { __index = function(_, k)\n"
    "    if k == 'launch' then\n"
    "      return function(_, k2, cfg, ...)\n"
    "        if type(cfg) == 'table' then\n"
    "          rawset(cfg, 'max_cycles', 20000); rawset(cfg, 'max_warp_instrs', 20000)\n"
    "        end\n"
    "        return launch(g, k2, cfg, ...)\n"
    "      end\n"
    "    end\n"
    "    local v = g[k]\n"
    "    if type(v) == 'function' then return function(_, ...) return v(g, ...) end end\n"
    "    return v\n"
    "  end })\n"
    "end\n"
    /* E(t [, n]): a proxy of t whose every read runs Lua code (collects
     * garbage, makes and drops a tensor), to drive the C functions'
     * callbacks (__index, __len) with metamethod-laden arguments */
    "function E(t, n)\n"
    "  return setmetatable({}, {\n"
    "    __index = function(_, k)\n"
    "      collectgarbage('step'); local _ = simt.tensor{ 2 }\n"
    "      local v = t[k]\n"
    "      if type(v) == 'table' and getmetatable(v) == nil then return E(v) end\n"
    "      return v\n"
    "    end,\n"
    "    __len = function() collectgarbage('step'); return n or #t end })\n"
    "end\n"
    /* Backtracking inside a string pattern runs in C, where only
     * --time-limit bounds it (README, "The sandbox"); the fuzzer runs
     * without one, so here a long subject meets only patterns without
     * repetition items (s:rep(200):find('.-.-b') took libFuzzer's 30 s) */
    "do\n"
    "  local find = string.find\n"
    "  for _, name in ipairs{ 'find', 'match', 'gmatch', 'gsub' } do\n"
    "    local f = string[name]\n"
    "    string[name] = function(s, p, ...)\n"
    "      if type(s) == 'string' and #s > 2048 and type(p) == 'string' and find(p, '[-*+]') then\n"
    "        error('fuzz prelude: a long subject with a repeating pattern', 2)\n"
    "      end\n"
    "      return f(s, p, ...)\n"
    "    end\n"
    "  end\n"
    "end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lua_State *L = luaL_newstate();
    if (!L)
        return 0;
    static const char *const read_dirs[] = { SIMT_SOURCE_DIR, NULL };   /* presets, kernels */
    sandbox_opts_t o = { .max_instructions = 2000000, .max_bytes = 32u << 20,
                         .lib_dir = SIMT_SOURCE_DIR "/lessons/lib", .script_dir = NULL,
                         .read_dirs = read_dirs };
    if (sandbox_open(L, &o) != 0) {
        lua_close(L);
        return 0;
    }
    luaL_requiref(L, "simt", luaopen_simt, 1);
    lua_pop(L, 1);
    if (luaL_loadbufferx(L, PRELUDE, sizeof PRELUDE - 1, "=prelude", "t") != LUA_OK ||
        sandbox_pcall(L, 0, 0, 0) != LUA_OK)
        abort();   /* the prelude itself must run */
    if (luaL_loadbufferx(L, (const char *)data, size, "=fuzz", "t") == LUA_OK)
        sandbox_pcall(L, 0, 0, 0);
    lua_settop(L, 0);
    sandbox_close(L);
    return 0;
}
