/* exec_parts.h - what the parts of exec share (internal; the interface is
 * exec.h): exec.c (operands, arithmetic, reports and exec_step, which
 * dispatches each instruction), exec_mem.c (loads, stores and atomics),
 * exec_tc.c (warp matrix instructions: wmma, wgmma) and exec_async.c
 * (bulk copies, mbarriers, cluster memory).
 */
#ifndef SIMT_EXEC_PARTS_H
#define SIMT_EXEC_PARTS_H

#include <string.h>

#include "exec.h"
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

/* ---- operands (exec.c) ---------------------------------------------------- */

/* Source operand as a 32-lane vector: registers are read in place, other
 * kinds are expanded into tmp. src() is the inline register and
 * immediate cases (most operands); exec_src_expand() does the rest. */
const uint32_t *exec_src_expand(const exec_ctx_t *x, const warp_t *w, const isa_operand_t *o, uint32_t *tmp);

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
    return exec_src_expand(x, w, o, tmp);
}

static inline uint32_t *dst(warp_t *w, const isa_instr_t *in)
{
    return &w->regs[(size_t)in->opd[0].index * WARP_SIZE];
}

/* ---- values --------------------------------------------------------------- */

/* A raw value of `type` (its low bits) widened to a 32-bit register. */
static inline uint32_t widen(uint8_t type, uint32_t v)
{
    switch (type) {
    case T_U8: return v & 0xFFu;
    case T_S8: return (v & 0x80u) ? (v | 0xFFFFFF00u) : (v & 0xFFu);
    case T_U16: return v & 0xFFFFu;
    case T_S16: return (v & 0x8000u) ? (v | 0xFFFF0000u) : (v & 0xFFFFu);
    default: return v;
    }
}

static inline int is_signed(uint8_t t) { return t == T_S32 || t == T_S8 || t == T_S16; }

/* The numfmt format of a number-format type (f16 ... e5m2), or F32. */
static inline numfmt_t type_fmt(uint8_t t)
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

static inline uint32_t load_bytes(const uint8_t *p, unsigned n)
{
    if (n == 1) return p[0];
    if (n == 2) { uint16_t v; memcpy(&v, p, 2); return v; }
    uint32_t v; memcpy(&v, p, 4); return v;
}

static inline void store_bytes(uint8_t *p, unsigned n, uint32_t v)
{
    if (n == 1) { p[0] = (uint8_t)v; return; }
    if (n == 2) { uint16_t h = (uint16_t)v; memcpy(p, &h, 2); return; }
    memcpy(p, &v, 4);
}

/* The lowest lane of mask (lane 31 when mask is 0). */
static inline uint32_t lowest_lane(uint32_t mask)
{
    uint32_t l = 0;
    while (l < WARP_SIZE - 1 && !(mask >> l & 1u)) l++;
    return l;
}

/* The address of memory operand o for lane l. */
static inline uint32_t lane_addr(const warp_t *w, const isa_operand_t *o, uint32_t l)
{
    uint32_t a = o->imm;
    if (o->index != ISA_NO_REG)
        a += w->regs[(size_t)o->index * WARP_SIZE + l];
    return a;
}

/* Two-source arithmetic and logic on one lane (exec.c: atom uses it). */
uint32_t exec_binop(uint8_t op, uint8_t type, uint32_t a, uint32_t b);

/* ---- reports and lane pointers -------------------------------------------- */

/* A kernel fault (exec.c): its first line says what and where in the
 * source, then the thread, then detail. Returns -1. */
int exec_report(const exec_ctx_t *x, const warp_t *w, uint32_t lane, int code, simt_err_t *err,
                const char *what, const char *detail);

/* exec_mem.c: where in shared memory addr lies, by the kernel's .shared
 * arrays; the host pointer of one lane's access, or a report; the host
 * pointer of a whole warp's accesses (see there), or NULL. */
void exec_describe_shared(const exec_ctx_t *x, uint32_t addr, char *buf, size_t n);
uint8_t *exec_lane_ptr(const exec_ctx_t *x, const warp_t *w, const exec_info_t *info, uint32_t lane,
                       simt_err_t *err);
uint8_t *exec_warp_span(const exec_ctx_t *x, const exec_info_t *info, uint32_t *lo);

/* exec_async.c: checks of an asynchronous instruction's shared memory
 * operand (in the block's shared memory, aligned), and the kernel
 * checker's look at one of its accesses (see there). */
int exec_async_shared(const exec_ctx_t *x, const warp_t *w, uint32_t lane, uint32_t a, uint64_t n,
                      uint32_t align, const char *what, simt_err_t *err);
int exec_async_check(const exec_ctx_t *x, const warp_t *w, uint8_t space, int is_store, uint32_t addr,
                     uint32_t n, uint32_t lane, simt_err_t *err);

/* ---- the instruction families outside exec.c ------------------------------ */
/* Each executes instruction in for the lanes of info->mask and fills in
 * info; 0, or -1 with a report in err. */

/* exec_mem.c: ld, st (.v2/.v4 too) and atom, in every space */
int exec_mem(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);
/* exec_tc.c: wmma.load / wmma.store, wmma.mma, and wgmma's arithmetic */
int exec_wmma_mem(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);
int exec_mma(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);
int exec_wgmma(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);
/* exec_async.c: bulk copies and stores, cluster loads and stores,
 * mbarriers */
int exec_cp_bulk(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);
int exec_cp_bulk_st(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);
int exec_mem_cluster(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);
int exec_mbar(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err);

#endif
