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
#include "lsimt.h"
#include "lutil.h"
#include "sandbox.h"
#include "tensor.h"

#define LCPU_MT "simt.cpu"
#define KERNEL_MT "simt.kernel" /* lsimt.c: userdata whose first member is an isa_program_t */

/* The CPU userdata. */
typedef struct lcpu {
    cpu_t *c;          /* owned; NULL once freed by __gc                */
    lgpu_t *memgpu;    /* the hidden memory owner (user value 1)        */
    uint64_t charged;  /* host bytes counted against the sandbox's cap  */
} lcpu_t;

/* ---- the description fields -------------------------------------------------- */

typedef enum { F_STR, F_U32, F_U64, F_DBL } fkind_t;

typedef struct cfield {
    const char *name;  /* Lua key = C field name    */
    fkind_t kind;      /* storage                   */
    size_t offset;     /* offsetof(cpu_desc_t, ...) */
    size_t size;       /* strings: buffer size      */
} cfield_t;

#define F(field, kind) { #field, kind, offsetof(cpu_desc_t, field), sizeof(((cpu_desc_t *)0)->field) }
static const cfield_t cpu_fields[] = {
    F(name, F_STR), F(vendor_name, F_STR), F(cores, F_U32), F(simd_width, F_U32),
    F(clock_mhz, F_DBL), F(issue_width, F_U32), F(rob_size, F_U32), F(in_order, F_U32),
    F(alu_ports, F_U32), F(fma_ports, F_U32), F(sfu_ports, F_U32), F(load_ports, F_U32),
    F(store_ports, F_U32), F(sfu_interval, F_U32), F(lat_alu, F_U32), F(lat_fma, F_U32),
    F(lat_sfu, F_U32), F(line_bytes, F_U32), F(l1_bytes, F_U32), F(l1_assoc, F_U32),
    F(lat_l1, F_U32), F(l2_bytes, F_U32), F(l2_assoc, F_U32), F(lat_l2, F_U32),
    F(l3_bytes, F_U32), F(l3_assoc, F_U32), F(lat_l3, F_U32), F(lat_dram, F_U32),
    F(dram_gbps, F_DBL), F(dram_efficiency, F_DBL), F(dram_channels, F_U32),
    F(block_overhead, F_U32), F(launch_us, F_DBL), F(mem_bytes, F_U64),
    F(max_threads_per_block, F_U32), F(smem_per_block, F_U32), F(max_regs_per_thread, F_U32), F(tdp_watts, F_DBL),
    F(price_per_hour, F_DBL),
};
#undef F
#define NFIELDS (sizeof cpu_fields / sizeof cpu_fields[0])

/* Set one field from the value at the top of the stack (not popped). */
static int set_field(lua_State *L, const cfield_t *f, cpu_desc_t *d, simt_err_t *err)
{
    char *p = (char *)d + f->offset;
    if (f->kind == F_STR) {
        size_t len;
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (!s)
            return simt_errf(err, SIMT_E_USAGE, "CPU field '%s' expects a string, got %s", f->name,
                             luaL_typename(L, -1));
        if (len >= f->size)
            return simt_errf(err, SIMT_E_USAGE, "CPU field '%s' is longer than %d characters", f->name,
                             (int)f->size - 1);
        memcpy(p, s, len + 1);
        return 0;
    }
    if (lua_type(L, -1) == LUA_TBOOLEAN && f->kind == F_U32) {   /* in_order = true */
        uint32_t v = (uint32_t)lua_toboolean(L, -1);
        memcpy(p, &v, sizeof v);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TNUMBER)
        return simt_errf(err, SIMT_E_USAGE, "CPU field '%s' expects a number, got %s", f->name,
                         luaL_typename(L, -1));
    double v = lua_tonumber(L, -1);
    if (f->kind == F_DBL) {
        memcpy(p, &v, sizeof v);
        return 0;
    }
    double hi = f->kind == F_U32 ? 4294967295.0 : 18446744073709549568.0;
    if (!(v >= 0 && v <= hi) || v != (double)(uint64_t)v)
        return simt_errf(err, SIMT_E_USAGE, "CPU field '%s' expects a non-negative integer, got %g", f->name, v);
    if (f->kind == F_U32) {
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, sizeof u);
    } else {
        uint64_t u = (uint64_t)v;
        memcpy(p, &u, sizeof u);
    }
    return 0;
}

/* Apply the table at idx to d. Skips "arch"; "kind" must be "cpu"; "simd"
 * is short for simd_width. Unknown keys fail with a hint. */
static int apply_table(lua_State *L, int idx, cpu_desc_t *d, simt_err_t *err)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        const cfield_t *f = NULL;
        if (!k) {
            lua_pop(L, 2);
            return simt_errf(err, SIMT_E_USAGE, "CPU description keys must be strings");
        }
        if (strcmp(k, "arch") == 0) {
            lua_pop(L, 1);
            continue;
        }
        if (strcmp(k, "kind") == 0) {
            const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            if (strcmp(v, "cpu") != 0) {
                lua_pop(L, 2);
                return simt_errf(err, SIMT_E_USAGE, "CPU field 'kind' must be \"cpu\" (this is a GPU preset? "
                                 "use simt.gpu for it)");
            }
            lua_pop(L, 1);
            continue;
        }
        if (strcmp(k, "simd") == 0)
            k = "simd_width";
        for (size_t i = 0; i < NFIELDS; i++)
            if (strcmp(cpu_fields[i].name, k) == 0)
                f = &cpu_fields[i];
        if (!f) {
            const char *names[NFIELDS];
            for (size_t i = 0; i < NFIELDS; i++)
                names[i] = cpu_fields[i].name;
            const char *hint = arch_closest(k, names, NFIELDS);
            simt_errf(err, SIMT_E_USAGE, "unknown CPU field '%s'%s%s%s", k, hint ? " (did you mean '" : "",
                      hint ? hint : "", hint ? "'?)" : "");
            lua_pop(L, 2);
            return -1;
        }
        if (set_field(L, f, d, err) != 0) {
            lua_pop(L, 2);
            return -1;
        }
        lua_pop(L, 1);
    }
    return 0;
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

/* Push every field of d as a table. */
static void push_desc(lua_State *L, const cpu_desc_t *d)
{
    lua_createtable(L, 0, (int)NFIELDS + 1);
    for (size_t i = 0; i < NFIELDS; i++) {
        const cfield_t *f = &cpu_fields[i];
        const char *p = (const char *)d + f->offset;
        if (f->kind == F_STR) {
            lua_pushstring(L, p);
        } else if (f->kind == F_DBL) {
            double v;
            memcpy(&v, p, sizeof v);
            lua_pushnumber(L, v);
        } else if (f->kind == F_U32) {
            uint32_t v;
            memcpy(&v, p, sizeof v);
            lua_pushinteger(L, (lua_Integer)v);
        } else {
            uint64_t v;
            memcpy(&v, p, sizeof v);
            lua_pushinteger(L, (lua_Integer)v);
        }
        lua_setfield(L, -2, f->name);
    }
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
    double secs = st->time_us * 1e-6, total = 0;
    lua_createtable(L, 0, 40);
    lutil_set_int(L, "cycles", st->cycles);
    lutil_set_num(L, "time_us", st->time_us);
    lutil_set_num(L, "launch_us", d->launch_us);
    lutil_set_int(L, "instrs", st->instrs);
    lutil_set_int(L, "warp_instrs", st->instrs);
    lutil_set_int(L, "thread_instrs", st->thread_instrs);
    lutil_set_int(L, "flops", st->flops);
    lutil_set_num(L, "gflops", lutil_ratio((double)st->flops, secs) / 1e9);
    lutil_set_num(L, "tflops", lutil_ratio((double)st->flops, secs) / 1e12);
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
    lutil_set_num(L, "dram_gbs", lutil_ratio((double)st->dram_bytes, secs) / 1e9);
    lutil_set_num(L, "ipc", lutil_ratio((double)st->instrs, (double)st->cycles * (st->cores_used ? st->cores_used : 1)));
    lutil_set_num(L, "lane_utilisation", lutil_ratio((double)st->thread_instrs, (double)st->instrs * d->simd_width));
    lua_createtable(L, 0, CPU_T_COUNT);
    for (int i = 0; i < CPU_T_COUNT; i++) {
        lutil_set_int(L, time_names[i], st->time[i]);
        total += (double)st->time[i];
    }
    lua_setfield(L, -2, "core_cycles");
    lua_createtable(L, 0, CPU_T_COUNT);
    for (int i = 0; i < CPU_T_COUNT; i++)
        lutil_set_num(L, time_names[i], lutil_ratio((double)st->time[i], total));
    lua_setfield(L, -2, "time");
    lua_pushstring(L, d->name);
    lua_setfield(L, -2, "cpu");
    lua_pushstring(L, "cpu");
    lua_setfield(L, -2, "kind");
}

/* c:launch(k, {grid=, block=, max_instrs=, warm_caches=}, args...) -> result. */
/* End a CPU lane's run and push its result table (lstage_finish_fn). */
static int cpu_finish(lua_State *L, lstage_lane_t *lane)
{
    cpu_stats_t st;
    simt_err_t err;
    simt_err_clear(&err);
    int rc = cpu_run_end(lane->cpu, &st, &err);
    lane->cpu = NULL;
    /* the simulated work counts against the watchdog (sandbox.h) */
    sandbox_charge_work(L, rc != 0 && err.code == SIMT_E_TIMEOUT
                               ? (lane->max_instrs ? lane->max_instrs : CPU_DEFAULT_MAX_INSTRS) : st.instrs);
    if (rc != 0)
        return lutil_error(L, "%s", err.msg);
    push_stats(L, &st, lane->cdesc);
    lua_pushstring(L, lane->kernel);
    lua_setfield(L, -2, "kernel");
    return 1;
}

static int cpu_launch_l(lua_State *L)
{
    static const char *const keys[] = { "grid", "block", "max_instrs", "max_warp_instrs", "max_cycles",
                                        "warm_caches", "show" };
    lcpu_t *C = check_cpu(L, 1);
    /* the kernel userdata's first member is its isa_program_t (lsimt.c) */
    const isa_program_t *p = (const isa_program_t *)luaL_checkudata(L, 2, KERNEL_MT);
    uint32_t args[ISA_MAX_PARAMS];
    int nargs = lua_gettop(L) - 3;
    cpu_launch_t cfg;
    simt_err_t err;
    luaL_checktype(L, 3, LUA_TTABLE);
    if (p->ncode == 0)
        return lutil_error(L, "launch: kernel is not loaded");
    lua_pushnil(L);
    while (lua_next(L, 3) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        int known = 0;
        for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
            known |= strcmp(k, keys[j]) == 0;
        if (!known)
            return lutil_error(L, "launch: unknown configuration key '%s' (keys: grid, block, max_instrs, "
                                  "warm_caches, show)", k);
        lua_pop(L, 1);
    }
    memset(&cfg, 0, sizeof cfg);
    lsimt_get_dim3(L, 3, "grid", cfg.grid);
    lsimt_get_dim3(L, 3, "block", cfg.block);
    /* max_warp_instrs (the GPU's name) means the same; max_cycles is
     * accepted and ignored: the CPU's watchdog counts instructions */
    for (int j = 0; j < 2; j++) {
        if (lua_getfield(L, 3, j == 0 ? "max_instrs" : "max_warp_instrs") != LUA_TNIL) {
            if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1)
                return lutil_error(L, "launch: max_instrs must be a positive integer");
            cfg.max_instrs = (uint64_t)lua_tointeger(L, -1);
        }
        lua_pop(L, 1);
    }
    if (lua_getfield(L, 3, "warm_caches") != LUA_TNIL)
        cfg.warm_caches = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (nargs != (int)p->nparams)
        return lutil_error(L, "kernel '%s' takes %d argument%s, got %d", p->name, (int)p->nparams,
                           p->nparams == 1 ? "" : "s", nargs);
    for (int i = 0; i < nargs; i++)
        args[i] = lsimt_arg_bits(L, C->memgpu, "c:tensor", p, 4 + i, i);
    lstage_lane_t lane;
    memset(&lane, 0, sizeof lane);
    lsimt_lane_output(L, 3, 4, nargs, &lane);
    simt_err_clear(&err);
    lane.cpu = cpu_run_begin(C->c, gpu_mem(C->memgpu->g), p, &cfg, args, (uint32_t)nargs, &err);
    if (!lane.cpu)
        return lutil_error(L, "%s", err.msg);
    snprintf(lane.device, sizeof lane.device, "%s", cpu_desc(C->c)->name);
    snprintf(lane.kernel, sizeof lane.kernel, "%s", p->name);
    lane.finish = cpu_finish;
    lane.cdesc = cpu_desc(C->c);
    lane.max_instrs = cfg.max_instrs;
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
