/* lutil.c - printf-style Lua errors (see lutil.h). */
#include "lutil.h"

#include <stdarg.h>
#include <stdio.h>

#include <lauxlib.h>

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
