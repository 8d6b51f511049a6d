/* test_dram.c - DRAM channel timelines (dram.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dram.h"

/* 4 channels, 128 bytes/cycle in all = 32 bytes/cycle per channel, so a
 * 32-byte burst occupies its channel for exactly 1 cycle; ticks = cycles. */
static void simple(dram_t *d)
{
    dram_cfg_t c = {4, 256, 32, 128.0, 100, 1, 0.0, 0.0};
    simt_err_t err;
    assert_int_equal(dram_init(d, &c, &err), 0);
    assert_int_equal(d->burst_ticks, 1);
}

static void test_unloaded_latency(void **state)
{
    (void)state;
    dram_t d;
    uint64_t start;
    simple(&d);
    assert_int_equal(dram_access(&d, 10, 0, 32, 0, &start), 10 + 1 + 100);
    assert_int_equal(start, 10);
    assert_int_equal(d.st.read_bytes, 32);
    dram_free(&d);
}

static void test_queueing_on_one_channel(void **state)
{
    (void)state;
    dram_t d;
    uint64_t start;
    simple(&d);
    /* Three bursts to one 256-byte block (one channel) at the same time:
     * they go one after the other. */
    assert_int_equal(dram_access(&d, 10, 0, 32, 0, NULL), 111);
    assert_int_equal(dram_access(&d, 10, 32, 32, 0, &start), 112);
    assert_int_equal(start, 11);
    assert_int_equal(dram_access(&d, 10, 64, 32, 0, NULL), 113);
    assert_int_equal(d.st.wait_ticks, 0 + 1 + 2);
    /* A request after the channel went idle does not wait. */
    assert_int_equal(dram_access(&d, 50, 96, 32, 0, &start), 151);
    assert_int_equal(start, 50);
    /* Another channel is independent. */
    assert_int_equal(dram_access(&d, 10, 256, 32, 0, &start), 111);
    assert_int_equal(start, 10);
    dram_free(&d);
}

static void test_channel_spread(void **state)
{
    (void)state;
    dram_t d;
    int seen[4];
    simple(&d);
    /* Four consecutive 256-byte blocks use four different channels. */
    for (uint64_t base = 0; base < 64 * 1024; base += 1024) {
        memset(seen, 0, sizeof seen);
        for (uint64_t b = 0; b < 4; b++)
            seen[dram_channel(&d, base + b * 256)]++;
        for (int ch = 0; ch < 4; ch++)
            assert_int_equal(seen[ch], 1);
    }
    /* All bytes of one block share a channel. */
    assert_int_equal(dram_channel(&d, 512), dram_channel(&d, 767));
    /* A stride of channels x interleave (1 KB), which plain modulo would
     * send to one channel, still reaches every channel. */
    memset(seen, 0, sizeof seen);
    for (uint64_t i = 0; i < 16; i++)
        seen[dram_channel(&d, i * 1024)]++;
    for (int ch = 0; ch < 4; ch++)
        assert_true(seen[ch] > 0);
    dram_free(&d);
}

static void test_bandwidth_exact(void **state)
{
    (void)state;
    dram_t d;
    uint64_t last = 0;
    simple(&d);
    /* 4000 bursts (125 KB) all arriving at tick 0, addresses consecutive:
     * 500 blocks of 8 bursts, 125 per channel, 1000 bursts per channel at
     * 1 cycle each: the last starts at 999 and is ready at 999 + 1 + 100. */
    for (uint64_t i = 0; i < 4000; i++) {
        uint64_t r = dram_access(&d, 0, i * 32, 32, 0, NULL);
        if (r > last)
            last = r;
    }
    assert_int_equal(last, 1100);
    assert_int_equal(d.st.read_bytes, 4000 * 32);
    for (uint32_t ch = 0; ch < 4; ch++)
        assert_int_equal(d.busy_ticks[ch], 1000);
    dram_free(&d);
}

static void test_bandwidth_fractional(void **state)
{
    (void)state;
    /* H200-like: 4800 GB/s x 0.92 at 1980 MHz = 2230 bytes/cycle over 16
     * channels; a burst takes about 0.23 cycles, kept in 1/1024 cycles. */
    double bpc = 4800.0 * 1000.0 / 1980.0 * 0.92;
    dram_cfg_t c = {16, 256, 32, bpc, 670, 1024, 0.0, 0.0};
    dram_t d;
    simt_err_t err;
    uint64_t last = 0;
    const uint64_t n = 100000;       /* 3.2 MB */
    assert_int_equal(dram_init(&d, &c, &err), 0);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = dram_access(&d, 0, i * 32, 32, 0, NULL);
        if (r > last)
            last = r;
    }
    double cycles = (double)(last - d.latency_ticks) / 1024.0;
    double achieved = (double)(n * 32) / cycles;
    assert_true(achieved > bpc * 0.99 && achieved < bpc * 1.01);
    /* Unloaded: ready = transfer (< 1 cycle) + 670 cycles. */
    dram_reset(&d);
    uint64_t r = dram_access(&d, 1024, 0, 32, 0, NULL);
    assert_true(r > 1024 + 670 * 1024 && r < 1024 + 671 * 1024);
    dram_free(&d);
}

static void test_writes_and_rounding(void **state)
{
    (void)state;
    dram_t d;
    simple(&d);
    dram_access(&d, 0, 0, 64, 1, NULL);           /* 2 bursts written */
    dram_access(&d, 0, 1024, 33, 0, NULL);        /* rounds up to 2 bursts */
    assert_int_equal(d.st.write_bytes, 64);
    assert_int_equal(d.st.read_bytes, 64);
    /* A write occupies the channel like a read. */
    assert_int_equal(dram_access(&d, 0, 96, 32, 0, NULL), 2 + 1 + 100);
    dram_reset(&d);
    assert_int_equal(d.st.write_bytes, 0);
    assert_int_equal(dram_access(&d, 0, 96, 32, 0, NULL), 101);
    dram_free(&d);
}

static void test_errors(void **state)
{
    (void)state;
    dram_t d;
    simt_err_t err;
    dram_cfg_t c = {0, 256, 32, 128.0, 100, 1, 0.0, 0.0};
    assert_int_equal(dram_init(&d, &c, &err), -1);
    assert_non_null(strstr(err.msg, "channels"));
    c.channels = 4;
    c.interleave_bytes = 300;
    assert_int_equal(dram_init(&d, &c, &err), -1);
    assert_non_null(strstr(err.msg, "interleave"));
    c.interleave_bytes = 256;
    c.bytes_per_cycle = 0.0;
    assert_int_equal(dram_init(&d, &c, &err), -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    assert_non_null(strstr(err.msg, "bandwidth"));
    c.bytes_per_cycle = 128.0;
    c.refresh_interval = 1000.0;
    c.refresh_cycles = 1000.0;   /* a window as long as its interval */
    assert_int_equal(dram_init(&d, &c, &err), -1);
    assert_non_null(strstr(err.msg, "refresh"));
}

/* Refresh windows (dram.h "Refresh"): 4 channels of 1 cycle per burst,
 * a window of 100 cycles every 1000; channel c's opens at (2c + 1) x 1000 / 8
 * = 125, 375, 625, 875 (then every 1000). */
static void refreshing(dram_t *d)
{
    dram_cfg_t c = {4, 256, 32, 128.0, 100, 1, 1000.0, 100.0};
    simt_err_t err;
    assert_int_equal(dram_init(d, &c, &err), 0);
}

static void test_refresh_window(void **state)
{
    (void)state;
    dram_t d;
    uint64_t start;
    refreshing(&d);
    assert_true(dram_busy_fraction_max(&d) == 0.9);
    /* channel 0 (block 0): free before its window, blocked inside it */
    assert_int_equal(dram_access(&d, 100, 0, 32, 0, &start), 100 + 1 + 100);
    assert_int_equal(start, 100);
    assert_int_equal(dram_access(&d, 150, 0, 32, 0, &start), 225 + 1 + 100);
    assert_int_equal(start, 225);
    assert_int_equal(d.st.refresh_waits, 1);
    assert_int_equal(d.st.refresh_ticks, 75);
    /* the next request on channel 0 queues behind the delayed one */
    assert_int_equal(dram_access(&d, 151, 32, 32, 0, &start), 226 + 1 + 100);
    assert_int_equal(d.st.wait_ticks, 75 + 75);
    /* channel 1 (block 1) is open at 150 and closed at 400; the window
     * comes back one interval later */
    assert_int_equal(dram_access(&d, 150, 256, 32, 0, &start), 150 + 1 + 100);
    assert_int_equal(dram_access(&d, 400, 256, 32, 0, &start), 475 + 1 + 100);
    assert_int_equal(dram_access(&d, 1400, 256, 32, 0, &start), 1475 + 1 + 100);
    dram_free(&d);
}

/* A count that is not a power of two (192 pseudo-channels): every round of
 * 192 consecutive blocks visits every channel once, and a stride of one
 * round (which plain modulo sends to one channel) is spread. */
static void test_channels_not_power_of_two(void **state)
{
    (void)state;
    dram_t d;
    simt_err_t err;
    dram_cfg_t c = {192, 256, 32, 2400.0, 600, 1024, 0.0, 0.0};
    assert_int_equal(dram_init(&d, &c, &err), 0);
    for (uint64_t round = 0; round < 64; round += 7) {
        uint8_t seen[192] = {0};
        for (uint64_t b = 0; b < 192; b++) {
            uint32_t ch = dram_channel(&d, (round * 192 + b) * 256);
            assert_true(ch < 192);
            assert_int_equal(seen[ch], 0);
            seen[ch] = 1;
        }
    }
    uint8_t hit[192] = {0};
    int distinct = 0;
    for (uint64_t k = 0; k < 192; k++) {
        uint32_t ch = dram_channel(&d, k * 192 * 256);
        distinct += !hit[ch];
        hit[ch] = 1;
    }
    assert_true(distinct >= 96);   /* a random pick would reach ~121 */
    dram_free(&d);
}

/* Requests arriving evenly at a fraction rho of a channel's capacity:
 * without refresh none waits (a deterministic queue below saturation is
 * empty); with refresh the backlog each window leaves takes longer to
 * clear the busier the channel, so the mean wait rises with the load,
 * well below saturation: the loaded latency of dram.h "Refresh". */
static double mean_wait(int refresh, int every)
{
    dram_t d;
    simt_err_t err;
    dram_cfg_t c = {1, 256, 32, 32.0, 100, 1, refresh ? 1000.0 : 0.0, refresh ? 100.0 : 0.0};
    assert_int_equal(dram_init(&d, &c, &err), 0);
    for (uint64_t i = 0; i < 20000; i++)
        dram_access(&d, i * (uint64_t)every, 0, 32, 0, NULL);
    double w = (double)d.st.wait_ticks / (double)d.st.requests;
    dram_free(&d);
    return w;
}

static void test_latency_rises_with_load(void **state)
{
    (void)state;
    /* one burst = 1 cycle; a request every 4, 2 cycles: load 0.25, 0.5 of
     * the channel, 0.28 and 0.56 of what refresh leaves (0.9) */
    assert_true(mean_wait(0, 4) == 0.0 && mean_wait(0, 2) == 0.0);
    double w4 = mean_wait(1, 4), w2 = mean_wait(1, 2);
    /* arrivals in a window wait for its end: 100 x 100/2 / 1000 = 5 cycles
     * on average at any load; the backlog then drains at 1 - rho, so the
     * wait grows ~ 1 / (1 - rho): ~ 6.7 at rho 0.25, ~ 10 at rho 0.5 */
    assert_true(w4 > 6.0 && w4 < 7.5);
    assert_true(w2 > 9.0 && w2 < 11.0);
    assert_true(mean_wait(1, 1) > 1000.0);   /* over what refresh leaves: the queue grows */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unloaded_latency),
        cmocka_unit_test(test_queueing_on_one_channel),
        cmocka_unit_test(test_channel_spread),
        cmocka_unit_test(test_bandwidth_exact),
        cmocka_unit_test(test_bandwidth_fractional),
        cmocka_unit_test(test_writes_and_rounding),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_refresh_window),
        cmocka_unit_test(test_channels_not_power_of_two),
        cmocka_unit_test(test_latency_rises_with_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
