/* lchart.c - simt.chart{...} (see lchart.h and sim/view/chart.h). */
#include "lchart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lutil.h"
#include "sandbox.h"

#ifdef SIMT_HAVE_VIEW
#include "chart.h"

#define ANCHOR 2   /* stack index of the table that keeps strings alive */

/* Anchor the string on top of the stack (lutil_anchor_text) and pop it. */
static const char *anchor_string(lua_State *L)
{
    return lutil_anchor_text(L, ANCHOR);
}

/* Optional string field k of the table at 1 (NULL if absent). */
static const char *opt_string(lua_State *L, const char *k)
{
    const char *s = NULL;
    int t = lua_getfield(L, 1, k);
    if (t == LUA_TSTRING)
        return anchor_string(L);
    else if (t != LUA_TNIL)
        lutil_argerror(L, 1, "'%s' must be a string, got %s", k, luaL_typename(L, -1));
    lua_pop(L, 1);
    return s;
}

static int opt_int(lua_State *L, const char *k, int dflt)
{
    int v = dflt;
    int t = lua_getfield(L, 1, k);
    if (t != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 1000000)
            lutil_argerror(L, 1, "'%s' must be an integer from 0 to 1000000, got %s", k, luaL_typename(L, -1));
        v = (int)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* Read the number list at stack top (n entries) into out; what names it. */
static void read_numbers(lua_State *L, double *out, size_t n, const char *what)
{
    size_t i;
    for (i = 0; i < n; i++) {
        int t = lua_rawgeti(L, -1, (lua_Integer)i + 1);
        if (t == LUA_TNUMBER)
            out[i] = (double)lua_tonumber(L, -1);
        else if (t == LUA_TNIL || t == LUA_TBOOLEAN) /* nil / false: a gap */
            out[i] = nan("");
        else
            lutil_argerror(L, 1, "%s[%zu] must be a number, got %s", what, i + 1,
                           luaL_typename(L, -1));
        lua_pop(L, 1);
    }
}

/* simt.chart{path=, title=, x_label=, y_label=, x={...},
 *            series={{name=, y={...}}, ...}, log_x=, width=, height=} */
static int l_chart(lua_State *L)
{
    chart_t c;
    chart_series_t series[CHART_MAX_SERIES];
    const char *path;
    double *x, *ys;
    size_t n, ns, k;
    simt_err_t err;
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_newtable(L);   /* ANCHOR */
    memset(&c, 0, sizeof c);
    path = opt_string(L, "path");
    if (!path)
        return lutil_argerror(L, 1, "'path' (the PNG file to write) is required");
    c.title = opt_string(L, "title");
    c.x_label = opt_string(L, "x_label");
    c.y_label = opt_string(L, "y_label");
    c.font_path = opt_string(L, "font");
    if (c.font_path) {   /* a font is a file the script reads */
        char real[1024];
        simt_err_clear(&err);
        if (sandbox_check_read(L, c.font_path, real, sizeof real, &err) != 0)
            return lutil_error(L, "chart: font: %s", err.msg);
        lua_pushstring(L, real);
        c.font_path = anchor_string(L);
    }
    c.width = opt_int(L, "width", 800);
    c.height = opt_int(L, "height", 500);
    lua_getfield(L, 1, "log_x");
    c.log_x = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "x") != LUA_TTABLE)
        return lutil_argerror(L, 1, "'x' must be a list of numbers, got %s",
                              luaL_typename(L, -1));
    n = (size_t)lua_rawlen(L, -1);
    if (n < 1)
        return lutil_argerror(L, 1, "'x' is empty");
    if (lua_getfield(L, 1, "series") != LUA_TTABLE)
        return lutil_argerror(L, 1, "'series' must be a list like {{name = \"a\", y = {...}}}, "
                                    "got %s", luaL_typename(L, -1));
    ns = (size_t)lua_rawlen(L, -1);
    if (ns < 1 || ns > CHART_MAX_SERIES)
        return lutil_argerror(L, 1, "'series' must hold 1 to %d series, got %zu",
                              CHART_MAX_SERIES, ns);
    /* one scratch userdata (freed by the GC) for x and every y */
    x = (double *)lua_newuserdatauv(L, (ns + 1) * n * sizeof *x, 0);
    ys = x + n;
    lua_pushvalue(L, -3);
    read_numbers(L, x, n, "x");
    lua_pop(L, 1);
    for (k = 0; k < ns; k++) {
        char what[32];
        if (lua_rawgeti(L, -2, (lua_Integer)k + 1) != LUA_TTABLE)
            return lutil_argerror(L, 1, "series[%zu] must be a table {name =, y =}, got %s",
                                  k + 1, luaL_typename(L, -1));
        if (lua_getfield(L, -1, "name") == LUA_TSTRING) {
            series[k].name = anchor_string(L);
        } else if (lua_isnil(L, -1)) {
            series[k].name = NULL;
            lua_pop(L, 1);
        } else {
            return lutil_argerror(L, 1, "series[%zu].name must be a string, got %s", k + 1,
                                  luaL_typename(L, -1));
        }
        if (lua_getfield(L, -1, "y") != LUA_TTABLE)
            return lutil_argerror(L, 1, "series[%zu].y must be a list of numbers, got %s", k + 1,
                                  luaL_typename(L, -1));
        if ((size_t)lua_rawlen(L, -1) != n)
            return lutil_argerror(L, 1, "series[%zu].y has %zu values but x has %zu", k + 1,
                                  (size_t)lua_rawlen(L, -1), n);
        snprintf(what, sizeof what, "series[%zu].y", k + 1);
        read_numbers(L, ys + k * n, n, what);
        series[k].y = ys + k * n;
        lua_pop(L, 2);
    }
    c.x = x;
    c.n = n;
    c.series = series;
    c.nseries = ns;
    simt_err_clear(&err);
    {
        char shown[1024];
        FILE *f = sandbox_open_write(L, path, shown, sizeof shown, &err);
        if (!f || chart_save_png_file(&c, f, shown, &err) != 0)
            return lutil_error(L, "%s%s", f ? "" : "chart: ", err.msg);
    }
    return 0;
}

#else /* built without SDL2 */

static int l_chart(lua_State *L)
{
    return lutil_error(L, "chart: simtlab was built without SDL2 (install libsdl2-dev, "
                          "libsdl2-ttf-dev and libsdl2-image-dev, then rebuild)");
}

#endif

void lchart_register(lua_State *L)
{
    lua_pushcfunction(L, l_chart);
    lua_setfield(L, -2, "chart");
}
