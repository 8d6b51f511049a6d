/* test_cpu_spill.c - what a CPU pays to run GPU-style kernels (cpu.h,
 * "Barriers" and "Stores"): the liveness analysis that decides which
 * registers are saved at a bar.sync, the number and size of the saves and
 * restores, their cost in time, and the 256-bit store data path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "cpu.h"
#include "support.h"

/* The assembler takes one instruction per line: turn "a; b;" into lines. */
static void assemble_lines(const char *src, isa_program_t *p)
{
    static char buf[16384];
    size_t n = 0;
    for (const char *s = src; *s && n + 2 < sizeof buf; s++) {
        buf[n++] = *s;
        if (*s == ';' || (*s == ':' && s[1] == ' ')) {
            buf[n++] = '\n';
            while (s[1] == ' ')
                s++;
        }
    }
    buf[n] = '\0';
    support_assemble(buf, p);
}

/* A description with round numbers: one core, simd_width lanes. */
static void desc_w(cpu_desc_t *d, uint32_t simd_width)
{
    cpu_desc_default(d);
    d->simd_width = simd_width;
    d->fma_ports = 1;
    d->load_ports = 1;
    d->store_ports = 1;
    d->block_overhead = 0;
}

/* Launch src (one block of bx threads) on a CPU made from d; must succeed. */
static void run(const cpu_desc_t *d, const char *src, uint32_t bx, cpu_stats_t *st)
{
    gpu_t *g = support_gpu(NULL);
    uint32_t out = support_buffer(g, "out", NULL, 4096);
    isa_program_t p;
    simt_err_t e;
    cpu_launch_t l;
    memset(&l, 0, sizeof l);
    l.grid[0] = 1;
    l.block[0] = bx;
    assemble_lines(src, &p);
    cpu_t *c = cpu_create(d, &e);
    if (!c)
        fail_msg("cpu_create failed: %s", e.msg);
    int rc = cpu_launch(c, gpu_mem(g), &p, &l, (uint32_t[]){ out }, 1, st, &e);
    isa_program_free(&p);
    cpu_free(c);
    gpu_free(g);
    if (rc != 0)
        fail_msg("cpu_launch failed: %s", e.msg);
}

/* Registers %r0..%r63 of a set, or ~0 if it holds a higher one (these
 * kernels use none). */
static uint64_t lo(const isa_regset_t *s)
{
    for (uint32_t i = 1; i < ISA_REG_WORDS; i++)
        if (s->w[i])
            return ~0ull;
    return s->w[0];
}

/* Liveness: what is read later (on some path) before being surely written. */
static void test_liveness(void **state)
{
    (void)state;
    isa_program_t p;
    simt_err_t e;
    isa_regset_t live[32];
    assemble_lines(".param out\n"
                   "mov.u32 %r0, %tid.x;\n"          /* 0: read after the barrier   */
                   "mov.u32 %r1, 5;\n"               /* 1: read after the barrier   */
                   "mov.u32 %r2, 7;\n"               /* 2: overwritten after it     */
                   "setp.eq.u32 %p0, %r0, 0;\n"      /* 3                           */
                   "bar.sync;\n"                     /* 4                           */
                   "mov.u32 %r2, 1;\n"               /* 5: kills r2                 */
                   "@%p0 mov.u32 %r1, 9;\n"          /* 6: guarded: r1 stays live   */
                   "add.u32 %r3, %r0, %r1;\n"        /* 7                           */
                   "add.u32 %r3, %r3, %r2;\n"        /* 8                           */
                   "ld.param.u32 %r4, [out];\n"      /* 9                           */
                   "shl.b32 %r5, %r0, 2; add.u32 %r4, %r4, %r5;\n"
                   "st.global.u32 [%r4], %r3; exit;\n", &p);
    assert_true(p.ncode < 31);
    assert_int_equal(cpu_live_in(&p, live, &e), 0);
    assert_true(lo(&live[5]) == ((1ull << 0) | (1ull << 1)));  /* saved at the barrier: r0, r1 */
    assert_true(lo(&live[4]) == lo(&live[5]));                       /* bar.sync reads nothing      */
    assert_true(lo(&live[3]) == lo(&live[5]));
    assert_true(lo(&live[1]) == (1ull << 0));                   /* r1 is written at pc 1       */
    assert_true(lo(&live[0]) == 0);                             /* nothing before the start    */
    assert_true(lo(&live[p.ncode]) == 0);
    isa_program_free(&p);

    /* a loop: the counter is live around the back edge, across the barrier */
    assemble_lines(".param out\n"
                   "mov.u32 %r0, 0;\n"               /* 0 */
                   "mov.u32 %r7, 3;\n"               /* 1: dead (never read)   */
                   "LOOP: bar.sync;\n"               /* 2 */
                   "add.u32 %r0, %r0, 1;\n"          /* 3 */
                   "setp.lt.u32 %p1, %r0, 10;\n"     /* 4 */
                   "@%p1 bra LOOP;\n"                /* 5 */
                   "exit;\n", &p);
    assert_int_equal(cpu_live_in(&p, live, &e), 0);
    assert_true(lo(&live[3]) == (1ull << 0));
    assert_true(lo(&live[2]) == (1ull << 0));
    assert_true(lo(&live[1]) == (1ull << 0));
    assert_true(lo(&live[6]) == 0);
    isa_program_free(&p);
}

/* 10 trips of a loop with one barrier; ACC accumulators carried across it.
 * Live after the barrier: %r0 (tid), %r1 (counter), %r2.. (accumulators). */
static void loop_src(char *buf, size_t n, int acc)
{
    size_t k = (size_t)snprintf(buf, n, ".param out\nmov.u32 %%r0, %%tid.x; mov.u32 %%r1, 0;\n");
    for (int i = 0; i < acc; i++)
        k += (size_t)snprintf(buf + k, n - k, "cvt.f32.u32 %%r%d, %%r0;\n", 2 + i);
    k += (size_t)snprintf(buf + k, n - k, "LOOP: ");
    for (int i = 0; i < acc; i++)
        k += (size_t)snprintf(buf + k, n - k, "fma.f32 %%r%d, %%r%d, 0.5, 1.0;\n", 2 + i, 2 + i);
    k += (size_t)snprintf(buf + k, n - k,
                          "bar.sync;\nadd.u32 %%r1, %%r1, 1;\nsetp.lt.u32 %%p0, %%r1, 10;\n@%%p0 bra LOOP;\n");
    for (int i = 1; i < acc; i++)
        k += (size_t)snprintf(buf + k, n - k, "add.f32 %%r2, %%r2, %%r%d;\n", 2 + i);
    snprintf(buf + k, n - k, "ld.param.u32 %%r40, [out]; shl.b32 %%r41, %%r0, 2; add.u32 %%r40, %%r40, %%r41;\n"
                             "st.global.f32 [%%r40], %%r2; exit;\n");
}

/* Saves and restores: one SIMD store and one SIMD load per live register,
 * per group, per barrier; they cost time, more with more live registers. */
static void test_spill_count_and_cost(void **state)
{
    (void)state;
    static char few[4096], many[4096];
    loop_src(few, sizeof few, 1);    /* live: r0, r1, r2 = 3         */
    loop_src(many, sizeof many, 12); /* live: r0, r1, r2..r13 = 14   */
    cpu_desc_t d;
    cpu_stats_t a, b;
    /* 256 threads, 16 lanes: 16 groups, 10 barriers */
    desc_w(&d, 16);
    run(&d, few, 256, &a);
    run(&d, many, 256, &b);
    assert_int_equal(a.spill_instrs, 16u * 10u * 2u * 3u);
    assert_int_equal(b.spill_instrs, 16u * 10u * 2u * 14u);
    assert_int_equal(b.spill_bytes, b.spill_instrs * 16u * 4u);
    /* the kernel's own global bytes do not include them: one store per thread */
    assert_int_equal(b.st_bytes, 256u * 4u);
    assert_int_equal(b.ld_bytes, 0);
    /* 14 live registers x 16 groups x 64 bytes = 14 KB saved per barrier:
     * at least one store-port cycle each (two: 64 bytes through a 32-byte
     * path) -> >= 2 x 14 x 16 x 10 = 4480 cycles more than the 12 FMAs x 16
     * groups x 10 trips of arithmetic alone could explain */
    assert_true(b.cycles >= 4480u);
    assert_true(b.cycles > 2u * a.cycles);
    /* scalar core: 256 groups of one thread, 4-byte saves */
    desc_w(&d, 1);
    run(&d, few, 256, &a);
    assert_int_equal(a.spill_instrs, 256u * 10u * 2u * 3u);
    assert_int_equal(a.spill_bytes, a.spill_instrs * 4u);
}

/* A kernel without barriers saves nothing. */
static void test_no_barrier_no_spill(void **state)
{
    (void)state;
    cpu_desc_t d;
    cpu_stats_t a;
    desc_w(&d, 16);
    run(&d, ".param out\nmov.u32 %r0, %tid.x; cvt.f32.u32 %r1, %r0; ld.param.u32 %r2, [out];\n"
            "shl.b32 %r3, %r0, 2; add.u32 %r2, %r2, %r3; st.global.f32 [%r2], %r1; exit;\n", 64, &a);
    assert_int_equal(a.spill_instrs, 0);
    assert_int_equal(a.spill_bytes, 0);
}

/* 32 independent stores of one group: 64 bytes each (16 lanes) hold the
 * one store port 2 cycles (32-byte data path), 32 bytes (8 lanes) 1. */
static void test_store_width(void **state)
{
    (void)state;
    static char src[4096];
    size_t k = (size_t)snprintf(src, sizeof src, ".param out\nmov.u32 %%r0, %%tid.x; cvt.f32.u32 %%r1, %%r0;\n"
                                "ld.param.u32 %%r2, [out]; shl.b32 %%r3, %%r0, 2; add.u32 %%r2, %%r2, %%r3;\n");
    for (int i = 0; i < 32; i++)
        k += (size_t)snprintf(src + k, sizeof src - k, "st.global.f32 [%%r2+%d], %%r1;\n", 64 * i);
    snprintf(src + k, sizeof src - k, "exit;\n");
    cpu_desc_t d;
    cpu_stats_t w16, w8;
    desc_w(&d, 16);
    run(&d, src, 16, &w16);
    desc_w(&d, 8);
    run(&d, src, 8, &w8);
    assert_true(w16.cycles >= 64u);
    assert_true(w8.cycles < 60u);
    assert_true(w16.cycles >= w8.cycles + 28u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_liveness),
        cmocka_unit_test(test_spill_count_and_cost),
        cmocka_unit_test(test_no_barrier_no_spill),
        cmocka_unit_test(test_store_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
