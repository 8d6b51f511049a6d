/* exec.c - what each instruction does, lane by lane.
 *
 * One function per instruction family. Each reads its sources as 32-lane
 * vectors, computes the lanes in `mask`, and writes the destination for
 * those lanes only. Nothing here counts cycles (see sm.c).
 */
#include "exec.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa_fmt.h"
#include "bits.h"
#include "check.h"
#include "numfmt.h"

#define ALL_LANES 0xFFFFFFFFu
#define FOR_LANES(mask, l) for (uint32_t l = 0; l < WARP_SIZE; l++) if ((mask) >> l & 1u)
/* The same with a branch-free loop when every lane is active (the common
 * case), which the compiler can turn into vector instructions. */
#define LANE_LOOP(mask, l, ...)                                        \
    do {                                                               \
        if ((mask) == ALL_LANES) {                                     \
            for (uint32_t l = 0; l < WARP_SIZE; l++) { __VA_ARGS__; }  \
        } else {                                                       \
            FOR_LANES(mask, l) { __VA_ARGS__; }                        \
        }                                                              \
    } while (0)

/* ---- bit views of a 32-bit register value ------------------------------ */

static inline float f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline uint32_t bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline int32_t s32(uint32_t b) { int32_t i; memcpy(&i, &b, 4); return i; }
static inline uint32_t u32(int32_t i) { uint32_t b; memcpy(&b, &i, 4); return b; }

/* ---- operands ------------------------------------------------------------ */

/* A special register's value for one lane. */
static uint32_t special(const exec_ctx_t *x, const warp_t *w, uint32_t which, uint32_t lane)
{
    uint32_t lin = w->warp_in_block * WARP_SIZE + lane;
    switch (which) {
    case SR_TID_X: return lin % x->ntid[0];
    case SR_TID_Y: return (lin / x->ntid[0]) % x->ntid[1];
    case SR_TID_Z: return lin / (x->ntid[0] * x->ntid[1]);
    case SR_NTID_X: return x->ntid[0];
    case SR_NTID_Y: return x->ntid[1];
    case SR_NTID_Z: return x->ntid[2];
    case SR_CTAID_X: return x->ctaid[0];
    case SR_CTAID_Y: return x->ctaid[1];
    case SR_CTAID_Z: return x->ctaid[2];
    case SR_NCTAID_X: return x->nctaid[0];
    case SR_NCTAID_Y: return x->nctaid[1];
    case SR_NCTAID_Z: return x->nctaid[2];
    case SR_LANEID: return lane;
    case SR_WARPID: return w->slot;
    case SR_SMID: return x->smid;
    case SR_CLOCK: return (uint32_t)x->clock;
    case SR_CLUSTER_CTARANK: return x->cluster_rank;
    case SR_CLUSTER_NCTARANK: return x->cluster ? x->cluster->size : 1;
    case SR_CLUSTERID_X: case SR_CLUSTERID_Y: case SR_CLUSTERID_Z:
        return x->cluster ? x->cluster->id[which - SR_CLUSTERID_X] : x->ctaid[which - SR_CLUSTERID_X];
    case SR_CLUSTER_NCTAID_X: case SR_CLUSTER_NCTAID_Y: case SR_CLUSTER_NCTAID_Z:
        return x->cluster ? x->cluster->dim[which - SR_CLUSTER_NCTAID_X] : 1;
    default: return 0;
    }
}

/* A special register for all 32 lanes: the same values as special() lane
 * by lane, without a switch and divisions per lane. The thread index
 * counts up from lane 0's like an odometer: tid.x wraps at ntid.x into
 * tid.y, which wraps at ntid.y into tid.z. Between two wraps of tid.x
 * (a run of lanes: all 32 when the block is at least 32 threads wide),
 * tid.x counts up by one per lane and tid.y and tid.z stay the same. */
static void special_lanes(const exec_ctx_t *x, const warp_t *w, uint32_t which, uint32_t *v)
{
    if (which == SR_TID_X || which == SR_TID_Y || which == SR_TID_Z) {
        uint32_t t[3];   /* lane 0's (tid.x, tid.y, tid.z), then each run's first lane's */
        uint32_t k = which - SR_TID_X;
        for (uint32_t i = 0; i < 3; i++)
            t[i] = special(x, w, SR_TID_X + i, 0);
        for (uint32_t l = 0; l < WARP_SIZE;) {
            uint32_t run = x->ntid[0] - t[0];   /* lanes until tid.x wraps */
            if (run > WARP_SIZE - l)
                run = WARP_SIZE - l;
            if (k == 0)
                for (uint32_t i = 0; i < run; i++)
                    v[l + i] = t[0] + i;
            else
                for (uint32_t i = 0; i < run; i++)
                    v[l + i] = t[k];
            l += run;
            t[0] += run;
            if (t[0] == x->ntid[0]) {
                t[0] = 0;
                if (++t[1] == x->ntid[1]) {
                    t[1] = 0;
                    t[2]++;
                }
            }
        }
    } else if (which == SR_LANEID) {
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            v[l] = l;
    } else {   /* the same for every lane of the warp */
        uint32_t u = special(x, w, which, 0);
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            v[l] = u;
    }
}

/* Source operand as a 32-lane vector: registers are read in place, other
 * kinds are expanded into tmp. src() is the inline register and
 * immediate cases (most operands); src_expand() does the rest. */
static const uint32_t *src_expand(const exec_ctx_t *x, const warp_t *w, const isa_operand_t *o, uint32_t *tmp)
{
    switch (o->kind) {
    case OPD_PRED: {
        uint32_t p = w->preds[o->index];
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            tmp[l] = p >> l & 1u;
        return tmp;
    }
    case OPD_SPECIAL:
        special_lanes(x, w, o->index, tmp);
        return tmp;
    default: { /* OPD_IMM, OPD_LABEL */
        uint32_t v = o->imm;   /* a local: tmp might alias o->imm for all the compiler knows */
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            tmp[l] = v;
        return tmp;
    }
    }
}

static inline const uint32_t *src(const exec_ctx_t *x, const warp_t *w, const isa_operand_t *o, uint32_t *tmp)
{
    if (o->kind == OPD_REG)
        return &w->regs[(size_t)o->index * WARP_SIZE];
    if (o->kind == OPD_IMM) {   /* the next most common: add %r9, %r9, 4 */
        uint32_t v = o->imm;
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            tmp[l] = v;
        return tmp;
    }
    return src_expand(x, w, o, tmp);
}

static inline uint32_t *dst(warp_t *w, const isa_instr_t *in)
{
    return &w->regs[(size_t)in->opd[0].index * WARP_SIZE];
}

/* ---- arithmetic ---------------------------------------------------------- */

/* Two-source arithmetic and logic on one lane. */
static uint32_t binop(uint8_t op, uint8_t type, uint32_t a, uint32_t b)
{
    if (type == T_F32) {
        float fa = f32(a), fb = f32(b);
        switch (op) {
        case OP_ADD: return bits(fa + fb);
        case OP_SUB: return bits(fa - fb);
        case OP_MUL: return bits(fa * fb);
        case OP_DIV: return bits(fa / fb);
        case OP_MIN: return bits(fminf(fa, fb));
        case OP_MAX: return bits(fmaxf(fa, fb));
        default: break;
        }
    }
    int sgn = type == T_S32;
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_MULHI:
        if (sgn)
            return (uint32_t)((uint64_t)((int64_t)s32(a) * (int64_t)s32(b)) >> 32);
        return (uint32_t)(((uint64_t)a * b) >> 32);
    case OP_DIV:
        if (b == 0) return ALL_LANES;
        if (sgn) {
            if (s32(a) == INT32_MIN && s32(b) == -1) return a;
            return u32(s32(a) / s32(b));
        }
        return a / b;
    case OP_REM:
        if (b == 0) return a;
        if (sgn) {
            if (s32(a) == INT32_MIN && s32(b) == -1) return 0;
            return u32(s32(a) % s32(b));
        }
        return a % b;
    case OP_MIN: return sgn ? (s32(a) < s32(b) ? a : b) : (a < b ? a : b);
    case OP_MAX: return sgn ? (s32(a) > s32(b) ? a : b) : (a > b ? a : b);
    case OP_AND: return a & b;
    case OP_OR: return a | b;
    case OP_XOR: return a ^ b;
    case OP_SHL: return b >= 32 ? 0 : a << b;
    case OP_SHR:
        if (sgn) {
            if (b >= 32) return s32(a) < 0 ? ALL_LANES : 0;
            /* arithmetic shift without relying on signed >> */
            return s32(a) < 0 ? ~(~a >> b) : a >> b;
        }
        return b >= 32 ? 0 : a >> b;
    default: return 0;
    }
}

/* The most frequent two-source operations, computed for the whole warp at
 * once (plain loops the compiler can vectorise) and then blended into the
 * destination for the lanes in mask. Returns 0 for any other operation,
 * which then goes lane by lane through binop. Same results as binop. */
static int binop_warp(uint8_t op, uint8_t type, uint32_t mask, const uint32_t *a, const uint32_t *b, uint32_t *d)
{
    uint32_t r[WARP_SIZE];
    if (type == T_F32) {
        float fa[WARP_SIZE], fb[WARP_SIZE], fr[WARP_SIZE];
        memcpy(fa, a, sizeof fa);
        memcpy(fb, b, sizeof fb);
        switch (op) {
        case OP_ADD: for (uint32_t l = 0; l < WARP_SIZE; l++) fr[l] = fa[l] + fb[l]; break;
        case OP_SUB: for (uint32_t l = 0; l < WARP_SIZE; l++) fr[l] = fa[l] - fb[l]; break;
        case OP_MUL: for (uint32_t l = 0; l < WARP_SIZE; l++) fr[l] = fa[l] * fb[l]; break;
        default: return 0;
        }
        memcpy(r, fr, sizeof r);
    } else {
        switch (op) {
        case OP_ADD: for (uint32_t l = 0; l < WARP_SIZE; l++) r[l] = a[l] + b[l]; break;
        case OP_SUB: for (uint32_t l = 0; l < WARP_SIZE; l++) r[l] = a[l] - b[l]; break;
        case OP_MUL: for (uint32_t l = 0; l < WARP_SIZE; l++) r[l] = a[l] * b[l]; break;
        case OP_AND: for (uint32_t l = 0; l < WARP_SIZE; l++) r[l] = a[l] & b[l]; break;
        case OP_OR:  for (uint32_t l = 0; l < WARP_SIZE; l++) r[l] = a[l] | b[l]; break;
        case OP_XOR: for (uint32_t l = 0; l < WARP_SIZE; l++) r[l] = a[l] ^ b[l]; break;
        case OP_SHL: for (uint32_t l = 0; l < WARP_SIZE; l++) r[l] = b[l] >= 32 ? 0 : a[l] << (b[l] & 31); break;
        default: return 0;
        }
    }
    if (mask == ALL_LANES)
        memcpy(d, r, sizeof r);
    else
        FOR_LANES(mask, l) d[l] = r[l];
    return 1;
}

/* shl, or shr unsigned, by an immediate amount s (shl.b32 %r5, %r3, 2):
 * binop's results, with the same shift in every lane (a loop that
 * vectorises; a shift by a per-lane amount does not). */
static void shift_imm_warp(uint8_t op, uint32_t mask, const uint32_t *a, uint32_t s, uint32_t *d)
{
    uint32_t r[WARP_SIZE];
    if (s >= 32)
        memset(r, 0, sizeof r);
    else if (op == OP_SHL)
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            r[l] = a[l] << s;
    else
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            r[l] = a[l] >> s;
    LANE_LOOP(mask, l, d[l] = r[l]);
}

/* One-source arithmetic on one lane. */
static uint32_t unop(uint8_t op, uint8_t type, uint32_t a)
{
    switch (op) {
    case OP_MOV: return a;
    case OP_NOT: return ~a;
    case OP_ABS:
        if (type == T_F32) return a & 0x7FFFFFFFu;
        return s32(a) < 0 ? 0u - a : a;
    case OP_NEG: return type == T_F32 ? a ^ 0x80000000u : 0u - a;
    case OP_RCP: return bits(1.0f / f32(a));
    case OP_SQRT: return bits(sqrtf(f32(a)));
    case OP_RSQRT: return bits(1.0f / sqrtf(f32(a)));
    case OP_EX2: return bits(exp2f(f32(a)));
    case OP_LG2: return bits(log2f(f32(a)));
    case OP_SIN: return bits(sinf(f32(a)));
    case OP_COS: return bits(cosf(f32(a)));
    default: return 0;
    }
}

/* setp for all 32 lanes at once: bit l of the result is a[l] CMP b[l]
 * compared as f32, s32 or (u32, b32) unsigned. The operands are copied
 * into arrays of their type so that each comparison is one plain loop. */
static uint32_t setp_warp(uint8_t cmp, uint8_t type, const uint32_t *a, const uint32_t *b)
{
    uint32_t r = 0;
#define SETP_LOOP(x, y, op) for (uint32_t l = 0; l < WARP_SIZE; l++) r |= x[l] op y[l] ? bits_lane[l] : 0
#define SETP_CMP(x, y)                                  \
    switch (cmp) {                                      \
    case CMP_EQ: SETP_LOOP(x, y, ==); break;            \
    case CMP_NE: SETP_LOOP(x, y, !=); break;            \
    case CMP_LT: SETP_LOOP(x, y, <); break;             \
    case CMP_LE: SETP_LOOP(x, y, <=); break;            \
    case CMP_GT: SETP_LOOP(x, y, >); break;             \
    default: SETP_LOOP(x, y, >=); break;                \
    }
    if (type == T_F32) {          /* NaN: every compare false but ne */
        float fa[WARP_SIZE], fb[WARP_SIZE];
        memcpy(fa, a, sizeof fa);
        memcpy(fb, b, sizeof fb);
        SETP_CMP(fa, fb);
    } else if (type == T_S32) {
        int32_t sa[WARP_SIZE], sb[WARP_SIZE];
        memcpy(sa, a, sizeof sa);
        memcpy(sb, b, sizeof sb);
        SETP_CMP(sa, sb);
    } else {                      /* u32, b32: unsigned */
        SETP_CMP(a, b);
    }
#undef SETP_CMP
#undef SETP_LOOP
    return r;
}

/* fma.f32 for all 32 lanes: r[l] = fmaf(a[l], b[l], c[l]), one rounding.
 * Most x86-64 CPUs (since 2013) do that in one instruction for 8 lanes,
 * but a default x86-64 build may not assume the instruction exists, so
 * every lane would be a library call. With GCC or Clang on x86-64,
 * fma_lanes_hw is compiled for FMA and used when the CPU has it (checked
 * at run time). fmaf is exactly rounded either way: the results are the
 * same bits, only the host time differs. */
#if defined(__GNUC__) && defined(__x86_64__)
#define EXEC_FMA_HW 1
__attribute__((target("avx2,fma")))
static void fma_lanes_hw(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *r)
{
    /* r may be one of the sources (fma d, a, b, d): lane l reads and writes
     * only its own word, so there is no dependence between lanes */
#if defined(__clang__)
#pragma clang loop vectorize(assume_safety)
#else
#pragma GCC ivdep
#endif
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        float fa, fb, fc, fr;   /* the register bits as floats (memcpy: no copies in the code) */
        memcpy(&fa, &a[l], 4);
        memcpy(&fb, &b[l], 4);
        memcpy(&fc, &c[l], 4);
        fr = fmaf(fa, fb, fc);
        memcpy(&r[l], &fr, 4);
    }
}
#endif

static void fma_warp(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *r)
{
#ifdef EXEC_FMA_HW
    if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2")) {
        fma_lanes_hw(a, b, c, r);
        return;
    }
#endif
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        r[l] = bits(fmaf(f32(a[l]), f32(b[l]), f32(c[l])));
}

/* d[l] = the 4-byte word at base + (addr[l] - lo), for all 32 lanes (4
 * lanes per loop trip: less loop overhead). */
static inline void gather_words(uint32_t *d, const uint8_t *base, const uint32_t *addr, uint32_t lo)
{
    for (uint32_t l = 0; l < WARP_SIZE; l += 4) {
        memcpy(&d[l], base + (addr[l] - lo), 4);
        memcpy(&d[l + 1], base + (addr[l + 1] - lo), 4);
        memcpy(&d[l + 2], base + (addr[l + 2] - lo), 4);
        memcpy(&d[l + 3], base + (addr[l + 3] - lo), 4);
    }
}

/* A raw value of `type` (its low bits) widened to a 32-bit register. */
static uint32_t widen(uint8_t type, uint32_t v)
{
    switch (type) {
    case T_U8: return v & 0xFFu;
    case T_S8: return (v & 0x80u) ? (v | 0xFFFFFF00u) : (v & 0xFFu);
    case T_U16: return v & 0xFFFFu;
    case T_S16: return (v & 0x8000u) ? (v | 0xFFFF0000u) : (v & 0xFFFFu);
    default: return v;
    }
}

static int is_signed(uint8_t t) { return t == T_S32 || t == T_S8 || t == T_S16; }

/* The numfmt format of a number-format type (f16 ... e5m2), or F32. */
static numfmt_t type_fmt(uint8_t t)
{
    switch (t) {
    case T_F16: return NUMFMT_F16;
    case T_BF16: return NUMFMT_BF16;
    case T_TF32: return NUMFMT_TF32;
    case T_E4M3: return NUMFMT_E4M3;
    case T_E5M2: return NUMFMT_E5M2;
    default: return NUMFMT_F32;
    }
}

/* cvt.D.S on one lane: float to integer rounds toward zero and saturates
 * to D's range (NaN gives 0); integer to integer truncates to D's width.
 * Number formats (isa.h): to a format rounds to nearest even (FP8 with
 * satfinite) and gives the bit pattern zero-extended; from a format
 * decodes exactly; format to format goes through f32. The assembler
 * allows number formats only together with f32 or another format. */
static uint32_t convert(uint8_t d, uint8_t s, uint32_t v)
{
    numfmt_t fd = type_fmt(d), fs = type_fmt(s);
    if (fd != NUMFMT_F32 || fs != NUMFMT_F32) {
        float x = fs != NUMFMT_F32 ? numfmt_decode(fs, v) : f32(v);
        if (fd == NUMFMT_F32)
            return bits(x);
        return numfmt_encode(fd, x, fd == NUMFMT_E4M3 || fd == NUMFMT_E5M2);
    }
    if (s == T_F32 && d == T_F32)
        return v;
    if (d == T_F32) {
        uint32_t w = widen(s, v);
        return bits(is_signed(s) ? (float)s32(w) : (float)w);
    }
    if (s == T_F32) {
        double f = truncf(f32(v)), lo, hi;
        switch (d) {
        case T_S8: lo = -128; hi = 127; break;
        case T_U8: lo = 0; hi = 255; break;
        case T_S16: lo = -32768; hi = 32767; break;
        case T_U16: lo = 0; hi = 65535; break;
        case T_S32: lo = -2147483648.0; hi = 2147483647.0; break;
        default: lo = 0; hi = 4294967295.0; break;
        }
        if (f != f) return 0;
        if (f < lo) f = lo;
        if (f > hi) f = hi;
        return is_signed(d) ? u32((int32_t)f) : (uint32_t)f;
    }
    return widen(d, widen(s, v));
}

/* ---- reports --------------------------------------------------------------- */

void exec_thread_name(const exec_ctx_t *x, const warp_t *w, uint32_t lane, char *buf, size_t n)
{
    snprintf(buf, n, "block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 "), thread (%" PRIu32 ",%" PRIu32 ",%" PRIu32
             ") [warp %" PRIu32 " of the block, lane %" PRIu32 "]",
             x->ctaid[0], x->ctaid[1], x->ctaid[2],
             special(x, w, SR_TID_X, lane), special(x, w, SR_TID_Y, lane), special(x, w, SR_TID_Z, lane),
             w->warp_in_block, lane);
}

/* First line of every kernel report: what, where in the source. */
static int report(const exec_ctx_t *x, const warp_t *w, uint32_t lane, int code, simt_err_t *err,
                  const char *what, const char *detail)
{
    const isa_program_t *p = x->prog;
    uint32_t pc = warp_pc(w);
    const isa_instr_t *in = &p->code[pc];
    char text[128], who[160];
    asm_format_instr(p, in, text, sizeof text);
    exec_thread_name(x, w, lane, who, sizeof who);
    return simt_errf(err, code, "%s in kernel '%s' at pc %" PRIu32 " (%s:%" PRIu32 ": %s)\n  %s\n  %s",
                     what, p->name, pc, p->file, in->line, text, who, detail);
}

/* Where in shared memory an address lies, by the kernel's .shared arrays. */
static void describe_shared(const exec_ctx_t *x, uint32_t addr, char *buf, size_t n)
{
    const isa_program_t *p = x->prog;
    for (uint32_t i = 0; i < p->nshared; i++) {
        const isa_symbol_t *s = &p->shared[i];
        if (addr >= s->value && addr < s->value + s->size) {
            snprintf(buf, n, "byte %" PRIu32 " of shared array '%s' (%" PRIu32 " bytes)",
                     addr - s->value, s->name, s->size);
            return;
        }
    }
    snprintf(buf, n, "the block has %" PRIu32 " bytes of shared memory (offsets 0..%" PRIu32 ")",
             x->smem_bytes, x->smem_bytes ? x->smem_bytes - 1 : 0);
}

/* Host pointer for one lane's access, or a report. */
static uint8_t *lane_ptr(const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                         uint32_t lane, simt_err_t *err)
{
    uint32_t a = info->addrs[lane], n = info->bytes;
    /* ld/st of more than 4 bytes per lane: a .v2 (8) or .v4 (16) vector */
    int vec = (info->op == OP_LD || info->op == OP_ST) && n > 4;
    const char *kind = info->op == OP_LD ? (n == 16 ? "vector load (.v4)" : n == 8 ? "vector load (.v2)" : "load")
                     : info->op == OP_ST ? (n == 16 ? "vector store (.v4)" : n == 8 ? "vector store (.v2)" : "store")
                     : info->op == OP_WMMA_STORE_D ? "fragment store"
                     : info->op == OP_ATOM ? "atomic" : "fragment load";
    char what[96], detail[256], where[200];
    if (a % n != 0) {
        snprintf(what, sizeof what, "misaligned %s %s of %" PRIu32 " bytes",
                 isa_space_name(info->space), kind, n);
        if (vec)
            snprintf(detail, sizeof detail, "address 0x%08" PRIx32 " is not a multiple of %" PRIu32
                     " (a .v%" PRIu32 " access needs %" PRIu32 "-byte alignment)", a, n, n / 4, n);
        else
            snprintf(detail, sizeof detail, "address 0x%08" PRIx32 " is not a multiple of %" PRIu32, a, n);
        report(x, w, lane, SIMT_E_MEM, err, what, detail);
        return NULL;
    }
    uint8_t *p;
    if (info->space == SPACE_SHARED) {
        p = (uint64_t)a + n <= x->smem_bytes ? x->smem + a : NULL;
        if (!p)
            describe_shared(x, a, where, sizeof where);
    } else {
        p = mem_ptr(x->mem, a, n);
        if (!p)
            mem_describe(x->mem, a, where, sizeof where);
    }
    if (!p) {
        snprintf(what, sizeof what, "out-of-bounds %s %s of %" PRIu32 " bytes",
                 isa_space_name(info->space), kind, n);
        snprintf(detail, sizeof detail, "address 0x%08" PRIx32 ": %s", a, where);
        report(x, w, lane, SIMT_E_MEM, err, what, detail);
    }
    return p;
}

/* Fast path for a whole warp: if every active lane's access is aligned and
 * the span from the lowest to the highest address lies in one allocation
 * (or in the block's shared memory), return the host pointer of the lowest
 * address (*lo); else NULL, and the caller checks lane by lane. */
/* Host pointer of the len bytes at lo in the access's space, or NULL
 * unless they all lie in the block's shared memory / one allocation. */
static uint8_t *span_ptr(const exec_ctx_t *x, const exec_info_t *info, uint32_t lo, uint64_t len)
{
    if (info->space == SPACE_SHARED)
        return (uint64_t)lo + len <= x->smem_bytes ? x->smem + lo : NULL;
    return len <= UINT32_MAX ? mem_ptr(x->mem, lo, (uint32_t)len) : NULL;
}

static uint8_t *warp_span(const exec_ctx_t *x, const exec_info_t *info, uint32_t *lo)
{
    uint32_t mn = UINT32_MAX, mx = 0, odd = 0;
    if (info->mask == ALL_LANES) {
        /* Cheapest test first (OR loops vectorise best): the addresses
         * differ from lane 0's only in the bits of diff, so they all lie in
         * the aligned block of smear(diff) + 1 bytes around lane 0's. If
         * that block is valid, so is every lane; if not, look closer. */
        const uint32_t *a = info->addrs;
        uint32_t diff = 0;
        for (uint32_t l = 0; l < WARP_SIZE; l++) {
            diff |= a[l] ^ a[0];
            odd |= a[l];
        }
        if (odd & (info->bytes - 1u))
            return NULL;
        diff |= diff >> 1;   /* smear: every bit below the highest set one */
        diff |= diff >> 2;
        diff |= diff >> 4;
        diff |= diff >> 8;
        diff |= diff >> 16;
        uint8_t *p = span_ptr(x, info, a[0] & ~diff, (uint64_t)diff + info->bytes);
        if (p) {
            *lo = a[0] & ~diff;
            return p;
        }
        /* three plain loops: each one vectorises, together they do not */
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            mn = a[l] < mn ? a[l] : mn;
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            mx = a[l] > mx ? a[l] : mx;
    } else {
        FOR_LANES(info->mask, l) {
            uint32_t a = info->addrs[l];
            mn = a < mn ? a : mn;
            mx = a > mx ? a : mx;
            odd |= a;
        }
    }
    if (mn > mx || (odd & (info->bytes - 1u)))
        return NULL;
    *lo = mn;
    return span_ptr(x, info, mn, (uint64_t)mx - mn + info->bytes);
}

/* ---- memory ---------------------------------------------------------------- */

static uint32_t load_bytes(const uint8_t *p, unsigned n)
{
    if (n == 1) return p[0];
    if (n == 2) { uint16_t v; memcpy(&v, p, 2); return v; }
    uint32_t v; memcpy(&v, p, 4); return v;
}

static void store_bytes(uint8_t *p, unsigned n, uint32_t v)
{
    if (n == 1) { p[0] = (uint8_t)v; return; }
    if (n == 2) { uint16_t h = (uint16_t)v; memcpy(p, &h, 2); return; }
    memcpy(p, &v, 4);
}

static uint32_t atom_apply(uint8_t aop, uint8_t type, uint32_t old, uint32_t b, uint32_t c)
{
    switch (aop) {
    case AOP_ADD: return type == T_F32 ? bits(f32(old) + f32(b)) : old + b;
    case AOP_MIN: return binop(OP_MIN, type, old, b);
    case AOP_MAX: return binop(OP_MAX, type, old, b);
    case AOP_EXCH: return b;
    default: return old == b ? c : old;   /* AOP_CAS */
    }
}

/* ld/st .v2/.v4: every lane moves in->vec consecutive words between
 * registers d..d+vec-1 (st: a..a+vec-1) and [addr, addr + 4 x vec), addr
 * aligned to the whole vector. All lanes are checked before any register
 * is written (one may be the address register); stores go in lane order. */
static int exec_vec_mem(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                        const uint32_t a[WARP_SIZE], simt_err_t *err)
{
    uint32_t mask = info->mask, lo = 0;
    unsigned nv = in->vec;
    uint8_t *base = warp_span(x, info, &lo);
    if (base && x->check && check_access_lanes(x->check, x, w, info, mask, err) != 0)
        return -1;
    if (in->op == OP_LD) {
        uint32_t vals[4][WARP_SIZE];
        FOR_LANES(mask, l) {
            const uint8_t *p = base ? base + (a[l] - lo) : lane_ptr(x, w, info, l, err);
            if (!p) return -1;
            if (!base && x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
            for (unsigned k = 0; k < nv; k++)
                memcpy(&vals[k][l], p + 4 * k, 4);
        }
        uint32_t *d = dst(w, in);
        for (unsigned k = 0; k < nv; k++)
            LANE_LOOP(mask, l, d[k * WARP_SIZE + l] = vals[k][l]);
        return 0;
    }
    const uint32_t *v = &w->regs[(size_t)in->opd[1].index * WARP_SIZE];
    FOR_LANES(mask, l) {
        uint8_t *p = base ? base + (a[l] - lo) : lane_ptr(x, w, info, l, err);
        if (!p) return -1;
        if (!base && x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
        for (unsigned k = 0; k < nv; k++)
            memcpy(p + 4 * k, &v[k * WARP_SIZE + l], 4);
    }
    return 0;
}

BITS_LANE_CLONES
static int exec_mem(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE], tmp2[WARP_SIZE];
    const isa_operand_t *m = in->op == OP_ST ? &in->opd[0] : &in->opd[1];
    uint32_t mask = info->mask;

    info->space = in->space;
    info->bytes = (uint8_t)(in->vec ? 4u * in->vec : isa_type_bytes((isa_type_t)in->type));
    info->is_store = in->op != OP_LD;

    if (in->space == SPACE_PARAM) {          /* uniform argument read */
        uint32_t v = x->params[m->imm / 4];
        uint32_t *d = dst(w, in);
        LANE_LOOP(mask, l, d[l] = v);
        return 0;
    }
    uint32_t off = m->imm;
    /* through a local array: info->addrs might alias the registers for
     * all the compiler knows, which would keep it from vectorising */
    uint32_t a[WARP_SIZE];
    uint32_t diff = 0;   /* bits in which some lane's differs from lane 0's */
    uint32_t any;        /* OR of all lanes' addresses (= a[0] | diff)    */
    if (m->index == ISA_NO_REG) {
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            a[l] = off;
        any = off;
    } else {
        const uint32_t *base = &w->regs[(size_t)m->index * WARP_SIZE];
        uint32_t a0 = base[0] + off;
        for (uint32_t l = 0; l < WARP_SIZE; l++) {
            a[l] = base[l] + off;
            diff |= a[l] ^ a0;
        }
        any = a0 | diff;
    }
    LANE_LOOP(mask, l, info->addrs[l] = a[l]);
    if (in->vec)
        return exec_vec_mem(x, w, in, info, a, err);
    if (mask == ALL_LANES && info->bytes == 4 && in->op != OP_ATOM) {
        /* Fast path of the general code below for a whole warp of 4-byte
         * loads or stores that are all aligned (the OR's low two bits are
         * 0) and all in bounds, tested at once:
         * - shared memory (the tiles of a tiled kernel): no address is
         *   larger than the OR of all of them, so if the OR is inside the
         *   block's shared memory, every lane's word is;
         * - global memory (warp_span's first test): the addresses differ
         *   from lane 0's only in the bits of diff, so they all lie in the
         *   aligned block of smear(diff) + 1 bytes around lane 0's; if one
         *   allocation holds that block, it holds every lane's word.
         * With the kernel checker on, it sees every lane before any data
         * moves. Lanes store in lane order. */
        uint8_t *base = NULL;
        uint32_t lo = 0;
        if ((any & 3u) == 0) {
            if (in->space == SPACE_SHARED) {
                if ((uint64_t)any + 4 <= x->smem_bytes)
                    base = x->smem;
            } else {
                diff |= diff >> 1;   /* smear: every bit below the highest set one */
                diff |= diff >> 2;
                diff |= diff >> 4;
                diff |= diff >> 8;
                diff |= diff >> 16;
                lo = a[0] & ~diff;
                if (diff <= UINT32_MAX - 4u)
                    base = mem_ptr(x->mem, lo, diff + 4u);
            }
        }
        if (base) {
            if (x->check && check_access_lanes(x->check, x, w, info, mask, err) != 0)
                return -1;
            if (in->op == OP_LD) {
                /* d may be the address register: a[] is a copy. lo is 0
                 * in shared memory: said so, that saves a subtraction
                 * per lane. */
                if (in->space == SPACE_SHARED)
                    gather_words(dst(w, in), base, a, 0);
                else
                    gather_words(dst(w, in), base, a, lo);
            } else {
                uint32_t vals[WARP_SIZE];
                memcpy(vals, src(x, w, &in->opd[1], tmp), sizeof vals);
                for (uint32_t l = 0; l < WARP_SIZE; l++)
                    memcpy(base + (a[l] - lo), &vals[l], 4);
            }
            return 0;
        }
    }
    if (in->op == OP_LD) {
        uint32_t *d = dst(w, in);
        uint32_t vals[WARP_SIZE];
        uint32_t lo;
        uint8_t *base = warp_span(x, info, &lo);
        /* every lane in bounds and aligned: the checker first, for all of them */
        if (base && x->check && check_access_lanes(x->check, x, w, info, mask, err) != 0)
            return -1;
        if (base && info->bytes == 4) {
            /* every lane in bounds, aligned and checked: one load per
             * lane. d may be the address register: a[] is a copy. */
            if (mask == ALL_LANES) {
                gather_words(d, base, a, lo);
            } else {
                FOR_LANES(mask, l) memcpy(&d[l], base + (a[l] - lo), 4);
            }
            return 0;
        }
        FOR_LANES(mask, l) {
            uint8_t *p = base ? base + (info->addrs[l] - lo) : lane_ptr(x, w, info, l, err);
            if (!p) return -1;
            if (!base && x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
            vals[l] = load_bytes(p, info->bytes);
        }
        if (info->bytes < 4)
            FOR_LANES(mask, l) vals[l] = widen(in->type, vals[l]);
        LANE_LOOP(mask, l, d[l] = vals[l]);   /* after all checks: d may be the address register */
        return 0;
    }
    if (in->op == OP_ST) {
        const uint32_t *v = src(x, w, &in->opd[1], tmp);
        uint32_t lo;
        uint8_t *base = warp_span(x, info, &lo);
        if (base && x->check && check_access_lanes(x->check, x, w, info, mask, err) != 0)
            return -1;
        if (base && info->bytes == 4) {
            /* as for ld; lanes still store in lane order */
            uint32_t vals[WARP_SIZE];
            memcpy(vals, v, sizeof vals);
            LANE_LOOP(mask, l, memcpy(base + (a[l] - lo), &vals[l], 4));
            return 0;
        }
        FOR_LANES(mask, l) {
            uint8_t *p = base ? base + (info->addrs[l] - lo) : lane_ptr(x, w, info, l, err);
            if (!p) return -1;
            if (!base && x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
            store_bytes(p, info->bytes, v[l]);
        }
        return 0;
    }
    /* atom: lanes apply one after another in lane order */
    const uint32_t *b = src(x, w, &in->opd[2], tmp);
    const uint32_t *c = in->nopd > 3 ? src(x, w, &in->opd[3], tmp2) : b;
    uint32_t old[WARP_SIZE];
    FOR_LANES(mask, l) {
        uint8_t *p = lane_ptr(x, w, info, l, err);
        if (!p) return -1;
        if (x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
        old[l] = load_bytes(p, 4);
        store_bytes(p, 4, atom_apply(in->aop, in->type, old[l], b[l], c[l]));
        if (in->aop == AOP_ADD && in->type == T_F32)
            info->flops++;
    }
    uint32_t *d = dst(w, in);
    FOR_LANES(mask, l) d[l] = old[l];
    return 0;
}

/* ---- warp matrix (Tensor Core) instructions -------------------------------- */

static uint32_t lowest_lane(uint32_t mask);

/* wmma needs the whole warp: report a fault otherwise (0 if all active). */
static int wmma_full_warp(const exec_ctx_t *x, const warp_t *w, uint32_t mask, simt_err_t *err)
{
    char detail[160];
    if (mask == ALL_LANES)
        return 0;
    snprintf(detail, sizeof detail,
             "only lanes 0x%08" PRIx32 " are active: a warp matrix instruction needs all 32 lanes "
             "(no guard, no divergent path, a block size that is a multiple of 32)", mask);
    return report(x, w, lowest_lane(mask ? mask : 1u), SIMT_E_KERNEL, err,
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
static int exec_wmma_mem(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
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
        uint8_t *span = warp_span(x, info, &lo);
        for (uint32_t l = 0; l < WARP_SIZE; l++) {
            uint8_t *p = span ? span + (info->addrs[l] - lo) : lane_ptr(x, w, info, l, err);
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
static int exec_mma(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
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

/* ---- asynchronous copies and MMAs (isa.h) ----------------------------------- */

/* The address of memory operand o for lane l. */
static uint32_t lane_addr(const warp_t *w, const isa_operand_t *o, uint32_t l)
{
    uint32_t a = o->imm;
    if (o->index != ISA_NO_REG)
        a += w->regs[(size_t)o->index * WARP_SIZE + l];
    return a;
}

/* Check that [a, a + n) is in the block's shared memory with a aligned to
 * `align`; else a report naming what the operand is. */
static int async_shared(const exec_ctx_t *x, const warp_t *w, uint32_t lane, uint32_t a,
                        uint64_t n, uint32_t align, const char *what, simt_err_t *err)
{
    char msg[96], detail[320], where[200];
    if (a % align != 0) {
        snprintf(msg, sizeof msg, "misaligned %s", what);
        snprintf(detail, sizeof detail, "shared address 0x%08" PRIx32 " is not a multiple of %" PRIu32,
                 a, align);
        return report(x, w, lane, SIMT_E_MEM, err, msg, detail);
    }
    if ((uint64_t)a + n > x->smem_bytes) {
        describe_shared(x, a, where, sizeof where);
        snprintf(msg, sizeof msg, "out-of-bounds %s", what);
        snprintf(detail, sizeof detail, "shared bytes 0x%08" PRIx32 "..+%" PRIu64 ": %s", a, n, where);
        return report(x, w, lane, SIMT_E_MEM, err, msg, detail);
    }
    return 0;
}

/* Let the kernel checker see n bytes at addr (a multiple of 16) as 16-byte
 * ld (is_store 0) or st pieces of thread `lane`; a shared store is a bulk
 * copy's (check.h). */
static int async_check(const exec_ctx_t *x, const warp_t *w, uint8_t space, int is_store,
                       uint32_t addr, uint32_t n, uint32_t lane, simt_err_t *err)
{
    exec_info_t ci;
    memset(&ci, 0, sizeof ci);
    ci.op = (uint8_t)(is_store ? (space == SPACE_SHARED ? OP_CP_BULK : OP_ST) : OP_LD);
    ci.space = space;
    ci.bytes = 16;
    for (uint32_t o = 0; o < n; o += 16) {
        ci.addrs[lane] = addr + o;
        if (check_access(x->check, x, w, &ci, lane, err) != 0)
            return -1;
    }
    return 0;
}

/* The shared memory of each CTA rank in `mask` (bit r = rank r of the
 * block's cluster; a block outside a cluster launch is rank 0 of a
 * cluster of one) into to[r]; a rank outside the cluster or a CTA that
 * has exited is a fault of thread `lane` naming `what` and the shared
 * address addr. */
static int cluster_ranks(const exec_ctx_t *x, const warp_t *w, uint32_t lane, uint32_t mask,
                         uint32_t addr, const char *what, uint8_t **to, simt_err_t *err)
{
    uint32_t size = x->cluster ? x->cluster->size : 1;
    char msg[96], detail[320];
    for (uint32_t r = 0; r < ISA_MAX_CLUSTER; r++) {
        if (!(mask >> r & 1u))
            continue;
        if (r >= size) {
            snprintf(msg, sizeof msg, "%s names a CTA outside the cluster", what);
            snprintf(detail, sizeof detail, "CTA rank %" PRIu32 " (shared address 0x%08" PRIx32 "), but "
                     "the cluster has %" PRIu32 " CTA%s (ranks 0..%" PRIu32 ")%s", r, addr, size,
                     size == 1 ? "" : "s", size - 1,
                     x->cluster ? "" : "; launch with cluster = {...} for more");
            return report(x, w, lane, SIMT_E_KERNEL, err, msg, detail);
        }
        to[r] = x->cluster ? x->cluster->smem[r] : x->smem;
        if (!to[r]) {
            snprintf(msg, sizeof msg, "%s names a CTA that has exited", what);
            snprintf(detail, sizeof detail, "CTA rank %" PRIu32 " of the cluster (shared address 0x%08"
                     PRIx32 ") has already finished: end the kernel with barrier.cluster so that "
                     "no CTA exits while its peers still use it", r, addr);
            return report(x, w, lane, SIMT_E_KERNEL, err, msg, detail);
        }
    }
    return 0;
}

/* The global side of a bulk copy or store (kind "copy" / "store", side
 * "source" / "destination"). bulk_global_aligned: its start and row
 * pitch must be multiples of 16. bulk_global_row: row r, at ga, must lie
 * in device memory; returns its host pointer, or NULL after reporting the
 * fault. */
static int bulk_global_aligned(const exec_ctx_t *x, const warp_t *w, uint32_t l, uint32_t ga,
                               uint32_t pitch, const char *kind, const char *side, simt_err_t *err)
{
    if (ga % 16 == 0 && pitch % 16 == 0)
        return 0;
    char msg[64], detail[320];
    snprintf(msg, sizeof msg, "misaligned bulk %s %s", kind, side);
    snprintf(detail, sizeof detail, "%s 0x%08" PRIx32 " and row pitch %" PRIu32
             " must be multiples of 16 (a bulk %s moves 16-byte pieces)", side, ga, pitch, kind);
    return report(x, w, l, SIMT_E_MEM, err, msg, detail);
}

static uint8_t *bulk_global_row(const exec_ctx_t *x, const warp_t *w, uint32_t l, uint32_t r, uint32_t ga,
                                uint32_t rb, const char *kind, const char *side, simt_err_t *err)
{
    uint8_t *gp = mem_ptr(x->mem, ga, rb);
    if (!gp) {
        char msg[64], detail[320], where[200];
        mem_describe(x->mem, ga, where, sizeof where);
        snprintf(msg, sizeof msg, "out-of-bounds bulk %s %s", kind, side);
        snprintf(detail, sizeof detail, "row %" PRIu32 " of the box: global 0x%08" PRIx32 "..+%"
                 PRIu32 ": %s", r, ga, rb, where);
        report(x, w, l, SIMT_E_MEM, err, msg, detail);
    }
    return gp;
}

/* cp.async.bulk: R rows of B bytes, global src + r * pitch -> shared dst
 * + r * B, by the lowest active lane. info->addrs: [0] dst, [1] src, [2]
 * pitch, [3] mbarrier. */
static int exec_cp_bulk(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                        simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
    uint32_t l = lowest_lane(info->mask);
    uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
    uint32_t dst = lane_addr(w, &in->opd[0], l), gsrc = lane_addr(w, &in->opd[1], l);
    uint32_t pitch = src(x, w, &in->opd[2], tmp)[l];
    uint32_t bar = lane_addr(w, &in->opd[3], l);
    if (async_shared(x, w, l, dst, rows * rb, 16, "bulk copy destination", err) != 0 ||
        async_shared(x, w, l, bar, 8, 8, "mbarrier", err) != 0 ||
        bulk_global_aligned(x, w, l, gsrc, pitch, "copy", "source", err) != 0)
        return -1;
    /* where the box goes: this CTA, or (multicast) every CTA in the mask */
    uint8_t *to[ISA_MAX_CLUSTER];
    uint32_t mask = in->ctamask ? in->ctamask : 1u << x->cluster_rank;
    if (cluster_ranks(x, w, l, mask, bar, "multicast mask", to, err) != 0)
        return -1;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t ga = gsrc + r * pitch;
        const uint8_t *gp = bulk_global_row(x, w, l, r, ga, rb, "copy", "source", err);
        if (!gp)
            return -1;
        if (x->check && async_check(x, w, SPACE_GLOBAL, 0, ga, rb, l, err) != 0)
            return -1;
        for (uint32_t k = 0; k < ISA_MAX_CLUSTER; k++) {
            if (!(mask >> k & 1u))
                continue;
            if (x->check) {
                if (k == x->cluster_rank ? async_check(x, w, SPACE_SHARED, 1, dst + r * rb, rb, l, err) != 0
                    : check_bulk_remote(x->check, x->cluster->smid[k], x->cluster->slot[k],
                                        x->cluster->ctaid[k], dst + r * rb, rb) != 0)
                    return -1;
            }
            memcpy(to[k] + dst + r * rb, gp, rb);
        }
    }
    info->space = SPACE_SHARED;
    info->addrs[0] = dst;
    info->addrs[1] = gsrc;
    info->addrs[2] = pitch;
    info->addrs[3] = bar;
    return 0;
}

/* ld/st.cluster.shared: each lane's 4 bytes at its address in the shared
 * memory of CTA `rank` (its own value) of the cluster. */
static int exec_mem_cluster(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                            simt_err_t *err)
{
    uint32_t tr[WARP_SIZE], tv[WARP_SIZE];
    int is_ld = in->op == OP_LD_CLUSTER;
    const isa_operand_t *m = is_ld ? &in->opd[1] : &in->opd[0];
    const uint32_t *rank = src(x, w, &in->opd[2], tr);
    uint32_t vals[WARP_SIZE];
    if (!is_ld)
        memcpy(vals, src(x, w, &in->opd[1], tv), sizeof vals);
    info->space = SPACE_SHARED;
    info->bytes = 4;
    info->is_store = !is_ld;
    uint8_t *to[ISA_MAX_CLUSTER];
    uint32_t got[WARP_SIZE];
    FOR_LANES(info->mask, l) {
        uint32_t a = lane_addr(w, m, l), r = rank[l];
        info->addrs[l] = a;
        if (async_shared(x, w, l, a, 4, 4, is_ld ? "ld.cluster address" : "st.cluster address", err) != 0)
            return -1;
        if (r >= ISA_MAX_CLUSTER) {
            char detail[160];
            snprintf(detail, sizeof detail, "CTA rank %" PRIu32 " (shared address 0x%08" PRIx32
                     "): a cluster has at most %d CTAs", r, a, ISA_MAX_CLUSTER);
            return report(x, w, l, SIMT_E_KERNEL, err, is_ld ? "ld.cluster names a CTA outside the cluster"
                          : "st.cluster names a CTA outside the cluster", detail);
        }
        if (cluster_ranks(x, w, l, 1u << r, a, is_ld ? "ld.cluster" : "st.cluster", to, err) != 0)
            return -1;
        info->remote |= r != x->cluster_rank;
        if (is_ld) {
            got[l] = load_bytes(to[r] + a, 4);
        } else {
            store_bytes(to[r] + a, 4, vals[l]);
            if (x->check && x->cluster)   /* what it wrote counts as initialised there */
                check_bulk_remote(x->check, x->cluster->smid[r], x->cluster->slot[r], x->cluster->ctaid[r], a, 4);
            else if (x->check)
                check_bulk_remote(x->check, x->smid, w->block_slot, x->ctaid, a, 4);
        }
    }
    if (is_ld) {
        uint32_t *d = dst(w, in);
        FOR_LANES(info->mask, l) d[l] = got[l];
    }
    return 0;
}

/* cp.async.bulk.global.shared: R rows of B bytes, shared src + r * B ->
 * global dst + r * pitch, by the lowest active lane. info->addrs: [0] dst,
 * [1] src, [2] pitch. */
static int exec_cp_bulk_st(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                           simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
    uint32_t l = lowest_lane(info->mask);
    uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
    uint32_t gdst = lane_addr(w, &in->opd[0], l), ssrc = lane_addr(w, &in->opd[1], l);
    uint32_t pitch = src(x, w, &in->opd[2], tmp)[l];
    if (async_shared(x, w, l, ssrc, rows * rb, 16, "bulk store source", err) != 0 ||
        bulk_global_aligned(x, w, l, gdst, pitch, "store", "destination", err) != 0)
        return -1;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t ga = gdst + r * pitch;
        uint8_t *gp = bulk_global_row(x, w, l, r, ga, rb, "store", "destination", err);
        if (!gp)
            return -1;
        if (x->check && (async_check(x, w, SPACE_SHARED, 0, ssrc + r * rb, rb, l, err) != 0 ||
                         async_check(x, w, SPACE_GLOBAL, 1, ga, rb, l, err) != 0))
            return -1;
        memcpy(gp, x->smem + ssrc + r * rb, rb);
    }
    info->space = SPACE_GLOBAL;
    info->addrs[0] = gdst;
    info->addrs[1] = ssrc;
    info->addrs[2] = pitch;
    return 0;
}

/* mbarrier.*: check the barrier's address; info->addrs[0] = address,
 * [1] = the value operand (count, bytes, parity) of the lowest lane. */
static int exec_mbar(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                     simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
    uint32_t l = lowest_lane(info->mask);
    uint32_t bar = lane_addr(w, &in->opd[0], l);
    uint32_t v = src(x, w, &in->opd[1], tmp)[l];
    if (async_shared(x, w, l, bar, 8, 8, "mbarrier", err) != 0)
        return -1;
    if (in->op == OP_MBAR_WAIT && v > 1) {
        char detail[96];
        snprintf(detail, sizeof detail, "parity %" PRIu32 ": must be 0 or 1", v);
        return report(x, w, l, SIMT_E_KERNEL, err, "bad mbarrier parity", detail);
    }
    if (in->op == OP_MBAR_ARRIVE_REMOTE) {
        uint8_t *to[ISA_MAX_CLUSTER];
        if (v >= ISA_MAX_CLUSTER || cluster_ranks(x, w, l, 1u << v, bar, "remote mbarrier arrive", to, err) != 0) {
            if (v < ISA_MAX_CLUSTER)
                return -1;
            char detail[160];
            snprintf(detail, sizeof detail, "CTA rank %" PRIu32 " (shared address 0x%08" PRIx32
                     "): a cluster has at most %d CTAs", v, bar, ISA_MAX_CLUSTER);
            return report(x, w, l, SIMT_E_KERNEL, err, "remote mbarrier arrive names a CTA outside the cluster",
                          detail);
        }
    }
    if (in->op == OP_MBAR_INIT && (v == 0 || v > 0xFFFF)) {
        char detail[96];
        snprintf(detail, sizeof detail, "count %" PRIu32 ": must be 1..65535 arrivals", v);
        return report(x, w, l, SIMT_E_KERNEL, err, "bad mbarrier count", detail);
    }
    info->space = SPACE_SHARED;
    info->addrs[0] = bar;
    info->addrs[1] = v;
    return 0;
}

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
static int exec_wgmma(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
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
        return report(x, w, 0, SIMT_E_MEM, err, "misaligned wgmma B operand", detail);
    }
    if (async_shared(x, w, 0, aa, 512, 16, "wgmma A operand", err) != 0 ||
        async_shared(x, w, 0, ba, (uint64_t)(kdim - 1) * bs + n * eb, 16, "wgmma B operand", err) != 0)
        return -1;
    if (x->check) {
        if (async_check(x, w, SPACE_SHARED, 0, aa, 512, 0, err) != 0)
            return -1;
        for (unsigned k = 0; k < kdim; k++)
            if (async_check(x, w, SPACE_SHARED, 0, ba + k * bs, n * eb, 0, err) != 0)
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

/* ---- one step -------------------------------------------------------------- */

static uint32_t lowest_lane(uint32_t mask)
{
    uint32_t l = 0;
    while (l < WARP_SIZE - 1 && !(mask >> l & 1u)) l++;
    return l;
}


/* ---- one instruction ---------------------------------------------------- */

/* bar.sync and barrier.cluster: every live lane of the warp must arrive
 * together (a barrier inside a divergent if is a deadlock on a real GPU,
 * so it is a fault here). */
static int exec_barrier(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, uint32_t mask, uint32_t active,
                        exec_info_t *info, simt_err_t *err)
{
    if (mask != w->live) {   /* a guard or a divergent path left lanes out */
        char detail[220];
        if (in->op == OP_BAR)
            snprintf(detail, sizeof detail,
                     "bar.sync reached with lanes 0x%08" PRIx32 " of this warp while lanes 0x%08" PRIx32
                     " are on another path: every thread of a block must reach the same barrier "
                     "(a barrier inside an if is a deadlock)", mask, w->live & ~mask);
        else
            snprintf(detail, sizeof detail,
                     "barrier.cluster reached with lanes 0x%08" PRIx32 " of this warp while lanes 0x%08" PRIx32
                     " are on another path: every thread of every CTA of the cluster must reach it",
                     mask, w->live & ~mask);
        return report(x, w, lowest_lane(mask ? mask : active), SIMT_E_KERNEL, err,
                      "barrier in divergent code", detail);
    }
    if (x->check && check_barrier(x->check, x, w, err) != 0)
        return -1;
    /* barrier.cluster in a cluster of one is the block's barrier */
    info->barrier = in->op == OP_BAR || x->cluster == NULL;
    return 0;
}

/* setp: p = a CMP b in the active lanes. */
static void exec_setp(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, uint32_t mask)
{
    uint32_t ta[WARP_SIZE], tb[WARP_SIZE];
    const uint32_t *a = src(x, w, &in->opd[1], ta), *b = src(x, w, &in->opd[2], tb);
    uint32_t r = setp_warp(in->cmp, in->type, a, b) & mask;
    uint32_t p = in->opd[0].index;
    w->preds[p] = (w->preds[p] & ~mask) | r;
}

/* selp: d = p ? a : b. */
static void exec_selp(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, uint32_t mask)
{
    uint32_t ta[WARP_SIZE], tb[WARP_SIZE];
    const uint32_t *a = src(x, w, &in->opd[1], ta), *b = src(x, w, &in->opd[2], tb);
    uint32_t p = w->preds[in->opd[3].index];
    uint32_t *d = dst(w, in);
    FOR_LANES(mask, l) d[l] = (p >> l & 1u) ? a[l] : b[l];
}

/* cvt: d = a converted from the source type to the destination type. */
static void exec_cvt(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, uint32_t mask)
{
    uint32_t ta[WARP_SIZE];
    const uint32_t *a = src(x, w, &in->opd[1], ta);
    uint32_t *d = dst(w, in);
    FOR_LANES(mask, l) d[l] = convert(in->type, in->stype, a[l]);
}

/* The FLOPs of an arithmetic instruction: the opcode table's FLOP per lane
 * of its f32 form (isa.c), for every active lane; integers count none. */
static inline void count_flops(const isa_instr_t *in, uint32_t mask, exec_info_t *info)
{
    if (in->type == T_F32)
        info->flops = isa_ops[in->op].f32_flops * warp_popcount(mask);
}

/* fma and mad: d = a * b + c (f32 with one rounding). */
static void exec_fma(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, uint32_t mask, exec_info_t *info)
{
    uint32_t ta[WARP_SIZE], tb[WARP_SIZE], tc[WARP_SIZE], r[WARP_SIZE];
    const uint32_t *a = src(x, w, &in->opd[1], ta), *b = src(x, w, &in->opd[2], tb),
                   *c = src(x, w, &in->opd[3], tc);
    uint32_t *d = dst(w, in);
    if (in->type == T_F32)
        fma_warp(a, b, c, r);   /* all lanes: no side effects */
    else
        for (uint32_t l = 0; l < WARP_SIZE; l++)   /* all lanes (a loop that vectorises) */
            r[l] = a[l] * b[l] + c[l];
    LANE_LOOP(mask, l, d[l] = r[l]);   /* then the active ones */
    count_flops(in, mask, info);
}

/* and/or/xor/not/mov on predicates. */
static void exec_pred_logic(warp_t *w, const isa_instr_t *in, uint32_t mask)
{
    uint32_t a = w->preds[in->opd[1].index];
    uint32_t b = isa_ops[in->op].nsrc > 1 ? w->preds[in->opd[2].index] : 0;
    uint32_t r = in->op == OP_AND ? a & b : in->op == OP_OR ? a | b
               : in->op == OP_XOR ? a ^ b : in->op == OP_NOT ? ~a : a;
    uint32_t p = in->opd[0].index;
    w->preds[p] = (w->preds[p] & ~mask) | (r & mask);
}

/* The arithmetic and logic of two sources: add sub mul div rem min max
 * mul.hi and or xor shl shr. */
static void exec_binary(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, uint32_t mask, exec_info_t *info)
{
    uint32_t ta[WARP_SIZE], tb[WARP_SIZE];
    const uint32_t *a = src(x, w, &in->opd[1], ta), *b = src(x, w, &in->opd[2], tb);
    uint32_t *d = dst(w, in);
    if (in->opd[2].kind == OPD_IMM && (in->op == OP_SHL || (in->op == OP_SHR && in->type != T_S32)))
        shift_imm_warp(in->op, mask, a, in->opd[2].imm, d);
    else if (!binop_warp(in->op, in->type, mask, a, b, d))
        FOR_LANES(mask, l) d[l] = binop(in->op, in->type, a[l], b[l]);
    count_flops(in, mask, info);
}

/* One source: mov, abs, neg, not, and the special functions. */
static void exec_unary(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, uint32_t mask, exec_info_t *info)
{
    uint32_t ta[WARP_SIZE];
    const uint32_t *a = src(x, w, &in->opd[1], ta);
    uint32_t *d = dst(w, in);
    if (in->op == OP_MOV && mask == ALL_LANES) {   /* the common one: a copy */
        uint32_t r[WARP_SIZE];   /* through r: d may be a */
        memcpy(r, a, sizeof r);
        memcpy(d, r, sizeof r);
    } else if (in->op == OP_MOV) {
        FOR_LANES(mask, l) d[l] = a[l];
    } else {
        FOR_LANES(mask, l) d[l] = unop(in->op, in->type, a[l]);
    }
    count_flops(in, mask, info);
}

/* Execute warp w's next instruction for its active lanes: the real
 * results now, and in *info what the timing model needs (memory space and
 * addresses, bytes, FLOPs, barrier, divergence). Returns 0, or -1 with err
 * set on a kernel fault. The cases are in the order of isa.h's opcodes
 * where they can be: control, memory, Tensor Cores, then arithmetic. */
int exec_step(const exec_ctx_t *x, warp_t *w, exec_info_t *info, simt_err_t *err)
{
    uint32_t pc = warp_pc(w);
    const isa_instr_t *in = &x->prog->code[pc];
    uint32_t active = warp_mask(w);
    uint32_t mask = active;

    if (in->guard != ISA_NO_REG)
        mask &= in->guard_neg ? ~w->preds[in->guard] : w->preds[in->guard];

    info->op = in->op;
    info->space = SPACE_NONE;
    info->is_store = 0;
    info->bytes = 0;
    info->barrier = 0;
    info->diverged = 0;
    info->remote = 0;
    info->mask = mask;
    info->flops = 0;
    info->parts = 1;

    int r = 0;
    switch (in->op) {
    case OP_NOP:
        break;
    case OP_BRA:
        r = warp_branch(w, mask, in->opd[0].imm, in->reconv);
        if (r < 0)
            return report(x, w, 0, SIMT_E_KERNEL, err, "reconvergence stack overflow",
                          "too many nested divergent branches in one warp");
        info->diverged = (uint8_t)r;
        return 0;   /* the branch set the pc */
    case OP_EXIT:
        w->stack[w->depth - 1].pc = pc + 1;
        warp_exit_lanes(w, mask);
        return 0;
    case OP_BAR:
    case OP_BAR_CLUSTER:
        r = exec_barrier(x, w, in, mask, active, info, err);
        break;
    case OP_LD:
    case OP_ST:
    case OP_ATOM:
        r = exec_mem(x, w, in, info, err);
        break;
    case OP_WMMA_LOAD_A:
    case OP_WMMA_LOAD_B:
    case OP_WMMA_LOAD_C:
    case OP_WMMA_STORE_D:
        r = exec_wmma_mem(x, w, in, info, err);
        break;
    case OP_WMMA_MMA:
        r = exec_mma(x, w, in, info, err);
        break;
    case OP_CP_BULK:
        r = mask ? exec_cp_bulk(x, w, in, info, err) : 0;
        break;
    case OP_CP_BULK_ST:
        r = mask ? exec_cp_bulk_st(x, w, in, info, err) : 0;
        break;
    case OP_LD_CLUSTER:
    case OP_ST_CLUSTER:
        r = exec_mem_cluster(x, w, in, info, err);
        break;
    case OP_MBAR_INIT:
    case OP_MBAR_ARRIVE:
    case OP_MBAR_WAIT:
    case OP_MBAR_ARRIVE_REMOTE:
        r = mask ? exec_mbar(x, w, in, info, err) : 0;
        break;
    case OP_WGMMA:
        r = exec_wgmma(x, w, in, info, err);
        break;
    case OP_WGMMA_WAIT:
        info->addrs[0] = in->opd[0].imm;
        break;
    case OP_SETP:
        exec_setp(x, w, in, mask);
        break;
    case OP_SELP:
        exec_selp(x, w, in, mask);
        break;
    case OP_CVT:
        exec_cvt(x, w, in, mask);
        break;
    case OP_MAD:
    case OP_FMA:
        exec_fma(x, w, in, mask, info);
        break;
    default:
        if (in->type == T_PRED)
            exec_pred_logic(w, in, mask);
        else if (isa_ops[in->op].nsrc == 2)
            exec_binary(x, w, in, mask, info);
        else
            exec_unary(x, w, in, mask, info);
        break;
    }
    if (r != 0)
        return -1;
    warp_advance(w, pc + 1);
    return 0;
}
