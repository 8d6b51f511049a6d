/* ref.c - simt.ref: reference results computed on the host, in double.
 *
 * These are the "known good" answers that lessons and tests compare a
 * simulated kernel's output against. They accept host or device tensors
 * of any dtype and return new host tensors (f32 unless stated).
 *
 *   ref.matmul(A, B)              A {M, K}, B {K, N} -> {M, N}
 *   ref.conv2d(X, W, {stride, pad})  X {N, C, H, W}, W {K, C, R, S}
 *                                 -> {N, K, P, Q}, P = (H + 2*pad - R)/stride + 1
 *   ref.im2col(X, R, S, {stride, pad}) -> {C*R*S, N*P*Q}
 *   ref.add(A, B)                 elementwise, same shape, dtype of A
 *   ref.sum(A)                    a number (sum in double)
 */
#include <string.h>

#include <lauxlib.h>

#include "lutil.h"
#include "sandbox.h"

#include "tensor.h"

/* The most multiply-adds (or element stores) one reference call may do:
 * about 10-30 s of host time. Work up to it is also counted against the
 * sandbox's watchdog (REF_WORK_PER_UNIT per instruction). */
#define REF_MAX_WORK ((int64_t)1 << 34)
#define REF_WORK_PER_UNIT 8

/* a * b, raising (naming fn and what) if it passes limit; a, b >= 0. */
static int64_t mul_checked(lua_State *L, int64_t a, int64_t b, int64_t limit, const char *fn,
                           const char *what)
{
    if (a < 0 || b < 0 || (a > 0 && b > limit / a))
        lutil_error(L, "ref.%s: %s is too large (more than %lld)", fn, what, (long long)limit);
    return a * b;
}

/* Count `work` (already bounded by mul_checked) against the watchdog. */
static void charge(lua_State *L, int64_t work)
{
    sandbox_charge_work(L, (uint64_t)work / REF_WORK_PER_UNIT);
}

/* Raise unless t has ndim dimensions. */
static void need_ndim(lua_State *L, const tensor_t *t, int ndim, const char *fn,
                      const char *what)
{
    if (t->ndim != ndim) {
        char s[96];
        lutil_error(L, "ref.%s: %s must have %d dimensions, got shape %s", fn, what, ndim,
                    tensor_shape_str(t, s, sizeof s));
    }
}

static const tensor_dtype_t *f32(void)
{
    return tensor_dtype_find("f32");
}

/* Store n doubles into the host tensor t. */
static void store_all(tensor_t *t, const double *v)
{
    int64_t i;
    for (i = 0; i < t->n; i++)
        t->dt->store(t->host + (size_t)i * t->dt->bytes, v[i]);
}

/* matmul: C[i][j] = sum_k A[i][k] * B[k][j], accumulated in double in
 * k order, rounded once to f32. */
static int ref_matmul(lua_State *L)
{
    tensor_t *A = tensor_check(L, 1), *B = tensor_check(L, 2), *C;
    int64_t M, K, N, i, j, k, dims[2];
    double *a, *b, *acc;
    need_ndim(L, A, 2, "matmul", "A");
    need_ndim(L, B, 2, "matmul", "B");
    M = A->dims[0];
    K = A->dims[1];
    N = B->dims[1];
    if (B->dims[0] != K) {
        char sa[96], sb[96];
        lutil_error(L, "ref.matmul: inner dimensions differ: A is %s, B is %s",
                    tensor_shape_str(A, sa, sizeof sa), tensor_shape_str(B, sb, sizeof sb));
    }
    if ((uint64_t)M * (uint64_t)N > ((uint64_t)1 << 32))
        lutil_error(L, "ref.matmul: result of %lld x %lld elements is too large", (long long)M,
                    (long long)N);
    charge(L, mul_checked(L, M * N, K, REF_MAX_WORK, "matmul", "the work M*N*K"));
    a = tensor_push_doubles(L, A);
    b = tensor_push_doubles(L, B);
    acc = (double *)lua_newuserdatauv(L, (size_t)(M * N) * sizeof(double), 0);
    memset(acc, 0, (size_t)(M * N) * sizeof(double));
    for (i = 0; i < M; i++) {
        double *row = acc + i * N;
        for (k = 0; k < K; k++) {
            double aik = a[i * K + k];
            const double *brow = b + k * N;
            for (j = 0; j < N; j++)
                row[j] += aik * brow[j];
        }
    }
    dims[0] = M;
    dims[1] = N;
    C = tensor_new_host(L, 2, dims, f32());
    store_all(C, acc);
    return 1;
}

/* Read {stride=, pad=} from the optional table at arg. */
static void conv_opts(lua_State *L, int arg, int64_t *stride, int64_t *pad)
{
    *stride = 1;
    *pad = 0;
    if (lua_isnoneornil(L, arg))
        return;
    luaL_checktype(L, arg, LUA_TTABLE);
    /* bounded so that in + 2*pad and p*stride cannot overflow */
    if (lua_getfield(L, arg, "stride") != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > (1 << 30))
            luaL_argerror(L, arg, "stride must be an integer from 1 to 2^30");
        *stride = lua_tointeger(L, -1);
    }
    if (lua_getfield(L, arg, "pad") != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > (1 << 30))
            luaL_argerror(L, arg, "pad must be an integer from 0 to 2^30");
        *pad = lua_tointeger(L, -1);
    }
    lua_pop(L, 2);
}

/* Output size of one spatial dimension; raises if the filter does not fit. */
static int64_t conv_out(lua_State *L, const char *fn, int64_t in, int64_t filt, int64_t stride,
                        int64_t pad)
{
    if (in + 2 * pad < filt)
        lutil_error(L, "ref.%s: filter of size %lld does not fit input of size %lld with pad %lld", fn,
                    (long long)filt, (long long)in, (long long)pad);
    return (in + 2 * pad - filt) / stride + 1;
}

/* conv2d (cross-correlation, as in deep learning): NCHW input, KCRS filter,
 * Y[n][k][p][q] = sum_{c,r,s} X[n][c][p*stride - pad + r][q*stride - pad + s]
 *                              * W[k][c][r][s], out-of-range X reads as 0. */
static int ref_conv2d(lua_State *L)
{
    tensor_t *X = tensor_check(L, 1), *Wt = tensor_check(L, 2), *Y;
    int64_t stride, pad, N, C, H, Wd, K, R, S, P, Q, dims[4];
    int64_t n, k, p, q, c, r, s;
    double *x, *w, *y;
    need_ndim(L, X, 4, "conv2d", "X (N, C, H, W)");
    need_ndim(L, Wt, 4, "conv2d", "W (K, C, R, S)");
    conv_opts(L, 3, &stride, &pad);
    N = X->dims[0]; C = X->dims[1]; H = X->dims[2]; Wd = X->dims[3];
    K = Wt->dims[0]; R = Wt->dims[2]; S = Wt->dims[3];
    if (Wt->dims[1] != C) {
        char sx[96], sw[96];
        lutil_error(L, "ref.conv2d: channels differ: X is %s, W is %s",
                    tensor_shape_str(X, sx, sizeof sx), tensor_shape_str(Wt, sw, sizeof sw));
    }
    P = conv_out(L, "conv2d", H, R, stride, pad);
    Q = conv_out(L, "conv2d", Wd, S, stride, pad);
    {
        int64_t lim = (int64_t)1 << 32;
        int64_t out = mul_checked(L, mul_checked(L, mul_checked(L, N, K, lim, "conv2d", "the output"),
                                                 P, lim, "conv2d", "the output"),
                                  Q, lim, "conv2d", "the output (N*K*P*Q elements)");
        int64_t taps = mul_checked(L, mul_checked(L, C, R, REF_MAX_WORK, "conv2d", "the filter"), S,
                                   REF_MAX_WORK, "conv2d", "the filter");
        charge(L, mul_checked(L, out, taps, REF_MAX_WORK, "conv2d", "the work N*K*P*Q*C*R*S"));
    }
    x = tensor_push_doubles(L, X);
    w = tensor_push_doubles(L, Wt);
    y = (double *)lua_newuserdatauv(L, (size_t)(N * K * P * Q) * sizeof(double), 0);
    for (n = 0; n < N; n++)
        for (k = 0; k < K; k++)
            for (p = 0; p < P; p++)
                for (q = 0; q < Q; q++) {
                    double acc = 0;
                    for (c = 0; c < C; c++)
                        for (r = 0; r < R; r++) {
                            int64_t h = p * stride - pad + r;
                            if (h < 0 || h >= H)
                                continue;
                            for (s = 0; s < S; s++) {
                                int64_t v = q * stride - pad + s;
                                if (v < 0 || v >= Wd)
                                    continue;
                                acc += x[((n * C + c) * H + h) * Wd + v]
                                       * w[((k * C + c) * R + r) * S + s];
                            }
                        }
                    y[((n * K + k) * P + p) * Q + q] = acc;
                }
    dims[0] = N; dims[1] = K; dims[2] = P; dims[3] = Q;
    Y = tensor_new_host(L, 4, dims, f32());
    store_all(Y, y);
    return 1;
}

/* im2col: unfold X {N, C, H, W} into a {C*R*S, N*P*Q} matrix so that
 * convolution becomes one matmul: W reshaped to {K, C*R*S} times this gives
 * {K, N*P*Q}. Row (c*R + r)*S + s, column (n*P + p)*Q + q holds
 * X[n][c][p*stride - pad + r][q*stride - pad + s] (0 outside X).
 * The result has X's dtype. */
static int ref_im2col(lua_State *L)
{
    tensor_t *X = tensor_check(L, 1), *O;
    int64_t R = luaL_checkinteger(L, 2), S = luaL_checkinteger(L, 3);
    int64_t stride, pad, N, C, H, Wd, P, Q, rows, cols, dims[2];
    int64_t n, c, r, s, p, q;
    double *x;
    need_ndim(L, X, 4, "im2col", "X (N, C, H, W)");
    luaL_argcheck(L, R >= 1, 2, "filter height R must be at least 1");
    luaL_argcheck(L, S >= 1, 3, "filter width S must be at least 1");
    conv_opts(L, 4, &stride, &pad);
    N = X->dims[0]; C = X->dims[1]; H = X->dims[2]; Wd = X->dims[3];
    P = conv_out(L, "im2col", H, R, stride, pad);
    Q = conv_out(L, "im2col", Wd, S, stride, pad);
    {
        int64_t lim = (int64_t)1 << 32;
        rows = mul_checked(L, mul_checked(L, C, R, lim, "im2col", "C*R*S"), S, lim, "im2col", "C*R*S");
        cols = mul_checked(L, mul_checked(L, N, P, lim, "im2col", "N*P*Q"), Q, lim, "im2col", "N*P*Q");
        charge(L, mul_checked(L, rows, cols, lim, "im2col", "the result (C*R*S x N*P*Q elements)"));
    }
    x = tensor_push_doubles(L, X);
    dims[0] = rows;
    dims[1] = cols;
    O = tensor_new_host(L, 2, dims, X->dt);
    for (c = 0; c < C; c++)
        for (r = 0; r < R; r++)
            for (s = 0; s < S; s++) {
                int64_t row = (c * R + r) * S + s;
                for (n = 0; n < N; n++)
                    for (p = 0; p < P; p++)
                        for (q = 0; q < Q; q++) {
                            int64_t h = p * stride - pad + r, v = q * stride - pad + s;
                            int64_t col = (n * P + p) * Q + q;
                            double val = 0;
                            if (h >= 0 && h < H && v >= 0 && v < Wd)
                                val = x[((n * C + c) * H + h) * Wd + v];
                            O->dt->store(O->host + (size_t)(row * cols + col) * O->dt->bytes,
                                         val);
                        }
            }
    return 1;
}

static int ref_add(lua_State *L)
{
    tensor_t *A = tensor_check(L, 1), *B = tensor_check(L, 2), *O;
    int same = A->ndim == B->ndim, d;
    int64_t i;
    double *a, *b;
    for (d = 0; same && d < A->ndim; d++)
        same = A->dims[d] == B->dims[d];
    if (!same) {
        char sa[96], sb[96];
        lutil_error(L, "ref.add: shapes differ: A is %s, B is %s",
                    tensor_shape_str(A, sa, sizeof sa), tensor_shape_str(B, sb, sizeof sb));
    }
    charge(L, A->n);
    a = tensor_push_doubles(L, A);
    b = tensor_push_doubles(L, B);
    O = tensor_new_host(L, A->ndim, A->dims, A->dt);
    for (i = 0; i < A->n; i++)
        O->dt->store(O->host + (size_t)i * O->dt->bytes, a[i] + b[i]);
    return 1;
}

static int ref_sum(lua_State *L)
{
    lua_pushnumber(L, tensor_sum(L, tensor_check(L, 1)));
    return 1;
}

void ref_push(lua_State *L)
{
    static const luaL_Reg fns[] = {
        { "matmul", ref_matmul }, { "conv2d", ref_conv2d }, { "im2col", ref_im2col },
        { "add", ref_add }, { "sum", ref_sum }, { NULL, NULL }
    };
    luaL_newlib(L, fns);
}
