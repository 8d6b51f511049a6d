/* lcpu.c - simt.cpu{...}: CPU objects for Lua (see lcpu.h).
 *
 * Presets are arch/NAME.lua files that declare kind = "cpu" and whose
 * other keys are cpu_desc_t fields (one table below lists them). They run
 * in the same restricted environment as the GPU presets.
 *
 * Memory: a CPU object's tensors live in a mem_t exactly like a GPU's
 * (same addresses, same bounds checks). To reuse tensor.c unchanged, that
 * memory belongs to a small hidden GPU object (gpu_desc_default with the
 * CPU's name and memory size) kept in the CPU userdata's user value 1; its
 * timing parts are never used. c:tensor{...} makes a tensor on it and
 * c:launch passes its mem_t to cpu_launch.
 */
#include "lcpu.h"
#include "lstage.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "arch.h"
#include "cpu.h"
#include "lfields.h"
#include "lkernel.h"
#include "llaunch.h"
#include "rates.h"
#include "lutil.h"
#include "sandbox.h"
#include "tensor.h"

#define LCPU_MT "simt.cpu"

/* The CPU userdata. */
typedef struct lcpu {
    cpu_t *c;          /* owned; NULL once freed by __gc                */
    lgpu_t *memgpu;    /* the hidden memory owner (user value 1)        */
    uint64_t charged;  /* host bytes counted against the sandbox's cap  */
} lcpu_t;

/* ---- the description fields -------------------------------------------------- */

#define F(field, kind) { #field, LF_##kind, offsetof(cpu_desc_t, field), sizeof(((cpu_desc_t *)0)->field), NULL }
static const lfield_t cpu_fields[] = {
    F(name, STR), F(vendor_name, STR), F(cores, U32), F(simd_width, U32),
    F(clock_mhz, DBL), F(issue_width, U32), F(rob_size, U32), F(in_order, FLAG),
    F(alu_ports, U32), F(fma_ports, U32), F(sfu_ports, U32), F(load_ports, U32),
    F(store_ports, U32), F(sfu_interval, U32), F(lat_alu, U32), F(lat_fma, U32),
    F(lat_sfu, U32), F(line_bytes, U32), F(l1_bytes, U32), F(l1_assoc, U32),
    F(lat_l1, U32), F(l2_bytes, U32), F(l2_assoc, U32), F(lat_l2, U32),
    F(l3_bytes, U32), F(l3_assoc, U32), F(lat_l3, U32), F(lat_dram, U32),
    F(dram_gbps, DBL), F(dram_efficiency, DBL), F(dram_channels, U32),
    F(block_overhead, U32), F(launch_us, DBL), F(mem_bytes, U64),
    F(max_threads_per_block, U32), F(smem_per_block, U32), F(max_regs_per_thread, U32), F(tdp_watts, DBL),
    F(price_per_hour, DBL),
};
#undef F

static const char *const cpu_skip[] = { "arch", "kind", NULL };        /* read by l_cpu / load_preset */
static const char *const cpu_alias[] = { "simd", "simd_width", NULL }; /* simd = 8 */
static const lfields_t cpu_table = { "CPU", cpu_fields, sizeof cpu_fields / sizeof cpu_fields[0], cpu_skip,
                                     cpu_alias, "simt.cpu{}.desc" };

/* Apply the table at idx to d: "kind", when there, must be "cpu". */
static int apply_table(lua_State *L, int idx, cpu_desc_t *d, simt_err_t *err)
{
    idx = lua_absindex(L, idx);
    if (lua_getfield(L, idx, "kind") != LUA_TNIL
        && (lua_type(L, -1) != LUA_TSTRING || strcmp(lua_tostring(L, -1), "cpu") != 0)) {
        lua_pop(L, 1);
        return simt_errf(err, SIMT_E_USAGE, "CPU field 'kind' must be \"cpu\" (this is a GPU preset? "
                         "use simt.gpu for it)");
    }
    lua_pop(L, 1);
    return lfields_apply(L, idx, &cpu_table, d, err);
}

/* Push the restricted environment presets run in (as arch.c does). */
static void push_env(lua_State *L)
{
    static const char *const globals[] = { "assert", "error", "ipairs", "next", "pairs", "select",
                                           "tonumber", "tostring", "type", "math", "string", "table" };
    lua_createtable(L, 0, (int)(sizeof globals / sizeof globals[0]));
    for (size_t i = 0; i < sizeof globals / sizeof globals[0]; i++) {
        lua_getglobal(L, globals[i]);
        lua_setfield(L, -2, globals[i]);
    }
}

/* Load preset arch/NAME.lua into d (starting from cpu_desc_default). */
static int load_preset(lua_State *L, const char *name, cpu_desc_t *d, simt_err_t *err)
{
    char rel[256], path[1024];
    int top = lua_gettop(L);
    if (strchr(name, '/') || snprintf(rel, sizeof rel, "arch/%s.lua", name) >= (int)sizeof rel
        || arch_find_file(rel, path, sizeof path) != 0)
        return simt_errf(err, SIMT_E_USAGE, "unknown CPU preset '%s' (CPU presets: cpu-core, cpu-server)", name);
    if (arch_load_chunk(L, path, err) != 0) {
        lua_settop(L, top);
        return -1;
    }
    push_env(L);
    lua_setupvalue(L, -2, 1);
    if (arch_run_chunk(L) != LUA_OK || lua_type(L, -1) != LUA_TTABLE) {
        simt_errf(err, SIMT_E_USAGE, "preset '%s': %s", path,
                  lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "must return a table");
        lua_settop(L, top);
        return -1;
    }
    if (lua_getfield(L, -1, "kind") != LUA_TSTRING || strcmp(lua_tostring(L, -1), "cpu") != 0) {
        simt_errf(err, SIMT_E_USAGE, "preset '%s' is not a CPU (it has no kind = \"cpu\"); use simt.gpu for it", name);
        lua_settop(L, top);
        return -1;
    }
    lua_pop(L, 1);
    cpu_desc_default(d);
    snprintf(d->name, sizeof d->name, "%.63s", name);
    int rc = apply_table(L, -1, d, err);
    lua_settop(L, top);
    return rc;
}

/* Push every field of d as a table (and kind = "cpu"). */
static void push_desc(lua_State *L, const cpu_desc_t *d)
{
    lfields_push(L, &cpu_table, d);
    lua_pushstring(L, "cpu");
    lua_setfield(L, -2, "kind");
}

/* ---- the object ------------------------------------------------------------------ */

static lcpu_t *check_cpu(lua_State *L, int arg)
{
    lcpu_t *C = (lcpu_t *)luaL_checkudata(L, arg, LCPU_MT);
    if (!C->c)
        lutil_error(L, "the CPU has been freed");
    return C;
}

/* simt.cpu{arch = "cpu-server", cores = 8, simd = 8, clock_mhz = 3000, ...}
 * or simt.cpu("cpu-core"); no argument: the cpu-core values. */
static int l_cpu(lua_State *L)
{
    cpu_desc_t d;
    simt_err_t err;
    simt_err_clear(&err);
    lutil_desc_arg(L, "table like {arch = \"cpu-server\"} or a preset name");
    if (lua_getfield(L, 1, "arch") == LUA_TSTRING) {
        char name[256];
        snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
        if (load_preset(L, name, &d, &err) != 0)
            return lutil_error(L, "%s", err.msg);
    } else if (lua_isnil(L, -1)) {
        cpu_desc_default(&d);
    } else {
        return lutil_error(L, "CPU field 'arch' expects a preset name, got %s", luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    if (apply_table(L, 1, &d, &err) != 0 || cpu_desc_validate(&d, &err) != 0)
        return lutil_error(L, "%s", err.msg);

    lcpu_t *C = (lcpu_t *)lua_newuserdatauv(L, sizeof *C, 1);
    C->c = NULL;
    C->memgpu = NULL;
    C->charged = 0;
    luaL_setmetatable(L, LCPU_MT);
    {
        /* its host memory counts against the sandbox's cap: caches at 48
         * bytes a line (cache.h), a reorder buffer and 64 KB per core */
        uint64_t line = d.line_bytes ? d.line_bytes : 64;
        uint64_t cost = 48 * (((uint64_t)d.cores * ((uint64_t)d.l1_bytes + d.l2_bytes) + d.l3_bytes) / line)
                        + (uint64_t)d.cores * (65536 + 64ull * d.rob_size);
        tensor_charge(L, cost, "a new CPU");
        C->charged = cost;
    }
    /* the hidden memory owner */
    gpu_desc_t gd;
    gpu_desc_default(&gd);
    snprintf(gd.name, sizeof gd.name, "%s", d.name);
    snprintf(gd.vendor_name, sizeof gd.vendor_name, "%s", d.vendor_name);
    gd.mem_bytes = d.mem_bytes;
    lgpu_t *G = (lgpu_t *)lua_newuserdatauv(L, sizeof *G, 0);
    G->g = NULL;
    G->ntensors = 0;
    G->charged = 0;
    luaL_setmetatable(L, LGPU_MT);
    G->g = gpu_create(&gd, &err);
    if (!G->g)
        return lutil_error(L, "%s", err.msg);
    lua_setiuservalue(L, -2, 1);
    C->memgpu = G;
    C->c = cpu_create(&d, &err);
    if (!C->c)
        return lutil_error(L, "%s", err.msg);
    return 1;
}

static int cpu_gc(lua_State *L)
{
    lcpu_t *C = (lcpu_t *)luaL_checkudata(L, 1, LCPU_MT);
    cpu_free(C->c);
    C->c = NULL;
    if (C->charged) {
        sandbox_charge_bytes(L, -(int64_t)C->charged);
        C->charged = 0;
    }
    return 0;
}

static int cpu_tostring(lua_State *L)
{
    lcpu_t *C = (lcpu_t *)luaL_checkudata(L, 1, LCPU_MT);
    if (!C->c) {
        lua_pushstring(L, "cpu (freed)");
        return 1;
    }
    const cpu_desc_t *d = cpu_desc(C->c);
    lua_pushfstring(L, "cpu '%s' (%d cores, %d SIMD lanes, %d MHz)", d->name, (int)d->cores,
                    (int)d->simd_width, (int)(d->clock_mhz + 0.5));
    return 1;
}

/* c:tensor{...}: a tensor in the CPU's memory (same options as g:tensor). */
static int cpu_tensor(lua_State *L)
{
    check_cpu(L, 1);
    lua_settop(L, 2);
    lua_getiuservalue(L, 1, 1);
    lua_replace(L, 1);
    return tensor_gpu_new(L);
}



static const char *const time_names[CPU_T_COUNT] = { "compute", "memory", "overhead", "idle" };

/* The result table of a launch. */
static void push_stats(lua_State *L, const cpu_stats_t *st, const cpu_desc_t *d)
{
    cpu_rates_t rt;
    cpu_rates(st, d, &rt);
    lua_createtable(L, 0, 40);
    lutil_set_int(L, "cycles", st->cycles);
    lutil_set_num(L, "time_us", st->time_us);
    lutil_set_num(L, "launch_us", d->launch_us);
    lutil_set_int(L, "instrs", st->instrs);
    lutil_set_int(L, "warp_instrs", st->instrs);
    lutil_set_int(L, "thread_instrs", st->thread_instrs);
    lutil_set_int(L, "flops", st->flops);
    lutil_set_num(L, "gflops", rt.gflops);
    lutil_set_num(L, "tflops", rt.tflops);
    lutil_set_int(L, "blocks", st->blocks);
    lutil_set_int(L, "threads", st->threads);
    lutil_set_int(L, "cores_used", st->cores_used);
    lutil_set_int(L, "gld_bytes", st->ld_bytes);
    lutil_set_int(L, "gst_bytes", st->st_bytes);
    lutil_set_int(L, "gathers", st->gathers);
    lutil_set_int(L, "l1_hits", st->l1_hits);
    lutil_set_int(L, "l1_misses", st->l1_misses);
    lutil_set_int(L, "l2_hits", st->l2_hits);
    lutil_set_int(L, "l2_misses", st->l2_misses);
    lutil_set_int(L, "l3_hits", st->l3_hits);
    lutil_set_int(L, "l3_misses", st->l3_misses);
    lutil_set_int(L, "dram_bytes", st->dram_bytes);
    lutil_set_int(L, "spill_instrs", st->spill_instrs);   /* registers saved/restored at barriers */
    lutil_set_int(L, "spill_bytes", st->spill_bytes);
    lutil_set_num(L, "dram_gbs", rt.dram_gbs);
    lutil_set_num(L, "ipc", rt.ipc);   /* rates.h */
    lutil_set_num(L, "lane_utilisation", rt.lane_utilisation);
    lua_createtable(L, 0, CPU_T_COUNT);
    for (int i = 0; i < CPU_T_COUNT; i++)
        lutil_set_int(L, time_names[i], st->time[i]);
    lua_setfield(L, -2, "core_cycles");
    lua_createtable(L, 0, CPU_T_COUNT);
    for (int i = 0; i < CPU_T_COUNT; i++)
        lutil_set_num(L, time_names[i], rt.time_frac[i]);
    lua_setfield(L, -2, "time");
    lua_pushstring(L, d->name);
    lua_setfield(L, -2, "cpu");
    lua_pushstring(L, "cpu");
    lua_setfield(L, -2, "kind");
}

/* End a CPU lane's run and push its result table (lstage_finish_fn). */
static int cpu_finish(lua_State *L, lstage_lane_t *lane)
{
    cpu_stats_t st;
    simt_err_t err;
    simt_err_clear(&err);
    int rc = cpu_run_end(lane->cpu, &st, &err);
    lane->cpu = NULL;
    llaunch_charge(L, st.instrs);
    if (rc != 0)
        return lutil_error(L, "%s", err.msg);
    push_stats(L, &st, lane->cdesc);
    lua_pushstring(L, lane->kernel);
    lua_setfield(L, -2, "kernel");
    return 1;
}

/* c:launch(k, {grid=, block=, ...}, args...) -> result; the options are
 * llaunch.h's, as for g:launch. */
static int cpu_launch_l(lua_State *L)
{
    lcpu_t *C = check_cpu(L, 1);
    const isa_program_t *p = lkernel_check(L, 2);
    uint32_t args[ISA_MAX_PARAMS];
    int nargs = lua_gettop(L) - 3;
    llaunch_opts_t o;
    cpu_launch_t cfg;
    simt_err_t err;
    llaunch_read(L, 3, LLAUNCH_CPU, C->memgpu, &o);
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.grid, o.grid, sizeof cfg.grid);
    memcpy(cfg.block, o.block, sizeof cfg.block);
    cfg.max_instrs = o.max_instrs;
    cfg.max_cycles = o.max_cycles;
    cfg.warm_caches = o.warm_caches;
    lkernel_args(L, C->memgpu, "c:tensor", p, 4, nargs, args);
    lstage_lane_t lane;
    memset(&lane, 0, sizeof lane);
    llaunch_lane_output(L, 3, 4, nargs, &lane);
    simt_err_clear(&err);
    lane.cpu = cpu_run_begin(C->c, gpu_mem(C->memgpu->g), p, &cfg, args, (uint32_t)nargs, &err);
    if (!lane.cpu)
        return lutil_error(L, "%s", err.msg);
    snprintf(lane.device, sizeof lane.device, "%s", cpu_desc(C->c)->name);
    snprintf(lane.kernel, sizeof lane.kernel, "%s", p->name);
    lane.finish = cpu_finish;
    lane.cdesc = cpu_desc(C->c);
    return lstage_launch(L, &lane);
}

static const luaL_Reg cpu_methods[] = {
    { "tensor", cpu_tensor }, { "launch", cpu_launch_l }, { NULL, NULL }
};

/* c.key: methods, then name, kind and desc. */
static int cpu_index(lua_State *L)
{
    lcpu_t *C = check_cpu(L, 1);
    const char *k;
    if (lutil_index_method(L, &k))
        return 1;
    if (!k)
        return 0;
    if (strcmp(k, "name") == 0)
        lua_pushstring(L, cpu_desc(C->c)->name);
    else if (strcmp(k, "kind") == 0)
        lua_pushstring(L, "cpu");
    else if (strcmp(k, "desc") == 0)
        push_desc(L, cpu_desc(C->c));
    else
        lua_pushnil(L);
    return 1;
}

void lcpu_register(lua_State *L)
{
    lutil_new_class(L, LCPU_MT, cpu_gc, cpu_tostring, cpu_index, cpu_methods);
    lua_pushcfunction(L, l_cpu);
    lua_setfield(L, -2, "cpu");
}
