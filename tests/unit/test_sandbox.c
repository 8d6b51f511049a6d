/* test_sandbox.c - the Lua sandbox (sandbox.h): missing libraries,
 * text-only load, the instruction watchdog, the memory cap and the
 * restricted require. Each test runs Lua source in a fresh sandboxed
 * state and checks the result or the exact error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "sandbox.h"

#define LIB_DIR SIMT_SOURCE_DIR "/lessons/lib"
#define SCRIPT_DIR SIMT_SOURCE_DIR "/tests/unit/sandbox"

/* charge(n): sandbox_charge_work from Lua. */
static int lua_charge_work_fn(lua_State *L)
{
    sandbox_charge_work(L, (uint64_t)luaL_checkinteger(L, 1));
    return 0;
}

static lua_State *new_sandbox(uint64_t max_instructions, uint64_t max_bytes)
{
    lua_State *L = luaL_newstate();
    assert_non_null(L);
    sandbox_opts_t o = { .max_instructions = max_instructions, .max_bytes = max_bytes,
                         .lib_dir = LIB_DIR, .script_dir = SCRIPT_DIR };
    assert_int_equal(sandbox_open(L, &o), 0);
    return L;
}

/* Run src; return the Lua status and leave the result or error on top. */
static int run(lua_State *L, const char *src)
{
    int rc = luaL_loadbufferx(L, src, strlen(src), "=test", "t");
    if (rc != LUA_OK)
        return rc;
    return sandbox_pcall(L, 0, 1, 0);
}

static void lua_value_is(const char *src, const char *want)
{
    lua_State *L = new_sandbox(0, 0);
    int rc = run(L, src);
    const char *got = lua_tostring(L, -1);
    if (rc != LUA_OK || !got || strcmp(got, want) != 0)
        fail_msg("%s\n  expected '%s', got '%s' (status %d)", src, want, got ? got : "(non-string)", rc);
    sandbox_close(L);
}

static void lua_error_has(lua_State *L, const char *src, int status, const char *want)
{
    int rc = run(L, src);
    const char *got = lua_tostring(L, -1);
    assert_int_equal(rc, status);
    if (!got || !strstr(got, want))
        fail_msg("%s\n  expected an error containing '%s', got '%s'", src, want, got ? got : "(none)");
}

static void test_unsafe_libraries_are_absent(void **state)
{
    (void)state;
    lua_value_is("return tostring(io.open) .. tostring(io.popen) .. tostring(io.lines) .. tostring(io.input)",
                 "nilnilnilnil");
    lua_value_is("return type(io.write) .. ' ' .. type(io.stdout) .. ' ' .. type(io.stderr.write)",
                 "function userdata function");
    lua_value_is("return tostring(debug)", "nil");
    lua_value_is("return tostring(package)", "nil");
    lua_value_is("return tostring(os.execute) .. tostring(os.remove) .. tostring(os.getenv) .. tostring(os.exit)",
                 "nilnilnilnil");
    lua_value_is("return tostring(dofile) .. tostring(loadfile)", "nilnil");
    /* package.loadlib, reached any way at all */
    lua_value_is("return tostring(package and package.loadlib)", "nil");
    /* the safe ones are there */
    lua_value_is("return type(os.clock) .. type(os.time) .. type(os.date)", "functionfunctionfunction");
    lua_value_is("return string.format('%d', math.floor(2.5)) .. table.concat({'a','b'}) .. utf8.char(65) .. "
                 "tostring(coroutine.wrap(function() coroutine.yield(7) end)())",
                 "2abA7");
}

static void test_load_text_only(void **state)
{
    (void)state;
    lua_value_is("return load('return 1 + 2')()", "3");
    lua_value_is("local f, e = load(string.dump(function() return 1 end)); return tostring(f) .. ': ' .. e",
                 "nil: attempt to load a binary chunk (mode is 't')");
    /* asking for mode "b" does not help */
    lua_value_is("local f, e = load(string.dump(function() return 1 end), 'x', 'b'); return tostring(f) .. ': ' .. e",
                 "nil: attempt to load a binary chunk (mode is 't')");
    /* an env argument still works */
    lua_value_is("return load('return x', 'c', 't', {x = 'env'})()", "env");
}

static void test_watchdog_stops_endless_loop(void **state)
{
    (void)state;
    lua_State *L = new_sandbox(1000000, 0);
    lua_error_has(L, "while true do end", LUA_ERRRUN, "script ran for more than 1000000 instructions");
    sandbox_close(L);
    /* inside a coroutine too */
    L = new_sandbox(1000000, 0);
    lua_error_has(L, "local co = coroutine.wrap(function() local i = 0 while true do i = i + 1 end end) co()",
                 LUA_ERRRUN, "script ran for more than 1000000 instructions");
    sandbox_close(L);
    /* and the default limit lets ordinary work finish */
    lua_value_is("local s = 0 for i = 1, 100000 do s = s + i end return s", "5000050000");
}

static void test_memory_cap(void **state)
{
    (void)state;
    lua_State *L = new_sandbox(0, 64u << 20);
    lua_error_has(L, "local t = {} for i = 1, 1e9 do t[i] = i end", LUA_ERRMEM,
                 "test:1: script used more than 64 MB of memory (the sandbox's limit");
    /* the state is still usable after the big table is collected */
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT, 0);
    assert_int_equal(run(L, "return #string.rep('x', 1000)"), LUA_OK);
    assert_int_equal(lua_tointeger(L, -1), 1000);
    lua_settop(L, 0);
    /* one giant allocation */
    lua_error_has(L, "return string.rep('x', 1 << 30)", LUA_ERRMEM, "script used more than 64 MB of memory");
    sandbox_close(L);
}

/* Memory held outside the Lua heap counts against the same cap. */
static void test_memory_charges(void **state)
{
    (void)state;
    lua_State *L = new_sandbox(0, 64u << 20);
    assert_int_equal(sandbox_charge_bytes(L, 40 << 20), 0);
    assert_int_equal(sandbox_charge_bytes(L, 30 << 20), -1);     /* 70 MB > 64 MB */
    /* the Lua heap now has only about 24 MB left */
    lua_error_has(L, "return #string.rep('x', 30 << 20)", LUA_ERRMEM, "script used more than 64 MB");
    lua_settop(L, 0);
    assert_int_equal(sandbox_charge_bytes(L, -(40 << 20)), 0);
    assert_int_equal(run(L, "return #string.rep('x', 30 << 20)"), LUA_OK);
    assert_int_equal(lua_tointeger(L, -1), 30 << 20);
    sandbox_close(L);
    /* a plain state has no cap */
    L = luaL_newstate();
    assert_int_equal(sandbox_charge_bytes(L, (int64_t)1 << 50), 0);
    assert_false(sandbox_active(L));
    lua_close(L);
}

/* Once the watchdog fired, nothing the script does can go on running. */
static void test_watchdog_is_sticky(void **state)
{
    static const char *const forms[] = {
        "while true do pcall(function() while true do end end) end",
        "for i = 1, 1e9 do pcall(error, 'x') pcall(function() while true do end end) end",
        "while true do xpcall(function() while true do end end, function(e) while true do end end) end",
        "while true do pcall(coroutine.wrap(function() while true do end end)) end",
        "local ok repeat ok = pcall(load('while true do end')) until false",
        /* a to-be-closed variable's __close runs with hooks on */
        "while true do pcall(function() local x <close> = setmetatable({}, {__close = function() "
        "while true do end end}) while true do end end) end",
    };
    (void)state;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        lua_State *L = new_sandbox(1000000, 0);
        lua_error_has(L, forms[i], LUA_ERRRUN, "test:1: script ran for more than 1000000 instructions");
        sandbox_close(L);
    }
    /* work done in C counts, and raises the same error */
    lua_State *L = new_sandbox(1000000, 0);
    sandbox_charge_work(L, 500000);
    assert_int_equal(run(L, "local s = 0 for i = 1, 1000 do s = s + i end return s"), LUA_OK);
    assert_int_equal(lua_tointeger(L, -1), 500500);
    lua_settop(L, 0);
    lua_pushcfunction(L, lua_charge_work_fn);
    lua_setglobal(L, "charge");
    lua_error_has(L, "pcall(charge, 600000) return 1", LUA_ERRRUN,
                 "script ran for more than 1000000 instructions");
    sandbox_close(L);
}

/* The wall-clock limit stops a script whatever it catches. */
static void test_time_limit(void **state)
{
    (void)state;
    lua_State *L = luaL_newstate();
    sandbox_opts_t o = { .time_limit = 0.2, .lib_dir = LIB_DIR };
    assert_int_equal(sandbox_open(L, &o), 0);
    lua_error_has(L, "while true do pcall(function() while true do end end) end", LUA_ERRRUN,
                 "test:1: script ran for more than 0.2 s (the time limit");
    sandbox_close(L);
}

/* Finalizers run with hooks off, so the sandbox refuses them. */
static void test_no_finalizers(void **state)
{
    (void)state;
    lua_State *L = new_sandbox(0, 0);
    lua_error_has(L, "setmetatable({}, {__gc = function() while true do end end})", LUA_ERRRUN,
                 "setmetatable: __gc finalizers are not allowed in the sandbox");
    lua_settop(L, 0);
    lua_error_has(L, "local mt = {__gc = false} setmetatable({}, mt)", LUA_ERRRUN, "__gc finalizers are not allowed");
    lua_settop(L, 0);
    /* other metatables are fine, and setmetatable returns its table */
    assert_int_equal(run(L, "local t = {} return setmetatable(t, {__index = {a = 5}}) == t and t.a"), LUA_OK);
    assert_int_equal(lua_tointeger(L, -1), 5);
    lua_settop(L, 0);
    /* and it checks its arguments and protected metatables as before */
    lua_error_has(L, "setmetatable({}, 5)", LUA_ERRRUN, "bad argument #2 to 'setmetatable' (nil or table expected");
    lua_settop(L, 0);
    lua_error_has(L, "local t = setmetatable({}, {__metatable = 'no'}) setmetatable(t, {})", LUA_ERRRUN,
                 "cannot change a protected metatable");
    lua_settop(L, 0);
    assert_int_equal(run(L, "local t = setmetatable({}, {}) return getmetatable(setmetatable(t, nil)) == nil"), LUA_OK);
    assert_true(lua_toboolean(L, -1));
    sandbox_close(L);
}

/* Names a script may write by, and reads it may do (plain states may do
 * anything; tests/cli/sandbox_files.cmake attacks the real thing). */
static void test_file_policy(void **state)
{
    static const char *const bad[] = { "/etc/x", "../x", "a/../../x", "./x", "a//b", "a/", "", "a/./b",
                                       "..", "x\\y" };
    simt_err_t err;
    char shown[256];
    (void)state;
    lua_State *L = luaL_newstate();
    sandbox_opts_t o = { .lib_dir = LIB_DIR, .script_dir = SCRIPT_DIR, .out_dir = "/nonexistent-dir/out" };
    assert_int_equal(sandbox_open(L, &o), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        simt_err_clear(&err);
        assert_null(sandbox_open_write(L, bad[i], shown, sizeof shown, &err));
        if (!strstr(err.msg, "writes only into its output folder"))
            fail_msg("'%s': %s", bad[i], err.msg);
    }
    /* a good name, but the folder cannot be made */
    assert_null(sandbox_open_write(L, "ok.csv", shown, sizeof shown, &err));
    assert_non_null(strstr(err.msg, "cannot be made or opened"));
    /* reads: inside the script's folder yes, outside no, with one answer */
    char real[4096];
    assert_int_equal(sandbox_check_read(L, SCRIPT_DIR "/helper_mod.lua", real, sizeof real, &err), 0);
    assert_int_equal(sandbox_check_read(L, "/etc/passwd", real, sizeof real, &err), -1);
    assert_non_null(strstr(err.msg, "'/etc/passwd' was not found in the folders a sandboxed script may read"));
    assert_int_equal(sandbox_check_read(L, SCRIPT_DIR "/../test_sandbox.c", real, sizeof real, &err), -1);
    assert_int_equal(sandbox_check_read(L, SCRIPT_DIR, real, sizeof real, &err), -1);
    assert_non_null(strstr(err.msg, "is not a regular file"));
    /* the size limit */
    assert_int_equal(sandbox_push_file(L, SCRIPT_DIR "/helper_mod.lua", 10, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "is larger than"));
    assert_int_equal(sandbox_push_file(L, SCRIPT_DIR "/helper_mod.lua", 4096, NULL, 0, &err), 0);
    assert_non_null(strstr(lua_tostring(L, -1), "answer = 42"));
    sandbox_close(L);
}

static void test_require(void **state)
{
    (void)state;
    /* a module from the script's directory */
    lua_value_is("return tostring(require('helper_mod').answer)", "42");
    /* loaded once */
    lua_value_is("return tostring(require('helper_mod') == require('helper_mod'))", "true");
    /* a lessons/lib module (sweep.lua needs workloads.lua, also from lessons/lib) is found */
    lua_State *L = new_sandbox(0, 0);
    int rc = run(L, "local ok, e = pcall(require, 'nope_not_here'); return e");
    assert_int_equal(rc, LUA_OK);
    const char *msg = lua_tostring(L, -1);
    assert_non_null(strstr(msg, "require: module 'nope_not_here' not found (looked for nope_not_here.lua in "
                                LIB_DIR " and " SCRIPT_DIR ")"));
    /* paths outside are refused by name */
    lua_settop(L, 0);
    lua_error_has(L, "return require('../../../etc/passwd')", LUA_ERRRUN,
                 "require: module name '../../../etc/passwd' is not allowed");
    lua_settop(L, 0);
    lua_error_has(L, "return require('os')", LUA_ERRRUN, "require: module 'os' not found");
    lua_settop(L, 0);
    lua_error_has(L, "return require('io')", LUA_ERRRUN, "require: module 'io' not found");
    /* the libraries that are open can be required, as usual */
    lua_settop(L, 0);
    assert_int_equal(run(L, "return require('string') == string"), LUA_OK);
    assert_true(lua_toboolean(L, -1));
    sandbox_close(L);
}

static void test_lessons_lib_module(void **state)
{
    (void)state;
    /* workloads.lua only defines functions at load time (it needs simt only
     * when they run): requiring it from lessons/lib works */
    lua_State *L = new_sandbox(0, 0);
    lua_newtable(L);
    lua_setglobal(L, "simt");   /* a stand-in global; not called here */
    int rc = run(L, "local W = require('workloads'); return type(W)");
    if (rc != LUA_OK)
        fail_msg("require('workloads') failed: %s", lua_tostring(L, -1));
    assert_string_equal(lua_tostring(L, -1), "table");
    sandbox_close(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unsafe_libraries_are_absent),
        cmocka_unit_test(test_load_text_only),
        cmocka_unit_test(test_watchdog_stops_endless_loop),
        cmocka_unit_test(test_memory_cap),
        cmocka_unit_test(test_memory_charges),
        cmocka_unit_test(test_watchdog_is_sticky),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_no_finalizers),
        cmocka_unit_test(test_file_policy),
        cmocka_unit_test(test_require),
        cmocka_unit_test(test_lessons_lib_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
