/* sweep.c - `simtlab sweep`: turn one knob, run a workload
 * (lessons/lib/sweep.lua; see cli.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "arch.h"
#include "sandbox.h"

/* simtlab sweep: call sweep.main{...} from lessons/lib/sweep.lua. */
int cli_run_sweep(const cli_opts_t *o)
{
    char path[1024];
    lua_State *L;
    int status;
    if (!o->param || !o->values)
        return cli_usage_error("%s", "'sweep' needs --param FIELD and --values A,B,... "
                                 "(e.g. --param sms --values 1,2,4)");
    if (arch_find_file("lessons/lib/sweep.lua", path, sizeof path) != 0) {
        fprintf(stderr, "simtlab: cannot find lessons/lib/sweep.lua (set SIMTLAB_HOME to the "
                        "simtlab directory)\n");
        return 1;
    }
    L = cli_new_state(NULL, 0, o);     /* require finds lessons/lib */
    if (!L)
        return 1;
    lua_pushcfunction(L, cli_msghandler);
    lua_getglobal(L, "require");
    lua_pushstring(L, "sweep");
    if (lua_pcall(L, 1, 1, 1) != LUA_OK) {
        fprintf(stderr, "simtlab: %s\n", lua_tostring(L, -1));
        sandbox_close(L);
        return 1;
    }
    lua_getfield(L, -1, "main");
    lua_newtable(L); /* the options */
    if (cli_push_sets(L, o) != 0) {
        sandbox_close(L);
        return 2;
    }
    lua_setfield(L, -2, "set");
    lua_pushstring(L, o->arch ? o->arch : "edu-tiny");
    lua_setfield(L, -2, "arch");
    lua_pushstring(L, o->param);
    lua_setfield(L, -2, "param");
    {
        /* the values must be numbers, and the field must take them */
        gpu_desc_t d;
        simt_err_t err;
        lua_Integer i, n;
        int opts = lua_gettop(L);
        cli_push_text_value(L, o->values);
        if (lua_type(L, -1) != LUA_TTABLE) { /* one value */
            lua_createtable(L, 1, 0);
            lua_insert(L, -2);
            lua_rawseti(L, -2, 1);
        }
        n = (lua_Integer)lua_rawlen(L, -1);
        for (i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            if (lua_type(L, -1) != LUA_TNUMBER) {
                sandbox_close(L);
                return cli_usage_error("--values must be numbers separated by commas, got '%s'",
                                   o->values);
            }
            lua_createtable(L, 0, 1);
            lua_insert(L, -2);
            lua_setfield(L, -2, o->param);
            /* the whole GPU of this step must be valid: found now, as bad
             * usage, not as a traceback in the middle of the sweep */
            simt_err_clear(&err);
            lua_getfield(L, opts, "set");
            if (arch_load(L, o->arch ? o->arch : "edu-tiny", &d, &err) != 0
                || arch_apply_table(L, -1, &d, &err) != 0 || arch_apply_table(L, -2, &d, &err) != 0
                || gpu_desc_validate(&d, &err) != 0) {
                fprintf(stderr, "simtlab: --param %s --values: %s\n", o->param, err.msg);
                sandbox_close(L);
                return 2;
            }
            lua_pop(L, 2);
        }
        lua_setfield(L, -2, "values");
    }
    if (o->workload) {
        lua_pushstring(L, o->workload);
        lua_setfield(L, -2, "workload");
    }
    if (o->size) {
        if (lua_stringtonumber(L, o->size) == 0 || !lua_isinteger(L, -1)
            || lua_tointeger(L, -1) < 1) {
            sandbox_close(L);
            return cli_usage_error("--size needs a whole number >= 1, got '%s'", o->size);
        }
        lua_setfield(L, -2, "size");
    }
    if (o->out) {
        lua_pushstring(L, o->out);
        lua_setfield(L, -2, "out");
    }
    if (o->png) {
        lua_pushstring(L, o->png);
        lua_setfield(L, -2, "png");
    }
    status = sandbox_pcall(L, 1, 0, 1);
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "simtlab: %s\n", msg ? msg : "(error object is not a string)");
    }
    sandbox_close(L);
    return status == LUA_OK ? 0 : 1;
}
