/* tensor.c - tensors for the Lua binding (see tensor.h).
 *
 * Lua surface:
 *   simt.tensor{4, 4, dtype="f32", init="random", seed=1, lo=-1, hi=1}
 *   g:tensor{...}            same, in the GPU's device memory
 *   t:shape() #t t.dtype t.addr t.ndim t.device
 *   t:get(i, j) t:set(i, j, v) t:to_table() t:fill(v) t:copy_from(x)
 *   t:allclose(u, rtol, atol) t:max_abs_diff(u) t:sum() t:reshape(d1, ...)
 *   t:to_host()
 *   g:tensor{80e9 // 2, dtype="f16", size_only=true, name="weights"}
 *                            counted against the GPU's memory, no data
 *                            (any size up to the GPU's capacity; a kernel
 *                            or a method that needs its elements refuses it)
 * Indices are 1-based like everything else in Lua.
 */
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lutil.h"
#include "sandbox.h"
#include "numfmt.h"

#include "lfields.h"

/* ---- dtypes ------------------------------------------------------------ */

static double f32_load(const void *p)
{
    float f;
    memcpy(&f, p, sizeof f);
    return f;
}

static void f32_store(void *p, double v)
{
    float f = (float)v;
    memcpy(p, &f, sizeof f);
}

static double i32_load(const void *p)
{
    int32_t i;
    memcpy(&i, p, sizeof i);
    return i;
}

/* Round to nearest, saturate to the int32 range, NaN -> 0. */
static void i32_store(void *p, double v)
{
    int32_t i;
    if (v != v)
        i = 0;
    else if (v >= 2147483647.0)
        i = INT32_MAX;
    else if (v <= -2147483648.0)
        i = INT32_MIN;
    else
        i = (int32_t)floor(v + 0.5);
    memcpy(p, &i, sizeof i);
}

/* The number formats of numfmt.h. Loads are exact. Stores round the
 * double to f32 first and then to the format (nearest even each time;
 * the two roundings can differ from one direct rounding only for values
 * within 2^-29 relative of a tie, far below the formats' precision). FP16,
 * BF16 and TF32 overflow to infinity; FP8 saturates (satfinite), as cvt
 * does. Storage: f16/bf16 2 bytes, e4m3/e5m2 1 byte, tf32 a 4-byte f32
 * whose low 13 mantissa bits are zero. */
static void fmt_store(void *p, double v, numfmt_t fmt)
{
    uint32_t b = numfmt_encode(fmt, (float)v, fmt == NUMFMT_E4M3 || fmt == NUMFMT_E5M2);
    unsigned n = (unsigned)numfmt_bits(fmt) / 8;
    uint8_t bytes[4];
    unsigned i;
    for (i = 0; i < n; i++)     /* little-endian, like device memory */
        bytes[i] = (uint8_t)(b >> (8 * i));
    memcpy(p, bytes, n);
}

static double fmt_load(const void *p, numfmt_t fmt)
{
    unsigned n = (unsigned)numfmt_bits(fmt) / 8, i;
    uint8_t bytes[4];
    uint32_t b = 0;
    memcpy(bytes, p, n);
    for (i = 0; i < n; i++)
        b |= (uint32_t)bytes[i] << (8 * i);
    return numfmt_decode(fmt, b);
}

static double f16_load(const void *p) { return fmt_load(p, NUMFMT_F16); }
static void f16_store(void *p, double v) { fmt_store(p, v, NUMFMT_F16); }
static double bf16_load(const void *p) { return fmt_load(p, NUMFMT_BF16); }
static void bf16_store(void *p, double v) { fmt_store(p, v, NUMFMT_BF16); }
static double tf32_load(const void *p) { return fmt_load(p, NUMFMT_TF32); }
static void tf32_store(void *p, double v) { fmt_store(p, v, NUMFMT_TF32); }
static double e4m3_load(const void *p) { return fmt_load(p, NUMFMT_E4M3); }
static void e4m3_store(void *p, double v) { fmt_store(p, v, NUMFMT_E4M3); }
static double e5m2_load(const void *p) { return fmt_load(p, NUMFMT_E5M2); }
static void e5m2_store(void *p, double v) { fmt_store(p, v, NUMFMT_E5M2); }

/* Every dtype the binding knows. */
static const tensor_dtype_t tensor_dtypes[] = {
    { "f32", 4, 1, f32_load, f32_store },
    { "i32", 4, 0, i32_load, i32_store },
    { "f16", 2, 1, f16_load, f16_store },
    { "bf16", 2, 1, bf16_load, bf16_store },
    { "tf32", 4, 1, tf32_load, tf32_store },
    { "e4m3", 1, 1, e4m3_load, e4m3_store },
    { "e5m2", 1, 1, e5m2_load, e5m2_store },
};

#define NDTYPES (sizeof tensor_dtypes / sizeof tensor_dtypes[0])

const tensor_dtype_t *tensor_dtype_find(const char *name)
{
    size_t i;
    for (i = 0; i < NDTYPES; i++)
        if (strcmp(tensor_dtypes[i].name, name) == 0)
            return &tensor_dtypes[i];
    return NULL;
}

/* Write "f32, i32" (the dtype names, for messages) into buf. */
static const char *dtype_list(char *buf, size_t n)
{
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < NDTYPES && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "",
                                 tensor_dtypes[i].name);
    return buf;
}

/* ---- basics ------------------------------------------------------------ */

uint64_t tensor_bytes(const tensor_t *t)
{
    return (uint64_t)t->n * t->dt->bytes;
}

/* Count a pass over t's elements against the sandbox's watchdog (two
 * instructions per element, about the time of a pass in C, where the hook
 * does not see it; issue 20, class 2). */
static void charge_elements(lua_State *L, const tensor_t *t)
{
    sandbox_charge_work(L, 2 * (uint64_t)t->n);
}

uint8_t *tensor_data(lua_State *L, tensor_t *t)
{
    uint8_t *p;
    if (!t->gpu)
        return t->host;
    if (!t->gpu->g)
        lutil_error(L, "tensor's GPU has been freed");
    if (t->resv)
        lutil_error(L, "tensor is size only (size_only = true): it counts against the GPU's "
                       "memory but has no data to read or write");
    p = mem_ptr(gpu_mem(t->gpu->g), t->addr, (uint32_t)tensor_bytes(t));
    if (!p)
        lutil_error(L, "tensor's device memory at 0x%08x is no longer allocated",
                    (unsigned)t->addr);
    return p;
}

/* tensor_data for a host write of the whole tensor: the device bytes count
 * as initialised for the kernel checker from now on (check.h). */
static uint8_t *tensor_data_w(lua_State *L, tensor_t *t)
{
    uint8_t *p = tensor_data(L, t);
    if (t->gpu)
        mem_mark_written(gpu_mem(t->gpu->g), t->addr, tensor_bytes(t));
    return p;
}

double tensor_load(lua_State *L, tensor_t *t, int64_t i)
{
    return t->dt->load(tensor_data(L, t) + (size_t)i * t->dt->bytes);
}

tensor_t *tensor_test(lua_State *L, int arg)
{
    return (tensor_t *)luaL_testudata(L, arg, TENSOR_MT);
}

tensor_t *tensor_check(lua_State *L, int arg)
{
    return (tensor_t *)luaL_checkudata(L, arg, TENSOR_MT);
}

const char *tensor_shape_str(const tensor_t *t, char *buf, size_t n)
{
    size_t used = 0;
    int i;
    used += (size_t)snprintf(buf, n, "{");
    for (i = 0; i < t->ndim && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? ", " : "",
                                 (long long)t->dims[i]);
    if (used < n)
        snprintf(buf + used, n - used, "}");
    return buf;
}

/* Check ndim/dims and fill t's shape fields; raises on bad sizes. */
static void set_shape(lua_State *L, tensor_t *t, int ndim, const int64_t *dims,
                      const tensor_dtype_t *dt)
{
    int i;
    int64_t n = 1;
    if (ndim < 1 || ndim > TENSOR_MAX_DIMS)
        lutil_error(L, "a tensor has 1 to %d dimensions, got %d", TENSOR_MAX_DIMS, ndim);
    for (i = 0; i < ndim; i++) {
        if (dims[i] < 1)
            lutil_error(L, "tensor dimension %d must be at least 1, got %lld", i + 1,
                        (long long)dims[i]);
        if (dims[i] > ((int64_t)1 << 32) / n)
            lutil_error(L, "tensor too large (more than 2^32 elements)");
        n *= dims[i];
        t->dims[i] = dims[i];
    }
    if ((uint64_t)n * dt->bytes > UINT32_MAX)
        lutil_error(L, "tensor of %lld %s elements is too large (32-bit device addresses)",
                    (long long)n, dt->name);
    t->ndim = ndim;
    t->n = n;
    t->dt = dt;
}

#define HOST_DATA_OFFSET ((sizeof(tensor_t) + 15) / 16 * 16)

tensor_t *tensor_new_host(lua_State *L, int ndim, const int64_t *dims,
                          const tensor_dtype_t *dt)
{
    tensor_t tmp, *t;
    memset(&tmp, 0, sizeof tmp);
    set_shape(L, &tmp, ndim, dims, dt);
    t = (tensor_t *)lua_newuserdatauv(L, HOST_DATA_OFFSET + (size_t)tensor_bytes(&tmp), 1);
    *t = tmp;
    t->host = (uint8_t *)t + HOST_DATA_OFFSET;
    memset(t->host, 0, (size_t)tensor_bytes(t));
    luaL_setmetatable(L, TENSOR_MT);
    return t;
}

void tensor_charge(lua_State *L, uint64_t bytes, const char *what)
{
    if (sandbox_charge_bytes(L, (int64_t)bytes) == 0)
        return;
    lua_gc(L, LUA_GCCOLLECT, 0);   /* dead tensors and GPUs give theirs back */
    if (sandbox_charge_bytes(L, (int64_t)bytes) != 0)
        sandbox_memory_error(L, what, bytes);
}

/* Push a new zeroed device tensor on the GPU userdata at gidx. Its device
 * memory (and the checker's shadow bits) counts against the sandbox's
 * cap; when the GPU or the cap is full, garbage is collected once first,
 * so tensors nobody holds give their memory back. */
static tensor_t *tensor_new_device(lua_State *L, int gidx, int ndim, const int64_t *dims,
                                   const tensor_dtype_t *dt, const char *label)
{
    lgpu_t *G = (lgpu_t *)luaL_checkudata(L, gidx, LGPU_MT);
    tensor_t *t;
    simt_err_t err;
    char auto_label[32];
    gidx = lua_absindex(L, gidx);
    if (!G->g)
        lutil_error(L, "the GPU has been freed");
    t = (tensor_t *)lua_newuserdatauv(L, sizeof(tensor_t), 1);
    memset(t, 0, sizeof *t);
    t->dt = dt;
    luaL_setmetatable(L, TENSOR_MT); /* __gc sees addr == 0 until allocated */
    set_shape(L, t, ndim, dims, dt);
    t->gpu = G;
    lua_pushvalue(L, gidx);
    lua_setiuservalue(L, -2, 1);     /* keep the GPU alive */
    charge_elements(L, t);           /* the device bytes are cleared */
    if (!label) {
        snprintf(auto_label, sizeof auto_label, "tensor#%u", (unsigned)++G->ntensors);
        label = auto_label;
    }
    {
        uint64_t cost = tensor_bytes(t) + tensor_bytes(t) / 8 + 64;
        char what[64];
        snprintf(what, sizeof what, "device memory for %s", label);
        tensor_charge(L, cost, what);
        t->charged = cost;   /* released by __gc from now on */
    }
    if (gpu_malloc(G->g, tensor_bytes(t), label, &t->addr, &err) != 0) {
        t->addr = 0;
        if (err.code != SIMT_E_MEM)
            lutil_error(L, "%s", err.msg);
        lua_gc(L, LUA_GCCOLLECT, 0);
        if (!G->g)
            lutil_error(L, "the GPU has been freed");
        simt_err_clear(&err);
        if (gpu_malloc(G->g, tensor_bytes(t), label, &t->addr, &err) != 0) {
            t->addr = 0;
            lutil_error(L, "%s", err.msg);
        }
    }
    return t;
}

/* Push a size-only device tensor on the GPU userdata at index 1: its bytes
 * are reserved on the device (mem_reserve: an out-of-memory report when
 * they do not fit), nothing is allocated on the host, and it may be larger
 * than the 4 GB a tensor with data can have. Takes no init. */
static void tensor_new_size_only(lua_State *L, int ndim, const int64_t *dims,
                                 const tensor_dtype_t *dt, const char *label)
{
    lgpu_t *G = (lgpu_t *)luaL_checkudata(L, 1, LGPU_MT);
    tensor_t *t;
    simt_err_t err;
    int64_t n = 1;
    char auto_label[32];
    int i;
    if (!G->g)
        lutil_error(L, "the GPU has been freed");
    if (lua_getfield(L, 2, "init") != LUA_TNIL)
        lutil_error(L, "a size_only tensor has no data, so it takes no init");
    lua_pop(L, 1);
    for (i = 0; i < ndim; i++) {
        if (dims[i] > ((int64_t)1 << 48) / n)
            lutil_error(L, "size_only tensor too large (more than 2^48 elements)");
        n *= dims[i];
    }
    t = (tensor_t *)lua_newuserdatauv(L, sizeof(tensor_t), 1);
    memset(t, 0, sizeof *t);
    t->dt = dt;
    t->ndim = ndim;
    t->n = n;
    for (i = 0; i < ndim; i++)
        t->dims[i] = dims[i];
    luaL_setmetatable(L, TENSOR_MT);
    t->gpu = G;
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);     /* keep the GPU alive */
    if (!label) {
        snprintf(auto_label, sizeof auto_label, "tensor#%u", (unsigned)++G->ntensors);
        label = auto_label;
    }
    if (mem_reserve(gpu_mem(G->g), tensor_bytes(t), label, &t->resv, &err) != 0) {
        t->resv = 0;
        lutil_error(L, "%s", err.msg);
    }
}

double *tensor_push_doubles(lua_State *L, tensor_t *t)
{
    charge_elements(L, t);
    double *out = (double *)lua_newuserdatauv(L, (size_t)t->n * sizeof(double), 0);
    const uint8_t *p = tensor_data(L, t);
    int64_t i;
    for (i = 0; i < t->n; i++)
        out[i] = t->dt->load(p + (size_t)i * t->dt->bytes);
    return out;
}

/* A number for element storage in t from argument arg; integer dtypes
 * need an integer in range. */
static double check_value(lua_State *L, int arg, const tensor_t *t)
{
    double v = luaL_checknumber(L, arg);
    if (!t->dt->is_float) {
        if (v != floor(v) || v < -2147483648.0 || v > 2147483647.0)
            lutil_argerror(L, arg, "%s tensor needs an integer in the int32 range, got %s",
                           t->dt->name, luaL_tolstring(L, arg, NULL));
    }
    return v;
}

/* ---- filling ----------------------------------------------------------- */

static void fill_value(lua_State *L, tensor_t *t, double v)
{
    charge_elements(L, t);
    uint8_t *p = tensor_data_w(L, t);
    int64_t i;
    for (i = 0; i < t->n; i++)
        t->dt->store(p + (size_t)i * t->dt->bytes, v);
}

/* Walk a (possibly nested) table of numbers at idx, storing values into
 * vals while *pos < n and counting all of them in *pos. The walk runs Lua
 * code (__len, __index of the tables), so it fills a scratch buffer, never
 * the tensor's memory. */
static void fill_walk(lua_State *L, int idx, const tensor_t *t, double *vals, int64_t *pos,
                      int depth)
{
    lua_Integer i, len;
    if (depth > TENSOR_MAX_DIMS)
        lutil_error(L, "tensor values nested more than %d tables deep", TENSOR_MAX_DIMS);
    luaL_checkstack(L, 4, "tensor values nested too deeply");
    len = luaL_len(L, idx);
    for (i = 1; i <= len; i++) {
        int ty = lua_geti(L, idx, i);
        if (ty == LUA_TTABLE) {
            fill_walk(L, lua_gettop(L), t, vals, pos, depth + 1);
        } else if (ty == LUA_TNUMBER) {
            double v = lua_tonumber(L, -1);
            if (!t->dt->is_float && v != floor(v))
                lutil_error(L, "%s tensor value %lld is not an integer (%g)", t->dt->name,
                            (long long)*pos + 1, v);
            if (*pos < t->n)
                vals[*pos] = v;
            (*pos)++;
        } else {
            lutil_error(L, "tensor values must be numbers, value %lld is %s",
                        (long long)*pos + 1, luaL_typename(L, -1));
        }
        lua_pop(L, 1);
        if (*pos > t->n)   /* too many already: no need to walk on */
            break;
    }
}

/* Fill t from the table at idx: read every value first (running whatever
 * Lua code the tables have), then take t's data pointer and store. */
static void fill_table(lua_State *L, int idx, tensor_t *t)
{
    int64_t pos = 0, i;
    char shape[96];
    double *vals;
    uint8_t *p;
    idx = lua_absindex(L, idx);
    vals = (double *)lua_newuserdatauv(L, (size_t)t->n * sizeof *vals, 0);
    charge_elements(L, t);
    fill_walk(L, idx, t, vals, &pos, 1);
    if (pos != t->n)
        lutil_error(L, "table has %s%lld values, tensor %s needs %lld", pos > t->n ? "more than " : "",
                    (long long)(pos > t->n ? t->n : pos), tensor_shape_str(t, shape, sizeof shape),
                    (long long)t->n);
    p = tensor_data_w(L, t);
    for (i = 0; i < t->n; i++)
        t->dt->store(p + (size_t)i * t->dt->bytes, vals[i]);
    lua_pop(L, 1);
}

static void check_same_shape(lua_State *L, const tensor_t *a, const tensor_t *b,
                             const char *what)
{
    int i, same = a->ndim == b->ndim;
    for (i = 0; same && i < a->ndim; i++)
        same = a->dims[i] == b->dims[i];
    if (!same) {
        char sa[96], sb[96];
        lutil_error(L, "%s: shapes differ: %s vs %s", what, tensor_shape_str(a, sa, sizeof sa),
                    tensor_shape_str(b, sb, sizeof sb));
    }
}

static void copy_tensor(lua_State *L, tensor_t *dst, tensor_t *src)
{
    charge_elements(L, dst);
    uint8_t *d = tensor_data_w(L, dst);
    const uint8_t *s = tensor_data(L, src);
    int64_t i;
    if (dst->dt == src->dt) {
        memmove(d, s, (size_t)tensor_bytes(dst));
        return;
    }
    for (i = 0; i < dst->n; i++)
        dst->dt->store(d + (size_t)i * dst->dt->bytes,
                       src->dt->load(s + (size_t)i * src->dt->bytes));
}

/* splitmix64: a small, well-mixed, deterministic generator. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform values: floats in [lo, hi), integers in [lo, hi]. */
static void fill_random(lua_State *L, tensor_t *t, uint64_t seed, double lo, double hi)
{
    charge_elements(L, t);
    uint8_t *p = tensor_data_w(L, t);
    uint64_t state = seed;
    unsigned sz = t->dt->bytes;
    int64_t i;
    if (!(lo <= hi) || (t->dt->is_float && lo == hi))
        lutil_error(L, "random init needs lo < hi, got lo=%g hi=%g", lo, hi);
    for (i = 0; i < t->n; i++) {
        uint64_t z = splitmix64(&state);
        if (t->dt->is_float) {
            double u = (double)(z >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
            t->dt->store(p + (size_t)i * sz, lo + (hi - lo) * u);
            if (t->dt->load(p + (size_t)i * sz) >= hi) /* rounded up to hi */
                t->dt->store(p + (size_t)i * sz, lo);
        } else {
            uint64_t range = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
            t->dt->store(p + (size_t)i * sz, (double)((int64_t)lo + (int64_t)(z % range)));
        }
    }
}

/* ---- constructors -------------------------------------------------------- */

static const char *const spec_keys[] = { "dtype", "hi", "init", "lo", "name", "seed", "size_only" };
#define NSPEC_KEYS (sizeof spec_keys / sizeof spec_keys[0])

/* Read the shape and dtype of a spec table at idx (keys checked). */
static void parse_spec(lua_State *L, int idx, int *ndim, int64_t dims[TENSOR_MAX_DIMS],
                       const tensor_dtype_t **dt)
{
    lua_Integer len, i;
    char bad[64] = "";
    const char *dname;
    luaL_checktype(L, idx, LUA_TTABLE);
    len = luaL_len(L, idx);
    /* keys: 1..len and the known names; report the smallest unknown name */
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -1);
            size_t j;
            int known = 0;
            for (j = 0; j < NSPEC_KEYS && !known; j++)
                known = strcmp(k, spec_keys[j]) == 0;
            if (!known && (!bad[0] || strcmp(k, bad) < 0))
                snprintf(bad, sizeof bad, "%s", k);
        } else if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1
                   || lua_tointeger(L, -1) > len) {
            luaL_argerror(L, idx, "tensor spec keys are dimensions {d1, d2, ...} and "
                                  "dtype, init, seed, lo, hi, name, size_only");
        }
    }
    if (bad[0]) {
        const char *hint = lfields_closest(bad, spec_keys, NSPEC_KEYS);
        lutil_argerror(L, idx, "unknown tensor option '%s'%s%s%s", bad,
                       hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    }
    if (len < 1 || len > TENSOR_MAX_DIMS)
        lutil_argerror(L, idx, "expected 1 to %d dimensions like {256, 256}, got %d",
                       TENSOR_MAX_DIMS, (int)len);
    for (i = 1; i <= len; i++) {
        int isint = 0;
        lua_Integer v;
        lua_geti(L, idx, i);
        v = lua_tointegerx(L, -1, &isint);
        if (!isint || v < 1)
            lutil_argerror(L, idx, "dimension %d must be a positive integer, got %s", (int)i,
                           luaL_tolstring(L, -1, NULL));
        dims[i - 1] = v;
        lua_pop(L, 1);
    }
    *ndim = (int)len;
    lua_getfield(L, idx, "dtype");
    dname = lua_isnil(L, -1) ? "f32" : lua_tostring(L, -1);
    if (!dname)
        lutil_argerror(L, idx, "dtype must be a string like \"f32\", got %s",
                       luaL_typename(L, -1));
    *dt = tensor_dtype_find(dname);
    if (!*dt) {
        char names[128];
        lutil_argerror(L, idx, "unknown dtype '%s' (dtypes: %s)", dname,
                       dtype_list(names, sizeof names));
    }
    lua_pop(L, 1);
}

static double opt_field_number(lua_State *L, int idx, const char *key, double def)
{
    double v = def;
    int ty = lua_getfield(L, idx, key);
    if (ty == LUA_TNUMBER)
        v = lua_tonumber(L, -1);
    else if (ty != LUA_TNIL)
        lutil_error(L, "tensor option '%s' must be a number, got %s", key, luaL_typename(L, -1));
    lua_pop(L, 1);
    return v;
}

/* Apply the spec's init (at spec index idx) to the new tensor t. */
static void apply_init(lua_State *L, int idx, tensor_t *t)
{
    int ty = lua_getfield(L, idx, "init");
    if (ty == LUA_TNIL) {
        /* no init: the bytes are zero, but a kernel that reads them before
         * writing them is reported by the checker, as on a GPU where new
         * memory holds garbage; init="zeros" makes them initialised */
    } else if (ty == LUA_TNUMBER) {
        fill_value(L, t, check_value(L, lua_gettop(L), t));
    } else if (ty == LUA_TTABLE) {
        fill_table(L, -1, t);
    } else if (tensor_test(L, -1)) {
        tensor_t *src = tensor_test(L, -1);
        check_same_shape(L, t, src, "init");
        copy_tensor(L, t, src);
    } else if (ty == LUA_TSTRING) {
        const char *s = lua_tostring(L, -1);
        if (strcmp(s, "zeros") == 0) {
            tensor_data_w(L, t);   /* already zero; now also initialised */
        } else if (strcmp(s, "ones") == 0) {
            fill_value(L, t, 1.0);
        } else if (strcmp(s, "range") == 0) {
            uint8_t *p = tensor_data_w(L, t);
            charge_elements(L, t);
            int64_t i;
            for (i = 0; i < t->n; i++)
                t->dt->store(p + (size_t)i * t->dt->bytes, (double)i);
        } else if (strcmp(s, "random") == 0) {
            double seed = opt_field_number(L, idx, "seed", 1);
            double lo = opt_field_number(L, idx, "lo", -1);
            double hi = opt_field_number(L, idx, "hi", 1);
            /* range checks before the casts below (found by tests/fuzz/fuzz_lua.c) */
            if (seed != floor(seed) || fabs(seed) >= 9223372036854775808.0)
                lutil_error(L, "tensor option 'seed' must be an integer (|seed| < 2^63), got %g", seed);
            if (!t->dt->is_float && (lo != floor(lo) || hi != floor(hi) || fabs(lo) > 4294967296.0 ||
                                     fabs(hi) > 4294967296.0))
                lutil_error(L, "%s random init needs integer lo and hi (|lo|, |hi| <= 2^32), got lo=%g hi=%g",
                            t->dt->name, lo, hi);
            fill_random(L, t, (uint64_t)(int64_t)seed, lo, hi);
        } else {
            lutil_error(L, "unknown init '%s' (expected \"zeros\", \"ones\", \"random\", "
                          "\"range\", a number, a table or a tensor)", s);
        }
    } else {
        lutil_error(L, "init must be a string, number, table or tensor, got %s",
                    luaL_typename(L, -1));
    }
    lua_pop(L, 1);
}

int tensor_host_new(lua_State *L)
{
    int ndim;
    int64_t dims[TENSOR_MAX_DIMS];
    const tensor_dtype_t *dt;
    tensor_t *t;
    parse_spec(L, 1, &ndim, dims, &dt);
    t = tensor_new_host(L, ndim, dims, dt);
    apply_init(L, 1, t);
    return 1;
}

int tensor_gpu_new(lua_State *L)
{
    int ndim;
    int64_t dims[TENSOR_MAX_DIMS];
    const tensor_dtype_t *dt;
    tensor_t *t;
    const char *label = NULL;
    char lbuf[32];
    luaL_checkudata(L, 1, LGPU_MT);
    parse_spec(L, 2, &ndim, dims, &dt);
    if (lua_getfield(L, 2, "name") == LUA_TSTRING) {
        snprintf(lbuf, sizeof lbuf, "%s", lua_tostring(L, -1));
        label = lbuf;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 2, "size_only") != LUA_TNIL && lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        tensor_new_size_only(L, ndim, dims, dt, label);
        return 1;
    }
    lua_pop(L, 1);
    t = tensor_new_device(L, 1, ndim, dims, dt, label);
    apply_init(L, 2, t);
    return 1;
}

/* ---- methods ----------------------------------------------------------- */

/* Flat 0-based index from 1-based indices at args first..first+ndim-1. */
static int64_t check_index(lua_State *L, tensor_t *t, int first, const char *fname)
{
    int64_t flat = 0;
    int d;
    if (lua_gettop(L) - first + 1 < t->ndim)
        lutil_error(L, "%s: a %d-dimensional tensor needs %d indices, got %d", fname, t->ndim,
                    t->ndim, lua_gettop(L) - first + 1);
    for (d = 0; d < t->ndim; d++) {
        lua_Integer i = luaL_checkinteger(L, first + d);
        if (i < 1 || i > t->dims[d])
            lutil_argerror(L, first + d, "index %d is %lld, out of range 1..%lld", d + 1,
                           (long long)i, (long long)t->dims[d]);
        flat = flat * t->dims[d] + (i - 1);
    }
    return flat;
}

static void push_element(lua_State *L, tensor_t *t, int64_t i)
{
    double v = tensor_load(L, t, i);
    if (t->dt->is_float)
        lua_pushnumber(L, v);
    else
        lua_pushinteger(L, (lua_Integer)v);
}

static int t_get(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    int64_t i;
    if (lua_gettop(L) != 1 + t->ndim)
        lutil_error(L, "get: a %d-dimensional tensor needs %d indices, got %d", t->ndim,
                    t->ndim, lua_gettop(L) - 1);
    i = check_index(L, t, 2, "get");
    push_element(L, t, i);
    return 1;
}

static int t_set(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    int64_t i;
    double v;
    if (lua_gettop(L) != 2 + t->ndim)
        lutil_error(L, "set: a %d-dimensional tensor needs %d indices and a value, got %d "
                      "arguments", t->ndim, t->ndim, lua_gettop(L) - 1);
    i = check_index(L, t, 2, "set");
    v = check_value(L, 2 + t->ndim, t);
    t->dt->store(tensor_data(L, t) + (size_t)i * t->dt->bytes, v);
    if (t->gpu)   /* this element is initialised now (check.h) */
        mem_mark_written(gpu_mem(t->gpu->g), t->addr + (uint32_t)((size_t)i * t->dt->bytes),
                         t->dt->bytes);
    return 0;
}

static int t_shape(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    int d;
    for (d = 0; d < t->ndim; d++)
        lua_pushinteger(L, t->dims[d]);
    return t->ndim;
}

static int t_len(lua_State *L)
{
    lua_pushinteger(L, tensor_check(L, 1)->n);
    return 1;
}

static int t_to_table(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    int64_t i;
    if (t->n > 1 << 26)
        lutil_error(L, "to_table: tensor of %lld elements is too large for a Lua table",
                    (long long)t->n);
    charge_elements(L, t);
    lua_createtable(L, (int)t->n, 0);
    for (i = 0; i < t->n; i++) {
        push_element(L, t, i);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int t_fill(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    fill_value(L, t, check_value(L, 2, t));
    lua_settop(L, 1);
    return 1;
}

static int t_copy_from(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    tensor_t *src = tensor_test(L, 2);
    if (src) {
        check_same_shape(L, t, src, "copy_from");
        copy_tensor(L, t, src);
    } else if (lua_type(L, 2) == LUA_TTABLE) {
        fill_table(L, 2, t);
    } else {
        luaL_typeerror(L, 2, "tensor or table");
    }
    lua_settop(L, 1);
    return 1;
}

/* allclose(other, rtol=1e-5, atol=1e-6): every |a - b| <= atol + rtol*|b|
 * (b = other, usually the reference). Returns ok, max_abs_err and the
 * first bad flat index (1-based) or nil. NaN anywhere is a mismatch. */
static int t_allclose(lua_State *L)
{
    tensor_t *a = tensor_check(L, 1);
    tensor_t *b = tensor_check(L, 2);
    double rtol = luaL_optnumber(L, 3, 1e-5);
    double atol = luaL_optnumber(L, 4, 1e-6);
    const uint8_t *pa, *pb;
    double maxerr = 0;
    int64_t i, bad = -1;
    check_same_shape(L, a, b, "allclose");
    charge_elements(L, a);
    pa = tensor_data(L, a);
    pb = tensor_data(L, b);
    for (i = 0; i < a->n; i++) {
        double x = a->dt->load(pa + (size_t)i * a->dt->bytes);
        double y = b->dt->load(pb + (size_t)i * b->dt->bytes);
        double e = fabs(x - y);
        if (e != e) {
            e = HUGE_VAL;
        }
        if (e > maxerr)
            maxerr = e;
        if (!(e <= atol + rtol * fabs(y)) && bad < 0)
            bad = i;
    }
    lua_pushboolean(L, bad < 0);
    lua_pushnumber(L, maxerr);
    if (bad < 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, bad + 1);
    return 3;
}

static int t_max_abs_diff(lua_State *L)
{
    tensor_t *a = tensor_check(L, 1);
    tensor_t *b = tensor_check(L, 2);
    const uint8_t *pa, *pb;
    double maxerr = 0;
    int64_t i;
    check_same_shape(L, a, b, "max_abs_diff");
    charge_elements(L, a);
    pa = tensor_data(L, a);
    pb = tensor_data(L, b);
    for (i = 0; i < a->n; i++) {
        double e = fabs(a->dt->load(pa + (size_t)i * a->dt->bytes)
                        - b->dt->load(pb + (size_t)i * b->dt->bytes));
        if (e != e)
            e = HUGE_VAL;
        if (e > maxerr)
            maxerr = e;
    }
    lua_pushnumber(L, maxerr);
    return 1;
}

double tensor_sum(lua_State *L, tensor_t *t)
{
    charge_elements(L, t);
    const uint8_t *p = tensor_data(L, t);
    double s = 0;
    int64_t i;
    for (i = 0; i < t->n; i++)
        s += t->dt->load(p + (size_t)i * t->dt->bytes);
    return s;
}

static int t_sum(lua_State *L)
{
    lua_pushnumber(L, tensor_sum(L, tensor_check(L, 1)));
    return 1;
}

/* t:reshape(d1, d2, ...) -> a copy with the same elements in a new shape
 * (same element count), on the same GPU for device tensors. */
static int t_reshape(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1), *r;
    int ndim = lua_gettop(L) - 1, d;
    int64_t dims[TENSOR_MAX_DIMS], n = 1;
    char s[96];
    if (ndim < 1 || ndim > TENSOR_MAX_DIMS)
        lutil_error(L, "reshape: expected 1 to %d dimensions, got %d", TENSOR_MAX_DIMS, ndim);
    for (d = 0; d < ndim; d++) {
        dims[d] = luaL_checkinteger(L, d + 2);
        if (dims[d] < 1)
            luaL_argerror(L, d + 2, "dimension must be at least 1");
        if (dims[d] > ((int64_t)1 << 40) / n)   /* checked: no signed overflow */
            lutil_error(L, "reshape: tensor %s has %lld elements, the new shape has more than 2^40",
                        tensor_shape_str(t, s, sizeof s), (long long)t->n);
        n *= dims[d];
    }
    if (n != t->n)
        lutil_error(L, "reshape: tensor %s has %lld elements, the new shape has %lld",
                    tensor_shape_str(t, s, sizeof s), (long long)t->n, (long long)n);
    charge_elements(L, t);
    (void)tensor_data(L, t);   /* a size-only or freed tensor is refused before the copy is allocated */
    if (t->gpu) {
        lua_getiuservalue(L, 1, 1);
        r = tensor_new_device(L, -1, ndim, dims, t->dt, NULL);
    } else {
        r = tensor_new_host(L, ndim, dims, t->dt);
    }
    memcpy(tensor_data_w(L, r), tensor_data(L, t), (size_t)tensor_bytes(t));
    return 1;
}

static int t_to_host(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    charge_elements(L, t);
    tensor_t *r = tensor_new_host(L, t->ndim, t->dims, t->dt);
    memcpy(r->host, tensor_data(L, t), (size_t)tensor_bytes(t));
    return 1;
}

static int t_tostring(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    luaL_Buffer b;
    char s[96];
    int64_t i, show = t->n < 6 ? t->n : 6;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "tensor%s %s", tensor_shape_str(t, s, sizeof s), t->dt->name);
    luaL_addvalue(&b);
    if (t->gpu && t->resv) {
        snprintf(s, sizeof s, " on %s, size only", t->gpu->g ? gpu_desc(t->gpu->g)->name : "?");
        luaL_addstring(&b, s);
    } else if (t->gpu) {
        snprintf(s, sizeof s, " on %s at 0x%08x", t->gpu->g ? gpu_desc(t->gpu->g)->name : "?",
                 (unsigned)t->addr);
        luaL_addstring(&b, s);
    } else {
        luaL_addstring(&b, " (host)");
    }
    if (t->gpu && (!t->gpu->g || !t->addr)) {
        luaL_pushresult(&b);
        return 1;
    }
    luaL_addstring(&b, " [");
    for (i = 0; i < show; i++) {
        snprintf(s, sizeof s, "%s%.6g", i ? ", " : "", tensor_load(L, t, i));
        luaL_addstring(&b, s);
    }
    luaL_addstring(&b, t->n > show ? ", ...]" : "]");
    luaL_pushresult(&b);
    return 1;
}

static int t_gc(lua_State *L)
{
    tensor_t *t = (tensor_t *)luaL_checkudata(L, 1, TENSOR_MT);
    if (t->gpu && t->gpu->g && t->addr) {
        simt_err_t err;
        gpu_mfree(t->gpu->g, t->addr, &err); /* cannot fail for a live tensor */
        t->addr = 0;
    }
    if (t->gpu && t->gpu->g && t->resv) {
        simt_err_t err;
        mem_unreserve(gpu_mem(t->gpu->g), t->resv, &err); /* cannot fail for a live tensor */
        t->resv = 0;
    }
    if (t->charged) {
        sandbox_charge_bytes(L, -(int64_t)t->charged);
        t->charged = 0;
    }
    return 0;
}

static const luaL_Reg tensor_methods[] = {
    { "get", t_get }, { "set", t_set }, { "shape", t_shape }, { "to_table", t_to_table },
    { "fill", t_fill }, { "copy_from", t_copy_from }, { "allclose", t_allclose },
    { "max_abs_diff", t_max_abs_diff }, { "sum", t_sum }, { "reshape", t_reshape },
    { "to_host", t_to_host }, { NULL, NULL }
};

/* t.key: methods first, then the fields dtype, addr, ndim, device. */
static int t_index(lua_State *L)
{
    tensor_t *t = tensor_check(L, 1);
    const char *k;
    if (lutil_index_method(L, &k))
        return 1;
    if (!k)
        return 0;
    if (strcmp(k, "dtype") == 0)
        lua_pushstring(L, t->dt->name);
    else if (strcmp(k, "addr") == 0 && t->gpu)
        lua_pushinteger(L, t->addr);
    else if (strcmp(k, "ndim") == 0)
        lua_pushinteger(L, t->ndim);
    else if (strcmp(k, "device") == 0)
        lua_pushboolean(L, t->gpu != NULL);
    else
        lua_pushnil(L);
    return 1;
}

void tensor_register(lua_State *L)
{
    lutil_new_class(L, TENSOR_MT, t_gc, t_tostring, t_index, tensor_methods);
    luaL_getmetatable(L, TENSOR_MT);
    lua_pushcfunction(L, t_len);
    lua_setfield(L, -2, "__len");
    lua_pop(L, 1);
}
