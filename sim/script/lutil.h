/* lutil.h - small helpers shared by the Lua binding (sim/script only):
 * printf-style Lua errors, userdata classes, result-table fields.
 *
 * lua_pushfstring and luaL_error understand only a few formats (%d %s %f
 * %I %p %c %U %%); the error helpers format with vsnprintf first, so %g,
 * %lld, %zu and %08x work and the compiler checks the arguments.
 */
#ifndef SIMT_LUTIL_H
#define SIMT_LUTIL_H

#include <stdint.h>

#include <lua.h>
#include <lauxlib.h>

#if defined(__GNUC__)
#define LUTIL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define LUTIL_PRINTF(f, a)
#endif

/* Raise a Lua error "where: message" (like luaL_error); never returns. */
int lutil_error(lua_State *L, const char *fmt, ...) LUTIL_PRINTF(2, 3);

/* Raise "bad argument #arg to 'f' (message)" (like luaL_argerror). */
int lutil_argerror(lua_State *L, int arg, const char *fmt, ...) LUTIL_PRINTF(3, 4);

/* Normalise argument 1 of simt.gpu / simt.cpu to a description table:
 * nothing -> {}, "name" -> {arch = "name"}, a table stays; anything else
 * raises an argument error expecting `example`. Leaves the table alone at
 * stack index 1. */
void lutil_desc_arg(lua_State *L, const char *example);

/* Register metatable `name` for a userdata class: __gc (may be NULL),
 * __tostring, and __index = index(self, key) with a table of `methods` as
 * its upvalue (no __index when index is NULL). The metatable is closed
 * (__metatable = name): getmetatable(obj) returns the name, so scripts
 * cannot call __gc by hand. Leaves the stack as it was. */
void lutil_new_class(lua_State *L, const char *name, lua_CFunction gc, lua_CFunction tostr,
                     lua_CFunction index, const luaL_Reg *methods);

/* The first step of such an __index(self, key): if key names a method,
 * push it and return 1 (the caller returns 1); else return 0 with *key
 * set to the key string, or NULL if the key is not a string (the caller
 * then looks up its fields). */
int lutil_index_method(lua_State *L, const char **key);

/* Pop the string on top of the stack into the table at index anchor
 * (a table of the C function's own, so that the text stays alive until
 * it returns: the script's tables could lose it while later fields are
 * read) and return its text; the bytes count as text drawn against the
 * watchdog (SANDBOX_TEXT_WORK each). */
const char *lutil_anchor_text(lua_State *L, int anchor);

/* t[k] = v for the table on top of the stack. */
void lutil_set_int(lua_State *L, const char *k, uint64_t v);
void lutil_set_num(lua_State *L, const char *k, double v);

#endif
