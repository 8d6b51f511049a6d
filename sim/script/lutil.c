/* lutil.c - printf-style Lua errors (see lutil.h). */
#include "lutil.h"

#include <stdarg.h>
#include <stdio.h>

#include <lauxlib.h>

#include "sandbox.h"

int lutil_error(lua_State *L, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return luaL_error(L, "%s", buf);
}

int lutil_argerror(lua_State *L, int arg, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return luaL_argerror(L, arg, lua_pushstring(L, buf));
}

const char *lutil_anchor_text(lua_State *L, int anchor)
{
    const char *s = lua_tostring(L, -1);
    sandbox_charge_work(L, (uint64_t)SANDBOX_TEXT_WORK * lua_rawlen(L, -1));   /* text drawn */
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    return s;
}

void lutil_set_int(lua_State *L, const char *k, uint64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, k);
}

void lutil_set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

void lutil_desc_arg(lua_State *L, const char *example)
{
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    } else if (lua_type(L, 1) == LUA_TSTRING) {
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, 1);
        lua_setfield(L, -2, "arch");
        lua_replace(L, 1);
    } else if (lua_type(L, 1) != LUA_TTABLE) {
        luaL_typeerror(L, 1, example);
    }
    lua_settop(L, 1);
}

void lutil_new_class(lua_State *L, const char *name, lua_CFunction gc, lua_CFunction tostr,
                     lua_CFunction index, const luaL_Reg *methods)
{
    luaL_newmetatable(L, name);
    /* closed: getmetatable returns the class name, so a script can
     * neither call __gc by hand nor change a metamethod */
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__metatable");
    if (gc) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pushcfunction(L, tostr);
    lua_setfield(L, -2, "__tostring");
    if (index) {
        lua_newtable(L);
        if (methods)
            luaL_setfuncs(L, methods, 0);
        lua_pushcclosure(L, index, 1);
        lua_setfield(L, -2, "__index");
    }
    lua_pop(L, 1);
}

int lutil_index_method(lua_State *L, const char **key)
{
    *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    if (!*key)
        return 0;
    lua_pushvalue(L, lua_upvalueindex(1));
    if (lua_getfield(L, -1, *key) != LUA_TNIL)
        return 1;
    lua_pop(L, 2);
    return 0;
}
