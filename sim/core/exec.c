/* exec.c - what each instruction does, lane by lane.
 *
 * One function per instruction family. Each reads its sources as 32-lane
 * vectors, computes the lanes in `mask`, and writes the destination for
 * those lanes only. Nothing here counts cycles (see sm.c).
 */
#include "exec_parts.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa_fmt.h"
#include "bits.h"
#include "check.h"
#include "numfmt.h"

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
 * immediate cases (most operands); exec_src_expand() does the rest. */
const uint32_t *exec_src_expand(const exec_ctx_t *x, const warp_t *w, const isa_operand_t *o, uint32_t *tmp)
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

/* exec_binop for exec_mem.c (exec.c's own calls inline binop). */
uint32_t exec_binop(uint8_t op, uint8_t type, uint32_t a, uint32_t b)
{
    return binop(op, type, a, b);
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
int exec_report(const exec_ctx_t *x, const warp_t *w, uint32_t lane, int code, simt_err_t *err,
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
        return exec_report(x, w, lowest_lane(mask ? mask : active), SIMT_E_KERNEL, err,
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
 * where they can be: control, memory, Tensor Cores, then arithmetic.
 * Long only because it is one flat switch naming every family. */
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
            return exec_report(x, w, 0, SIMT_E_KERNEL, err, "reconvergence stack overflow",
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

