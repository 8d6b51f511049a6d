/* test_memsys.c - the memory hierarchy end to end (memsys.h): latencies
 * per level, pending-fill merging, MSHR limit, stores and write-back,
 * bank conflicts, and bandwidth calibration against the H200 measurements
 * (reference/h200-measured.md, as arch/h200.lua cites it, "Latencies" and "HBM read"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpu.h"
#include "memsys.h"

#define BASE 0x10000000u
#define ALL  0xFFFFFFFFu

/* A small machine with round numbers so that times can be worked out by
 * hand: 1000 MHz; L2 64 B/clk = 2 slices moving one 32-byte sector per
 * cycle each; DRAM 128 GB/s at 100% = 128 B/clk = 4 channels moving one
 * sector per cycle each. L1 1 KB (4 sets x 2 ways), L2 8 KB (16 x 4). */
static memsys_cfg_t edu_cfg(void)
{
    memsys_cfg_t c;
    memset(&c, 0, sizeof c);
    c.sms = 2;
    c.clock_mhz = 1000.0;
    c.lat_smem = 5;
    c.lat_l1 = 10;
    c.lat_l2 = 50;
    c.lat_dram = 100;
    c.smem_banks = 32;
    c.l1_bytes = 1024;
    c.l1_assoc = 2;
    c.l2_bytes = 8192;
    c.l2_assoc = 4;
    c.line_bytes = 128;
    c.sector_bytes = 32;
    c.l2_bytes_per_clk = 64.0;
    c.l2_slices = 0;
    c.dram_gbps = 128.0;
    c.dram_efficiency = 1.0;
    c.dram_channels = 4;
    c.dram_interleave = 256;
    c.max_mem_inflight = 64;
    return c;
}

/* H200-like, from the reference measurements. */
static memsys_cfg_t h200_cfg(void)
{
    memsys_cfg_t c;
    memset(&c, 0, sizeof c);
    c.sms = 132;
    c.clock_mhz = 1980.0;
    c.lat_smem = 29;
    c.lat_l1 = 40;
    c.lat_l2 = 290;
    c.lat_dram = 670;
    c.smem_banks = 32;
    c.l1_bytes = 128 * 1024;
    c.l1_assoc = 4;
    c.l2_bytes = 62914560;
    c.l2_assoc = 16;
    c.line_bytes = 128;
    c.sector_bytes = 32;
    c.dram_fetch_bytes = 32;         /* memsys_cfg_from_desc: 0 -> sector_bytes */
    c.l2_bytes_per_clk = 2816.0;     /* ~5.6 TB/s at 1980 MHz */
    c.l2_slices = 0;
    c.dram_gbps = 4800.0;
    c.dram_efficiency = 0.92;
    c.dram_channels = 16;
    c.dram_interleave = 256;
    c.max_mem_inflight = 256;
    return c;
}

static void init_ok(memsys_t *ms, const memsys_cfg_t *c)
{
    simt_err_t err;
    simt_err_clear(&err);
    int rc = memsys_init(ms, c, &err);
    if (rc != 0)
        fail_msg("memsys_init: %s", err.msg);
}

/* A warp request: lane i at base + i * stride, bytes per lane. */
static memsys_req_t req(memsys_space_t sp, int st, uint32_t bytes, uint32_t mask,
                        uint32_t base, uint32_t stride)
{
    memsys_req_t r;
    r.space = sp;
    r.is_store = st;
    r.bytes = bytes;
    r.mask = mask;
    for (uint32_t i = 0; i < 32; i++)
        r.addr[i] = base + i * stride;
    return r;
}

static void test_edu_latency_per_level(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    init_ok(&ms, &c);
    assert_int_equal(ms.l2_slices, 2);

    /* Cold: L1 miss, L2 miss, DRAM. DRAM starts at 0, moves one burst in
     * 1 cycle, plus lat_dram: 0 + 1 + 100. */
    memsys_req_t one = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE, 0);
    assert_int_equal(memsys_access(&ms, 0, 0, &one, &res), 101);
    assert_int_equal(res.lines, 1);
    assert_int_equal(res.sectors, 1);
    assert_int_equal(res.l1_misses, 1);
    assert_int_equal(res.l2_misses, 1);
    assert_int_equal(res.dram_bytes, 32);
    assert_int_equal(res.accepted, 1);
    /* Again on the same SM: L1 hit, lat_l1. */
    assert_int_equal(memsys_access(&ms, 0, 101, &one, &res), 111);
    assert_int_equal(res.l1_hits, 1);
    assert_int_equal(res.dram_bytes, 0);
    /* On the other SM: its L1 misses, the L2 hits: 1 cycle through the
     * slice + lat_l2. */
    assert_int_equal(memsys_access(&ms, 1, 111, &one, &res), 111 + 1 + 50);
    assert_int_equal(res.l1_misses, 1);
    assert_int_equal(res.l2_hits, 1);

    /* A whole cold line (32 lanes x 4 B): 4 sectors through one slice and
     * one DRAM channel, one cycle each: the last starts at 203. */
    memsys_req_t line = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE + 1024, 4);
    assert_int_equal(memsys_access(&ms, 0, 200, &line, &res), 203 + 1 + 100);
    assert_int_equal(res.sectors, 4);
    assert_int_equal(res.accepted, 201);        /* one line, one LSU cycle */
    assert_int_equal(res.dram_bytes, 128);
    memsys_free(&ms);
}

static void test_edu_shared_memory(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    init_ok(&ms, &c);
    memsys_req_t s1 = req(MEMSYS_SHARED, 0, 4, ALL, 0, 4);
    memsys_req_t s2 = req(MEMSYS_SHARED, 0, 4, ALL, 0, 8);
    memsys_req_t s32 = req(MEMSYS_SHARED, 0, 4, ALL, 0, 128);
    memsys_req_t s33 = req(MEMSYS_SHARED, 0, 4, ALL, 0, 132);
    assert_int_equal(memsys_access(&ms, 0, 10, &s1, &res), 15);
    assert_int_equal(res.wavefronts, 1);
    assert_int_equal(memsys_access(&ms, 0, 100, &s33, &res), 105);
    assert_int_equal(res.wavefronts, 1);
    /* Stride 2: 2 wavefronts, one extra cycle of latency... */
    assert_int_equal(memsys_access(&ms, 0, 200, &s2, &res), 200 + 5 + 1);
    assert_int_equal(res.accepted, 202);
    /* ... and the pipe is busy for 2 cycles, so the next one starts at 202. */
    assert_int_equal(memsys_access(&ms, 0, 200, &s1, NULL), 202 + 5);
    /* Stride 32: 32 wavefronts. Two in a row: the second waits 32 cycles. */
    assert_int_equal(memsys_access(&ms, 0, 300, &s32, &res), 300 + 5 + 31);
    assert_int_equal(res.wavefronts, 32);
    assert_int_equal(memsys_access(&ms, 0, 300, &s32, &res), 332 + 5 + 31);
    assert_int_equal(res.accepted, 364);
    /* Stores take the pipe for their wavefronts and return when it frees. */
    memsys_req_t st = req(MEMSYS_SHARED, 1, 4, ALL, 0, 16);
    assert_int_equal(memsys_access(&ms, 0, 400, &st, &res), 404);
    const memsys_stats_t *s = memsys_sm_stats(&ms, 0);
    assert_int_equal(s->sld_requests, 6);
    assert_int_equal(s->sst_requests, 1);
    assert_int_equal(s->smem_wavefronts, 1 + 1 + 2 + 1 + 32 + 32 + 4);
    assert_int_equal(s->sld_bytes, 6 * 128);
    memsys_free(&ms);
}

static void test_pending_fill_is_waited_for(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    init_ok(&ms, &c);
    memsys_req_t one = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE, 0);
    assert_int_equal(memsys_access(&ms, 0, 0, &one, NULL), 101);
    /* The sector is in L1 but its data lands at 101, not at 5 + 10. */
    assert_int_equal(memsys_access(&ms, 0, 5, &one, &res), 101);
    assert_int_equal(res.l1_hits, 1);
    assert_int_equal(res.dram_bytes, 0);        /* no second DRAM read */
    /* Same at the L2 for another SM. */
    assert_int_equal(memsys_access(&ms, 1, 6, &one, &res), 101);
    assert_int_equal(res.l2_hits, 1);
    memsys_stats_t tot;
    memsys_totals(&ms, &tot);
    assert_int_equal(tot.dram_read_bytes, 32);
    memsys_free(&ms);
}

static void test_coalescing_costs_lsu_cycles(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    init_ok(&ms, &c);
    /* Stride 128 B: 32 lines, one LSU cycle each. */
    memsys_req_t r = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE, 128);
    uint64_t ready = memsys_access(&ms, 0, 0, &r, &res);
    assert_int_equal(res.lines, 32);
    assert_int_equal(res.sectors, 32);
    assert_int_equal(res.accepted, 32);
    assert_int_equal(res.dram_bytes, 32 * 32);
    /* The last line is looked up at cycle 31, so it is ready no earlier
     * than 31 + 1 + 100; 32 bursts over 4 channels add a few cycles. */
    assert_true(ready >= 132 && ready <= 145);
    /* Unit stride: 1 line, 1 LSU cycle. */
    memsys_req_t u = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE + 65536, 4);
    memsys_access(&ms, 0, 1000, &u, &res);
    assert_int_equal(res.lines, 1);
    assert_int_equal(res.accepted, 1001);
    memsys_free(&ms);
}

static void test_mshr_limit(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    c.max_mem_inflight = 4;
    init_ok(&ms, &c);
    /* 32 missing lines, 4 MSHRs: 8 rounds, each at least one DRAM latency
     * (101 cycles), since a line holds its MSHR until its data arrives. */
    memsys_req_t r = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE, 128);
    uint64_t ready = memsys_access(&ms, 0, 0, &r, &res);
    assert_true(ready >= 8 * 101);
    assert_true(ready <= 8 * 110);
    /* The LSU stalls too: it accepts the next request only after the
     * last line got its MSHR (in the 8th round). */
    assert_true(res.accepted >= 7 * 101);
    /* Only the first line of rounds 2..8 waits: the lines of a round are
     * looked up one cycle apart, just as the previous round's lines free
     * their MSHRs one cycle apart. */
    assert_int_equal(memsys_sm_stats(&ms, 0)->mshr_waits, 7);
    /* Hits need no MSHR: a hit right after is not delayed by the limit. */
    memsys_req_t h = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 31 * 128, 0);
    assert_int_equal(memsys_access(&ms, 0, ready, &h, NULL), ready + 10);
    memsys_free(&ms);
}

static void test_stores(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    init_ok(&ms, &c);
    /* One full line stored: the LSU is busy 1 cycle, the 4 sectors enter
     * the L2 slice at cycles 0..3; the store is done when the last is. */
    memsys_req_t st = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE, 4);
    assert_int_equal(memsys_access(&ms, 0, 0, &st, &res), 3);
    assert_int_equal(res.l2_misses, 4);         /* allocated, not fetched */
    assert_int_equal(res.dram_bytes, 0);
    assert_int_equal(res.l1_hits + res.l1_misses, 0);
    /* L1 is write-through no-allocate: a load misses L1 and hits L2:
     * sectors through the slice at 10..13, + 1 + lat_l2. */
    memsys_req_t ld = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE, 4);
    assert_int_equal(memsys_access(&ms, 0, 10, &ld, &res), 13 + 1 + 50);
    assert_int_equal(res.l1_misses, 4);
    assert_int_equal(res.l2_hits, 4);
    assert_int_equal(res.dram_bytes, 0);
    memsys_free(&ms);

    /* Write-back: storing 128 distinct lines (16 KB) into the 8 KB L2
     * (64 lines) evicts the first 64, all 4 sectors dirty. */
    init_ok(&ms, &c);
    uint64_t now = 0, done = 0;
    for (uint32_t i = 0; i < 128; i++) {
        memsys_req_t s = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE + i * 128, 4);
        done = memsys_access(&ms, 0, now, &s, &res);
        now = done;
    }
    memsys_stats_t tot;
    memsys_totals(&ms, &tot);
    assert_int_equal(tot.dram_write_bytes, 64 * 128);
    assert_int_equal(tot.dram_read_bytes, 0);
    assert_int_equal(tot.gst_sectors, 128 * 4);
    assert_int_equal(tot.gst_bytes, 128 * 128);
    /* A store stream cannot beat the L2: 512 sectors over 2 slices at one
     * sector per cycle each is at least 256 cycles. */
    assert_true(done >= 250);
    memsys_free(&ms);
}

/* The L2's write-back buffer (memsys.h step 5, MEMSYS_WB_LINES lines per
 * slice): stores that evict dirty lines go on at the L2's pace while the
 * buffers have room, however slow the DRAM, and at the DRAM's pace once
 * they are full. edu's L2 holds 64 lines in 2 slices; a DRAM of 1 B/cycle
 * takes 128 cycles per 32-byte sector on each of its 4 channels. */
static void test_writeback_buffer(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    c.dram_gbps = 1.0;
    init_ok(&ms, &c);
    uint64_t now = 0;
    uint32_t line = 0;
    for (; line < 64; line++) {                  /* fill the L2 with dirty lines */
        memsys_req_t s = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE + line * 128, 4);
        now = memsys_access(&ms, 0, now, &s, &res);
    }
    uint64_t t0 = now;
    uint32_t room = MEMSYS_WB_LINES;             /* the buffers of both slices hold 2 x this */
    for (; line < 64 + room; line++) {           /* each evicts a dirty line: room for all */
        memsys_req_t s = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE + line * 128, 4);
        now = memsys_access(&ms, 0, now, &s, &res);
    }
    uint64_t t1 = now;
    /* 4 sectors per line through the slices: ~4 cycles a line, not the
     * 128 x 4 / 4 = 128 cycles a line the DRAM needs */
    assert_true(t1 - t0 <= 8 * room);
    for (; line < 64 + 4 * room; line++) {       /* now the buffers fill and stay full */
        memsys_req_t s = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE + line * 128, 4);
        now = memsys_access(&ms, 0, now, &s, &res);
    }
    uint64_t t2 = now;
    /* 3 x room lines more: once the buffers are full, each line waits for
     * the write-back MEMSYS_WB_LINES lines before it (at its slice) to
     * start, so the stores run at the DRAM's pace, 128 cycles a line over
     * the 4 channels (without the buffer limit this phase would take
     * ~4 cycles a line, with a 1-line buffer phase 1 would not pass) */
    assert_true(t2 - t1 >= 100 * room);
    memsys_stats_t tot;
    memsys_totals(&ms, &tot);
    assert_int_equal(tot.dram_write_bytes, (uint64_t)4 * room * 128);   /* every evicted line, once */
    memsys_free(&ms);
}

static void test_reset(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    init_ok(&ms, &c);
    memsys_req_t one = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE, 0);
    assert_int_equal(memsys_access(&ms, 0, 0, &one, NULL), 101);
    memsys_reset(&ms, 0);                       /* warm: L1 still holds it */
    assert_int_equal(memsys_sm_stats(&ms, 0)->gld_requests, 0);
    assert_int_equal(memsys_access(&ms, 0, 0, &one, NULL), 10);
    memsys_reset(&ms, 1);                       /* flushed: DRAM again */
    assert_int_equal(memsys_access(&ms, 0, 0, &one, NULL), 101);
    memsys_free(&ms);
}

static void test_empty_mask_and_totals(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    init_ok(&ms, &c);
    memsys_req_t none = req(MEMSYS_GLOBAL, 0, 4, 0, BASE, 4);
    assert_int_equal(memsys_access(&ms, 0, 7, &none, &res), 7);
    assert_int_equal(res.lines, 0);
    assert_int_equal(memsys_sm_stats(&ms, 0)->gld_requests, 0);
    memsys_req_t a = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE, 4);
    memsys_req_t b = req(MEMSYS_GLOBAL, 0, 8, ALL, BASE + 4096, 8);
    memsys_access(&ms, 0, 10, &a, NULL);
    memsys_access(&ms, 1, 10, &b, NULL);
    memsys_stats_t tot;
    memsys_totals(&ms, &tot);
    assert_int_equal(tot.gld_requests, 2);
    assert_int_equal(tot.gld_bytes, 128 + 256);
    assert_int_equal(tot.gld_sectors, 4 + 8);
    assert_int_equal(tot.lines, 3);
    assert_int_equal(tot.l1_misses, 12);
    assert_int_equal(tot.dram_read_bytes, 384);
    memsys_free(&ms);
}

/* ---- H200 calibration ------------------------------------------------ */

static void test_h200_dependent_chain(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = h200_cfg();
    init_ok(&ms, &c);
    /* Pointer chase over 16 never-touched lines about 1 MB apart (plus one
     * line, so that they fall in different L1 sets: exactly 1 MB apart they
     * would all share one 4-way set and evict each other), one thread:
     * each load waits for the previous one. Measured: 672 cycles. */
    uint64_t now = 0;
    for (uint32_t i = 0; i < 16; i++) {
        memsys_req_t r = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + i * ((1u << 20) + 128), 0);
        uint64_t ready = memsys_access(&ms, 0, now, &r, NULL);
        /* lat_dram plus a 32-byte burst at ~139 B/cycle per channel. */
        assert_in_range(ready - now, 670, 671);
        now = ready;
    }
    /* The same chain again on SM 0: L1 hits (measured 40-46). */
    for (uint32_t i = 0; i < 16; i++) {
        memsys_req_t r = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + i * ((1u << 20) + 128), 0);
        uint64_t ready = memsys_access(&ms, 0, now, &r, NULL);
        assert_int_equal(ready - now, 40);
        now = ready;
    }
    /* On SM 1: L2 hits (measured 287 near): lat_l2 plus one sector
     * through a slice (2816 B/clk over 88 slices = 32 B/clk: 1 cycle). */
    assert_int_equal(ms.l2_slices, 88);
    for (uint32_t i = 0; i < 16; i++) {
        memsys_req_t r = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + i * ((1u << 20) + 128), 0);
        uint64_t ready = memsys_access(&ms, 1, now, &r, NULL);
        assert_int_equal(ready - now, 291);
        now = ready;
    }
    /* Shared memory pointer chase (measured 29). */
    memsys_req_t s = req(MEMSYS_SHARED, 0, 4, 1u, 64, 0);
    assert_int_equal(memsys_access(&ms, 2, now, &s, NULL) - now, 29);
    memsys_free(&ms);
}

/* Stream float4 loads from `sms` SMs, `loads` warp loads each (512 bytes,
 * 4 lines), grid-stride over consecutive addresses starting at base. Each
 * SM issues its next load as soon as its LSU accepts it (independent
 * loads: as many in flight as the MSHRs allow). Calls are made in global
 * time order (the SM with the earliest next issue goes first). Returns
 * the cycle the last load's data is ready. */
static uint64_t stream(memsys_t *ms, uint32_t sms, uint32_t sm_offset, uint32_t loads,
                       uint32_t base)
{
    uint64_t *next = calloc(sms, sizeof *next);
    uint32_t *done = calloc(sms, sizeof *done);
    uint64_t last = 0;
    assert_non_null(next);
    assert_non_null(done);
    for (uint64_t n = 0; n < (uint64_t)sms * loads; n++) {
        uint32_t pick = UINT32_MAX;
        for (uint32_t i = 0; i < sms; i++)
            if (done[i] < loads && (pick == UINT32_MAX || next[i] < next[pick]))
                pick = i;
        uint32_t chunk = done[pick] * sms + pick;
        memsys_req_t r = req(MEMSYS_GLOBAL, 0, 16, ALL, base + chunk * 512u, 16);
        memsys_result_t res;
        uint32_t sm = (pick + sm_offset) % sms;
        uint64_t ready = memsys_access(ms, sm, next[pick], &r, &res);
        next[pick] = res.accepted;
        done[pick]++;
        if (ready > last)
            last = ready;
    }
    free(next);
    free(done);
    return last;
}

static void test_h200_streaming_bandwidth(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = h200_cfg();
    init_ok(&ms, &c);
    const uint32_t loads = 400;                 /* 132 x 400 x 512 B = 27 MB */
    uint64_t cycles = stream(&ms, 132, 0, loads, BASE);
    memsys_stats_t tot;
    memsys_totals(&ms, &tot);
    uint64_t bytes = 132ull * loads * 512;
    assert_int_equal(tot.dram_read_bytes, bytes); /* every sector cold */
    double achieved = (double)bytes / (double)cycles;
    double target = memsys_dram_bytes_per_cycle(&c); /* 2230 B/clk = 4416 GB/s */
    assert_true(target > 2229.0 && target < 2231.0);
    print_message("  streaming: %.0f B/cycle = %.0f GB/s (target %.0f B/cycle)\n",
                  achieved, achieved * c.clock_mhz / 1000.0, target);
    assert_true(achieved > 0.85 * target);
    assert_true(achieved < 1.01 * target);      /* cannot beat the channels */
    memsys_free(&ms);
}

static void test_h200_littles_law(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = h200_cfg();
    /* With 4 MSHRs an SM has one float4 warp load (4 lines) in flight, so
     * bandwidth = 132 x 512 B / latency (~671 cycles) = ~100 B/cycle,
     * far below the DRAM's 2230 (the measured 1-warp-per-SM row: 165 GB/s
     * = 83 B/cycle, with loop overhead on top of the latency). */
    c.max_mem_inflight = 4;
    init_ok(&ms, &c);
    const uint32_t loads = 20;
    uint64_t cycles = stream(&ms, 132, 0, loads, BASE);
    double achieved = 132.0 * loads * 512 / (double)cycles;
    double expect = 132.0 * 512 / 671.0;
    print_message("  1 load in flight per SM: %.1f B/cycle (Little's law %.1f)\n",
                  achieved, expect);
    assert_true(achieved > 0.85 * expect && achieved < 1.15 * expect);
    memsys_free(&ms);
}

static void test_h200_l2_bandwidth(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = h200_cfg();
    init_ok(&ms, &c);
    /* Fill the L2 with 13.5 MB, then start again at cycle 0 with warm
     * caches, each SM reading what its neighbour read: L1 misses, L2 hits,
     * limited by l2_bytes_per_clk. */
    const uint32_t loads = 200;
    stream(&ms, 132, 0, loads, BASE);
    memsys_reset(&ms, 0);
    uint64_t cycles = stream(&ms, 132, 1, loads, BASE);
    memsys_stats_t tot;
    memsys_totals(&ms, &tot);
    assert_int_equal(tot.dram_read_bytes, 0);
    assert_int_equal(tot.l2_hits, 132ull * loads * 16);
    double achieved = 132.0 * loads * 512 / (double)cycles;
    print_message("  L2 hits: %.0f B/cycle (l2_bytes_per_clk %.0f)\n",
                  achieved, c.l2_bytes_per_clk);
    assert_true(achieved > 0.80 * c.l2_bytes_per_clk);
    assert_true(achieved < 1.01 * c.l2_bytes_per_clk);
    memsys_free(&ms);
}

/* dram_fetch_bytes = 64: an L2 load miss fetches the aligned pair of
 * sectors (two bursts of one cycle each on edu_cfg's channels), fills the
 * sector nobody asked for clean, and fetches only what is absent. */
static void test_dram_fetch_block(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    c.dram_fetch_bytes = 64;
    init_ok(&ms, &c);
    assert_int_equal(ms.spf, 2);

    /* One sector missed: 64 bytes from DRAM, 2 bursts: 0 + 2 + lat_dram. */
    memsys_req_t one = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE, 0);
    assert_int_equal(memsys_access(&ms, 0, 0, &one, &res), 102);
    assert_int_equal(res.l2_misses, 1);
    assert_int_equal(res.dram_bytes, 64);
    /* Its neighbour came with it: another SM hits in L2 (1 + lat_l2). */
    memsys_req_t next = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 32, 0);
    assert_int_equal(memsys_access(&ms, 1, 200, &next, &res), 200 + 1 + 50);
    assert_int_equal(res.l2_hits, 1);
    assert_int_equal(res.dram_bytes, 0);
    /* ... and waits for the fill if it asks before the block arrived. */
    memsys_req_t far = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 8192, 0);
    assert_int_equal(memsys_access(&ms, 0, 300, &far, &res), 300 + 2 + 100);
    memsys_req_t farn = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 8192 + 32, 0);
    assert_int_equal(memsys_access(&ms, 1, 301, &farn, &res), 402);

    /* Stride 16 floats (64 bytes): two lanes per line, sectors 0 and 2,
     * two fetch blocks: the whole 128-byte line for 8 useful bytes. */
    memsys_req_t s16 = req(MEMSYS_GLOBAL, 0, 4, 3u, BASE + 2048, 64);
    memsys_access(&ms, 0, 500, &s16, &res);
    assert_int_equal(res.l2_misses, 2);
    assert_int_equal(res.dram_bytes, 128);
    /* Stride 8 (32 bytes): all 4 sectors asked for, still 128 bytes. */
    memsys_req_t s8 = req(MEMSYS_GLOBAL, 0, 4, 0xFu, BASE + 4096, 32);
    memsys_access(&ms, 0, 600, &s8, &res);
    assert_int_equal(res.l2_misses, 4);
    assert_int_equal(res.dram_bytes, 128);

    /* Half of a block already present (a store wrote sector 3): a load of
     * sector 2 fetches only its own 32 bytes. */
    memsys_req_t st3 = req(MEMSYS_GLOBAL, 1, 4, 1u, BASE + 6144 + 96, 0);
    memsys_access(&ms, 0, 700, &st3, &res);
    assert_int_equal(res.dram_bytes, 0);
    memsys_req_t ld2 = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 6144 + 64, 0);
    assert_int_equal(memsys_access(&ms, 0, 800, &ld2, &res), 800 + 1 + 100);
    assert_int_equal(res.dram_bytes, 32);
    memsys_stats_t tot;
    memsys_totals(&ms, &tot);
    assert_int_equal(tot.dram_read_bytes, 64 + 64 + 128 + 128 + 32);
    memsys_free(&ms);

    /* Bad values are named. */
    simt_err_t err;
    c.dram_fetch_bytes = 48;
    assert_int_equal(memsys_init(&ms, &c, &err), -1);
    assert_non_null(strstr(err.msg, "dram_fetch_bytes"));
    c.dram_fetch_bytes = 256;
    assert_int_equal(memsys_init(&ms, &c, &err), -1);
    assert_non_null(strstr(err.msg, "dram_fetch_bytes"));
}

/* The write-back at the end of a launch fills the DRAM channels' idle
 * time; what does not fit extends the launch, so bytes / time never beats
 * the channels' rate (edu_cfg: 4 channels of 32 bytes per cycle). */
static void test_writeback_timed(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    uint64_t done = 0;
    init_ok(&ms, &c);
    /* One dirty line (4 bursts on one channel) after a 10-cycle launch:
     * it fits in the idle time, the launch still ends at 10. */
    memsys_req_t st = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE, 4);
    memsys_access(&ms, 0, 0, &st, &res);
    assert_int_equal(memsys_writeback_all(&ms, 10, &done), 128);
    assert_int_equal(done, 10);
    /* Nothing dirty any more: nothing to write, no time. */
    assert_int_equal(memsys_writeback_all(&ms, 10, &done), 0);
    assert_int_equal(done, 10);
    memsys_free(&ms);

    /* 32 dirty lines (4 KB: 16 interleave blocks, 4 per channel, 32
     * bursts per channel) left by a launch that ended at cycle 20: each
     * channel had 20 idle cycles, 12 bursts are left over: done at 32.
     * 4096 bytes in 32 cycles = 128 bytes per cycle, the channels' peak. */
    init_ok(&ms, &c);
    for (uint32_t i = 0; i < 32; i++) {
        memsys_req_t s = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE + i * 128, 4);
        memsys_access(&ms, 0, 0, &s, &res);
    }
    assert_int_equal(memsys_writeback_all(&ms, 20, &done), 4096);
    assert_int_equal(done, 32);
    memsys_free(&ms);

    /* A channel busy all launch long (reads) has no idle time: its share
     * of the write-back comes after the end. */
    init_ok(&ms, &c);
    memsys_req_t ld = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE + 65536, 4);
    memsys_access(&ms, 0, 0, &ld, &res);          /* 4 bursts on one channel: busy 0..4 */
    memsys_req_t st2 = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE + 65536 + 128, 4);
    memsys_access(&ms, 0, 1, &st2, &res);         /* same 256-byte block: same channel */
    assert_int_equal(memsys_writeback_all(&ms, 4, &done), 128);
    assert_int_equal(done, 4 + 4);
    memsys_free(&ms);
}

/* memsys_warm: a range put into L2 clean before a launch is an L2 hit,
 * costs no DRAM bytes, counts no hits or misses while warming, and leaves
 * the sectors outside the range missing. */
static void test_warm_l2(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    init_ok(&ms, &c);
    memsys_warm(&ms, BASE + 8, 192);   /* bytes 8..199: line 0 all, line 1 sectors 0..2 */
    assert_int_equal(ms.l2.st.load_hits + ms.l2.st.load_misses, 0);
    memsys_req_t a = req(MEMSYS_GLOBAL, 0, 4, ALL, BASE, 4);
    assert_int_equal(memsys_access(&ms, 0, 0, &a, &res), 3 + 1 + 50);
    assert_int_equal(res.l2_hits, 4);
    assert_int_equal(res.dram_bytes, 0);
    memsys_req_t b = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 128 + 64, 0);
    memsys_access(&ms, 0, 100, &b, &res);
    assert_int_equal(res.l2_hits, 1);
    memsys_req_t m = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 128 + 96, 0);
    memsys_access(&ms, 0, 200, &m, &res);
    assert_int_equal(res.l2_misses, 1);
    assert_int_equal(res.dram_bytes, 32);
    /* warm data is clean: nothing to write back */
    uint64_t done;
    assert_int_equal(memsys_writeback_all(&ms, 300, &done), 0);
    memsys_free(&ms);
}

/* Two L2 partitions: SMs 0 and 2 are on side 0, SM 1 on side 1; line
 * BASE + 128 is homed on side 1 (slice 1 of 2). lat_l2 50, far 80. */
static void test_l2_partitions(void **state)
{
    (void)state;
    memsys_t ms;
    memsys_cfg_t c = edu_cfg();
    memsys_result_t res;
    c.sms = 4;
    c.l2_partitions = 2;
    c.lat_l2_far = 80;
    init_ok(&ms, &c);
    assert_int_equal(ms.parts, 2);
    memsys_req_t a = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 128, 0);
    /* side 0 reads a side-1 line: near miss, home miss, DRAM (1 burst) */
    assert_int_equal(memsys_access(&ms, 0, 0, &a, &res), 0 + 1 + 100);
    assert_int_equal(res.l2_misses, 1);
    assert_int_equal(res.l2_hits, 0);
    assert_int_equal(res.dram_bytes, 32);
    /* its home side hits at lat_l2 */
    assert_int_equal(memsys_access(&ms, 1, 200, &a, &res), 200 + 1 + 50);
    assert_int_equal(res.l2_hits, 1);
    /* another side-0 SM finds the near copy: lat_l2 */
    assert_int_equal(memsys_access(&ms, 2, 300, &a, &res), 300 + 1 + 50);
    assert_int_equal(res.l2_hits, 1);
    assert_int_equal(res.dram_bytes, 0);
    /* a side-1 line first read by side 1, then by side 0: a far hit */
    memsys_req_t b = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 128 + 32, 0);
    memsys_access(&ms, 1, 400, &b, &res);
    assert_int_equal(memsys_access(&ms, 0, 600, &b, &res), 600 + 1 + 80);
    assert_int_equal(res.l2_hits, 1);
    assert_int_equal(res.l2_misses, 0);
    /* then the copy is near for side 0 */
    assert_int_equal(memsys_access(&ms, 2, 700, &b, &res), 700 + 1 + 50);
    /* a side-0 line read by side 0: home, lat_l2, no copy business */
    memsys_req_t h = req(MEMSYS_GLOBAL, 0, 4, 1u, BASE + 4096, 0);
    memsys_access(&ms, 0, 800, &h, &res);
    assert_int_equal(memsys_access(&ms, 2, 1000, &h, &res), 1000 + 1 + 50);
    /* stores go to the home half, and the write-back finds them there */
    memsys_req_t st = req(MEMSYS_GLOBAL, 1, 4, ALL, BASE + 8192, 4);
    memsys_access(&ms, 0, 1100, &st, &res);
    uint64_t done;
    assert_int_equal(memsys_writeback_all(&ms, 2000, &done), 128);
    memsys_free(&ms);
}

static void test_cfg_from_desc_and_errors(void **state)
{
    (void)state;
    gpu_desc_t d;
    memsys_cfg_t c;
    memsys_t ms;
    simt_err_t err;
    memset(&d, 0, sizeof d);
    d.sms = 132;
    d.clock_mhz = 1980.0;
    d.lat_smem = 29;
    d.lat_l1 = 40;
    d.lat_l2 = 290;
    d.lat_dram = 670;
    d.smem_banks = 32;
    d.l1_bytes = 131072;
    d.l1_assoc = 4;
    d.l2_bytes = 62914560;
    d.l2_assoc = 16;
    d.line_bytes = 128;
    d.sector_bytes = 32;
    d.l2_bytes_per_clk = 2816.0;
    d.dram_gbps = 4800.0;
    d.dram_channels = 16;
    d.dram_efficiency = 0.92;
    d.max_mem_inflight = 256;
    memsys_cfg_from_desc(&c, &d);
    assert_int_equal(c.sms, 132);
    assert_int_equal(c.lat_dram, 670);
    assert_int_equal(c.l2_bytes, 62914560);
    assert_int_equal(c.max_mem_inflight, 256);
    assert_true(c.dram_efficiency == 0.92);
    assert_int_equal(c.dram_channels, 16);
    assert_int_equal(c.dram_interleave, 256);
    memsys_cfg_t h = h200_cfg();
    assert_memory_equal(&c, &h, sizeof c);      /* same as the hand-made one */
    d.dram_channels = 192;                      /* the preset's DRAM fields are copied */
    d.dram_trefi_ns = 3900.0;
    d.dram_refresh_ns = 235.0;
    memsys_cfg_from_desc(&c, &d);
    assert_int_equal(c.dram_channels, 192);
    assert_true(c.dram_trefi_ns == 3900.0 && c.dram_refresh_ns == 235.0);
    d.dram_channels = 16;
    d.dram_trefi_ns = d.dram_refresh_ns = 0.0;
    memsys_cfg_from_desc(&c, &d);

    c.max_mem_inflight = 0;
    assert_int_equal(memsys_init(&ms, &c, &err), -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    assert_non_null(strstr(err.msg, "max_mem_inflight"));
    c = edu_cfg();
    c.l1_assoc = 0;
    assert_int_equal(memsys_init(&ms, &c, &err), -1);
    assert_non_null(strstr(err.msg, "L1"));
    c = edu_cfg();
    c.l2_bytes = 100;
    assert_int_equal(memsys_init(&ms, &c, &err), -1);
    assert_non_null(strstr(err.msg, "L2"));
    c = edu_cfg();
    c.dram_channels = 0;
    assert_int_equal(memsys_init(&ms, &c, &err), -1);
    assert_non_null(strstr(err.msg, "channels"));
    c = edu_cfg();
    c.dram_efficiency = 1.5;
    assert_int_equal(memsys_init(&ms, &c, &err), -1);
    assert_non_null(strstr(err.msg, "dram_efficiency"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edu_latency_per_level),
        cmocka_unit_test(test_edu_shared_memory),
        cmocka_unit_test(test_pending_fill_is_waited_for),
        cmocka_unit_test(test_coalescing_costs_lsu_cycles),
        cmocka_unit_test(test_mshr_limit),
        cmocka_unit_test(test_stores),
        cmocka_unit_test(test_writeback_buffer),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_empty_mask_and_totals),
        cmocka_unit_test(test_h200_dependent_chain),
        cmocka_unit_test(test_h200_streaming_bandwidth),
        cmocka_unit_test(test_h200_littles_law),
        cmocka_unit_test(test_h200_l2_bandwidth),
        cmocka_unit_test(test_dram_fetch_block),
        cmocka_unit_test(test_writeback_timed),
        cmocka_unit_test(test_warm_l2),
        cmocka_unit_test(test_l2_partitions),
        cmocka_unit_test(test_cfg_from_desc_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
