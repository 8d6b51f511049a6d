/* fuzz_arch.c - libFuzzer target: the arch-preset loader on arbitrary
 * preset files.
 *
 * The input is written to a temporary .lua file and loaded with
 * arch_load (the restricted environment presets run in). A preset that
 * loads is validated; a valid one creates a GPU (memory system included)
 * and survives a round trip through arch_push_desc / arch_apply_table. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "arch.h"
#include "gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/simt_fuzz_arch_%ld.lua", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);

    lua_State *L = luaL_newstate();
    if (!L)
        return 0;
    gpu_desc_t d;
    simt_err_t err;
    int top = lua_gettop(L);
    if (arch_load(L, path, &d, &err) == 0 && gpu_desc_validate(&d, &err) == 0) {
        /* round trip: applying the pushed table to a copy changes nothing
         * (a copy, so that padding and bytes after each name's terminator
         * compare equal too) */
        gpu_desc_t back = d;
        arch_push_desc(L, &d);
        if (arch_apply_table(L, -1, &back, &err) != 0 || memcmp(&back, &d, sizeof d) != 0)
            abort();
        lua_pop(L, 1);
        /* keep the GPU small enough to create quickly */
        if (d.l2_bytes <= (64u << 20) && d.sms <= 256) {
            gpu_t *g = gpu_create(&d, &err);
            gpu_free(g);
        }
    }
    if (lua_gettop(L) != top)
        abort();   /* arch.h: the stack is left as found */
    lua_close(L);
    return 0;
}
