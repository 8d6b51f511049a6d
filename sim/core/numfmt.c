/* numfmt.c - conversions between FP32 and the small float formats.
 *
 * One description table drives every format. Encoding (FP32 -> small)
 * splits the FP32 bits into sign, exponent and a 24-bit significand,
 * shifts the significand right to the target's precision with
 * round-to-nearest-even, and lets a rounding carry ripple into the
 * exponent field (that is how 1.111..1 rounds up to the next power of
 * two, a subnormal rounds up to the smallest normal, and the largest
 * finite value rounds up to "infinity"). Decoding (small -> FP32) is exact
 * because every small-format value is an FP32 value.
 */
#include "numfmt.h"

#include <assert.h>
#include <string.h>

#define F32_SIGN      0x80000000u
#define F32_ABS       0x7FFFFFFFu
#define F32_INF       0x7F800000u
#define F32_QNAN      0x7FC00000u  /* canonical quiet NaN */
#define F32_QUIET_BIT 0x00400000u
#define F32_MANT      0x007FFFFFu
#define F32_MANT_BITS 23
#define F32_BIAS      127

/* How one format lays out its bits. Patterns are handled "compact": sign
 * at bit exp_bits+man_bits, then the exponent, then the mantissa. Only
 * TF32 is stored differently: its compact 19-bit pattern shifted left by
 * container_shift = 13 is the FP32 container. */
typedef struct numfmt_desc {
    const char *name;      /* numfmt_name() */
    int storage_bits;      /* bits one value occupies in memory */
    int exp_bits;          /* E */
    int man_bits;          /* M (stored fraction bits, no implicit 1) */
    int bias;              /* exponent bias */
    int has_inf;           /* 1: IEEE specials in the all-ones exponent;
                              0: E4M3FN, all-ones exponent is normal except
                              the single NaN mantissa 111 */
    int container_shift;   /* compact pattern << this = stored pattern */
} numfmt_desc_t;

static const numfmt_desc_t numfmt_descs[NUMFMT_COUNT] = {
    [NUMFMT_F32]  = { "f32",  32, 8, 23, 127, 1, 0 },
    [NUMFMT_F16]  = { "f16",  16, 5, 10, 15,  1, 0 },
    [NUMFMT_BF16] = { "bf16", 16, 8, 7,  127, 1, 0 },
    [NUMFMT_TF32] = { "tf32", 32, 8, 10, 127, 1, 13 },
    [NUMFMT_E4M3] = { "e4m3", 8,  4, 3,  7,   0, 0 },
    [NUMFMT_E5M2] = { "e5m2", 8,  5, 2,  15,  1, 0 },
};

static const numfmt_desc_t *desc_of(numfmt_t fmt)
{
    assert((unsigned)fmt < (unsigned)NUMFMT_COUNT);
    return &numfmt_descs[fmt];
}

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Compact pattern of the largest finite positive value. */
static uint32_t max_finite_bits(const numfmt_desc_t *d)
{
    uint32_t all_exp = (1u << d->exp_bits) - 1u;
    uint32_t all_man = (1u << d->man_bits) - 1u;
    if (d->has_inf)                       /* exponent all-ones - 1, mantissa all ones */
        return ((all_exp - 1u) << d->man_bits) | all_man;
    return ((all_exp << d->man_bits) | all_man) - 1u;  /* E4M3: S.1111.110 */
}

/* Compact pattern of the canonical quiet NaN, positive: the top mantissa
 * bit set (IEEE quiet bit) or, for E4M3, the only NaN S.1111.111. */
static uint32_t qnan_bits(const numfmt_desc_t *d)
{
    uint32_t all_exp = (1u << d->exp_bits) - 1u;
    if (d->has_inf)
        return (all_exp << d->man_bits) | (1u << (d->man_bits - 1));
    return (all_exp << d->man_bits) | ((1u << d->man_bits) - 1u);
}

/* What an overflowing value of this magnitude becomes (positive). */
static uint32_t overflow_bits(const numfmt_desc_t *d, int saturate)
{
    if (saturate)
        return max_finite_bits(d);
    if (d->has_inf)
        return ((1u << d->exp_bits) - 1u) << d->man_bits;
    return qnan_bits(d);
}

/* sig >> shift, rounded to nearest with ties to even. Any shift >= 0 is
 * allowed; sig must be below 2^31 so that a shift >= 32 gives 0. */
static uint32_t shift_right_rne(uint32_t sig, int shift)
{
    if (shift == 0)
        return sig;
    if (shift >= 32)
        return 0;                      /* less than half of the last place */
    uint32_t q = sig >> shift;
    uint32_t rem = sig & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u)))
        q++;
    return q;
}

/* FP32 x -> compact pattern of format d (round to nearest even). */
static uint32_t encode_compact(const numfmt_desc_t *d, float x, int saturate)
{
    uint32_t f = f32_bits(x);
    uint32_t sign = (f & F32_SIGN) ? 1u << (d->exp_bits + d->man_bits) : 0u;
    uint32_t a = f & F32_ABS;

    if (a > F32_INF)                              /* NaN, any payload */
        return sign | qnan_bits(d);
    if (a == F32_INF)                             /* +-infinity */
        return sign | overflow_bits(d, saturate);

    /* a = sig * 2^(e - 23) with sig < 2^24 (FP32 subnormals: e = -126). */
    int fexp = (int)(a >> F32_MANT_BITS);
    uint32_t sig = a & F32_MANT;
    int e = -126;
    if (fexp != 0) {
        sig |= 1u << F32_MANT_BITS;
        e = fexp - F32_BIAS;
    }
    if (sig == 0)
        return sign;                              /* +-0 */

    int max_biased = (1 << d->exp_bits) - (d->has_inf ? 2 : 1);
    if (e + d->bias > max_biased)                 /* too big even before rounding */
        return sign | overflow_bits(d, saturate);

    /* Keep man_bits bits after the leading 1. Below the smallest normal
     * exponent emin, the target's last place is fixed at 2^(emin - M),
     * so shift further (gradual underflow into subnormals). */
    int emin = 1 - d->bias;
    int shift = F32_MANT_BITS - d->man_bits;
    uint32_t base = 0;                            /* biased exponent - 1, in place */
    if (e < emin)
        shift += emin - e;
    else
        base = (uint32_t)(e + d->bias - 1) << d->man_bits;
    /* q holds the implicit 1 (if any) at bit man_bits, so base + q adds 1
     * to the exponent field for a normal number, and a carry out of the
     * mantissa moves up to the next binade (or to infinity). */
    uint32_t bits = base + shift_right_rne(sig, shift);
    if (bits > max_finite_bits(d))
        return sign | overflow_bits(d, saturate);
    return sign | bits;
}

/* Compact pattern of format d -> FP32 bits, exact. */
static uint32_t decode_compact(const numfmt_desc_t *d, uint32_t bits)
{
    int m = d->man_bits;
    uint32_t sign = ((bits >> (d->exp_bits + m)) & 1u) ? F32_SIGN : 0u;
    uint32_t all_exp = (1u << d->exp_bits) - 1u;
    uint32_t exp = (bits >> m) & all_exp;
    uint32_t man = bits & ((1u << m) - 1u);

    if (d->has_inf && exp == all_exp) {
        if (man == 0)
            return sign | F32_INF;
        /* NaN: keep the payload, make it quiet. */
        return sign | F32_INF | F32_QUIET_BIT | (man << (F32_MANT_BITS - m));
    }
    if (!d->has_inf && exp == all_exp && man == (1u << m) - 1u)
        return sign | F32_QNAN;                   /* E4M3's only NaN */
    if (exp != 0)                                 /* normal: rebias */
        return sign | ((exp - (uint32_t)d->bias + F32_BIAS) << F32_MANT_BITS)
                    | (man << (F32_MANT_BITS - m));
    if (man == 0)
        return sign;                              /* +-0 */
    if (d->bias == F32_BIAS)
        /* BF16, TF32 (and FP32) share FP32's exponent field, so their
         * subnormals are FP32 subnormals with the same leading bits. */
        return sign | (man << (F32_MANT_BITS - m));

    /* Subnormal of a narrow format: man * 2^(1 - bias - m) is a normal
     * FP32. Move the leading 1 of man (bit msb) to the implicit position. */
    int msb = 0;
    while ((man >> (msb + 1)) != 0)
        msb++;
    int fexp = msb + 1 - d->bias - m + F32_BIAS;
    assert(fexp >= 1);
    return sign | ((uint32_t)fexp << F32_MANT_BITS)
                | ((man << (F32_MANT_BITS - msb)) & F32_MANT);
}

uint32_t numfmt_encode(numfmt_t fmt, float x, int saturate)
{
    const numfmt_desc_t *d = desc_of(fmt);
    return encode_compact(d, x, saturate) << d->container_shift;
}

float numfmt_decode(numfmt_t fmt, uint32_t bits)
{
    const numfmt_desc_t *d = desc_of(fmt);
    uint32_t compact = bits >> d->container_shift;
    int width = 1 + d->exp_bits + d->man_bits;
    if (width < 32)
        compact &= (1u << width) - 1u;
    return f32_from_bits(decode_compact(d, compact));
}

uint16_t numfmt_f32_to_f16(float x)  { return (uint16_t)numfmt_encode(NUMFMT_F16, x, 0); }
float    numfmt_f16_to_f32(uint16_t h) { return numfmt_decode(NUMFMT_F16, h); }
uint16_t numfmt_f32_to_bf16(float x) { return (uint16_t)numfmt_encode(NUMFMT_BF16, x, 0); }
float    numfmt_bf16_to_f32(uint16_t b) { return numfmt_decode(NUMFMT_BF16, b); }
uint32_t numfmt_f32_to_tf32(float x) { return numfmt_encode(NUMFMT_TF32, x, 0); }
float    numfmt_tf32_to_f32(uint32_t t) { return numfmt_decode(NUMFMT_TF32, t); }

uint8_t numfmt_f32_to_e4m3(float x, int saturate)
{
    return (uint8_t)numfmt_encode(NUMFMT_E4M3, x, saturate);
}

float numfmt_e4m3_to_f32(uint8_t q) { return numfmt_decode(NUMFMT_E4M3, q); }

uint8_t numfmt_f32_to_e5m2(float x, int saturate)
{
    return (uint8_t)numfmt_encode(NUMFMT_E5M2, x, saturate);
}

float numfmt_e5m2_to_f32(uint8_t q) { return numfmt_decode(NUMFMT_E5M2, q); }

float numfmt_round_f32_sat(float x, numfmt_t fmt, int saturate)
{
    return numfmt_decode(fmt, numfmt_encode(fmt, x, saturate));
}

float numfmt_round_f32(float x, numfmt_t fmt)
{
    int saturate = (fmt == NUMFMT_E4M3 || fmt == NUMFMT_E5M2);
    return numfmt_round_f32_sat(x, fmt, saturate);
}

const char *numfmt_name(numfmt_t fmt)
{
    return desc_of(fmt)->name;
}

int numfmt_from_name(const char *name, numfmt_t *out, simt_err_t *err)
{
    static const struct { const char *alias; numfmt_t fmt; } aliases[] = {
        { "fp32", NUMFMT_F32 }, { "fp16", NUMFMT_F16 },
        { "fp8e4m3", NUMFMT_E4M3 }, { "fp8e5m2", NUMFMT_E5M2 },
    };
    if (name == NULL)
        return simt_errf(err, SIMT_E_USAGE, "number format: name is missing");
    for (int i = 0; i < NUMFMT_COUNT; i++) {
        if (strcmp(name, numfmt_descs[i].name) == 0) {
            *out = (numfmt_t)i;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].fmt;
            return 0;
        }
    }
    return simt_errf(err, SIMT_E_USAGE,
                     "unknown number format '%s' (expected f32, f16, bf16, tf32, e4m3 or e5m2)",
                     name);
}

int numfmt_bits(numfmt_t fmt)
{
    return desc_of(fmt)->storage_bits;
}

int numfmt_significant_bits(numfmt_t fmt)
{
    const numfmt_desc_t *d = desc_of(fmt);
    return 1 + d->exp_bits + d->man_bits;
}

int numfmt_precision(numfmt_t fmt)
{
    return desc_of(fmt)->man_bits + 1;
}

float numfmt_max_finite(numfmt_t fmt)
{
    const numfmt_desc_t *d = desc_of(fmt);
    return f32_from_bits(decode_compact(d, max_finite_bits(d)));
}

float numfmt_min_normal(numfmt_t fmt)
{
    const numfmt_desc_t *d = desc_of(fmt);
    return f32_from_bits(decode_compact(d, 1u << d->man_bits));
}

float numfmt_min_subnormal(numfmt_t fmt)
{
    return f32_from_bits(decode_compact(desc_of(fmt), 1u));
}

float numfmt_epsilon(numfmt_t fmt)
{
    /* 2^-M as an FP32: biased exponent 127 - M, mantissa 0. */
    return f32_from_bits((uint32_t)(F32_BIAS - desc_of(fmt)->man_bits) << F32_MANT_BITS);
}
