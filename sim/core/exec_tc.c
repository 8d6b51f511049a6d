/* exec_tc.c - warp matrix (Tensor Core) instructions, lane by lane
 * (exec_parts.h): wmma.load and wmma.store of fragments, wmma.mma, and
 * wgmma's arithmetic (its timing is sm_async.c's), computed with exact
 * products so the results match a real Tensor Core's rounding (isa.h).
 */
#include "exec_parts.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "check.h"

/* ---- warp matrix (Tensor Core) instructions -------------------------------- */

/* wmma needs the whole warp: report a fault otherwise (0 if all active). */
static int wmma_full_warp(const exec_ctx_t *x, const warp_t *w, uint32_t mask, simt_err_t *err)
{
    char detail[160];
    if (mask == ALL_LANES)
        return 0;
    snprintf(detail, sizeof detail,
             "only lanes 0x%08" PRIx32 " are active: a warp matrix instruction needs all 32 lanes "
             "(no guard, no divergent path, a block size that is a multiple of 32)", mask);
    return exec_report(x, w, lowest_lane(mask ? mask : 1u), SIMT_E_KERNEL, err,
                       "wmma with inactive lanes", detail);
}

/* Fragment geometry of a wmma load, store or operand: rows, columns,
 * element bytes; the type is the instruction's input type for A and B. */
typedef struct frag_geom {
    unsigned rows, cols, esize;  /* shape and element size in bytes        */
    unsigned per_lane;           /* elements per lane = rows * cols / 32   */
    unsigned nregs;              /* registers per lane                     */
} frag_geom_t;

static frag_geom_t frag_geom(isa_frag_t f, uint8_t type)
{
    frag_geom_t g;
    g.rows = isa_frag_rows(f, (isa_type_t)type);
    g.cols = isa_frag_cols(f, (isa_type_t)type);
    g.esize = f == FRAG_C ? 4 : isa_type_bytes((isa_type_t)type);
    g.per_lane = g.rows * g.cols / WARP_SIZE;
    g.nregs = isa_frag_regs(f, (isa_type_t)type);
    return g;
}

/* wmma.load.{a,b,c} and wmma.store.d: lane l moves its per_lane elements
 * (one row piece, 16 or 32 bytes) at addr + (row * stride + col) * esize,
 * as 16-byte parts; see the layout in isa.h. */
int exec_wmma_mem(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                  simt_err_t *err)
{
    int is_store = in->op == OP_WMMA_STORE_D;
    isa_frag_t f = in->op == OP_WMMA_LOAD_A ? FRAG_A : in->op == OP_WMMA_LOAD_B ? FRAG_B : FRAG_C;
    frag_geom_t g = frag_geom(f, in->type);
    const isa_operand_t *m = &in->opd[is_store ? 0 : 1];
    const isa_operand_t *reg = &in->opd[is_store ? 1 : 0];
    uint32_t tmp[WARP_SIZE];
    uint32_t data[8][WARP_SIZE];   /* [register][lane], at most 8 registers */
    uint32_t first[WARP_SIZE];

    if (wmma_full_warp(x, w, info->mask, err) != 0)
        return -1;
    uint32_t base = m->imm;
    if (m->index != ISA_NO_REG)
        base += w->regs[(size_t)m->index * WARP_SIZE];      /* lane 0's address */
    uint32_t stride = src(x, w, &in->opd[2], tmp)[0];
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        uint32_t e = l * g.per_lane;
        first[l] = base + ((e / g.cols) * stride + e % g.cols) * g.esize;
    }
    info->space = in->space;
    info->is_store = (uint8_t)is_store;
    info->bytes = 16;
    info->parts = (uint8_t)(g.per_lane * g.esize / 16);
    if (is_store)
        for (unsigned r = 0; r < g.nregs; r++)
            memcpy(data[r], &w->regs[(size_t)(reg->index + r) * WARP_SIZE], sizeof data[r]);
    /* The kernel checker sees a fragment access as 16-byte ld/st pieces,
     * one per lane and part: loads must read initialised memory, stores
     * mark it written, and shared accesses take part in race detection
     * like any ld/st (so another lane reading a stored fragment needs a
     * bar.sync in between, as CUDA needs __syncwarp). info->op is
     * OP_LD/OP_ST during those calls only. */
    uint8_t op = info->op;
    for (unsigned part = 0; part < info->parts; part++) {
        uint32_t lo;
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            info->addrs[l] = first[l] + 16u * part;
        uint8_t *span = exec_warp_span(x, info, &lo);
        for (uint32_t l = 0; l < WARP_SIZE; l++) {
            uint8_t *p = span ? span + (info->addrs[l] - lo) : exec_lane_ptr(x, w, info, l, err);
            if (!p)
                return -1;
            if (x->check) {   /* 16-byte ld/st pieces (see above) */
                info->op = (uint8_t)(is_store ? OP_ST : OP_LD);
                int rc = check_access(x->check, x, w, info, l, err);
                info->op = op;
                if (rc != 0)
                    return -1;
            }
            for (unsigned k = 0; k < 4; k++) {
                if (is_store)
                    store_bytes(p + 4 * k, 4, data[4 * part + k][l]);
                else
                    data[4 * part + k][l] = load_bytes(p + 4 * k, 4);
            }
        }
    }
    memcpy(info->addrs, first, sizeof first);
    if (!is_store)   /* after all checks: the range may hold the address register */
        for (unsigned r = 0; r < g.nregs; r++)
            memcpy(&w->regs[(size_t)(reg->index + r) * WARP_SIZE], data[r], sizeof data[r]);
    return 0;
}

/* Unpack a fragment from registers first.. into out[rows * cols]
 * (row-major), decoding each element exactly to f32. */
static void frag_unpack(const warp_t *w, uint32_t first, isa_frag_t f, uint8_t type, float *out)
{
    frag_geom_t g = frag_geom(f, type);
    numfmt_t fmt = f == FRAG_C ? NUMFMT_F32 : type_fmt(type);
    unsigned per_reg = 4 / g.esize;
    uint32_t emask = g.esize == 4 ? 0xFFFFFFFFu : (1u << (8 * g.esize)) - 1u;
    for (unsigned e = 0; e < g.rows * g.cols; e++) {
        unsigned lane = e / g.per_lane, slot = e % g.per_lane;
        uint32_t word = w->regs[(size_t)(first + slot / per_reg) * WARP_SIZE + lane];
        uint32_t v = word >> (8 * g.esize * (slot % per_reg)) & emask;
        out[e] = fmt == NUMFMT_F32 ? f32(v) : numfmt_decode(fmt, v);
    }
}

/* 1 if every product of two of these n decoded inputs is exactly an f32
 * (no overflow, no underflow, at most 22 significant bits): always for
 * FP16 and FP8 (their products lie between 2^-48 and 2^32, or are 0, inf
 * or NaN); for BF16 and TF32 when all values are 0 or finite with
 * magnitude in [2^-60, 2^60]. */
static int products_exact(uint8_t type, const float *v, unsigned n)
{
    if (type == T_F16 || type == T_E4M3 || type == T_E5M2)
        return 1;
    for (unsigned i = 0; i < n; i++) {
        float m = fabsf(v[i]);
        if (m != 0.0f && !(m >= 0x1p-60f && m <= 0x1p60f))
            return 0;
    }
    return 1;
}

/* wmma.mma.T d, a, b, c: D = A x B + C with the order documented in
 * isa.h: for each (i, j), acc = C[i][j], then acc = fmaf(A[i][k],
 * B[k][j], acc) for k ascending. */
int exec_mma(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
             simt_err_t *err)
{
    float a[16 * 32], b[32 * 16], c[16 * 16];
    unsigned kdim = isa_frag_cols(FRAG_A, (isa_type_t)in->type);
    if (wmma_full_warp(x, w, info->mask, err) != 0)
        return -1;
    frag_unpack(w, in->opd[1].index, FRAG_A, in->type, a);
    frag_unpack(w, in->opd[2].index, FRAG_B, in->type, b);
    frag_unpack(w, in->opd[3].index, FRAG_C, in->type, c);
    if (products_exact(in->type, a, 16 * kdim) && products_exact(in->type, b, 16 * kdim)) {
        /* Same result, faster: every product is an exact f32, so acc + p
         * rounds once, exactly like fmaf. Loops ordered so that the
         * compiler can vectorise over j; each element still sums k
         * ascending. */
        for (unsigned i = 0; i < 16; i++)
            for (unsigned k = 0; k < kdim; k++) {
                float aik = a[i * kdim + k];
                for (unsigned j = 0; j < 16; j++) {
                    float p = aik * b[k * 16 + j];
                    c[i * 16 + j] = c[i * 16 + j] + p;
                }
            }
    } else {
        for (unsigned i = 0; i < 16; i++)
            for (unsigned j = 0; j < 16; j++) {
                float acc = c[i * 16 + j];
                for (unsigned k = 0; k < kdim; k++)
                    acc = fmaf(a[i * kdim + k], b[k * 16 + j], acc);
                c[i * 16 + j] = acc;
            }
    }
    /* D layout: 8 f32 per lane, element e in lane e / 8, register e % 8 */
    uint32_t d = in->opd[0].index;
    for (unsigned e = 0; e < 256; e++)
        w->regs[(size_t)(d + e % 8) * WARP_SIZE + e / 8] = bits(c[e]);
    info->flops = isa_mma_flops((isa_type_t)in->type);
    return 0;
}

/* ---- wgmma (isa.h) ---------------------------------------------------------- */

/* One element of a Tensor Core input format, decoded exactly to f32: the
 * bit pattern moved into f32's exponent and mantissa fields and scaled by
 * 2^(127 - bias), which is exact for normal and subnormal values alike;
 * all-ones exponents give inf / NaN. Same results as numfmt_decode
 * (tests/unit check every code), but branch-light so that loops over a
 * tile vectorise. */
static inline float decode_fast(uint8_t type, uint32_t v)
{
    switch (type) {
    case T_F16: {
        uint32_t m = (v & 0x7FFFu) << 13, sgn = (v & 0x8000u) << 16;
        float f = f32(m) * 0x1p112f;
        if ((v & 0x7C00u) == 0x7C00u)
            f = f32(m | 0x7F800000u);
        return f32(bits(f) | sgn);
    }
    case T_BF16: return f32(v << 16);
    case T_TF32: return f32(v & 0xFFFFE000u);
    case T_E4M3: {
        uint32_t m = (v & 0x7Fu) << 20, sgn = (v & 0x80u) << 24;
        float f = f32(m) * 0x1p120f;
        if ((v & 0x7Fu) == 0x7Fu)
            f = f32(0x7FC00000u);
        return f32(bits(f) | sgn);
    }
    default: {   /* T_E5M2 */
        uint32_t m = (v & 0x7Fu) << 21, sgn = (v & 0x80u) << 24;
        float f = f32(m) * 0x1p112f;
        if ((v & 0x7Cu) == 0x7Cu)
            f = f32(m | 0x7F800000u);
        return f32(bits(f) | sgn);
    }
    }
}

float exec_decode_fast(uint8_t type, uint32_t v)
{
    return decode_fast(type, v);
}

/* Decode n elements of the format at p (little-endian) into out; one loop
 * per element size so that each vectorises. */
static void decode_row(uint8_t type, const uint8_t *p, unsigned n, float *out)
{
    unsigned eb = isa_type_bytes((isa_type_t)type);
    if (eb == 1) {
        for (unsigned i = 0; i < n; i++)
            out[i] = decode_fast(type, p[i]);
    } else if (eb == 2) {
        for (unsigned i = 0; i < n; i++)
            out[i] = decode_fast(type, (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8);
    } else {
        for (unsigned i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, p + 4 * i, 4);
            out[i] = decode_fast(type, v);
        }
    }
}

/* c[j] = c[j] + a * b[j] for j < n (a multiple of 8), 8 at a time: each
 * step one rounding, in the order of a loop over j. */
static void row_axpy(float *restrict c, const float *restrict b, float a, unsigned n)
{
    for (unsigned j = 0; j < n; j += 8) {
        float t[8];
        for (unsigned q = 0; q < 8; q++)
            t[q] = c[j + q] + a * b[j + q];
        for (unsigned q = 0; q < 8; q++)
            c[j + q] = t[q];
    }
}

/* wgmma.mma_async.nN.T d, [a], [b], bstride: D (16 x N f32, layout in
 * isa.h) += A (16 x K at a, rows 32 bytes) x B (K x N at b, rows bstride
 * apart), in wmma.mma's order. info->addrs: [0] a, [1] b, [2] bstride. */
int exec_wgmma(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
               simt_err_t *err)
{
    float a[16 * 32], b[32 * 128], c[16 * 128];
    uint32_t tmp[WARP_SIZE];
    unsigned n = in->shape[0], kdim = isa_wgmma_k((isa_type_t)in->type);
    unsigned eb = isa_type_bytes((isa_type_t)in->type);
    if (wmma_full_warp(x, w, info->mask, err) != 0)
        return -1;
    uint32_t aa = lane_addr(w, &in->opd[1], 0), ba = lane_addr(w, &in->opd[2], 0);
    uint32_t bs = src(x, w, &in->opd[3], tmp)[0];
    if (bs % 16 != 0) {
        char detail[96];
        snprintf(detail, sizeof detail, "B's row stride %" PRIu32 " is not a multiple of 16", bs);
        return exec_report(x, w, 0, SIMT_E_MEM, err, "misaligned wgmma B operand", detail);
    }
    if (exec_async_shared(x, w, 0, aa, 512, 16, "wgmma A operand", err) != 0 ||
        exec_async_shared(x, w, 0, ba, (uint64_t)(kdim - 1) * bs + n * eb, 16, "wgmma B operand", err) != 0)
        return -1;
    if (x->check) {
        if (exec_async_check(x, w, SPACE_SHARED, 0, aa, 512, 0, err) != 0)
            return -1;
        for (unsigned k = 0; k < kdim; k++)
            if (exec_async_check(x, w, SPACE_SHARED, 0, ba + k * bs, n * eb, 0, err) != 0)
                return -1;
    }
    for (unsigned i = 0; i < 16; i++)
        decode_row(in->type, x->smem + aa + 32u * i, kdim, &a[i * kdim]);
    for (unsigned k = 0; k < kdim; k++)
        decode_row(in->type, x->smem + ba + (size_t)k * bs, n, &b[k * n]);
    uint32_t d = in->opd[0].index;
    for (unsigned e = 0; e < 16 * n; e++)
        c[e] = f32(w->regs[(size_t)(d + e / 32) * WARP_SIZE + e % 32]);
    if (products_exact(in->type, a, 16 * kdim) && products_exact(in->type, b, kdim * n)) {
        /* as in exec_mma: exact products, so acc + p rounds like fmaf */
        for (unsigned i = 0; i < 16; i++)
            for (unsigned k = 0; k < kdim; k++) {
                float aik = a[i * kdim + k];
                row_axpy(&c[i * n], &b[k * n], aik, n);
            }
    } else {
        for (unsigned i = 0; i < 16; i++)
            for (unsigned j = 0; j < n; j++) {
                float acc = c[i * n + j];
                for (unsigned k = 0; k < kdim; k++)
                    acc = fmaf(a[i * kdim + k], b[k * n + j], acc);
                c[i * n + j] = acc;
            }
    }
    for (unsigned e = 0; e < 16 * n; e++)
        w->regs[(size_t)(d + e / 32) * WARP_SIZE + e % 32] = bits(c[e]);
    info->space = SPACE_SHARED;
    info->addrs[0] = aa;
    info->addrs[1] = ba;
    info->addrs[2] = bs;
    info->flops = isa_wgmma_flops((isa_type_t)in->type, n);
    return 0;
}

