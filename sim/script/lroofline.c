/* lroofline.c - simt.roofline{...} (see lroofline.h and sim/view/roofline.h). */
#include "lroofline.h"

#include <string.h>

#include <lauxlib.h>

#include "lstage.h"
#include "lutil.h"
#include "sandbox.h"

#ifdef SIMT_HAVE_VIEW
#include "roofline.h"

#define ANCHOR 2   /* stack index of the table that keeps strings alive */

/* Anchor the string on top of the stack (lutil_anchor_text) and pop it. */
static const char *anchor_string(lua_State *L)
{
    return lutil_anchor_text(L, ANCHOR);
}

/* Optional string field k of the table at index t (NULL if absent);
 * what names the table in the message. */
static const char *opt_string(lua_State *L, int t, const char *what, const char *k)
{
    const char *s = NULL;
    int ty = lua_getfield(L, t, k);
    if (ty == LUA_TSTRING)
        return anchor_string(L);
    else if (ty != LUA_TNIL)
        lutil_argerror(L, 1, "'%s%s' must be a string, got %s", what, k, luaL_typename(L, -1));
    lua_pop(L, 1);
    return s;
}

static int opt_int(lua_State *L, const char *k, int dflt)
{
    int v = dflt;
    if (lua_getfield(L, 1, k) != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 1000000)
            lutil_argerror(L, 1, "'%s' must be an integer from 0 to 1000000, got %s", k, luaL_typename(L, -1));
        v = (int)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* Number field k of the table at the stack top: required, a number. */
static double need_number(lua_State *L, const char *list, size_t i, const char *k)
{
    double v;
    if (lua_getfield(L, -1, k) != LUA_TNUMBER)
        lutil_argerror(L, 1, "'%s[%zu].%s' must be a number, got %s", list, i + 1, k,
                       luaL_typename(L, -1));
    v = (double)lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Name field of the table at the stack top: required, a string. */
static const char *need_name(lua_State *L, const char *list, size_t i)
{
    const char *s;
    if (lua_getfield(L, -1, "name") != LUA_TSTRING)
        lutil_argerror(L, 1, "'%s[%zu].name' must be a string, got %s", list, i + 1,
                       luaL_typename(L, -1));
    s = anchor_string(L);
    return s;
}

/* Push list field k of the argument; returns its length, within lo..hi. */
static size_t get_list(lua_State *L, const char *k, size_t lo, size_t hi, const char *example)
{
    size_t n;
    int ty = lua_getfield(L, 1, k);
    if (ty == LUA_TNIL && lo == 0) {
        lua_pop(L, 1);
        lua_newtable(L);
        return 0;
    }
    if (ty != LUA_TTABLE)
        lutil_argerror(L, 1, "'%s' must be a list like %s, got %s", k, example,
                       luaL_typename(L, -1));
    n = (size_t)lua_rawlen(L, -1);
    if (n < lo || n > hi)
        lutil_argerror(L, 1, "'%s' must hold %zu to %zu entries, got %zu", k, lo, hi, n);
    return n;
}

/* Make entry i of the list at the stack top the new stack top (a table). */
static void get_entry(lua_State *L, const char *list, size_t i)
{
    if (lua_rawgeti(L, -1, (lua_Integer)i + 1) != LUA_TTABLE)
        lutil_argerror(L, 1, "'%s[%zu]' must be a table, got %s", list, i + 1,
                       luaL_typename(L, -1));
}

/* simt.roofline{path=, title=, subtitle=, roofs={{name=, tflops=}, ...},
 *               bandwidths={{name=, tbs=}, ...},
 *               points={{name=, intensity=, tflops=}, ...}, width=, height=} */
static int l_roofline(lua_State *L)
{
    roofline_t rf;
    roofline_roof_t roofs[ROOFLINE_MAX_ROOFS];
    roofline_bw_t bws[ROOFLINE_MAX_BANDWIDTHS];
    roofline_point_t pts[ROOFLINE_MAX_POINTS];
    const char *path;
    size_t i, n;
    simt_err_t err;
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_newtable(L);   /* ANCHOR */
    memset(&rf, 0, sizeof rf);
    path = opt_string(L, 1, "", "path");
    const lstage_ops_t *stage = lstage_get(L);
    if (!path && !(stage && stage->roofline))
        return lutil_argerror(L, 1, "'path' (the PNG file to write) is required (without a stage to show it on)");
    rf.title = opt_string(L, 1, "", "title");
    rf.subtitle = opt_string(L, 1, "", "subtitle");
    rf.width = opt_int(L, "width", 1280);
    rf.height = opt_int(L, "height", 720);
    n = get_list(L, "roofs", 1, ROOFLINE_MAX_ROOFS, "{{name = \"FP32\", tflops = 67}}");
    for (i = 0; i < n; i++) {
        get_entry(L, "roofs", i);
        roofs[i].name = need_name(L, "roofs", i);
        roofs[i].tflops = need_number(L, "roofs", i, "tflops");
        lua_pop(L, 1);
    }
    rf.roofs = roofs;
    rf.nroofs = n;
    n = get_list(L, "bandwidths", 1, ROOFLINE_MAX_BANDWIDTHS, "{{name = \"DRAM\", tbs = 4.8}}");
    for (i = 0; i < n; i++) {
        get_entry(L, "bandwidths", i);
        bws[i].name = need_name(L, "bandwidths", i);
        bws[i].tbs = need_number(L, "bandwidths", i, "tbs");
        lua_pop(L, 1);
    }
    rf.bws = bws;
    rf.nbws = n;
    n = get_list(L, "points", 0, ROOFLINE_MAX_POINTS,
                 "{{name = \"naive\", intensity = 0.5, tflops = 2}}");
    for (i = 0; i < n; i++) {
        get_entry(L, "points", i);
        pts[i].name = need_name(L, "points", i);
        pts[i].intensity = need_number(L, "points", i, "intensity");
        pts[i].tflops = need_number(L, "points", i, "tflops");
        lua_pop(L, 1);
    }
    rf.points = pts;
    rf.npoints = n;
    simt_err_clear(&err);
    if (roofline_check(&rf, &err) != 0)
        return lutil_error(L, "%s", err.msg);
    if (stage && stage->roofline && stage->roofline(stage->self, &rf, &err) != 0)
        return lutil_error(L, "%s", err.msg);
    if (path) {   /* through the sandbox's rules: only into the output folder */
        char shown[1024];
        FILE *f = sandbox_open_write(L, path, shown, sizeof shown, &err);
        if (!f || roofline_save_png_file(&rf, f, shown, &err) != 0)
            return lutil_error(L, "%s%s", f ? "" : "roofline: ", err.msg);
    }
    return 0;
}

#else /* built without SDL2 */

static int l_roofline(lua_State *L)
{
    return lutil_error(L, "roofline: simtlab was built without SDL2 (install libsdl2-dev, "
                          "libsdl2-ttf-dev and libsdl2-image-dev, then rebuild)");
}

#endif

void lroofline_register(lua_State *L)
{
    lua_pushcfunction(L, l_roofline);
    lua_setfield(L, -2, "roofline");
}
