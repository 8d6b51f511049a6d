/* arch.c - architecture presets: Lua tables -> gpu_desc_t (see arch.h).
 *
 * One table (arch_fields) lists every gpu_desc_t field with its kind and
 * offset; reading a table, writing a table and "did you mean" hints all
 * walk it, so a new field in gpu.h needs exactly one new line here.
 */
#define _POSIX_C_SOURCE 200809L /* opendir/readdir to list arch/ */

#include "arch.h"

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lfields.h"
#include "sandbox.h"

#ifndef SIMT_SOURCE_DIR
#define SIMT_SOURCE_DIR "."
#endif

static const char *const arch_sched_names[] = { "lrr", "gto", NULL }; /* by gpu_sched_t */

#define F(field, kind) { #field, LF_##kind, offsetof(gpu_desc_t, field), sizeof(((gpu_desc_t *)0)->field), \
                         NULL }

static const lfield_t arch_fields[] = {
    F(name, STR), F(vendor_name, STR),
    F(sms, U32), F(clock_mhz, DBL), F(schedulers_per_sm, U32),
    F(fp32_lanes_per_sm, U32), F(int_lanes_per_sm, U32),
    F(sfu_lanes_per_sm, U32), F(lsu_lanes_per_sm, U32),
    { "sched", LF_ENUM, offsetof(gpu_desc_t, sched), sizeof(gpu_sched_t), arch_sched_names }, F(sched_reference, U32),
    F(tc_flops_per_clk_f16, U32), F(tc_flops_per_clk_bf16, U32),
    F(tc_flops_per_clk_tf32, U32), F(tc_flops_per_clk_fp8, U32),
    F(tc_sync_flops_per_clk_f16, U32), F(tc_sync_flops_per_clk_bf16, U32),
    F(tc_sync_flops_per_clk_tf32, U32), F(tc_sync_flops_per_clk_fp8, U32),
    F(max_threads_per_sm, U32), F(max_blocks_per_sm, U32),
    F(max_threads_per_block, U32), F(regs_per_sm, U32),
    F(max_regs_per_thread, U32),
    F(reg_alloc_unit, U32), F(smem_per_sm, U32), F(smem_per_block, U32),
    F(max_grid, U32X3), F(max_cluster_size, U32), F(lat_cluster, U32), F(wgmma, U32),
    F(lat_alu, U32), F(lat_fma, U32), F(lat_sfu, U32), F(lat_branch, U32),
    F(lat_tensor, U32), F(lat_smem, U32), F(lat_l1, U32), F(lat_l2, U32), F(lat_dram, U32),
    F(smem_banks, U32), F(l1_bytes, U32), F(l1_assoc, U32),
    F(l2_bytes, U32), F(l2_assoc, U32), F(line_bytes, U32),
    F(sector_bytes, U32), F(dram_fetch_bytes, U32), F(l2_partitions, U32), F(lat_l2_far, U32), F(l2_bytes_per_clk, DBL), F(dram_gbps, DBL),
    F(dram_channels, U32), F(dram_efficiency, DBL), F(dram_trefi_ns, DBL), F(dram_refresh_ns, DBL),
    F(max_mem_inflight, U32), F(mem_bytes, U64),
    F(tdp_watts, DBL), F(price_per_hour, DBL), F(launch_us, DBL),
    F(power_static_w, DBL), F(power_pj_instr, DBL), F(power_pj_fp32, DBL),
    F(power_pj_int, DBL), F(power_pj_sfu, DBL), F(power_pj_tc_f16, DBL),
    F(power_pj_tc_bf16, DBL), F(power_pj_tc_tf32, DBL), F(power_pj_tc_fp8, DBL),
    F(power_pj_byte_l1, DBL), F(power_pj_byte_l2, DBL), F(power_pj_byte_dram, DBL),
    F(power_volt_slope, DBL), F(power_mhz_min, DBL),
    F(nvlink_gbps, DBL), F(pcie_gbps, DBL), F(pageable_gbps, DBL),
};

#undef F

#define ARCH_NFIELDS (sizeof arch_fields / sizeof arch_fields[0])

static const char *const arch_skip[] = { "arch", NULL };   /* read by arch_desc_from_table */
static const lfields_t arch_table = { "GPU", arch_fields, ARCH_NFIELDS, arch_skip, NULL, "simt.gpu{}.desc" };

int arch_apply_table(lua_State *L, int idx, gpu_desc_t *d, simt_err_t *err)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TTABLE) {
        lua_getfield(L, idx, "kind");
        int is_cpu = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "cpu") == 0;
        lua_pop(L, 1);
        if (is_cpu)
            return simt_errf(err, SIMT_E_USAGE,
                             "this preset describes a CPU (kind = \"cpu\"): use simt.cpu{arch = ...}, not simt.gpu");
    }
    return lfields_apply(L, idx, &arch_table, d, err);
}

void arch_push_desc(lua_State *L, const gpu_desc_t *d)
{
    lfields_push(L, &arch_table, d);
}

static int readable(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

/* The search-path directories, in order; returns how many (at most 3). */
/* Where files are looked for: $SIMTLAB_HOME, the current directory, the
 * installed data folder (cmake --install: PREFIX/share/simtlab), and the
 * source tree simtlab was built from (not when SIMTLAB_INSTALLED_ONLY is
 * set: the test that an installed copy works on its own sets it). */
static int search_cwd = 1;   /* arch_installed_only() clears it */

void arch_installed_only(void)
{
    search_cwd = 0;
}

static int search_dirs(const char *dirs[4])
{
    int n = 0;
    const char *home = getenv("SIMTLAB_HOME");
    if (home && home[0])
        dirs[n++] = home;
    if (search_cwd)
        dirs[n++] = ".";
#ifdef SIMT_DATA_DIR
    dirs[n++] = SIMT_DATA_DIR;
#endif
    if (!getenv("SIMTLAB_INSTALLED_ONLY"))
        dirs[n++] = SIMT_SOURCE_DIR;
    return n;
}

int arch_find_file(const char *rel, char *out, size_t n)
{
    const char *dirs[4];
    int nd = search_dirs(dirs), i;
    for (i = 0; i < nd; i++) {
        int len = snprintf(out, n, "%s/%s", dirs[i], rel);
        if (len > 0 && (size_t)len < n && readable(out))
            return 0;
    }
    if (n)
        out[0] = '\0';
    return -1;
}

static int is_path(const char *s)
{
    size_t len = strlen(s);
    return strchr(s, '/') != NULL || (len > 4 && strcmp(s + len - 4, ".lua") == 0);
}

/* Copy the file-name stem of path ("arch/h200.lua" -> "h200") to out. */
static void path_stem(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    size_t len;
    base = base ? base + 1 : path;
    len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0)
        len -= 4;
    if (len >= n)
        len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

/* A preset builds one table: one that runs this many Lua VM instructions
 * is stuck in a loop (found by tests/fuzz/fuzz_arch.c). */
#define PRESET_MAX_INSTRUCTIONS 10000000
#define PRESET_MAX_BYTES (1u << 20)   /* largest preset file read */

static void preset_watchdog(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    luaL_error(L, "preset ran for more than %d instructions (an endless loop?)", PRESET_MAX_INSTRUCTIONS);
}

/* Push the chunk of preset file `path` (text only; in the sandbox only a
 * regular file it may read, sandbox.h). Returns 0, or -1 with err filled
 * and nothing pushed. */
int arch_load_chunk(lua_State *L, const char *path, simt_err_t *err)
{
    char chunkname[1100];
    size_t len;
    const char *src;
    if (sandbox_push_file(L, path, PRESET_MAX_BYTES, NULL, 0, err) != 0)
        return -1;
    src = lua_tolstring(L, -1, &len);
    snprintf(chunkname, sizeof chunkname, "@%s", path);
    if (luaL_loadbufferx(L, src, len, chunkname, "t") != LUA_OK) {
        simt_errf(err, SIMT_E_USAGE, "%s", lua_tostring(L, -1));
        lua_pop(L, 2);
        return -1;
    }
    lua_remove(L, -2);
    return 0;
}

/* lua_pcall(L, 0, 1, 0) of a preset chunk with a watchdog: in the
 * sandbox its own (sticky, counting the preset's instructions as the
 * script's); elsewhere a limit of PRESET_MAX_INSTRUCTIONS. */
int arch_run_chunk(lua_State *L)
{
    if (sandbox_active(L))
        return lua_pcall(L, 0, 1, 0);
    lua_Hook old_hook = lua_gethook(L);
    int old_mask = lua_gethookmask(L), old_count = lua_gethookcount(L);
    lua_sethook(L, preset_watchdog, LUA_MASKCOUNT, PRESET_MAX_INSTRUCTIONS);
    int prc = lua_pcall(L, 0, 1, 0);
    lua_sethook(L, old_hook, old_mask, old_count);
    return prc;
}

/* Push the restricted environment a preset runs in. */
static void push_preset_env(lua_State *L)
{
    static const char *const globals[] = {
        "assert", "error", "ipairs", "next", "pairs", "pcall", "print", "select",
        "tonumber", "tostring", "type", "math", "string", "table", "utf8"
    };
    size_t i;
    lua_createtable(L, 0, (int)(sizeof globals / sizeof globals[0]));
    for (i = 0; i < sizeof globals / sizeof globals[0]; i++) {
        lua_getglobal(L, globals[i]);
        lua_setfield(L, -2, globals[i]);
    }
}

/* Build "edu-tiny, h200" (the known presets) into buf. */
static void preset_list(lua_State *L, char *buf, size_t n)
{
    lua_Integer i, count;
    size_t used = 0;
    buf[0] = '\0';
    arch_push_presets(L);
    count = luaL_len(L, -1);
    for (i = 1; i <= count && used < n; i++) {
        lua_rawgeti(L, -1, i);
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i > 1 ? ", " : "",
                                 lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

int arch_load(lua_State *L, const char *name_or_path, gpu_desc_t *d, simt_err_t *err)
{
    char path[1024];
    int top = lua_gettop(L), rc;
    if (is_path(name_or_path)) {
        if (snprintf(path, sizeof path, "%s", name_or_path) >= (int)sizeof path)
            return simt_errf(err, SIMT_E_USAGE, "preset path too long: %s", name_or_path);
        if (!sandbox_active(L) && !readable(path))
            return simt_errf(err, SIMT_E_USAGE, "cannot open preset file '%s'", path);
    } else {
        char rel[256], list[512];
        if (snprintf(rel, sizeof rel, "arch/%s.lua", name_or_path) >= (int)sizeof rel
            || arch_find_file(rel, path, sizeof path) != 0) {
            preset_list(L, list, sizeof list);
            return simt_errf(err, SIMT_E_USAGE, "unknown GPU preset '%s' (presets: %s)",
                             name_or_path, list[0] ? list : "none found");
        }
    }
    if (arch_load_chunk(L, path, err) != 0) {
        lua_settop(L, top);
        return -1;
    }
    push_preset_env(L);
    lua_setupvalue(L, -2, 1); /* the chunk's _ENV */
    int prc = arch_run_chunk(L);
    if (prc != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        simt_errf(err, SIMT_E_USAGE, "%s", msg ? msg : "error in preset file");
        lua_settop(L, top);
        return -1;
    }
    if (lua_type(L, -1) != LUA_TTABLE) {
        simt_errf(err, SIMT_E_USAGE, "preset file '%s' must return a table, got %s",
                  path, luaL_typename(L, -1));
        lua_settop(L, top);
        return -1;
    }
    gpu_desc_default(d);
    path_stem(path, d->name, sizeof d->name);
    rc = arch_apply_table(L, -1, d, err);
    if (rc) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        simt_errf(err, SIMT_E_USAGE, "%s: %s", path, msg);
    }
    lua_settop(L, top);
    return rc;
}

int arch_desc_from_table(lua_State *L, int idx, gpu_desc_t *d, simt_err_t *err)
{
    int t;
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        return simt_errf(err, SIMT_E_USAGE, "GPU description must be a table, got %s",
                         luaL_typename(L, idx));
    t = lua_getfield(L, idx, "arch");
    if (t == LUA_TNIL) {
        gpu_desc_default(d);
    } else if (t != LUA_TSTRING) {
        simt_errf(err, SIMT_E_USAGE,
                  "GPU field 'arch' expects a preset name or a .lua path, got %s",
                  luaL_typename(L, -1));
        lua_pop(L, 1);
        return -1;
    } else {
        /* copy the name: arch_load runs Lua code that could collect it */
        char name[1024];
        snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
        if (arch_load(L, name, d, err)) {
            lua_pop(L, 1);
            return -1;
        }
    }
    lua_pop(L, 1);
    if (arch_apply_table(L, idx, d, err))
        return -1;
    return gpu_desc_validate(d, err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void arch_push_presets(lua_State *L)
{
    const char *dirs[4];
    int nd = search_dirs(dirs), i;
    char names[128][64];
    const char *sorted[128];
    size_t count = 0, k;
    for (i = 0; i < nd; i++) {
        char dir[1024];
        DIR *dp;
        struct dirent *e;
        snprintf(dir, sizeof dir, "%s/arch", dirs[i]);
        dp = opendir(dir);
        if (!dp)
            continue;
        while ((e = readdir(dp)) != NULL && count < 128) {
            char stem[64];
            size_t len = strlen(e->d_name), j;
            int dup = 0;
            if (len <= 4 || len >= sizeof stem + 4 || strcmp(e->d_name + len - 4, ".lua") != 0
                || e->d_name[0] == '.')
                continue;
            path_stem(e->d_name, stem, sizeof stem);
            for (j = 0; j < count && !dup; j++)
                dup = strcmp(names[j], stem) == 0;
            if (!dup)
                memcpy(names[count++], stem, sizeof stem);
        }
        closedir(dp);
    }
    for (k = 0; k < count; k++)
        sorted[k] = names[k];
    qsort(sorted, count, sizeof sorted[0], cmp_str);
    lua_createtable(L, (int)count, 0);
    for (k = 0; k < count; k++) {
        lua_pushstring(L, sorted[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}
