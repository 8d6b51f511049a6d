/* test_exec.c - instruction semantics (exec.h) through small kernels run on
 * the default GPU: every opcode and type on edge values, narrow loads and
 * stores, atomics in lane order, special registers, predicates and
 * divergent control flow with per-lane results.
 *
 * Expected values come from the ISA documentation in isa.h (and PTX where
 * isa.h is silent) and from IEEE-754 binary32 arithmetic worked out by
 * hand, not from running the simulator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"
#include "numfmt.h"
#include "support.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ANY_NAN 0x7FC00001u          /* expected value: any NaN will do */
#define INT_MIN_BITS 0x80000000u
#define INT_MAX_BITS 0x7FFFFFFFu

static uint32_t F(float f) { return support_fbits(f); }
static uint32_t S(int32_t i) { uint32_t u; memcpy(&u, &i, 4); return u; }

/* ---- one instruction on up to 32 lanes ------------------------------------ */

/* One test case: %r10 = a, %r11 = b, %r12 = c; expect %r13 == want. */
typedef struct op_case {
    uint32_t a, b, c, want;
} op_case_t;

/* Kernel frame: loads a[tid], b[tid], c[tid] into %r10..%r12, sets %r13 to
 * a marker, runs the body, stores %r13 to d[tid]. */
static const char OP_FRAME[] =
    ".kernel op\n.param a\n.param b\n.param c\n.param d\n"
    "mov.u32 %%r0, %%tid.x\n"
    "shl.b32 %%r0, %%r0, 2\n"
    "ld.param.u32 %%r1, [a]\nadd.u32 %%r1, %%r1, %%r0\nld.global.u32 %%r10, [%%r1]\n"
    "ld.param.u32 %%r1, [b]\nadd.u32 %%r1, %%r1, %%r0\nld.global.u32 %%r11, [%%r1]\n"
    "ld.param.u32 %%r1, [c]\nadd.u32 %%r1, %%r1, %%r0\nld.global.u32 %%r12, [%%r1]\n"
    "mov.u32 %%r13, 0x5EEDF00D\n"
    "%s\n"
    "ld.param.u32 %%r1, [d]\nadd.u32 %%r1, %%r1, %%r0\nst.global.u32 [%%r1], %%r13\n"
    "exit\n";

static int same(uint32_t want, uint32_t got)
{
    if (want == ANY_NAN)
        return isnan(support_bitsf(got));
    return want == got;
}

/* Run `body` with one lane per case and compare every lane. */
static void check_ops(gpu_t *g, const char *body, const op_case_t *cs, uint32_t n)
{
    assert_true(n >= 1 && n <= 32);
    uint32_t a[32] = {0}, b[32] = {0}, c[32] = {0}, d[32];
    for (uint32_t i = 0; i < n; i++) {
        a[i] = cs[i].a;
        b[i] = cs[i].b;
        c[i] = cs[i].c;
    }
    char src[2048];
    snprintf(src, sizeof src, OP_FRAME, body);
    uint32_t da = support_buffer(g, "a", a, 128), db = support_buffer(g, "b", b, 128);
    uint32_t dc = support_buffer(g, "c", c, 128), dd = support_buffer(g, "d", NULL, 128);
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){n, 1, 1}, (uint32_t[]){da, db, dc, dd}, 4, NULL);
    support_read(g, dd, d, 128);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!same(cs[i].want, d[i])) {
            print_error("  '%s' case %u: a=0x%08x b=0x%08x c=0x%08x: want 0x%08x, got 0x%08x\n",
                        body, (unsigned)i, (unsigned)cs[i].a, (unsigned)cs[i].b, (unsigned)cs[i].c,
                        (unsigned)cs[i].want, (unsigned)d[i]);
            bad++;
        }
    simt_err_t e;
    gpu_mfree(g, dd, &e);
    gpu_mfree(g, dc, &e);
    gpu_mfree(g, db, &e);
    gpu_mfree(g, da, &e);
    if (bad)
        fail_msg("%d of %u cases of '%s' are wrong", bad, (unsigned)n, body);
}

static void test_int_add_sub_mul_wrap(void **state)
{
    gpu_t *g = *state;
    op_case_t add_u[] = { {0xFFFFFFFFu, 1, 0, 0}, {INT_MIN_BITS, INT_MIN_BITS, 0, 0}, {5, 7, 0, 12} };
    check_ops(g, "add.u32 %r13, %r10, %r11", add_u, N(add_u));
    op_case_t add_s[] = { {INT_MAX_BITS, 1, 0, INT_MIN_BITS}, {S(-1), S(-1), 0, S(-2)}, {S(-5), 3, 0, S(-2)} };
    check_ops(g, "add.s32 %r13, %r10, %r11", add_s, N(add_s));
    op_case_t sub[] = { {0, 1, 0, 0xFFFFFFFFu}, {INT_MIN_BITS, 1, 0, INT_MAX_BITS}, {10, 3, 0, 7} };
    check_ops(g, "sub.u32 %r13, %r10, %r11", sub, N(sub));
    check_ops(g, "sub.s32 %r13, %r10, %r11", sub, N(sub));
    op_case_t mul[] = { {0x10000, 0x10000, 0, 0}, {0xFFFFFFFFu, 0xFFFFFFFFu, 0, 1},
                        {0x12345678, 16, 0, 0x23456780}, {S(-3), 5, 0, S(-15)} };
    check_ops(g, "mul.lo.u32 %r13, %r10, %r11", mul, N(mul));
    check_ops(g, "mul.s32 %r13, %r10, %r11", mul, N(mul));
    op_case_t mad[] = { {0x10000, 0x10000, 7, 7}, {S(-2), 3, 1, S(-5)}, {0xFFFFFFFFu, 2, 3, 1} };
    check_ops(g, "mad.lo.s32 %r13, %r10, %r11, %r12", mad, N(mad));
    check_ops(g, "mad.lo.u32 %r13, %r10, %r11, %r12", mad, N(mad));
    /* immediates: stored as their low 32 bits */
    op_case_t imm[] = { {1, 0, 0, 0}, {0, 0, 0, 0xFFFFFFFFu} };
    check_ops(g, "add.u32 %r13, %r10, 0xFFFFFFFF", imm, N(imm));
    op_case_t imm2[] = { {0, 0, 0, INT_MIN_BITS}, {1, 0, 0, 0x80000001u} };
    check_ops(g, "add.s32 %r13, %r10, -2147483648", imm2, N(imm2));
    op_case_t imm3[] = { {3, 0, 0, 97} };
    check_ops(g, "sub.u32 %r13, 100, %r10", imm3, N(imm3));
}

static void test_mul_hi(void **state)
{
    gpu_t *g = *state;
    op_case_t u[] = {
        {0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0xFFFFFFFEu},  /* (2^32-1)^2 = 0xFFFFFFFE_00000001 */
        {INT_MIN_BITS, 2, 0, 1},
        {0xFFFFFFFFu, 1, 0, 0},
        {0x12345678u, 0x9ABCDEF0u, 0, 0x0B00EA4Eu},
    };
    check_ops(g, "mul.hi.u32 %r13, %r10, %r11", u, N(u));
    op_case_t s[] = {
        {S(-1), S(-1), 0, 0},                          /* +1 */
        {S(-1), 1, 0, 0xFFFFFFFFu},                    /* -1: high word all ones */
        {INT_MIN_BITS, INT_MIN_BITS, 0, 0x40000000u},  /* 2^62 */
        {INT_MAX_BITS, INT_MAX_BITS, 0, 0x3FFFFFFFu},
        {INT_MIN_BITS, INT_MAX_BITS, 0, 0xC0000000u},  /* -2^62 + 2^31 */
        {INT_MIN_BITS, 2, 0, 0xFFFFFFFFu},
        {0x12345678u, 0x9ABCDEF0u, 0, 0xF8CC93D6u},
    };
    check_ops(g, "mul.hi.s32 %r13, %r10, %r11", s, N(s));
}

static void test_div_rem(void **state)
{
    gpu_t *g = *state;
    op_case_t du[] = { {7, 2, 0, 3}, {7, 0, 0, 0xFFFFFFFFu}, {0, 0, 0, 0xFFFFFFFFu},
                       {0xFFFFFFFFu, 2, 0, 0x7FFFFFFFu}, {INT_MIN_BITS, 0xFFFFFFFFu, 0, 0} };
    check_ops(g, "div.u32 %r13, %r10, %r11", du, N(du));
    op_case_t ds[] = { {S(-7), 2, 0, S(-3)}, {7, S(-2), 0, S(-3)}, {S(-7), 0, 0, 0xFFFFFFFFu},
                       {INT_MIN_BITS, S(-1), 0, INT_MIN_BITS},   /* overflow wraps */
                       {INT_MIN_BITS, 1, 0, INT_MIN_BITS}, {S(-1), 2, 0, 0} };
    check_ops(g, "div.s32 %r13, %r10, %r11", ds, N(ds));
    op_case_t ru[] = { {7, 0, 0, 7}, {0xFFFFFFFFu, 10, 0, 5}, {7, 3, 0, 1}, {INT_MIN_BITS, 0xFFFFFFFFu, 0, INT_MIN_BITS} };
    check_ops(g, "rem.u32 %r13, %r10, %r11", ru, N(ru));
    op_case_t rs[] = { {S(-7), 2, 0, S(-1)}, {7, S(-2), 0, 1}, {S(-7), 0, 0, S(-7)},
                       {INT_MIN_BITS, S(-1), 0, 0}, {S(-1), 10, 0, S(-1)} };
    check_ops(g, "rem.s32 %r13, %r10, %r11", rs, N(rs));
    op_case_t df[] = { {F(1), F(0), 0, F(INFINITY)}, {F(0), F(0), 0, ANY_NAN}, {F(-1), F(0), 0, F(-INFINITY)},
                       {F(1), F(3), 0, 0x3EAAAAABu} };
    check_ops(g, "div.f32 %r13, %r10, %r11", df, N(df));
}

static void test_shifts(void **state)
{
    gpu_t *g = *state;
    op_case_t shl[] = { {1, 31, 0, INT_MIN_BITS}, {1, 32, 0, 0}, {1, 33, 0, 0}, {0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0},
                        {0x12345678u, 4, 0, 0x23456780u}, {5, 0, 0, 5} };
    check_ops(g, "shl.b32 %r13, %r10, %r11", shl, N(shl));
    op_case_t shru[] = { {INT_MIN_BITS, 31, 0, 1}, {INT_MIN_BITS, 32, 0, 0}, {0xFFFFFFFFu, 100, 0, 0},
                         {INT_MIN_BITS, 4, 0, 0x08000000u} };
    check_ops(g, "shr.u32 %r13, %r10, %r11", shru, N(shru));
    check_ops(g, "shr.b32 %r13, %r10, %r11", shru, N(shru));
    op_case_t shrs[] = { {INT_MIN_BITS, 31, 0, 0xFFFFFFFFu}, {INT_MIN_BITS, 4, 0, 0xF8000000u},
                         {INT_MIN_BITS, 32, 0, 0xFFFFFFFFu}, {INT_MIN_BITS, 200, 0, 0xFFFFFFFFu},
                         {INT_MAX_BITS, 40, 0, 0}, {INT_MAX_BITS, 30, 0, 1}, {S(-16), 2, 0, S(-4)},
                         {S(-1), 1, 0, S(-1)}, {S(-5), 1, 0, S(-3)} /* rounds toward -inf */ };
    check_ops(g, "shr.s32 %r13, %r10, %r11", shrs, N(shrs));
}

static void test_min_max_abs_neg_logic(void **state)
{
    gpu_t *g = *state;
    op_case_t mins[] = { {0xFFFFFFFFu, 1, 0, 0xFFFFFFFFu}, {INT_MIN_BITS, INT_MAX_BITS, 0, INT_MIN_BITS} };
    check_ops(g, "min.s32 %r13, %r10, %r11", mins, N(mins));
    op_case_t minu[] = { {0xFFFFFFFFu, 1, 0, 1}, {INT_MIN_BITS, INT_MAX_BITS, 0, INT_MAX_BITS} };
    check_ops(g, "min.u32 %r13, %r10, %r11", minu, N(minu));
    op_case_t maxs[] = { {0xFFFFFFFFu, 1, 0, 1}, {INT_MIN_BITS, INT_MAX_BITS, 0, INT_MAX_BITS} };
    check_ops(g, "max.s32 %r13, %r10, %r11", maxs, N(maxs));
    op_case_t maxu[] = { {0xFFFFFFFFu, 1, 0, 0xFFFFFFFFu}, {INT_MIN_BITS, INT_MAX_BITS, 0, INT_MIN_BITS} };
    check_ops(g, "max.u32 %r13, %r10, %r11", maxu, N(maxu));
    /* f32 min/max: IEEE minNum / maxNum, a NaN operand loses */
    op_case_t minf[] = { {F(NAN), F(3), 0, F(3)}, {F(3), F(NAN), 0, F(3)}, {F(1), F(2), 0, F(1)},
                         {F(-INFINITY), F(1), 0, F(-INFINITY)}, {F(NAN), F(NAN), 0, ANY_NAN} };
    check_ops(g, "min.f32 %r13, %r10, %r11", minf, N(minf));
    op_case_t maxf[] = { {F(NAN), F(3), 0, F(3)}, {F(3), F(NAN), 0, F(3)}, {F(2), F(1), 0, F(2)},
                         {F(-1), F(-2), 0, F(-1)} };
    check_ops(g, "max.f32 %r13, %r10, %r11", maxf, N(maxf));

    op_case_t abss[] = { {S(-5), 0, 0, 5}, {INT_MIN_BITS, 0, 0, INT_MIN_BITS}, {7, 0, 0, 7} };
    check_ops(g, "abs.s32 %r13, %r10", abss, N(abss));
    op_case_t negs[] = { {5, 0, 0, S(-5)}, {INT_MIN_BITS, 0, 0, INT_MIN_BITS}, {0, 0, 0, 0} };
    check_ops(g, "neg.s32 %r13, %r10", negs, N(negs));
    op_case_t absf[] = { {F(-0.0f), 0, 0, 0}, {F(-2.5f), 0, 0, F(2.5f)}, {F(-INFINITY), 0, 0, F(INFINITY)} };
    check_ops(g, "abs.f32 %r13, %r10", absf, N(absf));
    op_case_t negf[] = { {0, 0, 0, INT_MIN_BITS}, {F(1.5f), 0, 0, F(-1.5f)}, {F(-INFINITY), 0, 0, F(INFINITY)} };
    check_ops(g, "neg.f32 %r13, %r10", negf, N(negf));

    op_case_t l[] = { {0xF0F0F0F0u, 0xFF00FF00u, 0, 0} };
    l[0].want = 0xF000F000u;
    check_ops(g, "and.b32 %r13, %r10, %r11", l, 1);
    l[0].want = 0xFFF0FFF0u;
    check_ops(g, "or.b32 %r13, %r10, %r11", l, 1);
    l[0].want = 0x0FF00FF0u;
    check_ops(g, "xor.b32 %r13, %r10, %r11", l, 1);
    l[0].want = 0x0F0F0F0Fu;
    check_ops(g, "not.b32 %r13, %r10", l, 1);
}

static void test_f32_arith(void **state)
{
    gpu_t *g = *state;
    op_case_t add[] = {
        {F(1), F(2), 0, F(3)},
        {F(INFINITY), F(-INFINITY), 0, ANY_NAN},
        {0x7F7FFFFFu, 0x7F7FFFFFu, 0, F(INFINITY)},     /* FLT_MAX + FLT_MAX overflows */
        {0x00000001u, 0x00000001u, 0, 0x00000002u},     /* denormals are kept, not flushed */
        {F(16777216.0f), F(1), 0, F(16777216.0f)},      /* 2^24 + 1: tie, rounds to even */
        {F(16777216.0f), F(3), 0, F(16777220.0f)},      /* 2^24 + 3: tie, rounds to even (up) */
    };
    check_ops(g, "add.f32 %r13, %r10, %r11", add, N(add));
    op_case_t sub[] = { {F(1), F(1), 0, 0}, {F(1), F(3), 0, F(-2)} };
    check_ops(g, "sub.f32 %r13, %r10, %r11", sub, N(sub));
    op_case_t mul[] = { {0x00800000u, F(0.5f), 0, 0x00400000u},  /* smallest normal / 2: a denormal */
                        {0x7F7FFFFFu, F(2), 0, F(INFINITY)}, {0, F(INFINITY), 0, ANY_NAN},
                        {F(-2), F(0), 0, 0x80000000u} };
    check_ops(g, "mul.f32 %r13, %r10, %r11", mul, N(mul));
    op_case_t imm[] = { {F(1), 0, 0, F(2.5f)} };
    check_ops(g, "add.f32 %r13, %r10, 1.5", imm, N(imm));
    op_case_t mov[] = { {0, 0, 0, F(2.0f)} };
    check_ops(g, "mov.f32 %r13, 2", mov, N(mov));
    op_case_t movb[] = { {0, 0, 0, 0x7F800000u} };
    check_ops(g, "mov.f32 %r13, 0f7F800000", movb, N(movb));
    op_case_t movi[] = { {0, 0, 0, 0xFFFFFFFFu} };
    check_ops(g, "mov.u32 %r13, -1", movi, N(movi));
}

/* a = b = 1 + 2^-12, c = -(1 + 2^-11). The exact a*b is 1 + 2^-11 + 2^-24;
 * rounded to binary32 first (a tie at 2^-24, to even) it is 1 + 2^-11, so
 * a*b + c rounded twice is 0, while the fused result is exactly 2^-24. */
static void test_fma_single_rounding(void **state)
{
    gpu_t *g = *state;
    uint32_t a = 0x3F800800u, c = 0xBF801000u, fused = 0x33800000u;
    assert_int_equal(F(1.0f + 1.0f / 4096.0f), a);             /* the constants are what they claim */
    assert_int_equal(F(ldexpf(1.0f, -24)), fused);
    op_case_t fma[] = { {a, a, c, fused}, {F(2), F(3), F(1), F(7)}, {F(INFINITY), 0, F(1), ANY_NAN} };
    check_ops(g, "fma.f32 %r13, %r10, %r11, %r12", fma, N(fma));
    check_ops(g, "mad.f32 %r13, %r10, %r11, %r12", fma, N(fma));   /* mad.f32 is fused too */
    op_case_t twice[] = { {a, a, c, 0} };                          /* the inputs do discriminate */
    check_ops(g, "mul.f32 %r14, %r10, %r11\nadd.f32 %r13, %r14, %r12", twice, N(twice));
}

static void test_sfu(void **state)
{
    gpu_t *g = *state;
    op_case_t rcp[] = { {F(2), 0, 0, F(0.5f)}, {F(0), 0, 0, F(INFINITY)}, {F(-0.0f), 0, 0, F(-INFINITY)},
                        {F(-4), 0, 0, F(-0.25f)} };
    check_ops(g, "rcp.f32 %r13, %r10", rcp, N(rcp));
    op_case_t sq[] = { {F(4), 0, 0, F(2)}, {F(-1), 0, 0, ANY_NAN}, {F(INFINITY), 0, 0, F(INFINITY)}, {F(2.25f), 0, 0, F(1.5f)} };
    check_ops(g, "sqrt.f32 %r13, %r10", sq, N(sq));
    op_case_t rs[] = { {F(4), 0, 0, F(0.5f)}, {F(0.25f), 0, 0, F(2)} };
    check_ops(g, "rsqrt.f32 %r13, %r10", rs, N(rs));
    op_case_t ex[] = { {F(3), 0, 0, F(8)}, {F(-1), 0, 0, F(0.5f)}, {F(0), 0, 0, F(1)} };
    check_ops(g, "ex2.f32 %r13, %r10", ex, N(ex));
    op_case_t lg[] = { {F(8), 0, 0, F(3)}, {F(0), 0, 0, F(-INFINITY)}, {F(1), 0, 0, 0}, {F(-1), 0, 0, ANY_NAN} };
    check_ops(g, "lg2.f32 %r13, %r10", lg, N(lg));
    op_case_t sn[] = { {F(0), 0, 0, F(0)} };
    check_ops(g, "sin.f32 %r13, %r10", sn, N(sn));
    op_case_t cs[] = { {F(0), 0, 0, F(1)} };
    check_ops(g, "cos.f32 %r13, %r10", cs, N(cs));
}

/* setp.CMP.f32 with a NaN operand is false for every CMP but ne. */
static void test_setp_f32_nan(void **state)
{
    gpu_t *g = *state;
    static const char *const cmps[6] = { "eq", "ne", "lt", "le", "gt", "ge" };
    /* per case: the six results eq ne lt le gt ge */
    const struct { uint32_t a, b; int r[6]; } t[] = {
        {F(NAN), F(1), {0, 1, 0, 0, 0, 0}},
        {F(1), F(NAN), {0, 1, 0, 0, 0, 0}},
        {F(NAN), F(NAN), {0, 1, 0, 0, 0, 0}},
        {F(1), F(2), {0, 1, 1, 1, 0, 0}},
        {F(2), F(2), {1, 0, 0, 1, 0, 1}},
        {F(-0.0f), F(0.0f), {1, 0, 0, 1, 0, 1}},
        {F(-INFINITY), F(-1e30f), {0, 1, 1, 1, 0, 0}},
    };
    for (int k = 0; k < 6; k++) {
        op_case_t cs[N(t)];
        for (size_t i = 0; i < N(t); i++)
            cs[i] = (op_case_t){ t[i].a, t[i].b, 0, (uint32_t)t[i].r[k] };
        char body[128];
        snprintf(body, sizeof body, "setp.%s.f32 %%p1, %%r10, %%r11\nselp.u32 %%r13, 1, 0, %%p1", cmps[k]);
        check_ops(g, body, cs, N(cs));
    }
}

static void test_setp_int_signedness_and_selp(void **state)
{
    gpu_t *g = *state;
    op_case_t lts[] = { {0xFFFFFFFFu, 1, 0, 1}, {1, 0xFFFFFFFFu, 0, 0}, {INT_MIN_BITS, INT_MAX_BITS, 0, 1} };
    check_ops(g, "setp.lt.s32 %p1, %r10, %r11\nselp.u32 %r13, 1, 0, %p1", lts, N(lts));
    op_case_t ltu[] = { {0xFFFFFFFFu, 1, 0, 0}, {1, 0xFFFFFFFFu, 0, 1}, {INT_MIN_BITS, INT_MAX_BITS, 0, 0} };
    check_ops(g, "setp.lt.u32 %p1, %r10, %r11\nselp.u32 %r13, 1, 0, %p1", ltu, N(ltu));
    op_case_t ges[] = { {INT_MIN_BITS, INT_MAX_BITS, 0, 0}, {5, 5, 0, 1} };
    check_ops(g, "setp.ge.s32 %p1, %r10, %r11\nselp.u32 %r13, 1, 0, %p1", ges, N(ges));
    op_case_t imm[] = { {4, 0, 0, 1}, {5, 0, 0, 0} };
    check_ops(g, "setp.lt.u32 %p1, %r10, 5\nselp.u32 %r13, 1, 0, %p1", imm, N(imm));
    /* selp picks a where p, b elsewhere, lane by lane */
    op_case_t sel[] = { {11, 22, 1, 11}, {11, 22, 0, 22}, {F(1.5f), F(-3), 7, F(1.5f)} };
    check_ops(g, "setp.ne.u32 %p1, %r12, 0\nselp.u32 %r13, %r10, %r11, %p1", sel, N(sel));
    check_ops(g, "setp.ne.u32 %p1, %r12, 0\nselp.f32 %r13, %r10, %r11, %p1", sel, N(sel));
}

/* and/or/xor/not/mov on predicates; guards @%p and @!%p. */
static void test_predicates_and_guards(void **state)
{
    gpu_t *g = *state;
    const char *body =
        "setp.ne.u32 %p1, %r10, 0\n"
        "setp.ne.u32 %p2, %r11, 0\n"
        "and.pred %p3, %p1, %p2\n"
        "or.pred %p4, %p1, %p2\n"
        "xor.pred %p5, %p1, %p2\n"
        "not.pred %p6, %p1\n"
        "mov.pred %p7, %p2\n"
        "selp.u32 %r13, 1, 0, %p3\n"
        "selp.u32 %r14, 2, 0, %p4\nor.b32 %r13, %r13, %r14\n"
        "selp.u32 %r14, 4, 0, %p5\nor.b32 %r13, %r13, %r14\n"
        "selp.u32 %r14, 8, 0, %p6\nor.b32 %r13, %r13, %r14\n"
        "selp.u32 %r14, 16, 0, %p7\nor.b32 %r13, %r13, %r14";
    /* bits: and=1 or=2 xor=4 not(p1)=8 mov(p2)=16 */
    op_case_t t[] = { {0, 0, 0, 8}, {0, 1, 0, 2 | 4 | 8 | 16}, {1, 0, 0, 2 | 4}, {1, 1, 0, 1 | 2 | 16} };
    check_ops(g, body, t, N(t));

    /* a guarded instruction leaves the other lanes' destination alone */
    op_case_t gd[] = { {5, 6, 1, 5}, {5, 6, 0, 0x5EEDF00Du} };
    check_ops(g, "setp.ne.u32 %p1, %r12, 0\n@%p1 mov.u32 %r13, %r10", gd, N(gd));
    op_case_t gn[] = { {5, 6, 1, 0x5EEDF00Du}, {5, 6, 0, 6} };
    check_ops(g, "setp.ne.u32 %p1, %r12, 0\n@!%p1 mov.u32 %r13, %r11", gn, N(gn));
    /* a guarded setp leaves the other lanes' predicate bits alone */
    op_case_t gs[] = { {1, 0, 1, 1}, {1, 0, 0, 0}, {0, 1, 1, 0}, {0, 1, 0, 1} };
    check_ops(g, "setp.ne.u32 %p2, %r11, 0\nsetp.ne.u32 %p1, %r12, 0\n"
                 "@%p1 setp.ne.u32 %p2, %r10, 0\nselp.u32 %r13, 1, 0, %p2", gs, N(gs));
}

static void test_cvt(void **state)
{
    gpu_t *g = *state;
    op_case_t fs[] = {
        {F(2.7f), 0, 0, 2}, {F(-2.7f), 0, 0, S(-2)},                 /* toward zero */
        {F(3e9f), 0, 0, INT_MAX_BITS}, {F(-3e9f), 0, 0, INT_MIN_BITS}, /* saturate */
        {F(NAN), 0, 0, 0}, {F(INFINITY), 0, 0, INT_MAX_BITS}, {F(-INFINITY), 0, 0, INT_MIN_BITS},
        {0x4EFFFFFFu, 0, 0, 0x7FFFFF80u},                             /* largest float below 2^31 */
        {0x4F000000u, 0, 0, INT_MAX_BITS},                            /* 2^31 */
        {0xCF000000u, 0, 0, INT_MIN_BITS},                            /* -2^31 is exact */
        {F(-0.5f), 0, 0, 0}, {F(0.99999994f), 0, 0, 0},
    };
    check_ops(g, "cvt.s32.f32 %r13, %r10", fs, N(fs));
    op_case_t fu[] = { {F(-1.5f), 0, 0, 0}, {F(5e9f), 0, 0, 0xFFFFFFFFu}, {F(NAN), 0, 0, 0},
                       {F(3e9f), 0, 0, 3000000000u}, {0x4F7FFFFFu, 0, 0, 0xFFFFFF00u}, {F(7.9f), 0, 0, 7} };
    check_ops(g, "cvt.u32.f32 %r13, %r10", fu, N(fu));
    op_case_t f8[] = { {F(300.7f), 0, 0, 255}, {F(-5), 0, 0, 0}, {F(7.9f), 0, 0, 7}, {F(NAN), 0, 0, 0} };
    check_ops(g, "cvt.u8.f32 %r13, %r10", f8, N(f8));
    op_case_t fs8[] = { {F(-200), 0, 0, S(-128)}, {F(200), 0, 0, 127}, {F(-3.5f), 0, 0, S(-3)} };
    check_ops(g, "cvt.s8.f32 %r13, %r10", fs8, N(fs8));
    op_case_t fs16[] = { {F(-40000), 0, 0, S(-32768)}, {F(40000), 0, 0, 32767} };
    check_ops(g, "cvt.s16.f32 %r13, %r10", fs16, N(fs16));
    op_case_t fu16[] = { {F(70000), 0, 0, 65535}, {F(-1), 0, 0, 0} };
    check_ops(g, "cvt.u16.f32 %r13, %r10", fu16, N(fu16));

    op_case_t sf[] = { {S(-7), 0, 0, F(-7)}, {INT_MIN_BITS, 0, 0, 0xCF000000u}, {INT_MAX_BITS, 0, 0, 0x4F000000u},
                       {16777217u, 0, 0, F(16777216.0f)} };
    check_ops(g, "cvt.f32.s32 %r13, %r10", sf, N(sf));
    op_case_t uf[] = { {0xFFFFFFFFu, 0, 0, 0x4F800000u}, {INT_MIN_BITS, 0, 0, 0x4F000000u}, {3, 0, 0, F(3)} };
    check_ops(g, "cvt.f32.u32 %r13, %r10", uf, N(uf));
    op_case_t nf[] = { {0x80u, 0, 0, F(-128)}, {0x17Fu, 0, 0, F(127)} };
    check_ops(g, "cvt.f32.s8 %r13, %r10", nf, N(nf));
    op_case_t nuf[] = { {0x1FFu, 0, 0, F(255)} };
    check_ops(g, "cvt.f32.u8 %r13, %r10", nuf, N(nuf));

    /* integer to integer: truncate to the destination width, then extend
     * by the destination's signedness */
    op_case_t u8[] = { {0x1234u, 0, 0, 0x34u}, {0xFFu, 0, 0, 0xFFu}, {0x100u, 0, 0, 0} };
    check_ops(g, "cvt.u8.u32 %r13, %r10", u8, N(u8));
    op_case_t s8[] = { {0x80u, 0, 0, 0xFFFFFF80u}, {0x17Fu, 0, 0, 0x7Fu}, {0xFFFFFFFFu, 0, 0, 0xFFFFFFFFu} };
    check_ops(g, "cvt.s8.s32 %r13, %r10", s8, N(s8));
    op_case_t u16[] = { {0xFFFF8000u, 0, 0, 0x8000u} };
    check_ops(g, "cvt.u16.s32 %r13, %r10", u16, N(u16));
    op_case_t fromS8[] = { {0xFFu, 0, 0, 0xFFFFFFFFu}, {0x17Fu, 0, 0, 0x7Fu} };
    check_ops(g, "cvt.s32.s8 %r13, %r10", fromS8, N(fromS8));
    op_case_t fromU16[] = { {0x12345678u, 0, 0, 0x5678u} };
    check_ops(g, "cvt.u32.u16 %r13, %r10", fromU16, N(fromU16));
}

/* ---- memory: narrow loads and stores, addressing, params -------------------- */

static void test_narrow_loads_and_stores(void **state)
{
    gpu_t *g = *state;
    const uint8_t bytes[16] = { 0x80, 0xFF, 0x7F, 0x01, 0x00, 0x80, 0xFF, 0xFF,
                                0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11 };
    uint32_t a = support_buffer(g, "bytes", bytes, 16);
    uint32_t o = support_buffer(g, "out", NULL, 64);
    const char *src =
        ".kernel narrow\n.param a\n.param o\n"
        "ld.param.u32 %r1, [a]\nld.param.u32 %r2, [o]\n"
        "ld.global.s8 %r3, [%r1]\nst.global.u32 [%r2], %r3\n"
        "ld.global.s8 %r3, [%r1+1]\nst.global.u32 [%r2+4], %r3\n"
        "ld.global.s8 %r3, [%r1+2]\nst.global.u32 [%r2+8], %r3\n"
        "ld.global.u8 %r3, [%r1]\nst.global.u32 [%r2+12], %r3\n"
        "ld.global.s16 %r3, [%r1+4]\nst.global.u32 [%r2+16], %r3\n"
        "ld.global.u16 %r3, [%r1+4]\nst.global.u32 [%r2+20], %r3\n"
        "ld.global.s16 %r3, [%r1+6]\nst.global.u32 [%r2+24], %r3\n"
        "ld.global.u16 %r3, [%r1+6]\nst.global.u32 [%r2+28], %r3\n"
        "ld.global.u32 %r3, [%r1]\nst.global.u32 [%r2+32], %r3\n"
        "add.u32 %r4, %r1, 12\nld.global.u32 %r3, [%r4-8]\nst.global.u32 [%r2+36], %r3\n"
        /* narrow stores write only their bytes */
        "mov.u32 %r5, 0x1234ABCD\n"
        "st.global.u8 [%r1+9], %r5\n"
        "st.global.u16 [%r1+14], %r5\n"
        "exit\n";
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, (uint32_t[]){a, o}, 2, NULL);
    uint32_t out[10];
    support_read(g, o, out, sizeof out);
    assert_int_equal(out[0], 0xFFFFFF80u);
    assert_int_equal(out[1], 0xFFFFFFFFu);
    assert_int_equal(out[2], 0x7Fu);
    assert_int_equal(out[3], 0x80u);
    assert_int_equal(out[4], 0xFFFF8000u);      /* bytes 00 80, little endian */
    assert_int_equal(out[5], 0x8000u);
    assert_int_equal(out[6], 0xFFFFFFFFu);
    assert_int_equal(out[7], 0xFFFFu);
    assert_int_equal(out[8], 0x017FFF80u);
    assert_int_equal(out[9], 0xFFFF8000u);      /* [%r4-8] = bytes 4..7 */
    uint8_t after[16];
    support_read(g, a, after, 16);
    const uint8_t want[16] = { 0x80, 0xFF, 0x7F, 0x01, 0x00, 0x80, 0xFF, 0xFF,
                               0x11, 0xCD, 0x11, 0x11, 0x11, 0x11, 0xCD, 0xAB };
    assert_memory_equal(after, want, 16);
    simt_err_t e;
    gpu_mfree(g, o, &e);
    gpu_mfree(g, a, &e);
}

static void test_ld_param_and_immediate_store(void **state)
{
    gpu_t *g = *state;
    uint32_t o = support_buffer(g, "out", NULL, 16);
    const char *src =
        ".kernel params\n.param o\n.param x\n.param y\n"
        "ld.param.u32 %r1, [o]\nld.param.u32 %r2, [x]\nld.param.u32 %r3, [y]\n"
        "st.global.u32 [%r1], %r2\nst.global.u32 [%r1+4], %r3\n"
        "ld.param.f32 %r4, [y]\nadd.f32 %r4, %r4, %r4\nst.global.f32 [%r1+8], %r4\n"
        "st.global.u32 [%r1+12], 77\n"
        "exit\n";
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1},
           (uint32_t[]){o, 0xCAFEBABEu, F(1.25f)}, 3, NULL);
    uint32_t out[4];
    support_read(g, o, out, sizeof out);
    assert_int_equal(out[0], 0xCAFEBABEu);
    assert_int_equal(out[1], F(1.25f));
    assert_int_equal(out[2], F(2.5f));
    assert_int_equal(out[3], 77);
    simt_err_t e;
    gpu_mfree(g, o, &e);
}

/* ---- atomics ------------------------------------------------------------------ */

/* One warp, every lane on the same word, per operation. Lanes apply in
 * lane order, so lane l sees the word after lanes 0..l-1. The counters
 * live at ctr[0..6] (global) or in a .shared copy; old values go to
 * old[op * 32 + lane]; final words are copied to fin[0..6]. */
static const char ATOM_KERNEL[] =
    ".kernel atoms\n.param ctr\n.param old\n.param fin\n"
    ".shared sh 32\n"
    "mov.u32 %%r0, %%laneid\n"
    "ld.param.u32 %%r1, [ctr]\n"
    "ld.param.u32 %%r2, [old]\nshl.b32 %%r3, %%r0, 2\nadd.u32 %%r2, %%r2, %%r3\n"
    "%s"                                  /* shared: copy ctr into sh, %%r1 = sh */
    "atom.%s.add.u32 %%r4, [%%r1], 1\nst.global.u32 [%%r2], %%r4\n"
    "sub.u32 %%r5, 100, %%r0\n"
    "atom.%s.min.u32 %%r4, [%%r1+4], %%r5\nst.global.u32 [%%r2+128], %%r4\n"
    "atom.%s.max.u32 %%r4, [%%r1+8], %%r0\nst.global.u32 [%%r2+256], %%r4\n"
    "atom.%s.exch.b32 %%r4, [%%r1+12], %%r0\nst.global.u32 [%%r2+384], %%r4\n"
    "add.u32 %%r6, %%r0, 1\n"
    "atom.%s.cas.b32 %%r4, [%%r1+16], %%r0, %%r6\nst.global.u32 [%%r2+512], %%r4\n"
    "atom.%s.add.f32 %%r4, [%%r1+20], 0.5\nst.global.u32 [%%r2+640], %%r4\n"
    "sub.s32 %%r7, %%r0, 16\n"
    "atom.%s.max.s32 %%r4, [%%r1+24], %%r7\nst.global.u32 [%%r2+768], %%r4\n"
    "%s"                                  /* shared: copy sh out to fin */
    "exit\n";

static void check_atomics(gpu_t *g, int shared)
{
    const char *sp = shared ? "shared" : "global";
    const char *in = shared ?
        "setp.ne.u32 %p0, %r0, 0\n@%p0 bra COPIED\n"
        "ld.global.u32 %r8, [%r1]\nst.shared.u32 [sh], %r8\n"
        "ld.global.u32 %r8, [%r1+4]\nst.shared.u32 [sh+4], %r8\n"
        "ld.global.u32 %r8, [%r1+8]\nst.shared.u32 [sh+8], %r8\n"
        "ld.global.u32 %r8, [%r1+12]\nst.shared.u32 [sh+12], %r8\n"
        "ld.global.u32 %r8, [%r1+16]\nst.shared.u32 [sh+16], %r8\n"
        "ld.global.u32 %r8, [%r1+20]\nst.shared.u32 [sh+20], %r8\n"
        "ld.global.u32 %r8, [%r1+24]\nst.shared.u32 [sh+24], %r8\n"
        "COPIED:\nbar.sync 0\nmov.u32 %r1, sh\n" : "";
    const char *out = shared ?
        "bar.sync 0\nsetp.ne.u32 %p0, %r0, 0\n@%p0 exit\nld.param.u32 %r9, [fin]\n"
        "ld.shared.u32 %r8, [sh]\nst.global.u32 [%r9], %r8\n"
        "ld.shared.u32 %r8, [sh+4]\nst.global.u32 [%r9+4], %r8\n"
        "ld.shared.u32 %r8, [sh+8]\nst.global.u32 [%r9+8], %r8\n"
        "ld.shared.u32 %r8, [sh+12]\nst.global.u32 [%r9+12], %r8\n"
        "ld.shared.u32 %r8, [sh+16]\nst.global.u32 [%r9+16], %r8\n"
        "ld.shared.u32 %r8, [sh+20]\nst.global.u32 [%r9+20], %r8\n"
        "ld.shared.u32 %r8, [sh+24]\nst.global.u32 [%r9+24], %r8\n" : "";
    char src[4096];
    snprintf(src, sizeof src, ATOM_KERNEL, in, sp, sp, sp, sp, sp, sp, sp, out);

    const uint32_t init[8] = { 0, 1000, 0, 0x77, 0, 0, INT_MIN_BITS, 0 };
    uint32_t ctr = support_buffer(g, "ctr", init, sizeof init);
    uint32_t old = support_buffer(g, "old", NULL, 7 * 32 * 4);
    uint32_t fin = support_buffer(g, "fin", NULL, 32);
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[]){ctr, old, fin}, 3, NULL);
    uint32_t o[7][32], f[8];
    support_read(g, old, o, sizeof o);
    support_read(g, shared ? fin : ctr, f, sizeof f);
    for (uint32_t l = 0; l < 32; l++) {
        assert_int_equal(o[0][l], l);                               /* add 1 */
        assert_int_equal(o[1][l], l == 0 ? 1000 : 101 - l);         /* min of 100-k, k < l */
        assert_int_equal(o[2][l], l == 0 ? 0 : l - 1);              /* max of k, k < l */
        assert_int_equal(o[3][l], l == 0 ? 0x77 : l - 1);           /* exch: previous lane's value */
        assert_int_equal(o[4][l], l);                               /* cas(l -> l+1) always matches */
        assert_int_equal(o[5][l], F(0.5f * (float)l));              /* f32 add 0.5 */
        assert_int_equal(o[6][l], l == 0 ? INT_MIN_BITS : S((int32_t)l - 17)); /* signed max */
    }
    assert_int_equal(f[0], 32);
    assert_int_equal(f[1], 69);
    assert_int_equal(f[2], 31);
    assert_int_equal(f[3], 31);
    assert_int_equal(f[4], 32);
    assert_int_equal(f[5], F(16.0f));
    assert_int_equal(f[6], 15);
    simt_err_t e;
    gpu_mfree(g, fin, &e);
    gpu_mfree(g, old, &e);
    gpu_mfree(g, ctr, &e);
}

static void test_atomics_global_lane_order(void **state)
{
    check_atomics(*state, 0);
}

static void test_atomics_shared_lane_order(void **state)
{
    check_atomics(*state, 1);
}

/* Many warps and blocks on one counter: every old value is handed out
 * exactly once, whatever the order between warps. */
static void test_atomics_many_warps(void **state)
{
    gpu_t *g = *state;
    enum { BLOCKS = 5, THREADS = 200, TOTAL = BLOCKS * THREADS };
    uint32_t ctr = support_buffer(g, "ctr", NULL, 4);
    uint32_t old = support_buffer(g, "old", NULL, TOTAL * 4);
    const char *src =
        ".kernel many\n.param ctr\n.param old\n"
        "mov.u32 %r0, %ctaid.x\nmov.u32 %r1, %ntid.x\nmov.u32 %r2, %tid.x\nmad.lo.u32 %r3, %r0, %r1, %r2\n"
        "ld.param.u32 %r4, [ctr]\natom.global.add.u32 %r5, [%r4], 1\n"
        "ld.param.u32 %r6, [old]\nshl.b32 %r7, %r3, 2\nadd.u32 %r6, %r6, %r7\nst.global.u32 [%r6], %r5\n"
        "exit\n";
    run_ok(g, src, (uint32_t[3]){BLOCKS, 1, 1}, (uint32_t[3]){THREADS, 1, 1}, (uint32_t[]){ctr, old}, 2, NULL);
    uint32_t final = 0;
    static uint32_t o[TOTAL];
    static uint8_t seen[TOTAL];
    memset(seen, 0, sizeof seen);
    support_read(g, ctr, &final, 4);
    support_read(g, old, o, sizeof o);
    assert_int_equal(final, TOTAL);
    for (uint32_t i = 0; i < TOTAL; i++) {
        assert_true(o[i] < TOTAL);
        assert_int_equal(seen[o[i]], 0);
        seen[o[i]] = 1;
    }
    /* within one warp, lanes take consecutive values in lane order */
    for (uint32_t i = 1; i < 32; i++)
        assert_int_equal(o[i], o[0] + i);
    simt_err_t e;
    gpu_mfree(g, old, &e);
    gpu_mfree(g, ctr, &e);
}

/* ---- special registers -------------------------------------------------------- */

static void test_special_registers_3d_block(void **state)
{
    gpu_t *g = *state;
    enum { BX = 5, BY = 4, BZ = 3, T = BX * BY * BZ, K = 8 };
    uint32_t o = support_buffer(g, "out", NULL, T * K * 4);
    const char *src =
        ".kernel sregs\n.param o\n"
        "mov.u32 %r1, %tid.x\nmov.u32 %r2, %tid.y\nmov.u32 %r3, %tid.z\n"
        /* linear id computed from the documented meaning: x fastest */
        "mov.u32 %r4, %ntid.x\nmov.u32 %r5, %ntid.y\n"
        "mad.lo.u32 %r6, %r3, %r5, %r2\nmad.lo.u32 %r6, %r6, %r4, %r1\n"
        "mul.lo.u32 %r7, %r6, 32\nld.param.u32 %r8, [o]\nadd.u32 %r8, %r8, %r7\n"
        "st.global.u32 [%r8], %r1\nst.global.u32 [%r8+4], %r2\nst.global.u32 [%r8+8], %r3\n"
        "st.global.u32 [%r8+12], %r4\nst.global.u32 [%r8+16], %r5\n"
        "mov.u32 %r9, %ntid.z\nst.global.u32 [%r8+20], %r9\n"
        "mov.u32 %r9, %laneid\nst.global.u32 [%r8+24], %r9\n"
        "mov.u32 %r9, %warpid\nst.global.u32 [%r8+28], %r9\n"
        "exit\n";
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){BX, BY, BZ}, (uint32_t[]){o}, 1, NULL);
    static uint32_t out[T][K];
    support_read(g, o, out, sizeof out);
    for (uint32_t z = 0; z < BZ; z++)
        for (uint32_t y = 0; y < BY; y++)
            for (uint32_t x = 0; x < BX; x++) {
                uint32_t lin = (z * BY + y) * BX + x;
                const uint32_t want[K] = { x, y, z, BX, BY, BZ, lin % 32, lin / 32 };
                for (int k = 0; k < K; k++)
                    if (out[lin][k] != want[k])
                        fail_msg("thread (%u,%u,%u) field %d: want %u, got %u", (unsigned)x, (unsigned)y,
                                 (unsigned)z, k, (unsigned)want[k], (unsigned)out[lin][k]);
            }
    simt_err_t e;
    gpu_mfree(g, o, &e);
}

static void test_special_registers_grid(void **state)
{
    gpu_t *g = *state;
    enum { GX = 3, GY = 2, GZ = 4, NB = GX * GY * GZ };
    uint32_t o = support_buffer(g, "out", NULL, NB * 8 * 4);
    const char *src =
        ".kernel grid\n.param o\n"
        "mov.u32 %r1, %tid.x\nsetp.ne.u32 %p0, %r1, 0\n@%p0 exit\n"
        "mov.u32 %r2, %ctaid.x\nmov.u32 %r3, %ctaid.y\nmov.u32 %r4, %ctaid.z\n"
        "mov.u32 %r5, %nctaid.x\nmov.u32 %r6, %nctaid.y\nmov.u32 %r7, %nctaid.z\n"
        "mad.lo.u32 %r8, %r4, %r6, %r3\nmad.lo.u32 %r8, %r8, %r5, %r2\n"
        "shl.b32 %r8, %r8, 5\nld.param.u32 %r9, [o]\nadd.u32 %r9, %r9, %r8\n"
        "st.global.u32 [%r9], %r2\nst.global.u32 [%r9+4], %r3\nst.global.u32 [%r9+8], %r4\n"
        "st.global.u32 [%r9+12], %r5\nst.global.u32 [%r9+16], %r6\nst.global.u32 [%r9+20], %r7\n"
        "mov.u32 %r10, %smid\nst.global.u32 [%r9+24], %r10\n"
        "mov.u32 %r10, 1\nst.global.u32 [%r9+28], %r10\n"
        "exit\n";
    run_ok(g, src, (uint32_t[3]){GX, GY, GZ}, (uint32_t[3]){40, 1, 1}, (uint32_t[]){o}, 1, NULL);
    static uint32_t out[NB][8];
    support_read(g, o, out, sizeof out);
    uint32_t sms = gpu_desc(g)->sms;
    for (uint32_t z = 0; z < GZ; z++)
        for (uint32_t y = 0; y < GY; y++)
            for (uint32_t x = 0; x < GX; x++) {
                uint32_t b = (z * GY + y) * GX + x;
                assert_int_equal(out[b][0], x);
                assert_int_equal(out[b][1], y);
                assert_int_equal(out[b][2], z);
                assert_int_equal(out[b][3], GX);
                assert_int_equal(out[b][4], GY);
                assert_int_equal(out[b][5], GZ);
                assert_true(out[b][6] < sms);
                assert_int_equal(out[b][7], 1);
            }
    simt_err_t e;
    gpu_mfree(g, o, &e);
}

static void test_clock_advances(void **state)
{
    gpu_t *g = *state;
    uint32_t o = support_buffer(g, "out", NULL, 8);
    const char *src =
        ".kernel clk\n.param o\n"
        "mov.u32 %r1, %clock\nsqrt.f32 %r3, 2.0\nadd.f32 %r3, %r3, 1.0\nmov.u32 %r2, %clock\n"
        "ld.param.u32 %r4, [o]\nst.global.u32 [%r4], %r1\nst.global.u32 [%r4+4], %r2\nexit\n";
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, (uint32_t[]){o}, 1, NULL);
    uint32_t c[2];
    support_read(g, o, c, 8);
    /* the second read waits for the dependent sqrt + add, so > 1 cycle later */
    assert_true(c[1] > c[0] + 1);
    simt_err_t e;
    gpu_mfree(g, o, &e);
}

/* ---- divergence ---------------------------------------------------------------- */

/* Frame for per-thread results: %r0 = global thread id, the body leaves
 * its result in %r2, and it is stored to out[gid]. Threads that exit in
 * the body leave out[gid] at its initial 0xDEADBEEF. */
static const char DIV_FRAME[] =
    ".kernel div\n.param out\n"
    "mov.u32 %%r20, %%ctaid.x\nmov.u32 %%r21, %%ntid.x\nmov.u32 %%r0, %%tid.x\n"
    "mad.lo.u32 %%r22, %%r20, %%r21, %%r0\n"
    "mov.u32 %%r2, 0\n"
    "%s\n"
    "ld.param.u32 %%r23, [out]\nshl.b32 %%r24, %%r22, 2\nadd.u32 %%r23, %%r23, %%r24\n"
    "st.global.u32 [%%r23], %%r2\n"
    "exit\n";

#define DIV_BLOCKS 2
#define DIV_THREADS 50       /* two warps, the second one partial */
#define DIV_TOTAL (DIV_BLOCKS * DIV_THREADS)
#define UNTOUCHED 0xDEADBEEFu

/* Run body; out[gid] must equal want(tid) (tid = %tid.x). */
static void check_div(gpu_t *g, const char *body, uint32_t (*want)(uint32_t tid))
{
    uint32_t init[DIV_TOTAL], out[DIV_TOTAL];
    for (int i = 0; i < DIV_TOTAL; i++)
        init[i] = UNTOUCHED;
    uint32_t o = support_buffer(g, "out", init, sizeof init);
    char src[4096];
    snprintf(src, sizeof src, DIV_FRAME, body);
    gpu_stats_t st;
    run_ok(g, src, (uint32_t[3]){DIV_BLOCKS, 1, 1}, (uint32_t[3]){DIV_THREADS, 1, 1}, (uint32_t[]){o}, 1, &st);
    support_read(g, o, out, sizeof out);
    int bad = 0;
    for (uint32_t i = 0; i < DIV_TOTAL; i++) {
        uint32_t w = want(i % DIV_THREADS);
        if (out[i] != w) {
            if (bad < 8)
                print_error("  thread %u: want 0x%08x (%d), got 0x%08x (%d)\n", (unsigned)i, (unsigned)w,
                            (int)w, (unsigned)out[i], (int)out[i]);
            bad++;
        }
    }
    simt_err_t e;
    gpu_mfree(g, o, &e);
    if (bad)
        fail_msg("%d of %d threads wrong for:\n%s", bad, DIV_TOTAL, body);
}

static uint32_t want_if_else(uint32_t t) { return (t & 1 ? t * 2 : t + 100) + 1000; }
static uint32_t want_if_only(uint32_t t) { return t % 3 == 0 ? t + 7 : t; }
static uint32_t want_nested(uint32_t t)
{
    if (t < 16)
        return (t & 1 ? 1u : 2u) + 10 + 100;
    return (t % 4 == 0 ? 3u : 0u) + 20 + 100;
}
static uint32_t trips(uint32_t t) { return (t * 7) % 13; }
static uint32_t want_loop(uint32_t t) { uint32_t n = trips(t); return n * (n - 1) / 2 * 100 + n; }
static uint32_t want_early_exit(uint32_t t) { return t % 3 == 1 ? UNTOUCHED : t * 5; }
static uint32_t want_exit_in_loop(uint32_t t) { return t % 11 < 8 ? UNTOUCHED : 28; }
static uint32_t want_break(uint32_t t)
{
    uint32_t s = 0, i = 0;
    for (;; i++) {
        if (s > t) break;
        s += i;
    }
    return s * 1000 + i;
}

static void test_divergent_if_else(void **state)
{
    check_div(*state,
              "and.b32 %r1, %r0, 1\nsetp.eq.u32 %p0, %r1, 0\n@%p0 bra EVEN\n"
              "mul.lo.u32 %r2, %r0, 2\nbra END\n"
              "EVEN:\nadd.u32 %r2, %r0, 100\n"
              "END:\nadd.u32 %r2, %r2, 1000",
              want_if_else);
}

static void test_divergent_if_without_else(void **state)
{
    check_div(*state,
              "mov.u32 %r2, %r0\nrem.u32 %r1, %r0, 3\nsetp.ne.u32 %p0, %r1, 0\n@%p0 bra SKIP\n"
              "add.u32 %r2, %r2, 7\n"
              "SKIP:",
              want_if_only);
}

static void test_divergent_nested_ifs(void **state)
{
    check_div(*state,
              "setp.ge.u32 %p0, %r0, 16\n@%p0 bra HIGH\n"
              "  and.b32 %r1, %r0, 1\nsetp.eq.u32 %p1, %r1, 0\n@%p1 bra LOW_EVEN\n"
              "  mov.u32 %r2, 1\nbra LOW_END\n"
              "LOW_EVEN:\n  mov.u32 %r2, 2\n"
              "LOW_END:\n  add.u32 %r2, %r2, 10\nbra END\n"
              "HIGH:\n  rem.u32 %r1, %r0, 4\nsetp.ne.u32 %p2, %r1, 0\n@%p2 bra HIGH_END\n"
              "  mov.u32 %r2, 3\n"
              "HIGH_END:\n  add.u32 %r2, %r2, 20\n"
              "END:\nadd.u32 %r2, %r2, 100",
              want_nested);
}

static void test_divergent_loop_trip_counts(void **state)
{
    /* n = (tid * 7) % 13; sum of 0..n-1, and n iterations counted */
    check_div(*state,
              "mul.lo.u32 %r5, %r0, 7\nrem.u32 %r5, %r5, 13\n"
              "mov.u32 %r3, 0\nmov.u32 %r4, 0\n"
              "LOOP:\nsetp.ge.u32 %p0, %r3, %r5\n@%p0 bra DONE\n"
              "add.u32 %r4, %r4, %r3\nadd.u32 %r3, %r3, 1\nbra LOOP\n"
              "DONE:\nmad.lo.u32 %r2, %r4, 100, %r3",
              want_loop);
}

static void test_divergent_early_exit(void **state)
{
    check_div(*state,
              "rem.u32 %r1, %r0, 3\nsetp.eq.u32 %p0, %r1, 1\n@%p0 exit\n"
              "mul.lo.u32 %r2, %r0, 5",
              want_early_exit);
}

static void test_divergent_exit_inside_loop(void **state)
{
    /* for i in 0..7: if i == tid % 11: exit; sum += i */
    check_div(*state,
              "rem.u32 %r5, %r0, 11\nmov.u32 %r3, 0\n"
              "LOOP:\nsetp.eq.u32 %p0, %r3, %r5\n@%p0 exit\n"
              "add.u32 %r2, %r2, %r3\nadd.u32 %r3, %r3, 1\n"
              "setp.lt.u32 %p1, %r3, 8\n@%p1 bra LOOP",
              want_exit_in_loop);
}

static void test_divergent_break(void **state)
{
    /* i = 0; s = 0; while (1) { if (s > tid) break; s += i; i++; } */
    check_div(*state,
              "mov.u32 %r3, 0\nmov.u32 %r4, 0\n"
              "LOOP:\nsetp.gt.u32 %p0, %r4, %r0\n@%p0 bra OUT\n"
              "add.u32 %r4, %r4, %r3\nadd.u32 %r3, %r3, 1\nbra LOOP\n"
              "OUT:\nmad.lo.u32 %r2, %r4, 1000, %r3",
              want_break);
}

/* wgmma decodes its inputs with exec_decode_fast: every code of every
 * Tensor Core format must decode exactly as numfmt_decode does (NaN to a
 * NaN of the same sign is enough). */
static void test_decode_fast_matches_numfmt(void **state)
{
    (void)state;
    static const struct { uint8_t type; numfmt_t fmt; uint32_t codes; } f[] = {
        { T_F16, NUMFMT_F16, 1u << 16 }, { T_BF16, NUMFMT_BF16, 1u << 16 },
        { T_E4M3, NUMFMT_E4M3, 256 }, { T_E5M2, NUMFMT_E5M2, 256 },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        for (uint32_t v = 0; v < f[i].codes; v++) {
            float a = exec_decode_fast(f[i].type, v), b = numfmt_decode(f[i].fmt, v);
            if (isnan(b)) {
                assert_true(isnan(a));
                assert_int_equal(signbit(a) != 0, signbit(b) != 0);
            } else if (memcmp(&a, &b, 4) != 0) {
                fail_msg("type %u code 0x%x: fast %a, numfmt %a", f[i].type, v, (double)a, (double)b);
            }
        }
    /* TF32 in an f32 container: a spread of patterns, low 13 bits ignored */
    for (uint32_t k = 0; k < 100000; k++) {
        uint32_t v = k * 2654435761u;
        float a = exec_decode_fast(T_TF32, v), b = numfmt_decode(NUMFMT_TF32, v);
        if (isnan(b))
            assert_true(isnan(a));
        else
            assert_memory_equal(&a, &b, 4);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_add_sub_mul_wrap),
        cmocka_unit_test(test_mul_hi),
        cmocka_unit_test(test_div_rem),
        cmocka_unit_test(test_shifts),
        cmocka_unit_test(test_min_max_abs_neg_logic),
        cmocka_unit_test(test_f32_arith),
        cmocka_unit_test(test_fma_single_rounding),
        cmocka_unit_test(test_sfu),
        cmocka_unit_test(test_setp_f32_nan),
        cmocka_unit_test(test_setp_int_signedness_and_selp),
        cmocka_unit_test(test_predicates_and_guards),
        cmocka_unit_test(test_cvt),
        cmocka_unit_test(test_narrow_loads_and_stores),
        cmocka_unit_test(test_ld_param_and_immediate_store),
        cmocka_unit_test(test_atomics_global_lane_order),
        cmocka_unit_test(test_atomics_shared_lane_order),
        cmocka_unit_test(test_atomics_many_warps),
        cmocka_unit_test(test_special_registers_3d_block),
        cmocka_unit_test(test_special_registers_grid),
        cmocka_unit_test(test_clock_advances),
        cmocka_unit_test(test_divergent_if_else),
        cmocka_unit_test(test_divergent_if_without_else),
        cmocka_unit_test(test_divergent_nested_ifs),
        cmocka_unit_test(test_divergent_loop_trip_counts),
        cmocka_unit_test(test_divergent_early_exit),
        cmocka_unit_test(test_divergent_exit_inside_loop),
        cmocka_unit_test(test_divergent_break),
        cmocka_unit_test(test_decode_fast_matches_numfmt),
    };
    return cmocka_run_group_tests(tests, support_setup_gpu, support_teardown_gpu);
}
