/* test_check.c - the kernel checker (check.h): each finding has a
 * deliberately buggy kernel and the exact report; the corrected kernel (or
 * the same one with the checker off) runs clean.
 *
 * Expected reports are spelled out from the kernels: which thread touches
 * which byte first follows from lockstep warps (lanes in order within one
 * instruction) and, for one warp, program order. Device addresses: the
 * first allocation of a fresh GPU starts at MEM_BASE (0x10000000).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "support.h"

/* Launch src with `threads` threads in one block (grid blocks) and the
 * checker on (check = 1) or off. */
static int launch(gpu_t *g, const char *src, uint32_t grid, uint32_t threads, const uint32_t *args,
                  uint32_t nargs, int check, simt_err_t *err)
{
    isa_program_t p;
    gpu_launch_t l;
    memset(&l, 0, sizeof l);
    l.grid[0] = grid;
    l.block[0] = threads;
    l.check = check;
    support_assemble(src, &p);
    simt_err_clear(err);
    int rc = gpu_launch(g, &p, &l, args, nargs, NULL, err);
    isa_program_free(&p);
    return rc;
}

static void expect_ok(gpu_t *g, const char *src, uint32_t grid, uint32_t threads, const uint32_t *args,
                      uint32_t nargs)
{
    simt_err_t e;
    if (launch(g, src, grid, threads, args, nargs, 1, &e) != 0)
        fail_msg("expected a clean run, got:\n%s", e.msg);
}

static void expect_report(gpu_t *g, const char *src, uint32_t grid, uint32_t threads, const uint32_t *args,
                          uint32_t nargs, const char *report)
{
    simt_err_t e;
    assert_int_equal(launch(g, src, grid, threads, args, nargs, 1, &e), -1);
    assert_int_equal(e.code, SIMT_E_KERNEL);
    if (strcmp(e.msg, report) != 0)
        fail_msg("report differs.\nexpected:\n%s\ngot:\n%s", report, e.msg);
}

/* ---- uninitialised global memory ------------------------------------------ */

/* out[t] = in[t] for t < 4 */
static const char COPY4[] =
    ".kernel copy4\n"                            /* line 1 */
    ".param in\n"
    ".param out\n"
    "    mov.u32 %r0, %tid.x;\n"                 /* pc 0, line 4 */
    "    shl.b32 %r1, %r0, 2;\n"                 /* pc 1 */
    "    ld.param.u32 %r2, [in];\n"              /* pc 2 */
    "    add.u32 %r2, %r2, %r1;\n"               /* pc 3 */
    "    ld.global.f32 %r3, [%r2];\n"            /* pc 4, line 8 */
    "    ld.param.u32 %r4, [out];\n"             /* pc 5 */
    "    add.u32 %r4, %r4, %r1;\n"               /* pc 6 */
    "    st.global.f32 [%r4], %r3;\n"            /* pc 7 */
    "    exit;\n";

static void test_global_never_written(void **state)
{
    gpu_t *g = *state;
    uint32_t in = support_buffer(g, "in", NULL, 16);    /* 0x10000000, never written */
    uint32_t out = support_buffer(g, "out", NULL, 16);
    expect_report(g, COPY4, 1, 4, (uint32_t[]){ in, out }, 2,
                  "read of uninitialised global memory in kernel 'copy4' at pc 4 "
                  "(test.s:8: ld.global.f32 %r3, [%r2])\n"
                  "  block (0,0,0), thread (0,0,0) [warp 0 of the block, lane 0]\n"
                  "  address 0x10000000: byte 0 of 'in' (0x10000000, 16 bytes), which no host copy "
                  "or kernel store has written");
    /* the same buggy kernel with the checker off runs (reading zeros) */
    simt_err_t e;
    assert_int_equal(launch(g, COPY4, 1, 4, (uint32_t[]){ in, out }, 2, 0, &e), 0);
}

static void test_global_partly_written(void **state)
{
    gpu_t *g = *state;
    float two[2] = { 1.0f, 2.0f };
    uint32_t in = support_buffer(g, "in", NULL, 16);
    uint32_t out = support_buffer(g, "out", NULL, 16);
    simt_err_t e;
    assert_int_equal(gpu_write(g, in, two, 8, &e), 0);  /* bytes 0..7 only */
    /* threads 0 and 1 read written bytes; thread 2 is the first to read byte 8 */
    expect_report(g, COPY4, 1, 4, (uint32_t[]){ in, out }, 2,
                  "read of uninitialised global memory in kernel 'copy4' at pc 4 "
                  "(test.s:8: ld.global.f32 %r3, [%r2])\n"
                  "  block (0,0,0), thread (2,0,0) [warp 0 of the block, lane 2]\n"
                  "  address 0x10000008: byte 8 of 'in' (0x10000000, 16 bytes), which no host copy "
                  "or kernel store has written");
    /* fully written: clean, and the kernel's stores initialise 'out' for the next launch */
    float four[4] = { 1, 2, 3, 4 };
    assert_int_equal(gpu_write(g, in, four, 16, &e), 0);
    expect_ok(g, COPY4, 1, 4, (uint32_t[]){ in, out }, 2);
    uint32_t back = support_buffer(g, "back", NULL, 16);
    expect_ok(g, COPY4, 1, 4, (uint32_t[]){ out, back }, 2);
}

/* atom.global.add on a counter nobody set to zero */
static void test_global_atomic_uninitialised(void **state)
{
    gpu_t *g = *state;
    uint32_t cnt = support_buffer(g, "count", NULL, 4);
    const char *src =
        ".kernel count\n"
        ".param c\n"
        "    ld.param.u32 %r0, [c];\n"               /* pc 0 */
        "    atom.global.add.u32 %r1, [%r0], 1;\n"   /* pc 1, line 4 */
        "    exit;\n";
    expect_report(g, src, 1, 32, (uint32_t[]){ cnt }, 1,
                  "atomic on uninitialised global memory in kernel 'count' at pc 1 "
                  "(test.s:4: atom.global.add.u32 %r1, [%r0], 1)\n"
                  "  block (0,0,0), thread (0,0,0) [warp 0 of the block, lane 0]\n"
                  "  address 0x10000000: byte 0 of 'count' (0x10000000, 4 bytes), which no host copy "
                  "or kernel store has written");
    uint32_t zero = 0, total = 0;
    simt_err_t e;
    assert_int_equal(gpu_write(g, cnt, &zero, 4, &e), 0);
    expect_ok(g, src, 2, 32, (uint32_t[]){ cnt }, 1);
    support_read(g, cnt, &total, 4);
    assert_int_equal(total, 64);
}

/* ---- shared memory ---------------------------------------------------------- */

static void test_shared_uninitialised(void **state)
{
    const char *src =
        ".kernel peek\n"
        ".param out\n"
        ".shared s 128\n"
        "    mov.u32 %r0, %tid.x;\n"                 /* pc 0 */
        "    shl.b32 %r1, %r0, 2;\n"                 /* pc 1 */
        "    ld.shared.f32 %r2, [%r1];\n"          /* pc 2, line 6 */
        "    exit;\n";
    expect_report(*state, src, 1, 32, (uint32_t[]){ 0 }, 1,
                  "read of uninitialised shared memory in kernel 'peek' at pc 2 "
                  "(test.s:6: ld.shared.f32 %r2, [%r1])\n"
                  "  block (0,0,0), thread (0,0,0) [warp 0 of the block, lane 0]\n"
                  "  address 0x00000000: byte 0 of shared array 's' (128 bytes), which no thread "
                  "of this block has written");
}

/* Each thread writes s[t] and reads s[t+1] (a neighbour's value): racy
 * without a barrier, clean with one. The second block starts with fresh
 * shared state: its reads are checked again. */
static const char SHIFT_RACY[] =
    ".kernel shift\n"
    ".param out\n"
    ".shared s 256\n"
    "    mov.u32 %r0, %tid.x;\n"                     /* pc 0 */
    "    shl.b32 %r1, %r0, 2;\n"                     /* pc 1 */
    "    st.shared.u32 [%r1], %r0;\n"              /* pc 2, line 6 */
    "    setp.lt.u32 %p0, %r0, 31;\n"                /* pc 3 */
    "    @%p0 ld.shared.u32 %r2, [%r1+4];\n"         /* pc 4, line 8 */
    "    exit;\n";

static const char SHIFT_FIXED[] =
    ".kernel shift\n"
    ".param out\n"
    ".shared s 256\n"
    "    mov.u32 %r0, %tid.x;\n"
    "    shl.b32 %r1, %r0, 2;\n"
    "    st.shared.u32 [%r1], %r0;\n"
    "    bar.sync;\n"
    "    setp.lt.u32 %p0, %r0, 31;\n"
    "    @%p0 ld.shared.u32 %r2, [%r1+4];\n"
    "    exit;\n";

static void test_race_read_after_write(void **state)
{
    /* lane 0 reads byte 4 first; thread 1 wrote it at pc 2 */
    expect_report(*state, SHIFT_RACY, 1, 32, (uint32_t[]){ 0 }, 1,
                  "shared-memory data race (read after write) in kernel 'shift' at pc 4 "
                  "(test.s:8: @%p0 ld.shared.u32 %r2, [%r1+4])\n"
                  "  block (0,0,0), thread (0,0,0) [warp 0 of the block, lane 0]\n"
                  "  address 0x00000004: byte 4 of shared array 's' (256 bytes)\n"
                  "  written by block (0,0,0), thread (1,0,0) [warp 0 of the block, lane 1]\n"
                  "    at pc 2 (test.s:6: st.shared.u32 [%r1], %r0),\n"
                  "  with no bar.sync between the two accesses");
    expect_ok(*state, SHIFT_FIXED, 3, 32, (uint32_t[]){ 0 }, 1);
}

/* every thread stores to s[0] in one instruction */
static void test_race_write_after_write_same_instruction(void **state)
{
    const char *src =
        ".kernel flag\n"
        ".param out\n"
        ".shared s 64\n"
        "    mov.u32 %r0, %tid.x;\n"                 /* pc 0 */
        "    st.shared.u32 [s], %r0;\n"              /* pc 1, line 5 */
        "    exit;\n";
    expect_report(*state, src, 1, 32, (uint32_t[]){ 0 }, 1,
                  "shared-memory data race (write after write) in kernel 'flag' at pc 1 "
                  "(test.s:5: st.shared.u32 [s], %r0)\n"
                  "  block (0,0,0), thread (1,0,0) [warp 0 of the block, lane 1]\n"
                  "  address 0x00000000: byte 0 of shared array 's' (64 bytes)\n"
                  "  written by block (0,0,0), thread (0,0,0) [warp 0 of the block, lane 0]\n"
                  "    at pc 1 (test.s:5: st.shared.u32 [s], %r0),\n"
                  "  with no bar.sync between the two accesses");
}

/* s[t] = t; barrier; v = s[t]; s[(t+1) % 32] = v without a second barrier:
 * thread 0 overwrites s[1], which thread 1 read in the same epoch. */
static void test_race_write_after_read(void **state)
{
    const char *src =
        ".kernel rotate\n"
        ".param out\n"
        ".shared s 128\n"
        "    mov.u32 %r0, %tid.x;\n"                 /* pc 0 */
        "    shl.b32 %r1, %r0, 2;\n"                 /* pc 1 */
        "    st.shared.u32 [%r1], %r0;\n"          /* pc 2 */
        "    bar.sync;\n"                            /* pc 3 */
        "    ld.shared.u32 %r2, [%r1];\n"          /* pc 4, line 8 */
        "    add.u32 %r3, %r0, 1;\n"                 /* pc 5 */
        "    and.b32 %r3, %r3, 31;\n"                /* pc 6 */
        "    shl.b32 %r3, %r3, 2;\n"                 /* pc 7 */
        "    st.shared.u32 [%r3], %r2;\n"          /* pc 8, line 12 */
        "    exit;\n";
    expect_report(*state, src, 1, 32, (uint32_t[]){ 0 }, 1,
                  "shared-memory data race (write after read) in kernel 'rotate' at pc 8 "
                  "(test.s:12: st.shared.u32 [%r3], %r2)\n"
                  "  block (0,0,0), thread (0,0,0) [warp 0 of the block, lane 0]\n"
                  "  address 0x00000004: byte 4 of shared array 's' (128 bytes)\n"
                  "  read by block (0,0,0), thread (1,0,0) [warp 0 of the block, lane 1]\n"
                  "    at pc 4 (test.s:8: ld.shared.u32 %r2, [%r1]),\n"
                  "  with no bar.sync between the two accesses");
}

/* warp 1 reads what warp 0 wrote, no barrier: a race whichever warp the
 * schedulers run first; with the barrier, clean. */
static void test_race_between_warps(void **state)
{
    const char *racy =
        ".kernel across\n"
        ".param out\n"
        ".shared s 256\n"
        "    mov.u32 %r0, %tid.x;\n"
        "    shl.b32 %r1, %r0, 2;\n"
        "    and.b32 %r1, %r1, 127;\n"               /* s[t % 32] */
        "    setp.lt.u32 %p0, %r0, 32;\n"
        "    @%p0 st.shared.u32 [%r1], %r0;\n"     /* warp 0 writes */
        "    @!%p0 ld.shared.u32 %r2, [%r1];\n"    /* warp 1 reads */
        "    exit;\n";
    simt_err_t e;
    assert_int_equal(launch(*state, racy, 1, 64, (uint32_t[]){ 0 }, 1, 1, &e), -1);
    if (!strstr(e.msg, "shared-memory data race (read after write)") &&
        !strstr(e.msg, "read of uninitialised shared memory"))
        fail_msg("expected a race or an uninitialised read, got:\n%s", e.msg);
    support_contains(e.msg, "warp 1 of the block");
}

/* many threads add to one shared counter with atomics: never a race; a
 * broadcast read of one word by a whole warp is not one either */
static void test_atomics_and_broadcast_are_clean(void **state)
{
    const char *src =
        ".kernel hist\n"
        ".param out\n"
        ".shared s 64\n"
        "    mov.u32 %r0, %tid.x;\n"
        "    setp.eq.u32 %p0, %r0, 0;\n"
        "    @%p0 st.shared.u32 [s], 0;\n"
        "    bar.sync;\n"
        "    atom.shared.add.u32 %r1, [s], 1;\n"
        "    bar.sync;\n"
        "    ld.shared.u32 %r2, [s];\n"
        "    ld.param.u32 %r3, [out];\n"
        "    @%p0 st.global.u32 [%r3], %r2;\n"
        "    exit;\n";
    gpu_t *g = *state;
    uint32_t out = support_buffer(g, "out", NULL, 4), v = 0;
    expect_ok(g, src, 1, 96, (uint32_t[]){ out }, 1);
    support_read(g, out, &v, 4);
    assert_int_equal(v, 96);
}

/* bytes written by different threads inside one word do not race */
static void test_subword_bytes_are_separate(void **state)
{
    const char *src =
        ".kernel bytes\n"
        ".param out\n"
        ".shared s 32\n"
        "    mov.u32 %r0, %tid.x;\n"
        "    st.shared.u8 [%r0], %r0;\n"
        "    bar.sync;\n"
        "    ld.shared.u8 %r1, [%r0];\n"
        "    exit;\n";
    expect_ok(*state, src, 1, 32, (uint32_t[]){ 0 }, 1);
}

/* ---- barriers ---------------------------------------------------------------- */

/* warp 0 waits at one bar.sync, warp 1 at another */
static void test_warps_at_different_barriers(void **state)
{
    const char *src =
        ".kernel split\n"
        ".param out\n"
        "    mov.u32 %r0, %tid.x;\n"                 /* pc 0 */
        "    setp.lt.u32 %p0, %r0, 32;\n"            /* pc 1 */
        "    @%p0 bra FIRST;\n"                      /* pc 2 */
        "    bar.sync;\n"                            /* pc 3, line 6 */
        "    exit;\n"                                /* pc 4 */
        "FIRST:\n"
        "    bar.sync;\n"                            /* pc 5, line 9 */
        "    exit;\n";
    simt_err_t e;
    assert_int_equal(launch(*state, src, 1, 64, (uint32_t[]){ 0 }, 1, 1, &e), -1);
    assert_int_equal(e.code, SIMT_E_KERNEL);
    /* whichever warp arrives second is reported, naming the other's barrier */
    support_contains(e.msg, "warps of a block wait at different barriers in kernel 'split' at pc ");
    if (strstr(e.msg, "at pc 3 (test.s:6: bar.sync)"))
        support_contains(e.msg, "[warp 1 of the block, lane 0]\n  warp 0 of the block waits at a different "
                                "bar.sync, pc 5 (test.s:9: bar.sync)");
    else
        support_contains(e.msg, "at pc 5 (test.s:9: bar.sync)\n  block (0,0,0), thread (0,0,0) [warp 0 of "
                                "the block, lane 0]\n  warp 1 of the block waits at a different bar.sync, "
                                "pc 3 (test.s:6: bar.sync)");
    /* without the checker the simulator lets both through (as hardware would) */
    assert_int_equal(launch(*state, src, 1, 64, (uint32_t[]){ 0 }, 1, 0, &e), 0);
}

/* a barrier in a loop: the same pc each time, every warp, clean */
static void test_barrier_in_loop_is_clean(void **state)
{
    const char *src =
        ".kernel loop\n"
        ".param out\n"
        ".shared s 512\n"
        "    mov.u32 %r0, %tid.x;\n"
        "    shl.b32 %r1, %r0, 2;\n"
        "    mov.u32 %r5, 0;\n"
        "    st.shared.u32 [%r1], %r0;\n"
        "    bar.sync;\n"
        "AGAIN:\n"
        "    xor.b32 %r2, %r0, 1;\n"
        "    shl.b32 %r2, %r2, 2;\n"
        "    ld.shared.u32 %r3, [%r2];\n"          /* the partner's value */
        "    bar.sync;\n"
        "    add.u32 %r3, %r3, 1;\n"
        "    st.shared.u32 [%r1], %r3;\n"
        "    bar.sync;\n"
        "    add.u32 %r5, %r5, 1;\n"
        "    setp.lt.u32 %p1, %r5, 4;\n"
        "    @%p1 bra AGAIN;\n"
        "    exit;\n";
    expect_ok(*state, src, 2, 128, (uint32_t[]){ 0 }, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_global_never_written, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_global_partly_written, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_global_atomic_uninitialised, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_shared_uninitialised, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_race_read_after_write, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_race_write_after_write_same_instruction, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_race_write_after_read, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_race_between_warps, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_atomics_and_broadcast_are_clean, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_subword_bytes_are_separate, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_warps_at_different_barriers, support_setup_gpu, support_teardown_gpu),
        cmocka_unit_test_setup_teardown(test_barrier_in_loop_is_clean, support_setup_gpu, support_teardown_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
