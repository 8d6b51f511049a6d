/* test_meter.c - bytes moved by transfer time (sim/core/meter.h): spans
 * split exactly over the cycles they cover, taken once, in order; a span
 * past the ring's horizon is cut and counted as late; a long gap clears
 * the ring; and the DRAM model feeds a meter with exactly its busy ticks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "dram.h"
#include "meter.h"

#define T 1024   /* ticks per cycle, as memsys uses */

static void test_split_over_cycles(void **state)
{
    (void)state;
    meter_t m;
    simt_err_t e;
    assert_int_equal(meter_init(&m, T, &e), 0);
    meter_add(&m, 3 * T + 1000, 2 * T);   /* cycles 3 (24 ticks), 4 (1024), 5 (1000) */
    meter_add(&m, 4 * T, 10);             /* inside cycle 4 */
    assert_int_equal(meter_take(&m, 3), 0);
    assert_int_equal(meter_take(&m, 4), 24);
    assert_int_equal(meter_take(&m, 5), 1024 + 10);
    assert_int_equal(meter_take(&m, 6), 1000);
    assert_int_equal(meter_take(&m, 6), 0);      /* taken once */
    assert_int_equal(meter_take(&m, 5), 0);      /* never backwards */
    assert_int_equal(m.late, 0);
    meter_free(&m);
}

static void test_horizon_and_gap(void **state)
{
    (void)state;
    meter_t m;
    simt_err_t e;
    assert_int_equal(meter_init(&m, T, &e), 0);
    uint64_t far = (uint64_t)METER_RING_CYCLES - 1;   /* the last cycle the ring holds */
    meter_add(&m, far * T, 3 * T);                    /* 1 cycle inside, 2 beyond */
    assert_int_equal(m.late, 2 * T);
    meter_add(&m, 7 * T, 5);
    /* a take far past the ring: everything in it, once */
    assert_int_equal(meter_take(&m, 10 * (uint64_t)METER_RING_CYCLES), T + 5);
    assert_int_equal(m.read, 10 * (uint64_t)METER_RING_CYCLES);
    assert_int_equal(meter_take(&m, 11 * (uint64_t)METER_RING_CYCLES), 0);
    /* a span that starts before the read point is kept at the read point */
    meter_add(&m, 0, 7);
    assert_int_equal(meter_take(&m, m.read + 1), 7);
    meter_free(&m);
}

/* A DRAM channel fed back to back: the meter holds exactly its busy ticks,
 * never more than channels x T in a cycle. */
static void test_dram_feeds_meter(void **state)
{
    (void)state;
    dram_t d;
    meter_t m;
    simt_err_t e;
    dram_cfg_t cfg = { .channels = 4, .interleave_bytes = 256, .burst_bytes = 32, .bytes_per_cycle = 16.0,
                       .latency = 100, .ticks_per_cycle = T };
    assert_int_equal(dram_init(&d, &cfg, &e), 0);
    assert_int_equal(meter_init(&m, T, &e), 0);
    d.meter = &m;
    uint64_t busy = 0;
    for (int i = 0; i < 400; i++)
        dram_access(&d, (uint64_t)(i / 8) * T, (uint64_t)i * 32, 32, i % 3 == 0, NULL);
    for (uint32_t c = 0; c < 4; c++)
        busy += d.busy_ticks[c];
    uint64_t sum = 0;
    for (uint64_t c = 1; c < 2000; c++) {
        uint64_t t = meter_take(&m, c);
        assert_true(t <= (uint64_t)cfg.channels * T);
        sum += t;
    }
    assert_int_equal(sum, busy);
    assert_true(busy > 0);
    meter_free(&m);
    dram_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_over_cycles),
        cmocka_unit_test(test_horizon_and_gap),
        cmocka_unit_test(test_dram_feeds_meter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
