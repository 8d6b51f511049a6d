/* numfmt.h - the number formats of AI hardware: FP16, BF16, TF32, FP8.
 *
 * Every format here is a "mini float": 1 sign bit, E exponent bits and M
 * mantissa (fraction) bits. A normal number is
 *
 *     (-1)^sign * 2^(exponent - bias) * 1.mantissa            (binary)
 *
 * and when the exponent field is 0 the number is subnormal:
 *
 *     (-1)^sign * 2^(1 - bias) * 0.mantissa
 *
 * which fills the gap between 0 and the smallest normal number evenly.
 *
 *  format  stored  sign exp mant bias  largest finite       smallest normal    smallest subnormal   epsilon    ~digits
 *  ------  ------  ---- --- ---- ----  -------------------  -----------------  -------------------  ---------  -------
 *  FP32    32      1    8   23   127   3.40e38 (2^128-2^104) 2^-126 = 1.18e-38  2^-149 = 1.40e-45   2^-23      7.2
 *  TF32    32 (19) 1    8   10   127   3.40e38               2^-126 = 1.18e-38  2^-136 = 1.15e-41   2^-10      3.3
 *  FP16    16      1    5   10   15    65504                 2^-14  = 6.10e-5   2^-24  = 5.96e-8    2^-10      3.3
 *  BF16    16      1    8   7    127   3.39e38               2^-126 = 1.18e-38  2^-133 = 9.18e-41   2^-7       2.4
 *  E4M3    8       1    4   3    7     448                   2^-6   = 0.0156    2^-9   = 0.00195    2^-3       1.2
 *  E5M2    8       1    5   2    15    57344                 2^-14  = 6.10e-5   2^-16  = 1.53e-5    2^-2       0.9
 *
 * "epsilon" is the gap between 1.0 and the next larger number, 2^-M: the
 * relative precision. Rounding to nearest makes a relative error of at
 * most epsilon/2 (for normal numbers). "~digits" is (M+1)*log10(2).
 *
 * Special values. FP32, TF32, FP16, BF16 and E5M2 follow IEEE 754: the
 * all-ones exponent means infinity (mantissa 0) or NaN (mantissa not 0).
 * E4M3 (the OCP "E4M3FN" variant that NVIDIA, AMD and Intel use) has no
 * infinity: it spends the all-ones exponent on normal numbers (256..448)
 * and keeps a single NaN pattern, S.1111.111. TF32 is stored in a normal
 * 32-bit float whose low 13 mantissa bits are zero (19 bits carry data).
 *
 * Why AI uses them. A matrix multiply reads and multiplies enormous numbers
 * of values; halving the bits halves the memory traffic and lets a Tensor
 * Core do 2x (16-bit) or 4x (8-bit) as many multiplies per cycle. Neural
 * networks tolerate the lost precision, but not lost range:
 *  - FP16 has 3 decimal digits but overflows past 65504 (to infinity) and
 *    loses small gradients below 6e-8, so FP16 training needs loss scaling.
 *  - BF16 ("brain float") is FP32 with the mantissa cut to 7 bits: only
 *    about 2-3 digits, but FP32's whole range, so it rarely overflows; it is
 *    the usual training format today.
 *  - TF32 is what Tensor Cores do with FP32 inputs: FP32's range, FP16's
 *    precision, much faster than plain FP32 arithmetic.
 *  - FP8 (E4M3 for weights and activations, E5M2 for gradients, which need
 *    more range) doubles speed again over 16 bits. Its range is so small
 *    that each tensor is multiplied by a scale factor first, chosen so that
 *    its largest value lands near the format's maximum.
 *
 * Rounding. Every conversion from FP32 rounds to nearest, ties to even
 * (the IEEE default), handles subnormals of the target exactly, keeps the
 * sign of zero, and turns any NaN into the format's canonical quiet NaN
 * with the same sign. A value overflows when it rounds (with an unbounded
 * exponent) to something above the largest finite number; then the result
 * is infinity, or for E4M3 (no infinity) NaN, or, when `saturate` is set,
 * the largest finite number with the sign of the input (infinite inputs
 * saturate too; NaN stays NaN). This is PTX's ".satfinite". For example
 * in E4M3, 464 is exactly halfway between 448 (mantissa 110, even) and
 * 480 (mantissa 111, odd, which E4M3 spends on NaN), so 464 rounds to 448
 * and only values above 464 overflow. Conversions to FP32 are exact.
 *
 * Real hardware differs in places, and simtlab follows the rules above:
 * PTX's cvt.rna.tf32.f32 rounds ties away from zero, and some Tensor Cores
 * simply drop TF32's low bits. All functions here are pure bit
 * manipulation on uint32_t (no _Float16, no host floating-point modes),
 * so results are identical on every machine.
 */
#ifndef SIMT_NUMFMT_H
#define SIMT_NUMFMT_H

#include <stdint.h>

#include "err.h"

/* The formats. The storage type of each is given in the functions below. */
typedef enum numfmt {
    NUMFMT_F32,   /* IEEE binary32, the reference format (identity)        */
    NUMFMT_F16,   /* IEEE binary16, "half"                                  */
    NUMFMT_BF16,  /* bfloat16: the top 16 bits of an FP32                   */
    NUMFMT_TF32,  /* TensorFloat-32: FP32 container, low 13 bits zero       */
    NUMFMT_E4M3,  /* FP8 E4M3FN: no infinity, one NaN, max 448              */
    NUMFMT_E5M2,  /* FP8 E5M2: IEEE-like, has infinity, max 57344           */
    NUMFMT_COUNT
} numfmt_t;

/* Typed conversions. "to_f32" is exact. "f32_to" rounds to nearest even;
 * FP16, BF16 and TF32 overflow to infinity (IEEE). */
uint16_t numfmt_f32_to_f16(float x);
float    numfmt_f16_to_f32(uint16_t h);
uint16_t numfmt_f32_to_bf16(float x);
float    numfmt_bf16_to_f32(uint16_t b);
/* TF32 result is a 32-bit pattern with the low 13 bits zero; tf32_to_f32
 * ignores (clears) the low 13 bits of its argument. */
uint32_t numfmt_f32_to_tf32(float x);
float    numfmt_tf32_to_f32(uint32_t t);
/* FP8. saturate != 0: overflow and infinity give +-max finite (448 /
 * 57344); saturate == 0: overflow gives NaN (E4M3) or infinity (E5M2). */
uint8_t  numfmt_f32_to_e4m3(float x, int saturate);
float    numfmt_e4m3_to_f32(uint8_t q);
uint8_t  numfmt_f32_to_e5m2(float x, int saturate);
float    numfmt_e5m2_to_f32(uint8_t q);

/* Generic versions of the above for any fmt: the bit pattern in the low
 * numfmt_bits(fmt) bits of the result (TF32: the whole 32-bit container).
 * saturate applies to every format (FP32 included: inf -> FLT_MAX). */
uint32_t numfmt_encode(numfmt_t fmt, float x, int saturate);
/* Exact value of bits (bits above numfmt_bits(fmt) are ignored). */
float    numfmt_decode(numfmt_t fmt, uint32_t bits);

/* x rounded to fmt and back to FP32, as cvt does it: FP8 saturates
 * (satfinite, the PTX requirement for FP8 cvt), the others overflow to
 * infinity. NUMFMT_F32 returns x (NaN becomes the canonical quiet NaN). */
float    numfmt_round_f32(float x, numfmt_t fmt);
/* Same with an explicit overflow rule (see numfmt_encode). */
float    numfmt_round_f32_sat(float x, numfmt_t fmt, int saturate);

/* Short lower-case name: "f32" "f16" "bf16" "tf32" "e4m3" "e5m2". */
const char *numfmt_name(numfmt_t fmt);
/* Parse a name as printed by numfmt_name (also accepts "fp32", "fp16",
 * "fp8e4m3", "fp8e5m2"); 0 and *out set, or -1 with SIMT_E_USAGE. */
int numfmt_from_name(const char *name, numfmt_t *out, simt_err_t *err);
/* Storage bits: 32 16 16 32 8 8 (TF32 occupies 32 bits, 19 significant). */
int numfmt_bits(numfmt_t fmt);
/* Significant bits of the stored pattern: 32 16 16 19 8 8. */
int numfmt_significant_bits(numfmt_t fmt);
/* Precision: mantissa bits + the implicit 1 (24 11 8 11 4 3). */
int numfmt_precision(numfmt_t fmt);
/* Largest finite value (448 for E4M3, 65504 for FP16, ...). */
float numfmt_max_finite(numfmt_t fmt);
/* Smallest positive normal value, 2^(1-bias). */
float numfmt_min_normal(numfmt_t fmt);
/* Smallest positive subnormal value, 2^(1-bias-M). */
float numfmt_min_subnormal(numfmt_t fmt);
/* Gap between 1.0 and the next larger value, 2^-M. */
float numfmt_epsilon(numfmt_t fmt);

#endif
