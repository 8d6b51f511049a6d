/* llaunch.c - the launch options of g:launch and c:launch (see llaunch.h). */
#include "llaunch.h"

#include <string.h>

#include <lauxlib.h>

#include "lfields.h"
#include "lstage.h"
#include "lutil.h"
#include "sandbox.h"
#include "tensor.h"

/* Every key, in the order the messages list them. */
static const char *const launch_keys[] = { "grid", "block", "cluster", "max_cycles", "max_instrs",
                                           "max_warp_instrs", "warm_caches", "warm", "check", "show", "pace" };
#define NLAUNCH_KEYS (sizeof launch_keys / sizeof launch_keys[0])

void llaunch_check_keys(lua_State *L, int idx, const char *who, const char *const *keys, size_t nkeys)
{
    char bad[128], all[256];
    size_t used = 0;
    int found = lfields_unknown_key(L, idx, keys, nkeys, NULL, bad, sizeof bad);
    if (!found)
        return;
    for (size_t i = 0; i < nkeys && used < sizeof all; i++)
        used += (size_t)snprintf(all + used, sizeof all - used, "%s%s", i ? ", " : "", keys[i]);
    if (found == 2)
        lutil_error(L, "%s: the configuration's keys are names (grid = 4, ...), got a %s key; "
                       "the keys are %s", who, bad, all);
    const char *hint = lfields_closest(bad, keys, nkeys);
    lutil_error(L, "%s: unknown configuration key '%s'%s%s%s; the keys are %s", who, bad,
                hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "", all);
}

static void check_keys(lua_State *L, int idx)
{
    llaunch_check_keys(L, idx, "launch", launch_keys, NLAUNCH_KEYS);
}

/* The whole number at idx, or 0: an integer, or a float with a whole
 * value (n / 16 is 8.0, 1e6 is 1000000.0, both fine), never a string. */
static lua_Integer whole(lua_State *L, int idx)
{
    int ok = 0;
    lua_Integer v = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &ok) : 0;
    return ok ? v : 0;
}

/* A positive integer key (0 when absent). */
static uint64_t get_count(lua_State *L, int idx, const char *key)
{
    uint64_t v = 0;
    if (lua_getfield(L, idx, key) != LUA_TNIL) {
        if (whole(L, -1) < 1)
            lutil_error(L, "launch: %s must be a positive integer, got %s", key, luaL_tolstring(L, -1, NULL));
        v = (uint64_t)whole(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* A true/false key: 1, 0, or dflt when absent. */
static int get_flag(lua_State *L, int idx, const char *key, int dflt)
{
    int v = dflt;
    if (lua_getfield(L, idx, key) != LUA_TNIL) {
        if (!lua_isboolean(L, -1))
            lutil_error(L, "launch: %s must be true or false, got %s", key, luaL_typename(L, -1));
        v = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* The warm list (GPU only): one tensor or a list of them, each a device
 * tensor of owner with data. */
static void get_warm(lua_State *L, int idx, const struct lgpu *owner, llaunch_opts_t *o)
{
    if (lua_getfield(L, idx, "warm") == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    int one = tensor_test(L, -1) != NULL;
    if (!one && !lua_istable(L, -1))
        lutil_error(L, "launch: warm must be a device tensor or a list of them, got %s", luaL_typename(L, -1));
    lua_Integer n = one ? 1 : (lua_Integer)lua_rawlen(L, -1);
    if (n > LLAUNCH_MAX_WARM)
        lutil_error(L, "launch: warm lists %d tensors, at most %d", (int)n, LLAUNCH_MAX_WARM);
    for (lua_Integer j = 1; j <= n; j++) {
        if (!one)
            lua_rawgeti(L, -1, j);
        tensor_t *t = tensor_test(L, -1);
        if (!t || t->gpu != owner)
            lutil_error(L, "launch: warm[%d] must be a tensor of this GPU, got %s", (int)j,
                        t ? "a tensor of another device" : luaL_typename(L, -1));
        if (t->resv)
            lutil_error(L, "launch: warm[%d] is a size_only tensor: it has no data to put in L2", (int)j);
        o->warm[j - 1].addr = t->addr;
        o->warm[j - 1].bytes = (uint32_t)tensor_bytes(t);
        if (!one)
            lua_pop(L, 1);
    }
    o->nwarm = (uint32_t)n;
    lua_pop(L, 1);
}

/* Keys a CPU launch refuses, and why. */
static void cpu_refuses(lua_State *L, int idx, int check)
{
    if (lua_getfield(L, idx, "cluster") != LUA_TNIL)
        lutil_error(L, "launch: cluster is a GPU key: a CPU has no thread-block clusters");
    if (lua_getfield(L, idx, "warm") != LUA_TNIL)
        lutil_error(L, "launch: warm is a GPU key: a CPU launch cannot put tensors into its caches "
                       "(warm_caches = true keeps the last launch's)");
    lua_pop(L, 2);
    if (check)
        lutil_error(L, "launch: check = true: the kernel checker runs on GPUs only (a CPU launch takes "
                       "check = false or no check key)");
}

void llaunch_read(lua_State *L, int idx, llaunch_device_t dev, const struct lgpu *owner, llaunch_opts_t *o)
{
    idx = lua_absindex(L, idx);
    luaL_checktype(L, idx, LUA_TTABLE);
    check_keys(L, idx);
    memset(o, 0, sizeof *o);
    llaunch_dim3(L, idx, "grid", o->grid);
    llaunch_dim3(L, idx, "block", o->block);
    if (lua_getfield(L, idx, "cluster") != LUA_TNIL && dev == LLAUNCH_GPU)
        llaunch_dim3(L, idx, "cluster", o->cluster);
    lua_pop(L, 1);
    o->max_cycles = get_count(L, idx, "max_cycles");
    o->max_instrs = get_count(L, idx, "max_instrs");
    uint64_t warp = get_count(L, idx, "max_warp_instrs");
    if (warp && o->max_instrs)
        lutil_error(L, "launch: max_instrs and max_warp_instrs are the same limit: give one of them");
    if (warp)
        o->max_instrs = warp;
    o->warm_caches = get_flag(L, idx, "warm_caches", 0);
    if (dev == LLAUNCH_GPU)
        get_warm(L, idx, owner, o);
    o->check = get_flag(L, idx, "check", dev == LLAUNCH_GPU);
    if (dev == LLAUNCH_CPU)
        cpu_refuses(L, idx, o->check);
}

void llaunch_charge(lua_State *L, uint64_t instrs)
{
    sandbox_charge_work(L, instrs);
}

void llaunch_dim3(lua_State *L, int idx, const char *key, uint32_t out[3])
{
    int ty = lua_getfield(L, idx, key), i;
    out[0] = out[1] = out[2] = 1;
    if (ty == LUA_TNIL) {
        lutil_error(L, "launch: the configuration needs '%s', e.g. %s = {4, 4}", key, key);
    } else if (ty == LUA_TNUMBER) {
        lua_Integer v = whole(L, -1);
        if (v < 1 || v > (lua_Integer)UINT32_MAX)
            lutil_error(L, "launch: %s must be a positive integer, got %s", key,
                        luaL_tolstring(L, -1, NULL));
        out[0] = (uint32_t)v;
    } else if (ty == LUA_TTABLE) {
        lua_Integer n = luaL_len(L, -1);
        if (n < 1 || n > 3)
            lutil_error(L, "launch: %s must have 1 to 3 sizes, got %d", key, (int)n);
        for (i = 0; i < (int)n; i++) {
            lua_Integer v;
            lua_geti(L, -1, i + 1);
            v = whole(L, -1);
            if (v < 1 || v > (lua_Integer)UINT32_MAX)
                lutil_error(L, "launch: %s[%d] must be a positive integer, got %s", key, i + 1,
                            luaL_tolstring(L, -1, NULL));
            out[i] = (uint32_t)v;
            lua_pop(L, 1);
        }
    } else {
        lutil_error(L, "launch: %s must be a number or a table of 1 to 3 integers, got %s", key,
                    luaL_typename(L, -1));
    }
    lua_pop(L, 1);
}

void llaunch_lane_output(lua_State *L, int cfg, int first_arg, int nargs, lstage_lane_t *lane)
{
    tensor_t *t = NULL;
    if (lua_getfield(L, cfg, "pace") != LUA_TNIL) {   /* a blink of a run, slowed down on the stage */
        if (!lua_isnumber(L, -1) || !(lua_tonumber(L, -1) > 0))
            lutil_error(L, "launch: pace must be a number > 0 (simulated µs per second on the stage)");
        lane->pace_us = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    int shown = lua_getfield(L, cfg, "show");   /* read once: an __index may answer differently */
    if (shown == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        lua_pop(L, 1);   /* show = false: the output means nothing as a picture */
        return;
    }
    if (shown != LUA_TNIL) {
        t = tensor_test(L, -1);
        if (!t || !t->gpu || t->dt->bytes != 4 || !t->dt->is_float)
            lutil_error(L, "launch: show must be a device tensor of f32 values (the output to paint) or false (paint none)");
    }
    /* the shown tensor stays on the launch's stack (an __index may have
     * made it: nothing else holds it); a race anchors it with the rest */
    if (!t)
        lua_pop(L, 1);
    for (int i = nargs - 1; !t && i >= 0; i--) {   /* else: the last f32 device tensor argument */
        tensor_t *a = tensor_test(L, first_arg + i);
        if (a && a->gpu && a->dt->bytes == 4 && a->dt->is_float)
            t = a;
    }
    if (!t)
        return;
    lane->out = tensor_data(L, t);
    if (t->ndim >= 2) {
        lane->cols = (uint32_t)t->dims[t->ndim - 1];
        lane->rows = (uint32_t)(t->n / t->dims[t->ndim - 1]);
    } else {   /* a vector: painted as a square-ish picture, row by row */
        uint32_t c = 1;
        while ((uint64_t)c * c < (uint64_t)t->n)
            c++;
        lane->cols = c;
        lane->rows = (uint32_t)((t->n + c - 1) / c);
    }
    lane->out_n = (uint64_t)t->n;
}
