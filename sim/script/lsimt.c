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
 * Kernels and simt.f32/i32 live in lkernel.c, the launch options that
 * g:launch shares with c:launch (lcpu.c) in llaunch.c.
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
#include "lkernel.h"
#include "llaunch.h"
#include "lnode.h"
#include "power.h"
#include "rates.h"
#include "tensor.h"

#ifndef SIMT_VERSION
#define SIMT_VERSION "0.1.0"
#endif

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
    gpu_rates_t rt;
    int i;
    gpu_rates(st, d, &rt);
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
    for (i = 0; i < STALL_COUNT; i++)
        lutil_set_int(L, stall_names[i], st->stalls[i]);
    lua_setfield(L, -2, "stalls");
    /* derived (rates.h) */
    lutil_set_num(L, "ipc", rt.ipc);
    lutil_set_num(L, "tflops", rt.tflops);
    lutil_set_num(L, "dram_gbs", rt.dram_gbs);
    lutil_set_num(L, "l1_gbs", rt.l1_gbs);
    lutil_set_num(L, "l2_gbs", rt.l2_gbs);
    lutil_set_num(L, "l1_hit_rate", rt.l1_hit_rate);
    lutil_set_num(L, "l2_hit_rate", rt.l2_hit_rate);
    lutil_set_num(L, "lane_utilisation", rt.lane_utilisation);
    lutil_set_int(L, "issued_slots", rt.issued_slots);
    lua_createtable(L, 0, STALL_COUNT + 1);
    for (i = 0; i < STALL_COUNT; i++)
        lutil_set_num(L, stall_names[i], rt.stall_frac[i]);
    lutil_set_num(L, "issued", rt.issued_frac);
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
    llaunch_charge(L, st.warp_instrs);
    if (rc != 0)
        return lutil_error(L, "%s", err.msg);
    push_stats(L, &st, lane->gdesc);
    lua_pushstring(L, lane->kernel);
    lua_setfield(L, -2, "kernel");
    log_launch(L, lane->kernel, &lane->gcfg);
    return 1;
}

/* g:launch(k, {grid=, block=, ...}, args...) -> stats table; the options
 * are llaunch.h's. */
static int gpu_launch_l(lua_State *L)
{
    lgpu_t *G = check_gpu(L, 1);
    const isa_program_t *p = lkernel_check(L, 2);
    llaunch_opts_t o;
    gpu_launch_t cfg;
    simt_err_t err;
    uint32_t args[ISA_MAX_PARAMS];
    int nargs = lua_gettop(L) - 3;
    llaunch_read(L, 3, LLAUNCH_GPU, G, &o);
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.grid, o.grid, sizeof cfg.grid);
    memcpy(cfg.block, o.block, sizeof cfg.block);
    memcpy(cfg.cluster, o.cluster, sizeof cfg.cluster);
    cfg.max_cycles = o.max_cycles;
    cfg.max_warp_instrs = o.max_instrs;
    cfg.warm_caches = o.warm_caches;
    cfg.warm = o.nwarm ? o.warm : NULL;
    cfg.nwarm = o.nwarm;
    cfg.check = o.check;
    lkernel_args(L, G, "g:tensor", p, 4, nargs, args);
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
    llaunch_lane_output(L, 3, 4, nargs, &lane);
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

/* ---- module -------------------------------------------------------------- */

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
        { "gpu", l_gpu }, { "kernel", lkernel_new }, { "tensor", tensor_host_new },
        { "f32", lkernel_f32 }, { "i32", lkernel_i32 }, { "presets", l_presets }, { NULL, NULL }
    };
    lutil_new_class(L, LGPU_MT, gpu_gc, gpu_tostring, gpu_index, gpu_methods);
    lkernel_register(L);
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
