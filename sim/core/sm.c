/* sm.c - a streaming multiprocessor: the cycle, issue, and placing blocks
 * in warp and block slots. Read it top-down:
 *
 *   one cycle (sm_cycle, just below):
 *   1. Each warp scheduler picks the warp it issues (sched.h tells that
 *      story and holds the pick, in a fast version and a plain reference).
 *      A scheduler sees its warps through a small copy per warp (the view);
 *      sm_sched_view refreshes it whenever a warp's state or readiness
 *      changes.
 *   2. The chosen warps issue in scheduler order (issue): exec_step computes
 *      the real result now, and the scoreboard records when it will be
 *      visible (now + unit latency, or when the memory system delivers a
 *      load); the unit is busy for its issue interval.
 *   3. A scheduler that issues nothing counts a cycle of its stall reason,
 *      so that every scheduler-cycle is accounted for.
 *   Cycles in which no scheduler could issue are skipped: the SM's next
 *   evaluation is the earliest cycle any of its warps can become ready.
 *
 *   issue: one instruction of one warp, its timing and statistics, and
 *     bar.sync; asynchronous instructions (bulk copies, mbarriers, wgmma,
 *     clusters) are timed by sm_async.c (sm_async.h).
 *   readiness: when a warp's next instruction has its operands.
 *   placement: the SM's host memory, and a block placed in free slots.
 *   questions the window and the run loop ask (sm_warp_status, ...).
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
#include "sm_async.h"

/* The warp scheduler (sched.h) is compiled as part of this file, so that
 * the compiler can inline its pick into sm_cycle: as a separate object it
 * costs the simulator ~3% more host instructions (callgrind). */
#include "sched.c"

/* A hint to the host CPU to start loading the cache line at p (no effect
 * on results; nothing on compilers without the builtin). */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

static int issue(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, uint64_t now, simt_err_t *err);
static void sched_view_issued(sm_t *sm, uint32_t si, const warp_t *w);
static inline void warp_refresh(const sm_launch_t *l, warp_t *w);
static uint64_t mem_done(sm_t *sm, sm_launch_t *l, uint64_t now, const exec_info_t *info, uint64_t *accepted);
static uint64_t mem_part(sm_t *sm, sm_launch_t *l, uint64_t now, const exec_info_t *info,
                         uint32_t part, uint64_t *accepted);
static void barrier_check(sm_t *sm, sm_block_t *blk, const sm_launch_t *l, uint64_t now);
static inline void count_instr(sm_launch_t *l, const sm_deps_t *d, uint32_t pc, const exec_info_t *info,
                               uint64_t now);
static inline uint64_t issue_timing(sm_t *sm, sm_launch_t *l, sched_t *s, warp_t *w, const sm_deps_t *d,
                                    const exec_info_t *info, uint64_t now);
static inline void count_mem(gpu_stats_t *st, const exec_info_t *info);
static inline void scoreboard_write(warp_t *w, const sm_deps_t *d, uint64_t ready, int from_mem);
static int warp_exit(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, uint64_t now);
static inline warp_t *schedule(sm_t *sm, uint32_t si, uint64_t now, int dirty, int lrr, int ref);
static void prefetch_issue(const sm_t *sm, const sm_launch_t *l, uint32_t si);

/* ---- one cycle ---------------------------------------------------------- */

/* One cycle of the SM (the story at the top of this file). */
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
    int ref = sm->sched_reference, lrr = sm->sched_lrr;
    int dirty = sm->dirty | ref;   /* the reference looks every cycle */
    sm->dirty = 0;
    /* Every scheduler chooses first, then the chosen warps issue in
     * scheduler order. (A choice at cycle now depends only on what issued
     * before now: an issue's effects on other warps -- a barrier released,
     * a block finished -- count from now + 1.) */
    warp_t *pick[SM_MAX_SCHEDULERS];
    for (uint32_t s = 0; s < sm->nsched; s++) {
        pick[s] = schedule(sm, s, now, dirty, lrr, ref);
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

/* The warp scheduler si issues at cycle now (sched.h), or NULL. lrr and
 * ref: the SM's policy and whether it picks with the reference, read once
 * per cycle by sm_cycle. */
static inline warp_t *schedule(sm_t *sm, uint32_t si, uint64_t now, int dirty, int lrr, int ref)
{
    sched_t *s = &sm->sched[si];
    /* Nothing this scheduler owns has changed since it last looked and
     * found its earliest warp ready at s->wake: no need to look again.
     * (With the reference, sm_cycle passes dirty every cycle, so it looks
     * every time: the golden tests' [reference] runs check this shortcut.) */
    if (!dirty && !s->issued && s->wake > now)
        return NULL;
    const sched_slot_t *view = &sm->view[si * sm->per_sched];
    uint32_t k = ref ? sched_pick_reference(s, view, lrr, now) : sched_pick(s, view, lrr, now);
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

void sm_finish(sm_t *sm, sm_launch_t *l, uint64_t end)
{
    if (sm->last_eval < end) {
        uint64_t gap = end - sm->last_eval;
        for (uint32_t s = 0; s < sm->nsched; s++)
            l->st->stalls[sm->sched[s].issued ? STALL_IDLE : sm->sched[s].reason] += gap;
        sm->last_eval = end;
    }
}

/* ---- issue ---------------------------------------------------------------- */

/* Issue warp w's next instruction at cycle now. Returns 1 if its block
 * finished, 0 if not, -1 on a fault. */
static int issue(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, uint64_t now, simt_err_t *err)
{
    sm_block_t *blk = &sm->blocks[w->block_slot];
    uint32_t pc = warp_pc(w);
    const sm_deps_t *d = &l->deps[pc];
    exec_info_t info;
    blk->x.clock = now;
    if (exec_step(&blk->x, w, &info, err) != 0)   /* the real result, now */
        return -1;
    count_instr(l, d, pc, &info, now);
    uint64_t ready = issue_timing(sm, l, &sm->sched[sched], w, d, &info, now);
    scoreboard_write(w, d, ready, d->unit == UNIT_LSU && info.mask && !d->async);
    if (d->async) {
        int blocked = sm_async_issue(sm, l, sched, w, blk, &l->prog->code[pc], &info, now, err);
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
        sched_view_issued(sm, sched, w);
        return 0;
    }
    if (w->depth == 0)                         /* every lane has exited */
        return warp_exit(sm, l, w, blk, now);
    w->state = WARP_BARRIER;                   /* bar.sync */
    sm_sched_view(sm, w);
    blk->warps_at_bar++;
    barrier_check(sm, blk, l, now);
    return 0;
}

/* The statistics of one issued instruction (d, at pc; its lanes in info). */
static inline void count_instr(sm_launch_t *l, const sm_deps_t *d, uint32_t pc, const exec_info_t *info,
                               uint64_t now)
{
    gpu_stats_t *st = l->st;
    st->warp_instrs++;
    st->thread_instrs += warp_popcount(info->mask);
    st->flops += info->flops;
    st->lane_ops[d->unit] += warp_popcount(info->mask);   /* for the power model */
    if (d->unit == UNIT_TENSOR) {
        int tc = power_tc_index((isa_type_t)l->prog->code[pc].type);
        if (tc >= 0)
            st->tc_flops[tc] += info->flops;
    }
    st->divergent_branches += info->diverged;
    l->last_activity = now + 1 > l->last_activity ? now + 1 : l->last_activity;
}

/* The function unit of scheduler s is busy for the instruction's issue
 * interval, and w may issue again next cycle (a branch: after its
 * latency). Returns when its result is ready: after the unit's latency,
 * or for a load or store when the memory system is done with it. */
static inline uint64_t issue_timing(sm_t *sm, sm_launch_t *l, sched_t *s, warp_t *w, const sm_deps_t *d,
                                    const exec_info_t *info, uint64_t now)
{
    s->unit_free[d->unit] = now + (d->unit == UNIT_TENSOR ? l->tc_interval[d->tc_type]
                                                          : l->issue_interval[d->unit]);
    w->next_issue = now + 1;
    uint64_t ready = now + l->latency[d->unit];
    if (d->unit == UNIT_LSU && info->mask && !d->async) {
        uint64_t accepted;
        ready = mem_done(sm, l, now, info, &accepted);
        if (accepted > s->unit_free[UNIT_LSU])
            s->unit_free[UNIT_LSU] = accepted;   /* back-pressure from the memory system */
        count_mem(l->st, info);
        if (ready > l->last_activity)
            l->last_activity = ready;
    } else if (d->unit == UNIT_BRANCH) {
        w->next_issue = now + l->latency[UNIT_BRANCH];
    }
    if (s->unit_free[d->unit] > s->busy_until)
        s->busy_until = s->unit_free[d->unit];
    return ready;
}

/* The bytes and requests of one load, store or atomic. */
static inline void count_mem(gpu_stats_t *st, const exec_info_t *info)
{
    uint64_t bytes = (uint64_t)warp_popcount(info->mask) * info->bytes * info->parts;
    if (info->space == SPACE_SHARED) {
        if (info->is_store) { st->sst_bytes += bytes; st->sst_requests++; }
        else { st->sld_bytes += bytes; st->sld_requests++; }
    } else {
        if (info->is_store) { st->gst_bytes += bytes; st->gst_requests++; }
        else { st->gld_bytes += bytes; st->gld_requests++; }
        if (info->op == OP_ATOM) { st->gld_bytes += bytes; st->gld_requests++; }   /* reads too */
    }
}

/* The scoreboard: the instruction's destination registers and predicate
 * are ready at `ready`; from_mem marks registers a load writes (a warp
 * waiting for them stalls on memory, not on arithmetic). */
static inline void scoreboard_write(warp_t *w, const sm_deps_t *d, uint64_t ready, int from_mem)
{
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
}

/* Every lane of warp w (of blk) has exited. Returns 1 if that finished
 * its block, else 0. */
static int warp_exit(sm_t *sm, sm_launch_t *l, warp_t *w, sm_block_t *blk, uint64_t now)
{
    w->state = WARP_DONE;
    sm_sched_view(sm, w);
    blk->warps_live--;
    sm_cluster_warp_done(l, blk, now);
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
    return 0;
}

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
            sm_sched_view(sm, w);
        }
    }
    sm->dirty = 1;
    blk->warps_at_bar = 0;
}

/* ---- readiness ------------------------------------------------------------ */

/* Recompute when warp w's next instruction has its operands: the latest
 * ready cycle of every register and predicate it reads or writes (a write
 * must wait for an earlier pending write to the same register). Only this
 * warp's own issues change its scoreboard, so the result is cached in the
 * warp until it issues again. */
static inline void warp_refresh(const sm_launch_t *l, warp_t *w)
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

/* warp_refresh for sm_async.c (issue calls the inline one). */
void sm_warp_refresh(const sm_launch_t *l, warp_t *w)
{
    warp_refresh(l, w);
}

/* Give warp w's scheduler its new view of w (sched.h): called after every
 * change of the warp's state, readiness or age. */
void sm_sched_view(sm_t *sm, const warp_t *w)
{
    uint32_t si = w->slot % sm->nsched;
    sched_slot_t v = {
        .dep_ready = w->dep_ready, .age = w->age, .pc = w->depth ? warp_pc(w) : 0,
        .depth = (uint8_t)w->depth, .state = w->state, .unit = w->unit, .why = w->dep_why,
    };
    sched_file(&sm->sched[si], &sm->view[si * sm->per_sched], w->slot / sm->nsched, &v);
}

/* sm_sched_view after warp w issued on scheduler si and stays live (its
 * common case): w is that scheduler's last pick, at its place last_k. */
static void sched_view_issued(sm_t *sm, uint32_t si, const warp_t *w)
{
    if (w->state != WARP_READY) {
        sm_sched_view(sm, w);
        return;
    }
    sched_t *s = &sm->sched[si];
    sched_file_issued(s, &sm->view[si * sm->per_sched], s->last_k, w->dep_ready,
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

/* ---- placement ------------------------------------------------------------ */

/* Decoding: what the scoreboard and the schedulers need of each
 * instruction, once per program (sm_deps_t). */
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
            d->dst = ISA_NO_REG;  /* D is timed by the Tensor Core queue (sm_async.c) */
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
    sm->sched_reference = l->desc->sched_reference != 0;
    sm->sched_lrr = l->desc->sched == SCHED_LRR;
    for (uint32_t s = 0; s < sm->nsched; s++) {
        sm->sched[s].sleepers = (sched_sleeper_t *)(m + y.sleepers) + (size_t)s * sm->per_sched;
        sm->sched[s].reason = STALL_IDLE;
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
        sm_sched_view(sm, w);
    }
    sm->blocks_used++;
    sm->dirty = 1;
    if (sm->next_eval > now)
        sm->next_eval = now;
    return (int)b;
}

/* ---- questions from the run loop and the window --------------------------- */

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

