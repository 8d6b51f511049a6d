/* test_robust.c - regression tests for the bugs that fuzzing found
 * (tests/fuzz/, scripts/fuzz.sh). Each test names the target that found
 * the bug and replays the input's essence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "arch.h"

/* Write text to a fresh temporary .lua file; path receives its name. */
static void temp_lua(const char *text, char *path, size_t n)
{
    snprintf(path, n, "/tmp/simt_test_robust_%ld.lua", (long)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* fuzz_arch: a preset with an endless loop hung the loader forever. Now
 * it stops after PRESET_MAX_INSTRUCTIONS with a message, and a hook the
 * caller had installed (the sandbox's watchdog) is back afterwards. */
static int hook_calls;
static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)L;
    (void)ar;
    hook_calls++;
}

static void test_arch_preset_endless_loop(void **state)
{
    (void)state;
    char path[64];
    temp_lua("local n = 0\nwhile true do n = n + 1 end\nreturn {}\n", path, sizeof path);
    lua_State *L = luaL_newstate();
    gpu_desc_t d;
    simt_err_t err;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1000);
    assert_int_equal(arch_load(L, path, &d, &err), -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    assert_non_null(strstr(err.msg, "preset ran for more than 10000000 instructions (an endless loop?)"));
    assert_ptr_equal(lua_gethook(L), count_hook);
    assert_int_equal(lua_gethookcount(L), 1000);
    assert_int_equal(lua_gettop(L), 0);
    /* an ordinary preset still loads */
    temp_lua("local t = {sms = 3}\nfor i = 1, 1000 do t.sms = 3 end\nreturn t\n", path, sizeof path);
    assert_int_equal(arch_load(L, path, &d, &err), 0);
    assert_int_equal(d.sms, 3);
    lua_close(L);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arch_preset_endless_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
