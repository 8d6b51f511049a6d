/* test_sched.c - the warp scheduler's pick (sched.h): the fast pick and the
 * plain reference agree on random warp states, and a few hand-made cases
 * say what each policy must choose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpu.h"
#include "sched.h"
#include "warp.h"

/* A scheduler with its own view and sleepers list. */
typedef struct fixture {
    sched_t s;
    sched_slot_t view[SCHED_MAX_WARPS];
    sched_sleeper_t sleepers[SCHED_MAX_WARPS];
} fixture_t;

static void fixture_init(fixture_t *f, uint32_t nslots)
{
    memset(f, 0, sizeof *f);
    f->s.sleepers = f->sleepers;
    f->s.nslots = nslots;
    f->s.reason = STALL_IDLE;
    for (uint32_t k = 0; k < nslots; k++)
        f->view[k].state = WARP_FREE;
}

/* A deep copy (the sleepers list lives in the fixture). */
static void fixture_copy(fixture_t *to, const fixture_t *from)
{
    *to = *from;
    to->s.sleepers = to->sleepers;
}

static void file(fixture_t *f, uint32_t k, uint8_t state, uint64_t dep_ready, uint64_t age, uint8_t unit,
                 uint8_t why)
{
    sched_slot_t v = { .dep_ready = dep_ready, .age = age, .pc = 1, .depth = 1, .state = state, .unit = unit,
                       .why = why };
    sched_file(&f->s, f->view, k, &v);
}

static void set_unit_free(fixture_t *f, uint32_t u, uint64_t t)
{
    f->s.unit_free[u] = t;
    if (t > f->s.busy_until)
        f->s.busy_until = t;
}

/* xorshift64*: the same sequence on every machine */
static uint64_t rnd(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1Dull;
}

/* Both picks on copies of the same state: the same warp, the same wake-up
 * cycle and reason, the same greedy warp afterwards. */
static void assert_same_pick(const fixture_t *f, int lrr, uint64_t now)
{
    fixture_t a, b;
    fixture_copy(&a, f);
    fixture_copy(&b, f);
    uint32_t ka = sched_pick(&a.s, a.view, lrr, now);
    uint32_t kb = sched_pick_reference(&b.s, b.view, lrr, now);
    assert_int_equal(ka, kb);
    assert_int_equal(a.s.issued, b.s.issued);
    assert_int_equal(a.s.wake, b.s.wake);
    assert_int_equal(a.s.last_k, b.s.last_k);
    assert_int_equal(a.s.last_mine, b.s.last_mine);
    if (ka == SCHED_NONE)
        assert_int_equal(a.s.reason, b.s.reason);
    /* and the sets stay the same, so the two may take turns */
    assert_int_equal(a.s.awake, b.s.awake);
    assert_int_equal(a.s.nsleepers, b.s.nsleepers);
}

static void test_random_states_same_pick(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    static const uint8_t whys[] = { STALL_MEMORY, STALL_DEPENDENCY, STALL_BARRIER };
    uint32_t picks = 0, waits = 0;
    for (int trial = 0; trial < 20000; trial++) {
        fixture_t f;
        uint32_t n = 1 + (uint32_t)(rnd(&x) % SCHED_MAX_WARPS);
        fixture_init(&f, n);
        uint64_t now = 100;
        for (uint32_t u = 0; u < UNIT_COUNT; u++)
            set_unit_free(&f, u, rnd(&x) % 3 ? 0 : now - 2 + rnd(&x) % 8);
        /* ages: a random order of placement */
        uint64_t ages[SCHED_MAX_WARPS];
        for (uint32_t k = 0; k < n; k++)
            ages[k] = k;
        for (uint32_t k = n; k-- > 1;) {
            uint32_t j = (uint32_t)(rnd(&x) % (k + 1));
            uint64_t t = ages[k];
            ages[k] = ages[j];
            ages[j] = t;
        }
        for (uint32_t k = 0; k < n; k++) {
            uint32_t r = (uint32_t)(rnd(&x) % 10);
            uint8_t st = r < 7 ? WARP_READY : r < 9 ? WARP_BARRIER : WARP_DONE;
            /* few distinct cycles, so that ties happen */
            uint64_t dep = now - 3 + rnd(&x) % 9;
            file(&f, k, st, dep, ages[k], (uint8_t)(rnd(&x) % UNIT_COUNT), whys[rnd(&x) % 2]);
        }
        /* refile a few: a warp that issued, one that went to a barrier */
        for (int i = 0; i < 3; i++) {
            uint32_t k = (uint32_t)(rnd(&x) % n);
            file(&f, k, f.view[k].state, now - 3 + rnd(&x) % 9, f.view[k].age, f.view[k].unit, whys[i % 3]);
        }
        f.s.last_k = (uint32_t)(rnd(&x) % n);
        f.s.last_mine = (uint8_t)(rnd(&x) % 2);
        for (int lrr = 0; lrr <= 1; lrr++) {
            assert_same_pick(&f, lrr, now);
            /* and a few cycles later, after some warps woke up */
            assert_same_pick(&f, lrr, now + 1 + rnd(&x) % 4);
        }
        fixture_t g;
        fixture_copy(&g, &f);
        if (sched_pick(&g.s, g.view, 0, now) == SCHED_NONE)
            waits++;
        else
            picks++;
    }
    /* the states cover both outcomes */
    assert_true(picks > 1000);
    assert_true(waits > 1000);
}

/* GTO keeps issuing the greedy warp while it can, then the oldest. */
static void test_gto_greedy_then_oldest(void **state)
{
    (void)state;
    fixture_t f;
    fixture_init(&f, 4);
    file(&f, 0, WARP_READY, 0, 30, UNIT_FMA, STALL_DEPENDENCY);
    file(&f, 1, WARP_READY, 0, 10, UNIT_FMA, STALL_DEPENDENCY);   /* the oldest */
    file(&f, 2, WARP_READY, 0, 20, UNIT_FMA, STALL_DEPENDENCY);
    f.s.last_k = 2;
    f.s.last_mine = 1;
    fixture_t a;
    fixture_copy(&a, &f);
    assert_int_equal(sched_pick(&a.s, a.view, 0, 5), 2);             /* greedy */
    fixture_copy(&a, &f);
    assert_int_equal(sched_pick_reference(&a.s, a.view, 0, 5), 2);
    file(&f, 2, WARP_READY, 9, 20, UNIT_FMA, STALL_MEMORY);           /* the greedy warp waits */
    fixture_copy(&a, &f);
    assert_int_equal(sched_pick(&a.s, a.view, 0, 5), 1);             /* then the oldest */
    fixture_copy(&a, &f);
    assert_int_equal(sched_pick_reference(&a.s, a.view, 0, 5), 1);
}

/* LRR takes the next ready warp after the one it issued last, wrapping. */
static void test_lrr_in_turn(void **state)
{
    (void)state;
    fixture_t f;
    fixture_init(&f, 4);
    for (uint32_t k = 0; k < 4; k++)
        file(&f, k, k == 2 ? WARP_BARRIER : WARP_READY, 0, k, UNIT_ALU, STALL_DEPENDENCY);
    f.s.last_k = 1;
    f.s.last_mine = 1;
    fixture_t a;
    fixture_copy(&a, &f);
    assert_int_equal(sched_pick(&a.s, a.view, 1, 5), 3);   /* 2 is at the barrier */
    f.s.last_k = 3;
    fixture_copy(&a, &f);
    assert_int_equal(sched_pick(&a.s, a.view, 1, 5), 0);   /* wraps around */
    fixture_copy(&a, &f);
    assert_int_equal(sched_pick_reference(&a.s, a.view, 1, 5), 0);
}

/* Nothing ready: the wake-up cycle is the earliest max(operands, unit),
 * and the reason is the first such warp's. */
static void test_wait_reason(void **state)
{
    (void)state;
    fixture_t f;
    fixture_init(&f, 3);
    file(&f, 0, WARP_READY, 20, 0, UNIT_FMA, STALL_MEMORY);     /* operands at 20 */
    file(&f, 1, WARP_READY, 2, 1, UNIT_SFU, STALL_DEPENDENCY);  /* operands now, SFU at 12 */
    file(&f, 2, WARP_BARRIER, 0, 2, UNIT_ALU, STALL_DEPENDENCY);
    set_unit_free(&f, UNIT_SFU, 12);
    for (int ref = 0; ref <= 1; ref++) {
        fixture_t a;
        fixture_copy(&a, &f);
        uint32_t k = ref ? sched_pick_reference(&a.s, a.view, 0, 5) : sched_pick(&a.s, a.view, 0, 5);
        assert_int_equal(k, SCHED_NONE);
        assert_int_equal(a.s.wake, 12);
        assert_int_equal(a.s.reason, STALL_PIPE);
    }
    /* only the barrier warp left: it waits at the barrier, for ever */
    file(&f, 0, WARP_DONE, 0, 0, UNIT_FMA, STALL_DEPENDENCY);
    file(&f, 1, WARP_DONE, 0, 1, UNIT_SFU, STALL_DEPENDENCY);
    for (int ref = 0; ref <= 1; ref++) {
        fixture_t a;
        fixture_copy(&a, &f);
        uint32_t k = ref ? sched_pick_reference(&a.s, a.view, 0, 5) : sched_pick(&a.s, a.view, 0, 5);
        assert_int_equal(k, SCHED_NONE);
        assert_true(a.s.wake == SCHED_NEVER);
        assert_int_equal(a.s.reason, STALL_BARRIER);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_states_same_pick),
        cmocka_unit_test(test_gto_greedy_then_oldest),
        cmocka_unit_test(test_lrr_in_turn),
        cmocka_unit_test(test_wait_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
