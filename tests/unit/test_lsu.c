/* test_lsu.c - coalescer and shared-memory bank conflicts (lsu.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lsu.h"

#define BASE 0x10000000u   /* line-aligned, like a fresh allocation */
#define ALL  0xFFFFFFFFu

/* Lane i gets base + i * stride. */
static void strided(uint32_t addrs[32], uint32_t base, uint32_t stride)
{
    for (uint32_t i = 0; i < 32; i++)
        addrs[i] = base + i * stride;
}

static void test_unit_stride_aligned(void **state)
{
    (void)state;
    uint32_t a[32];
    lsu_coalesced_t co;
    strided(a, BASE, 4);                          /* 32 x 4 B = 128 B */
    assert_int_equal(lsu_coalesce(a, ALL, 4, 32, 128, &co), 1);
    assert_int_equal(co.line[0].addr, BASE);
    assert_int_equal(co.line[0].sectors, 0xF);
    assert_int_equal(co.nsectors, 4);
}

static void test_unit_stride_misaligned(void **state)
{
    (void)state;
    uint32_t a[32];
    lsu_coalesced_t co;
    strided(a, BASE + 4, 4);                      /* bytes 4..131 */
    assert_int_equal(lsu_coalesce(a, ALL, 4, 32, 128, &co), 2);
    assert_int_equal(co.nsectors, 5);
    assert_int_equal(co.line[0].addr, BASE);
    assert_int_equal(co.line[0].sectors, 0xF);
    assert_int_equal(co.line[1].addr, BASE + 128);
    assert_int_equal(co.line[1].sectors, 0x1);    /* bytes 128..131 */
}

static void test_stride_128(void **state)
{
    (void)state;
    uint32_t a[32];
    lsu_coalesced_t co;
    strided(a, BASE, 128);
    assert_int_equal(lsu_coalesce(a, ALL, 4, 32, 128, &co), 32);
    assert_int_equal(co.nsectors, 32);
    for (uint32_t i = 0; i < 32; i++) {
        assert_int_equal(co.line[i].addr, BASE + i * 128);
        assert_int_equal(co.line[i].sectors, 0x1);
    }
}

static void test_order_is_by_address(void **state)
{
    (void)state;
    uint32_t a[32];
    lsu_coalesced_t co;
    for (uint32_t i = 0; i < 32; i++)             /* lanes in reverse order */
        a[i] = BASE + (31 - i) * 256 + 96;
    assert_int_equal(lsu_coalesce(a, ALL, 4, 32, 128, &co), 32);
    for (uint32_t i = 0; i < 32; i++) {
        assert_int_equal(co.line[i].addr, BASE + i * 256);
        assert_int_equal(co.line[i].sectors, 0x8);  /* byte 96 is sector 3 */
    }
}

static void test_inactive_lanes_ignored(void **state)
{
    (void)state;
    uint32_t a[32];
    lsu_coalesced_t co;
    strided(a, BASE, 4);
    assert_int_equal(lsu_coalesce(a, 0x0000FFFFu, 4, 32, 128, &co), 1);
    assert_int_equal(co.line[0].sectors, 0x3);    /* lanes 0-15: bytes 0..63 */
    assert_int_equal(lsu_coalesce(a, 0x80000000u, 4, 32, 128, &co), 1);
    assert_int_equal(co.line[0].sectors, 0x8);    /* lane 31: byte 124 */
    /* An inactive lane with a wild address adds nothing. */
    a[5] = 0xFFFFFF00u;
    assert_int_equal(lsu_coalesce(a, ALL & ~(1u << 5), 4, 32, 128, &co), 1);
    assert_int_equal(lsu_coalesce(a, 0, 4, 32, 128, &co), 0);
    assert_int_equal(co.nsectors, 0);
}

static void test_broadcast(void **state)
{
    (void)state;
    uint32_t a[32];
    lsu_coalesced_t co;
    strided(a, BASE + 40, 0);
    assert_int_equal(lsu_coalesce(a, ALL, 4, 32, 128, &co), 1);
    assert_int_equal(co.nsectors, 1);
    assert_int_equal(co.line[0].sectors, 0x2);    /* byte 40 is sector 1 */
}

static void test_wide_and_straddling(void **state)
{
    (void)state;
    uint32_t a[32];
    lsu_coalesced_t co;
    strided(a, BASE, 16);                         /* float4: 512 B */
    assert_int_equal(lsu_coalesce(a, ALL, 16, 32, 128, &co), 4);
    assert_int_equal(co.nsectors, 16);
    strided(a, BASE, 8);                          /* 8 B x 32 = 256 B */
    assert_int_equal(lsu_coalesce(a, ALL, 8, 32, 128, &co), 2);
    /* One 8-byte access at byte 124 covers sector 3 of line 0 and
     * sector 0 of line 1. */
    a[0] = BASE + 124;
    assert_int_equal(lsu_coalesce(a, 1u, 8, 32, 128, &co), 2);
    assert_int_equal(co.line[0].sectors, 0x8);
    assert_int_equal(co.line[1].sectors, 0x1);
    /* The last bytes of the address space do not wrap to address 0. */
    a[0] = 0xFFFFFFFCu;
    assert_int_equal(lsu_coalesce(a, 1u, 4, 32, 128, &co), 1);
    assert_int_equal(co.line[0].addr, 0xFFFFFF80u);
    assert_int_equal(co.line[0].sectors, 0x8);
}

static uint32_t gcd(uint32_t x, uint32_t y)
{
    while (y) {
        uint32_t r = x % y;
        x = y;
        y = r;
    }
    return x;
}

static void test_bank_strides(void **state)
{
    (void)state;
    /* The measured H200 table: stride S words -> gcd(S, 32)-way conflict. */
    const uint32_t stride[] = {1, 2, 4, 8, 16, 32, 33};
    const uint32_t want[] = {1, 2, 4, 8, 16, 32, 1};
    uint32_t a[32];
    for (size_t i = 0; i < sizeof stride / sizeof stride[0]; i++) {
        strided(a, 0, stride[i] * 4);
        assert_int_equal(lsu_bank_wavefronts(a, ALL, 4, 32), want[i]);
    }
    for (uint32_t s = 1; s <= 96; s++) {
        strided(a, 0, s * 4);
        assert_int_equal(lsu_bank_wavefronts(a, ALL, 4, 32), gcd(s, 32));
    }
}

static void test_bank_broadcast_and_masks(void **state)
{
    (void)state;
    uint32_t a[32];
    strided(a, 64, 0);                            /* all lanes, one word */
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 4, 32), 1);
    for (uint32_t i = 0; i < 32; i++)             /* pairs share a word */
        a[i] = (i / 2) * 4;
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 4, 32), 1);
    /* Two distinct words in bank 0 (0 and 128) plus broadcasts of them. */
    for (uint32_t i = 0; i < 32; i++)
        a[i] = (i % 2) * 128;
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 4, 32), 2);
    strided(a, 0, 32 * 4);                        /* stride 32: 32-way ... */
    assert_int_equal(lsu_bank_wavefronts(a, 0x0000000Fu, 4, 32), 4); /* ... but only 4 lanes on */
    assert_int_equal(lsu_bank_wavefronts(a, 0, 4, 32), 0);
    /* Byte accesses inside one word are one word. */
    strided(a, 0, 1);
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 1, 32), 1);
}

static void test_bank_wide(void **state)
{
    (void)state;
    uint32_t a[32];
    strided(a, 0, 8);      /* 64 words over 32 banks: 2 per bank */
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 8, 32), 2);
    strided(a, 0, 16);     /* 128 words: 4 per bank */
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 16, 32), 4);
    strided(a, 0, 4);      /* 16 banks: words i and i + 16 share a bank */
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 4, 16), 2);
    /* Wide accesses also need the data path: 128 bytes (one register of
     * every lane) a cycle, halved when lane pairs share an address. */
    strided(a, 0, 0);      /* every lane the same 16 bytes: 1 bank cycle */
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 16, 32), 2);
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 8, 32), 1);
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 4, 32), 1);
    for (uint32_t i = 0; i < 32; i++)   /* lane pairs (n, n^2) share: 16 float4s */
        a[i] = 16u * ((i >> 2) * 2u + (i & 1u));
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 16, 32), 2);
    for (uint32_t i = 0; i < 32; i++)   /* tid % 4 x 16 (the forum's case): no pairs, 4 */
        a[i] = 16u * (i % 4);
    assert_int_equal(lsu_bank_wavefronts(a, ALL, 16, 32), 4);
    strided(a, 0, 16);     /* 8 lanes of .v4 are 128 bytes: 1 */
    assert_int_equal(lsu_bank_wavefronts(a, 0xFFu, 16, 32), 1);
    assert_int_equal(lsu_bank_wavefronts(a, 0x1FFu, 16, 32), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit_stride_aligned),
        cmocka_unit_test(test_unit_stride_misaligned),
        cmocka_unit_test(test_stride_128),
        cmocka_unit_test(test_order_is_by_address),
        cmocka_unit_test(test_inactive_lanes_ignored),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_wide_and_straddling),
        cmocka_unit_test(test_bank_strides),
        cmocka_unit_test(test_bank_broadcast_and_masks),
        cmocka_unit_test(test_bank_wide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
