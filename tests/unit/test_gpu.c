/* test_gpu.c - the GPU as a whole (gpu.h, with sm.c): barriers, kernel
 * fault reports, watchdog limits, launch limits, grid/block mapping,
 * occupancy and the statistics' invariants and scaling.
 *
 * Expected values are derived from the launch shapes and the test
 * description (support_desc: 2 SMs x 4 schedulers, 1024 threads, 4 blocks,
 * 32768 registers in units of 256 per warp, 32 KB shared per SM).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define UNTOUCHED 0xDEADBEEFu

/* Every scheduler-cycle is either an issue or one stall reason. */
static void check_slot_identity(const gpu_t *g, const gpu_stats_t *st)
{
    const gpu_desc_t *d = gpu_desc(g);
    uint64_t stalls = 0;
    for (int i = 0; i < STALL_COUNT; i++)
        stalls += st->stalls[i];
    if (st->issue_slots != st->cycles * d->sms * d->schedulers_per_sm ||
        stalls + st->warp_instrs != st->issue_slots)
        fail_msg("slot accounting: cycles %llu x %u SMs x %u schedulers = %llu; issue_slots %llu; "
                 "warp_instrs %llu + stalls %llu (mem %llu dep %llu bar %llu pipe %llu idle %llu) = %llu",
                 (unsigned long long)st->cycles, (unsigned)d->sms, (unsigned)d->schedulers_per_sm,
                 (unsigned long long)(st->cycles * d->sms * d->schedulers_per_sm),
                 (unsigned long long)st->issue_slots, (unsigned long long)st->warp_instrs,
                 (unsigned long long)stalls, (unsigned long long)st->stalls[STALL_MEMORY],
                 (unsigned long long)st->stalls[STALL_DEPENDENCY], (unsigned long long)st->stalls[STALL_BARRIER],
                 (unsigned long long)st->stalls[STALL_PIPE], (unsigned long long)st->stalls[STALL_IDLE],
                 (unsigned long long)(stalls + st->warp_instrs));
}

/* ---- barriers ------------------------------------------------------------------ */

/* Two exchanges through shared memory: each thread writes its value,
 * waits, reads the mirrored thread's value; then again with a shift. The
 * warps of a block reach the first barrier at different times. */
static void test_barrier_exchange(void **state)
{
    gpu_t *g = *state;
    enum { B = 3, T = 128 };
    uint32_t o1 = support_buffer(g, "out1", NULL, B * T * 4);
    uint32_t o2 = support_buffer(g, "out2", NULL, B * T * 4);
    const char *src =
        ".kernel xchg\n.param out1\n.param out2\n.shared pad 16\n.shared tile 512\n"
        "mov.u32 %r0, %tid.x\nmov.u32 %r1, %ctaid.x\nmad.lo.u32 %r2, %r1, 1000, %r0\n"
        "mov.u32 %r4, tile\nshl.b32 %r3, %r0, 2\nadd.u32 %r3, %r3, %r4\n"
        /* warp w idles for 20 w iterations first, so warps arrive skewed */
        "shr.u32 %r11, %r0, 5\nmul.lo.u32 %r11, %r11, 20\nmov.u32 %r12, 0\n"
        "DELAY:\nsetp.ge.u32 %p1, %r12, %r11\n@%p1 bra GO\nadd.u32 %r12, %r12, 1\nbra DELAY\n"
        "GO:\n"
        "st.shared.u32 [%r3], %r2\n"
        "bar.sync 0\n"
        "sub.u32 %r5, 127, %r0\nshl.b32 %r5, %r5, 2\nadd.u32 %r5, %r5, %r4\nld.shared.u32 %r6, [%r5]\n"
        "mad.lo.u32 %r7, %r1, 128, %r0\nshl.b32 %r7, %r7, 2\n"
        "ld.param.u32 %r8, [out1]\nadd.u32 %r8, %r8, %r7\nst.global.u32 [%r8], %r6\n"
        "bar.sync 0\n"                                   /* everyone has read before anyone rewrites */
        "mul.lo.u32 %r6, %r6, 2\nst.shared.u32 [%r3], %r6\n"
        "bar.sync\n"
        "add.u32 %r9, %r0, 1\nand.b32 %r9, %r9, 127\nshl.b32 %r9, %r9, 2\nadd.u32 %r9, %r9, %r4\n"
        "ld.shared.u32 %r10, [%r9]\n"
        "ld.param.u32 %r8, [out2]\nadd.u32 %r8, %r8, %r7\nst.global.u32 [%r8], %r10\n"
        "exit\n";
    gpu_stats_t st;
    run_ok(g, src, (uint32_t[3]){B, 1, 1}, (uint32_t[3]){T, 1, 1}, (uint32_t[]){o1, o2}, 2, &st);
    static uint32_t r1[B * T], r2[B * T];
    support_read(g, o1, r1, sizeof r1);
    support_read(g, o2, r2, sizeof r2);
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t t = 0; t < T; t++) {
            assert_int_equal(r1[b * T + t], b * 1000 + (127 - t));
            assert_int_equal(r2[b * T + t], 2 * (b * 1000 + (127 - (t + 1) % 128)));
        }
    assert_true(st.stalls[STALL_BARRIER] > 0);           /* someone did wait */
    check_slot_identity(g, &st);
    support_release(g, o2);
    support_release(g, o1);
}

/* Threads 40..127 never reach the barrier: 64..127 first spin for a while
 * and then exit, so the barrier can only open when they are gone. */
static void test_barrier_with_exited_threads(void **state)
{
    gpu_t *g = *state;
    enum { T = 128 };
    uint32_t init[T];
    for (int i = 0; i < T; i++)
        init[i] = UNTOUCHED;
    uint32_t o = support_buffer(g, "out", init, sizeof init);
    const char *src =
        ".kernel partial\n.param out\n.shared tile 512\n"
        "mov.u32 %r0, %tid.x\n"
        "setp.lt.u32 %p0, %r0, 64\n@%p0 bra EARLY\n"
        "mov.u32 %r1, 0\nSPIN:\nadd.u32 %r1, %r1, 1\nsetp.lt.u32 %p1, %r1, 200\n@%p1 bra SPIN\n"
        "exit\n"
        "EARLY:\nsetp.ge.u32 %p2, %r0, 40\n@%p2 exit\n"
        "add.u32 %r2, %r0, 1\nshl.b32 %r3, %r0, 2\nmov.u32 %r7, tile\nadd.u32 %r8, %r3, %r7\n"
        "st.shared.u32 [%r8], %r2\n"
        "bar.sync 0\n"
        "sub.u32 %r4, 39, %r0\nshl.b32 %r4, %r4, 2\nadd.u32 %r4, %r4, %r7\nld.shared.u32 %r5, [%r4]\n"
        "ld.param.u32 %r6, [out]\nadd.u32 %r6, %r6, %r3\nst.global.u32 [%r6], %r5\n"
        "exit\n";
    gpu_stats_t st;
    run_ok(g, src, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){T, 1, 1}, (uint32_t[]){o}, 1, &st);
    uint32_t r[T];
    support_read(g, o, r, sizeof r);
    for (uint32_t t = 0; t < T; t++)
        assert_int_equal(r[t], t < 40 ? 40 - t : UNTOUCHED);
    check_slot_identity(g, &st);
    support_release(g, o);
}

static void test_barrier_in_divergent_code(void **state)
{
    gpu_t *g = *state;
    const char *src =
        ".kernel divbar\n"
        "mov.u32 %r0, %tid.x\n"
        "setp.lt.u32 %p0, %r0, 16\n"
        "@%p0 bra SKIP\n"
        "bar.sync 0\n"                                   /* line 5, pc 3 */
        "SKIP:\n"
        "add.u32 %r1, %r0, 1\n"
        "exit\n";
    simt_err_t e;
    gpu_stats_t st;
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, NULL, 0, &st, &e), -1);
    assert_int_equal(e.code, SIMT_E_KERNEL);
    support_contains(e.msg, "barrier in divergent code");
    support_contains(e.msg, "'divbar'");
    support_contains(e.msg, "pc 3");
    support_contains(e.msg, "test.s:5");
    support_contains(e.msg, "thread (16,0,0)");          /* lowest lane at the barrier */
}

/* A guarded bar.sync whose guard leaves some live lanes out is a
 * divergent barrier too; with the guard true everywhere it is fine. */
static void test_barrier_guarded(void **state)
{
    gpu_t *g = *state;
    const char *src =
        ".kernel gbar\n.param limit\n"
        "mov.u32 %r0, %tid.x\nld.param.u32 %r1, [limit]\n"
        "setp.lt.u32 %p0, %r0, %r1\n"
        "@%p0 bar.sync 0\n"
        "exit\n";
    simt_err_t e;
    run_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[]){64}, 1, NULL);
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1},
                                (uint32_t[]){40}, 1, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_KERNEL);
    support_contains(e.msg, "barrier in divergent code");
}

/* ---- faults ---------------------------------------------------------------------- */

/* Each thread first stores gid+1 to out[gid], then copies a[gid] (holding
 * gid+1 too) to out[gid]. a has 37 elements; grid 2 x 32: block 1,
 * thread 5 is the first to read past the end. */
static const char OOB_SRC[] =
    ".kernel oob\n"                               /* line 1 */
    ".param a\n"
    ".param out\n"
    "mov.u32 %%r0, %%ctaid.x\n"                     /* line 4, pc 0 */
    "mov.u32 %%r1, %%ntid.x\n"
    "mov.u32 %%r2, %%tid.x\n"
    "mad.lo.u32 %%r3, %%r0, %%r1, %%r2\n"
    "shl.b32 %%r4, %%r3, 2\n"
    "ld.param.u32 %%r5, [out]\n"
    "add.u32 %%r5, %%r5, %%r4\n"
    "add.u32 %%r6, %%r3, 1\n"
    "st.global.u32 [%%r5], %%r6\n"                  /* pc 8 */
    "ld.param.u32 %%r7, [a]\n"
    "add.u32 %%r7, %%r7, %%r4\n"
    "%s\n"                                        /* line 15, pc 11 */
    "exit\n";

static void test_fault_global_load_out_of_bounds(void **state)
{
    gpu_t *g = *state;
    uint32_t av[37];
    for (uint32_t i = 0; i < 37; i++)
        av[i] = i + 1;
    uint32_t a = support_buffer(g, "A", av, sizeof av);
    uint32_t o = support_buffer(g, "out", NULL, 64 * 4);
    char src[1024], addr[16];
    snprintf(src, sizeof src, OOB_SRC, "ld.global.u32 %r8, [%r7]\nst.global.u32 [%r5], %r8");
    snprintf(addr, sizeof addr, "0x%08x", (unsigned)(a + 37 * 4));
    simt_err_t e;
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a, o}, 2, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "out-of-bounds global load");
    support_contains(e.msg, "'oob'");
    support_contains(e.msg, "pc 11");
    support_contains(e.msg, "test.s:15");
    support_contains(e.msg, "block (1,0,0)");
    support_contains(e.msg, "thread (5,0,0)");
    support_contains(e.msg, addr);
    support_contains(e.msg, "0 bytes past the end of 'A'");
    /* memory written before the fault stays written */
    uint32_t r[64];
    support_read(g, o, r, sizeof r);
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(r[i], i + 1);
    support_release(g, o);
    support_release(g, a);
}

static void test_fault_global_store_out_of_bounds(void **state)
{
    gpu_t *g = *state;
    uint32_t a = support_buffer(g, "A", NULL, 37 * 4);
    uint32_t o = support_buffer(g, "out", NULL, 64 * 4);
    char src[1024], addr[16];
    snprintf(src, sizeof src, OOB_SRC, "st.global.u32 [%r7+8], %r6");
    snprintf(addr, sizeof addr, "0x%08x", (unsigned)(a + 37 * 4));
    simt_err_t e;
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a, o}, 2, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "out-of-bounds global store");
    support_contains(e.msg, "block (1,0,0)");
    support_contains(e.msg, "thread (3,0,0)");           /* (32+3)*4 + 8 = 148 = end */
    support_contains(e.msg, addr);
    support_contains(e.msg, "'A'");
    support_release(g, o);
    support_release(g, a);
}

static void test_fault_before_start_and_null(void **state)
{
    gpu_t *g = *state;
    uint32_t a = support_buffer(g, "A", NULL, 64 * 4);
    uint32_t o = support_buffer(g, "out", NULL, 64 * 4);
    char src[1024];
    snprintf(src, sizeof src, OOB_SRC, "ld.global.u32 %r8, [%r7-8]");
    simt_err_t e;
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a, o}, 2, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "thread (0,0,0)");
    support_contains(e.msg, "8 bytes before the start of 'A'");

    snprintf(src, sizeof src, OOB_SRC, "ld.global.u32 %r8, [%r7]");
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){0, o}, 2, NULL, &e), -1);   /* a = NULL */
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "null");
    support_release(g, o);
    support_release(g, a);
}

static void test_fault_misaligned(void **state)
{
    gpu_t *g = *state;
    uint32_t a = support_buffer(g, "A", NULL, 64 * 4);
    uint32_t o = support_buffer(g, "out", NULL, 64 * 4);
    char src[1024], addr[16];
    snprintf(src, sizeof src, OOB_SRC, "ld.global.u32 %r8, [%r7+2]");
    snprintf(addr, sizeof addr, "0x%08x", (unsigned)(a + 2));
    simt_err_t e;
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a, o}, 2, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "misaligned");
    support_contains(e.msg, addr);
    support_contains(e.msg, "thread (0,0,0)");
    /* 2-byte access at an odd address */
    snprintf(src, sizeof src, OOB_SRC, "ld.global.u16 %r8, [%r7+1]");
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a, o}, 2, NULL, &e), -1);
    support_contains(e.msg, "misaligned");
    /* bytes are never misaligned */
    snprintf(src, sizeof src, OOB_SRC, "ld.global.u8 %r8, [%r7+3]");
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1},
                                (uint32_t[]){a, o}, 2, NULL, &e), 0);
    support_release(g, o);
    support_release(g, a);
}

/* Shared arrays of 64 and 32 bytes: 96 bytes in all, so thread 24's
 * 4-byte store at offset 96 is the first out of bounds. */
static void test_fault_shared_out_of_bounds(void **state)
{
    gpu_t *g = *state;
    const char *src =
        ".kernel shoob\n.shared first 64\n.shared second 32\n"
        "mov.u32 %r0, %tid.x\nshl.b32 %r1, %r0, 2\n"
        "st.shared.u32 [%r1], %r0\n"                     /* line 6, pc 2 */
        "exit\n";
    simt_err_t e;
    assert_int_equal(run_kernel(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, NULL, 0, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "out-of-bounds shared store");
    support_contains(e.msg, "'shoob'");
    support_contains(e.msg, "pc 2");
    support_contains(e.msg, "test.s:6");
    support_contains(e.msg, "thread (24,0,0)");
    support_contains(e.msg, "0x00000060");
    support_contains(e.msg, "96 bytes");

    /* a load through a symbol offset, past the only array */
    const char *src2 =
        ".kernel shoob2\n.shared tile 128\n"
        "mov.u32 %r0, %tid.x\nshl.b32 %r1, %r0, 3\nmov.u32 %r3, tile\nadd.u32 %r1, %r1, %r3\n"
        "ld.shared.u32 %r2, [%r1]\nexit\n";
    assert_int_equal(run_kernel(g, src2, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, NULL, 0, NULL, &e), -1);
    support_contains(e.msg, "out-of-bounds shared load");
    support_contains(e.msg, "thread (16,0,0)");
    support_contains(e.msg, "128 bytes");
}

static void test_watchdog_endless_loop(void **state)
{
    gpu_t *g = *state;
    const char *src =
        ".kernel spin\n"
        "mov.u32 %r0, 0\n"
        "mov.u32 %r1, 1\n"
        "L: bra L\n"                                     /* line 4, pc 2 */
        "exit\n";
    isa_program_t p;
    support_assemble(src, &p);
    gpu_launch_t l;
    memset(&l, 0, sizeof l);
    l.grid[0] = 2;
    l.block[0] = 64;
    l.max_warp_instrs = 5000;
    simt_err_t e;
    gpu_stats_t st;
    assert_int_equal(gpu_launch(g, &p, &l, NULL, 0, &st, &e), -1);
    assert_int_equal(e.code, SIMT_E_TIMEOUT);
    support_contains(e.msg, "'spin'");
    support_contains(e.msg, "pc 2 (line 4)");
    support_contains(e.msg, "SM 0 block (0,0,0) warp 0");
    support_contains(e.msg, "SM 0 block (0,0,0) warp 1");
    support_contains(e.msg, "SM 1 block (1,0,0) warp 1");
    assert_true(st.warp_instrs >= 5000 && st.warp_instrs < 5100);

    memset(&l, 0, sizeof l);
    l.grid[0] = 1;
    l.block[0] = 32;
    l.max_cycles = 3000;
    assert_int_equal(gpu_launch(g, &p, &l, NULL, 0, &st, &e), -1);
    assert_int_equal(e.code, SIMT_E_TIMEOUT);
    support_contains(e.msg, "pc 2 (line 4)");

    /* the schedulers pack cycles into 40 bits: more is refused by name */
    l.max_cycles = GPU_MAX_CYCLES_LIMIT + 1;
    assert_int_equal(gpu_launch(g, &p, &l, NULL, 0, &st, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "max_cycles 549755813889 exceeds the simulator's limit of 549755813888 cycles");
    isa_program_free(&p);
}

/* ---- launch limits ------------------------------------------------------------- */

static const char TINY_SRC[] = ".kernel k4\n.param a\n.param b\n.param c\n.param n\nexit\n";

static void test_launch_limits(void **state)
{
    gpu_t *g = *state;
    simt_err_t e;
    const uint32_t args[4] = { 0, 0, 0, 0 };

    assert_int_equal(run_kernel(g, TINY_SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){2048, 1, 1}, args, 4, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "block of 2048 threads");
    support_contains(e.msg, "exceeds 1024");

    assert_int_equal(run_kernel(g, TINY_SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 8, 8}, args, 4, NULL, &e), -1);
    support_contains(e.msg, "block of 2048 threads");

    assert_int_equal(run_kernel(g, TINY_SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){8, 16, 4}, args, 3, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "kernel 'k4' takes 4 arguments (a, b, c, n), got 3");

    assert_int_equal(run_kernel(g, ".kernel one\n.param x\nexit\n", (uint32_t[3]){1, 1, 1},
                                (uint32_t[3]){1, 1, 1}, args, 2, NULL, &e), -1);
    support_contains(e.msg, "takes 1 argument (x), got 2");

    assert_int_equal(run_kernel(g, TINY_SRC, (uint32_t[3]){1, 65536, 1}, (uint32_t[3]){32, 1, 1}, args, 4, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "grid y dimension 65536");
    support_contains(e.msg, "65535");
    assert_int_equal(run_kernel(g, TINY_SRC, (uint32_t[3]){1, 1, 70000}, (uint32_t[3]){32, 1, 1}, args, 4, NULL, &e), -1);
    support_contains(e.msg, "grid z dimension 70000");

    assert_int_equal(run_kernel(g, TINY_SRC, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 65}, args, 4, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "z dimension 65");

    /* 40000 bytes of shared memory on a GPU that allows 32768 per block */
    assert_int_equal(run_kernel(g, ".kernel big\n.shared s 40000\nexit\n", (uint32_t[3]){1, 1, 1},
                                (uint32_t[3]){32, 1, 1}, NULL, 0, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "40000");
    support_contains(e.msg, "32768");
    support_contains(e.msg, "shared memory");

    /* 1024 threads x 64 registers = 65536 > 32768 registers per SM */
    assert_int_equal(run_kernel(g, ".kernel regs\nmov.u32 %r63, 1\nexit\n", (uint32_t[3]){1, 1, 1},
                                (uint32_t[3]){1024, 1, 1}, NULL, 0, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "registers");
    support_contains(e.msg, "65536");

    /* 0 in a dimension means 1 */
    gpu_stats_t st;
    run_ok(g, ".kernel zero\nexit\n", (uint32_t[3]){0, 0, 0}, (uint32_t[3]){0, 0, 0}, NULL, 0, &st);
    assert_int_equal(st.blocks, 1);
    assert_int_equal(st.threads, 1);
    assert_int_equal(st.warp_instrs, 1);
}

static void test_desc_validation(void **state)
{
    (void)state;
    gpu_desc_t d;
    simt_err_t e;
    support_desc(&d);
    assert_int_equal(gpu_desc_validate(&d, &e), 0);
    d.sms = 0;
    assert_int_equal(gpu_desc_validate(&d, &e), -1);
    assert_int_equal(e.code, SIMT_E_USAGE);
    support_contains(e.msg, "'sms'");
    assert_null(gpu_create(&d, &e));
    support_desc(&d);
    d.line_bytes = 96;
    assert_int_equal(gpu_desc_validate(&d, &e), -1);
    support_contains(e.msg, "line_bytes");
    /* a scheduler keeps at most 64 warps (one bit each in its masks) */
    support_desc(&d);
    d.schedulers_per_sm = 1;
    d.max_threads_per_sm = 2048;
    assert_int_equal(gpu_desc_validate(&d, &e), 0);
    d.max_threads_per_sm = 2080;
    assert_int_equal(gpu_desc_validate(&d, &e), -1);
    assert_int_equal(e.code, SIMT_E_USAGE);
    support_contains(e.msg, "'max_threads_per_sm' (2080) would give each of the 1 schedulers more than 64 warps");
}

/* ---- grid and block mapping ---------------------------------------------------- */

/* Each thread computes its global id from the documented meaning of the
 * special registers (x fastest, then y, then z; blocks likewise) and bumps
 * counter[gid]; every counter must end at exactly 1. */
static void check_mapping(gpu_t *g, const uint32_t grid[3], const uint32_t block[3])
{
    const char *src =
        ".kernel map\n.param cnt\n"
        "mov.u32 %r1, %ctaid.z\nmov.u32 %r2, %nctaid.y\nmov.u32 %r3, %ctaid.y\nmad.lo.u32 %r4, %r1, %r2, %r3\n"
        "mov.u32 %r2, %nctaid.x\nmov.u32 %r3, %ctaid.x\nmad.lo.u32 %r4, %r4, %r2, %r3\n"
        "mov.u32 %r1, %tid.z\nmov.u32 %r2, %ntid.y\nmov.u32 %r3, %tid.y\nmad.lo.u32 %r5, %r1, %r2, %r3\n"
        "mov.u32 %r2, %ntid.x\nmov.u32 %r3, %tid.x\nmad.lo.u32 %r5, %r5, %r2, %r3\n"
        "mov.u32 %r6, %ntid.y\nmul.lo.u32 %r6, %r6, %r2\nmov.u32 %r7, %ntid.z\nmul.lo.u32 %r6, %r6, %r7\n"
        "mad.lo.u32 %r8, %r4, %r6, %r5\n"
        "shl.b32 %r8, %r8, 2\nld.param.u32 %r9, [cnt]\nadd.u32 %r9, %r9, %r8\n"
        "atom.global.add.u32 %r10, [%r9], 1\n"
        "exit\n";
    uint32_t total = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
    uint32_t c = support_buffer(g, "cnt", NULL, (total + 8) * 4);
    gpu_stats_t st;
    run_ok(g, src, grid, block, (uint32_t[]){c}, 1, &st);
    uint32_t *r = calloc(total + 8, 4);
    assert_non_null(r);
    support_read(g, c, r, (total + 8) * 4);
    for (uint32_t i = 0; i < total + 8; i++)
        if (r[i] != (i < total ? 1u : 0u))
            fail_msg("grid (%u,%u,%u) block (%u,%u,%u): counter %u is %u", (unsigned)grid[0], (unsigned)grid[1],
                     (unsigned)grid[2], (unsigned)block[0], (unsigned)block[1], (unsigned)block[2],
                     (unsigned)i, (unsigned)r[i]);
    assert_int_equal(st.threads, total);
    assert_int_equal(st.blocks, grid[0] * grid[1] * grid[2]);
    free(r);
    support_release(g, c);
}

static void test_3d_grid_and_block_mapping(void **state)
{
    gpu_t *g = *state;
    check_mapping(g, (uint32_t[3]){3, 2, 2}, (uint32_t[3]){5, 3, 2});      /* 30-thread blocks */
    check_mapping(g, (uint32_t[3]){2, 3, 1}, (uint32_t[3]){8, 4, 4});      /* 128 */
    check_mapping(g, (uint32_t[3]){1, 1, 5}, (uint32_t[3]){1, 33, 1});     /* y only, partial warp */
    check_mapping(g, (uint32_t[3]){7, 1, 1}, (uint32_t[3]){1, 1, 64});     /* deepest z */
    check_mapping(g, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 32, 1});    /* 1024 */
}

/* ---- statistics ------------------------------------------------------------------ */

static const char VECADD_SRC[] =
    ".kernel vecadd\n.param a\n.param b\n.param c\n.param n\n"
    "mov.u32 %r0, %ctaid.x\nmov.u32 %r1, %ntid.x\nmov.u32 %r2, %tid.x\nmad.lo.s32 %r3, %r0, %r1, %r2\n"
    "ld.param.u32 %r4, [n]\nsetp.ge.s32 %p0, %r3, %r4\n@%p0 exit\n"
    "shl.b32 %r5, %r3, 2\nld.param.u32 %r6, [a]\nadd.u32 %r6, %r6, %r5\nld.global.f32 %r7, [%r6]\n"
    "ld.param.u32 %r6, [b]\nadd.u32 %r6, %r6, %r5\nld.global.f32 %r8, [%r6]\nadd.f32 %r9, %r7, %r8\n"
    "ld.param.u32 %r6, [c]\nadd.u32 %r6, %r6, %r5\nst.global.f32 [%r6], %r9\nexit\n";

/* vecadd of n = 1000 on blocks of 128: results, bytes, sectors, identity. */
static void run_vecadd(gpu_t *g, gpu_stats_t *st)
{
    enum { n = 1000 };
    static float A[n], B[n], C[n];
    for (int i = 0; i < n; i++) {
        A[i] = (float)i;
        B[i] = 0.5f * (float)i;
    }
    uint32_t a = support_buffer(g, "A", A, sizeof A), b = support_buffer(g, "B", B, sizeof B);
    uint32_t c = support_buffer(g, "C", NULL, sizeof C);
    run_ok(g, VECADD_SRC, (uint32_t[3]){(n + 127) / 128, 1, 1}, (uint32_t[3]){128, 1, 1},
           (uint32_t[]){a, b, c, n}, 4, st);
    support_read(g, c, C, sizeof C);
    for (int i = 0; i < n; i++)
        assert_true(C[i] == 1.5f * (float)i);
    support_release(g, c);
    support_release(g, b);
    support_release(g, a);
}

static void test_stats_vecadd(void **state)
{
    gpu_t *g = *state;
    gpu_stats_t st;
    run_vecadd(g, &st);
    check_slot_identity(g, &st);
    assert_int_equal(st.blocks, 8);
    assert_int_equal(st.threads, 1024);
    assert_int_equal(st.gld_bytes, 2 * 1000 * 4);
    assert_int_equal(st.gst_bytes, 1000 * 4);
    /* 31 full warps read 128 aligned bytes = 4 sectors; the last warp has
     * 8 live threads = 32 bytes = 1 sector; per array */
    assert_int_equal(st.gld_sectors, 2 * (31 * 4 + 1));
    assert_int_equal(st.gst_sectors, 31 * 4 + 1);
    assert_true(st.dram_bytes >= 2 * 125 * 32);           /* cold caches: loads come from DRAM */
    assert_true(st.cycles > gpu_desc(g)->lat_dram);       /* at least one DRAM round trip */
    assert_true(st.stalls[STALL_MEMORY] > 0);
    assert_true(fabs(st.time_us - (double)st.cycles / gpu_desc(g)->clock_mhz) < 1e-9);
    /* the warp instructions by hand: 7 up to and including the guarded
     * exit, then 12 more; all 32 warps have a live thread (warp 31 has
     * threads 992..999), so every warp runs all 19 */
    assert_int_equal(st.warp_instrs, 32 * (7 + 12));
    assert_int_equal(st.divergent_branches, 0);
}

/* FLOPs per lane come from the opcode table (isa.c f32_flops): fma and
 * mad 2, arithmetic and special functions 1, moves, compares, selects,
 * abs, neg and integer forms 0. */
static void test_stats_flops_by_table(void **state)
{
    gpu_t *g = *state;
    const char *src =
        ".kernel flops\n"
        "mov.u32 %r0, %tid.x\n"
        "cvt.f32.u32 %r1, %r0\n"             /* 0 */
        "mov.f32 %r2, %r1\n"                 /* 0 */
        "mad.f32 %r3, %r1, %r2, %r1\n"       /* 2 */
        "rcp.f32 %r4, %r3\n"                 /* 1 */
        "sqrt.f32 %r5, %r4\n"                /* 1 */
        "max.f32 %r6, %r5, %r4\n"            /* 1 */
        "abs.f32 %r7, %r6\n"                 /* 0 */
        "neg.f32 %r8, %r7\n"                 /* 0 */
        "setp.lt.f32 %p0, %r8, %r7\n"        /* 0 */
        "selp.f32 %r9, %r8, %r7, %p0\n"      /* 0 */
        "add.u32 %r10, %r0, %r0\n"           /* 0: integer */
        "div.f32 %r11, %r9, %r4\n"           /* 1 */
        "exit\n";
    gpu_stats_t st;
    run_ok(g, src, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){40, 1, 1}, NULL, 0, &st);
    assert_int_equal(st.flops, 6 * 40 * 2);
}

/* 8 instructions, no branches: counts follow from the shape alone. */
static void test_stats_straight_line_counts(void **state)
{
    gpu_t *g = *state;
    const char *src =
        ".kernel line\n"
        "mov.u32 %r0, %tid.x\n"
        "cvt.f32.u32 %r1, %r0\n"
        "mul.lo.u32 %r2, %r0, 3\n"
        "fma.f32 %r3, %r1, %r1, %r1\n"       /* 2 flops */
        "mul.f32 %r4, %r3, %r3\n"            /* 1 */
        "add.f32 %r5, %r4, %r3\n"            /* 1 */
        "sub.f32 %r6, %r5, %r4\n"            /* 1 */
        "exit\n";
    gpu_stats_t st;
    run_ok(g, src, (uint32_t[3]){3, 1, 1}, (uint32_t[3]){40, 1, 1}, NULL, 0, &st);   /* 2 warps per block */
    assert_int_equal(st.warp_instrs, 8 * 2 * 3);
    assert_int_equal(st.thread_instrs, 8 * 40 * 3);
    assert_int_equal(st.flops, 5 * 40 * 3);
    assert_int_equal(st.blocks, 3);
    assert_int_equal(st.threads, 120);
    assert_int_equal(st.gld_bytes + st.gst_bytes + st.sld_bytes + st.sst_bytes, 0);
    check_slot_identity(g, &st);
}

/* Two kernels that differ only in 5 instructions (3 fma, 2 add) run by 8
 * lanes of each warp: the difference is 5 warp instructions per warp but
 * only 8 lanes' worth of thread instructions and flops. */
static void test_stats_inactive_lanes(void **state)
{
    gpu_t *g = *state;
    static const char frame[] =
        ".kernel lanes\n"
        "mov.u32 %%r0, %%laneid\ncvt.f32.u32 %%r1, %%r0\n"
        "setp.ge.u32 %%p0, %%r0, 8\n@%%p0 bra SKIP\n"
        "%s"
        "SKIP:\nexit\n";
    const char *extra =
        "fma.f32 %r2, %r1, %r1, %r1\nfma.f32 %r2, %r2, %r1, %r1\nfma.f32 %r2, %r2, %r1, %r1\n"
        "add.u32 %r3, %r0, 1\nadd.u32 %r3, %r3, 1\n";
    char with[512], without[512];
    snprintf(with, sizeof with, frame, extra);
    snprintf(without, sizeof without, frame, "");
    gpu_stats_t s1, s0;
    run_ok(g, with, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, NULL, 0, &s1);
    run_ok(g, without, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, NULL, 0, &s0);
    assert_int_equal(s1.warp_instrs - s0.warp_instrs, 5 * 2);
    assert_int_equal(s1.thread_instrs - s0.thread_instrs, 5 * 8 * 2);
    assert_int_equal(s1.flops - s0.flops, 3 * 2 * 8 * 2);
    assert_int_equal(s1.divergent_branches, 2);           /* one split per warp */
    check_slot_identity(g, &s1);
    check_slot_identity(g, &s0);
}

/* Max %warpid + 1 over the launch: how many warp slots were in use. */
static uint32_t run_occupancy(gpu_t *g, const char *body, uint32_t blocks, uint32_t threads, gpu_stats_t *st)
{
    static const char frame[] =
        ".kernel occ\n.param m\n%s\n"
        "mov.u32 %%r1, %%warpid\nadd.u32 %%r1, %%r1, 1\nld.param.u32 %%r2, [m]\n"
        "atom.global.max.u32 %%r3, [%%r2], %%r1\nexit\n";
    char src[512];
    snprintf(src, sizeof src, frame, body);
    uint32_t m = support_buffer(g, "max", NULL, 4), slots = 0;
    run_ok(g, src, (uint32_t[3]){blocks, 1, 1}, (uint32_t[3]){threads, 1, 1}, (uint32_t[]){m}, 1, st);
    support_read(g, m, &slots, 4);
    support_release(g, m);
    check_slot_identity(g, st);
    return slots;
}

static void test_occupancy_limits(void **state)
{
    gpu_t *g = *state;
    gpu_stats_t st;
    /* threads: 512-thread blocks, 1024 threads per SM -> 2 blocks, 32 warps */
    uint32_t used = run_occupancy(g, "mov.u32 %r4, 0", 8, 512, &st);
    assert_int_equal(st.blocks_per_sm, 2);
    assert_int_equal(st.warps_per_sm, 32);
    assert_true(fabs(st.occupancy - 1.0) < 1e-9);
    support_contains(st.occupancy_limit, "threads");
    assert_int_equal(used, 32);

    /* registers: 64 per thread = 2048 per warp; 256 threads = 16384 per
     * block -> 2 blocks (threads would allow 4) */
    used = run_occupancy(g, "mov.u32 %r63, 0", 8, 256, &st);
    assert_int_equal(st.blocks_per_sm, 2);
    assert_int_equal(st.warps_per_sm, 16);
    assert_true(fabs(st.occupancy - 0.5) < 1e-9);
    support_contains(st.occupancy_limit, "registers");
    assert_int_equal(used, 16);

    /* shared memory: 20000 of 32768 bytes -> 1 block of 2 warps */
    used = run_occupancy(g, ".shared s 20000\nmov.u32 %r4, 0", 8, 64, &st);
    assert_int_equal(st.blocks_per_sm, 1);
    assert_int_equal(st.warps_per_sm, 2);
    assert_true(fabs(st.occupancy - 2.0 / 32.0) < 1e-9);
    support_contains(st.occupancy_limit, "shared");
    assert_int_equal(used, 2);

    /* block slots: 32-thread blocks, at most 4 per SM */
    used = run_occupancy(g, "mov.u32 %r4, 0", 16, 32, &st);
    assert_int_equal(st.blocks_per_sm, 4);
    assert_int_equal(st.warps_per_sm, 4);
    assert_true(fabs(st.occupancy - 4.0 / 32.0) < 1e-9);
    support_contains(st.occupancy_limit, "blocks");
    assert_int_equal(used, 4);
}

/* Registers are allocated per warp in units of 256: 36 registers x 32
 * lanes = 1152 -> 1280 per warp, 5120 per 128-thread block, so 6 blocks
 * fit in 32768 (7 would without the rounding). */
static void test_occupancy_register_granularity(void **state)
{
    (void)state;
    gpu_desc_t d;
    support_desc(&d);
    d.max_blocks_per_sm = 16;
    d.max_threads_per_sm = 2048;
    gpu_t *g = support_gpu(&d);
    gpu_stats_t st;
    /* 4 blocks: fewer than fit, spread over the SMs; the result says
     * what was placed, what would fit and why fewer */
    run_occupancy(g, "mov.u32 %r35, 0", 4, 128, &st);
    assert_int_equal(st.blocks_fit_per_sm, 6);
    assert_true(st.blocks_per_sm < 6);
    assert_int_equal(st.warps_per_sm, st.blocks_per_sm * 4);
    assert_string_equal(st.occupancy_limit, "blocks in the grid");
    /* enough blocks for every SM: 6 placed, limited by registers */
    run_occupancy(g, "mov.u32 %r35, 0", 6 * d.sms, 128, &st);
    assert_int_equal(st.blocks_per_sm, 6);
    assert_int_equal(st.blocks_fit_per_sm, 6);
    assert_int_equal(st.warps_per_sm, 24);
    assert_true(fabs(st.occupancy - 24.0 / 64.0) < 1e-9);
    support_contains(st.occupancy_limit, "registers");
    gpu_free(g);
}

/* On a GPU whose max_threads_per_sm is not a multiple of 32, a block
 * that fits by thread count but not by whole warps (48 threads = 2 warps =
 * 64 thread slots > 48) must either run correctly or be refused; it must
 * not "succeed" without running. */
static void test_occupancy_partial_warp_limit(void **state)
{
    (void)state;
    gpu_desc_t d;
    support_desc(&d);
    d.max_threads_per_sm = 48;
    d.max_threads_per_block = 48;
    gpu_t *g = support_gpu(&d);
    uint32_t init[48];
    for (int i = 0; i < 48; i++)
        init[i] = UNTOUCHED;
    uint32_t o = support_buffer(g, "out", init, sizeof init);
    const char *src =
        ".kernel w\n.param o\nmov.u32 %r0, %tid.x\nadd.u32 %r1, %r0, 1\nshl.b32 %r2, %r0, 2\n"
        "ld.param.u32 %r3, [o]\nadd.u32 %r3, %r3, %r2\nst.global.u32 [%r3], %r1\nexit\n";
    simt_err_t e;
    gpu_stats_t st;
    int rc = run_kernel(g, src, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){48, 1, 1}, (uint32_t[]){o}, 1, &st, &e);
    char bug[1200] = "";
    if (rc == 0) {
        uint32_t r[48];
        support_read(g, o, r, sizeof r);
        for (uint32_t i = 0; i < 48 && !bug[0]; i++)
            if (r[i] != i + 1)
                snprintf(bug, sizeof bug, "BUG (gpu.c occupancy): launch of 48-thread blocks with "
                         "max_threads_per_sm = 48 returned success but thread %u did not run (out = 0x%08x; "
                         "blocks_per_sm %u, warp_instrs %llu, cycles %llu)", (unsigned)i, (unsigned)r[i],
                         (unsigned)st.blocks_per_sm, (unsigned long long)st.warp_instrs,
                         (unsigned long long)st.cycles);
    } else if (e.code != SIMT_E_LAUNCH) {
        snprintf(bug, sizeof bug, "refused with code %d instead of SIMT_E_LAUNCH: %s", e.code, e.msg);
    }
    gpu_free(g);                         /* before failing: no leak report */
    if (bug[0])
        fail_msg("%s", bug);
}

/* The slot identity holds with idle SMs, with the greedy-then-oldest
 * scheduler, and on a multi-wave memory-bound launch. */
static void test_stats_identity_variants(void **state)
{
    (void)state;
    gpu_desc_t d;
    support_desc(&d);
    d.sms = 4;
    gpu_t *g = support_gpu(&d);
    gpu_stats_t st;
    run_ok(g, ".kernel one\nmov.u32 %r0, 1\nadd.u32 %r0, %r0, 1\nexit\n", (uint32_t[3]){1, 1, 1},
           (uint32_t[3]){32, 1, 1}, NULL, 0, &st);                /* 3 of 4 SMs idle */
    check_slot_identity(g, &st);
    assert_int_equal(st.warp_instrs, 3);
    assert_true(st.stalls[STALL_IDLE] >= 3 * 4 * st.cycles);
    gpu_free(g);

    support_desc(&d);
    d.sched = SCHED_GTO;
    g = support_gpu(&d);
    run_vecadd(g, &st);
    check_slot_identity(g, &st);
    gpu_free(g);

    support_desc(&d);
    d.max_blocks_per_sm = 1;
    g = support_gpu(&d);
    run_vecadd(g, &st);                                            /* 8 blocks, 4 waves per SM */
    check_slot_identity(g, &st);
    gpu_free(g);
}

static int same_stats(const gpu_stats_t *a, const gpu_stats_t *b)
{
    int same = a->cycles == b->cycles && a->time_us == b->time_us && a->warp_instrs == b->warp_instrs &&
               a->thread_instrs == b->thread_instrs && a->flops == b->flops && a->blocks == b->blocks &&
               a->threads == b->threads && a->gld_bytes == b->gld_bytes && a->gst_bytes == b->gst_bytes &&
               a->sld_bytes == b->sld_bytes && a->sst_bytes == b->sst_bytes &&
               a->gld_sectors == b->gld_sectors && a->gst_sectors == b->gst_sectors &&
               a->smem_wavefronts == b->smem_wavefronts && a->l1_hits == b->l1_hits &&
               a->l1_misses == b->l1_misses && a->l2_hits == b->l2_hits && a->l2_misses == b->l2_misses &&
               a->dram_bytes == b->dram_bytes && a->divergent_branches == b->divergent_branches &&
               a->issue_slots == b->issue_slots && a->blocks_per_sm == b->blocks_per_sm &&
               a->warps_per_sm == b->warps_per_sm && a->occupancy == b->occupancy &&
               strcmp(a->occupancy_limit, b->occupancy_limit) == 0;
    for (int i = 0; i < STALL_COUNT; i++)
        same = same && a->stalls[i] == b->stalls[i];
    return same;
}

static void test_determinism(void **state)
{
    gpu_t *g = *state;
    gpu_stats_t s1, s2, s3;
    run_vecadd(g, &s1);
    run_vecadd(g, &s2);
    assert_true(same_stats(&s1, &s2));
    /* two fresh GPUs, same allocations: the same to the last field */
    gpu_stats_t f1, f2;
    gpu_t *g1 = support_gpu(NULL), *g2 = support_gpu(NULL);
    run_vecadd(g1, &f1);
    run_vecadd(g2, &f2);
    gpu_free(g2);
    gpu_free(g1);
    assert_true(same_stats(&f1, &f2));
    (void)s3;
}

/* A compute-bound kernel: 4 independent fma chains per thread. */
static const char BUSY_SRC[] =
    ".kernel busy\n.param out\n.param iters\n"
    "mov.u32 %r0, %ctaid.x\nmov.u32 %r10, %ntid.x\nmov.u32 %r11, %tid.x\nmad.lo.u32 %r12, %r0, %r10, %r11\n"
    "cvt.f32.u32 %r1, %r11\nmov.f32 %r2, 1.0\nmov.f32 %r3, 2.0\nmov.f32 %r4, 3.0\nmov.f32 %r5, 4.0\n"
    "ld.param.u32 %r6, [iters]\nmov.u32 %r7, 0\n"
    "L:\n"
    "fma.f32 %r2, %r2, 0.5, %r1\nfma.f32 %r3, %r3, 0.5, %r1\nfma.f32 %r4, %r4, 0.5, %r1\nfma.f32 %r5, %r5, 0.5, %r1\n"
    "add.u32 %r7, %r7, 1\nsetp.lt.u32 %p0, %r7, %r6\n@%p0 bra L\n"
    "add.f32 %r2, %r2, %r3\nadd.f32 %r2, %r2, %r4\nadd.f32 %r2, %r2, %r5\n"
    "ld.param.u32 %r8, [out]\nshl.b32 %r12, %r12, 2\nadd.u32 %r8, %r8, %r12\nst.global.f32 [%r8], %r2\n"
    "exit\n";

static uint64_t busy_cycles(const gpu_desc_t *d, uint32_t blocks, uint32_t threads, uint32_t iters)
{
    gpu_t *g = support_gpu(d);
    uint32_t o = support_buffer(g, "out", NULL, blocks * threads * 4);
    gpu_stats_t st;
    run_ok(g, BUSY_SRC, (uint32_t[3]){blocks, 1, 1}, (uint32_t[3]){threads, 1, 1}, (uint32_t[]){o, iters}, 2, &st);
    /* one thread's result by hand: x <- x/2 + t converges towards 2t */
    float r[2];
    support_read(g, o, r, sizeof r);
    assert_true(fabsf(r[0] - 0.0f) < 1e-3f);
    assert_true(fabsf(r[1] - 8.0f) < 1e-3f);      /* 4 chains x 2t with t = 1 */
    check_slot_identity(g, &st);
    gpu_free(g);
    return st.cycles;
}

static void test_more_sms_fewer_cycles(void **state)
{
    (void)state;
    gpu_desc_t d;
    support_desc(&d);
    d.sms = 2;
    uint64_t c2 = busy_cycles(&d, 32, 128, 100);
    d.sms = 8;
    uint64_t c8 = busy_cycles(&d, 32, 128, 100);
    print_message("busy kernel, 32 blocks: 2 SMs %llu cycles, 8 SMs %llu cycles\n",
                  (unsigned long long)c2, (unsigned long long)c8);
    /* 4x the SMs for a compute-bound grid that fills them: close to 4x */
    assert_true(c8 * 3 < c2);
    assert_true(c8 * 5 > c2);
}

static void test_wave_quantisation(void **state)
{
    (void)state;
    gpu_desc_t d;
    support_desc(&d);
    d.sms = 2;
    d.max_blocks_per_sm = 1;
    uint64_t c1 = busy_cycles(&d, 1, 128, 200);
    uint64_t c2 = busy_cycles(&d, 2, 128, 200);
    uint64_t c3 = busy_cycles(&d, 3, 128, 200);
    uint64_t c4 = busy_cycles(&d, 4, 128, 200);
    print_message("waves: 1 block %llu, 2 blocks %llu, 3 blocks %llu, 4 blocks %llu cycles\n",
                  (unsigned long long)c1, (unsigned long long)c2, (unsigned long long)c3,
                  (unsigned long long)c4);
    double r12 = (double)c2 / (double)c1, r34 = (double)c3 / (double)c4, r32 = (double)c3 / (double)c2;
    assert_true(r12 > 0.95 && r12 < 1.05);     /* one wave either way */
    assert_true(r34 > 0.95 && r34 < 1.02);    /* 3 blocks still need 2 waves */
    assert_true(r32 > 1.8 && r32 < 2.2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_exchange),
        cmocka_unit_test(test_barrier_with_exited_threads),
        cmocka_unit_test(test_barrier_in_divergent_code),
        cmocka_unit_test(test_barrier_guarded),
        cmocka_unit_test(test_fault_global_load_out_of_bounds),
        cmocka_unit_test(test_fault_global_store_out_of_bounds),
        cmocka_unit_test(test_fault_before_start_and_null),
        cmocka_unit_test(test_fault_misaligned),
        cmocka_unit_test(test_fault_shared_out_of_bounds),
        cmocka_unit_test(test_watchdog_endless_loop),
        cmocka_unit_test(test_launch_limits),
        cmocka_unit_test(test_desc_validation),
        cmocka_unit_test(test_3d_grid_and_block_mapping),
        cmocka_unit_test(test_stats_vecadd),
        cmocka_unit_test(test_stats_flops_by_table),
        cmocka_unit_test(test_stats_straight_line_counts),
        cmocka_unit_test(test_stats_inactive_lanes),
        cmocka_unit_test(test_occupancy_limits),
        cmocka_unit_test(test_occupancy_register_granularity),
        cmocka_unit_test(test_occupancy_partial_warp_limit),
        cmocka_unit_test(test_stats_identity_variants),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_more_sms_fewer_cycles),
        cmocka_unit_test(test_wave_quantisation),
    };
    return cmocka_run_group_tests(tests, support_setup_gpu, support_teardown_gpu);
}
