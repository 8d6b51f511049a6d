/* test_warp.c - the SIMT reconvergence stack (warp.h), driven by hand.
 *
 * Each test lays out a small program as a list of pcs in a comment, then
 * plays the warp through it with warp_advance / warp_branch /
 * warp_exit_lanes the way exec_step would, checking pc, active mask and
 * stack depth after every step.
 *
 * Depths follow the classic post-dominator stack (Fung et al.): a split
 * turns the current entry into the waiting point at the reconvergence pc
 * and pushes one entry per path that does not start at that pc, so a
 * divergent if/else is 3 deep while its first path runs and 2 deep while
 * its second path runs. The taken path runs first (warp.c's documented
 * order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "warp.h"

#define ALL 0xFFFFFFFFu
#define LO16 0x0000FFFFu
#define HI16 0xFFFF0000u

static uint32_t regs[8 * WARP_SIZE];
static uint64_t ready[8];   /* their scoreboard */

/* Check the executing path: pc, lanes and depth in one line. */
static void expect(const warp_t *w, uint32_t pc, uint32_t mask, uint32_t depth)
{
    if (warp_pc(w) != pc || warp_mask(w) != mask || w->depth != depth)
        fail_msg("expected pc %u mask 0x%08x depth %u, got pc %u mask 0x%08x depth %u",
                 (unsigned)pc, (unsigned)mask, (unsigned)depth,
                 (unsigned)warp_pc(w), (unsigned)warp_mask(w), (unsigned)w->depth);
}

static void start(warp_t *w, uint32_t lanes)
{
    memset(w, 0, sizeof *w);
    warp_start(w, regs, ready, 8, lanes);
}

static void test_start_masks(void **state)
{
    (void)state;
    warp_t w;
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        regs[i] = 0xDEADBEEFu;
    for (size_t i = 0; i < 8; i++)
        ready[i] = 12345;
    memset(&w, 0xA5, sizeof w);       /* leftovers of an earlier block */
    warp_start(&w, regs, ready, 8, 1);
    expect(&w, 0, 0x1u, 1);
    assert_int_equal(w.live, 0x1u);
    assert_int_equal(w.state, WARP_READY);
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        assert_int_equal(regs[i], 0);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(ready[i], 0);
    assert_ptr_equal(w.reg_ready, ready);
    for (int p = 0; p < ISA_NUM_PREDS; p++)
        assert_int_equal(w.preds[p], 0);

    start(&w, 31);
    expect(&w, 0, 0x7FFFFFFFu, 1);
    assert_int_equal(w.live, 0x7FFFFFFFu);
    start(&w, 32);
    expect(&w, 0, ALL, 1);
    assert_int_equal(w.live, ALL);
    start(&w, 5);
    expect(&w, 0, 0x1Fu, 1);
}

/* A uniform branch never pushes: all lanes jump, or all fall through. */
static void test_uniform_branch(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    warp_advance(&w, 3);
    expect(&w, 3, ALL, 1);
    assert_int_equal(warp_branch(&w, ALL, 10, 12), 0);       /* all taken */
    expect(&w, 10, ALL, 1);
    assert_int_equal(warp_branch(&w, 0, 2, 11), 0);          /* none taken */
    expect(&w, 11, ALL, 1);

    /* a partial warp: "all" means all of its live lanes */
    start(&w, 7);
    assert_int_equal(warp_branch(&w, 0x7Fu, 9, 4), 0);
    expect(&w, 9, 0x7Fu, 1);
}

/*   0 setp
 *   1 @p bra ELSE        reconv 6
 *   2   then
 *   3   bra END
 *   4 ELSE: else
 *   5   else
 *   6 END: ...
 *   7 exit                                                            */
static void test_if_else_reconverges(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    warp_advance(&w, 1);
    expect(&w, 1, ALL, 1);
    assert_int_equal(warp_branch(&w, LO16, 4, 6), 1);
    expect(&w, 4, LO16, 3);                  /* taken path first */
    warp_advance(&w, 5);
    expect(&w, 5, LO16, 3);
    warp_advance(&w, 6);                     /* taken path reaches reconv */
    expect(&w, 2, HI16, 2);
    warp_advance(&w, 3);
    expect(&w, 3, HI16, 2);
    assert_int_equal(warp_branch(&w, HI16, 6, 4), 0);    /* bra END: uniform */
    expect(&w, 6, ALL, 1);
    warp_advance(&w, 7);
    expect(&w, 7, ALL, 1);
    warp_exit_lanes(&w, ALL);
    assert_int_equal(w.depth, 0);
    assert_int_equal(w.live, 0);
    assert_int_equal(warp_mask(&w), 0);
    assert_int_equal(warp_pc(&w), ISA_NO_PC);
}

/*   0 @p bra END         reconv 3   (if without else: target == reconv)
 *   1   body
 *   2   body
 *   3 END:                                                            */
static void test_if_without_else(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    assert_int_equal(warp_branch(&w, 0xF0F0F0F0u, 3, 3), 1);
    expect(&w, 1, 0x0F0F0F0Fu, 2);           /* only the body path runs */
    warp_advance(&w, 2);
    expect(&w, 2, 0x0F0F0F0Fu, 2);
    warp_advance(&w, 3);
    expect(&w, 3, ALL, 1);
}

/*   0 @p0 bra OUTER_ELSE     reconv 12
 *   1   @p1 bra IN_ELSE      reconv 6
 *   2     a
 *   3     bra IN_END
 *   4   IN_ELSE: b
 *   5     b
 *   6   IN_END: c
 *   7   bra END
 *   8 OUTER_ELSE: d
 *   9 .. 11 d
 *  12 END:                                                            */
static void test_nested_divergence(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    assert_int_equal(warp_branch(&w, HI16, 8, 12), 1);
    expect(&w, 8, HI16, 3);                  /* outer else (taken) first */
    warp_advance(&w, 9);
    warp_advance(&w, 10);
    warp_advance(&w, 11);
    expect(&w, 11, HI16, 3);
    warp_advance(&w, 12);
    expect(&w, 1, LO16, 2);                  /* outer then-path */
    /* inner split of lanes 0..15: 0..7 taken */
    assert_int_equal(warp_branch(&w, 0x00FFu, 4, 6), 1);
    expect(&w, 4, 0x00FFu, 4);
    warp_advance(&w, 5);
    warp_advance(&w, 6);
    expect(&w, 2, 0xFF00u, 3);
    warp_advance(&w, 3);
    assert_int_equal(warp_branch(&w, 0xFF00u, 6, 6), 0);
    expect(&w, 6, LO16, 2);                  /* inner reconverged, outer not yet */
    warp_advance(&w, 7);
    assert_int_equal(warp_branch(&w, LO16, 12, 12), 0);
    expect(&w, 12, ALL, 1);
}

/*   0 LOOP: body
 *   1   setp
 *   2   @p bra LOOP      reconv 3
 *   3 after
 * Lane l runs the body l + 1 times: one lane leaves per iteration. */
static void test_loop_lanes_leave_one_by_one(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    uint32_t max_depth = 0;
    for (uint32_t k = 0; k < 32; k++) {
        uint32_t want = ALL << k;            /* lanes k..31 still looping */
        expect(&w, 0, want, w.depth);
        warp_advance(&w, 1);
        warp_advance(&w, 2);
        assert_int_equal(warp_mask(&w), want);
        uint32_t taken = k < 31 ? ALL << (k + 1) : 0;
        int r = warp_branch(&w, taken, 0, 3);
        assert_int_not_equal(r, -1);
        assert_int_equal(r, k < 31 ? 1 : 0);
        if (w.depth > max_depth)
            max_depth = w.depth;
        /* lanes that leave join the entry already waiting at the loop's
         * exit: the stack holds that entry and the looping lanes, no more */
        assert_true(w.depth <= 2);
    }
    expect(&w, 3, ALL, 1);
    print_message("loop with 32 lane exits: max stack depth %u\n", (unsigned)max_depth);
}

/* The same loop run 1000 times by a warp whose lanes all stay: no growth. */
static void test_uniform_loop_no_growth(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    for (int k = 0; k < 1000; k++) {
        warp_advance(&w, 1);
        warp_advance(&w, 2);
        assert_int_equal(warp_branch(&w, ALL, 0, 3), 0);
        expect(&w, 0, ALL, 1);
    }
    /* half the lanes leave at once, the rest iterate 1000 more times */
    warp_advance(&w, 1);
    warp_advance(&w, 2);
    assert_int_equal(warp_branch(&w, LO16, 0, 3), 1);
    uint32_t d = w.depth;
    for (int k = 0; k < 1000; k++) {
        warp_advance(&w, 1);
        warp_advance(&w, 2);
        assert_int_equal(warp_branch(&w, LO16, 0, 3), 0);
        expect(&w, 0, LO16, d);
    }
    warp_advance(&w, 1);
    warp_advance(&w, 2);
    assert_int_equal(warp_branch(&w, 0, 0, 3), 0);
    expect(&w, 3, ALL, 1);
}

/*   0 @p bra ELSE        reconv 4
 *   1   exit             (then-path lanes end here)
 *   2   (never reached)
 *   3 ELSE: work
 *   4 END:                                                            */
static void test_exit_inside_divergent_path(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    assert_int_equal(warp_branch(&w, LO16, 3, 4), 1);
    expect(&w, 3, LO16, 3);
    warp_advance(&w, 4);
    expect(&w, 1, HI16, 2);
    /* exec_step for exit: move past it, then drop the lanes */
    w.stack[w.depth - 1].pc = 2;
    warp_exit_lanes(&w, HI16);
    expect(&w, 4, LO16, 1);                  /* only survivors reconverge */
    assert_int_equal(w.live, LO16);

    /* now the first-running (taken) path exits instead */
    start(&w, 32);
    assert_int_equal(warp_branch(&w, 0x3u, 3, 4), 1);
    expect(&w, 3, 0x3u, 3);
    w.stack[w.depth - 1].pc = 4;
    warp_exit_lanes(&w, 0x3u);
    expect(&w, 1, ALL & ~0x3u, 2);
    warp_advance(&w, 2);
    warp_advance(&w, 3);
    warp_advance(&w, 4);
    expect(&w, 4, ALL & ~0x3u, 1);

    /* some lanes of the executing path exit (guarded exit): the others go on */
    start(&w, 32);
    assert_int_equal(warp_branch(&w, LO16, 3, 4), 1);
    expect(&w, 3, LO16, 3);
    w.stack[w.depth - 1].pc = 4;             /* pc 3 is "@p exit" for lanes 4..7 */
    warp_exit_lanes(&w, 0x00F0u);
    expect(&w, 1, HI16, 2);                  /* taken path done, other path runs */
    warp_advance(&w, 2);
    warp_advance(&w, 3);
    warp_advance(&w, 4);
    expect(&w, 4, ALL & ~0x00F0u, 1);
    assert_int_equal(w.live, ALL & ~0x00F0u);
}

/* All lanes exit: the warp is done, stack empty. */
static void test_all_lanes_exit(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    assert_int_equal(warp_branch(&w, LO16, 3, 4), 1);
    warp_exit_lanes(&w, LO16);               /* the taken path exits ... */
    expect(&w, 1, HI16, 2);
    warp_exit_lanes(&w, HI16);               /* ... then the other one  */
    assert_int_equal(w.depth, 0);
    assert_int_equal(w.live, 0);
    assert_int_equal(warp_pc(&w), ISA_NO_PC);

    start(&w, 9);
    warp_exit_lanes(&w, 0x1FFu);
    assert_int_equal(w.depth, 0);
    assert_int_equal(warp_mask(&w), 0);
}

/* The deepest legal nesting: each level splits off one lane, 31 levels.
 * Level k branches at pc 10k; its taken lanes go on to pc 10(k+1), its one
 * not-taken lane waits at 10k+1; all of level k rejoins at 5000-k. */
static void test_deepest_nesting_fits(void **state)
{
    (void)state;
    warp_t w;
    start(&w, 32);
    for (uint32_t k = 0; k < 31; k++) {
        uint32_t mask = ALL << k;
        expect(&w, 10 * k, mask, 1 + 2 * k);
        uint32_t taken = mask & ~(1u << k);
        assert_int_equal(warp_branch(&w, taken, 10 * (k + 1), 5000 - k), 1);
    }
    expect(&w, 310, 0x80000000u, 63);
    assert_true(63 <= WARP_STACK_MAX);
    /* unwind: each level's taken path, then its waiting lane, then rejoin */
    warp_advance(&w, 5000 - 30);                    /* innermost taken path done */
    for (uint32_t k = 31; k-- > 0;) {
        expect(&w, 10 * k + 1, 1u << k, 2 * k + 2);
        warp_advance(&w, 5000 - k);                 /* not-taken lane done */
        expect(&w, 5000 - k, ALL << k, 2 * k + 1);
        if (k > 0)
            warp_advance(&w, 5000 - k + 1);         /* on to the outer reconv */
    }
    expect(&w, 5000, ALL, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_masks),
        cmocka_unit_test(test_uniform_branch),
        cmocka_unit_test(test_if_else_reconverges),
        cmocka_unit_test(test_if_without_else),
        cmocka_unit_test(test_nested_divergence),
        cmocka_unit_test(test_loop_lanes_leave_one_by_one),
        cmocka_unit_test(test_uniform_loop_no_growth),
        cmocka_unit_test(test_exit_inside_divergent_path),
        cmocka_unit_test(test_all_lanes_exit),
        cmocka_unit_test(test_deepest_nesting_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
