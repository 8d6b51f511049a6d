/* exec_async.c - the values of asynchronous and cluster instructions, lane
 * by lane (exec_parts.h): bulk copies and stores (TMA), loads and stores
 * to a peer CTA's shared memory, and mbarriers. Their timing is the SM's
 * (sm_async.c); wgmma's arithmetic is in exec_tc.c.
 */
#include "exec_parts.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "check.h"

/* ---- asynchronous copies (isa.h) --------------------------------------------- */

/* Check that [a, a + n) is in the block's shared memory with a aligned to
 * `align`; else a report naming what the operand is. */
int exec_async_shared(const exec_ctx_t *x, const warp_t *w, uint32_t lane, uint32_t a,
                      uint64_t n, uint32_t align, const char *what, simt_err_t *err)
{
    char msg[96], detail[320], where[200];
    if (a % align != 0) {
        snprintf(msg, sizeof msg, "misaligned %s", what);
        snprintf(detail, sizeof detail, "shared address 0x%08" PRIx32 " is not a multiple of %" PRIu32,
                 a, align);
        return exec_report(x, w, lane, SIMT_E_MEM, err, msg, detail);
    }
    if ((uint64_t)a + n > x->smem_bytes) {
        exec_describe_shared(x, a, where, sizeof where);
        snprintf(msg, sizeof msg, "out-of-bounds %s", what);
        snprintf(detail, sizeof detail, "shared bytes 0x%08" PRIx32 "..+%" PRIu64 ": %s", a, n, where);
        return exec_report(x, w, lane, SIMT_E_MEM, err, msg, detail);
    }
    return 0;
}

/* Let the kernel checker see n bytes at addr (a multiple of 16) as 16-byte
 * ld (is_store 0) or st pieces of thread `lane`; a shared store is a bulk
 * copy's (check.h). */
int exec_async_check(const exec_ctx_t *x, const warp_t *w, uint8_t space, int is_store,
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
            return exec_report(x, w, lane, SIMT_E_KERNEL, err, msg, detail);
        }
        to[r] = x->cluster ? x->cluster->smem[r] : x->smem;
        if (!to[r]) {
            snprintf(msg, sizeof msg, "%s names a CTA that has exited", what);
            snprintf(detail, sizeof detail, "CTA rank %" PRIu32 " of the cluster (shared address 0x%08"
                     PRIx32 ") has already finished: end the kernel with barrier.cluster so that "
                     "no CTA exits while its peers still use it", r, addr);
            return exec_report(x, w, lane, SIMT_E_KERNEL, err, msg, detail);
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
    return exec_report(x, w, l, SIMT_E_MEM, err, msg, detail);
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
        exec_report(x, w, l, SIMT_E_MEM, err, msg, detail);
    }
    return gp;
}

/* cp.async.bulk: R rows of B bytes, global src + r * pitch -> shared dst
 * + r * B, by the lowest active lane. info->addrs: [0] dst, [1] src, [2]
 * pitch, [3] mbarrier. */
int exec_cp_bulk(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                 simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
    uint32_t l = lowest_lane(info->mask);
    uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
    uint32_t dst = lane_addr(w, &in->opd[0], l), gsrc = lane_addr(w, &in->opd[1], l);
    uint32_t pitch = src(x, w, &in->opd[2], tmp)[l];
    uint32_t bar = lane_addr(w, &in->opd[3], l);
    if (exec_async_shared(x, w, l, dst, rows * rb, 16, "bulk copy destination", err) != 0 ||
        exec_async_shared(x, w, l, bar, 8, 8, "mbarrier", err) != 0 ||
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
        if (x->check && exec_async_check(x, w, SPACE_GLOBAL, 0, ga, rb, l, err) != 0)
            return -1;
        for (uint32_t k = 0; k < ISA_MAX_CLUSTER; k++) {
            if (!(mask >> k & 1u))
                continue;
            if (x->check) {
                if (k == x->cluster_rank ? exec_async_check(x, w, SPACE_SHARED, 1, dst + r * rb, rb, l, err) != 0
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
int exec_mem_cluster(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
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
        if (exec_async_shared(x, w, l, a, 4, 4, is_ld ? "ld.cluster address" : "st.cluster address", err) != 0)
            return -1;
        if (r >= ISA_MAX_CLUSTER) {
            char detail[160];
            snprintf(detail, sizeof detail, "CTA rank %" PRIu32 " (shared address 0x%08" PRIx32
                     "): a cluster has at most %d CTAs", r, a, ISA_MAX_CLUSTER);
            return exec_report(x, w, l, SIMT_E_KERNEL, err, is_ld ? "ld.cluster names a CTA outside the cluster"
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
int exec_cp_bulk_st(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
                    simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
    uint32_t l = lowest_lane(info->mask);
    uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
    uint32_t gdst = lane_addr(w, &in->opd[0], l), ssrc = lane_addr(w, &in->opd[1], l);
    uint32_t pitch = src(x, w, &in->opd[2], tmp)[l];
    if (exec_async_shared(x, w, l, ssrc, rows * rb, 16, "bulk store source", err) != 0 ||
        bulk_global_aligned(x, w, l, gdst, pitch, "store", "destination", err) != 0)
        return -1;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t ga = gdst + r * pitch;
        uint8_t *gp = bulk_global_row(x, w, l, r, ga, rb, "store", "destination", err);
        if (!gp)
            return -1;
        if (x->check && (exec_async_check(x, w, SPACE_SHARED, 0, ssrc + r * rb, rb, l, err) != 0 ||
                         exec_async_check(x, w, SPACE_GLOBAL, 1, ga, rb, l, err) != 0))
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
int exec_mbar(const exec_ctx_t *x, warp_t *w, const isa_instr_t *in, exec_info_t *info,
              simt_err_t *err)
{
    uint32_t tmp[WARP_SIZE];
    uint32_t l = lowest_lane(info->mask);
    uint32_t bar = lane_addr(w, &in->opd[0], l);
    uint32_t v = src(x, w, &in->opd[1], tmp)[l];
    if (exec_async_shared(x, w, l, bar, 8, 8, "mbarrier", err) != 0)
        return -1;
    if (in->op == OP_MBAR_WAIT && v > 1) {
        char detail[96];
        snprintf(detail, sizeof detail, "parity %" PRIu32 ": must be 0 or 1", v);
        return exec_report(x, w, l, SIMT_E_KERNEL, err, "bad mbarrier parity", detail);
    }
    if (in->op == OP_MBAR_ARRIVE_REMOTE) {
        uint8_t *to[ISA_MAX_CLUSTER];
        if (v >= ISA_MAX_CLUSTER || cluster_ranks(x, w, l, 1u << v, bar, "remote mbarrier arrive", to, err) != 0) {
            if (v < ISA_MAX_CLUSTER)
                return -1;
            char detail[160];
            snprintf(detail, sizeof detail, "CTA rank %" PRIu32 " (shared address 0x%08" PRIx32
                     "): a cluster has at most %d CTAs", v, bar, ISA_MAX_CLUSTER);
            return exec_report(x, w, l, SIMT_E_KERNEL, err, "remote mbarrier arrive names a CTA outside the cluster",
                               detail);
        }
    }
    if (in->op == OP_MBAR_INIT && (v == 0 || v > 0xFFFF)) {
        char detail[96];
        snprintf(detail, sizeof detail, "count %" PRIu32 ": must be 1..65535 arrivals", v);
        return exec_report(x, w, l, SIMT_E_KERNEL, err, "bad mbarrier count", detail);
    }
    info->space = SPACE_SHARED;
    info->addrs[0] = bar;
    info->addrs[1] = v;
    return 0;
}
