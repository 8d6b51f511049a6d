/* lfields.c - the field-table engine (see lfields.h). */
#include "lfields.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

/* Levenshtein distance of two short strings (names up to 63 chars). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t row[64];
    if (la > 63 || lb > 63)
        return 64;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *lfields_closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3, i;
    for (i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < best_d && d < strlen(word)) {
            best = cands[i];
            best_d = d;
        }
    }
    return best;
}

static int in_list(const char *k, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(k, *list) == 0)
            return 1;
    return 0;
}

int lfields_unknown_key(lua_State *L, int idx, const char *const *names, size_t n,
                        const char *const *extra, char *out, size_t outn)
{
    int found = 0;   /* 0: none yet, 1: a string key, 2: a non-string key */
    idx = lua_absindex(L, idx);
    out[0] = '\0';
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1); /* value */
        if (lua_type(L, -1) != LUA_TSTRING) {   /* a non-string key is reported first */
            if (found != 2)
                snprintf(out, outn, "%s", luaL_typename(L, -1));
            found = 2;
            continue;
        }
        const char *k = lua_tostring(L, -1);
        int known = in_list(k, extra);
        for (size_t i = 0; !known && i < n; i++)
            known = strcmp(k, names[i]) == 0;
        if (!known && (found == 0 || (found == 1 && strcmp(k, out) < 0))) {
            snprintf(out, outn, "%s", k);
            found = 1;
        }
    }
    return found;
}

/* Read an integer in [lo, hi] from the value at idx (integral floats such
 * as 141e9 are accepted). */
static int get_int(lua_State *L, int idx, const char *what, const char *name, lua_Integer lo,
                   lua_Integer hi, lua_Integer *out, simt_err_t *err)
{
    int isnum = 0;
    lua_Integer v;
    if (lua_type(L, idx) != LUA_TNUMBER)
        return simt_errf(err, SIMT_E_USAGE, "%s field '%s' expects an integer, got %s", what, name,
                         luaL_typename(L, idx));
    v = lua_tointegerx(L, idx, &isnum);
    if (!isnum)
        return simt_errf(err, SIMT_E_USAGE, "%s field '%s' expects an integer, got %g", what, name,
                         (double)lua_tonumber(L, idx));
    if (v < lo || v > hi)
        return simt_errf(err, SIMT_E_USAGE, "%s field '%s' must be between %lld and %lld, got %lld",
                         what, name, (long long)lo, (long long)hi, (long long)v);
    *out = v;
    return 0;
}

/* Set an LF_ENUM field from the word on top of the stack. */
static int set_enum(lua_State *L, const char *what, const lfield_t *f, char *p, simt_err_t *err)
{
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    char list[256] = "";
    size_t used = 0, nw = 0;
    for (int v = 0; f->words[v]; v++) {
        if (s && strcmp(s, f->words[v]) == 0) {
            memcpy(p, &v, sizeof v);   /* enums are int-sized here (lfields.h) */
            return 0;
        }
        nw++;
    }
    for (size_t i = 0; i < nw && used < sizeof list; i++)   /* "a", "b" or "c" */
        used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"",
                                 i == 0 ? "" : i + 1 == nw ? " or " : ", ", f->words[i]);
    return simt_errf(err, SIMT_E_USAGE, "%s field '%s' expects %s, got %s%s%s", what, f->name, list,
                     s ? "'" : "", s ? s : luaL_typename(L, -1), s ? "'" : "");
}

/* Set one field from the value on top of the stack. */
static int set_field(lua_State *L, const char *what, const lfield_t *f, void *obj, simt_err_t *err)
{
    char *p = (char *)obj + f->offset;
    lua_Integer v;
    switch (f->kind) {
    case LF_STR: {
        size_t len;
        if (lua_type(L, -1) != LUA_TSTRING)
            return simt_errf(err, SIMT_E_USAGE, "%s field '%s' expects a string, got %s", what, f->name,
                             luaL_typename(L, -1));
        const char *s = lua_tolstring(L, -1, &len);
        if (len >= f->size)
            return simt_errf(err, SIMT_E_USAGE, "%s field '%s' is too long (%zu characters, at most %zu)",
                             what, f->name, len, f->size - 1);
        memcpy(p, s, len + 1);
        return 0;
    }
    case LF_FLAG:   /* true/false, or an integer as LF_U32 */
    case LF_U32: {
        if (f->kind == LF_FLAG && lua_type(L, -1) == LUA_TBOOLEAN)
            v = lua_toboolean(L, -1);
        else if (get_int(L, -1, what, f->name, 0, (lua_Integer)UINT32_MAX, &v, err))
            return -1;
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, sizeof u);
        return 0;
    }
    case LF_U64: {
        if (get_int(L, -1, what, f->name, 0, LUA_MAXINTEGER, &v, err))
            return -1;
        uint64_t u = (uint64_t)v;
        memcpy(p, &u, sizeof u);
        return 0;
    }
    case LF_DBL: {
        if (lua_type(L, -1) != LUA_TNUMBER)
            return simt_errf(err, SIMT_E_USAGE, "%s field '%s' expects a number, got %s", what, f->name,
                             luaL_typename(L, -1));
        double x = (double)lua_tonumber(L, -1);
        memcpy(p, &x, sizeof x);
        return 0;
    }
    case LF_ENUM:
        return set_enum(L, what, f, p, err);
    case LF_U32X3: {
        uint32_t tmp[3];
        if (lua_type(L, -1) != LUA_TTABLE || luaL_len(L, -1) != 3)
            return simt_errf(err, SIMT_E_USAGE, "%s field '%s' expects a table of 3 integers, got %s", what,
                             f->name, luaL_typename(L, -1));
        for (int i = 0; i < 3; i++) {
            lua_rawgeti(L, -1, i + 1);
            int rc = get_int(L, -1, what, f->name, 0, (lua_Integer)UINT32_MAX, &v, err);
            lua_pop(L, 1);
            if (rc)
                return -1;
            tmp[i] = (uint32_t)v;
        }
        memcpy(p, tmp, sizeof tmp);
        return 0;
    }
    }
    return simt_errf(err, SIMT_E_USAGE, "%s field '%s' has an unknown kind", what, f->name);
}

/* Fail with the unknown-key message when the table at idx has a key that
 * is not a field, an alias or a skipped key. */
static int check_keys(lua_State *L, int idx, const lfields_t *t, simt_err_t *err)
{
    const char *names[128];
    char bad[128];
    size_t n = t->n < 128 ? t->n : 128;
    for (size_t i = 0; i < n; i++)
        names[i] = t->fields[i].name;
    const char *extra[32];   /* the skipped keys and the aliases */
    size_t ne = 0;
    for (const char *const *k = t->skip; k && *k && ne < 31; k++)
        extra[ne++] = *k;
    for (const char *const *a = t->alias; a && *a && ne < 31; a += 2)
        extra[ne++] = a[0];
    extra[ne] = NULL;
    int found = lfields_unknown_key(L, idx, names, n, extra, bad, sizeof bad);
    if (found == 0)
        return 0;
    if (found == 2)
        return simt_errf(err, SIMT_E_USAGE, "%s description keys must be field names, got a %s key", t->what,
                         bad);
    const char *hint = lfields_closest(bad, names, n);
    if (hint)
        return simt_errf(err, SIMT_E_USAGE, "unknown %s field '%s' (did you mean '%s'?)", t->what, bad, hint);
    return simt_errf(err, SIMT_E_USAGE, "unknown %s field '%s' (see %s for the field names)", t->what, bad,
                     t->see);
}

int lfields_apply(lua_State *L, int idx, const lfields_t *t, void *obj, simt_err_t *err)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        return simt_errf(err, SIMT_E_USAGE, "%s description must be a table, got %s", t->what,
                         luaL_typename(L, idx));
    if (check_keys(L, idx, t, err))
        return -1;
    /* fields in declaration order: deterministic, whatever the hash order */
    for (size_t i = 0; i < t->n; i++) {
        const lfield_t *f = &t->fields[i];
        int rc = 0;
        if (lua_getfield(L, idx, f->name) != LUA_TNIL)
            rc = set_field(L, t->what, f, obj, err);
        lua_pop(L, 1);
        for (const char *const *a = t->alias; rc == 0 && a && *a; a += 2) {
            if (strcmp(a[1], f->name) != 0)
                continue;
            if (lua_getfield(L, idx, a[0]) != LUA_TNIL)
                rc = set_field(L, t->what, f, obj, err);
            lua_pop(L, 1);
        }
        if (rc)
            return -1;
    }
    return 0;
}

void lfields_push(lua_State *L, const lfields_t *t, const void *obj)
{
    lua_createtable(L, 0, (int)t->n);
    for (size_t i = 0; i < t->n; i++) {
        const lfield_t *f = &t->fields[i];
        const char *p = (const char *)obj + f->offset;
        switch (f->kind) {
        case LF_STR:
            lua_pushstring(L, p);
            break;
        case LF_U32:
        case LF_FLAG: {
            uint32_t u;
            memcpy(&u, p, sizeof u);
            lua_pushinteger(L, (lua_Integer)u);
            break;
        }
        case LF_U64: {
            uint64_t u;
            memcpy(&u, p, sizeof u);
            lua_pushinteger(L, (lua_Integer)u);
            break;
        }
        case LF_DBL: {
            double x;
            memcpy(&x, p, sizeof x);
            lua_pushnumber(L, x);
            break;
        }
        case LF_ENUM: {
            int v, nw = 0;
            memcpy(&v, p, sizeof v);
            while (f->words[nw])
                nw++;
            lua_pushstring(L, f->words[v > 0 && v < nw ? v : 0]);
            break;
        }
        case LF_U32X3:
            lua_createtable(L, 3, 0);
            for (int j = 0; j < 3; j++) {
                uint32_t u;
                memcpy(&u, p + j * sizeof u, sizeof u);
                lua_pushinteger(L, (lua_Integer)u);
                lua_rawseti(L, -2, j + 1);
            }
            break;
        }
        lua_setfield(L, -2, f->name);
    }
}
