/* test_rates.c - the derived figures of a launch (rates.h): hand-made
 * counts give the rates worked out by hand, and empty launches give 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rates.h"

static void test_gpu_rates(void **state)
{
    (void)state;
    gpu_desc_t d;
    gpu_stats_t st;
    gpu_rates_t r;
    gpu_desc_default(&d);
    d.sector_bytes = 32;
    memset(&st, 0, sizeof st);
    st.cycles = 1000;
    st.time_us = 2.0;                 /* 2 microseconds */
    st.warp_instrs = 500;
    st.thread_instrs = 500 * 16;      /* half the lanes on */
    st.flops = 4000000;               /* 4e6 / 2e-6 s = 2 TFLOP/s */
    st.dram_bytes = 6000;             /* 6000 / 2e-6 s = 3 GB/s */
    st.l1_hits = 30, st.l1_misses = 10;
    st.l2_hits = 5, st.l2_misses = 5;
    st.issue_slots = 100;
    st.stalls[STALL_MEMORY] = 60;
    st.stalls[STALL_IDLE] = 20;
    gpu_rates(&st, &d, &r);
    assert_true(r.ipc == 0.5);
    assert_true(r.tflops == 2.0);
    assert_true(r.dram_gbs == 3.0);
    assert_true(r.l1_gbs == 40.0 * 32 / 2e-6 / 1e9);
    assert_true(r.l2_gbs == 10.0 * 32 / 2e-6 / 1e9);
    assert_true(r.l1_hit_rate == 0.75);
    assert_true(r.l2_hit_rate == 0.5);
    assert_true(r.lane_utilisation == 0.5);
    assert_int_equal(r.issued_slots, 20);
    assert_true(r.stall_frac[STALL_MEMORY] == 0.6);
    assert_true(r.stall_frac[STALL_IDLE] == 0.2);
    assert_true(r.issued_frac == 0.2);
    double sum = r.issued_frac;
    for (int i = 0; i < STALL_COUNT; i++)
        sum += r.stall_frac[i];
    assert_true(sum > 0.999999 && sum < 1.000001);
    /* more stalls than slots (cannot happen, but never a negative count) */
    st.stalls[STALL_PIPE] = 1000;
    gpu_rates(&st, &d, &r);
    assert_int_equal(r.issued_slots, 0);
    assert_true(r.issued_frac == 0.0);
    /* an empty launch: every rate 0, no NaN */
    memset(&st, 0, sizeof st);
    gpu_rates(&st, &d, &r);
    assert_true(r.ipc == 0 && r.tflops == 0 && r.dram_gbs == 0 && r.l1_hit_rate == 0 && r.lane_utilisation == 0
                && r.issued_frac == 0 && r.stall_frac[STALL_MEMORY] == 0);
}

static void test_cpu_rates(void **state)
{
    (void)state;
    cpu_desc_t d;
    cpu_stats_t st;
    cpu_rates_t r;
    cpu_desc_default(&d);
    d.simd_width = 8;
    memset(&st, 0, sizeof st);
    st.cycles = 100;
    st.cores_used = 4;
    st.instrs = 200;                  /* 200 / (100 x 4) = 0.5 per core-cycle */
    st.thread_instrs = 200 * 6;       /* 6 of 8 lanes */
    st.time_us = 1.0;
    st.flops = 3000;                  /* 3e3 / 1e-6 s = 3 GFLOP/s */
    st.dram_bytes = 5000;             /* 5 GB/s */
    st.time[CPU_T_COMPUTE] = 30;
    st.time[CPU_T_MEMORY] = 10;
    cpu_rates(&st, &d, &r);
    assert_true(r.ipc == 0.5);
    assert_true(r.lane_utilisation == 0.75);
    assert_true(r.gflops == 3.0);
    assert_true(r.tflops == 3000 / 1e-6 / 1e12);
    assert_true(r.dram_gbs == 5.0);
    assert_true(r.time_frac[CPU_T_COMPUTE] == 0.75 && r.time_frac[CPU_T_MEMORY] == 0.25);
    assert_true(r.time_frac[CPU_T_IDLE] == 0.0);
    st.cores_used = 0;                /* counted as one core */
    cpu_rates(&st, &d, &r);
    assert_true(r.ipc == 2.0);
    memset(&st, 0, sizeof st);
    cpu_rates(&st, &d, &r);
    assert_true(r.ipc == 0 && r.gflops == 0 && r.lane_utilisation == 0 && r.time_frac[CPU_T_COMPUTE] == 0);
}

static void test_helpers(void **state)
{
    (void)state;
    assert_true(rate_ratio(1, 0) == 0.0 && rate_ratio(1, -1) == 0.0 && rate_ratio(3, 4) == 0.75);
    assert_true(rate_per_s(5e9, 2.0, 1e9) == 2.5);
    /* 1000 bytes in 500 cycles at 2000 MHz: 2 bytes/cycle x 2e9 cycles/s = 4 GB/s */
    assert_true(rate_giga_in_cycles(1000, 500, 2000.0) == 4.0);
    /* 48 warps of 64 (2048 threads per SM) */
    assert_true(rate_occupancy(48, 2048) == 0.75);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_rates),
        cmocka_unit_test(test_cpu_rates),
        cmocka_unit_test(test_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
