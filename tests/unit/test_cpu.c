/* test_cpu.c - the CPU model (sim/core/cpu.h): descriptions, results equal
 * to the GPU's, barriers with thread groups of every width, the timing of
 * dependent and independent arithmetic, cache latencies, multicore
 * scaling, faults and the watchdog, determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "cpu.h"
#include "support.h"

/* The default description with the numbers these tests reason with. */
static void test_desc(cpu_desc_t *d)
{
    cpu_desc_default(d);
    d->lat_fma = 4;
    d->fma_ports = 2;
    d->lat_l1 = 5;
    d->lat_l2 = 16;
    d->lat_l3 = 100;
    d->lat_dram = 400;
    d->block_overhead = 0;
}

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

static cpu_t *make_cpu(const cpu_desc_t *d)
{
    simt_err_t e;
    cpu_t *c = cpu_create(d, &e);
    if (!c)
        fail_msg("cpu_create failed: %s", e.msg);
    return c;
}

/* Launch src on c over g's memory; must succeed. */
static void cpu_run(cpu_t *c, gpu_t *g, const char *src, uint32_t gx, uint32_t bx, const uint32_t *args,
                    uint32_t nargs, int warm, cpu_stats_t *st)
{
    isa_program_t p;
    simt_err_t e;
    cpu_launch_t l;
    memset(&l, 0, sizeof l);
    l.grid[0] = gx;
    l.block[0] = bx;
    l.warm_caches = warm;
    assemble_lines(src, &p);
    int rc = cpu_launch(c, gpu_mem(g), &p, &l, args, nargs, st, &e);
    isa_program_free(&p);
    if (rc != 0)
        fail_msg("cpu_launch failed: %s", e.msg);
}

static void test_validate(void **state)
{
    (void)state;
    cpu_desc_t d;
    simt_err_t e;
    cpu_desc_default(&d);
    assert_int_equal(cpu_desc_validate(&d, &e), 0);
    d.simd_width = 3;
    assert_int_equal(cpu_desc_validate(&d, &e), -1);
    support_contains(e.msg, "'simd_width' = 3 must divide 32");
    cpu_desc_default(&d);
    d.cores = 0;
    assert_int_equal(cpu_desc_validate(&d, &e), -1);
    support_contains(e.msg, "'cores'");
    cpu_desc_default(&d);
    d.lat_l2 = 1; /* an L2 faster than the L1 */
    assert_null(cpu_create(&d, &e));
    support_contains(e.msg, "'lat_l2'");
}

/* Each thread writes a value that depends on its tid, its block and a
 * divergent branch; every width must give exactly the GPU's output. */
static const char *DIVERGE =
    ".param out\n.param n\n"
    "mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x;\n"
    "mad.u32 %r3, %r1, %r2, %r0;\n"
    "ld.param.u32 %r4, [n]; setp.ge.u32 %p0, %r3, %r4; @%p0 exit;\n"
    "cvt.f32.u32 %r5, %r3; mov.f32 %r6, 0.0;\n"
    "and.b32 %r7, %r3, 3; setp.eq.u32 %p1, %r7, 0;\n"
    "@%p1 bra ODD;\n"
    "mul.f32 %r6, %r5, 1.5; sqrt.f32 %r6, %r6; bra JOIN;\n"
    "ODD: fma.f32 %r6, %r5, %r5, 0.25; rcp.f32 %r6, %r6;\n"
    "JOIN: shl.b32 %r8, %r3, 2; ld.param.u32 %r9, [out]; add.u32 %r9, %r9, %r8;\n"
    "st.global.f32 [%r9], %r6; exit;\n";

static void test_same_results_as_gpu(void **state)
{
    (void)state;
    enum { N = 300 };
    gpu_t *g = support_gpu(NULL);
    uint32_t ref = support_buffer(g, "ref", NULL, N * 4);
    {
        isa_program_t p;
        simt_err_t e;
        gpu_launch_t l;
        memset(&l, 0, sizeof l);
        l.grid[0] = 3;
        l.block[0] = 128;
        assemble_lines(DIVERGE, &p);
        assert_int_equal(gpu_launch(g, &p, &l, (uint32_t[]){ ref, N }, 2, NULL, &e), 0);
        isa_program_free(&p);
    }
    uint32_t want[N], got[N];
    support_read(g, ref, want, sizeof want);
    const uint32_t widths[] = { 1, 2, 8, 16, 32 };
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        cpu_desc_t d;
        test_desc(&d);
        d.simd_width = widths[i];
        d.cores = 2;
        cpu_t *c = make_cpu(&d);
        uint32_t out = support_buffer(g, "out", NULL, N * 4);
        cpu_stats_t st;
        cpu_run(c, g, DIVERGE, 3, 128, (uint32_t[]){ out, N }, 2, 0, &st);
        support_read(g, out, got, sizeof got);
        assert_memory_equal(got, want, sizeof want);
        assert_int_equal(st.threads, 3 * 128);
        assert_int_equal(st.cores_used, 2);
        cpu_free(c);
    }
    gpu_free(g);
}

/* Threads exchange data through shared memory across a barrier: each
 * block reverses its chunk. Scalar groups and SIMD groups must both wait
 * for every other group of the block. */
static const char *REVERSE =
    ".param in\n.param out\n.shared s 1024\n"
    "mov.u32 %r0, %tid.x; mov.u32 %r1, %ntid.x; mov.u32 %r2, %ctaid.x;\n"
    "mad.u32 %r3, %r2, %r1, %r0; shl.b32 %r4, %r3, 2;\n"
    "ld.param.u32 %r5, [in]; add.u32 %r5, %r5, %r4; ld.global.f32 %r6, [%r5];\n"
    "shl.b32 %r7, %r0, 2; add.u32 %r7, %r7, s; st.shared.f32 [%r7], %r6;\n"
    "bar.sync;\n"
    "sub.u32 %r8, %r1, %r0; sub.u32 %r8, %r8, 1; shl.b32 %r8, %r8, 2; add.u32 %r8, %r8, s;\n"
    "ld.shared.f32 %r9, [%r8];\n"
    "ld.param.u32 %r10, [out]; add.u32 %r10, %r10, %r4; st.global.f32 [%r10], %r9; exit;\n";

static void test_barrier_reverse(void **state)
{
    (void)state;
    enum { B = 96, G = 3 };
    gpu_t *g = support_gpu(NULL);
    float in[B * G];
    for (int i = 0; i < B * G; i++)
        in[i] = (float)i + 0.5f;
    uint32_t ain = support_buffer(g, "in", in, sizeof in);
    const uint32_t widths[] = { 1, 8, 32 };
    for (size_t w = 0; w < 3; w++) {
        cpu_desc_t d;
        test_desc(&d);
        d.simd_width = widths[w];
        cpu_t *c = make_cpu(&d);
        uint32_t aout = support_buffer(g, "out", NULL, sizeof in);
        cpu_run(c, g, REVERSE, G, B, (uint32_t[]){ ain, aout }, 2, 0, NULL);
        float out[B * G];
        support_read(g, aout, out, sizeof out);
        for (int b = 0; b < G; b++)
            for (int t = 0; t < B; t++)
                assert_true(out[b * B + t] == in[b * B + (B - 1 - t)]);
        cpu_free(c);
    }
    gpu_free(g);
}

/* 64 dependent FMAs in one thread: each waits for the last, so the chain
 * costs 64 x lat_fma cycles; 8 independent chains of 8 overlap and cost
 * about 8 x lat_fma (the ports allow 2 per cycle, i.e. 32 cycles for 64). */
static char *fma_kernel(int chains, int total)
{
    static char buf[8192];
    size_t n = (size_t)snprintf(buf, sizeof buf, ".param x\n");
    for (int c = 0; c < chains; c++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "mov.f32 %%r%d, 1.0;\n", c);
    for (int i = 0; i < total; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "fma.f32 %%r%d, %%r%d, 1.0001, 0.5;\n", i % chains,
                              i % chains);
    snprintf(buf + n, sizeof buf - n, "exit;\n");
    return buf;
}

static void test_fma_latency_and_throughput(void **state)
{
    (void)state;
    gpu_t *g = support_gpu(NULL);
    cpu_desc_t d;
    test_desc(&d);
    cpu_t *c = make_cpu(&d);
    cpu_stats_t dep, ind;
    cpu_run(c, g, fma_kernel(1, 64), 1, 1, (uint32_t[]){ 0 }, 1, 0, &dep);
    cpu_run(c, g, fma_kernel(8, 64), 1, 1, (uint32_t[]){ 0 }, 1, 0, &ind);
    assert_true(dep.cycles >= 64 * 4 && dep.cycles <= 64 * 4 + 20);
    assert_true(ind.cycles >= 8 * 4 && ind.cycles <= 8 * 4 + 20);
    assert_int_equal(dep.flops, 128);
    /* in order, the chains cannot overlap across the FMA latency either way */
    d.in_order = 1;
    cpu_t *io = make_cpu(&d);
    cpu_run(io, g, fma_kernel(8, 64), 1, 1, (uint32_t[]){ 0 }, 1, 0, &ind);
    assert_true(ind.cycles >= 8 * 4 && ind.cycles <= 64 + 20); /* 2 ports: independent FMAs still pair */
    cpu_free(io);
    cpu_free(c);
    gpu_free(g);
}

/* One thread loads one word: cold, the load goes to DRAM (lat_dram);
 * again with warm caches it hits in L1 (lat_l1). */
static const char *LOAD1 =
    ".param a\nld.param.u32 %r0, [a]; ld.global.f32 %r1, [%r0]; add.f32 %r2, %r1, 1.0;\n"
    "st.global.f32 [%r0+4], %r2; exit;\n";

static void test_cache_latencies(void **state)
{
    (void)state;
    gpu_t *g = support_gpu(NULL);
    cpu_desc_t d;
    test_desc(&d);
    cpu_t *c = make_cpu(&d);
    uint32_t a = support_buffer(g, "a", (float[2]){ 1.5f, 0 }, 8);
    cpu_stats_t cold, warm;
    cpu_run(c, g, LOAD1, 1, 1, (uint32_t[]){ a }, 1, 0, &cold);
    cpu_run(c, g, LOAD1, 1, 1, (uint32_t[]){ a }, 1, 1, &warm);
    assert_true(cold.cycles >= 400 && cold.cycles <= 400 + 30);
    assert_int_equal(cold.l3_misses, 1);
    assert_int_equal(cold.dram_bytes, 64);
    assert_true(warm.cycles >= 5 && warm.cycles <= 5 + 30);
    assert_int_equal(warm.l1_hits, 2); /* the load and the store */
    assert_true(cold.time[CPU_T_MEMORY] > cold.time[CPU_T_COMPUTE]);
    float out[2];
    support_read(g, a, out, sizeof out);
    assert_true(out[1] == 2.5f);
    cpu_free(c);
    gpu_free(g);
}

/* 16 blocks of compute-bound work: 4 cores take a quarter of the time
 * of one core (the blocks divide evenly); determinism: same stats twice. */
static void test_multicore_scaling_and_determinism(void **state)
{
    (void)state;
    gpu_t *g = support_gpu(NULL);
    cpu_desc_t d;
    test_desc(&d);
    d.simd_width = 8;
    cpu_t *one = make_cpu(&d);
    d.cores = 4;
    cpu_t *four = make_cpu(&d);
    cpu_stats_t s1, s4, again;
    const char *k = fma_kernel(1, 64);
    cpu_run(one, g, k, 16, 64, (uint32_t[]){ 0 }, 1, 0, &s1);
    cpu_run(four, g, k, 16, 64, (uint32_t[]){ 0 }, 1, 0, &s4);
    cpu_run(four, g, k, 16, 64, (uint32_t[]){ 0 }, 1, 0, &again);
    double r = (double)s1.cycles / (double)s4.cycles;
    assert_true(r > 3.6 && r < 4.1);
    assert_int_equal(s4.flops, s1.flops);
    assert_int_equal(s4.flops, 16ull * 64 * 64 * 2);
    assert_memory_equal(&s4, &again, sizeof s4);
    /* the core-cycles add up to cycles x cores */
    uint64_t sum = 0;
    for (int i = 0; i < CPU_T_COUNT; i++)
        sum += s4.time[i];
    assert_int_equal(sum, s4.cycles * 4);
    cpu_free(one);
    cpu_free(four);
    gpu_free(g);
}

static void test_faults_and_watchdog(void **state)
{
    (void)state;
    gpu_t *g = support_gpu(NULL);
    cpu_desc_t d;
    test_desc(&d);
    cpu_t *c = make_cpu(&d);
    isa_program_t p;
    simt_err_t e;
    cpu_launch_t l;
    memset(&l, 0, sizeof l);
    l.grid[0] = 1;
    l.block[0] = 4;
    uint32_t a = support_buffer(g, "small", NULL, 8);
    /* thread 2 writes past the end of an 8-byte array */
    assemble_lines(".param a\nmov.u32 %r0, %tid.x; shl.b32 %r0, %r0, 2; ld.param.u32 %r1, [a];\n"
                     "add.u32 %r1, %r1, %r0; st.global.u32 [%r1], %r0; exit;\n", &p);
    assert_int_equal(cpu_launch(c, gpu_mem(g), &p, &l, (uint32_t[]){ a }, 1, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "thread (2,0,0)");
    assert_int_equal(cpu_launch(c, gpu_mem(g), &p, &l, NULL, 0, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    isa_program_free(&p);
    support_assemble("L: bra L;\n", &p);
    l.max_instrs = 1000;
    assert_int_equal(cpu_launch(c, gpu_mem(g), &p, &l, NULL, 0, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_TIMEOUT);
    isa_program_free(&p);
    cpu_free(c);
    gpu_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_same_results_as_gpu),
        cmocka_unit_test(test_barrier_reverse),
        cmocka_unit_test(test_fma_latency_and_throughput),
        cmocka_unit_test(test_cache_latencies),
        cmocka_unit_test(test_multicore_scaling_and_determinism),
        cmocka_unit_test(test_faults_and_watchdog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
