/* sm_async.c - an SM's asynchronous and cluster machinery (isa.h): mbarriers
 * and their phases, bulk copies and stores (TMA), wgmma on the Tensor Core
 * queue, distributed shared memory and barrier.cluster between the CTAs
 * of a cluster.
 *
 * sm.c's issue calls sm_async_issue after exec_step has computed an
 * asynchronous instruction's values; this file times it and keeps the
 * barrier state: an mbarrier phase completes when every arrival came and
 * every byte of its copies landed, and wakes the warps that wait for it; a
 * cluster barrier releases when every live warp of the cluster arrived.
 * Another SM's warps (a peer CTA) are woken through wake_sm, since the run
 * loop skips SMs with nothing to do.
 */
#include "sm_async.h"

#include <inttypes.h>
#include <string.h>

#include "memsys.h"

/* ---- mbarriers and peers ------------------------------------------------- */

/* The mbarrier of blk at shared address addr, or NULL if the block has
 * not initialised one there. */
static sm_mbar_t *mbar_lookup(sm_block_t *blk, uint32_t addr)
{
    for (uint32_t i = 0; i < blk->nmbar; i++)
        if (blk->mbar[i].addr == addr)
            return &blk->mbar[i];
    return NULL;
}

/* The same, for an instruction that needs one: NULL means a fault,
 * reported in err. */
static sm_mbar_t *mbar_find(sm_block_t *blk, const sm_launch_t *l, const warp_t *w,
                            const isa_instr_t *in, uint32_t addr, simt_err_t *err)
{
    sm_mbar_t *mb = mbar_lookup(blk, addr);
    if (mb)
        return mb;
    simt_errf(err, SIMT_E_KERNEL, "mbarrier not initialised in kernel '%s' (%s:%" PRIu32 ")\n"
              "  block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 "), warp %" PRIu32 ": shared address 0x%08"
              PRIx32 " holds no mbarrier (run mbarrier.init.shared on it first, then bar.sync)",
              l->prog->name, l->prog->file, in->line, blk->ctaid[0], blk->ctaid[1], blk->ctaid[2],
              w->warp_in_block, addr);
    return NULL;
}

/* Complete mb's phase if every arrival came and every byte arrived; wake
 * the warps of blk that wait for it. */
static void mbar_try_complete(sm_t *sm, const sm_launch_t *l, sm_block_t *blk, sm_mbar_t *mb,
                              uint64_t now)
{
    if (mb->pending != 0 || mb->tx != 0)
        return;
    mb->phase++;
    mb->t_done = mb->t_max;
    mb->t_max = 0;
    mb->pending = mb->count;
    uint8_t key = (uint8_t)(1 + (mb - blk->mbar));
    for (uint32_t i = 0; i < l->warps_per_block; i++) {
        warp_t *o = &sm->warps[blk->first_warp + i];
        sm_async_t *as = &sm->async[o->slot];
        if (as->wait_mbar != key || (mb->phase & 1u) == as->wait_parity)
            continue;
        as->wait_mbar = 0;
        o->next_issue = mb->t_done > now + 1 ? mb->t_done : now + 1;
        sm_warp_refresh(l, o);
        sm_sched_view(sm, o);
        sm->dirty = 1;
    }
}

/* Something outside SM o's own issues (another SM of the cluster) changed
 * its warps: its schedulers must look again, from cycle t on (the run
 * loop skips SMs with nothing to do, so tell it). */
static void wake_sm(sm_t *o, uint64_t t)
{
    o->dirty = 1;
    if (o->next_eval > t)
        o->next_eval = t;
}

/* The block of CTA `rank` of blk's cluster and its SM (blk itself for a
 * block outside a cluster launch). exec_step has checked that the rank
 * is in the cluster and has not exited. */
static sm_block_t *peer_block(sm_t *sm, const sm_launch_t *l, sm_block_t *blk, uint32_t rank, sm_t **on)
{
    if (!blk->cluster || rank == blk->rank) {
        *on = sm;
        return blk;
    }
    *on = &l->sms[blk->cluster->x.smid[rank]];
    return &(*on)->blocks[blk->cluster->x.slot[rank]];
}

/* The mbarrier at addr in a peer CTA (or NULL: a fault, in err). */
static sm_mbar_t *peer_mbar(sm_block_t *pb, const sm_launch_t *l, const sm_block_t *blk, const warp_t *w,
                            const isa_instr_t *in, uint32_t rank, uint32_t addr, simt_err_t *err)
{
    sm_mbar_t *mb = mbar_lookup(pb, addr);
    if (mb)
        return mb;
    simt_errf(err, SIMT_E_KERNEL, "mbarrier not initialised in kernel '%s' (%s:%" PRIu32 ")\n"
              "  block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 "), warp %" PRIu32 ": shared address 0x%08"
              PRIx32 " of CTA rank %" PRIu32 " of its cluster (block (%" PRIu32 ",%" PRIu32 ",%" PRIu32
              ")) holds no mbarrier (initialise it there, then barrier.cluster before peers use it)",
              l->prog->name, l->prog->file, in->line, blk->ctaid[0], blk->ctaid[1], blk->ctaid[2],
              w->warp_in_block, addr, rank, pb->ctaid[0], pb->ctaid[1], pb->ctaid[2]);
    return NULL;
}

/* Release barrier.cluster when every live warp of the cluster has
 * arrived: its warps resume lat_cluster cycles after the last arrival. */
static void cluster_bar_check(sm_launch_t *l, sm_cluster_t *cl, uint64_t now)
{
    if (cl->warps_at_bar == 0 || cl->warps_at_bar < cl->warps_live)
        return;
    for (uint32_t r = 0; r < cl->x.size; r++) {
        sm_t *o = &l->sms[cl->x.smid[r]];
        sm_block_t *b = &o->blocks[cl->x.slot[r]];
        if (!b->used || b->cluster != cl)   /* that CTA has exited */
            continue;
        for (uint32_t i = 0; i < l->warps_per_block; i++) {
            warp_t *ow = &o->warps[b->first_warp + i];
            sm_async_t *as = &o->async[ow->slot];
            if (!as->wait_cluster)
                continue;
            as->wait_cluster = 0;
            ow->next_issue = now + l->desc->lat_cluster;
            sm_warp_refresh(l, ow);
            sm_sched_view(o, ow);
        }
        wake_sm(o, now + 1);
    }
    cl->warps_at_bar = 0;
}

/* Warp w of blk has exited: one warp fewer for barrier.cluster, and when
 * the block is done, its peers can no longer reach it. */
void sm_cluster_warp_done(sm_launch_t *l, sm_block_t *blk, uint64_t now)
{
    sm_cluster_t *cl = blk->cluster;
    if (!cl)
        return;
    cl->warps_live--;
    if (blk->warps_live == 0) {
        cl->x.smem[blk->rank] = NULL;
        cl->live--;
    }
    cluster_bar_check(l, cl, now);
}

/* Time a bulk copy (is_store 0) or bulk store (1) of rows x rb bytes at
 * global addr + r * pitch on sm's copy engine and count it in the launch's
 * statistics; returns when its last byte has arrived. */
static uint64_t bulk_timed(sm_t *sm, sm_launch_t *l, uint64_t now, int is_store, uint32_t addr,
                           uint32_t rows, uint32_t rb, uint32_t pitch)
{
    gpu_stats_t *st = l->st;
    memsys_result_t res;
    uint64_t done = is_store ? memsys_bulk_store(l->memsys, sm->id, now, addr, rows, rb, pitch, &res)
                             : memsys_bulk_copy(l->memsys, sm->id, now, addr, rows, rb, pitch, &res);
    if (is_store) {
        st->gst_bytes += (uint64_t)rows * rb;
        st->gst_sectors += res.sectors;
    } else {
        st->gld_bytes += (uint64_t)rows * rb;
        st->gld_sectors += res.sectors;
    }
    st->l2_hits += res.l2_hits;
    st->l2_misses += res.l2_misses;
    st->dram_bytes += res.dram_bytes;
    if (done > l->last_activity)
        l->last_activity = done;
    return done;
}

/* `bytes` of a bulk copy have arrived by cycle `ready` for mbarrier mb of
 * block blk on SM on: complete_tx, and the phase if that was all. */
static void bytes_landed(sm_t *on, const sm_launch_t *l, sm_block_t *blk, sm_mbar_t *mb, int64_t bytes,
                         uint64_t ready, uint64_t now)
{
    mb->tx -= bytes;
    mb->t_max = mb->t_max > ready ? mb->t_max : ready;
    mbar_try_complete(on, l, blk, mb, now);
}

/* Timing and barrier state of an asynchronous instruction that warp w
 * (of block blk, on scheduler sched) has just executed. Returns 1 if w
 * now waits for an mbarrier phase no one has completed, 0, or -1 on a
 * kernel fault (report in err). */

/* ---- one function per asynchronous instruction --------------------------- */

/* mbarrier.init: (re)initialise the mbarrier at addrs[0] for addrs[1]
 * arrivals. */
static int mbar_init(sm_launch_t *l, sm_block_t *blk, const isa_instr_t *in, const exec_info_t *info,
                     simt_err_t *err)
{
    sm_mbar_t *mb = mbar_lookup(blk, info->addrs[0]);
    if (!mb) {
        if (blk->nmbar == SM_MAX_MBARS)
            return simt_errf(err, SIMT_E_KERNEL, "too many mbarriers in kernel '%s' (%s:%" PRIu32
                             "): a block may use at most %d", l->prog->name, l->prog->file, in->line,
                             SM_MAX_MBARS);
        mb = &blk->mbar[blk->nmbar++];
    }
    memset(mb, 0, sizeof *mb);
    mb->addr = info->addrs[0];
    mb->count = mb->pending = info->addrs[1];
    return 0;
}

/* mbarrier.arrive (.expect_tx addrs[1] bytes) on this block's mbarrier. */
static int mbar_arrive(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, const isa_instr_t *in,
                       const exec_info_t *info, uint64_t now, simt_err_t *err)
{
    sm_mbar_t *mb = mbar_find(blk, l, w, in, info->addrs[0], err);
    if (!mb)
        return -1;
    if (mb->pending == 0)
        return simt_errf(err, SIMT_E_KERNEL, "mbarrier over-arrived in kernel '%s' (%s:%" PRIu32
                         "): its phase already has all %" PRIu32 " arrivals and waits for %" PRId64
                         " bytes of bulk copies", l->prog->name, l->prog->file, in->line, mb->count, mb->tx);
    mb->pending--;
    mb->tx += info->addrs[1];
    mb->t_max = mb->t_max > now + 1 ? mb->t_max : now + 1;
    mbar_try_complete(sm, l, blk, mb, now);
    return 0;
}

/* A multicast bulk copy: one read, its bytes counted on the mbarrier at
 * the same offset in each CTA of in->ctamask. */
static int cp_bulk_multicast(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, const isa_instr_t *in,
                             const exec_info_t *info, uint64_t now, simt_err_t *err)
{
    uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
    sm_mbar_t *mbs[ISA_MAX_CLUSTER];
    sm_block_t *pbs[ISA_MAX_CLUSTER];
    sm_t *ons[ISA_MAX_CLUSTER];
    for (uint32_t r = 0; r < ISA_MAX_CLUSTER; r++) {
        if (!(in->ctamask >> r & 1u))
            continue;
        pbs[r] = peer_block(sm, l, blk, r, &ons[r]);
        mbs[r] = pbs[r] == blk ? mbar_find(blk, l, w, in, info->addrs[3], err)
                               : peer_mbar(pbs[r], l, blk, w, in, r, info->addrs[3], err);
        if (!mbs[r])
            return -1;
    }
    uint64_t ready = bulk_timed(sm, l, now, 0, info->addrs[1], rows, rb, info->addrs[2]);
    for (uint32_t r = 0; r < ISA_MAX_CLUSTER; r++) {
        if (!(in->ctamask >> r & 1u))
            continue;
        bytes_landed(ons[r], l, pbs[r], mbs[r], (int64_t)rows * rb, ready, now);
        if (ons[r] != sm)
            wake_sm(ons[r], now + 1);
    }
    return 0;
}

/* cp.async.bulk: rows x rb bytes from global memory into shared memory,
 * counted on this block's mbarrier at addrs[3] when they land. */
static int cp_bulk(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, const isa_instr_t *in,
                   const exec_info_t *info, uint64_t now, simt_err_t *err)
{
    if (in->ctamask)
        return cp_bulk_multicast(sm, l, w, blk, in, info, now, err);
    uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
    sm_mbar_t *mb = mbar_find(blk, l, w, in, info->addrs[3], err);
    if (!mb)
        return -1;
    uint64_t ready = bulk_timed(sm, l, now, 0, info->addrs[1], rows, rb, info->addrs[2]);
    bytes_landed(sm, l, blk, mb, (int64_t)rows * rb, ready, now);
    return 0;
}

/* ld/st.shared::cluster: distributed shared memory. A peer's data comes
 * over the SM-to-SM network (latency only; its bandwidth is not
 * modelled). */
static int cluster_ldst(sm_launch_t *l, warp_t *w, const isa_instr_t *in, const exec_info_t *info,
                        uint64_t now)
{
    gpu_stats_t *st = l->st;
    uint64_t bytes = (uint64_t)warp_popcount(info->mask) * 4;
    if (in->op == OP_ST_CLUSTER) {
        st->sst_bytes += bytes;
        return 0;
    }
    st->sld_bytes += bytes;
    uint64_t ready = now + (info->remote ? l->desc->lat_cluster : l->latency[UNIT_LSU]);
    uint32_t d = in->opd[0].index;
    w->reg_ready[d] = ready;
    warp_set_reg_mem(w, d, 1);
    if (ready > l->last_activity)
        l->last_activity = ready;
    return 0;
}

/* mbarrier.arrive.shared::cluster: an arrival on the mbarrier of CTA rank
 * addrs[1] of the cluster. */
static int mbar_arrive_remote(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, const isa_instr_t *in,
                              const exec_info_t *info, uint64_t now, simt_err_t *err)
{
    sm_t *on;
    uint32_t rank = info->addrs[1];
    sm_block_t *pb = peer_block(sm, l, blk, rank, &on);
    sm_mbar_t *mb = pb == blk ? mbar_find(blk, l, w, in, info->addrs[0], err)
                              : peer_mbar(pb, l, blk, w, in, rank, info->addrs[0], err);
    if (!mb)
        return -1;
    if (mb->pending == 0)
        return simt_errf(err, SIMT_E_KERNEL, "mbarrier over-arrived in kernel '%s' (%s:%" PRIu32
                         "): the mbarrier of CTA rank %" PRIu32 " already has all %" PRIu32
                         " arrivals of its phase", l->prog->name, l->prog->file, in->line, rank,
                         mb->count);
    /* the arrival travels over the SM-to-SM network (a cluster of one:
     * it stays on the SM, as a local arrive) */
    uint64_t at = now + (blk->cluster ? l->desc->lat_cluster : 1);
    mb->pending--;
    mb->t_max = mb->t_max > at ? mb->t_max : at;
    mbar_try_complete(on, l, pb, mb, now);
    if (on != sm)
        wake_sm(on, now + 1);
    return 0;
}

/* barrier.cluster: w waits until every live warp of its cluster arrives
 * (returns 1 while it waits). */
static int bar_cluster(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, uint64_t now)
{
    sm_cluster_t *cl = blk->cluster;
    if (!cl)              /* a cluster of one: exec_step made it a bar.sync */
        return 0;
    sm_async_t *as = &sm->async[w->slot];
    as->wait_cluster = 1;
    w->next_issue = SM_BLOCKED;
    cl->warps_at_bar++;
    cluster_bar_check(l, cl, now);
    return as->wait_cluster;
}

/* mbarrier.try_wait.parity: go on if the phase of parity addrs[1] is
 * complete (from when it completed), else sleep until it is (returns 1). */
static int mbar_wait(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, const isa_instr_t *in,
                     const exec_info_t *info, simt_err_t *err)
{
    sm_mbar_t *mb = mbar_find(blk, l, w, in, info->addrs[0], err);
    if (!mb)
        return -1;
    if ((mb->phase & 1u) != info->addrs[1]) {      /* that phase is complete */
        if (mb->t_done > w->next_issue)
            w->next_issue = mb->t_done;
        return 0;
    }
    sm_async_t *as = &sm->async[w->slot];
    as->wait_mbar = (uint8_t)(1 + (mb - blk->mbar));
    as->wait_parity = (uint8_t)info->addrs[1];
    w->next_issue = SM_BLOCKED;
    return 1;
}

/* When the operands of warp w's wgmma number c have been read from shared
 * memory: A (16 rows of 32 bytes) for this warp, B once per warpgroup (the
 * first of its 4 warps to issue its c-th wgmma reads it). Adds the bytes
 * read to *smem_bytes and their wavefronts to *wavefronts. */
static uint64_t wgmma_operands(sm_t *sm, sm_launch_t *l, const warp_t *w, sm_block_t *blk,
                               const isa_instr_t *in, uint32_t c, uint64_t now, uint32_t *smem_bytes,
                               uint64_t *wavefronts)
{
    uint64_t start = memsys_smem_read(l->memsys, sm->id, now, 512, wavefronts);
    *smem_bytes = 512;
    uint32_t g = w->warp_in_block / 4 % SM_MAX_WARPGROUPS;
    uint64_t b_ready = now;
    if (c > blk->wg_count[g]) {
        blk->wg_count[g] = c;
        uint32_t bb = isa_wgmma_k((isa_type_t)in->type) * in->shape[0] * isa_type_bytes((isa_type_t)in->type);
        blk->wg_b_ready[g] = memsys_smem_read(l->memsys, sm->id, now, bb, wavefronts);
        *smem_bytes += bb;
        b_ready = blk->wg_b_ready[g];
    } else if (c == blk->wg_count[g]) {
        b_ready = blk->wg_b_ready[g];
    }
    return start > b_ready ? start : b_ready;
}

/* wgmma.mma_async: queued on the scheduler's Tensor Core after its
 * operands are read, the queue is free and its accumulators are written;
 * D's registers are ready when it ends. */
static int wgmma(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, sm_block_t *blk,
                 const isa_instr_t *in, uint64_t now)
{
    sm_async_t *as = &sm->async[w->slot];
    sched_t *s = &sm->sched[sched];
    gpu_stats_t *st = l->st;
    uint32_t n = in->shape[0], d = in->opd[0].index;
    uint32_t rate = l->tc_rate[in->type];
    uint32_t c = as->wgmma_n + 1, smem_bytes;
    uint64_t wavefronts = 0;
    uint64_t start = wgmma_operands(sm, l, w, blk, in, c, now, &smem_bytes, &wavefronts);
    start = start > s->tc_free ? start : s->tc_free;
    for (uint32_t r = d; r < d + n / 2; r++)
        start = start > w->reg_ready[r] ? start : w->reg_ready[r];
    uint64_t cycles = rate ? ((uint64_t)isa_wgmma_flops((isa_type_t)in->type, n) * sm->nsched
                              + rate - 1) / rate : 1;
    uint64_t end = start + cycles;
    s->tc_free = end;
    s->unit_free[UNIT_TENSOR] = now + 1;
    for (uint32_t r = d; r < d + n / 2; r++) {
        w->reg_ready[r] = end;
        warp_set_reg_mem(w, r, 0);
    }
    st->sld_bytes += smem_bytes;           /* operand reads count as shared loads */
    st->smem_wavefronts += wavefronts;
    as->wgmma_done[as->wgmma_n % SM_WGMMA_RING] = end;
    as->wgmma_n = c;
    if (end > l->last_activity)
        l->last_activity = end;
    return 0;
}

/* wgmma.wait_group N: w goes on when all but its last N wgmmas are done. */
static int wgmma_wait(sm_t *sm, warp_t *w, const exec_info_t *info)
{
    sm_async_t *as = &sm->async[w->slot];
    uint32_t keep = info->addrs[0];
    if (as->wgmma_n > keep) {
        uint64_t t = as->wgmma_done[(as->wgmma_n - keep - 1) % SM_WGMMA_RING];
        if (t > w->next_issue)
            w->next_issue = t;
    }
    return 0;
}

int sm_async_issue(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, sm_block_t *blk,
                   const isa_instr_t *in, const exec_info_t *info, uint64_t now, simt_err_t *err)
{
    if (info->mask == 0)
        return 0;
    switch (info->op) {
    case OP_MBAR_INIT: return mbar_init(l, blk, in, info, err);
    case OP_MBAR_ARRIVE: return mbar_arrive(sm, l, w, blk, in, info, now, err);
    case OP_MBAR_ARRIVE_REMOTE: return mbar_arrive_remote(sm, l, w, blk, in, info, now, err);
    case OP_MBAR_WAIT: return mbar_wait(sm, l, w, blk, in, info, err);
    case OP_CP_BULK: return cp_bulk(sm, l, w, blk, in, info, now, err);
    case OP_CP_BULK_ST:
        bulk_timed(sm, l, now, 1, info->addrs[0], in->shape[0], 16u * in->shape[1], info->addrs[2]);
        return 0;
    case OP_LD_CLUSTER:
    case OP_ST_CLUSTER: return cluster_ldst(l, w, in, info, now);
    case OP_BAR_CLUSTER: return bar_cluster(sm, l, w, blk, now);
    case OP_WGMMA: return wgmma(sm, l, sched, w, blk, in, now);
    case OP_WGMMA_WAIT: return wgmma_wait(sm, w, info);
    default: return 0;
    }
}
