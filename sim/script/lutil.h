/* lutil.h - printf-style Lua errors for the binding (sim/script only).
 *
 * lua_pushfstring and luaL_error understand only a few formats (%d %s %f
 * %I %p %c %U %%); these helpers format with vsnprintf first, so %g, %lld,
 * %zu and %08x work and the compiler checks the arguments.
 */
#ifndef SIMT_LUTIL_H
#define SIMT_LUTIL_H

#include <lua.h>

#if defined(__GNUC__)
#define LUTIL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define LUTIL_PRINTF(f, a)
#endif

/* Raise a Lua error "where: message" (like luaL_error); never returns. */
int lutil_error(lua_State *L, const char *fmt, ...) LUTIL_PRINTF(2, 3);

/* Raise "bad argument #arg to 'f' (message)" (like luaL_argerror). */
int lutil_argerror(lua_State *L, int arg, const char *fmt, ...) LUTIL_PRINTF(3, 4);

#endif
