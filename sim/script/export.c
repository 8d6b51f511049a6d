/* export.c - save results as CSV or JSON (see export.h).
 *
 * Text is built as a Lua sequence of string pieces (so that a Lua error in
 * the middle leaks nothing), joined once, and written with one fwrite.
 */
#include "export.h"

#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lutil.h"
#include "sandbox.h"

#define EXPORT_MAX_DEPTH 32

/* A list of output pieces: a Lua table at a fixed stack index. */
typedef struct pieces {
    lua_State *L;
    int idx;          /* absolute stack index of the table  */
    lua_Integer n;    /* pieces so far                      */
} pieces_t;

static void put(pieces_t *p, const char *s)
{
    lua_pushstring(p->L, s);
    lua_rawseti(p->L, p->idx, ++p->n);
}

static void put_len(pieces_t *p, const char *s, size_t len)
{
    lua_pushlstring(p->L, s, len);
    lua_rawseti(p->L, p->idx, ++p->n);
}

/* Format a double with the fewest of 15..17 significant digits that read
 * back exactly (deterministic, and 0.1 stays "0.1"). */
static void fmt_double(double v, char *buf, size_t n)
{
    int prec;
    for (prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Format the number at idx into buf (integers exactly). Returns 0 if it is
 * not finite (buf then holds "nan", "inf" or "-inf"). */
static int fmt_number(lua_State *L, int idx, char *buf, size_t n)
{
    double v;
    if (lua_isinteger(L, idx)) {
        snprintf(buf, n, "%lld", (long long)lua_tointeger(L, idx));
        return 1;
    }
    v = (double)lua_tonumber(L, idx);
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return 0;
    }
    if (isinf(v)) {
        snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
        return 0;
    }
    fmt_double(v, buf, n);
    return 1;
}

/* Join the pieces at idx into one string, pushed. */
static void join_pieces(lua_State *L, int idx, lua_Integer n)
{
    luaL_Buffer b;
    lua_Integer i;
    luaL_buffinit(L, &b);
    for (i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
}

/* Write the string at the top of the stack (popped) to f, which is
 * closed; shown names it in messages. */
static int write_text(lua_State *L, FILE *f, const char *shown, simt_err_t *err)
{
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    int bad = fwrite(text, 1, len, f) != len;
    bad |= fclose(f) != 0;
    lua_pop(L, 1);
    if (bad)
        return simt_errf(err, SIMT_E_USAGE, "error writing '%s' (disk full?)", shown);
    return 0;
}

/* Write the string at the top of the stack (popped) to path. */
static int write_path(lua_State *L, const char *path, simt_err_t *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        lua_pop(L, 1);
        return simt_errf(err, SIMT_E_USAGE, "cannot write '%s'", path);
    }
    return write_text(L, f, path, err);
}

/* ---- CSV ----------------------------------------------------------------- */

/* Flatten table src into table dst: dst["prefix.key"] = scalar value. */
static void flatten(lua_State *L, int src, int dst, const char *prefix, int depth)
{
    luaL_checkstack(L, 8, "CSV: tables nested too deeply");
    src = lua_absindex(L, src);
    dst = lua_absindex(L, dst);
    lua_pushnil(L);
    while (lua_next(L, src) != 0) {
        char name[256], num[32];
        const char *k = NULL;
        int vt = lua_type(L, -1);
        if (lua_type(L, -2) == LUA_TSTRING) {
            k = lua_tostring(L, -2);
        } else if (lua_type(L, -2) == LUA_TNUMBER) {
            lua_pushvalue(L, -2); /* format a copy: never convert the key in place */
            fmt_number(L, -1, num, sizeof num);
            lua_pop(L, 1);
            k = num;
        }
        if (k) {
            snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "." : "", k);
            if (vt == LUA_TNUMBER || vt == LUA_TSTRING || vt == LUA_TBOOLEAN) {
                lua_pushvalue(L, -1);
                lua_setfield(L, dst, name);
            } else if (vt == LUA_TTABLE && depth < 4) {
                flatten(L, -1, dst, name, depth + 1);
            }
        }
        lua_pop(L, 1);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One CSV cell from the value on top of the stack (popped). */
static void put_cell(pieces_t *p)
{
    lua_State *L = p->L;
    char buf[64];
    int t = lua_type(L, -1);
    if (t == LUA_TNUMBER) {
        fmt_number(L, -1, buf, sizeof buf);
        lua_pop(L, 1);
        put(p, buf);
    } else if (t == LUA_TBOOLEAN) {
        int v = lua_toboolean(L, -1);
        lua_pop(L, 1);
        put(p, v ? "true" : "false");
    } else if (t == LUA_TSTRING) {
        size_t len, i;
        const char *s = lua_tolstring(L, -1, &len);
        /* a spreadsheet runs a cell that starts with = + - @ (or a tab or
         * CR before one) as a formula: such text is quoted and starts
         * with ' so that it stays text */
        int formula = len > 0 && strchr("=+-@\t\r", s[0]) != NULL;
        if (!formula && strcspn(s, ",\"\r\n") == len) {
            put_len(p, s, len);
        } else {
            luaL_Buffer b;
            luaL_buffinit(L, &b); /* buffer above the string: balanced use */
            luaL_addchar(&b, '"');
            if (formula)
                luaL_addchar(&b, '\'');
            for (i = 0; i < len; i++) {
                if (s[i] == '"')
                    luaL_addchar(&b, '"');
                luaL_addchar(&b, s[i]);
            }
            luaL_addchar(&b, '"');
            luaL_pushresult(&b);
            lua_rawseti(L, p->idx, ++p->n);
        }
        lua_pop(L, 1);
    } else {
        lua_pop(L, 1); /* missing: empty cell */
    }
}

/* Push the CSV text of the rows at idx (see export_csv), or return -1
 * with err filled and nothing pushed. */
static int csv_text(lua_State *L, int idx, const char *const *first, int nfirst, simt_err_t *err)
{
    int top = lua_gettop(L), flat, names_idx;
    luaL_checkstack(L, 16, "CSV: out of stack space");
    lua_Integer nrows, i;
    size_t ncols = 0, c, nsorted = 0;
    const char **cols;
    pieces_t p;
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        return simt_errf(err, SIMT_E_USAGE, "CSV rows must be a table of tables, got %s",
                         luaL_typename(L, idx));
    nrows = (lua_Integer)lua_rawlen(L, idx);
    /* flatten every row once: flat[i] = {name = value} */
    lua_createtable(L, (int)nrows, 0);
    flat = lua_gettop(L);
    lua_newtable(L); /* set of all names */
    names_idx = lua_gettop(L);
    for (i = 1; i <= nrows; i++) {
        if (lua_rawgeti(L, idx, i) != LUA_TTABLE) {
            simt_errf(err, SIMT_E_USAGE, "CSV row %lld must be a table, got %s", (long long)i,
                      luaL_typename(L, -1));
            lua_settop(L, top);
            return -1;
        }
        lua_newtable(L);
        flatten(L, -2, -1, "", 0);
        lua_pushnil(L);
        while (lua_next(L, -2) != 0) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushboolean(L, 1);
            lua_rawset(L, names_idx);
        }
        lua_rawseti(L, flat, i);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, names_idx) != 0) {
        lua_pop(L, 1);
        ncols++;
    }
    /* column order: the listed first names that occur, then the rest sorted */
    cols = (const char **)lua_newuserdatauv(L, (ncols ? ncols : 1) * sizeof *cols, 0);
    for (c = 0; c < (size_t)(nfirst > 0 ? nfirst : 0); c++) {
        int present;
        lua_getfield(L, names_idx, first[c]);
        present = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (present) {
            lua_pushboolean(L, 0); /* taken: not among the sorted rest */
            lua_setfield(L, names_idx, first[c]);
            cols[nsorted++] = first[c];
        }
    }
    {
        size_t rest = nsorted;
        lua_pushnil(L);
        while (lua_next(L, names_idx) != 0) {
            if (lua_toboolean(L, -1))
                cols[rest++] = lua_tostring(L, -2); /* kept alive by names */
            lua_pop(L, 1);
        }
        qsort(cols + nsorted, rest - nsorted, sizeof *cols, cmp_str);
        ncols = rest;
    }
    lua_newtable(L);
    p.L = L;
    p.idx = lua_gettop(L);
    p.n = 0;
    for (c = 0; c < ncols; c++) {
        lua_pushstring(L, cols[c]);
        put_cell(&p);
        put(&p, c + 1 < ncols ? "," : "\n");
    }
    for (i = 1; i <= nrows; i++) {
        lua_rawgeti(L, flat, i);
        for (c = 0; c < ncols; c++) {
            lua_getfield(L, -1, cols[c]);
            put_cell(&p);
            put(&p, c + 1 < ncols ? "," : "\n");
        }
        lua_pop(L, 1);
    }
    join_pieces(L, p.idx, p.n);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return 0;
}

int export_csv(lua_State *L, int idx, const char *path, const char *const *first,
               int nfirst, simt_err_t *err)
{
    luaL_checkstack(L, 16, "CSV: out of stack space");
    idx = lua_absindex(L, idx);
    if (csv_text(L, idx, first, nfirst, err) != 0)
        return -1;
    return write_path(L, path, err);
}

/* ---- JSON ---------------------------------------------------------------- */

static void put_json_string(pieces_t *p, const char *s, size_t len)
{
    lua_State *L = p->L;
    luaL_Buffer b;
    size_t need = json_quote(NULL, 0, s, len);   /* sim/io/json.h: the one escaper */
    char *out = luaL_buffinitsize(L, &b, need + 1);
    json_quote(out, need + 1, s, len);
    luaL_pushresultsize(&b, need);
    lua_rawseti(L, p->idx, ++p->n);
}

static int json_value(pieces_t *p, int idx, int depth, simt_err_t *err);

/* 1 if the table at idx has exactly the keys 1..n (n >= 0). */
static int is_array(lua_State *L, int idx)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
            lua_pop(L, 1);
            return 0;
        }
        count++;
    }
    return count == n;
}

/* The value types an object member may have. */
static int json_storable(int t)
{
    return t == LUA_TNIL || t == LUA_TBOOLEAN || t == LUA_TNUMBER || t == LUA_TSTRING
           || t == LUA_TTABLE;
}

static int json_table(pieces_t *p, int idx, int depth, simt_err_t *err)
{
    lua_State *L = p->L;
    lua_Integer i, n;
    size_t nkeys = 0, k;
    const char **keys;
    int keytab;
    if (depth >= EXPORT_MAX_DEPTH)
        return simt_errf(err, SIMT_E_USAGE, "JSON: tables nested more than %d deep (a cycle?)",
                         EXPORT_MAX_DEPTH);
    luaL_checkstack(L, 8, "JSON: tables nested too deeply"); /* a few slots per level */
    if (is_array(L, idx)) {
        n = (lua_Integer)lua_rawlen(L, idx);
        put(p, "[");
        for (i = 1; i <= n; i++) {
            int rc;
            lua_rawgeti(L, idx, i);
            rc = json_value(p, lua_gettop(L), depth + 1, err);
            lua_pop(L, 1);
            if (rc)
                return -1;
            if (i < n)
                put(p, ",");
        }
        put(p, "]");
        return 0;
    }
    /* object: key text -> value, keys sorted */
    lua_newtable(L);
    keytab = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        char num[32];
        if (!json_storable(lua_type(L, -1))) {
            lua_pop(L, 1);
            continue;
        }
        if (lua_type(L, -2) == LUA_TSTRING) {
            lua_pushvalue(L, -2);
        } else if (lua_type(L, -2) == LUA_TNUMBER) {
            lua_pushvalue(L, -2);
            fmt_number(L, -1, num, sizeof num);
            lua_pop(L, 1);
            lua_pushstring(L, num);
        } else {
            simt_errf(err, SIMT_E_USAGE, "JSON: object keys must be strings or numbers, got %s",
                      luaL_typename(L, -2));
            lua_settop(L, keytab - 1);
            return -1;
        }
        lua_insert(L, -2);
        lua_rawset(L, keytab);
        nkeys++;
    }
    keys = (const char **)lua_newuserdatauv(L, (nkeys ? nkeys : 1) * sizeof *keys, 0);
    k = 0;
    lua_pushnil(L);
    while (lua_next(L, keytab) != 0) {
        lua_pop(L, 1);
        keys[k++] = lua_tostring(L, -1); /* kept alive by keytab */
    }
    nkeys = k;
    qsort(keys, nkeys, sizeof *keys, cmp_str);
    put(p, "{");
    for (k = 0; k < nkeys; k++) {
        int rc;
        put_json_string(p, keys[k], strlen(keys[k]));
        put(p, ":");
        lua_getfield(L, keytab, keys[k]);
        rc = json_value(p, lua_gettop(L), depth + 1, err);
        lua_pop(L, 1);
        if (rc) {
            lua_settop(L, keytab - 1);
            return -1;
        }
        if (k + 1 < nkeys)
            put(p, ",");
    }
    put(p, "}");
    lua_settop(L, keytab - 1);
    return 0;
}

static int json_value(pieces_t *p, int idx, int depth, simt_err_t *err)
{
    lua_State *L = p->L;
    char buf[64];
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
        put(p, lua_toboolean(L, idx) ? "true" : "false");
        return 0;
    case LUA_TNUMBER:
        lua_pushvalue(L, idx);
        put(p, fmt_number(L, -1, buf, sizeof buf) ? buf : "null");
        lua_pop(L, 1);
        return 0;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        put_json_string(p, s, len);
        return 0;
    }
    case LUA_TTABLE:
        return json_table(p, idx, depth, err);
    default:
        put(p, "null");
        return 0;
    }
}

/* Push the JSON text of the value at idx, or return -1 with err filled
 * and nothing pushed. */
static int json_text(lua_State *L, int idx, simt_err_t *err)
{
    int top = lua_gettop(L), rc;
    pieces_t p;
    luaL_checkstack(L, 8, "JSON: out of stack space");
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    p.L = L;
    p.idx = lua_gettop(L);
    p.n = 0;
    rc = json_value(&p, idx, 0, err);
    if (rc != 0) {
        lua_settop(L, top);
        return -1;
    }
    put(&p, "\n");
    join_pieces(L, p.idx, p.n);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return 0;
}

int export_json(lua_State *L, int idx, const char *path, simt_err_t *err)
{
    if (json_text(L, lua_absindex(L, idx), err) != 0)
        return -1;
    return write_path(L, path, err);
}

/* Write the text on top of the stack (popped) to the file a script named,
 * through the sandbox's output-folder rules. */
static int write_script_file(lua_State *L, const char *name, simt_err_t *err)
{
    char shown[1024];
    FILE *f = sandbox_open_write(L, name, shown, sizeof shown, err);
    if (!f) {
        lua_pop(L, 1);
        return -1;
    }
    return write_text(L, f, shown, err);
}

/* ---- Lua functions --------------------------------------------------------- */

/* simt.save_csv(path, rows [, {columns = {"name", ...}}]) */
static int l_save_csv(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *first[64];
    int nfirst = 0;
    simt_err_t err;
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 3);   /* the columns table lands at 4, their copy at 5 */
    if (!lua_isnoneornil(L, 3)) {
        lua_Integer i, n;
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_getfield(L, 3, "columns") != LUA_TNIL) {
            if (lua_type(L, -1) != LUA_TTABLE)
                return lutil_argerror(L, 3, "'columns' must be a list of names, got %s",
                                      luaL_typename(L, -1));
            n = (lua_Integer)lua_rawlen(L, -1);
            if (n > 64)
                return lutil_argerror(L, 3, "at most 64 'columns', got %lld", (long long)n);
            /* the names are kept by a table of our own: the script's table
             * could lose them while the rows are read */
            lua_createtable(L, (int)n, 0);
            for (i = 1; i <= n; i++) {
                if (lua_rawgeti(L, 4, i) != LUA_TSTRING)
                    return lutil_argerror(L, 3, "columns[%lld] must be a string, got %s",
                                          (long long)i, luaL_typename(L, -1));
                first[nfirst++] = lua_tostring(L, -1);
                lua_rawseti(L, 5, i);
            }
        }
    }
    simt_err_clear(&err);
    if (csv_text(L, 2, first, nfirst, &err) != 0 || write_script_file(L, path, &err) != 0)
        return lutil_error(L, "save_csv: %s", err.msg);
    return 0;
}

/* simt.save_json(path, value) */
static int l_save_json(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    simt_err_t err;
    luaL_checkany(L, 2);
    simt_err_clear(&err);
    if (json_text(L, 2, &err) != 0 || write_script_file(L, path, &err) != 0)
        return lutil_error(L, "save_json: %s", err.msg);
    return 0;
}

void export_register(lua_State *L)
{
    lua_pushcfunction(L, l_save_csv);
    lua_setfield(L, -2, "save_csv");
    lua_pushcfunction(L, l_save_json);
    lua_setfield(L, -2, "save_json");
}
