/* test_mem.c - device memory (mem.h): allocation, zeroing, alignment,
 * copies and their bounds checks, the texts that describe a bad address,
 * capacity limits and address reuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "mem.h"
#include "support.h"

#define MB (1024u * 1024u)

static void test_alloc_zeroed_aligned_nonnull(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    mem_init(&m, 16 * MB, 16 * MB);
    uint32_t a = 0, b = 0, c = 0;
    assert_int_equal(mem_alloc(&m, 100, "A", &a, &e), 0);
    assert_int_equal(mem_alloc(&m, 1, "B", &b, &e), 0);
    assert_int_equal(mem_alloc(&m, 4096, "C", &c, &e), 0);
    /* never null or near null, always 256-byte aligned, never overlapping,
     * each separated from the previous one by at least the red zone */
    assert_true(a >= 4096);
    assert_int_equal(a % 256, 0);
    assert_int_equal(b % 256, 0);
    assert_int_equal(c % 256, 0);
    assert_true(b >= a + 100 + MEM_REDZONE);
    assert_true(c >= b + 1 + MEM_REDZONE);
    assert_int_equal(m.used, 100 + 1 + 4096);

    uint8_t buf[4096];
    memset(buf, 0xAB, sizeof buf);
    assert_int_equal(mem_read(&m, c, buf, 4096, &e), 0);
    for (int i = 0; i < 4096; i++)
        assert_int_equal(buf[i], 0);
    mem_free_all(&m);
}

static void test_write_read_roundtrip(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    mem_init(&m, 16 * MB, 16 * MB);
    uint32_t a = 0, b = 0;
    assert_int_equal(mem_alloc(&m, 64, "A", &a, &e), 0);
    assert_int_equal(mem_alloc(&m, 64, "B", &b, &e), 0);
    uint32_t in[16], out[16];
    for (uint32_t i = 0; i < 16; i++)
        in[i] = 0x01020304u * (i + 1);
    assert_int_equal(mem_write(&m, a, in, sizeof in, &e), 0);
    assert_int_equal(mem_write(&m, b + 8, in, 8, &e), 0);       /* into the middle */
    assert_int_equal(mem_read(&m, a, out, sizeof out, &e), 0);
    assert_memory_equal(in, out, sizeof in);
    assert_int_equal(mem_read(&m, b, out, 16, &e), 0);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    assert_int_equal(out[2], in[0]);
    assert_int_equal(out[3], in[1]);
    /* mem_ptr and mem_find see the same bytes */
    uint8_t *p = mem_ptr(&m, a + 4, 4);
    assert_non_null(p);
    uint32_t v;
    memcpy(&v, p, 4);
    assert_int_equal(v, in[1]);
    assert_null(mem_ptr(&m, a + 62, 4));                         /* runs past the end */
    const mem_alloc_t *f = mem_find(&m, b + 63);
    assert_non_null(f);
    assert_int_equal(f->addr, b);
    assert_string_equal(f->label, "B");
    assert_null(mem_find(&m, b + 64));
    assert_null(mem_find(&m, a - 1));
    mem_free_all(&m);
}

static void test_out_of_range_copies_rejected(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    mem_init(&m, 16 * MB, 16 * MB);
    uint32_t a = 0, b = 0;
    assert_int_equal(mem_alloc(&m, 100, "weights", &a, &e), 0);
    assert_int_equal(mem_alloc(&m, 100, "bias", &b, &e), 0);
    uint8_t buf[512];
    memset(buf, 7, sizeof buf);

    /* 8 bytes at offset 96 of a 100-byte array: 4 bytes too many */
    assert_int_equal(mem_write(&m, a + 96, buf, 8, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "'weights'");
    /* nothing was written: the last 4 bytes of 'weights' are still 0 */
    uint32_t tail = 0xFFFFFFFFu;
    assert_int_equal(mem_read(&m, a + 96, &tail, 4, &e), 0);
    assert_int_equal(tail, 0);

    assert_int_equal(mem_read(&m, a + 1, buf, 100, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "'weights'");

    /* a copy that starts in one allocation and would run into the next */
    assert_int_equal(mem_read(&m, a, buf, b - a + 4, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);

    /* a copy starting just before the second allocation names it */
    assert_int_equal(mem_write(&m, b - 4, buf, 8, &e), -1);
    support_contains(e.msg, "'bias'");

    /* null pointer */
    assert_int_equal(mem_read(&m, 0, buf, 4, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    mem_free_all(&m);
}

static void test_describe_texts(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    char buf[256];
    mem_init(&m, 16 * MB, 16 * MB);
    mem_describe(&m, MEM_BASE, buf, sizeof buf);
    support_contains(buf, "no device memory");

    uint32_t a = 0, c = 0;
    assert_int_equal(mem_alloc(&m, 1024, "A", &a, &e), 0);
    assert_int_equal(mem_alloc(&m, 1024, "C", &c, &e), 0);

    /* just past the end of A, far from C */
    mem_describe(&m, a + 1024 + 4, buf, sizeof buf);
    support_contains(buf, "4 bytes past the end of 'A'");
    support_contains(buf, "1024 bytes");
    /* closer to the start of C than to the end of A */
    mem_describe(&m, c - 8, buf, sizeof buf);
    support_contains(buf, "8 bytes before the start of 'C'");
    /* after the last allocation */
    mem_describe(&m, c + 1024, buf, sizeof buf);
    support_contains(buf, "0 bytes past the end of 'C'");
    /* below the first allocation */
    mem_describe(&m, a - 16, buf, sizeof buf);
    support_contains(buf, "16 bytes before the start of 'A'");
    /* inside */
    mem_describe(&m, a + 5, buf, sizeof buf);
    support_contains(buf, "byte 5 of 'A'");
    /* near null: a field of a null struct pointer */
    mem_describe(&m, 0, buf, sizeof buf);
    support_contains(buf, "null");
    mem_describe(&m, 12, buf, sizeof buf);
    support_contains(buf, "null");
    assert_null(strstr(buf, "0x0000000c"));   /* the report already shows the address */
    /* a short buffer is cut, not overrun */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    mem_describe(&m, a + 1030, tiny, sizeof tiny);
    assert_int_equal(tiny[7], '\0');
    mem_free_all(&m);
}

static void test_capacity_exhaustion(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    uint32_t a = 0, b = 0;
    mem_init(&m, 1 * MB, 64 * MB);
    assert_int_equal(mem_alloc(&m, 2 * MB, "huge", &a, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "out of memory");
    support_contains(e.msg, "2.1 MB requested");
    support_contains(e.msg, "'huge'");

    /* 600 KB fits, a second 600 KB does not, and fits again once freed */
    assert_int_equal(mem_alloc(&m, 600 * 1024, "x", &a, &e), 0);
    assert_int_equal(mem_alloc(&m, 600 * 1024, "y", &b, &e), -1);
    support_contains(e.msg, "out of memory");
    support_contains(e.msg, "requested");
    assert_int_equal(mem_release(&m, a, &e), 0);
    assert_int_equal(m.used, 0);
    assert_int_equal(mem_alloc(&m, 600 * 1024, "y", &b, &e), 0);
    /* exactly the capacity */
    assert_int_equal(mem_release(&m, b, &e), 0);
    assert_int_equal(mem_alloc(&m, 1 * MB, "all", &b, &e), 0);
    assert_int_equal(mem_alloc(&m, 1, "one more", &a, &e), -1);
    mem_free_all(&m);

    /* the host limit is a separate, named failure */
    mem_init(&m, 64 * MB, 1 * MB);
    assert_int_equal(mem_alloc(&m, 2 * MB, "big", &a, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "'big'");
    mem_free_all(&m);

    /* zero bytes is a usage error */
    mem_init(&m, 64 * MB, 64 * MB);
    assert_int_equal(mem_alloc(&m, 0, "none", &a, &e), -1);
    assert_int_equal(e.code, SIMT_E_USAGE);
    mem_free_all(&m);
}

/* Device addresses are 32-bit: a 6 GB allocation fits a large modelled GPU
 * but not the address space, and fails before any host memory is taken;
 * copies longer than 4 GB are refused too. */
static void test_address_space_limit(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    uint32_t a = 0;
    mem_init(&m, 1ull << 40, 1ull << 40);
    assert_int_equal(mem_alloc(&m, 6ull << 30, "kv cache", &a, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "'kv cache'");
    support_contains(e.msg, "address");
    assert_int_equal(m.nallocs, 0);
    assert_int_equal(m.used, 0);
    assert_int_equal(mem_alloc(&m, 64, "small", &a, &e), 0);
    uint8_t byte = 0;
    assert_int_equal(mem_read(&m, a, &byte, (1ull << 32) + 1, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    mem_free_all(&m);
}

static void test_release_and_reuse(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    mem_init(&m, 64 * MB, 64 * MB);
    uint32_t a = 0, b = 0, c = 0, d = 0;
    assert_int_equal(mem_alloc(&m, 1000, "A", &a, &e), 0);
    assert_int_equal(mem_alloc(&m, 1000, "B", &b, &e), 0);
    uint32_t junk = 0x12345678u;
    assert_int_equal(mem_write(&m, b, &junk, 4, &e), 0);

    /* freeing the top allocation gives its addresses back */
    assert_int_equal(mem_release(&m, b, &e), 0);
    assert_null(mem_find(&m, b));
    assert_int_equal(mem_read(&m, b, &junk, 4, &e), -1);
    assert_int_equal(mem_alloc(&m, 1000, "C", &c, &e), 0);
    assert_int_equal(c, b);
    uint32_t v = 1;
    assert_int_equal(mem_read(&m, c, &v, 4, &e), 0);
    assert_int_equal(v, 0);                                 /* fresh memory is zero */
    const mem_alloc_t *f = mem_find(&m, c);
    assert_non_null(f);
    assert_string_equal(f->label, "C");

    /* freeing a lower allocation keeps the others where they are */
    assert_int_equal(mem_release(&m, a, &e), 0);
    assert_non_null(mem_find(&m, c));
    assert_int_equal(mem_alloc(&m, 1000, "D", &d, &e), 0);
    assert_true(d >= c + 1000 || d + 1000 <= c);            /* no overlap */
    assert_int_equal(d % 256, 0);

    /* errors: not the start of an allocation, double free */
    assert_int_equal(mem_release(&m, c + 4, &e), -1);
    assert_int_equal(e.code, SIMT_E_USAGE);
    assert_int_equal(mem_release(&m, a, &e), -1);
    assert_int_equal(m.used, 2000);

    /* many alloc/free cycles do not run out of 32-bit addresses:
     * 5000 x 1 MB would be 5 GB of address space without reuse */
    for (int i = 0; i < 5000; i++) {
        uint32_t t = 0;
        assert_int_equal(mem_alloc(&m, 1 * MB, "tmp", &t, &e), 0);
        assert_int_equal(mem_release(&m, t, &e), 0);
    }
    mem_free_all(&m);
}

static void test_many_allocations_lookup(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    mem_init(&m, 64 * MB, 64 * MB);
    uint32_t addr[100];
    char name[16];
    for (uint32_t i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "t%u", (unsigned)i);
        assert_int_equal(mem_alloc(&m, 4 + i, name, &addr[i], &e), 0);
        assert_int_equal(mem_write(&m, addr[i], &i, 4, &e), 0);
    }
    /* read back in a scattered order (defeats the last-hit fast path) */
    for (uint32_t k = 0; k < 100; k++) {
        uint32_t i = (k * 37) % 100, v = 0;
        assert_int_equal(mem_read(&m, addr[i], &v, 4, &e), 0);
        assert_int_equal(v, i);
        snprintf(name, sizeof name, "t%u", (unsigned)i);
        assert_string_equal(mem_find(&m, addr[i] + 3 + i)->label, name);
    }
    mem_free_all(&m);
    assert_int_equal(m.nallocs, 0);
    assert_int_equal(m.used, 0);
}

/* Size-only reservations count against the capacity with no host memory
 * and no address (an 80 GB card fills past the 4 GB address space), and an
 * allocation that does not fit names itself, the capacity, what is free
 * and what is already there, largest first. */
static void test_size_only_and_oom_report(void **state)
{
    (void)state;
    mem_t m;
    simt_err_t e;
    uint32_t w = 0, kv = 0, a = 0, b = 0;
    mem_init(&m, 80000000000ull, 64 * MB);
    assert_int_equal(mem_reserve(&m, 70000000000ull, "weights", &w, &e), 0);
    assert_int_equal(m.used, 70000000000ull);
    assert_int_equal(m.reserved, 70000000000ull);
    assert_int_equal(m.nallocs, 0);
    /* a real allocation still fits: the host limit counts only real bytes */
    assert_int_equal(mem_alloc(&m, 32 * MB, "x", &a, &e), 0);
    assert_int_equal(mem_reserve(&m, 20000000000ull, "kv cache", &kv, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "out of memory: 20.0 GB requested for 'kv cache'");
    support_contains(e.msg, "80.0 GB of device memory");
    support_contains(e.msg, "10.0 GB free");   /* 80 - 70 - 0.034 = 9.97 */
    support_contains(e.msg, "already there: 'weights' 70.0 GB, 'x' 33.6 MB");
    /* a real allocation that does not fit gets the same report */
    assert_int_equal(mem_reserve(&m, 9900000000ull, "activations", &kv, &e), 0);
    assert_int_equal(mem_alloc(&m, 64 * MB, "y", &b, &e), -1);
    support_contains(e.msg, "67.1 MB requested for 'y'");
    support_contains(e.msg, "'weights' 70.0 GB, 'activations' 9.9 GB, 'x' 33.6 MB");
    /* released reservations give their room back; unknown ids are errors */
    assert_int_equal(mem_unreserve(&m, w, &e), 0);
    assert_int_equal(mem_unreserve(&m, w, &e), -1);
    assert_int_equal(m.reserved, 9900000000ull);
    assert_int_equal(mem_alloc(&m, 16 * MB, "y", &b, &e), 0);
    assert_int_equal(mem_reserve(&m, 0, "none", &w, &e), -1);
    mem_free_all(&m);
    assert_int_equal(m.used, 0);
    assert_int_equal(m.nresv, 0);

    /* more than four things there: the rest are counted */
    mem_init(&m, 10 * MB, 10 * MB);
    for (int i = 0; i < 6; i++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(mem_reserve(&m, (uint64_t)(i + 1) * 100000, name, &w, &e), 0);
    }
    assert_int_equal(mem_alloc(&m, 10 * MB, "big", &a, &e), -1);
    support_contains(e.msg, "already there: 't5' 600.0 KB, 't4' 500.0 KB, 't3' 400.0 KB, 't2' 300.0 KB and 2 more (300.0 KB)");
    mem_free_all(&m);
    mem_init(&m, 1 * MB, 1 * MB);
    assert_int_equal(mem_alloc(&m, 2 * MB, "z", &a, &e), -1);
    support_contains(e.msg, "already there: nothing");
    mem_free_all(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_zeroed_aligned_nonnull),
        cmocka_unit_test(test_write_read_roundtrip),
        cmocka_unit_test(test_out_of_range_copies_rejected),
        cmocka_unit_test(test_describe_texts),
        cmocka_unit_test(test_capacity_exhaustion),
        cmocka_unit_test(test_size_only_and_oom_report),
        cmocka_unit_test(test_address_space_limit),
        cmocka_unit_test(test_release_and_reuse),
        cmocka_unit_test(test_many_allocations_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
