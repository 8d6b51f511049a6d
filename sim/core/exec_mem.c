/* exec_mem.c - loads, stores and atomics, lane by lane (exec_parts.h):
 * where each lane's address points (one test for a whole warp when it
 * can, else lane by lane with a report naming the thread and the array),
 * the kernel checker's look at each access, then the data moved.
 */
#include "exec_parts.h"

#include <inttypes.h>
#include <stdio.h>

#include "bits.h"
#include "check.h"

/* ---- where an access points ---------------------------------------------- */

/* Where in shared memory an address lies, by the kernel's .shared arrays. */
void exec_describe_shared(const exec_ctx_t *x, uint32_t addr, char *buf, size_t n)
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
uint8_t *exec_lane_ptr(const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
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
        exec_report(x, w, lane, SIMT_E_MEM, err, what, detail);
        return NULL;
    }
    uint8_t *p;
    if (info->space == SPACE_SHARED) {
        p = (uint64_t)a + n <= x->smem_bytes ? x->smem + a : NULL;
        if (!p)
            exec_describe_shared(x, a, where, sizeof where);
    } else {
        p = mem_ptr(x->mem, a, n);
        if (!p)
            mem_describe(x->mem, a, where, sizeof where);
    }
    if (!p) {
        snprintf(what, sizeof what, "out-of-bounds %s %s of %" PRIu32 " bytes",
                 isa_space_name(info->space), kind, n);
        snprintf(detail, sizeof detail, "address 0x%08" PRIx32 ": %s", a, where);
        exec_report(x, w, lane, SIMT_E_MEM, err, what, detail);
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

uint8_t *exec_warp_span(const exec_ctx_t *x, const exec_info_t *info, uint32_t *lo)
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

static uint32_t atom_apply(uint8_t aop, uint8_t type, uint32_t old, uint32_t b, uint32_t c)
{
    switch (aop) {
    case AOP_ADD: return type == T_F32 ? bits(f32(old) + f32(b)) : old + b;
    case AOP_MIN: return exec_binop(OP_MIN, type, old, b);
    case AOP_MAX: return exec_binop(OP_MAX, type, old, b);
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
    uint8_t *base = exec_warp_span(x, info, &lo);
    if (base && x->check && check_access_lanes(x->check, x, w, info, mask, err) != 0)
        return -1;
    if (in->op == OP_LD) {
        uint32_t vals[4][WARP_SIZE];
        FOR_LANES(mask, l) {
            const uint8_t *p = base ? base + (a[l] - lo) : exec_lane_ptr(x, w, info, l, err);
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
        uint8_t *p = base ? base + (a[l] - lo) : exec_lane_ptr(x, w, info, l, err);
        if (!p) return -1;
        if (!base && x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
        for (unsigned k = 0; k < nv; k++)
            memcpy(p + 4 * k, &v[k * WARP_SIZE + l], 4);
    }
    return 0;
}

/* A whole warp of 4-byte loads or stores (not atomics) that are all
 * aligned and in bounds, tested at once (a fast path of the general code
 * of exec_mem): any is the OR of all lanes' addresses, diff the bits in
 * which some lane's differs from lane 0's.
 * - shared memory (the tiles of a tiled kernel): no address is larger
 *   than the OR of all of them, so if the OR is inside the block's shared
 *   memory, every lane's word is;
 * - global memory (exec_warp_span's first test): the addresses differ
 *   from lane 0's only in the bits of diff, so they all lie in the aligned
 *   block of smear(diff) + 1 bytes around lane 0's; if one allocation
 *   holds that block, it holds every lane's word.
 * With the kernel checker on, it sees every lane before any data moves.
 * Lanes store in lane order. Returns 1 if done, 0 if the general code must
 * do it, -1 on a fault. */
static inline int mem_warp_words(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                                 const uint32_t a[WARP_SIZE], uint32_t any, uint32_t diff, simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
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
    if (!base)
        return 0;
    if (x->check && check_access_lanes(x->check, x, w, info, info->mask, err) != 0)
        return -1;
    if (in->op == OP_LD) {
        /* d may be the address register: a[] is a copy. lo is 0 in shared
         * memory: said so, that saves a subtraction per lane. */
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
    return 1;
}

/* ld of the lanes in info->mask at a[] (= info->addrs). */
static inline int mem_load(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                           const uint32_t a[WARP_SIZE], simt_err_t *err)
{
    uint32_t mask = info->mask;
    uint32_t *d = dst(w, in);
    uint32_t vals[WARP_SIZE];
    uint32_t lo;
    uint8_t *base = exec_warp_span(x, info, &lo);
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
        uint8_t *p = base ? base + (info->addrs[l] - lo) : exec_lane_ptr(x, w, info, l, err);
        if (!p) return -1;
        if (!base && x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
        vals[l] = load_bytes(p, info->bytes);
    }
    if (info->bytes < 4)
        FOR_LANES(mask, l) vals[l] = widen(in->type, vals[l]);
    LANE_LOOP(mask, l, d[l] = vals[l]);   /* after all checks: d may be the address register */
    return 0;
}

/* st of the lanes in info->mask at a[] (= info->addrs), in lane order. */
static inline int mem_store(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                            const uint32_t a[WARP_SIZE], simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
    uint32_t mask = info->mask;
    const uint32_t *v = src(x, w, &in->opd[1], tmp);
    uint32_t lo;
    uint8_t *base = exec_warp_span(x, info, &lo);
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
        uint8_t *p = base ? base + (info->addrs[l] - lo) : exec_lane_ptr(x, w, info, l, err);
        if (!p) return -1;
        if (!base && x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
        store_bytes(p, info->bytes, v[l]);
    }
    return 0;
}

/* atom: the lanes in info->mask apply one after another in lane order;
 * d gets each lane's old value. */
static int mem_atom(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE], tmp2[WARP_SIZE];
    const uint32_t *b = src(x, w, &in->opd[2], tmp);
    const uint32_t *c = in->nopd > 3 ? src(x, w, &in->opd[3], tmp2) : b;
    uint32_t old[WARP_SIZE];
    FOR_LANES(info->mask, l) {
        uint8_t *p = exec_lane_ptr(x, w, info, l, err);
        if (!p) return -1;
        if (x->check && check_access(x->check, x, w, info, l, err) != 0) return -1;
        old[l] = load_bytes(p, 4);
        store_bytes(p, 4, atom_apply(in->aop, in->type, old[l], b[l], c[l]));
        if (in->aop == AOP_ADD && in->type == T_F32)
            info->flops++;
    }
    uint32_t *d = dst(w, in);
    FOR_LANES(info->mask, l) d[l] = old[l];
    return 0;
}

BITS_LANE_CLONES
int exec_mem(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info, simt_err_t *err)
{
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
        int done = mem_warp_words(x, w, in, info, a, any, diff, err);
        if (done != 0)
            return done < 0 ? -1 : 0;
    }
    if (in->op == OP_LD)
        return mem_load(x, w, in, info, a, err);
    if (in->op == OP_ST)
        return mem_store(x, w, in, info, a, err);
    return mem_atom(x, w, in, info, err);
}
