/* test_link.c - the link model (link.h) and collectives on a node (node.h):
 * one transfer = latency + bytes / bandwidth, two sharing a link take twice
 * as long, no link ever carries more than its bandwidth, ring bytes per GPU
 * = 2(N-1)/N of the message, ring beats the parameter server for N >= 4,
 * and every all-reduce equals the reference sum. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "asm.h"
#include "gpu.h"
#include "link.h"
#include "node.h"

#define GB 1e9

/* cmocka 1.1 has no assert_double_equal: |a - b| <= eps */
#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void one_transfer_is_latency_plus_bytes_over_bandwidth(void **state)
{
    (void)state;
    link_net_t n;
    simt_err_t e;
    link_net_init(&n);
    int a = link_net_add(&n, "a", 100 * GB, &e), b = link_net_add(&n, "b", 50 * GB, &e);
    assert_true(a == 0 && b == 1);
    link_flow_t f = {.hops = {0, 1}, .nhops = 2, .bytes = 1e9, .start_s = 0.5, .latency_s = 2e-6};
    assert_int_equal(link_run(&n, &f, 1, &e), 0);
    /* the slower link (50 GB/s) sets the rate */
    assert_double_equal(f.finish_s, 0.5 + 2e-6 + 1e9 / (50 * GB), 1e-12);
    assert_double_equal(n.res[1].bytes, 1e9, 1e-3);
    assert_double_equal(n.res[1].peak_bytes_per_s, 50 * GB, 1);
    assert_true(link_utilisation(&n, 1, 0.02) <= 1.0);
    assert_double_equal(link_utilisation(&n, 1, 0.02), 1.0, 1e-9);
    assert_double_equal(link_utilisation(&n, 0, 0.02), 0.5, 1e-9);
}

static void two_sharing_take_twice_as_long(void **state)
{
    (void)state;
    link_net_t n;
    simt_err_t e;
    link_net_init(&n);
    link_net_add(&n, "shared", 10 * GB, &e);
    link_net_add(&n, "x", 10 * GB, &e);
    link_net_add(&n, "y", 10 * GB, &e);
    link_flow_t f[2] = {{.hops = {1, 0}, .nhops = 2, .bytes = 1e8, .latency_s = 1e-6},
                        {.hops = {2, 0}, .nhops = 2, .bytes = 1e8, .latency_s = 1e-6}};
    assert_int_equal(link_run(&n, f, 2, &e), 0);
    double alone = 1e-6 + 1e8 / (10 * GB);
    double both = 1e-6 + 2 * 1e8 / (10 * GB);
    assert_double_equal(f[0].finish_s, both, 1e-12);
    assert_double_equal(f[1].finish_s, both, 1e-12);
    assert_true(f[0].finish_s > 1.9 * alone);
    /* the shared link never carries more than its bandwidth */
    assert_true(n.res[0].peak_bytes_per_s <= 10 * GB * (1 + 1e-12));
    /* a flow that starts late gets the whole link once the first is gone */
    link_net_init(&n);
    link_net_add(&n, "l", 10 * GB, &e);
    link_flow_t g[2] = {{.hops = {0}, .nhops = 1, .bytes = 1e8},
                        {.hops = {0}, .nhops = 1, .bytes = 1e8, .start_s = 0.005}};
    assert_int_equal(link_run(&n, g, 2, &e), 0);
    /* 0..5 ms: alone (5e7 bytes); then shared: 5e7 left at 5 GB/s = 10 ms */
    assert_double_equal(g[0].finish_s, 0.015, 1e-12);
    assert_double_equal(g[1].finish_s, 0.020, 1e-12);
    /* a capped flow (pageable copy) leaves the rest to the other */
    link_net_init(&n);
    link_net_add(&n, "l", 10 * GB, &e);
    link_flow_t h[2] = {{.hops = {0}, .nhops = 1, .bytes = 2e7, .cap_bytes_per_s = 2 * GB},
                        {.hops = {0}, .nhops = 1, .bytes = 8e7}};
    assert_int_equal(link_run(&n, h, 2, &e), 0);
    assert_double_equal(h[0].finish_s, 0.01, 1e-12);
    assert_double_equal(h[1].finish_s, 0.01, 1e-12);
}

static void bad_flows_are_named(void **state)
{
    (void)state;
    link_net_t n;
    simt_err_t e;
    link_net_init(&n);
    link_net_add(&n, "l", GB, &e);
    assert_int_equal(link_net_add(&n, "zero", 0, &e), -1);
    link_flow_t f = {.hops = {3}, .nhops = 1, .bytes = 1};
    assert_int_equal(link_run(&n, &f, 1, &e), -1);
    assert_non_null(strstr(e.msg, "no link 3"));
    link_flow_t g = {.hops = {0, 0}, .nhops = 2, .bytes = 1};
    assert_int_equal(link_run(&n, &g, 1, &e), -1);
    assert_non_null(strstr(e.msg, "twice"));
    link_flow_t h = {.hops = {0}, .nhops = 1, .bytes = NAN};
    assert_int_equal(link_run(&n, &h, 1, &e), -1);
}

/* ---- a node of small GPUs ------------------------------------------------ */

typedef struct fixture {
    gpu_t *g[NODE_MAX_GPUS];
    isa_program_t add;
    uint32_t buf[NODE_MAX_GPUS], scr[NODE_MAX_GPUS];
    node_t nd;
} fixture_t;

static void fx_make(fixture_t *fx, uint32_t n, const char *link, uint32_t nfloats, uint32_t seed)
{
    simt_err_t e;
    memset(fx, 0, sizeof *fx);
    assert_int_equal(asm_assemble_file(SIMT_SOURCE_DIR "/lessons/kernels/vecadd_v4.s", &fx->add, &e), 0);
    gpu_desc_t d;
    gpu_desc_default(&d);
    d.nvlink_gbps = 450;
    d.pcie_gbps = 55.5;
    d.pageable_gbps = 8;
    float *host = malloc(nfloats * sizeof *host);
    for (uint32_t i = 0; i < n; i++) {
        fx->g[i] = gpu_create(&d, &e);
        assert_non_null(fx->g[i]);
        assert_int_equal(gpu_malloc(fx->g[i], nfloats * 4ull, "buf", &fx->buf[i], &e), 0);
        assert_int_equal(gpu_malloc(fx->g[i], nfloats * 4ull, "scratch", &fx->scr[i], &e), 0);
        for (uint32_t k = 0; k < nfloats; k++)   /* small integers: sums are exact */
            host[k] = (float)((k * 7 + i * 13 + seed) % 17) - 8.0f;
        assert_int_equal(gpu_write(fx->g[i], fx->buf[i], host, nfloats * 4ull, &e), 0);
    }
    free(host);
    node_link_t lk;
    assert_int_equal(node_link_preset(link, &d, &lk, &e), 0);
    assert_int_equal(node_init(&fx->nd, fx->g, n, &lk, &fx->add, &e), 0);
}

static void fx_free(fixture_t *fx)
{
    for (uint32_t i = 0; i < NODE_MAX_GPUS; i++)
        if (fx->g[i])
            gpu_free(fx->g[i]);
    isa_program_free(&fx->add);
}

static float ref_sum(uint32_t n, uint32_t k, uint32_t seed)
{
    float s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += (float)((k * 7 + i * 13 + seed) % 17) - 8.0f;
    return s;
}

static void allreduce_equals_reference_sum(void **state)
{
    (void)state;
    const char *links[] = {"nvlink", "nvlink-ring", "pcie5-host"};
    const node_algo_t algos[] = {NODE_RING_ALGO, NODE_TREE, NODE_PS};
    for (uint32_t n = 1; n <= 8; n++)
        for (int a = 0; a < 3; a++) {
            fixture_t fx;
            simt_err_t e;
            uint32_t nf = 4 * (8 * 3 * n + n / 2 + 1);   /* chunks of unequal size for most n */
            fx_make(&fx, n, links[a], nf, n + (uint32_t)a);
            node_coll_t r;
            assert_int_equal(node_allreduce(&fx.nd, fx.buf, fx.scr, nf, algos[a], 0, &r, &e), 0);
            float *out = malloc(nf * sizeof *out);
            for (uint32_t i = 0; i < n; i++) {
                assert_int_equal(gpu_read(fx.g[i], fx.buf[i], out, nf * 4ull, &e), 0);
                for (uint32_t k = 0; k < nf; k++)
                    assert_true(out[k] == ref_sum(n, k, n + (uint32_t)a));
            }
            free(out);
            if (n > 1)
                assert_true(r.time_s > 0 && fx.nd.kernels > 0);
            fx_free(&fx);
        }
}

static void ring_sends_2_n_minus_1_over_n(void **state)
{
    (void)state;
    for (uint32_t n = 2; n <= 8; n++) {
        fixture_t fx;
        simt_err_t e;
        uint32_t nf = 1024 * n;
        fx_make(&fx, n, "nvlink", nf, 1);
        node_coll_t r;
        assert_int_equal(node_allreduce(&fx.nd, fx.buf, fx.scr, nf, NODE_RING_ALGO, 0, &r, &e), 0);
        for (uint32_t i = 0; i < n; i++)
            assert_double_equal(fx.nd.sent[i], 2.0 * (n - 1) / n * nf * 4, 1e-6);
        assert_int_equal(r.steps, 2 * (n - 1));
        fx_free(&fx);
    }
}

static void busbw_never_above_the_link(void **state)
{
    (void)state;
    const char *links[] = {"nvlink", "pcie5", "pcie5-host", "nvlink-ring"};
    for (int l = 0; l < 4; l++) {
        fixture_t fx;
        simt_err_t e;
        uint32_t nf = 1 << 16;
        fx_make(&fx, 8, links[l], nf, 2);
        node_coll_t r;
        assert_int_equal(node_allreduce(&fx.nd, fx.buf, fx.scr, nf, NODE_RING_ALGO, 0, &r, &e), 0);
        double port = fx.nd.link.gbps * (fx.nd.link.topo == NODE_RING ? 2 : 1);
        assert_true(r.busbw_gbs > 0);
        assert_true(r.busbw_gbs <= port);
        for (uint32_t k = 0; k < fx.nd.net.nres; k++) {
            const link_res_t *res = &fx.nd.net.res[k];
            assert_true(res->peak_bytes_per_s <= res->bytes_per_s * (1 + 1e-9));
            assert_true(link_utilisation(&fx.nd.net, k, r.time_s) <= 1.0);
        }
        fx_free(&fx);
    }
}

static void ring_beats_parameter_server_from_4(void **state)
{
    (void)state;
    for (uint32_t n = 2; n <= 8; n *= 2) {
        double t[2];
        for (int a = 0; a < 2; a++) {
            fixture_t fx;
            simt_err_t e;
            uint32_t nf = 1 << 16;
            fx_make(&fx, n, "pcie5", nf, 3);
            node_coll_t r;
            assert_int_equal(node_allreduce(&fx.nd, fx.buf, fx.scr, nf,
                                            a ? NODE_PS : NODE_RING_ALGO, 0, &r, &e), 0);
            t[a] = r.time_s;
            fx_free(&fx);
        }
        if (n >= 4)
            assert_true(t[0] < t[1]);
    }
}

static void other_collectives_move_the_right_data(void **state)
{
    (void)state;
    fixture_t fx;
    simt_err_t e;
    uint32_t n = 4, nf = 64 * n, cb = nf / n;
    fx_make(&fx, n, "nvlink", nf, 5);
    node_coll_t r;
    float *out = malloc(nf * sizeof *out);
    assert_int_equal(node_reduce_scatter(&fx.nd, fx.buf, fx.scr, nf, 0, &r, &e), 0);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = node_rs_chunk(&fx.nd, i);
        assert_int_equal(gpu_read(fx.g[i], fx.buf[i] + c * cb * 4, out, cb * 4, &e), 0);
        for (uint32_t k = 0; k < cb; k++)
            assert_true(out[k] == ref_sum(n, c * cb + k, 5));
    }
    assert_double_equal(r.busbw_gbs, r.algbw_gbs * 3 / 4, 1e-9);
    assert_int_equal(node_all_gather(&fx.nd, fx.buf, nf, 0, &r, &e), 0);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(gpu_read(fx.g[i], fx.buf[i], out, nf * 4, &e), 0);
        for (uint32_t k = 0; k < nf; k++)
            assert_true(out[k] == ref_sum(n, k, 5));
    }
    /* broadcast GPU 0's buffer after changing it */
    for (uint32_t k = 0; k < nf; k++)
        out[k] = (float)k;
    assert_int_equal(gpu_write(fx.g[0], fx.buf[0], out, nf * 4, &e), 0);
    assert_int_equal(node_broadcast(&fx.nd, fx.buf, nf, 0, &r, &e), 0);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(gpu_read(fx.g[i], fx.buf[i], out, nf * 4, &e), 0);
        for (uint32_t k = 0; k < nf; k++)
            assert_true(out[k] == (float)k);
    }
    assert_int_equal(node_allreduce(&fx.nd, fx.buf, fx.scr, nf + 1, NODE_RING_ALGO, 0, &r, &e), -1);
    assert_non_null(strstr(e.msg, "multiple of 4 floats"));
    free(out);
    fx_free(&fx);
}

static void host_copies_pinned_and_pageable(void **state)
{
    (void)state;
    fixture_t fx;
    simt_err_t e;
    fx_make(&fx, 2, "nvlink", 64, 1);
    double t1, t2;
    assert_int_equal(node_host_copy(&fx.nd, 0, 1e9, 1, 1, 0, &t1, &e), 0);
    assert_double_equal(t1, 1e-6 + 1e9 / 55.5e9, 1e-9);
    assert_int_equal(node_host_copy(&fx.nd, 1, 1e9, 1, 0, 0, &t2, &e), 0);
    assert_double_equal(t2, 1e-6 + 1e9 / 8e9, 1e-9);
    node_link_t lk;
    gpu_desc_t d;
    gpu_desc_default(&d);
    d.nvlink_gbps = 0;
    assert_int_equal(node_link_preset("nvlink", &d, &lk, &e), -1);
    assert_non_null(strstr(e.msg, "no NVLink"));
    assert_int_equal(node_link_preset("infiniband", &d, &lk, &e), -1);
    fx_free(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_transfer_is_latency_plus_bytes_over_bandwidth),
        cmocka_unit_test(two_sharing_take_twice_as_long),
        cmocka_unit_test(bad_flows_are_named),
        cmocka_unit_test(allreduce_equals_reference_sum),
        cmocka_unit_test(ring_sends_2_n_minus_1_over_n),
        cmocka_unit_test(busbw_never_above_the_link),
        cmocka_unit_test(ring_beats_parameter_server_from_4),
        cmocka_unit_test(other_collectives_move_the_right_data),
        cmocka_unit_test(host_copies_pinned_and_pageable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
