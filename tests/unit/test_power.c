/* test_power.c - the power model (sim/core/power.h): energy sums by event,
 * the voltage relation, the clock solver (P(f) = TDP when the boost clock
 * would exceed it, exactly the boost clock when not, the lowest clock as a
 * floor, the DRAM floor of the time), and a real launch's counters and
 * result fields with and without a model. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "power.h"
#include "support.h"

/* A description with a simple power model: 1 GHz, 100 W TDP, 10 W static. */
static void power_desc(gpu_desc_t *d)
{
    support_desc(d);
    d->clock_mhz = 1000.0;
    d->tdp_watts = 100.0;
    d->power_static_w = 10.0;
    d->power_pj_instr = 50.0;
    d->power_pj_fp32 = 10.0;
    d->power_pj_int = 5.0;
    d->power_pj_sfu = 20.0;
    d->power_pj_tc_f16 = 1.0;
    d->power_pj_tc_bf16 = 1.0;
    d->power_pj_tc_tf32 = 2.0;
    d->power_pj_tc_fp8 = 0.5;
    d->power_pj_byte_l1 = 1.0;
    d->power_pj_byte_l2 = 5.0;
    d->power_pj_byte_dram = 32.0;
    d->power_volt_slope = 0.5;
    d->power_mhz_min = 500.0;
}

static void test_energy_sums(void **state)
{
    (void)state;
    gpu_desc_t d;
    power_desc(&d);
    gpu_stats_t st;
    memset(&st, 0, sizeof st);
    st.warp_instrs = 1000;
    st.lane_ops[UNIT_FMA] = 32000;
    st.lane_ops[UNIT_ALU] = 2000;
    st.lane_ops[UNIT_SFU] = 100;
    st.tc_flops[0] = 1000000;   /* f16 */
    st.tc_flops[2] = 1000;      /* tf32 */
    st.tc_flops[3] = 4000;      /* fp8 */
    st.gld_bytes = 100;
    st.sld_bytes = 300;
    st.sst_bytes = 600;         /* 1000 bytes through L1/shared */
    st.l2_hits = 7;
    st.l2_misses = 3;           /* 10 sectors of 32 bytes */
    st.dram_bytes = 1000;
    power_energy_t e;
    power_energy(&d, &st, &e);
    assert_true(fabs(e.instr - 50000e-12) < 1e-18);
    assert_true(fabs(e.fp32 - 320000e-12) < 1e-18);
    assert_true(fabs(e.integer - 10000e-12) < 1e-18);
    assert_true(fabs(e.sfu - 2000e-12) < 1e-18);
    assert_true(fabs(e.tensor - (1000000.0 + 2000.0 + 2000.0) * 1e-12) < 1e-18);
    assert_true(fabs(e.l1 - 1000e-12) < 1e-18);
    assert_true(fabs(e.l2 - 320.0 * 5.0 * 1e-12) < 1e-18);
    assert_true(fabs(e.dram - 32000e-12) < 1e-18);
    assert_true(fabs(e.core - (e.instr + e.fp32 + e.integer + e.sfu + e.tensor + e.l1 + e.l2)) < 1e-18);
    assert_int_equal(power_tc_index(T_F16), 0);
    assert_int_equal(power_tc_index(T_BF16), 1);
    assert_int_equal(power_tc_index(T_TF32), 2);
    assert_int_equal(power_tc_index(T_E4M3), 3);
    assert_int_equal(power_tc_index(T_E5M2), 3);
    assert_int_equal(power_tc_index(T_F32), -1);
}

static void test_voltage(void **state)
{
    (void)state;
    gpu_desc_t d;
    power_desc(&d);
    assert_true(fabs(power_volt(&d, 1000.0) - 1.0) < 1e-12);
    assert_true(fabs(power_volt(&d, 800.0) - 0.9) < 1e-12);   /* 20% less clock, 10% less voltage */
    assert_true(fabs(power_volt(&d, 500.0) - 0.75) < 1e-12);
}

/* Under the TDP: the boost clock, boost time, energy = sum + static x t. */
static void test_no_throttle_under_tdp(void **state)
{
    (void)state;
    gpu_desc_t d;
    power_desc(&d);
    power_point_t pt;
    /* 10 us at boost, 0.5 mJ core + 0.1 mJ DRAM: 60 W + 10 W static */
    power_solve(&d, 0.5e-3, 0.1e-3, 10.0, 2.0, &pt);
    assert_true(pt.clock_mhz == 1000.0);
    assert_true(pt.time_us == 10.0);
    assert_true(fabs(pt.power_w - 70.0) < 1e-9);
    assert_true(fabs(pt.power_boost_w - 70.0) < 1e-9);
    assert_true(fabs(pt.energy_j - 0.7e-3) < 1e-12);
    assert_true(fabs(pt.energy_static_j - 0.1e-3) < 1e-12);
    /* just under the TDP: still the boost clock */
    power_solve(&d, 0.79e-3, 0.1e-3, 10.0, 2.0, &pt);
    assert_true(pt.clock_mhz == 1000.0);
}

/* Over the TDP: the clock where P = TDP, slower by exactly boost / clock. */
static void test_throttle_to_tdp(void **state)
{
    (void)state;
    gpu_desc_t d;
    power_desc(&d);
    power_point_t pt;
    /* 10 us, 1.8 mJ core: 190 W at boost */
    power_solve(&d, 1.8e-3, 0.0, 10.0, 0.0, &pt);
    assert_true(pt.power_boost_w > 189.0 && pt.power_boost_w < 191.0);
    assert_true(pt.clock_mhz < 1000.0 && pt.clock_mhz > 500.0);
    assert_true(fabs(pt.power_w - d.tdp_watts) < 1e-6);
    assert_true(fabs(pt.time_us - 10.0 * 1000.0 / pt.clock_mhz) < 1e-9);
    /* check the solution by hand: P(r) = 10 + 180 r (1 - 0.5 (1 - r))^2 */
    double r = pt.clock_mhz / 1000.0, v = 1.0 - 0.5 * (1.0 - r);
    assert_true(fabs(10.0 + 180.0 * r * v * v - 100.0) < 1e-6);
    /* more energy for the same work: a lower clock */
    power_point_t hot;
    power_solve(&d, 2.5e-3, 0.0, 10.0, 0.0, &hot);
    assert_true(hot.clock_mhz < pt.clock_mhz);
    /* so much that even the lowest clock is over: the lowest clock */
    power_solve(&d, 100e-3, 0.0, 10.0, 0.0, &hot);
    assert_true(hot.clock_mhz == d.power_mhz_min);
    assert_true(hot.power_w > d.tdp_watts);
}

/* The DRAM floor: a launch bound by DRAM gets no slower than its DRAM time
 * while the clock drops, and the solver accounts for that. */
static void test_dram_floor(void **state)
{
    (void)state;
    gpu_desc_t d;
    power_desc(&d);
    power_point_t a, b;
    power_at(&d, 0.5e-3, 0.5e-3, 10.0, 9.0, 950.0, &a);   /* 10/0.95 = 10.53 > 9 */
    assert_true(fabs(a.time_us - 10.0 / 0.95) < 1e-9);
    power_at(&d, 0.5e-3, 0.5e-3, 10.0, 20.0, 1000.0, &b); /* floor capped at the boost time */
    assert_true(b.time_us == 10.0);
    power_at(&d, 0.5e-3, 0.5e-3, 10.0, 9.9, 1000.0 * 10.0 / 10.5, &b);
    assert_true(fabs(b.time_us - 10.5) < 1e-9);
}

/* A launch: counters per unit, result fields, and the fallback. */
static void test_launch_fields(void **state)
{
    (void)state;
    const char *src =
        ".kernel f\n.param out\n"
        "mov.u32 %r0, %tid.x\nmov.f32 %r3, 1.0\n"
        "fma.f32 %r4, %r3, %r3, %r3\nfma.f32 %r4, %r4, %r3, %r3\n"
        "ld.param.u32 %r1, [out]\nshl.b32 %r2, %r0, 2\nadd.u32 %r1, %r1, %r2\n"
        "st.global.f32 [%r1], %r4\nexit\n";
    gpu_desc_t d;
    power_desc(&d);
    gpu_t *g = support_gpu(&d);
    uint32_t out = support_buffer(g, "out", NULL, 64 * 4);
    gpu_stats_t st;
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[]){out}, 1, &st);
    assert_int_equal(st.lane_ops[UNIT_FMA], 2 * 64);
    assert_true(st.energy_j > 0.0);
    assert_true(st.clock_mhz_sustained == d.clock_mhz);   /* a tiny launch: far under the TDP */
    assert_true(st.time_us == st.time_us_boost);
    assert_true(fabs(st.time_us_boost - (double)st.cycles / d.clock_mhz) < 1e-12);
    assert_true(fabs(st.avg_power_w - st.energy_j / (st.time_us * 1e-6)) < 1e-9);
    assert_true(st.avg_power_w >= d.power_static_w);
    gpu_stats_t st_model = st;
    gpu_free(g);

    /* no power model: energy 0, the boost clock, time = cycles / clock */
    support_desc(&d);
    assert_false(power_enabled(&d));
    g = support_gpu(&d);
    out = support_buffer(g, "out", NULL, 64 * 4);
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[]){out}, 1, &st);
    assert_true(st.energy_j == 0.0 && st.avg_power_w == 0.0);
    assert_true(st.clock_mhz_sustained == d.clock_mhz);
    assert_true(st.time_us == (double)st.cycles / d.clock_mhz);
    gpu_free(g);

    /* a TDP half-way between static and this launch's power: it throttles,
     * slower by boost / clock, at exactly the TDP */
    power_desc(&d);
    d.tdp_watts = 0.5 * (d.power_static_w + st_model.power_boost_w);
    g = support_gpu(&d);
    out = support_buffer(g, "out", NULL, 64 * 4);
    gpu_stats_t th;
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[]){out}, 1, &th);
    assert_int_equal(th.cycles, st.cycles);               /* cycles are the boost-clock model's */
    assert_true(th.power_boost_w > d.tdp_watts);
    assert_true(th.clock_mhz_sustained < d.clock_mhz);
    assert_true(fabs(th.time_us - th.time_us_boost * d.clock_mhz / th.clock_mhz_sustained) < 1e-9);
    assert_true(fabs(th.avg_power_w - d.tdp_watts) < 1e-6);
    gpu_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energy_sums),
        cmocka_unit_test(test_voltage),
        cmocka_unit_test(test_no_throttle_under_tdp),
        cmocka_unit_test(test_throttle_to_tdp),
        cmocka_unit_test(test_dram_floor),
        cmocka_unit_test(test_launch_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
