/* sm.c - a streaming multiprocessor: warp and block slots, issue, and the
 * cycle.
 *
 * How one SM cycle works (sm_cycle, at the bottom of this file):
 *   1. Each warp scheduler picks the warp it issues (sched.h tells that
 *      story and holds the pick, in a fast version and a plain reference).
 *      A scheduler sees its warps through a small copy per warp (the view);
 *      sched_view refreshes it whenever a warp's state or readiness changes.
 *   2. The chosen warps issue in scheduler order (issue): exec_step computes
 *      the real result now, and the scoreboard records when it will be
 *      visible (now + unit latency, or when the memory system delivers a
 *      load); the unit is busy for its issue interval.
 *   3. A scheduler that issues nothing counts a cycle of its stall reason,
 *      so that every scheduler-cycle is accounted for.
 * Cycles in which no scheduler could issue are skipped: the SM's next
 * evaluation is the earliest cycle any of its warps can become ready.
 * The asynchronous machinery (bulk copies, mbarriers, wgmma, clusters) sits
 * between issue and the cycle: async_issue.
 */
#include "sm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "bits.h"
#include "memsys.h"
#include "power.h"

/* The warp scheduler (sched.h) is compiled as part of this file, so that
 * the compiler can inline its pick into sm_cycle: as a separate object it
 * costs the simulator ~2% more host instructions (callgrind). */
#include "sched.c"

/* A hint to the host CPU to start loading the cache line at p (no effect
 * on results; nothing on compilers without the builtin). */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

static void warp_refresh(const sm_launch_t *l, warp_t *w);
static void sched_view(sm_t *sm, const warp_t *w);
static uint64_t mem_part(sm_t *sm, sm_launch_t *l, uint64_t now, const exec_info_t *info,
                         uint32_t part, uint64_t *accepted);
static int async_issue(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, sm_block_t *blk,
                       const isa_instr_t *in, const exec_info_t *info, uint64_t now, simt_err_t *err);

/* ---- decoding ------------------------------------------------------------ */

void sm_decode_deps(const isa_program_t *p, sm_deps_t *deps)
{
    for (uint32_t pc = 0; pc < p->ncode; pc++) {
        const isa_instr_t *in = &p->code[pc];
        sm_deps_t *d = &deps[pc];
        memset(d, 0, sizeof *d);
        d->dst = d->pdst = ISA_NO_REG;
        d->psrc[0] = d->psrc[1] = d->psrc[2] = ISA_NO_REG;
        d->unit = isa_instr_unit(in);
        uint32_t np = 0;
        if (in->guard != ISA_NO_REG)
            d->psrc[np++] = in->guard;
        uint32_t first_src = isa_ops[in->op].has_dst ? 1 : 0;
        if (isa_ops[in->op].has_dst) {
            if (in->opd[0].kind == OPD_REG)
                d->dst = in->opd[0].index;
            else if (in->opd[0].kind == OPD_PRED)
                d->pdst = in->opd[0].index;
        }
        d->dst_n = (uint8_t)(d->dst != ISA_NO_REG ? isa_opd_regs(in, 0) : 1);
        d->tc_type = in->op == OP_WMMA_MMA ? in->type : T_NONE;
        d->async = isa_ops[in->op].async;
        if (in->op == OP_WGMMA)
            d->dst = ISA_NO_REG;  /* D is timed by the Tensor Core queue (async_issue) */
        /* sources; for st (no destination) this includes opd[0], the address */
        for (uint32_t i = first_src; i < in->nopd; i++) {
            const isa_operand_t *o = &in->opd[i];
            if ((o->kind == OPD_REG || o->kind == OPD_MEM) && o->index != ISA_NO_REG && d->nsrc < 4) {
                d->src_n[d->nsrc] = (uint8_t)(o->kind == OPD_REG ? isa_opd_regs(in, (int)i) : 1);
                d->src[d->nsrc++] = o->index;
            }
            else if (o->kind == OPD_PRED && np < 3)
                d->psrc[np++] = o->index;
        }
        for (uint32_t i = 0; i < d->nsrc; i++)
            for (uint32_t k = 0; k < d->src_n[i]; k++)
                d->regs[d->nregs++] = (uint8_t)(d->src[i] + k);
        if (d->dst != ISA_NO_REG) {
            for (uint32_t k = 0; k < d->dst_n; k++)
                d->regs[d->nregs++] = (uint8_t)(d->dst + k);
            d->dst_word = (uint8_t)(d->dst >> 6);
            if ((d->dst & 63u) + d->dst_n <= 64u)
                for (uint32_t k = 0; k < d->dst_n; k++)
                    d->dst_bits |= 1ull << ((d->dst & 63u) + k);
        }
    }
}

/* ---- setup ------------------------------------------------------------------ */

#define SM_ALIGN 128   /* bytes: one warp register (32 lanes x 4 bytes) */

static size_t round_up(size_t n) { return (n + SM_ALIGN - 1) / SM_ALIGN * SM_ALIGN; }

/* How sm_init carves one SM's host memory: where each array starts. */
typedef struct sm_layout {
    size_t warps, regfile, ready, view, view_at, sleepers, blocks, async, smem, total;
} sm_layout_t;

static sm_layout_t layout(const sm_launch_t *l, uint32_t nsched, uint32_t blocks_per_sm)
{
    uint32_t nwarps = blocks_per_sm * l->warps_per_block;
    uint32_t per_sched = (nwarps + nsched - 1) / nsched;
    uint32_t nregs = l->prog->nregs ? l->prog->nregs : 1;
    sm_layout_t y;
    y.warps = 0;
    y.regfile = y.warps + round_up((size_t)nwarps * sizeof(warp_t));
    y.ready = y.regfile + round_up((size_t)nwarps * nregs * WARP_SIZE * sizeof(uint32_t));
    y.view = y.ready + round_up((size_t)nwarps * nregs * sizeof(uint64_t));
    y.view_at = y.view + round_up((size_t)nsched * per_sched * sizeof(sched_slot_t));
    y.sleepers = y.view_at + round_up((size_t)nwarps * sizeof(uint32_t));
    y.blocks = y.sleepers + round_up((size_t)nsched * per_sched * sizeof(sched_sleeper_t));
    y.async = y.blocks + round_up((size_t)blocks_per_sm * sizeof(sm_block_t));
    y.smem = y.async + round_up((size_t)nwarps * sizeof(sm_async_t));
    y.total = y.smem + round_up((size_t)blocks_per_sm * l->prog->shared_bytes);
    return y;
}

static uint32_t nsched_of(const sm_launch_t *l)
{
    uint32_t n = l->desc->schedulers_per_sm;
    return n > SM_MAX_SCHEDULERS ? SM_MAX_SCHEDULERS : n;
}

size_t sm_host_bytes(const sm_launch_t *l, uint32_t blocks_per_sm)
{
    return layout(l, nsched_of(l), blocks_per_sm).total;
}

void sm_init(sm_t *sm, uint32_t id, const sm_launch_t *l, uint32_t blocks_per_sm, void *host)
{
    memset(sm, 0, sizeof *sm);
    sm->id = id;
    sm->nsched = nsched_of(l);
    sm->nblocks = blocks_per_sm;
    sm->nwarps = blocks_per_sm * l->warps_per_block;
    sm->smem_per_block = l->prog->shared_bytes;
    sm->per_sched = (sm->nwarps + sm->nsched - 1) / sm->nsched;
    sm_layout_t y = layout(l, sm->nsched, blocks_per_sm);
    uint8_t *m = host;
    /* zero all but the registers (and their scoreboard) and shared memory,
     * which warp_start and sm_place_block zero for each block they hold (an
     * H200's 20 MB of registers need not all be touched) */
    memset(m, 0, y.regfile);
    memset(m + y.view, 0, y.smem - y.view);
    sm->warps = (warp_t *)(m + y.warps);
    sm->regfile = (uint32_t *)(m + y.regfile);
    sm->reg_ready = (uint64_t *)(m + y.ready);
    sm->view = (sched_slot_t *)(m + y.view);
    sm->view_at = (uint32_t *)(m + y.view_at);
    sm->blocks = (sm_block_t *)(m + y.blocks);
    sm->async = (sm_async_t *)(m + y.async);
    sm->smem = sm->smem_per_block ? m + y.smem : NULL;
    for (uint32_t i = 0; i < sm->nwarps; i++) {
        sm->warps[i].slot = i;
        sm->warps[i].state = WARP_FREE;
        sm->view_at[i] = (i % sm->nsched) * sm->per_sched + i / sm->nsched;
    }
    for (uint32_t b = 0; b < sm->nblocks; b++)
        sm->blocks[b].smem = sm->smem ? sm->smem + (size_t)b * sm->smem_per_block : NULL;
    sm->next_eval = SM_NEVER;
    for (uint32_t s = 0; s < sm->nsched; s++) {
        sm->sched[s].sleepers = (sched_sleeper_t *)(m + y.sleepers) + (size_t)s * sm->per_sched;
        sm->sched[s].reason = STALL_IDLE;
        sm->sched[s].reference = l->desc->sched_reference != 0;
    sm->sched_reference = l->desc->sched_reference != 0;
        sm->sched[s].last_mine = s == 0;   /* last starts as slot 0 */
        sm->sched[s].nslots = sm->nwarps > s ? (sm->nwarps - s + sm->nsched - 1) / sm->nsched : 0;
    }
}

int sm_place_block(sm_t *sm, const sm_launch_t *l, const uint32_t ctaid[3], uint64_t now,
                   sm_cluster_t *cluster, uint32_t rank)
{
    uint32_t b = 0;
    while (b < sm->nblocks && sm->blocks[b].used)
        b++;
    if (b == sm->nblocks)
        return -1;
    sm_block_t *blk = &sm->blocks[b];
    uint32_t nregs = l->prog->nregs ? l->prog->nregs : 1;
    blk->used = 1;
    memcpy(blk->ctaid, ctaid, sizeof blk->ctaid);
    blk->first_warp = b * l->warps_per_block;
    blk->warps_live = l->warps_per_block;
    blk->warps_at_bar = 0;
    blk->start = now;
    blk->x = (exec_ctx_t){
        .prog = l->prog, .mem = l->mem, .smem = blk->smem, .smem_bytes = sm->smem_per_block,
        .params = l->params, .smid = sm->id, .clock = now, .check = l->check,
    };
    memcpy(blk->x.ctaid, ctaid, sizeof blk->x.ctaid);
    memcpy(blk->x.nctaid, l->grid, sizeof blk->x.nctaid);
    memcpy(blk->x.ntid, l->block, sizeof blk->x.ntid);
    blk->cluster = cluster;
    blk->rank = rank;
    blk->x.cluster = cluster ? &cluster->x : NULL;
    blk->x.cluster_rank = rank;
    if (cluster) {
        cluster->x.smem[rank] = blk->smem;
        cluster->x.smid[rank] = sm->id;
        cluster->x.slot[rank] = b;
        memcpy(cluster->x.ctaid[rank], ctaid, sizeof cluster->x.ctaid[rank]);
        cluster->warps_live += l->warps_per_block;
    }
    blk->nmbar = 0;
    memset(blk->wg_count, 0, sizeof blk->wg_count);
    memset(blk->wg_b_ready, 0, sizeof blk->wg_b_ready);
    if (blk->smem)
        memset(blk->smem, 0, sm->smem_per_block);
    for (uint32_t i = 0; i < l->warps_per_block; i++) {
        warp_t *w = &sm->warps[blk->first_warp + i];
        uint32_t first_thread = i * WARP_SIZE;
        uint32_t lanes = l->threads_per_block - first_thread;
        warp_start(w, &sm->regfile[(size_t)w->slot * nregs * WARP_SIZE],
                   &sm->reg_ready[(size_t)w->slot * nregs], nregs, lanes > WARP_SIZE ? WARP_SIZE : lanes);
        w->block_slot = b;
        w->warp_in_block = i;
        memset(&sm->async[w->slot], 0, sizeof sm->async[w->slot]);
        w->age = sm->age++;
        w->next_issue = now;
        warp_refresh(l, w);
        sched_view(sm, w);
    }
    sm->blocks_used++;
    sm->dirty = 1;
    if (sm->next_eval > now)
        sm->next_eval = now;
    return (int)b;
}

/* ---- readiness ------------------------------------------------------------ */

/* Recompute when warp w's next instruction has its operands: the latest
 * ready cycle of every register and predicate it reads or writes (a write
 * must wait for an earlier pending write to the same register). Only this
 * warp's own issues change its scoreboard, so the result is cached in the
 * warp until it issues again. */
static void warp_refresh(const sm_launch_t *l, warp_t *w)
{
    if (w->depth == 0)
        return;
    const sm_deps_t *d = &l->deps[warp_pc(w)];
    uint64_t t = w->next_issue;
    uint8_t r = STALL_DEPENDENCY;
    for (uint32_t i = 0; i < d->nregs; i++) {   /* sources, then destination */
        uint32_t reg = d->regs[i];
        uint64_t rt = w->reg_ready[reg];
        if (rt > t) {
            t = rt;
            r = warp_reg_mem(w, reg) ? STALL_MEMORY : STALL_DEPENDENCY;
        }
    }
    for (uint32_t i = 0; i < 3 && d->psrc[i] != ISA_NO_REG; i++)
        if (w->pred_ready[d->psrc[i]] > t) {
            t = w->pred_ready[d->psrc[i]];
            r = STALL_DEPENDENCY;
        }
    if (d->pdst != ISA_NO_REG && w->pred_ready[d->pdst] > t) {
        t = w->pred_ready[d->pdst];
        r = STALL_DEPENDENCY;
    }
    w->dep_ready = t;
    w->dep_why = r;
    w->unit = d->unit;
}

/* Give warp w's scheduler its new view of w (sched.h): called after every
 * change of the warp's state, readiness or age. */
static void sched_view(sm_t *sm, const warp_t *w)
{
    uint32_t si = w->slot % sm->nsched;
    sched_slot_t v = {
        .dep_ready = w->dep_ready, .age = w->age, .pc = w->depth ? warp_pc(w) : 0,
        .depth = (uint8_t)w->depth, .state = w->state, .unit = w->unit, .why = w->dep_why,
    };
    sched_file(&sm->sched[si], &sm->view[si * sm->per_sched], w->slot / sm->nsched, &v);
}

/* sched_view after an issue that leaves the warp live (its common case). */
static void sched_view_issued(sm_t *sm, const warp_t *w)
{
    if (w->state != WARP_READY) {
        sched_view(sm, w);
        return;
    }
    uint32_t si = w->slot % sm->nsched;
    sched_file_issued(&sm->sched[si], &sm->view[si * sm->per_sched], w->slot / sm->nsched, w->dep_ready,
                      warp_pc(w), (uint8_t)w->depth, w->unit, w->dep_why);
}

/* Earliest cycle warp w can issue its next instruction, and why it cannot
 * before then: its operands (scoreboard) or a busy function unit. */
static inline uint64_t warp_ready(const sm_t *sm, const warp_t *w, uint32_t sched, uint8_t *why)
{
    uint64_t uf = sm->sched[sched].unit_free[w->unit];
    if (uf > w->dep_ready) {
        *why = STALL_PIPE;
        return uf;
    }
    *why = w->dep_why;
    return w->dep_ready;
}

/* ---- issue ---------------------------------------------------------------- */

/* When a memory instruction's data is ready (loads) or the LSU may take
 * the next request (stores); *accepted: when the LSU is free again. An
 * instruction with several parts per lane (wmma C/D fragments: two 16-byte
 * pieces) is that many requests, made one after another in the same cycle;
 * it is done when the last one is. */
static uint64_t mem_done(sm_t *sm, sm_launch_t *l, uint64_t now, const exec_info_t *info, uint64_t *accepted)
{
    uint64_t ready = 0;
    *accepted = 0;
    for (uint32_t part = 0; part < info->parts; part++) {
        uint64_t acc;
        uint64_t r = mem_part(sm, l, now, info, part, &acc);
        ready = r > ready ? r : ready;
        *accepted = acc > *accepted ? acc : *accepted;
    }
    return ready;
}

/* One request of mem_done: part `part` of every lane's access. */
static uint64_t mem_part(sm_t *sm, sm_launch_t *l, uint64_t now, const exec_info_t *info,
                         uint32_t part, uint64_t *accepted)
{
    memsys_req_t req;
    memsys_result_t res;
    req.space = info->space == SPACE_SHARED ? MEMSYS_SHARED : MEMSYS_GLOBAL;
    req.is_store = info->is_store;
    req.bytes = info->bytes;
    req.mask = info->mask;
    if (part == 0)
        memcpy(req.addr, info->addrs, sizeof req.addr);
    else
        for (uint32_t lane = 0; lane < WARP_SIZE; lane++)
            req.addr[lane] = info->addrs[lane] + part * info->bytes;
    uint64_t ready = memsys_access(l->memsys, sm->id, now, &req, &res);
    gpu_stats_t *st = l->st;
    if (info->space == SPACE_SHARED)
        st->smem_wavefronts += res.wavefronts;
    else if (info->is_store)
        st->gst_sectors += res.sectors;
    else
        st->gld_sectors += res.sectors;
    if (info->space != SPACE_SHARED && info->op == OP_ATOM)
        st->gld_sectors += res.sectors;   /* an atomic reads what it writes: counted both ways */
    st->l1_hits += res.l1_hits;
    st->l1_misses += res.l1_misses;
    st->l2_hits += res.l2_hits;
    st->l2_misses += res.l2_misses;
    st->dram_bytes += res.dram_bytes;
    *accepted = res.accepted;
    return ready;
}


/* ---- asynchronous copies, mbarriers and wgmma (isa.h) ----------------------- */

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
        warp_refresh(l, o);
        sched_view(sm, o);
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
            warp_refresh(l, ow);
            sched_view(o, ow);
        }
        wake_sm(o, now + 1);
    }
    cl->warps_at_bar = 0;
}

/* Warp w of blk has exited: one warp fewer for barrier.cluster, and when
 * the block is done, its peers can no longer reach it. */
static void cluster_warp_done(sm_launch_t *l, sm_block_t *blk, uint64_t now)
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
static int async_issue(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, sm_block_t *blk,
                       const isa_instr_t *in, const exec_info_t *info, uint64_t now, simt_err_t *err)
{
    sm_async_t *as = &sm->async[w->slot];
    sched_t *s = &sm->sched[sched];
    gpu_stats_t *st = l->st;
    if (info->mask == 0)
        return 0;
    switch (info->op) {
    case OP_MBAR_INIT: {
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
    case OP_MBAR_ARRIVE: {
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
    case OP_CP_BULK: {
        uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
        if (in->ctamask) {   /* multicast: one read, tx on each CTA's mbarrier at that offset */
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
        sm_mbar_t *mb = mbar_find(blk, l, w, in, info->addrs[3], err);
        if (!mb)
            return -1;
        uint64_t ready = bulk_timed(sm, l, now, 0, info->addrs[1], rows, rb, info->addrs[2]);
        bytes_landed(sm, l, blk, mb, (int64_t)rows * rb, ready, now);
        return 0;
    }
    case OP_CP_BULK_ST: {
        uint32_t rows = in->shape[0], rb = 16u * in->shape[1];
        bulk_timed(sm, l, now, 1, info->addrs[0], rows, rb, info->addrs[2]);
        return 0;
    }
    case OP_LD_CLUSTER:
    case OP_ST_CLUSTER: {
        /* distributed shared memory: a peer's data comes over the SM-to-SM
         * network (latency only; its bandwidth is not modelled) */
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
    case OP_MBAR_ARRIVE_REMOTE: {
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
    case OP_BAR_CLUSTER: {
        sm_cluster_t *cl = blk->cluster;
        if (!cl)              /* a cluster of one: exec_step made it a bar.sync */
            return 0;
        as->wait_cluster = 1;
        w->next_issue = SM_BLOCKED;
        cl->warps_at_bar++;
        cluster_bar_check(l, cl, now);
        return as->wait_cluster;
    }
    case OP_MBAR_WAIT: {
        sm_mbar_t *mb = mbar_find(blk, l, w, in, info->addrs[0], err);
        if (!mb)
            return -1;
        if ((mb->phase & 1u) != info->addrs[1]) {      /* that phase is complete */
            if (mb->t_done > w->next_issue)
                w->next_issue = mb->t_done;
            return 0;
        }
        as->wait_mbar = (uint8_t)(1 + (mb - blk->mbar));
        as->wait_parity = (uint8_t)info->addrs[1];
        w->next_issue = SM_BLOCKED;
        return 1;
    }
    case OP_WGMMA: {
        uint32_t n = in->shape[0], d = in->opd[0].index;
        uint32_t eb = isa_type_bytes((isa_type_t)in->type);
        uint32_t rate = l->tc_rate[in->type];
        /* A (16 rows of 32 bytes) for this warp; B once per warpgroup */
        uint64_t wavefronts = 0;
        uint64_t start = memsys_smem_read(l->memsys, sm->id, now, 512, &wavefronts);
        uint32_t smem_bytes = 512;
        uint32_t g = w->warp_in_block / 4 % SM_MAX_WARPGROUPS;
        uint32_t c = as->wgmma_n + 1;
        uint64_t b_ready = now;
        if (c > blk->wg_count[g]) {
            blk->wg_count[g] = c;
            uint32_t bb = isa_wgmma_k((isa_type_t)in->type) * n * eb;
            blk->wg_b_ready[g] = memsys_smem_read(l->memsys, sm->id, now, bb, &wavefronts);
            smem_bytes += bb;
            b_ready = blk->wg_b_ready[g];
        } else if (c == blk->wg_count[g]) {
            b_ready = blk->wg_b_ready[g];
        }
        start = start > b_ready ? start : b_ready;
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
    case OP_WGMMA_WAIT: {
        uint32_t keep = info->addrs[0];
        if (as->wgmma_n > keep) {
            uint64_t t = as->wgmma_done[(as->wgmma_n - keep - 1) % SM_WGMMA_RING];
            if (t > w->next_issue)
                w->next_issue = t;
        }
        return 0;
    }
    default:
        return 0;
    }
}

/* Release a block's barrier when every live warp has arrived. */
static void barrier_check(sm_t *sm, sm_block_t *blk, const sm_launch_t *l, uint64_t now)
{
    if (blk->warps_at_bar == 0 || blk->warps_at_bar < blk->warps_live)
        return;
    for (uint32_t i = 0; i < l->warps_per_block; i++) {
        warp_t *w = &sm->warps[blk->first_warp + i];
        if (w->state == WARP_BARRIER) {
            w->state = WARP_READY;
            w->next_issue = now + 1;
            warp_refresh(l, w);
            sched_view(sm, w);
        }
    }
    sm->dirty = 1;
    blk->warps_at_bar = 0;
}

/* Issue warp w's next instruction at cycle now. Returns 1 if its block
 * finished, 0 if not, -1 on a fault. */
static int issue(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, uint64_t now, simt_err_t *err)
{
    sm_block_t *blk = &sm->blocks[w->block_slot];
    uint32_t pc = warp_pc(w);
    const sm_deps_t *d = &l->deps[pc];
    exec_info_t info;
    blk->x.clock = now;
    if (exec_step(&blk->x, w, &info, err) != 0)
        return -1;

    gpu_stats_t *st = l->st;
    st->warp_instrs++;
    st->thread_instrs += warp_popcount(info.mask);
    st->flops += info.flops;
    st->lane_ops[d->unit] += warp_popcount(info.mask);   /* for the power model */
    if (d->unit == UNIT_TENSOR) {
        int tc = power_tc_index((isa_type_t)l->prog->code[pc].type);
        if (tc >= 0)
            st->tc_flops[tc] += info.flops;
    }
    st->divergent_branches += info.diverged;
    l->last_activity = now + 1 > l->last_activity ? now + 1 : l->last_activity;

    sched_t *s = &sm->sched[sched];
    s->unit_free[d->unit] = now + (d->unit == UNIT_TENSOR ? l->tc_interval[d->tc_type]
                                                          : l->issue_interval[d->unit]);
    w->next_issue = now + 1;

    uint64_t ready = now + l->latency[d->unit];
    int from_mem = 0;
    if (d->unit == UNIT_LSU && info.mask && !d->async) {
        uint64_t accepted;
        ready = mem_done(sm, l, now, &info, &accepted);
        from_mem = 1;
        if (accepted > s->unit_free[UNIT_LSU])
            s->unit_free[UNIT_LSU] = accepted;   /* back-pressure from the memory system */
        uint64_t bytes = (uint64_t)warp_popcount(info.mask) * info.bytes * info.parts;
        if (info.space == SPACE_SHARED) {
            if (info.is_store) { st->sst_bytes += bytes; st->sst_requests++; }
            else { st->sld_bytes += bytes; st->sld_requests++; }
        } else {
            if (info.is_store) { st->gst_bytes += bytes; st->gst_requests++; }
            else { st->gld_bytes += bytes; st->gld_requests++; }
            if (info.op == OP_ATOM) { st->gld_bytes += bytes; st->gld_requests++; }   /* reads too */
        }
        if (ready > l->last_activity)
            l->last_activity = ready;
    } else if (d->unit == UNIT_BRANCH) {
        w->next_issue = now + l->latency[UNIT_BRANCH];
    }
    if (s->unit_free[d->unit] > s->busy_until)
        s->busy_until = s->unit_free[d->unit];
    if (d->dst != ISA_NO_REG) {
        /* every register of a range (wmma fragment, ld.v2/.v4) at once */
        for (uint32_t reg = d->dst; reg < (uint32_t)d->dst + d->dst_n; reg++)
            w->reg_ready[reg] = ready;
        if (d->dst_bits) {
            uint64_t m = w->reg_mem.w[d->dst_word];
            w->reg_mem.w[d->dst_word] = from_mem ? m | d->dst_bits : m & ~d->dst_bits;
        } else {
            for (uint32_t reg = d->dst; reg < (uint32_t)d->dst + d->dst_n; reg++)
                warp_set_reg_mem(w, reg, from_mem);
        }
    }
    if (d->pdst != ISA_NO_REG)
        w->pred_ready[d->pdst] = ready;
    if (d->async) {
        int blocked = async_issue(sm, l, sched, w, blk, &l->prog->code[pc], &info, now, err);
        if (blocked < 0)
            return -1;
        warp_refresh(l, w);
        if (blocked)
            w->dep_why = STALL_BARRIER;   /* waits for another warp's arrival or copy */
    } else {
        warp_refresh(l, w);
    }
    w->issued_at = now;
    w->issued_pc = pc;
    if (w->depth != 0 && !info.barrier) {      /* the usual case */
        sched_view_issued(sm, w);
        return 0;
    }
    if (w->depth == 0) {                       /* every lane has exited */
        w->state = WARP_DONE;
        sched_view(sm, w);
        blk->warps_live--;
        cluster_warp_done(l, blk, now);
        if (l->observe) {
            gpu_event_t ev = { .kind = GPU_EV_WARP_END, .cycle = now, .sm = sm->id, .slot = w->slot,
                               .block_slot = w->block_slot, .warp_in_block = w->warp_in_block };
            memcpy(ev.ctaid, blk->ctaid, sizeof ev.ctaid);
            sm_notify(l, &ev);
        }
        if (blk->warps_live == 0) {
            blk->used = 0;
            sm->blocks_used--;
            if (l->observe) {
                gpu_event_t ev = { .kind = GPU_EV_BLOCK_END, .cycle = now, .sm = sm->id,
                                   .slot = w->block_slot, .block_slot = w->block_slot };
                memcpy(ev.ctaid, blk->ctaid, sizeof ev.ctaid);
                sm_notify(l, &ev);
            }
            return 1;
        }
        barrier_check(sm, blk, l, now);
    } else if (info.barrier) {
        w->state = WARP_BARRIER;
        sched_view(sm, w);
        blk->warps_at_bar++;
        barrier_check(sm, blk, l, now);
    }
    return 0;
}

/* ---- one cycle ---------------------------------------------------------- */

/* The warp scheduler si issues at cycle now (sched.h), or NULL. */
static warp_t *schedule(sm_t *sm, sm_launch_t *l, uint32_t si, uint64_t now, int dirty)
{
    sched_t *s = &sm->sched[si];
    /* Nothing this scheduler owns has changed since it last looked and
     * found its earliest warp ready at s->wake: no need to look again.
     * (With the reference, sm_cycle passes dirty every cycle, so it looks
     * every time: the golden tests' [reference] runs check this shortcut.) */
    if (!dirty && !s->issued && s->wake > now)
        return NULL;
    const sched_slot_t *view = &sm->view[si * sm->per_sched];
    int lrr = l->desc->sched == SCHED_LRR;
    uint32_t k = s->reference ? sched_pick_reference(s, view, lrr, now) : sched_pick(s, view, lrr, now);
    if (k == SCHED_NONE)
        return NULL;
    s->last = k * sm->nsched + si;   /* the warp's slot, without touching it yet */
    return &sm->warps[s->last];
}

/* Ask the host CPU to start loading what issuing scheduler si's chosen
 * warp will touch: its first cache line, its stack top, the scoreboard
 * entries and the registers of the instruction at its pc -- all found from
 * the scheduler's view, without reading the warp (that would wait for the
 * first miss). For an H200 the SMs' state is far bigger than the host's
 * caches, so these are mostly misses; started together for all of an SM's
 * schedulers, they overlap instead of coming one by one. A hint only:
 * nothing here changes what the simulation computes. */
static void prefetch_issue(const sm_t *sm, const sm_launch_t *l, uint32_t si)
{
    uint32_t k = sm->sched[si].last_k, slot = sm->sched[si].last;
    const sched_slot_t *v = &sm->view[si * sm->per_sched + k];
    const warp_t *w = &sm->warps[slot];
    const sm_deps_t *d = &l->deps[v->pc];
    const uint32_t *regs = &sm->regfile[(size_t)slot * (l->prog->nregs ? l->prog->nregs : 1) * WARP_SIZE];
    PREFETCH(w);
    PREFETCH(&w->stack[v->depth ? v->depth - 1 : 0]);
    PREFETCH(&w->pred_ready[0]);
    for (uint32_t i = 0; i < d->nregs; i++) {   /* the registers it reads and writes */
        PREFETCH(&w->reg_ready[d->regs[i]]);
        PREFETCH(&regs[(size_t)d->regs[i] * WARP_SIZE]);
        PREFETCH(&regs[(size_t)d->regs[i] * WARP_SIZE + 16]);   /* 128 bytes: two lines */
    }
}

int sm_cycle(sm_t *sm, sm_launch_t *l, uint64_t now, simt_err_t *err)
{
    gpu_stats_t *st = l->st;
    /* cycles skipped since the last evaluation keep their stall reasons */
    if (sm->last_eval < now) {
        uint64_t gap = now - sm->last_eval;
        for (uint32_t s = 0; s < sm->nsched; s++)
            st->stalls[sm->sched[s].issued ? STALL_IDLE : sm->sched[s].reason] += gap;
    }
    int finished = 0;
    uint32_t blocks_before = sm->blocks_used;
    int dirty = sm->dirty | sm->sched_reference;   /* the reference looks every cycle */
    sm->dirty = 0;
    /* Every scheduler chooses first, then the chosen warps issue in
     * scheduler order. (A choice at cycle now depends only on what issued
     * before now: an issue's effects on other warps -- a barrier released,
     * a block finished -- count from now + 1.) */
    warp_t *pick[SM_MAX_SCHEDULERS];
    for (uint32_t s = 0; s < sm->nsched; s++) {
        pick[s] = schedule(sm, l, s, now, dirty);
        if (pick[s])
            prefetch_issue(sm, l, s);
        else
            st->stalls[sm->sched[s].reason]++;
    }
    for (uint32_t s = 0; s < sm->nsched; s++) {
        if (!pick[s])
            continue;
        int r = issue(sm, l, s, pick[s], now, err);
        if (r < 0)
            return -1;
        finished += r;
    }
    sm->last_eval = now + 1;
    /* Anything that changed warp states this cycle (an issue, a barrier
     * release, a finished block) may make a warp ready next cycle. */
    uint64_t next = SM_NEVER;
    int issued_any = 0;
    for (uint32_t s = 0; s < sm->nsched; s++) {
        sched_t *sc = &sm->sched[s];
        if (sc->wake < next)
            next = sc->wake;
        if (sc->issued) {
            issued_any = 1;
            sc->reason = STALL_IDLE;   /* if nothing else happens, it idles in the gap */
        }
    }
    if (issued_any || sm->blocks_used != blocks_before)
        next = now + 1;
    if (sm->blocks_used == 0)
        next = SM_NEVER;
    sm->next_eval = next;
    return finished;
}

void sm_finish(sm_t *sm, sm_launch_t *l, uint64_t end)
{
    if (sm->last_eval < end) {
        uint64_t gap = end - sm->last_eval;
        for (uint32_t s = 0; s < sm->nsched; s++)
            l->st->stalls[sm->sched[s].issued ? STALL_IDLE : sm->sched[s].reason] += gap;
        sm->last_eval = end;
    }
}

void sm_notify(sm_launch_t *l, const gpu_event_t *ev)
{
    if (l->observe && !l->stop && l->observe(l->observe_user, l->run, ev) != 0)
        l->stop = 1;
}

uint8_t sm_warp_status(const sm_t *sm, uint32_t slot, uint64_t now)
{
    const warp_t *w = &sm->warps[slot];
    switch (w->state) {
    case WARP_FREE: return WS_EMPTY;
    case WARP_DONE: return sm->blocks[w->block_slot].used ? WS_DONE : WS_EMPTY;
    case WARP_BARRIER: return WS_BARRIER;
    default: break;
    }
    if (w->issued_at != UINT64_MAX && w->issued_at + 1 >= now)
        return WS_ISSUING;
    uint8_t why;
    uint32_t sched = slot % sm->nsched;
    uint64_t t = warp_ready(sm, w, sched, &why);
    if (t <= now)
        return WS_READY;       /* ready, but its scheduler chose another warp */
    return why == STALL_MEMORY ? WS_MEMORY : why == STALL_PIPE ? WS_PIPE : WS_DEPENDENCY;
}

void sm_describe_warps(const sm_t *sm, const sm_launch_t *l, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < sm->nwarps && used + 1 < n; i++) {
        const warp_t *w = &sm->warps[i];
        if (w->state != WARP_READY && w->state != WARP_BARRIER)
            continue;
        const sm_block_t *b = &sm->blocks[w->block_slot];
        uint32_t pc = warp_pc(w);
        int k = snprintf(buf + used, n - used,
                         "  SM %" PRIu32 " block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") warp %" PRIu32
                         ": pc %" PRIu32 " (line %" PRIu32 ")%s\n",
                         sm->id, b->ctaid[0], b->ctaid[1], b->ctaid[2], w->warp_in_block, pc,
                         pc < l->prog->ncode ? l->prog->code[pc].line : 0,
                         w->state == WARP_BARRIER ? " at bar.sync"
                         : w->next_issue == SM_BLOCKED && sm->async[i].wait_cluster
                             ? " at barrier.cluster (a CTA of its cluster never gets there)"
                         : w->next_issue == SM_BLOCKED ? " after mbarrier.wait (the phase never completes)" : "");
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}
