/* test_arch.c - architecture presets and the Lua table -> gpu_desc_t loader
 * (sim/script/arch.h). Runs from the repository root (ctest sets it), so
 * presets are found as ./arch/NAME.lua. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, write, close, unlink */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>

#include "arch.h"
#include "lfields.h"

static int setup(void **state)
{
    lua_State *L = luaL_newstate();
    if (!L)
        return -1;
    luaL_openlibs(L);
    *state = L;
    return 0;
}

static int teardown(void **state)
{
    lua_close((lua_State *)*state);
    return 0;
}

/* Evaluate a Lua expression that yields a table, leave it on the stack. */
static void push_expr(lua_State *L, const char *expr)
{
    char code[1024];
    snprintf(code, sizeof code, "return %s", expr);
    assert_int_equal(luaL_dostring(L, code), LUA_OK);
    assert_int_equal(lua_type(L, -1), LUA_TTABLE);
}

/* arch_desc_from_table on a table expression; returns rc, fills d/err. */
static int build(lua_State *L, const char *expr, gpu_desc_t *d, simt_err_t *err)
{
    int rc, top = lua_gettop(L);
    push_expr(L, expr);
    simt_err_clear(err);
    rc = arch_desc_from_table(L, -1, d, err);
    lua_pop(L, 1);
    assert_int_equal(lua_gettop(L), top); /* stack left as found */
    return rc;
}

static void test_edu_tiny(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    assert_int_equal(arch_load(L, "edu-tiny", &d, &err), 0);
    assert_string_equal(d.name, "edu-tiny");
    assert_int_equal(d.sms, 2);
    assert_int_equal(d.schedulers_per_sm, 4);
    assert_int_equal(d.fp32_lanes_per_sm, 32);
    assert_int_equal(d.max_threads_per_sm, 256);
    assert_int_equal(d.max_blocks_per_sm, 4);
    assert_true(d.clock_mhz == 1000.0);
    assert_int_equal(d.sched, SCHED_LRR);
    assert_int_equal(gpu_desc_validate(&d, &err), 0);
}

static void test_h200(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    double peak;
    assert_int_equal(arch_load(L, "h200", &d, &err), 0);
    assert_string_equal(d.name, "h200");
    assert_string_equal(d.vendor_name, "NVIDIA H200 SXM 141GB");
    assert_int_equal(d.sms, 132);
    assert_int_equal(d.regs_per_sm, 65536);
    assert_int_equal(d.max_threads_per_sm, 2048);
    assert_int_equal(d.max_threads_per_block, 1024);
    assert_int_equal(d.smem_per_sm, 228 * 1024);
    assert_int_equal(d.smem_per_block, 227 * 1024);
    assert_int_equal(d.l2_bytes, 62914560);
    assert_int_equal(d.lat_smem, 29);
    assert_int_equal(d.max_grid[0], 2147483647u);
    assert_int_equal(d.max_grid[1], 65535);
    assert_true(d.mem_bytes == 141000000000ull);
    assert_true(d.dram_gbps == 4800.0);
    assert_true(d.tdp_watts == 700.0);
    /* datasheet check (gpu-specs.md): SMs x lanes x 2 x clock = 67 TFLOP/s */
    peak = d.sms * d.fp32_lanes_per_sm * 2.0 * d.clock_mhz * 1e6;
    assert_true(peak > 66.5e12 && peak < 67.5e12);
    assert_int_equal(gpu_desc_validate(&d, &err), 0);
}

static void test_overrides(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    assert_int_equal(build(L, "{arch = 'h200', sms = 16, dram_gbps = 1000, sched = 'lrr',"
                              " max_grid = {100, 200, 300}, name = 'h200-16'}", &d, &err), 0);
    assert_int_equal(d.sms, 16);
    assert_true(d.dram_gbps == 1000.0);
    assert_int_equal(d.sched, SCHED_LRR);
    assert_int_equal(d.max_grid[0], 100);
    assert_int_equal(d.max_grid[2], 300);
    assert_string_equal(d.name, "h200-16");
    assert_int_equal(d.l2_bytes, 62914560); /* untouched fields keep the preset's */
    /* no arch: the defaults, overridden; floats with integer values are integers */
    assert_int_equal(build(L, "{sms = 3.0, mem_bytes = 2^30}", &d, &err), 0);
    assert_int_equal(d.sms, 3);
    assert_true(d.mem_bytes == (1ull << 30));
}

static void test_unknown_field(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    assert_int_equal(build(L, "{arch = 'h200', smz = 4}", &d, &err), -1);
    assert_string_equal(err.msg, "unknown GPU field 'smz' (did you mean 'sms'?)");
    assert_int_equal(err.code, SIMT_E_USAGE);
    /* several unknown keys: the alphabetically first is reported, every run */
    assert_int_equal(build(L, "{zzz = 1, clock_mzh = 2, aaa_not_close = 3}", &d, &err), -1);
    assert_string_equal(err.msg, "unknown GPU field 'aaa_not_close' "
                                 "(see simt.gpu{}.desc for the field names)");
    assert_int_equal(build(L, "{clock_mzh = 2}", &d, &err), -1);
    assert_string_equal(err.msg, "unknown GPU field 'clock_mzh' (did you mean 'clock_mhz'?)");
    assert_int_equal(build(L, "{[1] = 5}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU description keys must be field names, got a number key");
}

static void test_wrong_types(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    assert_int_equal(build(L, "{sms = 'many'}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'sms' expects an integer, got string");
    assert_int_equal(build(L, "{sms = 1.5}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'sms' expects an integer, got 1.5");
    assert_int_equal(build(L, "{sms = -1}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'sms' must be between 0 and 4294967295, got -1");
    assert_int_equal(build(L, "{clock_mhz = '2GHz'}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'clock_mhz' expects a number, got string");
    assert_int_equal(build(L, "{sched = 'fifo'}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'sched' expects \"lrr\" or \"gto\", got 'fifo'");
    assert_int_equal(build(L, "{name = 42}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'name' expects a string, got number");
    assert_int_equal(build(L, "{max_grid = {1, 2}}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'max_grid' expects a table of 3 integers, got table");
    assert_int_equal(build(L, "{arch = 7}", &d, &err), -1);
    assert_string_equal(err.msg, "GPU field 'arch' expects a preset name or a .lua path, got number");
}

static void test_validation(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    assert_int_equal(build(L, "{arch = 'edu-tiny', sms = 0}", &d, &err), -1);
    assert_non_null(strstr(err.msg, "'sms'"));
    assert_int_equal(build(L, "{arch = 'h200', lat_dram = 10}", &d, &err), -1);
    assert_non_null(strstr(err.msg, "lat_dram"));
}

static void test_unknown_preset(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    assert_int_equal(arch_load(L, "h2000", &d, &err), -1);
    assert_non_null(strstr(err.msg, "unknown GPU preset 'h2000' (presets: "));
    assert_non_null(strstr(err.msg, "edu-tiny"));
    assert_non_null(strstr(err.msg, "h200"));
    assert_int_equal(arch_load(L, "no/such/file.lua", &d, &err), -1);
    assert_string_equal(err.msg, "cannot open preset file 'no/such/file.lua'");
}

/* Write text to a fresh temporary .lua-less path; returns it in buf. */
static void temp_preset(char *buf, size_t n, const char *text)
{
    int fd;
    snprintf(buf, n, "/tmp/simt_test_arch_XXXXXX");
    fd = mkstemp(buf);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (long)strlen(text));
    close(fd);
}

static void test_preset_files(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    simt_err_t err;
    char path[64];
    /* a preset from a path, using math; name defaults to the file stem */
    temp_preset(path, sizeof path, "return { sms = math.max(3, 5), clock_mhz = 1500 }");
    assert_int_equal(arch_load(L, path, &d, &err), 0);
    assert_int_equal(d.sms, 5);
    assert_true(d.clock_mhz == 1500.0);
    assert_string_equal(d.name, strrchr(path, '/') + 1);
    unlink(path);
    /* restricted environment: no io */
    temp_preset(path, sizeof path, "io.open('/tmp/x', 'w')\nreturn {}");
    assert_int_equal(arch_load(L, path, &d, &err), -1);
    assert_non_null(strstr(err.msg, "global 'io'"));
    unlink(path);
    /* must return a table */
    temp_preset(path, sizeof path, "return 42");
    assert_int_equal(arch_load(L, path, &d, &err), -1);
    assert_non_null(strstr(err.msg, "must return a table, got number"));
    unlink(path);
    /* a bad field names the file */
    temp_preset(path, sizeof path, "return { smz = 1 }");
    assert_int_equal(arch_load(L, path, &d, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "unknown GPU field 'smz' (did you mean 'sms'?)"));
    unlink(path);
    /* syntax error */
    temp_preset(path, sizeof path, "return { sms = }");
    assert_int_equal(arch_load(L, path, &d, &err), -1);
    assert_non_null(strstr(err.msg, ":1:"));
    unlink(path);
    assert_int_equal(lua_gettop(L), 0);
}

/* arch_push_desc then arch_apply_table reproduces every field. */
static void test_round_trip(void **state)
{
    lua_State *L = *state;
    gpu_desc_t a, b;
    simt_err_t err;
    assert_int_equal(arch_load(L, "h200", &a, &err), 0);
    a.sched = SCHED_GTO;
    arch_push_desc(L, &a);
    gpu_desc_default(&b);
    assert_int_equal(arch_apply_table(L, -1, &b, &err), 0);
    lua_pop(L, 1);
    assert_string_equal(a.name, b.name);
    assert_string_equal(a.vendor_name, b.vendor_name);
    assert_int_equal(b.sms, 132);
    assert_int_equal(b.sched, SCHED_GTO);
    assert_int_equal(b.lat_dram, a.lat_dram);
    assert_int_equal(b.max_grid[0], a.max_grid[0]);
    assert_true(b.mem_bytes == a.mem_bytes);
    assert_true(b.price_per_hour == a.price_per_hour);
    assert_true(b.l2_bytes_per_clk == a.l2_bytes_per_clk);
    assert_true(b.launch_us == a.launch_us);
}

/* gpu_desc_default is documented to hold arch/edu-tiny.lua's values. */
static void test_default_is_edu_tiny(void **state)
{
    lua_State *L = *state;
    gpu_desc_t a, b;
    simt_err_t err;
    assert_int_equal(arch_load(L, "edu-tiny", &a, &err), 0);
    gpu_desc_default(&b);
    assert_string_equal(a.name, b.name);
    assert_int_equal(a.max_threads_per_sm, b.max_threads_per_sm);
    assert_int_equal(a.l1_bytes, b.l1_bytes);
    assert_memory_equal(&a, &b, sizeof a);
}

/* Every GPU preset file sets every field itself: a field a preset leaves
 * out would silently take edu-tiny's value from gpu_desc_default. One
 * exception: a preset without a power model (power_static_w = 0) may leave
 * out the model's other power_* fields, which nothing reads then. */
static void test_presets_set_every_field(void **state)
{
    lua_State *L = *state;
    gpu_desc_t d;
    gpu_desc_default(&d);
    arch_push_desc(L, &d);                       /* all field names */
    int fields = lua_gettop(L);
    arch_push_presets(L);
    int presets = lua_gettop(L);
    lua_Integer n = luaL_len(L, presets);
    int gpus = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, presets, i);
        char rel[128], path[512];
        snprintf(rel, sizeof rel, "arch/%s.lua", lua_tostring(L, -1));
        lua_pop(L, 1);
        assert_int_equal(arch_find_file(rel, path, sizeof path), 0);
        assert_int_equal(luaL_dofile(L, path), LUA_OK);
        int tbl = lua_gettop(L);
        lua_getfield(L, tbl, "kind");
        int is_cpu = lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "cpu") == 0;
        lua_pop(L, 1);
        lua_getfield(L, tbl, "power_static_w");
        int no_power = lua_isnumber(L, -1) && lua_tonumber(L, -1) == 0.0;
        lua_pop(L, 1);
        if (!is_cpu) {
            gpus++;
            lua_pushnil(L);
            while (lua_next(L, fields) != 0) {
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                lua_gettable(L, tbl);
                const char *fname = lua_tostring(L, -2);
                /* sched_reference is a simulator option (sched.h), not a fact
                 * of the chip: presets leave it at 0 */
                if (lua_isnil(L, -1) && !(no_power && strncmp(fname, "power_", 6) == 0) &&
                    strcmp(fname, "sched_reference") != 0)
                    fail_msg("%s does not set field '%s'", rel, fname);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    assert_true(gpus >= 2);
    lua_settop(L, fields - 1);
}

static void test_closest_and_presets(void **state)
{
    lua_State *L = *state;
    static const char *const names[] = { "grid", "block", "max_cycles" };
    assert_string_equal(lfields_closest("blok", names, 3), "block");
    assert_string_equal(lfields_closest("max_cycle", names, 3), "max_cycles");
    assert_null(lfields_closest("xyz", names, 3));
    assert_null(lfields_closest("g", names, 3)); /* too short to guess */
    arch_push_presets(L);
    lua_Integer n = luaL_len(L, -1);
    assert_true(n >= 2);
    int seen_tiny = 0, seen_h200 = 0;
    const char *prev = "";
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        const char *name = lua_tostring(L, -1);
        assert_true(strcmp(prev, name) < 0);               /* sorted, no repeats */
        seen_tiny |= strcmp(name, "edu-tiny") == 0;
        seen_h200 |= strcmp(name, "h200") == 0;
        prev = name;          /* stays valid: the table keeps the string alive */
        lua_pop(L, 1);
    }
    assert_true(seen_tiny && seen_h200);
    lua_pop(L, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_edu_tiny, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h200, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overrides, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_field, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_preset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preset_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_is_edu_tiny, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_presets_set_every_field, setup, teardown),
        cmocka_unit_test_setup_teardown(test_closest_and_presets, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
