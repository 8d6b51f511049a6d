/* sched.h - a warp scheduler: which of its warps issues this cycle.
 *
 * The story of one cycle. An SM has 4 sub-partitions, each with one warp
 * scheduler that owns every 4th warp slot (slot s belongs to scheduler
 * s % 4). Each cycle every scheduler may issue one instruction of one warp.
 * A warp can issue ("is issuable") when
 *   - it is live: it has work and is not waiting at a barrier (its state is
 *     WARP_READY: "ready" there means live, not "can issue"),
 *   - its operands are ready: the scoreboard says the registers its next
 *     instruction reads (and writes) are no longer waiting for an earlier
 *     instruction's result (dep_ready <= now), and
 *   - the function unit its instruction needs (FMA, ALU, SFU, LSU, Tensor
 *     Core, ...) accepts a new instruction this cycle (unit_free <= now).
 * Of the warps that can, the policy picks one:
 *   - LRR, loose round robin: the next one in turn after the warp it issued
 *     last (scan order: places last+1, last+2, ..., then 0, 1, ...); "loose"
 *     because a warp that cannot issue loses its turn instead of holding
 *     up the others;
 *   - GTO, greedy then oldest: the warp it issued last, as long as that one
 *     can go on; else the oldest (the first placed on the SM). Its scan
 *     order, used only to break ties for the stall reason, starts at 0.
 * If no warp can, the scheduler works out when one will (the earliest
 * max(dep_ready, unit_free) over its live warps) and why the first of them
 * in scan order waits: for an operand from memory (STALL_MEMORY), from
 * arithmetic (STALL_DEPENDENCY), for its unit (STALL_PIPE); with no live
 * warp, the barrier (STALL_BARRIER) or nothing (STALL_IDLE). That reason is
 * what the statistics count for every cycle the scheduler does not issue.
 *
 * Two implementations of the same choice:
 *   sched_pick_reference scans every warp, exactly as the story says. Read
 *     it first.
 *   sched_pick is what the simulator runs: the same answer from sets of
 *     warps kept as bit masks (live, awake = operands ready, by_unit) and a
 *     list of sleeping warps sorted by the cycle their operands arrive, so a
 *     pick costs a few mask operations instead of a look at every warp.
 * tests/unit/test_sched.c drives both with random warp states and asserts
 * the same pick, wake-up cycle and reason; `sched_reference = 1` (a GPU
 * field) makes the simulator use the reference, and the golden cycle tests
 * run with it too and must give identical statistics.
 *
 * Names: a scheduler calls its warps by their place k in its own part of
 * the SM's view (warp slot k * nsched + s); the view holds a small copy of
 * what the scheduler looks at of each warp (sched_slot_t), refreshed by
 * sched_file whenever the warp changes. Three words for three sets:
 * live (state WARP_READY), awake (live, operands ready: dep_ready <= now)
 * and issuable (awake, and its unit free: unit_free <= now).
 *
 * Who keeps what: this file keeps the sets, last_k, last_mine, issued,
 * wake and reason. The SM (sm.c) keeps unit_free[] and busy_until (when it
 * issues an instruction to a unit), last (the issued warp's slot), tc_free
 * (sm_async.c, wgmma) and a slot's pc and depth (for its instruction
 * prefetch); this file only reads them.
 */
#ifndef SIMT_SCHED_H
#define SIMT_SCHED_H

#include <stdint.h>

#include "isa.h"

#define SCHED_NEVER UINT64_MAX
#define SCHED_MAX_WARPS 64   /* warps per scheduler: one bit each in the masks */
#define SCHED_NONE UINT32_MAX

/* What a scheduler looks at of one warp: a copy of the warp's fields, kept
 * apart from warp_t (which is large) so that looking at a scheduler's warps
 * touches a few cache lines. */
typedef struct sched_slot {
    uint64_t dep_ready;           /* cycle its next instruction's operands are ready */
    uint64_t age;                 /* placement order: lower is older         */
    uint32_t pc;                  /* its next instruction (0 when done)      */
    uint8_t depth;                /* its SIMT stack depth (for prefetching)  */
    uint8_t state;                /* warp_state_t (warp.h)                   */
    uint8_t unit;                 /* isa_unit_t its next instruction needs   */
    uint8_t why;                  /* gpu_stall_t while it waits for operands:
                                     the SM (warp_refresh) sets STALL_MEMORY
                                     when the last register to arrive comes
                                     from a load, else STALL_DEPENDENCY */
} sched_slot_t;

/* A warp waiting for its operands: when they are ready, and its place k. */
typedef struct sched_sleeper {
    uint64_t ready;
    uint32_t k;
} sched_sleeper_t;

/* One warp scheduler. The sets are bit masks over the places k. */
typedef struct sched {
    uint32_t last;                /* the SM's: slot of the warp it issued last */
    uint32_t last_k;              /* place k of the warp this scheduler issued
                                     last (LRR: the turn; GTO: the greedy one) */
    uint8_t last_mine;            /* last_k holds a warp: set by its first
                                     issue (scheduler 0 starts with place 0) */
    /* Every scheduler starts with last_k = 0: LRR's first scan starts at
     * place 1 and wraps round to 0, as if place 0 had just issued; GTO's
     * first greedy warp is place 0 on scheduler 0 (last_mine) and the
     * oldest on the others. The golden cycle counts fix this start. */
    uint32_t nslots;              /* warp places it owns                     */
    uint64_t unit_free[UNIT_COUNT]; /* first cycle each unit accepts again   */
    uint64_t busy_until;          /* the latest of unit_free[] (kept by sm.c) */
    uint64_t wake;                /* earliest cycle a warp may be ready      */
    uint64_t tc_free;             /* its Tensor Core's wgmma queue is free
                                     (sm_async.c: a wgmma waits for it; the
                                     pick does not read it)                 */
    uint8_t reason;               /* gpu_stall_t while it cannot issue       */
    uint8_t issued;               /* issued at its last evaluation           */
    uint64_t live;                /* live warps: state WARP_READY            */
    uint64_t at_barrier;          /* warps in state WARP_BARRIER             */
    uint64_t awake;               /* live warps whose operands are ready     */
    uint64_t by_unit[UNIT_COUNT]; /* live warps whose next instruction goes
                                     to each function unit                  */
    sched_sleeper_t *sleepers;    /* the other live warps, latest first     */
    uint32_t nsleepers;
} sched_t;

/* Store *slot as place k's new view and file the warp in s's sets: live or
 * at a barrier, and awake or asleep until slot.dep_ready. Call after every
 * change of the warp's state, readiness or age. */
void sched_file(sched_t *s, sched_slot_t *view, uint32_t k, const sched_slot_t *slot);

/* sched_file after place k issued an instruction and stays live (its
 * common case, a little quicker): it was awake and now sleeps until
 * dep_ready. `unit` and `why` are its next instruction's. */
void sched_file_issued(sched_t *s, sched_slot_t *view, uint32_t k, uint64_t dep_ready, uint32_t pc,
                       uint8_t depth, uint8_t unit, uint8_t why);

/* The warp scheduler s issues at cycle now (its place k), or SCHED_NONE.
 * lrr: the policy is loose round robin (else greedy then oldest). Sets
 * s->issued and s->wake; on a pick s->last_k and s->last_mine (the caller
 * sets s->last, the warp's slot), else s->reason. */
uint32_t sched_pick(sched_t *s, const sched_slot_t *view, int lrr, uint64_t now);

/* The same answer by looking at every warp (the readable version). */
uint32_t sched_pick_reference(sched_t *s, const sched_slot_t *view, int lrr, uint64_t now);

#endif
