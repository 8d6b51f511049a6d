/* test_vector.c - vector loads and stores (ld/st .v2/.v4, isa.h "Vector
 * loads and stores") and the larger register file: values per lane, the
 * registers written at once, alignment and bounds faults, their cost in
 * the coalescer, the banks and the LSU, and the preset's register limit.
 *
 * Machine: support_desc (2 SMs, 128-byte lines of 32-byte sectors, 32
 * banks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "memsys.h"
#include "support.h"

/* Thread t copies words 4t..4t+3 of `in` to `out` with one .v4 load and
 * two .v2 stores; the first load goes into %r1..%r4, so the address
 * register %r1 is one of its destinations. */
static const char COPY_SRC[] =
    ".param in\n.param out\n"
    "mov.u32 %r0, %tid.x\nshl.b32 %r0, %r0, 4\n"
    "ld.param.u32 %r1, [in]\nadd.u32 %r1, %r1, %r0\n"
    "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%r1]\n"
    "ld.param.u32 %r5, [out]\nadd.u32 %r5, %r5, %r0\n"
    "st.global.v2.u32 [%r5], {%r1, %r2}\n"
    "st.global.v2.u32 [%r5+8], {%r3, %r4}\n"
    "exit\n";

static void test_global_copy_values(void **state)
{
    gpu_t *g = *state;
    uint32_t in[128], out[128];
    for (uint32_t i = 0; i < 128; i++)
        in[i] = 0x1000u + i * 7u;
    uint32_t a = support_buffer(g, "in", in, sizeof in);
    uint32_t o = support_buffer(g, "out", NULL, sizeof out);
    gpu_stats_t st;
    run_ok(g, COPY_SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[]){a, o}, 2, &st);
    support_read(g, o, out, sizeof out);
    for (uint32_t i = 0; i < 128; i++)
        assert_int_equal(out[i], in[i]);
    /* one warp: 1 load of 512 bytes = 4 lines = 16 sectors; 2 stores of
     * 256 bytes each spread over 512 (every other 8 bytes) = 16 sectors */
    assert_int_equal(st.gld_requests, 1);
    assert_int_equal(st.gld_bytes, 512);
    assert_int_equal(st.gld_sectors, 16);
    assert_int_equal(st.gst_requests, 2);
    assert_int_equal(st.gst_bytes, 512);
    assert_int_equal(st.gst_sectors, 32);
    support_release(g, o);
    support_release(g, a);
}

/* The same bytes with scalar loads: 4 x the requests, the same sectors. */
static void test_requests_quartered(void **state)
{
    gpu_t *g = *state;
    static const char SCALAR[] =
        ".param in\n.param out\n"
        "mov.u32 %r0, %tid.x\nshl.b32 %r0, %r0, 2\n"
        "ld.param.u32 %r1, [in]\nadd.u32 %r1, %r1, %r0\n"
        "ld.global.u32 %r2, [%r1]\nld.global.u32 %r3, [%r1+128]\n"
        "ld.global.u32 %r4, [%r1+256]\nld.global.u32 %r5, [%r1+384]\n"
        "add.u32 %r2, %r2, %r3\nadd.u32 %r4, %r4, %r5\nadd.u32 %r2, %r2, %r4\n"
        "ld.param.u32 %r6, [out]\nadd.u32 %r6, %r6, %r0\nst.global.u32 [%r6], %r2\nexit\n";
    static const char VECTOR[] =
        ".param in\n.param out\n"
        "mov.u32 %r0, %tid.x\nshl.b32 %r1, %r0, 4\n"
        "ld.param.u32 %r7, [in]\nadd.u32 %r7, %r7, %r1\n"
        "ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%r7]\n"
        "add.u32 %r2, %r2, %r3\nadd.u32 %r4, %r4, %r5\nadd.u32 %r2, %r2, %r4\n"
        "shl.b32 %r0, %r0, 2\nld.param.u32 %r6, [out]\nadd.u32 %r6, %r6, %r0\nst.global.u32 [%r6], %r2\nexit\n";
    uint32_t in[512];
    for (uint32_t i = 0; i < 512; i++)
        in[i] = i;
    uint32_t a = support_buffer(g, "in", in, sizeof in);
    uint32_t o = support_buffer(g, "out", NULL, 4 * 128);
    gpu_stats_t s1, s4;
    run_ok(g, SCALAR, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){128, 1, 1}, (uint32_t[]){a, o}, 2, &s1);
    run_ok(g, VECTOR, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){128, 1, 1}, (uint32_t[]){a, o}, 2, &s4);
    assert_int_equal(s1.gld_requests, 4 * 4);      /* 4 warps x 4 loads */
    assert_int_equal(s4.gld_requests, 4);          /* 4 warps x 1 load  */
    assert_int_equal(s1.gld_sectors, 64);
    assert_int_equal(s4.gld_sectors, 64);
    assert_int_equal(s1.gld_bytes, s4.gld_bytes);
    assert_true(s4.warp_instrs < s1.warp_instrs);
    support_release(g, o);
    support_release(g, a);
}

/* Shared memory: a .v4 store and a .v4 load of another thread's 16 bytes
 * (mode 0), or of the same 16 bytes in every lane (mode 1, a broadcast). */
static const char SMEM_SRC[] =
    ".param out\n.param mode\n.shared tile 512\n"
    "mov.u32 %r0, %tid.x\nshl.b32 %r1, %r0, 4\n"
    "mul.lo.u32 %r4, %r0, 10\nadd.u32 %r5, %r4, 1\nadd.u32 %r6, %r4, 2\nadd.u32 %r7, %r4, 3\n"
    "st.shared.v4.u32 [%r1], {%r4, %r5, %r6, %r7}\n"
    "bar.sync\n"
    "xor.b32 %r2, %r0, 1\nshl.b32 %r2, %r2, 4\n"
    "ld.param.u32 %r3, [mode]\nsetp.ne.u32 %p0, %r3, 0\n@%p0 mov.u32 %r2, 48\n"
    "ld.shared.v4.u32 {%r200, %r201, %r202, %r203}, [%r2]\n"
    "ld.param.u32 %r8, [out]\nadd.u32 %r8, %r8, %r1\n"
    "st.global.v4.u32 [%r8], {%r200, %r201, %r202, %r203}\nexit\n";

static void test_shared_values_and_wavefronts(void **state)
{
    gpu_t *g = *state;
    uint32_t out[128];
    uint32_t o = support_buffer(g, "out", NULL, sizeof out);
    gpu_stats_t st;
    run_ok(g, SMEM_SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[]){o, 0}, 2, &st);
    support_read(g, o, out, sizeof out);
    for (uint32_t t = 0; t < 32; t++)
        for (uint32_t k = 0; k < 4; k++)
            assert_int_equal(out[4 * t + k], (t ^ 1u) * 10u + k);
    /* 128 distinct words over 32 banks: 4 wavefronts for the store and 4
     * for the load */
    assert_int_equal(st.sst_requests, 1);
    assert_int_equal(st.sld_requests, 1);
    assert_int_equal(st.smem_wavefronts, 8);
    run_ok(g, SMEM_SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[]){o, 1}, 2, &st);
    support_read(g, o, out, sizeof out);
    for (uint32_t t = 0; t < 32; t++)
        for (uint32_t k = 0; k < 4; k++)
            assert_int_equal(out[4 * t + k], 30u + k);
    /* the broadcast load: 1 bank cycle, but the data path returns 128
     * bytes a cycle, halved for lanes that share an address (lsu.h): 2 */
    assert_int_equal(st.smem_wavefronts, 4 + 2);
    support_release(g, o);
}

/* The LSU's cost of one warp's vector access (memsys.h): a global .v4 of
 * 512 contiguous bytes is 4 lines = 4 cycles of the 128-byte L1 data
 * path; a .v2 of 256 bytes 2; a shared .v4 takes 4 wavefronts (cycles of
 * the banks), a .v2 2, a broadcast .v4 2 (the data path, lsu.h), a .v4
 * with 32-byte steps 8, a .v2 with 16-byte steps 4, and a .v4 in which
 * lanes 2k and 2k+1 read the same 16 bytes 2; 8 lanes of .v4 take 1. */
static void test_lsu_cycles(void **state)
{
    gpu_t *g = *state;
    memsys_cfg_t c;
    memsys_t ms;
    simt_err_t e;
    memsys_cfg_from_desc(&c, gpu_desc(g));
    assert_int_equal(memsys_init(&ms, &c, &e), 0);
    memsys_req_t r;
    memsys_result_t res;
    memset(&r, 0, sizeof r);
    r.space = MEMSYS_GLOBAL;
    r.mask = 0xFFFFFFFFu;
    r.bytes = 16;
    for (uint32_t l = 0; l < 32; l++)
        r.addr[l] = 0x10000000u + 16u * l;
    memsys_access(&ms, 0, 100, &r, &res);
    assert_int_equal(res.lines, 4);
    assert_int_equal(res.sectors, 16);
    assert_int_equal(res.accepted, 104);
    r.bytes = 8;
    for (uint32_t l = 0; l < 32; l++)
        r.addr[l] = 0x20000000u + 8u * l;
    memsys_access(&ms, 0, 200, &r, &res);
    assert_int_equal(res.lines, 2);
    assert_int_equal(res.sectors, 8);
    assert_int_equal(res.accepted, 202);
    static const struct { uint32_t bytes, step, wavefronts; } sh[] = {
        { 16, 16, 4 }, { 8, 8, 2 }, { 16, 0, 2 }, { 8, 0, 1 }, { 16, 32, 8 }, { 8, 16, 4 },
    };
    r.space = MEMSYS_SHARED;
    for (uint32_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        r.bytes = sh[i].bytes;
        for (uint32_t l = 0; l < 32; l++)
            r.addr[l] = sh[i].step * l;
        uint64_t now = 1000u * (i + 1);
        memsys_access(&ms, 0, now, &r, &res);
        assert_int_equal(res.wavefronts, sh[i].wavefronts);
        assert_int_equal(res.accepted, now + sh[i].wavefronts);
    }
    for (uint32_t l = 0; l < 32; l++)      /* pairs: lanes 2k, 2k+1 share */
        r.addr[l] = 16u * (l / 2);
    r.bytes = 16;
    memsys_access(&ms, 0, 20000, &r, &res);
    assert_int_equal(res.wavefronts, 2);
    r.mask = 0xFFu;                          /* 8 lanes x 16 bytes = 128 */
    for (uint32_t l = 0; l < 32; l++)
        r.addr[l] = 16u * l;
    memsys_access(&ms, 0, 30000, &r, &res);
    assert_int_equal(res.wavefronts, 1);
    memsys_free(&ms);
}

/* All four registers of a .v4 load are ready at the same cycle: using the
 * last one costs what using the first does, also for a vector that
 * straddles two 64-bit words of the scoreboard's bit set (%r62..%r65);
 * the wait is a memory stall. */
static void test_registers_ready_together(void **state)
{
    gpu_t *g = *state;
    char src[512];
    uint64_t cyc[8], mem[8];
    uint32_t in[128] = { 0 };
    uint32_t a = support_buffer(g, "in", in, sizeof in);
    uint32_t o = support_buffer(g, "out", NULL, 4 * 32);
    for (int k = 0; k < 8; k++) {
        int v = k < 4 ? 4 : 62;
        snprintf(src, sizeof src,
                 ".param in\n.param out\nmov.u32 %%r0, %%tid.x\nshl.b32 %%r1, %%r0, 4\n"
                 "ld.param.u32 %%r2, [in]\nadd.u32 %%r2, %%r2, %%r1\n"
                 "ld.global.v4.u32 {%%r%d, %%r%d, %%r%d, %%r%d}, [%%r2]\n"
                 "add.u32 %%r8, %%r%d, 1\n"
                 "shl.b32 %%r0, %%r0, 2\nld.param.u32 %%r3, [out]\nadd.u32 %%r3, %%r3, %%r0\n"
                 "st.global.u32 [%%r3], %%r8\nexit\n", v, v + 1, v + 2, v + 3, v + k % 4);
        gpu_stats_t st;
        run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[]){a, o}, 2, &st);
        cyc[k] = st.cycles;
        mem[k] = st.stalls[STALL_MEMORY];
    }
    for (int k = 1; k < 8; k++) {
        assert_int_equal(cyc[k], cyc[0]);
        assert_int_equal(mem[k], mem[0]);
    }
    assert_true(cyc[0] > gpu_desc(g)->lat_dram);   /* and they did wait for the load */
    assert_true(mem[0] > gpu_desc(g)->lat_dram);   /* as a memory stall */
    support_release(g, o);
    support_release(g, a);
}

/* A misaligned vector is a kernel fault naming the alignment it needs. */
static void test_faults(void **state)
{
    gpu_t *g = *state;
    uint32_t in[256] = { 0 };
    uint32_t a = support_buffer(g, "in", in, sizeof in);
    char want[64];
    simt_err_t e;
    /* .v4 at a + 8 x tid: lane 1 is at a + 8 */
    static const char MIS_V4[] =
        ".param in\nmov.u32 %r0, %tid.x\nshl.b32 %r0, %r0, 3\nld.param.u32 %r1, [in]\n"
        "add.u32 %r1, %r1, %r0\nld.global.v4.f32 {%r4, %r5, %r6, %r7}, [%r1]\nexit\n";
    assert_int_equal(run_kernel(g, MIS_V4, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a}, 1, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "misaligned global vector load (.v4) of 16 bytes in kernel");
    support_contains(e.msg, "at pc 4");
    support_contains(e.msg, "thread (1,0,0)");
    snprintf(want, sizeof want, "address 0x%08x is not a multiple of 16", (unsigned)(a + 8));
    support_contains(e.msg, want);
    support_contains(e.msg, "(a .v4 access needs 16-byte alignment)");
    /* .v2 store to shared offset 4 x tid + 4: lane 0 at offset 4 */
    static const char MIS_V2[] =
        ".shared s 512\nmov.u32 %r0, %tid.x\nshl.b32 %r0, %r0, 2\n"
        "st.shared.v2.u32 [%r0+4], {%r4, %r5}\nexit\n";
    assert_int_equal(run_kernel(g, MIS_V2, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                NULL, 0, NULL, &e), -1);
    support_contains(e.msg, "misaligned shared vector store (.v2) of 8 bytes");
    support_contains(e.msg, "thread (0,0,0)");
    support_contains(e.msg, "address 0x00000004 is not a multiple of 8 (a .v2 access needs 8-byte alignment)");
    /* aligned but past the end of the allocation (1024 bytes): lane 31's
     * 16 bytes at a + 1024 + 496 */
    static const char OOB_V4[] =
        ".param in\nmov.u32 %r0, %tid.x\nshl.b32 %r0, %r0, 4\nld.param.u32 %r1, [in]\n"
        "add.u32 %r1, %r1, %r0\nld.global.v4.f32 {%r4, %r5, %r6, %r7}, [%r1+1024]\nexit\n";
    assert_int_equal(run_kernel(g, OOB_V4, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a}, 1, NULL, &e), -1);
    support_contains(e.msg, "out-of-bounds global vector load (.v4) of 16 bytes");
    support_contains(e.msg, "thread (0,0,0)");
    support_release(g, a);
}

/* %r200 works; a preset that allows fewer registers refuses the kernel. */
static void test_register_limit(void **state)
{
    (void)state;
    static const char SRC[] =
        ".kernel big\n.param out\nmov.u32 %r200, %tid.x\nadd.u32 %r254, %r200, 1000\n"
        "shl.b32 %r1, %r200, 2\nld.param.u32 %r2, [out]\nadd.u32 %r2, %r2, %r1\n"
        "st.global.u32 [%r2], %r254\nexit\n";
    gpu_desc_t d;
    support_desc(&d);
    gpu_t *g = support_gpu(&d);
    uint32_t o = support_buffer(g, "out", NULL, 4 * 64);
    uint32_t out[64];
    gpu_stats_t st;
    run_ok(g, SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[]){o}, 1, &st);
    support_read(g, o, out, sizeof out);
    for (uint32_t t = 0; t < 64; t++)
        assert_int_equal(out[t], 1000u + t);
    support_release(g, o);
    gpu_free(g);
    d.max_regs_per_thread = 200;
    g = support_gpu(&d);
    o = support_buffer(g, "out", NULL, 4 * 64);
    simt_err_t e;
    assert_int_equal(run_kernel(g, SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1},
                                (uint32_t[]){o}, 1, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "kernel 'big' needs 255 registers per thread (%r0..%r254), more than the 200 "
                            "a thread may have on");
    support_contains(e.msg, "(max_regs_per_thread)");
    support_release(g, o);
    gpu_free(g);
    /* the field is checked */
    d.max_regs_per_thread = 256;
    assert_null(gpu_create(&d, &e));
    support_contains(e.msg, "max_regs_per_thread");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_global_copy_values, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_requests_quartered, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_shared_values_and_wavefronts, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_lsu_cycles, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_registers_ready_together, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_faults, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test(test_register_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
