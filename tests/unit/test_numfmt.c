/* test_numfmt.c - number formats: exhaustive decode and round-trip checks,
 * round-to-nearest-even at every midpoint, edge cases, and an accuracy
 * sanity check on a dot product.
 *
 * The expected values never come from numfmt itself: they come from the
 * textbook formula (-1)^s * 2^(e-bias) * (1 + m/2^M), evaluated in double
 * with ldexp (ref_value below), from hand-worked bit patterns, or from
 * rounding theory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

/* ---- independent reference ------------------------------------------ */

/* A format as the textbook describes it (separate from numfmt.c's table). */
typedef struct ref_fmt {
    numfmt_t fmt;  /* the numfmt under test */
    int e_bits;    /* exponent bits */
    int m_bits;    /* mantissa bits */
    int bias;      /* exponent bias */
    int ieee;      /* 1: all-ones exponent = inf/NaN; 0: E4M3FN (only S.1111.111 is NaN) */
    int shift;     /* compact pattern << shift = stored pattern (TF32: 13) */
} ref_fmt_t;

static const ref_fmt_t REF_F16  = { NUMFMT_F16,  5, 10, 15,  1, 0 };
static const ref_fmt_t REF_BF16 = { NUMFMT_BF16, 8, 7,  127, 1, 0 };
static const ref_fmt_t REF_TF32 = { NUMFMT_TF32, 8, 10, 127, 1, 13 };
static const ref_fmt_t REF_E4M3 = { NUMFMT_E4M3, 4, 3,  7,   0, 0 };
static const ref_fmt_t REF_E5M2 = { NUMFMT_E5M2, 5, 2,  15,  1, 0 };

static float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f32_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static uint32_t ref_sign_bit(const ref_fmt_t *r) { return 1u << (r->e_bits + r->m_bits); }
static uint32_t ref_count(const ref_fmt_t *r) { return 1u << (1 + r->e_bits + r->m_bits); }

/* Value of a compact pattern by the formula. extended != 0 reads the
 * all-ones exponent as an ordinary binade (the "unbounded exponent" value
 * that IEEE rounding compares against). */
static double ref_value(const ref_fmt_t *r, uint32_t bits, int extended)
{
    uint32_t all_e = (1u << r->e_bits) - 1u;
    uint32_t all_m = (1u << r->m_bits) - 1u;
    int s = (bits & ref_sign_bit(r)) != 0;
    uint32_t e = (bits >> r->m_bits) & all_e;
    uint32_t m = bits & all_m;
    double v;
    if (!extended && r->ieee && e == all_e)
        v = m == 0 ? INFINITY : NAN;
    else if (!extended && !r->ieee && e == all_e && m == all_m)
        v = NAN;
    else if (e == 0)
        v = ldexp(1.0, 1 - r->bias) * ((double)m / ldexp(1.0, r->m_bits));
    else
        v = ldexp(1.0, (int)e - r->bias) * (1.0 + (double)m / ldexp(1.0, r->m_bits));
    return s ? -v : v;
}

static int ref_is_nan(const ref_fmt_t *r, uint32_t bits)
{
    return isnan(ref_value(r, bits, 0));
}

/* Largest finite positive compact pattern. */
static uint32_t ref_max_bits(const ref_fmt_t *r)
{
    uint32_t all = ref_sign_bit(r) - 1u;  /* 0.111..1 */
    if (r->ieee)
        return all - ((1u << r->m_bits) - 1u) - 1u;   /* 0.11..10.11..1 */
    return all - 1u;                                 /* 0.1111.110 */
}

static uint32_t enc(const ref_fmt_t *r, float x, int sat)
{
    return numfmt_encode(r->fmt, x, sat) >> r->shift;
}

static float dec(const ref_fmt_t *r, uint32_t compact)
{
    return numfmt_decode(r->fmt, compact << r->shift);
}

/* Expected pattern when a value of sign s overflows. */
static uint32_t ref_overflow(const ref_fmt_t *r, uint32_t s, int sat)
{
    if (sat)
        return s | ref_max_bits(r);
    if (r->ieee)
        return s | (((1u << r->e_bits) - 1u) << r->m_bits);  /* inf */
    return s | (ref_sign_bit(r) - 1u);                       /* NaN */
}

/* ---- exhaustive decode and round trip ------------------------------- */

static void check_all_patterns(const ref_fmt_t *r)
{
    uint32_t n = ref_count(r);
    for (uint32_t p = 0; p < n; p++) {
        double want = ref_value(r, p, 0);
        float got = dec(r, p);
        if (isnan(want)) {
            assert_true(isnan(got));
            assert_int_equal(signbit(got) != 0, (p & ref_sign_bit(r)) != 0);
            /* NaN re-encodes as the canonical quiet NaN, sign kept. */
            for (int sat = 0; sat <= 1; sat++) {
                uint32_t back = enc(r, got, sat);
                assert_true(ref_is_nan(r, back));
                assert_int_equal(back & ref_sign_bit(r), p & ref_sign_bit(r));
            }
            continue;
        }
        if ((double)got != want) {
            print_error("%s pattern 0x%x: got %.17g want %.17g\n",
                        numfmt_name(r->fmt), (unsigned)p, (double)got, want);
            fail();
        }
        assert_int_equal(signbit(got) != 0, signbit(want) != 0);   /* -0 too */
        /* Round trip: every non-NaN value (inf included) comes back exact. */
        assert_int_equal(enc(r, got, 0), p);
        if (!isinf(want))
            assert_int_equal(enc(r, got, 1), p);
    }
}

static void test_f16_exhaustive(void **state)
{
    (void)state;
    check_all_patterns(&REF_F16);
    /* The typed API agrees with the generic one. */
    for (uint32_t h = 0; h < 65536; h++) {
        float f = numfmt_f16_to_f32((uint16_t)h);
        if (!isnan(f))
            assert_int_equal(numfmt_f32_to_f16(f), h);
    }
}

static void test_bf16_exhaustive(void **state)
{
    (void)state;
    check_all_patterns(&REF_BF16);
    /* BF16 is the top half of an FP32: decoding is a 16-bit shift. */
    for (uint32_t b = 0; b < 65536; b++) {
        float f = numfmt_bf16_to_f32((uint16_t)b);
        if (!isnan(f)) {
            assert_int_equal(f32_u(f), b << 16);
            assert_int_equal(numfmt_f32_to_bf16(f), b);
        }
    }
}

static void test_tf32_exhaustive(void **state)
{
    (void)state;
    check_all_patterns(&REF_TF32);   /* all 2^19 patterns */
    /* The container's low 13 bits are zero on output, ignored on input. */
    assert_int_equal(numfmt_f32_to_tf32(bits_f32(0x3F801FFFu)) & 0x1FFFu, 0);
    assert_true(numfmt_tf32_to_f32(0x3F801FFFu) == 1.0f);
}

static void test_e4m3_exhaustive(void **state)
{
    (void)state;
    check_all_patterns(&REF_E4M3);
    for (uint32_t q = 0; q < 256; q++) {
        float f = numfmt_e4m3_to_f32((uint8_t)q);
        if (!isnan(f)) {
            assert_int_equal(numfmt_f32_to_e4m3(f, 0), q);
            assert_int_equal(numfmt_f32_to_e4m3(f, 1), q);
        }
    }
    /* Exactly two NaN patterns (0x7F, 0xFF); no infinity. */
    int nans = 0;
    for (uint32_t q = 0; q < 256; q++) {
        float f = numfmt_e4m3_to_f32((uint8_t)q);
        assert_false(isinf(f));
        nans += isnan(f) != 0;
    }
    assert_int_equal(nans, 2);
}

static void test_e5m2_exhaustive(void **state)
{
    (void)state;
    check_all_patterns(&REF_E5M2);
    for (uint32_t q = 0; q < 256; q++) {
        float f = numfmt_e5m2_to_f32((uint8_t)q);
        if (!isnan(f) && !isinf(f))
            assert_int_equal(numfmt_f32_to_e5m2(f, 1), q);
    }
    /* E5M2 is the top byte of an FP16 (same exponent, bias 15). */
    for (uint32_t q = 0; q < 256; q++) {
        float f8 = numfmt_e5m2_to_f32((uint8_t)q);
        float f16 = numfmt_f16_to_f32((uint16_t)(q << 8));
        if (!isnan(f8))
            assert_int_equal(f32_u(f8), f32_u(f16));
    }
}

/* ---- rounding at every midpoint ------------------------------------- */

/* For every finite pattern p (both signs), the value halfway to the next
 * larger magnitude p+1 must round to whichever of p, p+1 is even (its last
 * mantissa bit is 0); one FP32 ulp above the midpoint rounds away from
 * zero, one ulp below rounds toward zero. When p is the largest finite
 * value, p+1 means "overflow". */
static void check_midpoints(const ref_fmt_t *r)
{
    uint32_t maxb = ref_max_bits(r);
    for (int sat = 0; sat <= 1; sat++) {
        for (uint32_t p = 0; p <= maxb; p++) {
            for (int neg = 0; neg <= 1; neg++) {
                uint32_t s = neg ? ref_sign_bit(r) : 0u;
                double lo = ref_value(r, p, 1);
                double hi = ref_value(r, p + 1, 1);
                double mid = (lo + hi) / 2;
                float midf = (float)mid;
                assert_true((double)midf == mid);   /* needs one more bit: exact in FP32 */
                uint32_t up = p + 1 > maxb ? ref_overflow(r, s, sat) : (s | (p + 1));
                uint32_t down = s | p;
                uint32_t even = (p & 1u) == 0 ? down : up;
                float above = nextafterf(midf, INFINITY);
                float below = nextafterf(midf, 0.0f);
                if (neg) {
                    midf = -midf;
                    above = -above;
                    below = -below;
                }
                uint32_t got_mid = enc(r, midf, sat);
                if (got_mid != even) {
                    print_error("%s sat=%d p=0x%x mid %.17g: got 0x%x want 0x%x\n",
                                numfmt_name(r->fmt), sat, (unsigned)p, (double)midf,
                                (unsigned)got_mid, (unsigned)even);
                    fail();
                }
                assert_int_equal(enc(r, above, sat), up);
                assert_int_equal(enc(r, below, sat), down);
            }
        }
    }
}

static void test_midpoints_f16(void **state)  { (void)state; check_midpoints(&REF_F16); }
static void test_midpoints_bf16(void **state) { (void)state; check_midpoints(&REF_BF16); }
static void test_midpoints_tf32(void **state) { (void)state; check_midpoints(&REF_TF32); }
static void test_midpoints_e4m3(void **state) { (void)state; check_midpoints(&REF_E4M3); }
static void test_midpoints_e5m2(void **state) { (void)state; check_midpoints(&REF_E5M2); }

/* ---- nearest value for arbitrary inputs ----------------------------- */

static uint32_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 32);
}

/* Random FP32 inputs spread over the format's whole range (and a little
 * beyond both ends): the result must be the nearest value found by a
 * binary search in the table of all values, ties to the even pattern. */
static void check_nearest(const ref_fmt_t *r)
{
    uint32_t maxb = ref_max_bits(r);
    double *tab = malloc((maxb + 2) * sizeof *tab);
    assert_non_null(tab);
    for (uint32_t p = 0; p <= maxb + 1; p++)
        tab[p] = ref_value(r, p, 1);       /* tab[maxb+1]: the overflow point */
    int emin = 1 - r->bias - r->m_bits - 3;
    int emax = (int)(1u << r->e_bits) - r->bias + 1;
    if (emax > 127)
        emax = 127;                    /* FP32's own limit (BF16, TF32) */
    uint64_t seed = 12345u + (uint64_t)r->fmt;
    for (int i = 0; i < 200000; i++) {
        int e = emin + (int)(lcg_next(&seed) % (uint32_t)(emax - emin + 1));
        /* A 24-bit significand: exact in FP32 unless below 2^-126, where
         * the cast rounds it; a then takes the FP32 value exactly. */
        float x = (float)ldexp(1.0 + (double)(lcg_next(&seed) & 0x7FFFFFu) / 8388608.0, e);
        double a = x;
        int neg = lcg_next(&seed) & 1u;
        uint32_t s = neg ? ref_sign_bit(r) : 0u;
        uint32_t want;
        if (a >= tab[maxb + 1]) {
            want = ref_overflow(r, s, 0);
        } else {
            uint32_t lo = 0, hi = maxb + 1;    /* tab[lo] <= a < tab[hi] */
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (tab[mid] <= a)
                    lo = mid;
                else
                    hi = mid;
            }
            double dlo = a - tab[lo], dhi = tab[hi] - a;
            uint32_t p = (dlo < dhi || (dlo == dhi && (lo & 1u) == 0)) ? lo : hi;
            want = p > maxb ? ref_overflow(r, s, 0) : (s | p);
        }
        uint32_t got = enc(r, neg ? -x : x, 0);
        if (got != want) {
            print_error("%s x=%.17g: got 0x%x want 0x%x\n", numfmt_name(r->fmt),
                        neg ? -a : a, (unsigned)got, (unsigned)want);
            fail();
        }
    }
    free(tab);
}

static void test_nearest_random(void **state)
{
    (void)state;
    check_nearest(&REF_F16);
    check_nearest(&REF_BF16);
    check_nearest(&REF_TF32);
    check_nearest(&REF_E4M3);
    check_nearest(&REF_E5M2);
}

/* ---- hand-worked values and edge cases ------------------------------ */

static void test_known_patterns(void **state)
{
    (void)state;
    /* FP16: 1 = 0 01111 0000000000; 0.1 = 1.6*2^-4, 0.6*1024 = 614.4 -> 614;
     * 1/3 = 1.333*2^-2, 341.33 -> 341; pi = 1.5708*2^1, 584.50 -> 584
     * (0.5707963*1024 = 584.4954, below the midpoint). */
    assert_int_equal(numfmt_f32_to_f16(1.0f), 0x3C00);
    assert_int_equal(numfmt_f32_to_f16(-2.0f), 0xC000);
    assert_int_equal(numfmt_f32_to_f16(0.1f), 0x2E66);
    assert_int_equal(numfmt_f32_to_f16(1.0f / 3.0f), 0x3555);
    assert_int_equal(numfmt_f32_to_f16(3.14159265f), 0x4248);
    /* BF16: pi = 0x40490FDB in FP32, low half 0x0FDB < 0x8000 -> 0x4049;
     * 1/3 = 0x3EAAAAAB, low half 0xAAAB > 0x8000 -> 0x3EAB. */
    assert_int_equal(numfmt_f32_to_bf16(3.14159265f), 0x4049);
    assert_int_equal(numfmt_f32_to_bf16(1.0f / 3.0f), 0x3EAB);
    /* E4M3: 1 = 0 0111 000 = 0x38; 448 = 1.75*2^8 = 0 1111 110 = 0x7E;
     * smallest normal 2^-6 = 0 0001 000 = 0x08. */
    assert_int_equal(numfmt_f32_to_e4m3(1.0f, 1), 0x38);
    assert_int_equal(numfmt_f32_to_e4m3(448.0f, 0), 0x7E);
    assert_int_equal(numfmt_f32_to_e4m3(-448.0f, 0), 0xFE);
    assert_int_equal(numfmt_f32_to_e4m3(0.015625f, 0), 0x08);
    /* E5M2: 1 = 0 01111 00 = 0x3C; 57344 = 1.75*2^15 = 0 11110 11 = 0x7B. */
    assert_int_equal(numfmt_f32_to_e5m2(1.0f, 0), 0x3C);
    assert_int_equal(numfmt_f32_to_e5m2(57344.0f, 0), 0x7B);
    assert_int_equal(numfmt_f32_to_e5m2(INFINITY, 0), 0x7C);
}

static void test_f16_edges(void **state)
{
    (void)state;
    assert_int_equal(numfmt_f32_to_f16(65504.0f), 0x7BFF);
    /* 65519.99 in FP32 is 65519.9921875, below the midpoint 65520 of
     * 65504 and 65536 (= the overflow point): stays 65504. */
    assert_int_equal(numfmt_f32_to_f16(65519.99f), 0x7BFF);
    /* 65520 is that midpoint; 65504's mantissa 1111111111 is odd, so the
     * tie goes up: infinity. */
    assert_int_equal(numfmt_f32_to_f16(65520.0f), 0x7C00);
    assert_int_equal(numfmt_f32_to_f16(-65520.0f), 0xFC00);
    assert_true(isinf(numfmt_round_f32(1e5f, NUMFMT_F16)));
    /* Saturating variant via the generic API. */
    assert_int_equal(numfmt_encode(NUMFMT_F16, 65520.0f, 1), 0x7BFF);
    assert_int_equal(numfmt_encode(NUMFMT_F16, -INFINITY, 1), 0xFBFF);
    /* Subnormals: 2^-24 is the smallest; 2^-25 is halfway to 0 and 0 is
     * even; 1.5*2^-25 is above halfway; 3*2^-25 is halfway between 1 and 2
     * units, ties to 2. */
    assert_int_equal(numfmt_f32_to_f16(ldexpf(1.0f, -24)), 0x0001);
    assert_true(numfmt_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
    assert_int_equal(numfmt_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);
    assert_int_equal(numfmt_f32_to_f16(-ldexpf(1.0f, -25)), 0x8000);
    assert_int_equal(numfmt_f32_to_f16(ldexpf(1.5f, -25)), 0x0001);
    assert_int_equal(numfmt_f32_to_f16(ldexpf(3.0f, -25)), 0x0002);
    assert_int_equal(numfmt_f32_to_f16(FLT_TRUE_MIN), 0x0000);
    /* 1023.5 units of 2^-24 is halfway between the largest subnormal
     * (1023, odd) and the smallest normal 2^-14 (1024): rounds up. */
    assert_int_equal(numfmt_f32_to_f16(ldexpf(1023.5f, -24)), 0x0400);
    assert_int_equal(numfmt_f32_to_f16(ldexpf(1022.5f, -24)), 0x03FE);
    /* Signed zero. */
    assert_int_equal(numfmt_f32_to_f16(-0.0f), 0x8000);
    assert_int_equal(numfmt_f32_to_f16(0.0f), 0x0000);
    assert_true(signbit(numfmt_f16_to_f32(0x8000)));
}

static void test_bf16_edges(void **state)
{
    (void)state;
    /* Largest BF16: 0x7F7F = (2 - 2^-7) * 2^127 = 3.3895e38. The next step
     * would be 2^128, so the overflow midpoint is (2 - 2^-8) * 2^127 =
     * 3.3962e38 = FP32 0x7F7F8000, and 0x7F7F is odd: the tie overflows.
     * So 3.39e38 stays finite (-> 3.3895e38) but 3.4e38 and FLT_MAX (0x7F7FFFFF, low
     * half 0xFFFF > 0x8000) round to infinity. */
    assert_int_equal(numfmt_f32_to_bf16(3.39e38f), 0x7F7F);
    assert_int_equal(numfmt_f32_to_bf16(bits_f32(0x7F7F7FFFu)), 0x7F7F);
    assert_int_equal(numfmt_f32_to_bf16(bits_f32(0x7F7F8000u)), 0x7F80);
    assert_int_equal(numfmt_f32_to_bf16(3.4e38f), 0x7F80);
    assert_int_equal(numfmt_f32_to_bf16(FLT_MAX), 0x7F80);
    assert_int_equal(numfmt_f32_to_bf16(-FLT_MAX), 0xFF80);
    /* BF16 keeps FP32's range: 1e38 and 1e-38 survive (FP16 cannot). */
    assert_true(fabsf(numfmt_round_f32(1e38f, NUMFMT_BF16) - 1e38f) < 1e38f * 0.004f);
    assert_true(isinf(numfmt_round_f32(1e38f, NUMFMT_F16)));
    /* Smallest subnormal 2^-133 (an FP32 subnormal); half of it -> 0. */
    assert_int_equal(numfmt_f32_to_bf16(ldexpf(1.0f, -133)), 0x0001);
    assert_int_equal(numfmt_f32_to_bf16(ldexpf(1.0f, -134)), 0x0000);
    assert_int_equal(numfmt_f32_to_bf16(ldexpf(3.0f, -134)), 0x0002);
    /* 0x007FFFFF (largest FP32 subnormal) rounds up to the smallest
     * normal, 0x0080. */
    assert_int_equal(numfmt_f32_to_bf16(bits_f32(0x007FFFFFu)), 0x0080);
    assert_int_equal(numfmt_f32_to_bf16(-0.0f), 0x8000);
}

static void test_tf32_edges(void **state)
{
    (void)state;
    /* TF32 has 10 mantissa bits: the step at 1 is 2^-10. 1 + 2^-11 is
     * halfway between 1 (even) and 1 + 2^-10 (odd): rounds to 1.
     * 1 + 3*2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even):
     * rounds up to 1 + 2^-9 = 0x3F804000. */
    assert_int_equal(numfmt_f32_to_tf32(1.0f + ldexpf(1.0f, -11)), 0x3F800000u);
    assert_int_equal(numfmt_f32_to_tf32(1.0f + ldexpf(3.0f, -11)), 0x3F804000u);
    assert_int_equal(numfmt_f32_to_tf32(1.0f + ldexpf(1.0f, -10)), 0x3F802000u);
    assert_int_equal(numfmt_f32_to_tf32(1.0f + ldexpf(1.0f, -11) + ldexpf(1.0f, -23)),
                     0x3F802000u);
    assert_true(numfmt_round_f32(1.0f + ldexpf(3.0f, -11), NUMFMT_TF32)
                == 1.0f + ldexpf(1.0f, -9));
    /* Range of FP32: FLT_MAX is above (2 - 2^-11) * 2^127 -> infinity. */
    assert_int_equal(numfmt_f32_to_tf32(FLT_MAX), 0x7F800000u);
    assert_int_equal(numfmt_f32_to_tf32(bits_f32(0x7F7FEFFFu)), 0x7F7FE000u);
    assert_int_equal(numfmt_f32_to_tf32(-0.0f), 0x80000000u);
}

static void test_e4m3_edges(void **state)
{
    (void)state;
    /* 464 = 1.8125 * 2^8 is halfway between 448 (mantissa 110, even) and
     * 480 (mantissa 111, odd, which E4M3 spends on NaN). Ties-to-even
     * picks 448, so 464 itself does not overflow; anything above does.
     * (This is also NVIDIA's rule: overflow when |x| > maxnorm + ulp/2.) */
    assert_int_equal(numfmt_f32_to_e4m3(464.0f, 1), 0x7E);
    assert_int_equal(numfmt_f32_to_e4m3(464.0f, 0), 0x7E);
    float above = nextafterf(464.0f, INFINITY);
    assert_int_equal(numfmt_f32_to_e4m3(above, 1), 0x7E);
    assert_int_equal(numfmt_f32_to_e4m3(above, 0), 0x7F);
    assert_int_equal(numfmt_f32_to_e4m3(-above, 0), 0xFF);
    assert_int_equal(numfmt_f32_to_e4m3(480.0f, 1), 0x7E);
    assert_int_equal(numfmt_f32_to_e4m3(1e30f, 1), 0x7E);
    assert_int_equal(numfmt_f32_to_e4m3(-1e30f, 1), 0xFE);
    assert_int_equal(numfmt_f32_to_e4m3(1e30f, 0), 0x7F);
    /* Infinity: no E4M3 infinity, so NaN, or max when saturating. */
    assert_int_equal(numfmt_f32_to_e4m3(INFINITY, 0), 0x7F);
    assert_int_equal(numfmt_f32_to_e4m3(INFINITY, 1), 0x7E);
    assert_int_equal(numfmt_f32_to_e4m3(-INFINITY, 1), 0xFE);
    /* NaN stays NaN even when saturating. */
    assert_int_equal(numfmt_f32_to_e4m3(NAN, 1), 0x7F);
    assert_int_equal(numfmt_f32_to_e4m3(-NAN, 1), 0xFF);
    /* Default cvt rounding saturates. */
    assert_true(numfmt_round_f32(1000.0f, NUMFMT_E4M3) == 448.0f);
    assert_true(numfmt_round_f32(-1000.0f, NUMFMT_E4M3) == -448.0f);
    assert_true(isnan(numfmt_round_f32_sat(1000.0f, NUMFMT_E4M3, 0)));
    /* Subnormals: smallest 2^-9; 2^-10 ties to 0; 1.5*2^-10 -> 2^-9;
     * 7.5*2^-9 ties from 7 (odd) up to the smallest normal 8*2^-9 = 2^-6. */
    assert_int_equal(numfmt_f32_to_e4m3(ldexpf(1.0f, -9), 0), 0x01);
    assert_int_equal(numfmt_f32_to_e4m3(ldexpf(1.0f, -10), 0), 0x00);
    assert_int_equal(numfmt_f32_to_e4m3(ldexpf(1.5f, -10), 0), 0x01);
    assert_int_equal(numfmt_f32_to_e4m3(ldexpf(7.5f, -9), 0), 0x08);
    assert_int_equal(numfmt_f32_to_e4m3(-0.0f, 0), 0x80);
}

static void test_e5m2_edges(void **state)
{
    (void)state;
    /* 57344 = 1.75*2^15 is the max (mantissa 11, odd); the next step
     * would be 2^16, so 61440 is the midpoint and the tie overflows. */
    assert_int_equal(numfmt_f32_to_e5m2(61440.0f, 0), 0x7C);
    assert_int_equal(numfmt_f32_to_e5m2(-61440.0f, 0), 0xFC);
    assert_int_equal(numfmt_f32_to_e5m2(61440.0f, 1), 0x7B);
    assert_int_equal(numfmt_f32_to_e5m2(nextafterf(61440.0f, 0.0f), 0), 0x7B);
    assert_int_equal(numfmt_f32_to_e5m2(INFINITY, 1), 0x7B);
    assert_int_equal(numfmt_f32_to_e5m2(-INFINITY, 0), 0xFC);
    assert_true(numfmt_round_f32(1e6f, NUMFMT_E5M2) == 57344.0f);   /* cvt saturates */
    assert_true(isinf(numfmt_round_f32_sat(1e6f, NUMFMT_E5M2, 0)));
    /* Subnormals: smallest 2^-16, half of it -> 0. */
    assert_int_equal(numfmt_f32_to_e5m2(ldexpf(1.0f, -16), 0), 0x01);
    assert_int_equal(numfmt_f32_to_e5m2(ldexpf(1.0f, -17), 0), 0x00);
    assert_int_equal(numfmt_f32_to_e5m2(ldexpf(1.5f, -17), 0), 0x01);
    assert_int_equal(numfmt_f32_to_e5m2(-0.0f, 0), 0x80);
}

static void test_nan_canonical(void **state)
{
    (void)state;
    /* Signalling NaN with payload 1, and a negative quiet NaN with a
     * payload: each becomes the canonical quiet NaN, sign kept. */
    float snan = bits_f32(0x7F800001u);
    float nneg = bits_f32(0xFFC12345u);
    assert_int_equal(numfmt_f32_to_f16(snan), 0x7E00);
    assert_int_equal(numfmt_f32_to_f16(nneg), 0xFE00);
    assert_int_equal(numfmt_f32_to_bf16(snan), 0x7FC0);
    assert_int_equal(numfmt_f32_to_bf16(nneg), 0xFFC0);
    assert_int_equal(numfmt_f32_to_tf32(snan), 0x7FC00000u);
    assert_int_equal(numfmt_f32_to_tf32(nneg), 0xFFC00000u);
    assert_int_equal(numfmt_f32_to_e4m3(snan, 0), 0x7F);
    assert_int_equal(numfmt_f32_to_e4m3(nneg, 1), 0xFF);
    assert_int_equal(numfmt_f32_to_e5m2(snan, 1), 0x7E);
    assert_int_equal(numfmt_f32_to_e5m2(nneg, 0), 0xFE);
    assert_int_equal(numfmt_encode(NUMFMT_F32, nneg, 0), 0xFFC00000u);
    /* Decoding NaN gives an FP32 NaN with the sign. */
    assert_true(isnan(numfmt_e4m3_to_f32(0xFF)) && signbit(numfmt_e4m3_to_f32(0xFF)));
    assert_true(isnan(numfmt_f16_to_f32(0x7C01)) && !signbit(numfmt_f16_to_f32(0x7C01)));
}

static void test_f32_identity(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int i = 0; i < 100000; i++) {
        uint32_t u = lcg_next(&seed);
        float x = bits_f32(u);
        if (isnan(x))
            continue;
        assert_int_equal(numfmt_encode(NUMFMT_F32, x, 0), u);
        assert_int_equal(f32_u(numfmt_round_f32(x, NUMFMT_F32)), u);
    }
    assert_int_equal(numfmt_encode(NUMFMT_F32, INFINITY, 1), f32_u(FLT_MAX));
}

/* ---- properties ------------------------------------------------------ */

static void test_properties(void **state)
{
    (void)state;
    static const struct {
        numfmt_t fmt; const char *name; int bits, sig, prec;
        double max, min_norm, min_sub, eps;
    } t[] = {
        /* max = (2 - 2^-M) * 2^emax, except E4M3 (1.75 * 2^8) */
        { NUMFMT_F32,  "f32",  32, 32, 24, FLT_MAX, 0x1p-126, 0x1p-149, 0x1p-23 },
        { NUMFMT_F16,  "f16",  16, 16, 11, 65504.0, 0x1p-14, 0x1p-24, 0x1p-10 },
        { NUMFMT_BF16, "bf16", 16, 16, 8,  0x1.FEp127, 0x1p-126, 0x1p-133, 0x1p-7 },
        { NUMFMT_TF32, "tf32", 32, 19, 11, 0x1.FFCp127, 0x1p-126, 0x1p-136, 0x1p-10 },
        { NUMFMT_E4M3, "e4m3", 8,  8,  4,  448.0, 0x1p-6, 0x1p-9, 0x1p-3 },
        { NUMFMT_E5M2, "e5m2", 8,  8,  3,  57344.0, 0x1p-14, 0x1p-16, 0x1p-2 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        assert_string_equal(numfmt_name(t[i].fmt), t[i].name);
        assert_int_equal(numfmt_bits(t[i].fmt), t[i].bits);
        assert_int_equal(numfmt_significant_bits(t[i].fmt), t[i].sig);
        assert_int_equal(numfmt_precision(t[i].fmt), t[i].prec);
        assert_true((double)numfmt_max_finite(t[i].fmt) == t[i].max);
        assert_true((double)numfmt_min_normal(t[i].fmt) == t[i].min_norm);
        assert_true((double)numfmt_min_subnormal(t[i].fmt) == t[i].min_sub);
        assert_true((double)numfmt_epsilon(t[i].fmt) == t[i].eps);
        /* 1 + epsilon is the next value after 1: it survives rounding. */
        float one_eps = 1.0f + numfmt_epsilon(t[i].fmt);
        assert_true(numfmt_round_f32(one_eps, t[i].fmt) == one_eps);
        /* The max finite value round-trips. */
        float mx = numfmt_max_finite(t[i].fmt);
        assert_true(numfmt_round_f32(mx, t[i].fmt) == mx);
        /* from_name inverts name. */
        numfmt_t f;
        simt_err_t err;
        assert_int_equal(numfmt_from_name(t[i].name, &f, &err), 0);
        assert_int_equal(f, t[i].fmt);
    }
}

static void test_from_name(void **state)
{
    (void)state;
    numfmt_t f = NUMFMT_F32;
    simt_err_t err;
    simt_err_clear(&err);
    assert_int_equal(numfmt_from_name("fp16", &f, &err), 0);
    assert_int_equal(f, NUMFMT_F16);
    assert_int_equal(numfmt_from_name("fp8e4m3", &f, &err), 0);
    assert_int_equal(f, NUMFMT_E4M3);
    assert_int_equal(numfmt_from_name("fp12", &f, &err), -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    assert_non_null(strstr(err.msg, "fp12"));
    assert_int_equal(f, NUMFMT_E4M3);                 /* untouched on failure */
    assert_int_equal(numfmt_from_name(NULL, &f, NULL), -1);
}

/* ---- accuracy of a dot product --------------------------------------- */

/* 256-long dot products of uniform [-1, 1) inputs, computed exactly (in
 * double) from FP32 inputs and from the same inputs rounded to FP16 or
 * BF16. Theory: rounding x to M mantissa bits gives a relative error
 * with RMS u/sqrt(6), u = 2^-(M+1), for x spread over binades; a product
 * has two such errors, so the error of the sum has variance
 * n * E[x^2 y^2] * u^2/3 while the sum itself has variance n * E[x^2 y^2].
 * So RMS(error) / RMS(dot) = u / sqrt(3): 2.8e-4 for FP16 (u = 2^-11),
 * 2.3e-3 for BF16 (u = 2^-8). A single dot product therefore typically
 * has relative error 1e-4 .. 1e-3 in FP16 (larger when the dot is
 * small from cancellation) and about 8x that in BF16. Also checked: the
 * rigorous bound |error| <= ((1+u)^2 - 1) * sum |x y| (inputs far from
 * FP16's subnormal range; the few tiny ones add at most 2^-24 each). */
static void test_dot_product_accuracy(void **state)
{
    (void)state;
    enum { N = 256, TRIALS = 64 };
    uint64_t seed = 2024;
    double se16 = 0, seb = 0, sdot = 0;
    for (int t = 0; t < TRIALS; t++) {
        double exact = 0, d16 = 0, db = 0, sabs = 0;
        for (int i = 0; i < N; i++) {
            float x = (float)((double)lcg_next(&seed) / 2147483648.0 - 1.0);
            float y = (float)((double)lcg_next(&seed) / 2147483648.0 - 1.0);
            exact += (double)x * y;
            sabs += fabs((double)x * y);
            d16 += (double)numfmt_round_f32(x, NUMFMT_F16) * numfmt_round_f32(y, NUMFMT_F16);
            db += (double)numfmt_round_f32(x, NUMFMT_BF16) * numfmt_round_f32(y, NUMFMT_BF16);
        }
        double u16 = 0x1p-11, ub = 0x1p-8;
        assert_true(fabs(d16 - exact) <= (2 * u16 + u16 * u16) * sabs + N * 0x1p-23);
        assert_true(fabs(db - exact) <= (2 * ub + ub * ub) * sabs);
        se16 += (d16 - exact) * (d16 - exact);
        seb += (db - exact) * (db - exact);
        sdot += exact * exact;
    }
    double rel16 = sqrt(se16 / sdot), relb = sqrt(seb / sdot);
    print_message("dot product n=%d: RMS relative error fp16 %.2e (theory %.2e), "
                  "bf16 %.2e (theory %.2e)\n", N, rel16, 0x1p-11 / sqrt(3.0),
                  relb, 0x1p-8 / sqrt(3.0));
    /* Loose: within a factor 2 of the theory (the estimate from 64 trials
     * scatters by ~10%). */
    assert_true(rel16 > 0.5 * 0x1p-11 / sqrt(3.0) && rel16 < 2.0 * 0x1p-11 / sqrt(3.0));
    assert_true(relb > 0.5 * 0x1p-8 / sqrt(3.0) && relb < 2.0 * 0x1p-8 / sqrt(3.0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_exhaustive),
        cmocka_unit_test(test_bf16_exhaustive),
        cmocka_unit_test(test_tf32_exhaustive),
        cmocka_unit_test(test_e4m3_exhaustive),
        cmocka_unit_test(test_e5m2_exhaustive),
        cmocka_unit_test(test_midpoints_f16),
        cmocka_unit_test(test_midpoints_bf16),
        cmocka_unit_test(test_midpoints_tf32),
        cmocka_unit_test(test_midpoints_e4m3),
        cmocka_unit_test(test_midpoints_e5m2),
        cmocka_unit_test(test_nearest_random),
        cmocka_unit_test(test_known_patterns),
        cmocka_unit_test(test_f16_edges),
        cmocka_unit_test(test_bf16_edges),
        cmocka_unit_test(test_tf32_edges),
        cmocka_unit_test(test_e4m3_edges),
        cmocka_unit_test(test_e5m2_edges),
        cmocka_unit_test(test_nan_canonical),
        cmocka_unit_test(test_f32_identity),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_from_name),
        cmocka_unit_test(test_dot_product_accuracy),
    };
    return cmocka_run_group_tests_name("numfmt", tests, NULL, NULL);
}
