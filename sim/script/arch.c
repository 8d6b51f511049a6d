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

#include "sandbox.h"

#ifndef SIMT_SOURCE_DIR
#define SIMT_SOURCE_DIR "."
#endif

/* How a field is stored and which Lua values it accepts. */
typedef enum arch_kind {
    K_STR,    /* char[size]: a string shorter than size            */
    K_U32,    /* uint32_t: an integer 0..2^32-1                    */
    K_U64,    /* uint64_t: an integer >= 0 (floats if integral)    */
    K_DBL,    /* double: any number                                */
    K_SCHED,  /* gpu_sched_t: "lrr" or "gto"                       */
    K_U32X3   /* uint32_t[3]: a table of 3 integers                */
} arch_kind_t;

typedef struct arch_field {
    const char *name;   /* Lua key = C field name                 */
    arch_kind_t kind;   /* storage and accepted values            */
    size_t offset;      /* offsetof(gpu_desc_t, field)            */
    size_t size;        /* sizeof the field (strings: buffer)     */
} arch_field_t;

#define F(field, kind) { #field, kind, offsetof(gpu_desc_t, field), sizeof(((gpu_desc_t *)0)->field) }

static const arch_field_t arch_fields[] = {
    F(name, K_STR), F(vendor_name, K_STR),
    F(sms, K_U32), F(clock_mhz, K_DBL), F(schedulers_per_sm, K_U32),
    F(fp32_lanes_per_sm, K_U32), F(int_lanes_per_sm, K_U32),
    F(sfu_lanes_per_sm, K_U32), F(lsu_lanes_per_sm, K_U32), F(sched, K_SCHED), F(sched_reference, K_U32),
    F(tc_flops_per_clk_f16, K_U32), F(tc_flops_per_clk_bf16, K_U32),
    F(tc_flops_per_clk_tf32, K_U32), F(tc_flops_per_clk_fp8, K_U32),
    F(tc_sync_flops_per_clk_f16, K_U32), F(tc_sync_flops_per_clk_bf16, K_U32),
    F(tc_sync_flops_per_clk_tf32, K_U32), F(tc_sync_flops_per_clk_fp8, K_U32),
    F(max_threads_per_sm, K_U32), F(max_blocks_per_sm, K_U32),
    F(max_threads_per_block, K_U32), F(regs_per_sm, K_U32),
    F(max_regs_per_thread, K_U32),
    F(reg_alloc_unit, K_U32), F(smem_per_sm, K_U32), F(smem_per_block, K_U32),
    F(max_grid, K_U32X3), F(max_cluster_size, K_U32), F(lat_cluster, K_U32), F(wgmma, K_U32),
    F(lat_alu, K_U32), F(lat_fma, K_U32), F(lat_sfu, K_U32), F(lat_branch, K_U32),
    F(lat_tensor, K_U32), F(lat_smem, K_U32), F(lat_l1, K_U32), F(lat_l2, K_U32), F(lat_dram, K_U32),
    F(smem_banks, K_U32), F(l1_bytes, K_U32), F(l1_assoc, K_U32),
    F(l2_bytes, K_U32), F(l2_assoc, K_U32), F(line_bytes, K_U32),
    F(sector_bytes, K_U32), F(dram_fetch_bytes, K_U32), F(l2_partitions, K_U32), F(lat_l2_far, K_U32), F(l2_bytes_per_clk, K_DBL), F(dram_gbps, K_DBL),
    F(dram_channels, K_U32), F(dram_efficiency, K_DBL), F(dram_trefi_ns, K_DBL), F(dram_refresh_ns, K_DBL),
    F(max_mem_inflight, K_U32), F(mem_bytes, K_U64),
    F(tdp_watts, K_DBL), F(price_per_hour, K_DBL), F(launch_us, K_DBL),
    F(power_static_w, K_DBL), F(power_pj_instr, K_DBL), F(power_pj_fp32, K_DBL),
    F(power_pj_int, K_DBL), F(power_pj_sfu, K_DBL), F(power_pj_tc_f16, K_DBL),
    F(power_pj_tc_bf16, K_DBL), F(power_pj_tc_tf32, K_DBL), F(power_pj_tc_fp8, K_DBL),
    F(power_pj_byte_l1, K_DBL), F(power_pj_byte_l2, K_DBL), F(power_pj_byte_dram, K_DBL),
    F(power_volt_slope, K_DBL), F(power_mhz_min, K_DBL),
    F(nvlink_gbps, K_DBL), F(pcie_gbps, K_DBL), F(pageable_gbps, K_DBL),
};

#undef F

#define ARCH_NFIELDS (sizeof arch_fields / sizeof arch_fields[0])

static const char *const arch_sched_names[] = { "lrr", "gto" }; /* by gpu_sched_t */

/* Levenshtein distance of two short strings (names up to 63 chars). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t row[64];
    if (la > 63 || lb > 63)
        return 64;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *arch_closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3, i;
    for (i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < best_d && d < strlen(word)) {
            best = cands[i];
            best_d = d;
        }
    }
    return best;
}

static const char *closest_field(const char *word)
{
    const char *names[ARCH_NFIELDS];
    size_t i;
    for (i = 0; i < ARCH_NFIELDS; i++)
        names[i] = arch_fields[i].name;
    return arch_closest(word, names, ARCH_NFIELDS);
}

/* Read an integer in [lo, hi] from the value at idx (integral floats such
 * as 141e9 are accepted). */
static int get_int(lua_State *L, int idx, const char *what, lua_Integer lo,
                   lua_Integer hi, lua_Integer *out, simt_err_t *err)
{
    int isnum = 0;
    lua_Integer v;
    if (lua_type(L, idx) != LUA_TNUMBER)
        return simt_errf(err, SIMT_E_USAGE, "GPU field '%s' expects an integer, got %s",
                         what, luaL_typename(L, idx));
    v = lua_tointegerx(L, idx, &isnum);
    if (!isnum)
        return simt_errf(err, SIMT_E_USAGE, "GPU field '%s' expects an integer, got %g",
                         what, (double)lua_tonumber(L, idx));
    if (v < lo || v > hi)
        return simt_errf(err, SIMT_E_USAGE,
                         "GPU field '%s' must be between %lld and %lld, got %lld",
                         what, (long long)lo, (long long)hi, (long long)v);
    *out = v;
    return 0;
}

/* Set one field from the value on top of the stack. */
static int set_field(lua_State *L, const arch_field_t *f, gpu_desc_t *d, simt_err_t *err)
{
    char *p = (char *)d + f->offset;
    lua_Integer v;
    switch (f->kind) {
    case K_STR: {
        size_t len;
        const char *s;
        if (lua_type(L, -1) != LUA_TSTRING)
            return simt_errf(err, SIMT_E_USAGE, "GPU field '%s' expects a string, got %s",
                             f->name, luaL_typename(L, -1));
        s = lua_tolstring(L, -1, &len);
        if (len >= f->size)
            return simt_errf(err, SIMT_E_USAGE,
                             "GPU field '%s' is too long (%zu characters, at most %zu)",
                             f->name, len, f->size - 1);
        memcpy(p, s, len + 1);
        return 0;
    }
    case K_U32:
        if (get_int(L, -1, f->name, 0, (lua_Integer)UINT32_MAX, &v, err))
            return -1;
        *(uint32_t *)(void *)p = (uint32_t)v;
        return 0;
    case K_U64:
        if (get_int(L, -1, f->name, 0, LUA_MAXINTEGER, &v, err))
            return -1;
        *(uint64_t *)(void *)p = (uint64_t)v;
        return 0;
    case K_DBL:
        if (lua_type(L, -1) != LUA_TNUMBER)
            return simt_errf(err, SIMT_E_USAGE, "GPU field '%s' expects a number, got %s",
                             f->name, luaL_typename(L, -1));
        *(double *)(void *)p = (double)lua_tonumber(L, -1);
        return 0;
    case K_SCHED: {
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        size_t i;
        for (i = 0; s && i < sizeof arch_sched_names / sizeof arch_sched_names[0]; i++) {
            if (strcmp(s, arch_sched_names[i]) == 0) {
                d->sched = (gpu_sched_t)i;
                return 0;
            }
        }
        return simt_errf(err, SIMT_E_USAGE,
                         "GPU field 'sched' expects \"lrr\" or \"gto\", got %s%s%s",
                         s ? "'" : "", s ? s : luaL_typename(L, -1), s ? "'" : "");
    }
    case K_U32X3: {
        uint32_t tmp[3];
        int i;
        if (lua_type(L, -1) != LUA_TTABLE || luaL_len(L, -1) != 3)
            return simt_errf(err, SIMT_E_USAGE,
                             "GPU field '%s' expects a table of 3 integers, got %s",
                             f->name, luaL_typename(L, -1));
        for (i = 0; i < 3; i++) {
            int rc;
            lua_rawgeti(L, -1, i + 1);
            rc = get_int(L, -1, f->name, 0, (lua_Integer)UINT32_MAX, &v, err);
            lua_pop(L, 1);
            if (rc)
                return -1;
            tmp[i] = (uint32_t)v;
        }
        memcpy(p, tmp, sizeof tmp);
        return 0;
    }
    }
    return simt_errf(err, SIMT_E_USAGE, "GPU field '%s' has an unknown kind", f->name);
}

/* First (alphabetically) key of table idx that is not a field, so that the
 * error is the same on every run whatever the hash order. Returns 0 when
 * every key is a field name or "arch"; else fills err. */
static int check_keys(lua_State *L, int idx, simt_err_t *err)
{
    char bad[128] = "";
    int bad_is_string = 1, found = 0;
    idx = lua_absindex(L, idx);
    lua_getfield(L, idx, "kind");
    int is_cpu = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "cpu") == 0;
    lua_pop(L, 1);
    if (is_cpu)
        return simt_errf(err, SIMT_E_USAGE,
                         "this preset describes a CPU (kind = \"cpu\"): use simt.cpu{arch = ...}, not simt.gpu");
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1); /* value */
        if (lua_type(L, -1) != LUA_TSTRING) {
            if (!found || bad_is_string) {
                snprintf(bad, sizeof bad, "%s", luaL_typename(L, -1));
                bad_is_string = 0;
                found = 1;
            }
        } else {
            const char *k = lua_tostring(L, -1);
            size_t i;
            int known = strcmp(k, "arch") == 0;
            for (i = 0; !known && i < ARCH_NFIELDS; i++)
                known = strcmp(k, arch_fields[i].name) == 0;
            if (!known && bad_is_string && (!found || strcmp(k, bad) < 0)) {
                snprintf(bad, sizeof bad, "%s", k);
                found = 1;
            }
        }
    }
    if (!found)
        return 0;
    if (!bad_is_string)
        return simt_errf(err, SIMT_E_USAGE,
                         "GPU description keys must be field names, got a %s key", bad);
    {
        const char *hint = closest_field(bad);
        if (hint)
            return simt_errf(err, SIMT_E_USAGE, "unknown GPU field '%s' (did you mean '%s'?)",
                             bad, hint);
        return simt_errf(err, SIMT_E_USAGE,
                         "unknown GPU field '%s' (see simt.gpu{}.desc for the field names)", bad);
    }
}

int arch_apply_table(lua_State *L, int idx, gpu_desc_t *d, simt_err_t *err)
{
    size_t i;
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        return simt_errf(err, SIMT_E_USAGE, "GPU description must be a table, got %s",
                         luaL_typename(L, idx));
    if (check_keys(L, idx, err))
        return -1;
    /* Fields in declaration order: deterministic, whatever the hash order. */
    for (i = 0; i < ARCH_NFIELDS; i++) {
        int rc = 0;
        if (lua_getfield(L, idx, arch_fields[i].name) != LUA_TNIL)
            rc = set_field(L, &arch_fields[i], d, err);
        lua_pop(L, 1);
        if (rc)
            return -1;
    }
    return 0;
}

void arch_push_desc(lua_State *L, const gpu_desc_t *d)
{
    size_t i;
    lua_createtable(L, 0, (int)ARCH_NFIELDS);
    for (i = 0; i < ARCH_NFIELDS; i++) {
        const arch_field_t *f = &arch_fields[i];
        const char *p = (const char *)d + f->offset;
        switch (f->kind) {
        case K_STR:   lua_pushstring(L, p); break;
        case K_U32:   lua_pushinteger(L, *(const uint32_t *)(const void *)p); break;
        case K_U64:   lua_pushinteger(L, (lua_Integer)*(const uint64_t *)(const void *)p); break;
        case K_DBL:   lua_pushnumber(L, *(const double *)(const void *)p); break;
        case K_SCHED: lua_pushstring(L, d->sched == SCHED_GTO ? "gto" : "lrr"); break;
        case K_U32X3: {
            int j;
            lua_createtable(L, 3, 0);
            for (j = 0; j < 3; j++) {
                lua_pushinteger(L, ((const uint32_t *)(const void *)p)[j]);
                lua_rawseti(L, -2, j + 1);
            }
            break;
        }
        }
        lua_setfield(L, -2, f->name);
    }
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
