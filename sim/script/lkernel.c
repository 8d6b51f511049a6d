/* lkernel.c - kernels and their arguments for Lua (see lkernel.h): the
 * simt.kernel userdata (an assembled program), simt.f32 / simt.i32 and
 * how a launch turns its Lua arguments into the kernel's 32-bit words.
 * The userdata's layout is known here only: the GPU, CPU and node
 * launches reach its program through lkernel_check.
 */
#include "lkernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "arch.h"
#include "asm.h"
#include "lutil.h"
#include "sandbox.h"
#include "tensor.h"

#define KERNEL_MT "simt.kernel"
#define SCALAR_MT "simt.scalar"

/* A kernel object: an assembled program. */
typedef struct lkernel {
    isa_program_t prog;  /* owned once loaded                       */
    int loaded;          /* 1 after a successful assembly           */
    uint64_t charged;    /* host bytes counted against the sandbox's cap */
} lkernel_t;

/* simt.f32(x) / simt.i32(x): a number with a forced kernel encoding. */
typedef struct lscalar {
    uint32_t bits;       /* the 32 bits passed to the kernel         */
    int is_float;        /* 1: f32, 0: i32                           */
    double value;        /* the Lua number, for printing             */
} lscalar_t;

#define KERNEL_MAX_BYTES (4u << 20)   /* largest kernel file simt.kernel reads */

/* simt.kernel(path): assemble; relative paths not found from the current
 * directory are looked up on the search path (arch.h). In the sandbox
 * only regular files in the folders it allows are read (sandbox.h).
 * Assembler errors are raised unchanged (they carry file:line:col). */
/* The folder of the Lua file that called us (out: "." for a file in the
 * current folder); -1 when the caller is not a file (a string chunk, C). */
static int caller_dir(lua_State *L, char *out, size_t n)
{
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar) || !lua_getinfo(L, "S", &ar) || ar.source[0] != '@')
        return -1;
    const char *file = ar.source + 1, *slash = strrchr(file, '/');
    int len = slash ? snprintf(out, n, "%.*s", (int)(slash - file), file) : snprintf(out, n, ".");
    return len > 0 && (size_t)len < n ? 0 : -1;
}

/* simt.kernel(path): a relative path is looked for beside the script that
 * calls it first (as require finds its modules), then from the current
 * folder, then in simtlab's folders (arch_find_file). */
int lkernel_new(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char found[1024], dir[1024];
    lkernel_t *K;
    simt_err_t err, err2;
    const char *src;
    size_t len;
    lua_settop(L, 1);
    simt_err_clear(&err);
    if (path[0] != '/' && caller_dir(L, dir, sizeof dir) == 0 && strcmp(dir, ".") != 0) {
        int n = snprintf(found, sizeof found, "%s/%s", dir, path);
        if (n > 0 && (size_t)n < sizeof found &&
            sandbox_push_file(L, found, KERNEL_MAX_BYTES, NULL, 0, &err2) == 0) {
            path = lua_pushstring(L, found);   /* the name errors and listings show */
            lua_insert(L, -2);
            goto assemble;
        }
    }
    if (sandbox_push_file(L, path, KERNEL_MAX_BYTES, NULL, 0, &err) != 0) {
        simt_err_clear(&err2);
        if (path[0] == '/' || arch_find_file(path, found, sizeof found) != 0)
            return lutil_error(L, "simt.kernel: %s", err.msg);
        if (sandbox_push_file(L, found, KERNEL_MAX_BYTES, NULL, 0, &err2) != 0)
            return lutil_error(L, "simt.kernel: %s", err2.msg);
        path = lua_pushstring(L, found);
        lua_insert(L, -2);
    }
assemble:
    src = lua_tolstring(L, -1, &len);   /* the text stays on the stack */
    K = (lkernel_t *)lua_newuserdatauv(L, sizeof *K, 0);
    memset(K, 0, sizeof *K);
    luaL_setmetatable(L, KERNEL_MT);
    simt_err_clear(&err);
    if (asm_assemble(src, len, path, &K->prog, &err) != 0) {
        lua_pushstring(L, err.msg);
        return lua_error(L);
    }
    K->loaded = 1;
    {
        /* the assembled program counts against the sandbox's memory cap */
        const isa_program_t *p = &K->prog;
        uint64_t cost = (uint64_t)p->ncode * sizeof *p->code
                        + ((uint64_t)p->nlabels + p->nshared) * sizeof(isa_symbol_t);
        tensor_charge(L, cost, "an assembled kernel");
        K->charged = cost;
    }
    return 1;
}

const isa_program_t *lkernel_check(lua_State *L, int arg)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, arg, KERNEL_MT);
    if (!K->loaded)
        lutil_error(L, "launch: kernel is not loaded");
    return &K->prog;
}

static int kernel_gc(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    if (K->loaded) {
        isa_program_free(&K->prog);
        K->loaded = 0;
    }
    if (K->charged) {
        sandbox_charge_bytes(L, -(int64_t)K->charged);
        K->charged = 0;
    }
    return 0;
}

static int kernel_tostring(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    lua_pushfstring(L, "kernel '%s' (%d instructions, %d registers, %d params)", K->prog.name,
                    (int)K->prog.ncode, (int)K->prog.nregs, (int)K->prog.nparams);
    return 1;
}

static int kernel_listing(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    char *text;
    if (!K->loaded)
        return lutil_error(L, "listing: kernel is not loaded");
    text = asm_disassemble(&K->prog);
    if (!text)
        return lutil_error(L, "listing: out of memory");
    lua_pushstring(L, text); /* raises only if Lua itself is out of memory */
    free(text);
    return 1;
}

static int kernel_index(lua_State *L)
{
    lkernel_t *K = (lkernel_t *)luaL_checkudata(L, 1, KERNEL_MT);
    const isa_program_t *p = &K->prog;
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    uint32_t i;
    if (!k)
        return 0;
    if (strcmp(k, "listing") == 0)
        lua_pushcfunction(L, kernel_listing);
    else if (strcmp(k, "name") == 0)
        lua_pushstring(L, p->name);
    else if (strcmp(k, "file") == 0)
        lua_pushstring(L, p->file);
    else if (strcmp(k, "nregs") == 0)
        lua_pushinteger(L, p->nregs);
    else if (strcmp(k, "nparams") == 0)
        lua_pushinteger(L, p->nparams);
    else if (strcmp(k, "shared_bytes") == 0)
        lua_pushinteger(L, p->shared_bytes);
    else if (strcmp(k, "ninstr") == 0)
        lua_pushinteger(L, p->ncode);
    else if (strcmp(k, "params") == 0) {
        lua_createtable(L, (int)p->nparams, 0);
        for (i = 0; i < p->nparams; i++) {
            lua_pushstring(L, p->params[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else
        lua_pushnil(L);
    return 1;
}

/* ---- scalars and arguments ---------------------------------------------- */

int lkernel_f32(lua_State *L)
{
    double v = luaL_checknumber(L, 1);
    lscalar_t *s = (lscalar_t *)lua_newuserdatauv(L, sizeof *s, 0);
    float f = (float)v;
    memcpy(&s->bits, &f, sizeof s->bits);
    s->is_float = 1;
    s->value = v;
    luaL_setmetatable(L, SCALAR_MT);
    return 1;
}

int lkernel_i32(lua_State *L)
{
    lua_Integer v;
    lscalar_t *s;
    if (!lua_isinteger(L, 1) && lua_type(L, 1) == LUA_TNUMBER) {
        lua_Number x = lua_tonumber(L, 1);
        luaL_argcheck(L, x == (lua_Number)(lua_Integer)x, 1, "number has no integer value");
    }
    v = luaL_checkinteger(L, 1);
    luaL_argcheck(L, v >= INT32_MIN && v <= (lua_Integer)UINT32_MAX, 1,
                  "integer does not fit in 32 bits");
    s = (lscalar_t *)lua_newuserdatauv(L, sizeof *s, 0);
    s->bits = (uint32_t)v;
    s->is_float = 0;
    s->value = (double)v;
    luaL_setmetatable(L, SCALAR_MT);
    return 1;
}

static int scalar_tostring(lua_State *L)
{
    lscalar_t *s = (lscalar_t *)luaL_checkudata(L, 1, SCALAR_MT);
    if (s->is_float)
        lua_pushfstring(L, "f32(%f)", s->value);
    else
        lua_pushfstring(L, "i32(%I)", (lua_Integer)s->value);
    return 1;
}

uint32_t lkernel_arg_bits(lua_State *L, const lgpu_t *owner, const char *maker, const isa_program_t *p,
                         int arg, int i)
{
    tensor_t *t = tensor_test(L, arg);
    lscalar_t *s = (lscalar_t *)luaL_testudata(L, arg, SCALAR_MT);
    const char *pname = p->params[i];
    if (t) {
        if (!t->gpu)
            lutil_error(L, "launch: argument %d (%s) is a host tensor; kernels need device "
                          "tensors (make it with %s{...})", i + 1, pname, maker);
        if (t->gpu != owner && maker[0] == 'c')
            lutil_error(L, "launch: argument %d (%s) is not a tensor of this CPU (make it with %s{...})",
                        i + 1, pname, maker);
        if (t->gpu != owner)
            lutil_error(L, "launch: argument %d (%s) is a tensor on another GPU", i + 1, pname);
        if (t->resv)
            lutil_error(L, "launch: argument %d (%s) is a size_only tensor: it has no data for a "
                          "kernel to read", i + 1, pname);
        return t->addr;
    }
    if (s)
        return s->bits;
    if (lua_isinteger(L, arg)) {
        lua_Integer v = lua_tointeger(L, arg);
        if (v < INT32_MIN || v > (lua_Integer)UINT32_MAX)
            lutil_error(L, "launch: argument %d (%s) = %lld does not fit in 32 bits", i + 1, pname,
                        (long long)v);
        return (uint32_t)v;
    }
    if (lua_type(L, arg) == LUA_TNUMBER) {
        float f = (float)lua_tonumber(L, arg);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    lutil_error(L, "launch: argument %d (%s) must be a device tensor or a number, got %s",
                i + 1, pname, luaL_typename(L, arg));
    return 0;
}

void lkernel_args(lua_State *L, const lgpu_t *owner, const char *maker, const isa_program_t *p, int first,
                  int nargs, uint32_t *args)
{
    if (nargs != (int)p->nparams) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        lua_pushfstring(L, "kernel '%s' takes %d argument%s (", p->name, (int)p->nparams,
                        p->nparams == 1 ? "" : "s");
        luaL_addvalue(&b);
        for (uint32_t i = 0; i < p->nparams; i++) {
            if (i)
                luaL_addstring(&b, ", ");
            luaL_addstring(&b, p->params[i]);
        }
        lua_pushfstring(L, "), got %d", nargs);
        luaL_addvalue(&b);
        luaL_pushresult(&b);
        lutil_error(L, "%s", lua_tostring(L, -1));
    }
    for (int i = 0; i < nargs; i++)
        args[i] = lkernel_arg_bits(L, owner, maker, p, first + i, i);
}

void lkernel_register(lua_State *L)
{
    lutil_new_class(L, KERNEL_MT, kernel_gc, kernel_tostring, kernel_index, NULL);
    lutil_new_class(L, SCALAR_MT, NULL, scalar_tostring, NULL, NULL);
}
