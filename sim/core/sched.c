/* sched.c - a warp scheduler's choice (sched.h tells the story of a cycle). */
#include "sched.h"

#include "bits.h"
#include "gpu.h"
#include "warp.h"

static inline uint64_t bit(uint32_t k) { return 1ull << k; }
static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Where the scan starts: LRR after the warp it issued last, GTO at 0. */
static inline uint32_t scan_start(const sched_t *s, int lrr)
{
    if (!lrr || s->nslots == 0)
        return 0;
    return s->last_k + 1 == s->nslots ? 0 : s->last_k + 1;
}

/* Why a warp that is ready at max(operands, unit) waits until then. */
static inline uint8_t reason_of(const sched_t *s, const sched_slot_t *v)
{
    return s->unit_free[v->unit] > v->dep_ready ? STALL_PIPE : v->why;
}

/* What sched_pick and the reference do once they chose place k. */
static uint32_t issue_k(sched_t *s, uint32_t k, uint64_t now)
{
    s->issued = 1;
    s->last_k = k;
    s->last_mine = 1;
    s->wake = now + 1;
    return k;
}

/* What they do when nothing can issue until cycle `at` (SCHED_NEVER: no
 * live warp), the first warp ready then being v. */
static uint32_t wait_until(sched_t *s, uint64_t at, const sched_slot_t *v)
{
    s->issued = 0;
    s->wake = at;
    if (at == SCHED_NEVER)
        s->reason = s->at_barrier ? STALL_BARRIER : STALL_IDLE;
    else
        s->reason = reason_of(s, v);
    return SCHED_NONE;
}

/* ---- the reference: look at every warp ----------------------------------- */

uint32_t sched_pick_reference(sched_t *s, const sched_slot_t *view, int lrr, uint64_t now)
{
    /* keep the sets as sched_pick would, so the two may take turns */
    while (s->nsleepers > 0 && s->sleepers[s->nsleepers - 1].ready <= now)
        s->awake |= bit(s->sleepers[--s->nsleepers].k);

    uint32_t n = s->nslots, first = scan_start(s, lrr);
    uint32_t oldest = SCHED_NONE;             /* GTO: the oldest issuable warp  */
    uint32_t first_issuable = SCHED_NONE;     /* LRR: the first issuable in turn */
    uint32_t soonest = SCHED_NONE;            /* none issuable: the first of ... */
    uint64_t soonest_at = SCHED_NEVER;        /* ... the warps issuable soonest */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = first + i < n ? first + i : first + i - n;   /* scan order */
        const sched_slot_t *v = &view[k];
        if (v->state != WARP_READY)             /* not live */
            continue;
        uint64_t at = max64(v->dep_ready, s->unit_free[v->unit]);   /* issuable from cycle at */
        if (at <= now) {
            if (first_issuable == SCHED_NONE)
                first_issuable = k;
            if (oldest == SCHED_NONE || v->age < view[oldest].age)
                oldest = k;
        }
        if (at < soonest_at) {
            soonest_at = at;
            soonest = k;
        }
    }
    if (first_issuable == SCHED_NONE)
        return wait_until(s, soonest_at, soonest == SCHED_NONE ? NULL : &view[soonest]);
    if (lrr)
        return issue_k(s, first_issuable, now);
    int greedy_issuable = s->last_mine && s->last_k < n && view[s->last_k].state == WARP_READY &&
                       max64(view[s->last_k].dep_ready, s->unit_free[view[s->last_k].unit]) <= now;
    return issue_k(s, greedy_issuable ? s->last_k : oldest, now);
}

/* ---- the fast version: sets of warps --------------------------------------- */

/* File place k as asleep until cycle `ready`. The list is kept latest
 * first, so the next to wake is at the end, and a warp that just issued
 * (usually due soon) is filed near it. */
static inline void sleep_until(sched_t *s, uint32_t k, uint64_t ready)
{
    uint32_t i = s->nsleepers++;
    for (; i > 0 && s->sleepers[i - 1].ready < ready; i--)
        s->sleepers[i] = s->sleepers[i - 1];
    s->sleepers[i] = (sched_sleeper_t){ .ready = ready, .k = k };
}

void sched_file(sched_t *s, sched_slot_t *view, uint32_t k, const sched_slot_t *slot)
{
    sched_slot_t *v = &view[k];
    if (s->live & ~s->awake & bit(k)) {           /* out of the sleepers list */
        uint32_t i = 0;
        while (s->sleepers[i].k != k)
            i++;
        for (s->nsleepers--; i < s->nsleepers; i++)
            s->sleepers[i] = s->sleepers[i + 1];
    }
    s->live &= ~bit(k);
    s->awake &= ~bit(k);
    s->at_barrier &= ~bit(k);
    s->by_unit[v->unit] &= ~bit(k);
    *v = *slot;
    if (v->state == WARP_BARRIER)
        s->at_barrier |= bit(k);
    if (v->state != WARP_READY)
        return;
    s->live |= bit(k);
    s->by_unit[v->unit] |= bit(k);
    sleep_until(s, k, v->dep_ready);
}

inline void sched_file_issued(sched_t *s, sched_slot_t *view, uint32_t k, uint64_t dep_ready, uint32_t pc,
                       uint8_t depth, uint8_t unit, uint8_t why)
{
    sched_slot_t *v = &view[k];
    /* Not awake any more: while it issued, the warp was filed anew by
     * sched_file (it reached a barrier or exited, say); take the general way. */
    if (!(s->awake & bit(k))) {
        sched_slot_t slot = *v;
        slot.dep_ready = dep_ready;
        slot.pc = pc;
        slot.depth = depth;
        slot.unit = unit;
        slot.why = why;
        sched_file(s, view, k, &slot);
        return;
    }
    s->awake &= ~bit(k);
    s->by_unit[v->unit] &= ~bit(k);
    s->by_unit[unit] |= bit(k);
    v->dep_ready = dep_ready;
    v->pc = pc;
    v->depth = depth;
    v->unit = unit;
    v->why = why;
    sleep_until(s, k, dep_ready);
}

/* The first place of `set` in scan order: first, first + 1, ..., then
 * 0, 1, ... (set is not empty). */
static inline uint32_t first_in_order(uint64_t set, uint32_t first)
{
    uint64_t after = set & (~0ull << first);      /* places first and up */
    return (uint32_t)bits_lowest64(after ? after : set);
}

/* Nothing can issue now: find the earliest cycle at which some live warp
 * has both its operands and its unit, and of the warps issuable then the
 * first in scan order (wait_until records why it waits). */
static uint32_t next_wake(sched_t *s, const sched_slot_t *view, uint32_t first)
{
    uint64_t best = SCHED_NEVER;  /* the earliest cycle found so far ...     */
    uint64_t tied = 0;            /* ... and the warps ready at it           */
    /* awake warps wait only for their unit */
    for (uint32_t u = 0; u < UNIT_COUNT; u++) {
        uint64_t m = s->awake & s->by_unit[u];
        if (m && s->unit_free[u] <= best) {
            tied = s->unit_free[u] < best ? m : tied | m;
            best = s->unit_free[u];
        }
    }
    /* asleep warps wait for max(operands, unit), in operand order: stop at
     * the first whose operands come after the best so far */
    for (uint32_t i = s->nsleepers; i-- > 0 && s->sleepers[i].ready <= best;) {
        uint32_t k = s->sleepers[i].k;
        uint64_t t = max64(s->unit_free[view[k].unit], view[k].dep_ready);
        if (t <= best) {
            tied = t < best ? bit(k) : tied | bit(k);
            best = t;
        }
    }
    return wait_until(s, best, best == SCHED_NEVER ? NULL : &view[first_in_order(tied, first)]);
}

inline uint32_t sched_pick(sched_t *s, const sched_slot_t *view, int lrr, uint64_t now)
{
    /* wake the warps whose operands are ready by now */
    while (s->nsleepers > 0 && s->sleepers[s->nsleepers - 1].ready <= now)
        s->awake |= bit(s->sleepers[--s->nsleepers].k);
    /* issuable: awake, and their function unit free */
    uint64_t issuable = s->awake;
    if (s->busy_until > now)          /* some unit is still busy */
        for (uint32_t u = 0; u < UNIT_COUNT; u++)
            if (s->unit_free[u] > now)
                issuable &= ~s->by_unit[u];
    uint32_t first = scan_start(s, lrr);
    if (!issuable)
        return next_wake(s, view, first);
    if (lrr)
        return issue_k(s, first_in_order(issuable, first), now);   /* the next issuable warp in turn */
    if (s->last_mine && (issuable & bit(s->last_k)))
        return issue_k(s, s->last_k, now);                         /* GTO: the greedy warp */
    uint32_t k = bits_lowest64(issuable);                           /* GTO: else the oldest */
    for (uint64_t rest = issuable & (issuable - 1); rest; rest &= rest - 1) {
        uint32_t j = bits_lowest64(rest);
        if (view[j].age < view[k].age)
            k = j;
    }
    return issue_k(s, k, now);
}
