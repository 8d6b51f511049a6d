/* test_cache.c - sectored set-associative LRU cache (cache.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bits.h"
#include "cache.h"

/* A tiny cache: 2 sets x 2 ways x 128-byte lines (32-byte sectors).
 * Line L (address L * 128) lives in set L % 2, so lines 0, 2, 4 (byte
 * addresses 0, 256, 512) compete for the two ways of set 0. */
static void tiny(cache_t *c, cache_policy_t p)
{
    simt_err_t err;
    assert_int_equal(cache_init(c, "tiny", 512, 2, 128, 32, p, &err), 0);
    assert_int_equal(c->nsets, 2);
    assert_int_equal(cache_nlines(c), 4);
}

static void test_miss_then_hit(void **state)
{
    (void)state;
    cache_t c;
    uint32_t miss;
    tiny(&c, CACHE_WRITE_THROUGH);
    assert_int_equal(cache_lookup(&c, 0, 0xF, 0, &miss, NULL), 0);
    assert_int_equal(miss, 0xF);
    assert_int_equal(cache_lookup(&c, 0, 0xF, 0, &miss, NULL), 0xF);
    assert_int_equal(miss, 0);
    /* Any address inside the line finds it. */
    assert_int_equal(cache_lookup(&c, 100, 0x1, 0, &miss, NULL), 0x1);
    assert_int_equal(c.st.load_misses, 4);
    assert_int_equal(c.st.load_hits, 5);
    cache_free(&c);
}

static void test_sectors_fill_separately(void **state)
{
    (void)state;
    cache_t c;
    uint32_t miss;
    tiny(&c, CACHE_WRITE_THROUGH);
    assert_int_equal(cache_lookup(&c, 128, 0x1, 0, &miss, NULL), 0);
    assert_int_equal(cache_lookup(&c, 128, 0x3, 0, &miss, NULL), 0x1);
    assert_int_equal(miss, 0x2);
    assert_true(cache_probe(&c, 128, 0x3));
    assert_false(cache_probe(&c, 128, 0x4));
    cache_free(&c);
}

static void test_lru_eviction_order(void **state)
{
    (void)state;
    cache_t c;
    cache_info_t info;
    tiny(&c, CACHE_WRITE_THROUGH);
    cache_lookup(&c, 0, 0x1, 0, NULL, &info);     /* set 0: {0}          */
    assert_false(info.evicted);
    cache_lookup(&c, 256, 0x1, 0, NULL, &info);   /* set 0: {0, 256}     */
    assert_false(info.evicted);
    cache_lookup(&c, 128, 0x1, 0, NULL, &info);   /* set 1 is separate   */
    assert_false(info.evicted);
    cache_lookup(&c, 0, 0x1, 0, NULL, NULL);      /* 0 now most recent   */
    cache_lookup(&c, 512, 0x1, 0, NULL, &info);   /* evicts 256 (LRU)    */
    assert_true(info.evicted);
    assert_int_equal(info.victim_addr, 256);
    assert_true(cache_probe(&c, 0, 0x1));
    assert_false(cache_probe(&c, 256, 0x1));
    assert_true(cache_probe(&c, 512, 0x1));
    assert_true(cache_probe(&c, 128, 0x1));
    cache_lookup(&c, 256, 0x1, 0, NULL, &info);   /* now 0 is the LRU    */
    assert_int_equal(info.victim_addr, 0);
    assert_int_equal(c.st.evictions, 2);
    /* probe changes nothing: 512 is still the LRU after probing it. */
    assert_true(cache_probe(&c, 512, 0x1));
    cache_lookup(&c, 1024, 0x1, 0, NULL, &info);
    assert_int_equal(info.victim_addr, 512);
    cache_free(&c);
}

static void test_write_through_no_allocate(void **state)
{
    (void)state;
    cache_t c;
    uint32_t miss;
    cache_info_t info;
    tiny(&c, CACHE_WRITE_THROUGH);
    assert_int_equal(cache_lookup(&c, 0, 0xF, 1, &miss, &info), 0);
    assert_int_equal(miss, 0xF);
    assert_int_equal(info.slot, -1);
    assert_false(cache_probe(&c, 0, 0x1));        /* not allocated */
    cache_lookup(&c, 0, 0x3, 0, NULL, NULL);      /* load sectors 0,1 */
    assert_int_equal(cache_lookup(&c, 0, 0x6, 1, &miss, NULL), 0x2);
    assert_int_equal(miss, 0x4);
    assert_false(cache_probe(&c, 0, 0x4));        /* still no allocate */
    assert_int_equal(c.st.store_hits, 1);
    assert_int_equal(c.st.store_misses, 5);
    /* Never dirty: evicting the line asks for no write-back. */
    cache_lookup(&c, 256, 0x1, 0, NULL, NULL);
    cache_lookup(&c, 512, 0x1, 0, NULL, &info);
    assert_true(info.evicted);
    assert_int_equal(info.victim_addr, 0);
    assert_int_equal(info.victim_dirty, 0);
    assert_int_equal(c.st.writebacks, 0);
    cache_free(&c);
}

static void test_write_back_allocate(void **state)
{
    (void)state;
    cache_t c;
    uint32_t miss;
    cache_info_t info;
    tiny(&c, CACHE_WRITE_BACK);
    assert_int_equal(cache_lookup(&c, 0, 0x5, 1, &miss, NULL), 0);
    assert_int_equal(miss, 0x5);
    assert_true(cache_probe(&c, 0, 0x5));         /* allocated by the store */
    assert_int_equal(cache_lookup(&c, 0, 0x1, 0, NULL, NULL), 0x1);
    cache_lookup(&c, 256, 0x1, 0, NULL, NULL);
    cache_lookup(&c, 512, 0x1, 0, NULL, &info);   /* evicts line 0 */
    assert_true(info.evicted);
    assert_int_equal(info.victim_addr, 0);
    assert_int_equal(info.victim_dirty, 0x5);
    assert_int_equal(c.st.writebacks, 2);
    /* A clean victim needs no write-back. */
    cache_lookup(&c, 0, 0x1, 0, NULL, &info);     /* evicts 256 (clean) */
    assert_int_equal(info.victim_addr, 256);
    assert_int_equal(info.victim_dirty, 0);
    cache_free(&c);
}

/* cache_clean writes back every dirty sector once: the lines stay valid,
 * a second clean finds nothing, and a later eviction needs no write-back. */
static void test_clean(void **state)
{
    (void)state;
    cache_t c;
    cache_info_t info;
    tiny(&c, CACHE_WRITE_BACK);
    cache_lookup(&c, 0, 0x5, 1, NULL, NULL);      /* 2 dirty sectors  */
    cache_lookup(&c, 128, 0xF, 1, NULL, NULL);    /* 4 dirty sectors  */
    cache_lookup(&c, 256, 0x1, 0, NULL, NULL);    /* a clean load     */
    assert_int_equal(cache_clean(&c), 6);
    assert_int_equal(cache_clean(&c), 0);
    assert_true(cache_probe(&c, 0, 0x5));
    assert_true(cache_probe(&c, 128, 0xF));
    cache_lookup(&c, 512, 0x1, 0, NULL, &info);   /* evicts line 0 (LRU in set 0) */
    assert_true(info.evicted);
    assert_int_equal(info.victim_addr, 0);
    assert_int_equal(info.victim_dirty, 0);
    cache_free(&c);
}

static void test_pending_ready(void **state)
{
    (void)state;
    cache_t c;
    cache_info_t info;
    tiny(&c, CACHE_WRITE_THROUGH);
    cache_lookup(&c, 0, 0x3, 0, NULL, &info);
    assert_true(info.slot >= 0);
    assert_int_equal(info.ready, 0);              /* no hit sectors */
    cache_set_ready(&c, info.slot, 0x1, 500);
    cache_set_ready(&c, info.slot, 0x2, 700);
    cache_lookup(&c, 0, 0x1, 0, NULL, &info);
    assert_int_equal(info.ready, 500);
    cache_lookup(&c, 0, 0x3, 0, NULL, &info);
    assert_int_equal(info.ready, 700);            /* latest of the hits */
    cache_clear_times(&c);
    cache_lookup(&c, 0, 0x3, 0, NULL, &info);
    assert_int_equal(info.ready, 0);
    assert_true(cache_probe(&c, 0, 0x3));         /* contents kept */
    cache_flush(&c);
    assert_false(cache_probe(&c, 0, 0x1));
    cache_free(&c);
}

/* Flush, clean and clear_times visit only the sets used since the last
 * flush (cache.h): a set used before a flush and one used only after it
 * must both be handled, and a flushed cache behaves like a new one. */
static void test_flush_then_reuse(void **state)
{
    (void)state;
    cache_t c;
    cache_info_t info;
    uint32_t miss;
    tiny(&c, CACHE_WRITE_BACK);
    cache_lookup(&c, 0, 0x3, 1, NULL, NULL);      /* set 0: 2 dirty sectors */
    cache_lookup(&c, 256, 0x1, 0, NULL, &info);   /* set 0, second way      */
    cache_set_ready(&c, info.slot, 0x1, 900);
    assert_int_equal(c.ntouched, 1);
    cache_flush(&c);
    assert_int_equal(c.ntouched, 0);
    assert_false(cache_probe(&c, 0, 0x1));
    assert_false(cache_probe(&c, 256, 0x1));
    assert_int_equal(cache_clean(&c), 0);         /* dirty data was dropped */
    /* the same line again: a miss with no eviction and no old ready time */
    assert_int_equal(cache_lookup(&c, 256, 0x1, 0, &miss, &info), 0);
    assert_int_equal(miss, 0x1);
    assert_false(info.evicted);
    assert_int_equal(cache_lookup(&c, 256, 0x1, 0, NULL, &info), 0x1);
    assert_int_equal(info.ready, 0);
    /* set 1, first used after the flush, is cleaned and cleared too */
    cache_lookup(&c, 128, 0xF, 1, NULL, &info);
    cache_set_ready(&c, info.slot, 0x1, 300);
    assert_int_equal(c.ntouched, 2);
    cache_clear_times(&c);
    cache_lookup(&c, 128, 0x1, 0, NULL, &info);
    assert_int_equal(info.ready, 0);
    assert_int_equal(cache_clean(&c), 4);
    assert_int_equal(cache_clean(&c), 0);
    cache_free(&c);
}

static void test_geometry_and_errors(void **state)
{
    (void)state;
    cache_t c;
    simt_err_t err;
    /* 640 bytes, 2 ways of 128: 2.5 sets, rounded down to 2. */
    assert_int_equal(cache_init(&c, "x", 640, 2, 128, 32, CACHE_WRITE_BACK, &err), 0);
    assert_int_equal(c.nsets, 2);
    cache_free(&c);
    /* Direct-mapped, 3 sets (not a power of two): line L in set L % 3. */
    assert_int_equal(cache_init(&c, "x", 384, 1, 128, 32, CACHE_WRITE_BACK, &err), 0);
    cache_lookup(&c, 0, 1, 0, NULL, NULL);
    cache_lookup(&c, 128, 1, 0, NULL, NULL);
    cache_lookup(&c, 256, 1, 0, NULL, NULL);
    assert_true(cache_probe(&c, 0, 1) && cache_probe(&c, 128, 1) && cache_probe(&c, 256, 1));
    cache_lookup(&c, 384, 1, 0, NULL, NULL);      /* set 0 again */
    assert_false(cache_probe(&c, 0, 1));
    cache_free(&c);

    assert_int_equal(cache_init(&c, "L1", 512, 0, 128, 32, CACHE_WRITE_BACK, &err), -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    assert_non_null(strstr(err.msg, "L1"));
    assert_int_equal(cache_init(&c, "L1", 512, 2, 96, 32, CACHE_WRITE_BACK, &err), -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    assert_int_equal(cache_init(&c, "L1", 4096, 2, 512, 32, CACHE_WRITE_BACK, &err), -1);
    assert_non_null(strstr(err.msg, "sectors per line"));
    assert_int_equal(cache_init(&c, "L1", 128, 2, 128, 32, CACHE_WRITE_BACK, &err), -1);
    assert_non_null(strstr(err.msg, "one set"));
}

/* The sector-mask popcount (bits.h) agrees with counting bit by bit, for
 * every 8-bit mask. */
static void test_popcount8(void **state)
{
    (void)state;
    for (uint32_t x = 0; x < 256; x++) {
        uint32_t n = 0;
        for (uint32_t b = 0; b < 8; b++)
            n += x >> b & 1u;
        assert_int_equal(bits_popcount8(x), n);
        assert_int_equal(bits_popcount32(x), n);
    }
}

/* A line looked up just before it was evicted misses afterwards, and
 * LRU keeps choosing the oldest way. */
static void test_evicted_line_misses(void **state)
{
    (void)state;
    cache_t c;
    uint32_t miss;
    tiny(&c, CACHE_WRITE_BACK);
    cache_lookup(&c, 0, 1u, 0, &miss, NULL);        /* line 0 -> set 0 */
    cache_lookup(&c, 256, 1u, 0, &miss, NULL);      /* line 2 -> set 0 */
    cache_lookup(&c, 512, 1u, 0, &miss, NULL);      /* line 4 evicts line 0 */
    assert_int_equal(miss, 1u);
    assert_int_equal(cache_lookup(&c, 512, 1u, 0, &miss, NULL), 1u);   /* present: a hit */
    assert_int_equal(cache_lookup(&c, 0, 1u, 0, &miss, NULL), 0u);     /* gone: a miss */
    assert_int_equal(miss, 1u);
    assert_int_equal(cache_lookup(&c, 256, 1u, 0, &miss, NULL), 0u);   /* evicted by line 0 */
    assert_int_equal(cache_lookup(&c, 0, 1u, 0, &miss, NULL), 1u);
    cache_free(&c);
}


/* Hashed set index: lines a power-of-two stride apart that the linear
 * index puts in one set (and so evict each other) are spread over sets.
 * 8 sets x 2 ways; stride 8 lines = 1 KB. */
static void test_hashed_sets(void **state)
{
    (void)state;
    simt_err_t err;
    cache_t lin, hash;
    assert_int_equal(cache_init(&lin, "lin", 2048, 2, 128, 32, CACHE_WRITE_BACK, &err), 0);
    assert_int_equal(cache_init(&hash, "hash", 2048, 2, 128, 32, CACHE_WRITE_BACK, &err), 0);
    cache_set_hashing(&hash, 1);
    for (uint32_t i = 0; i < 4; i++) {
        cache_lookup(&lin, i * 1024, 1u, 0, NULL, NULL);
        cache_lookup(&hash, i * 1024, 1u, 0, NULL, NULL);
    }
    /* linear: all four in set 0, two ways: the first two are gone */
    assert_int_equal(cache_probe(&lin, 0, 1u), 0);
    assert_int_equal(cache_probe(&lin, 3 * 1024, 1u), 1);
    assert_int_equal(lin.st.evictions, 2);
    /* hashed: line numbers 0, 8, 16, 24 -> sets 0, 1, 2, 3 (8 >> 3 = 1 ...) */
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(cache_probe(&hash, i * 1024, 1u), 1);
    assert_int_equal(hash.st.evictions, 0);
    /* consecutive lines still fill every set once */
    cache_flush(&hash);
    for (uint32_t i = 0; i < 16; i++)
        cache_lookup(&hash, i * 128, 1u, 0, NULL, NULL);
    assert_int_equal(hash.st.evictions, 0);
    cache_free(&lin);
    cache_free(&hash);
}

/* cache_fill and cache_preload: sectors made valid without counting. */
static void test_fill_and_preload(void **state)
{
    (void)state;
    cache_t c;
    cache_info_t info;
    tiny(&c, CACHE_WRITE_BACK);
    cache_preload(&c, 0, 0x3u, &info);
    assert_int_equal(c.st.load_hits + c.st.load_misses, 0);
    assert_int_equal(cache_probe(&c, 0, 0x3u), 1);
    assert_int_equal(cache_valid(&c, info.slot), 0x3u);
    cache_fill(&c, info.slot, 0xCu, 77);
    assert_int_equal(cache_valid(&c, info.slot), 0xFu);
    assert_int_equal(cache_sector_ready(&c, info.slot, 3), 77);
    assert_int_equal(cache_sector_ready(&c, info.slot, 0), 0);
    assert_int_equal(cache_clean(&c), 0);   /* filled clean */
    cache_free(&c);
}


static int reject_all(void *user, uint32_t line_addr)
{
    (void)user;
    (void)line_addr;
    return 0;
}

static int only_this(void *user, uint32_t line_addr)
{
    return line_addr == *(const uint32_t *)user;
}

/* cache_lookup_if: a full set with no acceptable victim allocates nothing;
 * with one, that line goes (not the LRU one). One set of 2 ways. */
static void test_lookup_if(void **state)
{
    (void)state;
    simt_err_t err;
    cache_t c;
    cache_info_t info;
    uint32_t miss, keep = 128;
    assert_int_equal(cache_init(&c, "one", 256, 2, 128, 32, CACHE_WRITE_BACK, &err), 0);
    cache_lookup(&c, 0, 1u, 0, NULL, NULL);
    cache_lookup(&c, 128, 1u, 0, NULL, NULL);
    assert_int_equal(cache_lookup_if(&c, 256, 1u, &miss, &info, reject_all, NULL), 0);
    assert_int_equal(miss, 1u);
    assert_int_equal(info.slot, -1);
    assert_int_equal(cache_probe(&c, 0, 1u) + cache_probe(&c, 128, 1u), 2);
    /* line 0 is the LRU one, but only line 128 may go */
    cache_lookup_if(&c, 256, 1u, &miss, &info, only_this, &keep);
    assert_int_equal(info.evicted, 1);
    assert_int_equal(info.victim_addr, 128);
    assert_int_equal(cache_probe(&c, 0, 1u), 1);
    assert_int_equal(cache_probe(&c, 256, 1u), 1);
    cache_free(&c);
}

/* A hashed cache with 2^16 sets or more (an RTX 4090's or Ascend's L2):
 * the fold must keep the low bits of the tag, so neighbouring lines land
 * in different sets (shifting a 32-bit tag by 2 x 16 bits was undefined
 * and, on x86, mapped 65,536 neighbouring lines to one set). */
static void test_hash_many_sets(void **state)
{
    (void)state;
    cache_t c;
    simt_err_t err;
    uint32_t miss;
    for (uint32_t sets_log2 = 16; sets_log2 <= 17; sets_log2++) {
        assert_int_equal(cache_init(&c, "big", (size_t)128 << sets_log2, 1, 128, 32, CACHE_WRITE_BACK, &err), 0);
        cache_set_hashing(&c, 1);
        for (uint32_t line = 0; line < 64; line++)       /* 64 neighbouring lines, direct-mapped */
            cache_lookup(&c, line * 128, 0xF, 0, &miss, NULL);
        for (uint32_t line = 0; line < 64; line++)       /* all still there */
            assert_int_equal(cache_lookup(&c, line * 128, 0xF, 0, &miss, NULL), 0xF);
        cache_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_many_sets),
        cmocka_unit_test(test_miss_then_hit),
        cmocka_unit_test(test_hashed_sets),
        cmocka_unit_test(test_lookup_if),
        cmocka_unit_test(test_fill_and_preload),
        cmocka_unit_test(test_sectors_fill_separately),
        cmocka_unit_test(test_lru_eviction_order),
        cmocka_unit_test(test_write_through_no_allocate),
        cmocka_unit_test(test_write_back_allocate),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_pending_ready),
        cmocka_unit_test(test_flush_then_reuse),
        cmocka_unit_test(test_geometry_and_errors),
        cmocka_unit_test(test_popcount8),
        cmocka_unit_test(test_evicted_line_misses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
