/* lsimt.c - the Lua module `simt` (see lsimt.h).
 *
 *   local g = simt.gpu{arch = "h200", sms = 16}      GPU from preset + overrides
 *   g.name  g.desc                                   preset name, all fields
 *   local k = simt.kernel("lessons/kernels/x.s")     assemble a kernel
 *   k.name k.nregs k.nparams k.params k.shared_bytes k.ninstr k:listing()
 *   local r = g:launch(k, {grid = {4, 4}, block = {16, 16}}, A, B, C, n)
 *   r.cycles r.time_us r.ipc r.tflops r.dram_gbs r.stalls.memory ...
 *   simt.f32(x) simt.i32(x)  force how a number is passed to a kernel
 *   simt.tensor{...} simt.ref.* simt.presets() simt.version
 *
 * Userdata own their C resources and release them in __gc, so an error
 * raised at any point leaks nothing: every allocation is made after the
 * userdata that will free it exists.
 */
#include "lsimt.h"
#include "lstage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lutil.h"
#include "sandbox.h"

#include "arch.h"
#include "asm.h"
#include "export.h"
#include "lchart.h"
#include "lroofline.h"
#include "lcpu.h"
#include "lnode.h"
#include "power.h"
#include "tensor.h"

#ifndef SIMT_VERSION
#define SIMT_VERSION "0.1.0"
#endif

#define KERNEL_MT "simt.kernel"
#define SCALAR_MT "simt.scalar"

/* A kernel object: an assembled program. */
typedef struct lkernel {
    isa_program_t prog;  /* owned once loaded                       */
    int loaded;          /* 1 after a successful assembly           */
    uint64_t charged;    /* host bytes counted against the sandbox's cap */
} lkernel_t;

/* simt.f32(x) / simt.i32(x): a number with a forced kernel encoding. */
typedef struct lscalar {
    uint32_t bits;       /* the 32 bits passed to the kernel         */
    int is_float;        /* 1: f32, 0: i32                           */
    double value;        /* the Lua number, for printing             */
} lscalar_t;

/* ---- GPU --------------------------------------------------------------- */

static lgpu_t *check_gpu(lua_State *L, int arg)
{
    lgpu_t *G = (lgpu_t *)luaL_checkudata(L, arg, LGPU_MT);
    if (!G->g)
        lutil_error(L, "the GPU has been freed");
    return G;
}

#define MODULE_KEY "simt.module"      /* registry: the simt table        */
#define LOG_KEY "simt.launch_log"       /* registry: rows for --stats      */
#define TRACE_KEY "simt.trace"          /* registry: trace_t * (light)     */
#define TRACE_EVERY_KEY "simt.trace_every" /* registry: sample period      */

#define OVERRIDES_KEY "simt.overrides" /* registry: the command line's fields */

/* Push the command line's overrides (lsimt_set_overrides) if there are
 * any, else push nothing and return 0. They live in the registry, out of
 * the script's reach: simt.overrides is only a read-only view. */
static int push_overrides(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, OVERRIDES_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pushnil(L);
    if (lua_next(L, -2) == 0) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pop(L, 2);
    return 1;
}

/* Copy every key of the table at src into the table at dst. */
static void copy_table(lua_State *L, int src, int dst)
{
    src = lua_absindex(L, src);
    dst = lua_absindex(L, dst);
    lua_pushnil(L);
    while (lua_next(L, src) != 0) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, dst);
    }
}

/* An estimate of the host memory a GPU of description d holds once its
 * caches have been used: 48 bytes per L1 and L2 line (tag, state and the
 * sectors' ready times, cache.h) and 64 KB per SM for the rest. */
uint64_t lsimt_gpu_host_bytes(const gpu_desc_t *d)
{
    uint64_t line = d->line_bytes ? d->line_bytes : 128;
    return 48 * (((uint64_t)d->l2_bytes + (uint64_t)d->sms * d->l1_bytes) / line)
           + ((uint64_t)d->sms + 1) * 65536;
}

/* Push a new GPU userdata made from d (already validated). Its host
 * memory counts against the sandbox's cap. */
static int push_new_gpu(lua_State *L, const gpu_desc_t *d)
{
    simt_err_t err;
    uint64_t cost = lsimt_gpu_host_bytes(d);
    lgpu_t *G = (lgpu_t *)lua_newuserdatauv(L, sizeof *G, 0);
    G->g = NULL;
    G->ntensors = 0;
    G->charged = 0;
    luaL_setmetatable(L, LGPU_MT);
    tensor_charge(L, cost, "a new GPU");
    G->charged = cost;
    simt_err_clear(&err);
    G->g = gpu_create(d, &err);
    if (!G->g)
        return lutil_error(L, "%s", err.msg);
    return 1;
}

/* simt.gpu{arch = "h200", field = value, ...}, simt.gpu("h200") or
 * simt.gpu() (the default description, edu-tiny's values). The fields of
 * simt.overrides (set by `simtlab run --sms 8 ...`) are applied last; its
 * "arch" replaces the preset. */
static int l_gpu(lua_State *L)
{
    gpu_desc_t d;
    simt_err_t err;
    int overridden;
    simt_err_clear(&err);
    lutil_desc_arg(L, "table like {arch = \"h200\"} or a preset name");
    overridden = push_overrides(L);
    if (overridden) {            /* merged = copy of the table + overrides */
        lua_newtable(L);
        copy_table(L, 1, 3);
        copy_table(L, 2, 3);
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    if (arch_desc_from_table(L, 1, &d, &err) != 0)
        return lutil_error(L, "%s%s", err.msg,
                           overridden ? " (after applying the command-line overrides)" : "");
    return push_new_gpu(L, &d);
}

/* g:with{field = value, ...}: a new GPU with g's description changed by
 * the table, then by simt.overrides (the command line still wins). */
static int gpu_with(lua_State *L)
{
    lgpu_t *G = (lgpu_t *)luaL_checkudata(L, 1, LGPU_MT);
    gpu_desc_t d;
    simt_err_t err;
    if (!G->g)
        return lutil_error(L, "the GPU has been freed");
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_getfield(L, 2, "arch") != LUA_TNIL)
        return lutil_argerror(L, 2, "'arch' cannot change in g:with{...} "
                                    "(make a new GPU with simt.gpu{arch = ...})");
    lua_settop(L, 2);
    d = *gpu_desc(G->g);
    simt_err_clear(&err);
    if (arch_apply_table(L, 2, &d, &err) != 0)
        return lutil_argerror(L, 2, "%s", err.msg);
    if (push_overrides(L) && arch_apply_table(L, -1, &d, &err) != 0)
        return lutil_error(L, "simt.overrides: %s", err.msg);
    if (gpu_desc_validate(&d, &err) != 0)
        return lutil_error(L, "with: %s", err.msg);
    return push_new_gpu(L, &d);
}

static int gpu_gc(lua_State *L)
{
    lgpu_t *G = (lgpu_t *)luaL_checkudata(L, 1, LGPU_MT);
    if (G->g) {
        gpu_free(G->g);
        G->g = NULL;
    }
    if (G->charged) {
        sandbox_charge_bytes(L, -(int64_t)G->charged);
        G->charged = 0;
    }
    return 0;
}

static int gpu_tostring(lua_State *L)
{
    lgpu_t *G = (lgpu_t *)luaL_checkudata(L, 1, LGPU_MT);
    if (!G->g) {
        lua_pushstring(L, "gpu (freed)");
    } else {
        const gpu_desc_t *d = gpu_desc(G->g);
        lua_pushfstring(L, "gpu '%s' (%d SMs, %d MHz)", d->name, (int)d->sms,
                        (int)(d->clock_mhz + 0.5));
    }
    return 1;
}

void lsimt_get_dim3(lua_State *L, int idx, const char *key, uint32_t out[3])
{
    int ty = lua_getfield(L, idx, key), i;
    out[0] = out[1] = out[2] = 1;
    if (ty == LUA_TNIL) {
        lutil_error(L, "launch: the configuration needs '%s', e.g. %s = {4, 4}", key, key);
    } else if (ty == LUA_TNUMBER) {
        lua_Integer v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
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
            v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
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

uint32_t lsimt_arg_bits(lua_State *L, const lgpu_t *owner, const char *maker, const isa_program_t *p,
                        int arg, int i)
{
    tensor_t *t = tensor_test(L, arg);
    lscalar_t *s = (lscalar_t *)luaL_testudata(L, arg, SCALAR_MT);
    const char *pname = p->params[i];
    if (t) {
        if (!t->gpu)
            lutil_error(L, "launch: argument %d (%s) is a host tensor; kernels need device "
                          "tensors (make it with %s{...})", i + 1, pname, maker);
        if (t->gpu != owner && maker[0] == 'c')
            lutil_error(L, "launch: argument %d (%s) is not a tensor of this CPU (make it with %s{...})",
                        i + 1, pname, maker);
        if (t->gpu != owner)
            lutil_error(L, "launch: argument %d (%s) is a tensor on another GPU", i + 1, pname);
        if (t->resv)
            lutil_error(L, "launch: argument %d (%s) is a size_only tensor: it has no data for a "
                          "kernel to read", i + 1, pname);
        return t->addr;
    }
    if (s)
        return s->bits;
    if (lua_isinteger(L, arg)) {
        lua_Integer v = lua_tointeger(L, arg);
        if (v < INT32_MIN || v > (lua_Integer)UINT32_MAX)
            lutil_error(L, "launch: argument %d (%s) = %lld does not fit in 32 bits", i + 1, pname,
                        (long long)v);
        return (uint32_t)v;
    }
    if (lua_type(L, arg) == LUA_TNUMBER) {
        float f = (float)lua_tonumber(L, arg);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    lutil_error(L, "launch: argument %d (%s) must be a device tensor or a number, got %s",
                i + 1, pname, luaL_typename(L, arg));
    return 0;
}



static const char *const stall_names[STALL_COUNT] = { /* by gpu_stall_t */
    "memory", "dependency", "barrier", "pipe", "idle"
};

/* Push the result table of a launch on a GPU with description d: the
 * counters of gpu_stats_t plus derived rates:
 *   ipc, tflops; l1_gbs, l2_gbs, dram_gbs (achieved bandwidth: sectors
 *   looked up in L1, in L2, bytes moved to/from DRAM, per second);
 *   l1_hit_rate, l2_hit_rate (sectors); lane_utilisation (active lanes per
 *   issued warp instruction / 32); issued_slots (scheduler-cycles that
 *   issued: issue_slots minus every stall); stall_frac.{memory, ...,
 *   issued} (fractions of issue_slots, summing to 1); the power model's
 *   power_model (boolean), time_us_boost (cycles / clock_mhz; time_us and
 *   the rates are at the sustained clock), clock_mhz_sustained, throttled,
 *   energy_j, avg_power_w, power_boost_w, energy_dram_j, energy_static_j
 *   (power.h; 0 / clock_mhz / false without a model). */
static void push_stats(lua_State *L, const gpu_stats_t *st, const gpu_desc_t *d)
{
    double secs = st->time_us * 1e-6;
    double slots = (double)st->issue_slots;
    uint64_t stalled = 0, l1 = st->l1_hits + st->l1_misses, l2 = st->l2_hits + st->l2_misses;
    int i;
    lua_createtable(L, 0, 60);
    lutil_set_int(L, "cycles", st->cycles);
    lutil_set_num(L, "time_us", st->time_us);
    lutil_set_int(L, "warp_instrs", st->warp_instrs);
    lutil_set_int(L, "thread_instrs", st->thread_instrs);
    lutil_set_int(L, "flops", st->flops);
    lutil_set_int(L, "blocks", st->blocks);
    lutil_set_int(L, "threads", st->threads);
    lutil_set_int(L, "gld_bytes", st->gld_bytes);
    lutil_set_int(L, "gst_bytes", st->gst_bytes);
    lutil_set_int(L, "sld_bytes", st->sld_bytes);
    lutil_set_int(L, "sst_bytes", st->sst_bytes);
    lutil_set_int(L, "gld_sectors", st->gld_sectors);
    lutil_set_int(L, "gst_sectors", st->gst_sectors);
    lutil_set_int(L, "gld_requests", st->gld_requests);
    lutil_set_int(L, "gst_requests", st->gst_requests);
    lutil_set_int(L, "sld_requests", st->sld_requests);
    lutil_set_int(L, "sst_requests", st->sst_requests);
    lutil_set_int(L, "smem_wavefronts", st->smem_wavefronts);
    lutil_set_int(L, "l1_hits", st->l1_hits);
    lutil_set_int(L, "l1_misses", st->l1_misses);
    lutil_set_int(L, "l2_hits", st->l2_hits);
    lutil_set_int(L, "l2_misses", st->l2_misses);
    lutil_set_int(L, "dram_bytes", st->dram_bytes);
    lutil_set_int(L, "divergent_branches", st->divergent_branches);
    lutil_set_int(L, "issue_slots", st->issue_slots);
    lutil_set_int(L, "blocks_per_sm", st->blocks_per_sm);
    lutil_set_int(L, "blocks_fit_per_sm", st->blocks_fit_per_sm);
    lutil_set_int(L, "warps_per_sm", st->warps_per_sm);
    lutil_set_num(L, "occupancy", st->occupancy);
    lua_pushstring(L, st->occupancy_limit);
    lua_setfield(L, -2, "occupancy_limit");
    /* the power model (power.h): time_us above is at clock_mhz_sustained */
    lua_pushboolean(L, power_enabled(d));
    lua_setfield(L, -2, "power_model");
    lutil_set_num(L, "time_us_boost", st->time_us_boost);
    lutil_set_num(L, "clock_mhz_sustained", st->clock_mhz_sustained);
    lutil_set_num(L, "energy_j", st->energy_j);
    lutil_set_num(L, "avg_power_w", st->avg_power_w);
    lutil_set_num(L, "power_boost_w", st->power_boost_w);
    lutil_set_num(L, "energy_dram_j", st->energy_dram_j);
    lutil_set_num(L, "energy_static_j", st->energy_static_j);
    lua_pushboolean(L, st->clock_mhz_sustained < d->clock_mhz);
    lua_setfield(L, -2, "throttled");
    lua_createtable(L, 0, STALL_COUNT);
    for (i = 0; i < STALL_COUNT; i++) {
        lutil_set_int(L, stall_names[i], st->stalls[i]);
        stalled += st->stalls[i];
    }
    lua_setfield(L, -2, "stalls");
    /* derived */
    lutil_set_num(L, "ipc", lutil_ratio((double)st->warp_instrs, (double)st->cycles));
    lutil_set_num(L, "tflops", lutil_ratio((double)st->flops, secs) / 1e12);
    lutil_set_num(L, "dram_gbs", lutil_ratio((double)st->dram_bytes, secs) / 1e9);
    lutil_set_num(L, "l1_gbs", lutil_ratio((double)l1 * d->sector_bytes, secs) / 1e9);
    lutil_set_num(L, "l2_gbs", lutil_ratio((double)l2 * d->sector_bytes, secs) / 1e9);
    lutil_set_num(L, "l1_hit_rate", lutil_ratio((double)st->l1_hits, (double)l1));
    lutil_set_num(L, "l2_hit_rate", lutil_ratio((double)st->l2_hits, (double)l2));
    lutil_set_num(L, "lane_utilisation", lutil_ratio((double)st->thread_instrs, (double)st->warp_instrs * 32.0));
    lutil_set_int(L, "issued_slots", st->issue_slots >= stalled ? st->issue_slots - stalled : 0);
    lua_createtable(L, 0, STALL_COUNT + 1);
    for (i = 0; i < STALL_COUNT; i++)
        lutil_set_num(L, stall_names[i], lutil_ratio((double)st->stalls[i], slots));
    lutil_set_num(L, "issued",
            st->issue_slots >= stalled ? lutil_ratio((double)(st->issue_slots - stalled), slots) : 0.0);
    lua_setfield(L, -2, "stall_frac");
    lua_pushstring(L, d->name);
    lua_setfield(L, -2, "gpu");
}

/* Append a row for --stats (if enabled): kernel, gpu, grid, block, cluster and a
 * copy of every field of the result table on top of the stack. */
static void log_launch(lua_State *L, const char *kernel, const gpu_launch_t *cfg)
{
    char shape[64];
    int res = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, LOG_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_newtable(L);
    copy_table(L, res, -1);
    lua_pushstring(L, kernel);
    lua_setfield(L, -2, "kernel");
    snprintf(shape, sizeof shape, "%ux%ux%u", (unsigned)cfg->grid[0], (unsigned)cfg->grid[1],
             (unsigned)cfg->grid[2]);
    lua_pushstring(L, shape);
    lua_setfield(L, -2, "grid");
    snprintf(shape, sizeof shape, "%ux%ux%u", (unsigned)cfg->block[0], (unsigned)cfg->block[1],
             (unsigned)cfg->block[2]);
    lua_pushstring(L, shape);
    lua_setfield(L, -2, "block");
    snprintf(shape, sizeof shape, "%ux%ux%u", (unsigned)(cfg->cluster[0] ? cfg->cluster[0] : 1),
             (unsigned)(cfg->cluster[1] ? cfg->cluster[1] : 1), (unsigned)(cfg->cluster[2] ? cfg->cluster[2] : 1));
    lua_pushstring(L, shape);
    lua_setfield(L, -2, "cluster");
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
    lua_pop(L, 1);
}

/* simt.overrides[k]: the command line's value (a copy of a table value,
 * so that changing it changes nothing). */
static int overrides_index(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_getfield(L, LUA_REGISTRYINDEX, OVERRIDES_KEY) != LUA_TTABLE)
        return 0;
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) == LUA_TTABLE) {
        lua_newtable(L);
        copy_table(L, -2, -1);
    }
    return 1;
}

static int overrides_newindex(lua_State *L)
{
    return lutil_error(L, "simt.overrides is read-only: it holds the knobs given on the command line, "
                          "which every simt.gpu{...} applies last");
}

/* pairs(simt.overrides): the fields (table values copied). */
static int overrides_next(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_getfield(L, LUA_REGISTRYINDEX, OVERRIDES_KEY) != LUA_TTABLE)
        return 0;
    lua_pushvalue(L, 2);
    if (lua_next(L, 3) == 0)
        return 0;
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_newtable(L);
        copy_table(L, -2, -1);
        lua_remove(L, -2);
    }
    return 2;
}

static int overrides_pairs(lua_State *L)
{
    lua_pushcfunction(L, overrides_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

void lsimt_set_overrides(lua_State *L)
{
    static const luaL_Reg mt[] = { { "__index", overrides_index }, { "__newindex", overrides_newindex },
                                   { "__pairs", overrides_pairs }, { NULL, NULL } };
    lua_setfield(L, LUA_REGISTRYINDEX, OVERRIDES_KEY);
    lua_getfield(L, LUA_REGISTRYINDEX, MODULE_KEY);
    lua_newtable(L);               /* the view */
    lua_createtable(L, 0, 4);
    luaL_setfuncs(L, mt, 0);
    lua_pushliteral(L, "read-only");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "overrides");
    lua_pop(L, 1);
}

void lsimt_enable_launch_log(lua_State *L)
{
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, LOG_KEY);
}

void lsimt_push_launch_log(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, LOG_KEY);
}

void lsimt_set_trace(lua_State *L, trace_t *t, uint64_t every)
{
    if (t)
        lua_pushlightuserdata(L, t);
    else
        lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TRACE_KEY);
    lua_pushinteger(L, (lua_Integer)every);
    lua_setfield(L, LUA_REGISTRYINDEX, TRACE_EVERY_KEY);
}

static const char *const launch_keys[] = { "block", "check", "cluster", "grid", "max_cycles",
                                           "max_warp_instrs", "show", "warm", "warm_caches" };
#define NLAUNCH_KEYS (sizeof launch_keys / sizeof launch_keys[0])

/* End a GPU lane's run and push its result table (lstage_finish_fn). */
static int gpu_finish(lua_State *L, lstage_lane_t *lane)
{
    gpu_stats_t st;
    simt_err_t err;
    simt_err_clear(&err);
    int rc = gpu_run_end(lane->gpu, &st, &err);
    lane->gpu = NULL;
    if (lane->charged)
        sandbox_charge_bytes(L, -(int64_t)lane->charged);
    lane->charged = 0;
    /* the simulated work counts against the watchdog even when the launch
     * fails (a stopped endless kernel ran to its limit) */
    sandbox_charge_work(L, rc != 0 && err.code == SIMT_E_TIMEOUT
                               ? (lane->gcfg.max_warp_instrs ? lane->gcfg.max_warp_instrs : GPU_DEFAULT_MAX_WARP_INSTRS)
                               : st.warp_instrs);
    if (rc != 0)
        return lutil_error(L, "%s", err.msg);
    push_stats(L, &st, lane->gdesc);
    lua_pushstring(L, lane->kernel);
    lua_setfield(L, -2, "kernel");
    log_launch(L, lane->kernel, &lane->gcfg);
    return 1;
}

void lsimt_lane_output(lua_State *L, int cfg, int first_arg, int nargs, lstage_lane_t *lane)
{
    tensor_t *t = NULL;
    if (lua_getfield(L, cfg, "show") != LUA_TNIL) {
        t = tensor_test(L, -1);
        if (!t || !t->gpu || t->dt->bytes != 4 || !t->dt->is_float)
            lutil_error(L, "launch: show must be a device tensor of f32 values (the output to paint)");
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

#define LAUNCH_MAX_WARM 64   /* tensors in one launch's warm list */

/* g:launch(k, {grid=, block=, cluster=, max_cycles=, max_warp_instrs=, warm_caches=, warm=, check=},
 *          args...) -> stats table. warm = {tensor, ...} (or one tensor):
 *          device tensors of this GPU put into L2, clean, before the launch. */
static int gpu_launch_l(lua_State *L)
{
    lgpu_t *G = check_gpu(L, 1);
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 2, KERNEL_MT);
    const isa_program_t *p = &K->prog;
    gpu_launch_t cfg;
    simt_err_t err;
    uint32_t args[ISA_MAX_PARAMS];
    int nargs = lua_gettop(L) - 3, i;
    luaL_checktype(L, 3, LUA_TTABLE);
    if (!K->loaded)
        return lutil_error(L, "launch: kernel is not loaded");
    /* configuration keys */
    lua_pushnil(L);
    while (lua_next(L, 3) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        size_t j;
        int known = 0;
        for (j = 0; k && j < NLAUNCH_KEYS; j++)
            known |= strcmp(k, launch_keys[j]) == 0;
        if (!known) {
            const char *hint = k ? arch_closest(k, launch_keys, NLAUNCH_KEYS) : NULL;
            return lutil_error(L, "launch: unknown configuration key '%s'%s%s%s",
                               k ? k : luaL_typename(L, -2), hint ? " (did you mean '" : "",
                               hint ? hint : "",
                               hint ? "'?)" : " (keys: grid, block, cluster, max_cycles, max_warp_instrs, "
                                             "warm_caches, warm, check, show)");
        }
        lua_pop(L, 1);
    }
    memset(&cfg, 0, sizeof cfg);
    lsimt_get_dim3(L, 3, "grid", cfg.grid);
    lsimt_get_dim3(L, 3, "block", cfg.block);
    if (lua_getfield(L, 3, "cluster") != LUA_TNIL) {
        lua_pop(L, 1);
        lsimt_get_dim3(L, 3, "cluster", cfg.cluster);
    } else {
        lua_pop(L, 1);
    }
    if (lua_getfield(L, 3, "max_cycles") != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1)
            return lutil_error(L, "launch: max_cycles must be a positive integer, got %s",
                               luaL_tolstring(L, -1, NULL));
        cfg.max_cycles = (uint64_t)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 3, "max_warp_instrs") != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1)
            return lutil_error(L, "launch: max_warp_instrs must be a positive integer, got %s",
                               luaL_tolstring(L, -1, NULL));
        cfg.max_warp_instrs = (uint64_t)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 3, "warm_caches") != LUA_TNIL) {
        if (!lua_isboolean(L, -1))
            return lutil_error(L, "launch: warm_caches must be true or false, got %s",
                               luaL_typename(L, -1));
        cfg.warm_caches = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    gpu_range_t warm[LAUNCH_MAX_WARM];
    if (lua_getfield(L, 3, "warm") != LUA_TNIL) {
        int one = tensor_test(L, -1) != NULL;
        if (!one && !lua_istable(L, -1))
            return lutil_error(L, "launch: warm must be a device tensor or a list of them, got %s",
                               luaL_typename(L, -1));
        lua_Integer n = one ? 1 : (lua_Integer)lua_rawlen(L, -1);
        if (n > LAUNCH_MAX_WARM)
            return lutil_error(L, "launch: warm lists %d tensors, at most %d", (int)n, LAUNCH_MAX_WARM);
        for (lua_Integer j = 1; j <= n; j++) {
            if (!one)
                lua_rawgeti(L, -1, j);
            tensor_t *t = tensor_test(L, -1);
            if (!t || t->gpu != G)
                return lutil_error(L, "launch: warm[%d] must be a tensor of this GPU, got %s", (int)j,
                                   t ? "a tensor of another device" : luaL_typename(L, -1));
            if (t->resv)
                return lutil_error(L, "launch: warm[%d] is a size_only tensor: it has no data to put in L2", (int)j);
            warm[j - 1].addr = t->addr;
            warm[j - 1].bytes = (uint32_t)tensor_bytes(t);
            if (!one)
                lua_pop(L, 1);
        }
        cfg.warm = warm;
        cfg.nwarm = (uint32_t)n;
    }
    lua_pop(L, 1);
    cfg.check = 1;   /* the kernel checker is on unless check=false */
    if (lua_getfield(L, 3, "check") != LUA_TNIL) {
        if (!lua_isboolean(L, -1))
            return lutil_error(L, "launch: check must be true or false, got %s", luaL_typename(L, -1));
        cfg.check = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    if (nargs != (int)p->nparams) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        lua_pushfstring(L, "kernel '%s' takes %d argument%s (", p->name, (int)p->nparams,
                        p->nparams == 1 ? "" : "s");
        luaL_addvalue(&b);
        for (i = 0; i < (int)p->nparams; i++) {
            if (i)
                luaL_addstring(&b, ", ");
            luaL_addstring(&b, p->params[i]);
        }
        lua_pushfstring(L, "), got %d", nargs);
        luaL_addvalue(&b);
        luaL_pushresult(&b);
        return lutil_error(L, "%s", lua_tostring(L, -1));
    }
    for (i = 0; i < nargs; i++)
        args[i] = lsimt_arg_bits(L, G, "g:tensor", p, 4 + i, i);
    if (lua_getfield(L, LUA_REGISTRYINDEX, TRACE_KEY) == LUA_TLIGHTUSERDATA) {
        cfg.observe = trace_observe;
        cfg.observe_user = lua_touserdata(L, -1);
        lua_getfield(L, LUA_REGISTRYINDEX, TRACE_EVERY_KEY);
        cfg.sample_every = (uint64_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lstage_lane_t lane;
    memset(&lane, 0, sizeof lane);
    lsimt_lane_output(L, 3, 4, nargs, &lane);
    simt_err_clear(&err);
    /* the run's state (registers, scoreboards, shared memory, checker)
     * counts against the memory cap: refused before it is made if it does
     * not fit, after collecting garbage once */
    cfg.max_host_bytes = sandbox_bytes_left(L);
    lane.gpu = gpu_run_begin(G->g, p, &cfg, args, (uint32_t)nargs, &err);
    if (!lane.gpu && err.code == SIMT_E_NOMEM && cfg.max_host_bytes) {
        lua_gc(L, LUA_GCCOLLECT, 0);
        cfg.max_host_bytes = sandbox_bytes_left(L);
        simt_err_clear(&err);
        lane.gpu = gpu_run_begin(G->g, p, &cfg, args, (uint32_t)nargs, &err);
    }
    if (!lane.gpu)
        return lutil_error(L, "%s", err.msg);
    if (cfg.max_host_bytes && sandbox_charge_bytes(L, (int64_t)gpu_run_host_bytes(lane.gpu)) == 0) {
        lane.charged = gpu_run_host_bytes(lane.gpu);
        lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);   /* outlives any coroutine */
        lane.owner = lua_tothread(L, -1);
        lua_pop(L, 1);
    }
    snprintf(lane.device, sizeof lane.device, "%s", gpu_desc(G->g)->name);
    snprintf(lane.kernel, sizeof lane.kernel, "%s", p->name);
    lane.finish = gpu_finish;
    lane.gdesc = gpu_desc(G->g);
    cfg.warm = NULL;   /* the list lives on this stack frame; the run has used it */
    cfg.nwarm = 0;
    lane.gcfg = cfg;
    return lstage_launch(L, &lane);
}

/* g:memory() -> {capacity =, used =, free =, size_only =} in bytes: the
 * device memory the preset has and what tensors hold (size_only: of used,
 * the bytes of size-only tensors, which have no data). */
static int gpu_memory_l(lua_State *L)
{
    lgpu_t *G = check_gpu(L, 1);
    if (!G->g)
        return lutil_error(L, "the GPU has been freed");
    const mem_t *m = gpu_mem(G->g);
    lua_createtable(L, 0, 4);
    lutil_set_int(L, "capacity", m->capacity);
    lutil_set_int(L, "used", m->used);
    lutil_set_int(L, "free", (m->capacity - m->used));
    lutil_set_int(L, "size_only", m->reserved);
    return 1;
}

static const luaL_Reg gpu_methods[] = {
    { "tensor", tensor_gpu_new }, { "launch", gpu_launch_l }, { "with", gpu_with },
    { "memory", gpu_memory_l }, { NULL, NULL }
};

/* g.key: methods, then the fields name and desc. */
static int gpu_index(lua_State *L)
{
    lgpu_t *G = check_gpu(L, 1);
    const char *k;
    if (lutil_index_method(L, &k))
        return 1;
    if (!k)
        return 0;
    if (strcmp(k, "name") == 0)
        lua_pushstring(L, gpu_desc(G->g)->name);
    else if (strcmp(k, "desc") == 0)
        arch_push_desc(L, gpu_desc(G->g));
    else
        lua_pushnil(L);
    return 1;
}

/* ---- kernels ----------------------------------------------------------- */

#define KERNEL_MAX_BYTES (4u << 20)   /* largest kernel file simt.kernel reads */

/* simt.kernel(path): assemble; relative paths not found from the current
 * directory are looked up on the search path (arch.h). In the sandbox
 * only regular files in the folders it allows are read (sandbox.h).
 * Assembler errors are raised unchanged (they carry file:line:col). */
/* The folder of the Lua file that called us (out: "." for a file in the
 * current folder); -1 when the caller is not a file (a string chunk, C). */
static int caller_dir(lua_State *L, char *out, size_t n)
{
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar) || !lua_getinfo(L, "S", &ar) || ar.source[0] != '@')
        return -1;
    const char *file = ar.source + 1, *slash = strrchr(file, '/');
    int len = slash ? snprintf(out, n, "%.*s", (int)(slash - file), file) : snprintf(out, n, ".");
    return len > 0 && (size_t)len < n ? 0 : -1;
}

/* simt.kernel(path): a relative path is looked for beside the script that
 * calls it first (as require finds its modules), then from the current
 * folder, then in simtlab's folders (arch_find_file). */
static int l_kernel(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char found[1024], dir[1024];
    lkernel_t *K;
    simt_err_t err, err2;
    const char *src;
    size_t len;
    lua_settop(L, 1);
    simt_err_clear(&err);
    if (path[0] != '/' && caller_dir(L, dir, sizeof dir) == 0 && strcmp(dir, ".") != 0) {
        int n = snprintf(found, sizeof found, "%s/%s", dir, path);
        if (n > 0 && (size_t)n < sizeof found &&
            sandbox_push_file(L, found, KERNEL_MAX_BYTES, NULL, 0, &err2) == 0) {
            path = lua_pushstring(L, found);   /* the name errors and listings show */
            lua_insert(L, -2);
            goto assemble;
        }
    }
    if (sandbox_push_file(L, path, KERNEL_MAX_BYTES, NULL, 0, &err) != 0) {
        simt_err_clear(&err2);
        if (path[0] == '/' || arch_find_file(path, found, sizeof found) != 0)
            return lutil_error(L, "simt.kernel: %s", err.msg);
        if (sandbox_push_file(L, found, KERNEL_MAX_BYTES, NULL, 0, &err2) != 0)
            return lutil_error(L, "simt.kernel: %s", err2.msg);
        path = lua_pushstring(L, found);
        lua_insert(L, -2);
    }
assemble:
    src = lua_tolstring(L, -1, &len);   /* the text stays on the stack */
    K = (lkernel_t *)lua_newuserdatauv(L, sizeof *K, 0);
    memset(K, 0, sizeof *K);
    luaL_setmetatable(L, KERNEL_MT);
    simt_err_clear(&err);
    if (asm_assemble(src, len, path, &K->prog, &err) != 0) {
        lua_pushstring(L, err.msg);
        return lua_error(L);
    }
    K->loaded = 1;
    {
        /* the assembled program counts against the sandbox's memory cap */
        const isa_program_t *p = &K->prog;
        uint64_t cost = (uint64_t)p->ncode * sizeof *p->code
                        + ((uint64_t)p->nlabels + p->nshared) * sizeof(isa_symbol_t);
        tensor_charge(L, cost, "an assembled kernel");
        K->charged = cost;
    }
    return 1;
}

const isa_program_t *lsimt_check_kernel(lua_State *L, int arg)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, arg, KERNEL_MT);
    if (!K->loaded)
        lutil_error(L, "launch: kernel is not loaded");
    return &K->prog;
}

static int kernel_gc(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    if (K->loaded) {
        isa_program_free(&K->prog);
        K->loaded = 0;
    }
    if (K->charged) {
        sandbox_charge_bytes(L, -(int64_t)K->charged);
        K->charged = 0;
    }
    return 0;
}

static int kernel_tostring(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    lua_pushfstring(L, "kernel '%s' (%d instructions, %d registers, %d params)", K->prog.name,
                    (int)K->prog.ncode, (int)K->prog.nregs, (int)K->prog.nparams);
    return 1;
}

static int kernel_listing(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    char *text;
    if (!K->loaded)
        return lutil_error(L, "listing: kernel is not loaded");
    text = asm_disassemble(&K->prog);
    if (!text)
        return lutil_error(L, "listing: out of memory");
    lua_pushstring(L, text); /* raises only if Lua itself is out of memory */
    free(text);
    return 1;
}

static int kernel_index(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    const isa_program_t *p = &K->prog;
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    uint32_t i;
    if (!k)
        return 0;
    if (strcmp(k, "listing") == 0)
        lua_pushcfunction(L, kernel_listing);
    else if (strcmp(k, "name") == 0)
        lua_pushstring(L, p->name);
    else if (strcmp(k, "file") == 0)
        lua_pushstring(L, p->file);
    else if (strcmp(k, "nregs") == 0)
        lua_pushinteger(L, p->nregs);
    else if (strcmp(k, "nparams") == 0)
        lua_pushinteger(L, p->nparams);
    else if (strcmp(k, "shared_bytes") == 0)
        lua_pushinteger(L, p->shared_bytes);
    else if (strcmp(k, "ninstr") == 0)
        lua_pushinteger(L, p->ncode);
    else if (strcmp(k, "params") == 0) {
        lua_createtable(L, (int)p->nparams, 0);
        for (i = 0; i < p->nparams; i++) {
            lua_pushstring(L, p->params[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else
        lua_pushnil(L);
    return 1;
}

/* ---- scalars, module ---------------------------------------------------- */

static int l_f32(lua_State *L)
{
    double v = luaL_checknumber(L, 1);
    lscalar_t *s = (lscalar_t *)lua_newuserdatauv(L, sizeof *s, 0);
    float f = (float)v;
    memcpy(&s->bits, &f, sizeof s->bits);
    s->is_float = 1;
    s->value = v;
    luaL_setmetatable(L, SCALAR_MT);
    return 1;
}

static int l_i32(lua_State *L)
{
    lua_Integer v;
    lscalar_t *s;
    if (!lua_isinteger(L, 1) && lua_type(L, 1) == LUA_TNUMBER) {
        lua_Number x = lua_tonumber(L, 1);
        luaL_argcheck(L, x == (lua_Number)(lua_Integer)x, 1, "number has no integer value");
    }
    v = luaL_checkinteger(L, 1);
    luaL_argcheck(L, v >= INT32_MIN && v <= (lua_Integer)UINT32_MAX, 1,
                  "integer does not fit in 32 bits");
    s = (lscalar_t *)lua_newuserdatauv(L, sizeof *s, 0);
    s->bits = (uint32_t)v;
    s->is_float = 0;
    s->value = (double)v;
    luaL_setmetatable(L, SCALAR_MT);
    return 1;
}

static int scalar_tostring(lua_State *L)
{
    lscalar_t *s = (lscalar_t *)luaL_checkudata(L, 1, SCALAR_MT);
    if (s->is_float)
        lua_pushfstring(L, "f32(%f)", s->value);
    else
        lua_pushfstring(L, "i32(%I)", (lua_Integer)s->value);
    return 1;
}

static int l_presets(lua_State *L)
{
    arch_push_presets(L);
    return 1;
}

/* Create metatable name with __gc, __tostring and an __index function
 * that gets the table at the top of the stack (or nothing) as upvalue. */
int luaopen_simt(lua_State *L)
{
    static const luaL_Reg fns[] = {
        { "gpu", l_gpu }, { "kernel", l_kernel }, { "tensor", tensor_host_new },
        { "f32", l_f32 }, { "i32", l_i32 }, { "presets", l_presets }, { NULL, NULL }
    };
    lutil_new_class(L, LGPU_MT, gpu_gc, gpu_tostring, gpu_index, gpu_methods);
    lutil_new_class(L, KERNEL_MT, kernel_gc, kernel_tostring, kernel_index, NULL);
    lutil_new_class(L, SCALAR_MT, NULL, scalar_tostring, NULL, NULL);
    tensor_register(L);
    luaL_newlib(L, fns);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, MODULE_KEY);
    export_register(L);
    lchart_register(L);
    lroofline_register(L);
    lcpu_register(L);
    lnode_register(L);
    lstage_register(L);
    lua_pushstring(L, SIMT_VERSION);
    lua_setfield(L, -2, "version");
    ref_push(L);
    lua_setfield(L, -2, "ref");
    return 1;
}
