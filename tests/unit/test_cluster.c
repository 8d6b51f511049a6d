/* test_cluster.c - thread-block clusters (isa.h "Clusters", gpu.h launch
 * option cluster): launch checks, the dispatcher placing a cluster's CTAs
 * together on distinct SMs, the cluster special registers, multicast bulk
 * copies, remote mbarrier arrivals (and their latency), barrier.cluster,
 * and the kernel faults of reaching outside the cluster.
 *
 * The GPU is support_desc's (2 SMs, 4 blocks per SM) with clusters of up
 * to 2 CTAs and lat_cluster 100 (gpu_desc_default's), unless a test says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "support.h"

/* run_kernel with a cluster shape. */
static int run_cluster(gpu_t *g, const char *src, const uint32_t grid[3], const uint32_t block[3],
                       const uint32_t cluster[3], const uint32_t *args, uint32_t nargs, gpu_stats_t *st,
                       simt_err_t *err)
{
    isa_program_t p;
    gpu_launch_t l;
    memset(&l, 0, sizeof l);
    memcpy(l.grid, grid, sizeof l.grid);
    memcpy(l.block, block, sizeof l.block);
    memcpy(l.cluster, cluster, sizeof l.cluster);
    l.check = 1;
    support_assemble(src, &p);
    int rc = gpu_launch(g, &p, &l, args, nargs, st, err);
    isa_program_free(&p);
    return rc;
}

static void cluster_ok(gpu_t *g, const char *src, const uint32_t grid[3], const uint32_t block[3],
                       const uint32_t cluster[3], const uint32_t *args, uint32_t nargs, gpu_stats_t *st)
{
    simt_err_t e;
    simt_err_clear(&e);
    if (run_cluster(g, src, grid, block, cluster, args, nargs, st, &e) != 0)
        fail_msg("launch failed (code %d):\n%s\n--- source ---\n%s", e.code, e.msg, src);
}

static gpu_t *cluster_gpu(uint32_t sms, uint32_t blocks_per_sm, uint32_t max_cluster)
{
    gpu_desc_t d;
    support_desc(&d);
    d.sms = sms;
    d.max_blocks_per_sm = blocks_per_sm;
    d.max_cluster_size = max_cluster;
    return support_gpu(&d);
}

/* Every CTA writes, at out[ctaid.x * 8 ..]: %cluster_ctarank,
 * %cluster_nctarank, %clusterid.x/y, %cluster_nctaid.x/y, %smid, and the
 * cycle it started. */
static const char *const WHO_SRC =
    ".kernel who\n.param out\n"
    "mov.u32 %r9, %clock\n"
    "mov.u32 %r0, %tid.x\nsetp.ne.u32 %p0, %r0, 0\n@%p0 bra END\n"
    "ld.param.u32 %r1, [out]\nmov.u32 %r2, %ctaid.y\nmov.u32 %r3, %nctaid.x\nmad.lo.u32 %r2, %r2, %r3, %ctaid.x\n"
    "shl.b32 %r2, %r2, 5\nadd.u32 %r1, %r1, %r2\n"
    "mov.u32 %r3, %cluster_ctarank\nst.global.u32 [%r1], %r3\n"
    "mov.u32 %r3, %cluster_nctarank\nst.global.u32 [%r1+4], %r3\n"
    "mov.u32 %r3, %clusterid.x\nst.global.u32 [%r1+8], %r3\n"
    "mov.u32 %r3, %clusterid.y\nst.global.u32 [%r1+12], %r3\n"
    "mov.u32 %r3, %cluster_nctaid.x\nst.global.u32 [%r1+16], %r3\n"
    "mov.u32 %r3, %cluster_nctaid.y\nst.global.u32 [%r1+20], %r3\n"
    "mov.u32 %r3, %smid\nst.global.u32 [%r1+24], %r3\n"
    "st.global.u32 [%r1+28], %r9\n"
    /* a while of work, so that blocks overlap in time */
    "mov.u32 %r4, 0\nLOOP:\nadd.u32 %r4, %r4, 1\nsetp.lt.u32 %p1, %r4, 200\n@%p1 bra LOOP\n"
    "END:\nexit\n";

static void test_special_registers_and_placement(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(4, 4, 2);
    uint32_t out = support_buffer(g, "out", NULL, 8 * 4 * 32);
    gpu_stats_t st;
    /* grid 4 x 2, clusters of 2 x 1: CTA (x, y) has rank x % 2, cluster (x / 2, y) */
    cluster_ok(g, WHO_SRC, (uint32_t[3]){4, 2, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){2, 1, 1},
               (uint32_t[]){out}, 1, &st);
    uint32_t v[8][8];
    support_read(g, out, v, sizeof v);
    for (uint32_t b = 0; b < 8; b++) {
        uint32_t x = b % 4, y = b / 4;
        assert_int_equal(v[b][0], x % 2);
        assert_int_equal(v[b][1], 2);
        assert_int_equal(v[b][2], x / 2);
        assert_int_equal(v[b][3], y);
        assert_int_equal(v[b][4], 2);
        assert_int_equal(v[b][5], 1);
    }
    /* the two CTAs of a cluster start together on different SMs */
    for (uint32_t b = 0; b < 8; b += 2) {
        assert_int_not_equal(v[b][6], v[b + 1][6]);
        assert_true(v[b][7] + 2 >= v[b + 1][7] && v[b + 1][7] + 2 >= v[b][7]);
    }
    /* without a cluster launch each CTA is a cluster of one */
    run_ok(g, WHO_SRC, (uint32_t[3]){4, 2, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[]){out}, 1, &st);
    support_read(g, out, v, sizeof v);
    for (uint32_t b = 0; b < 8; b++) {
        assert_int_equal(v[b][0], 0);
        assert_int_equal(v[b][1], 1);
        assert_int_equal(v[b][2], b % 4);
        assert_int_equal(v[b][3], b / 4);
        assert_int_equal(v[b][4], 1);
    }
    gpu_free(g);
}

/* 3 SMs with one block slot each and clusters of 2: one cluster at a time
 * (the third SM cannot hold a whole cluster), so 2 clusters take 2 waves. */
static void test_clusters_wait_for_room(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(3, 1, 2);
    uint32_t out = support_buffer(g, "out", NULL, 8 * 4 * 4);
    gpu_stats_t one, two;
    cluster_ok(g, WHO_SRC, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){2, 1, 1},
               (uint32_t[]){out}, 1, &one);
    cluster_ok(g, WHO_SRC, (uint32_t[3]){4, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){2, 1, 1},
               (uint32_t[]){out}, 1, &two);
    uint32_t v[4][8];
    support_read(g, out, v, sizeof v);
    assert_int_not_equal(v[0][6], v[1][6]);
    assert_int_not_equal(v[2][6], v[3][6]);
    assert_int_equal(v[0][7], 0);
    assert_int_equal(v[1][7], 0);
    /* placed together (the first instruction may wait a cycle for a unit
     * the SM's previous block left busy) */
    assert_true(v[2][7] + 2 >= v[3][7] && v[3][7] + 2 >= v[2][7]);
    assert_true(v[2][7] > 200);                  /* after the first cluster ended */
    double r = (double)two.cycles / (double)one.cycles;
    print_message("1 cluster %llu cycles, 2 clusters %llu cycles\n", (unsigned long long)one.cycles,
                  (unsigned long long)two.cycles);
    assert_true(r > 1.8 && r < 2.2);
    /* the same 4 blocks without clusters: 3 at once, still 2 waves, but
     * blocks 0..2 start together */
    run_ok(g, WHO_SRC, (uint32_t[3]){4, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[]){out}, 1, &two);
    support_read(g, out, v, sizeof v);
    assert_int_equal(v[2][7], 0);
    gpu_free(g);
}

static void test_launch_checks(void **state)
{
    (void)state;
    simt_err_t e;
    gpu_t *g = cluster_gpu(2, 4, 2);
    uint32_t out = support_buffer(g, "out", NULL, 4096);
    const uint32_t blk[3] = { 32, 1, 1 };
    assert_int_equal(run_cluster(g, WHO_SRC, (uint32_t[3]){3, 1, 1}, blk, (uint32_t[3]){2, 1, 1},
                                 (uint32_t[]){out}, 1, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "grid x dimension 3 is not a multiple of the cluster's 2");
    assert_int_equal(run_cluster(g, WHO_SRC, (uint32_t[3]){4, 2, 1}, blk, (uint32_t[3]){2, 2, 1},
                                 (uint32_t[]){out}, 1, NULL, &e), -1);
    support_contains(e.msg, "cluster of 4 CTAs (2 x 2 x 1) exceeds 2, the most CTAs per cluster on edu-tiny");
    assert_int_equal(run_cluster(g, WHO_SRC, (uint32_t[3]){16, 1, 1}, blk, (uint32_t[3]){16, 1, 1},
                                 (uint32_t[]){out}, 1, NULL, &e), -1);
    support_contains(e.msg, "cluster of more than 8 CTAs");
    gpu_free(g);

    /* a GPU without clusters refuses them, naming itself */
    gpu_desc_t d;
    support_desc(&d);
    d.max_cluster_size = 1;
    snprintf(d.name, sizeof d.name, "oldchip");
    g = support_gpu(&d);
    out = support_buffer(g, "out", NULL, 4096);
    assert_int_equal(run_cluster(g, WHO_SRC, (uint32_t[3]){2, 1, 1}, blk, (uint32_t[3]){2, 1, 1},
                                 (uint32_t[]){out}, 1, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_LAUNCH);
    support_contains(e.msg, "oldchip has no thread-block clusters");
    /* {1,1,1} (or zeros) is no cluster: fine there */
    cluster_ok(g, WHO_SRC, (uint32_t[3]){2, 1, 1}, blk, (uint32_t[3]){1, 1, 1}, (uint32_t[]){out}, 1, NULL);
    cluster_ok(g, WHO_SRC, (uint32_t[3]){2, 1, 1}, blk, (uint32_t[3]){0, 0, 0}, (uint32_t[]){out}, 1, NULL);
    gpu_free(g);

    /* a cluster needs as many SMs at once */
    support_desc(&d);
    d.sms = 2;
    d.max_cluster_size = 4;
    g = support_gpu(&d);
    out = support_buffer(g, "out", NULL, 4096);
    assert_int_equal(run_cluster(g, WHO_SRC, (uint32_t[3]){4, 1, 1}, blk, (uint32_t[3]){4, 1, 1},
                                 (uint32_t[]){out}, 1, NULL, &e), -1);
    support_contains(e.msg, "a cluster of 4 CTAs needs as many SMs at once; edu-tiny has 2");
    gpu_free(g);

    /* the description's field is range-checked */
    support_desc(&d);
    d.max_cluster_size = 9;
    assert_null(gpu_create(&d, &e));
    support_contains(e.msg, "max_cluster_size");
    d.max_cluster_size = 0;
    assert_null(gpu_create(&d, &e));
    support_contains(e.msg, "max_cluster_size");
}

/* Rank 0 multicasts 4 rows of 16 bytes from src into both CTAs' `buf`,
 * completing 64 bytes on each one's mbarrier; both copy buf to
 * out[ctaid.x * 16 ..]. Rank 1's copy arrives without rank 1 copying
 * anything itself. */
static const char *const MC_SRC =
    ".kernel mc\n.param src\n.param out\n.param mask\n.shared buf 64\n.shared bar 8\n"
    "mov.u32 %r0, %tid.x\nsetp.eq.u32 %p0, %r0, 0\nmov.u32 %r1, %cluster_ctarank\n"
    "@%p0 mbarrier.init.shared [bar], 1\n"
    "barrier.cluster\n"
    "ld.param.u32 %r2, [src]\n"
    "setp.eq.u32 %p1, %r1, 0\nand.pred %p1, %p1, %p0\n"
    "@%p0 mbarrier.arrive.expect_tx.shared [bar], 64\n"
    "@%p1 cp.async.bulk.shared.global.multicast.4x16 [buf], [%r2], 32, [bar], 0x3\n"
    "mbarrier.wait.parity.shared [bar], 0\n"
    "setp.lt.u32 %p2, %r0, 16\n"
    "shl.b32 %r3, %r0, 2\nadd.u32 %r9, %r3, buf\n@%p2 ld.shared.u32 %r4, [%r9]\n"
    "ld.param.u32 %r5, [out]\nmov.u32 %r6, %ctaid.x\nshl.b32 %r6, %r6, 6\nadd.u32 %r5, %r5, %r6\n"
    "add.u32 %r5, %r5, %r3\n@%p2 st.global.u32 [%r5], %r4\n"
    "barrier.cluster\n"
    "exit\n";

static void test_multicast(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(2, 4, 2);
    uint32_t in[32];
    for (uint32_t i = 0; i < 32; i++)
        in[i] = 1000 + i;
    uint32_t src = support_buffer(g, "src", in, sizeof in);
    uint32_t out = support_buffer(g, "out", NULL, 4 * 64);
    gpu_stats_t st;
    cluster_ok(g, MC_SRC, (uint32_t[3]){4, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1},
               (uint32_t[]){src, out, 0}, 3, &st);
    uint32_t v[4][16];
    support_read(g, out, v, sizeof v);
    for (uint32_t b = 0; b < 4; b++)
        for (uint32_t i = 0; i < 16; i++)   /* row r = words 4r..4r+3 of src + 32 r bytes */
            assert_int_equal(v[b][i], in[(i / 4) * 8 + i % 4]);
    /* one L2 read per cluster, not per CTA: 4 rows 32 bytes apart = 4
     * sectors, x 2 clusters (+ the stores: 4 CTAs x 64 bytes = 8 sectors) */
    assert_int_equal(st.l2_hits + st.l2_misses, 4 * 2 + 8);
    assert_int_equal(st.gld_bytes, 2 * 64);
    gpu_free(g);
}

/* Rank 0 spins, then arrives on rank 1's mbarrier; rank 1 waits on it.
 * out[0] = rank 0's clock at the arrive, out[1] = rank 1's clock after
 * the wait. */
static const char *const REMOTE_SRC =
    ".kernel remote\n.param out\n.param rank\n.shared bar 8\n"
    "mov.u32 %r1, %cluster_ctarank\nld.param.u32 %r7, [out]\nld.param.u32 %r8, [rank]\n"
    "mov.u32 %r9, %tid.x\nsetp.eq.u32 %p2, %r9, 0\n"   /* lane 0 stores: one thread per word */
    "mbarrier.init.shared [bar], 1\n"
    "barrier.cluster\n"
    "setp.ne.u32 %p0, %r1, 0\n@%p0 bra WAITER\n"
    "mov.u32 %r4, 0\nLOOP:\nadd.u32 %r4, %r4, 1\nsetp.lt.u32 %p1, %r4, 50\n@%p1 bra LOOP\n"
    "mov.u32 %r5, %clock\nmbarrier.arrive.cluster.shared [bar], %r8\n"
    "@%p2 st.global.u32 [%r7], %r5\nbra END\n"
    "WAITER:\nmbarrier.wait.parity.shared [bar], 0\nmov.u32 %r5, %clock\n@%p2 st.global.u32 [%r7+4], %r5\n"
    "END:\nbarrier.cluster\nexit\n";

static void test_remote_arrive_latency(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(2, 4, 2);
    uint32_t out = support_buffer(g, "out", NULL, 8);
    gpu_stats_t st;
    cluster_ok(g, REMOTE_SRC, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){2, 1, 1},
               (uint32_t[]){out, 1}, 2, &st);
    uint32_t v[2];
    support_read(g, out, v, sizeof v);
    print_message("arrive at %u, waiter resumes at %u\n", v[0], v[1]);
    assert_true(v[1] >= v[0] + 100);          /* lat_cluster */
    assert_true(v[1] <= v[0] + 100 + 20);     /* plus a few cycles of issue */
    gpu_free(g);
}

static void expect_fault(gpu_t *g, const char *src, const uint32_t grid[3], const uint32_t block[3],
                         const uint32_t cluster[3], const uint32_t *args, uint32_t nargs, const char *what)
{
    simt_err_t e;
    assert_int_equal(run_cluster(g, src, grid, block, cluster, args, nargs, NULL, &e), -1);
    print_message("%s\n", e.msg);
    assert_int_equal(e.code, SIMT_E_KERNEL);
    support_contains(e.msg, what);
}

static void test_faults(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(2, 4, 2);
    uint32_t out = support_buffer(g, "out", NULL, 64);
    uint32_t src = support_buffer(g, "src", NULL, 256);
    const uint32_t grid[3] = { 2, 1, 1 }, blk[3] = { 32, 1, 1 }, cl[3] = { 2, 1, 1 };
    simt_err_t e;
    /* a remote arrive on rank 2 of a cluster of 2 */
    expect_fault(g, REMOTE_SRC, grid, blk, cl, (uint32_t[]){out, 2}, 2,
                 "remote mbarrier arrive names a CTA outside the cluster");
    assert_int_equal(run_cluster(g, REMOTE_SRC, grid, blk, cl, (uint32_t[]){out, 2}, 2, NULL, &e), -1);
    support_contains(e.msg, "kernel 'remote'");
    support_contains(e.msg, "block (0,0,0), thread (0,0,0)");
    support_contains(e.msg, "CTA rank 2 (shared address 0x00000000), but the cluster has 2 CTAs (ranks 0..1)");
    expect_fault(g, REMOTE_SRC, grid, blk, cl, (uint32_t[]){out, 9}, 2,
                 "CTA rank 9 (shared address 0x00000000): a cluster has at most 8 CTAs");
    /* the same kernel without a cluster launch: rank 1 is outside a cluster of one */
    expect_fault(g, REMOTE_SRC, grid, blk, (uint32_t[3]){1, 1, 1}, (uint32_t[]){out, 1}, 2,
                 "launch with cluster = {...} for more");
    /* a multicast mask naming rank 2 */
    const char *mask_src =
        ".kernel mask\n.param src\n.shared buf 64\n.shared bar 8\n"
        "mbarrier.init.shared [bar], 1\nbarrier.cluster\nld.param.u32 %r2, [src]\n"
        "cp.async.bulk.shared.global.multicast.4x16 [buf], [%r2], 32, [bar], 0x5\nexit\n";
    expect_fault(g, mask_src, grid, blk, cl, (uint32_t[]){src}, 1, "multicast mask names a CTA outside the cluster");
    /* a source 4 bytes off a multiple of 16 (the assembler rejects a bad
     * immediate pitch; an address in a register is only known when it runs) */
    const char *pitch_src =
        ".kernel pitch\n.param src\n.shared buf 64\n.shared bar 8\n"
        "mbarrier.init.shared [bar], 1\nbarrier.cluster\nld.param.u32 %r2, [src]\nadd.u32 %r2, %r2, 4\n"
        "cp.async.bulk.shared.global.multicast.4x16 [buf], [%r2], 32, [bar], 0x3\nexit\n";
    assert_int_equal(run_cluster(g, pitch_src, grid, blk, cl, (uint32_t[]){src}, 1, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_MEM);
    support_contains(e.msg, "misaligned bulk copy source");
    support_contains(e.msg, "and row pitch 32 must be multiples of 16 (a bulk copy moves 16-byte pieces)");
    /* rank 0 exits at once; rank 1 then arrives on it */
    const char *exited_src =
        ".kernel gone\n.shared bar 8\n"
        "mbarrier.init.shared [bar], 1\nmov.u32 %r1, %cluster_ctarank\nsetp.eq.u32 %p0, %r1, 0\n@%p0 exit\n"
        "mov.u32 %r4, 0\nLOOP:\nadd.u32 %r4, %r4, 1\nsetp.lt.u32 %p1, %r4, 50\n@%p1 bra LOOP\n"
        "mbarrier.arrive.cluster.shared [bar], 0\nexit\n";
    expect_fault(g, exited_src, grid, blk, cl, NULL, 0, "remote mbarrier arrive names a CTA that has exited");
    /* a remote arrive on a peer's mbarrier that the peer never initialised */
    const char *uninit_src =
        ".kernel uninit\n.shared bar 8\n.shared bar2 8\n"
        "mbarrier.init.shared [bar], 1\nbarrier.cluster\n"
        "mov.u32 %r1, %cluster_ctarank\nxor.b32 %r2, %r1, 1\n"
        "mbarrier.arrive.cluster.shared [bar2], %r2\nbarrier.cluster\nexit\n";
    expect_fault(g, uninit_src, grid, blk, cl, NULL, 0, "of CTA rank 1 of its cluster (block (1,0,0)) holds no mbarrier");
    gpu_free(g);
}

/* barrier.cluster orders shared-memory stores of one CTA before another's
 * multicast reads them? No: it orders the CTAs' progress. Here rank 1
 * spins before the barrier and rank 0 must wait for it: rank 0's clock
 * after the barrier comes after rank 1's arrival plus lat_cluster. Without
 * a cluster launch barrier.cluster is the block's barrier. */
static void test_barrier_cluster(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(2, 4, 2);
    uint32_t out = support_buffer(g, "out", NULL, 16);
    const char *src =
        ".kernel bc\n.param out\n"
        "mov.u32 %r1, %ctaid.x\nsetp.eq.u32 %p0, %r1, 0\n@%p0 bra GO\n"
        "mov.u32 %r4, 0\nLOOP:\nadd.u32 %r4, %r4, 1\nsetp.lt.u32 %p1, %r4, 100\n@%p1 bra LOOP\n"
        "GO:\nmov.u32 %r5, %clock\nbarrier.cluster\nmov.u32 %r6, %clock\n"
        "ld.param.u32 %r7, [out]\nshl.b32 %r1, %r1, 3\nadd.u32 %r7, %r7, %r1\n"
        "mov.u32 %r0, %tid.x\nsetp.eq.u32 %p2, %r0, 0\n"
        "@%p2 st.global.u32 [%r7], %r5\n@%p2 st.global.u32 [%r7+4], %r6\nexit\n";
    gpu_stats_t st;
    cluster_ok(g, src, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1},
               (uint32_t[]){out}, 1, &st);
    uint32_t v[2][2];
    support_read(g, out, v, sizeof v);
    print_message("rank 0 arrives %u leaves %u; rank 1 arrives %u leaves %u\n", v[0][0], v[0][1], v[1][0], v[1][1]);
    assert_true(v[1][0] > v[0][0] + 100);        /* rank 1 came late */
    assert_true(v[0][1] >= v[1][0] + 100);       /* rank 0 waited for it, + lat_cluster */
    assert_true(v[0][1] <= v[1][0] + 120);
    assert_true(v[1][1] >= v[1][0] + 100);
    /* no cluster: each block passes on its own */
    run_ok(g, src, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[]){out}, 1, &st);
    support_read(g, out, v, sizeof v);
    assert_true(v[0][1] < v[1][0]);
    gpu_free(g);
}

/* Two launches of the cluster kernels give the same cycles and results. */
static void test_determinism(void **state)
{
    (void)state;
    uint64_t cyc[2];
    for (int k = 0; k < 2; k++) {
        gpu_t *g = cluster_gpu(2, 4, 2);
        uint32_t in[32] = { 0 };
        uint32_t src = support_buffer(g, "src", in, sizeof in);
        uint32_t out = support_buffer(g, "out", NULL, 8 * 64);
        gpu_stats_t st;
        cluster_ok(g, MC_SRC, (uint32_t[3]){8, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1},
                   (uint32_t[]){src, out, 0}, 3, &st);
        cyc[k] = st.cycles;
        gpu_free(g);
    }
    assert_int_equal(cyc[0], cyc[1]);
}

/* Distributed shared memory: each CTA of a 2-CTA cluster writes its
 * thread t's value 100 * rank + t into its peer's `box` with st.cluster,
 * barrier.cluster, then reads it back from its own box with ld.shared and
 * from the peer's with ld.cluster. out[ctaid.x][t] = own box, out[..][32 +
 * t] = the peer's; out[ctaid.x][64] = cycles the ld.cluster took. */
static const char *const DSMEM_SRC =
    ".kernel dsmem\n.param out\n.param bad\n.shared box 128\n"
    "mov.u32 %r0, %tid.x\nmov.u32 %r1, %cluster_ctarank\nxor.b32 %r2, %r1, 1\n"
    "ld.param.u32 %r9, [bad]\nadd.u32 %r2, %r2, %r9\n"          /* bad = 1: rank 2 or 1 */
    "mul.lo.u32 %r3, %r1, 100\nadd.u32 %r3, %r3, %r0\nshl.b32 %r4, %r0, 2\n"
    "st.cluster.shared.u32 [%r4], %r3, %r2\n"
    "barrier.cluster\n"
    "ld.shared.u32 %r5, [%r4]\n"
    "mov.u32 %r10, %clock\nld.cluster.shared.u32 %r6, [%r4], %r2\nadd.u32 %r7, %r6, 0\nmov.u32 %r11, %clock\n"
    "ld.param.u32 %r8, [out]\nmov.u32 %r12, %ctaid.x\nmul.lo.u32 %r12, %r12, 272\nadd.u32 %r8, %r8, %r12\n"
    "add.u32 %r8, %r8, %r4\nst.global.u32 [%r8], %r5\nst.global.u32 [%r8+128], %r7\n"
    "sub.u32 %r11, %r11, %r10\nsetp.eq.u32 %p0, %r0, 0\n@%p0 st.global.u32 [%r8+256], %r11\n"
    "barrier.cluster\nexit\n";

static void test_distributed_shared_memory(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(2, 4, 2);
    uint32_t out = support_buffer(g, "out", NULL, 4 * 68 * 4);
    gpu_stats_t st;
    cluster_ok(g, DSMEM_SRC, (uint32_t[3]){4, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){2, 1, 1},
               (uint32_t[]){out, 0}, 2, &st);
    uint32_t v[4][68];
    support_read(g, out, v, sizeof v);
    for (uint32_t b = 0; b < 4; b++) {
        uint32_t rank = b % 2, peer = rank ^ 1;
        for (uint32_t t = 0; t < 32; t++) {
            assert_int_equal(v[b][t], 100 * peer + t);       /* the peer wrote my box */
            assert_int_equal(v[b][32 + t], 100 * rank + t);  /* I wrote the peer's */
        }
        /* the load from the peer took lat_cluster (100) cycles and a little */
        print_message("CTA %u: ld.cluster took %u cycles\n", b, v[b][64]);
        assert_true(v[b][64] >= 100 && v[b][64] <= 140);   /* + the LSU issue interval, a few instructions */
    }
    /* rank 2 of a cluster of 2 */
    simt_err_t e;
    assert_int_equal(run_cluster(g, DSMEM_SRC, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1},
                                 (uint32_t[3]){2, 1, 1}, (uint32_t[]){out, 1}, 2, NULL, &e), -1);
    assert_int_equal(e.code, SIMT_E_KERNEL);
    support_contains(e.msg, "st.cluster names a CTA outside the cluster");
    support_contains(e.msg, "CTA rank 2 (shared address 0x00000000), but the cluster has 2 CTAs");
    /* without a cluster launch only rank 0 (itself) exists */
    assert_int_equal(run_cluster(g, DSMEM_SRC, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1},
                                 (uint32_t[3]){1, 1, 1}, (uint32_t[]){out, 0}, 2, NULL, &e), -1);
    support_contains(e.msg, "st.cluster names a CTA outside the cluster");
    /* a misaligned address */
    const char *mis = ".kernel mis\n.shared box 128\nst.cluster.shared.u32 [box+2], 1, 0\nexit\n";
    assert_int_equal(run_cluster(g, mis, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1},
                                 (uint32_t[3]){2, 1, 1}, NULL, 0, NULL, &e), -1);
    support_contains(e.msg, "misaligned st.cluster address");
    gpu_free(g);
}

/* cp.async.bulk.global.shared (the TMA store the cluster GEMM's epilogue
 * uses): every thread writes its word into shared memory, then warp 0
 * stores 4 rows of 64 bytes to out with a pitch of 128 bytes. The data
 * lands; the gaps between rows stay untouched; the statistics count the
 * bytes; and the kernel checker sees uninitialised shared bytes. */
static void test_bulk_store(void **state)
{
    (void)state;
    gpu_t *g = cluster_gpu(1, 4, 1);
    uint32_t init[128];
    for (uint32_t i = 0; i < 128; i++)
        init[i] = 0xDEAD0000u + i;
    uint32_t out = support_buffer(g, "out", init, sizeof init);
    const char *src =
        ".kernel bst\n.param out\n.param rows\n.shared tile 256\n"
        "mov.u32 %r0, %tid.x\nshl.b32 %r1, %r0, 2\nadd.u32 %r1, %r1, tile\nmul.lo.u32 %r2, %r0, 3\n"
        "st.shared.u32 [%r1], %r2\nbar.sync\n"
        "ld.param.u32 %r3, [out]\nsetp.lt.u32 %p0, %r0, 32\nld.param.u32 %r4, [rows]\n"
        "setp.eq.u32 %p1, %r4, 4\nand.pred %p1, %p1, %p0\n"
        "@%p1 cp.async.bulk.global.shared.4x64 [%r3], [tile], 128\n"
        "setp.eq.u32 %p1, %r4, 5\nand.pred %p1, %p1, %p0\n"
        "@%p1 cp.async.bulk.global.shared.5x64 [%r3], [tile], 128\n"
        "exit\n";
    gpu_stats_t st;
    cluster_ok(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){1, 1, 1},
               (uint32_t[]){out, 4}, 2, &st);
    uint32_t v[128];
    support_read(g, out, v, sizeof v);
    for (uint32_t r = 0; r < 4; r++)
        for (uint32_t i = 0; i < 32; i++) {
            uint32_t want = i < 16 ? 3 * (16 * r + i) : 0xDEAD0000u + 32 * r + i;
            assert_int_equal(v[32 * r + i], want);
        }
    assert_int_equal(st.gst_bytes, 256);
    assert_int_equal(st.gst_sectors, 8);
    assert_true(st.cycles > 0);
    /* 5 rows read 320 bytes of a 256-byte array: out of bounds */
    simt_err_t e;
    assert_int_equal(run_cluster(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){1, 1, 1},
                                 (uint32_t[]){out, 5}, 2, NULL, &e), -1);
    support_contains(e.msg, "out-of-bounds bulk store source");
    /* a destination 4 bytes off a multiple of 16 */
    assert_int_equal(run_cluster(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){1, 1, 1},
                                 (uint32_t[]){out + 4, 4}, 2, NULL, &e), -1);
    support_contains(e.msg, "misaligned bulk store destination");
    support_contains(e.msg, "and row pitch 128 must be multiples of 16 (a bulk store moves 16-byte pieces)");
    /* rows 0..2 fit in the 512-byte buffer from out + 128; row 3 does not */
    assert_int_equal(run_cluster(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){1, 1, 1},
                                 (uint32_t[]){out + 128, 4}, 2, NULL, &e), -1);
    support_contains(e.msg, "out-of-bounds bulk store destination");
    support_contains(e.msg, "row 3 of the box");
    /* only 32 threads write: the store reads bytes no thread wrote */
    assert_int_equal(run_cluster(g, src, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1},
                                 (uint32_t[]){out, 4}, 2, NULL, &e), -1);
    support_contains(e.msg, "read of uninitialised shared memory");
    gpu_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_registers_and_placement),
        cmocka_unit_test(test_clusters_wait_for_room),
        cmocka_unit_test(test_launch_checks),
        cmocka_unit_test(test_multicast),
        cmocka_unit_test(test_remote_arrive_latency),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_barrier_cluster),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_bulk_store),
        cmocka_unit_test(test_distributed_shared_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
