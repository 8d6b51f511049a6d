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
    dram_cfg_t c = {4, 256, 32, 128.0, 100, 1};
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
    dram_cfg_t c = {16, 256, 32, bpc, 670, 1024};
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
    dram_cfg_t c = {0, 256, 32, 128.0, 100, 1};
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
