/* fuzz_lua_gc.c - libFuzzer target: the Lua API called with
 * metamethod-laden tables that collect garbage between fields (issue 20,
 * class 1).
 *
 * The input is not Lua text: its bytes choose a sequence of API calls
 * (simt.race, title, say, roofline, chart, save_csv, tensor, launch,
 * tensor methods, simt.ref.*), each on arguments built from a few base
 * tables wrapped by W(t, mode): a proxy whose __index / __len run Lua code
 * on every read C makes: a full collectgarbage(), removing fields from the
 * table (so a string or object read before loses its last reference),
 * making fresh strings and tensors nothing else holds, and __len values
 * such as 2^32 + 1, -1 or 2^62. A race entry's device may be a table
 * whose launch function launches on objects only it holds, drops them and
 * collects garbage. The generated script runs in a sandboxed state with a
 * small instruction budget and memory cap. Lua errors are expected;
 * crashes, ASan and UBSan reports are bugs. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lsimt.h"
#include "sandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PRELUDE[] =
    "G = simt.gpu{ arch = 'edu-tiny', mem_bytes = 4194304 }\n"
    "K = simt.kernel('lessons/kernels/vecadd.s')\n"
    "A = G:tensor{ 64, init = 'random', seed = 1 }\n"
    "B = G:tensor{ 64, init = 'random', seed = 2 }\n"
    "C = G:tensor{ 64, init = 'zeros' }\n"
    "H = simt.tensor{ 4, 4, init = 'range' }\n"
    "LENS = { 4294967297, -1, 0, 1 << 62, 4294967296 + 3, 1, 2, 7 }\n"
    "local function churn() collectgarbage(); collectgarbage() end\n"
    /* W(t, mode): a proxy of t; mode's bits: 1 collect on every read,
     * 2 remove the field read (and the one before) from t, 4 fresh
     * strings for string fields, 8 a strange __len, 16 a fresh tensor
     * on a missing key, 32 wrap nested tables too */
    "function W(t, mode)\n"
    "  local last\n"
    "  return setmetatable({}, {\n"
    "    __index = function(_, key)\n"
    "      local v = t[key]\n"
    "      if mode & 2 ~= 0 then\n"
    "        if last ~= nil then t[last] = nil end\n"
    "        last = key\n"
    "      end\n"
    "      if mode & 1 ~= 0 then churn() end\n"
    "      if type(v) == 'string' and mode & 4 ~= 0 then v = (v .. '!'):sub(1, -2) end\n"
    "      if v == nil and mode & 16 ~= 0 then v = G:tensor{ 8 } end\n"
    "      if type(v) == 'table' and mode & 32 ~= 0 and getmetatable(v) == nil then v = W(v, mode) end\n"
    "      return v\n"
    "    end,\n"
    "    __len = function()\n"
    "      if mode & 1 ~= 0 then churn() end\n"
    "      if mode & 8 ~= 0 then return LENS[(mode >> 6) % #LENS + 1] end\n"
    "      return #t\n"
    "    end,\n"
    "    __tostring = function() churn(); return 'w' end })\n"
    "end\n"
    /* a race device whose launch function drops what it launched on */
    "function DEV(drop)\n"
    "  return { launch = function(_, k, cfg, ...)\n"
    "    local g = simt.gpu{ arch = 'edu-tiny', mem_bytes = 1048576 }\n"
    "    local a, b, c = g:tensor{ 64, init = 'ones' }, g:tensor{ 64, init = 'ones' }, g:tensor{ 64 }\n"
    "    local k2 = simt.kernel('lessons/kernels/vecadd.s')\n"
    "    g:launch(k2, cfg, a, b, c, 64)\n"
    "    if drop then g, a, b, c, k2 = nil, nil, nil, nil, nil; churn() end\n"
    "  end }\n"
    "end\n"
    "function CFG() return { grid = { 1 }, block = { 64 }, max_cycles = 20000, max_warp_instrs = 20000 } end\n";

/* Base tables an argument is built from (Lua expressions). */
static const char *const BASES[] = {
    "{ en = 'title text', zh = '标题' }",
    "{ en = string.rep('e', 100) }",
    "{ roofs = { { name = 'FP32', tflops = 60 } }, bandwidths = { { name = 'DRAM', tbs = 4.8 } }, "
    "points = { { name = 'p', intensity = 1, tflops = 2 } }, title = 'roof', subtitle = 'sub', path = '../r.png' }",
    "{ path = '../c.png', title = 't', x_label = 'x', y_label = 'y', x = { 1, 2, 3 }, "
    "series = { { name = 's', y = { 1, 2, 3 } }, { name = 'u', y = { 3, 2, 1 } } } }",
    "{ 4, 4, dtype = 'f32', init = 'random', seed = 3 }",
    "{ 16, init = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } }",
    "CFG()",
    "{ grid = { 1 }, block = { 64 }, max_cycles = 20000, max_warp_instrs = 20000, show = C }",
    "{ { G, K, CFG(), A, B, C, 64 } }",
    "{ { DEV(true), K, CFG() }, { DEV(false), K, CFG() } }",
    "{ { G, K, CFG(), A, B, C, 64 }, { DEV(true), K, CFG() }, interruptible = true }",
    "{ { a = 1, b = 'x' }, { a = 2, b = 'y' } }",
    "{ columns = { 'b', 'a' } }",
    "{ 64 }",
};
#define NBASES (sizeof BASES / sizeof BASES[0])

/* Calls on pool values (V[a], V[b]): each one a Lua statement. */
static const char *const CALLS[] = {
    "pcall(simt.title, V[%d], V[%d])",
    "pcall(simt.say, V[%d]) local _ = V[%d]",
    "pcall(simt.race, V[%d]) local _ = V[%d]",
    "pcall(simt.roofline, V[%d]) local _ = V[%d]",
    "pcall(simt.chart, V[%d]) local _ = V[%d]",
    "pcall(simt.save_csv, '../x.csv', V[%d], V[%d])",
    "pcall(G.tensor, G, V[%d]) local _ = V[%d]",
    "pcall(simt.tensor, V[%d]) local _ = V[%d]",
    "pcall(G.launch, G, K, V[%d], A, B, C, 64) local _ = V[%d]",
    "V[%d] = nil; V[%d] = nil; collectgarbage()",
    "pcall(function() local t = G:tensor(V[%d]); t:fill(1); C:copy_from(A); return A:allclose(B), t:sum(), V[%d] end)",
    "pcall(function() local t = simt.tensor(V[%d]); return simt.ref.matmul(t, t), tostring(V[%d]) end)",
    "pcall(simt.title, 'plain', V[%d]) local _ = V[%d]",
    "pcall(function() return #V[%d], V[%d] end)",
};
#define NCALLS (sizeof CALLS / sizeof CALLS[0])
#define POOL 8

typedef struct {
    const uint8_t *p;
    size_t n;
} reader_t;

static unsigned next_byte(reader_t *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

/* Append the Lua statement the next bytes choose to buf. */
static size_t emit(reader_t *r, char *buf, size_t cap, size_t used)
{
    unsigned op = next_byte(r), a = next_byte(r) % POOL + 1, b = next_byte(r) % POOL + 1;
    int n;
    if (op % 3 == 0) {   /* make a pool value: a base table, wrapped or not */
        unsigned base = next_byte(r) % NBASES, mode = next_byte(r);
        if (mode & 1)
            n = snprintf(buf + used, cap - used, "V[%u] = W(%s, %u)\n", a, BASES[base], mode >> 1);
        else
            n = snprintf(buf + used, cap - used, "V[%u] = %s\n", a, BASES[base]);
    } else {
        n = snprintf(buf + used, cap - used, CALLS[(op / 3) % NCALLS], (int)a, (int)b);
        if (n > 0 && used + (size_t)n + 1 < cap) {
            buf[used + (size_t)n] = '\n';
            n++;
        }
    }
    if (n < 0 || used + (size_t)n >= cap)
        return used;
    return used + (size_t)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char script[1 << 16];
    reader_t r = { data, size };
    size_t used = (size_t)snprintf(script, sizeof script, "V = {}\n");
    for (int i = 0; i < 64 && r.n > 0; i++)
        used = emit(&r, script, sizeof script, used);

    lua_State *L = luaL_newstate();
    if (!L)
        return 0;
    static const char *const read_dirs[] = { SIMT_SOURCE_DIR, NULL };   /* kernels */
    sandbox_opts_t o = { .max_instructions = 20000000, .max_bytes = 64u << 20,
                         .lib_dir = SIMT_SOURCE_DIR "/lessons/lib", .script_dir = NULL,
                         .read_dirs = read_dirs };
    if (sandbox_open(L, &o) != 0) {
        lua_close(L);
        return 0;
    }
    luaL_requiref(L, "simt", luaopen_simt, 1);
    lua_pop(L, 1);
    if (luaL_loadbufferx(L, PRELUDE, sizeof PRELUDE - 1, "=prelude", "t") != LUA_OK ||
        sandbox_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "prelude: %s\n", lua_tostring(L, -1));
        abort();   /* the prelude itself must run */
    }
    if (luaL_loadbufferx(L, script, used, "=fuzz", "t") == LUA_OK)
        sandbox_pcall(L, 0, 0, 0);
    lua_settop(L, 0);
    sandbox_close(L);
    return 0;
}
