/* node.c - GPUs joined by links: transfers and collectives (see node.h). */
#include "node.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Link presets. NVLink takes the GPU's own figure (arch/NAME.lua:
 * nvlink_gbps, with its source) unless a generation is named. PCIe figures
 * are what a copy gets, not the raw signalling rate.
 *   [meas] reference/h200-measured.md: host -> device pinned 55.5 GB/s on
 *          PCIe 5 x16, pageable 7-9 GB/s.
 *   [spec] NVLink per GPU, both directions: NVLink2 300 GB/s (V100), NVLink3
 *          600 (A100), NVLink4 900 (H100/H200); one direction is half.
 *   estimate: latencies (the step of a collective: a few microseconds in
 *          nccl-tests' small-message rows), PCIe 4 (half of PCIe 5's
 *          measured 55.5: the raw rate halves), the host bridge. */
typedef struct preset {
    const char *name;
    node_topo_t topo;
    double gbps;          /* 0: the GPU's nvlink_gbps; < 0: PCIe generation cap */
    double ring_share;    /* ring: fraction of the links to each neighbour */
    double latency_us;
    double bridge_gbps;
    const char *source;
} preset_t;

static const preset_t PRESETS[] = {
    {"nvlink", NODE_SWITCH, 0, 1, 1.0, 200,
     "NVLink of the GPU's generation through NVSwitch (arch preset nvlink_gbps); latency 1 us estimate"},
    {"nvlink4", NODE_SWITCH, 450, 1, 1.0, 200,
     "NVLink4 through NVSwitch: 900 GB/s per GPU both ways = 450 one way [spec]; latency estimate"},
    {"nvlink3", NODE_SWITCH, 300, 1, 1.0, 200,
     "NVLink3 through NVSwitch: 600 GB/s per GPU both ways = 300 one way [spec]; latency estimate"},
    {"nvlink2", NODE_SWITCH, 150, 1, 1.0, 200,
     "NVLink2: 300 GB/s per GPU both ways = 150 one way [spec]; latency estimate"},
    {"nvlink-ring", NODE_RING, 0, 0.5, 1.0, 200,
     "NVLink of the GPU's generation, half of its links to each neighbour (no switch); latency estimate"},
    {"pcie5", NODE_PCIE, -55.5, 1, 2.0, 200,
     "PCIe 5 x16 peer-to-peer through a PCIe switch: 55.5 GB/s a copy gets [meas]; latency estimate"},
    {"pcie4", NODE_PCIE, -26, 1, 2.0, 200,
     "PCIe 4 x16 peer-to-peer: 26 GB/s (estimate: half of PCIe 5's measured 55.5); latency estimate"},
    {"pcie5-host", NODE_PCIE_HOST, -55.5, 1, 4.0, 100,
     "PCIe 5 x16 without peer-to-peer: through host memory, a shared 100 GB/s bridge (estimate); latency estimate"},
    {"pcie4-host", NODE_PCIE_HOST, -26, 1, 4.0, 50,
     "PCIe 4 x16 without peer-to-peer (RTX 4090, L4, T4 servers): through host memory, a shared 50 GB/s bridge (estimate)"},
};
#define NPRESETS (sizeof PRESETS / sizeof PRESETS[0])

const char *node_link_names(void)
{
    return "nvlink nvlink4 nvlink3 nvlink2 nvlink-ring pcie5 pcie4 pcie5-host pcie4-host";
}

int node_link_preset(const char *name, const gpu_desc_t *d, node_link_t *out, simt_err_t *err)
{
    const preset_t *p = NULL;
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcmp(PRESETS[i].name, name) == 0)
            p = &PRESETS[i];
    if (!p)
        return simt_errf(err, SIMT_E_USAGE, "unknown link '%s' (links: %s)", name,
                         node_link_names());
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", p->name);
    snprintf(out->source, sizeof out->source, "%s", p->source);
    out->topo = p->topo;
    out->host_gbps = d->pcie_gbps;
    out->pageable_gbps = d->pageable_gbps;
    if (!(d->pcie_gbps > 0) || !(d->pageable_gbps > 0))
        return simt_errf(err, SIMT_E_USAGE, "GPU '%s' needs pcie_gbps and pageable_gbps > 0",
                         d->name);
    if (p->gbps == 0) {
        if (!(d->nvlink_gbps > 0))
            return simt_errf(err, SIMT_E_USAGE,
                             "GPU '%s' has no NVLink (nvlink_gbps = 0): use a PCIe link (%s)",
                             d->name, "pcie4, pcie4-host, pcie5, pcie5-host");
        out->gbps = d->nvlink_gbps * p->ring_share;
    } else if (p->gbps < 0) {
        /* the slower of the slot and the GPU's own PCIe */
        out->gbps = fmin(-p->gbps, d->pcie_gbps);
        out->host_gbps = out->gbps;
    } else {
        out->gbps = p->gbps * p->ring_share;
    }
    out->latency_us = p->latency_us;
    out->bridge_gbps = p->bridge_gbps;
    return 0;
}

static int add(node_t *nd, const char *name, double gbps, simt_err_t *err)
{
    return link_net_add(&nd->net, name, gbps * 1e9, err);
}

int node_init(node_t *nd, gpu_t *const *gpus, uint32_t n, const node_link_t *lk,
              const isa_program_t *reduce, simt_err_t *err)
{
    memset(nd, 0, sizeof *nd);
    if (n < 1 || n > NODE_MAX_GPUS)
        return simt_errf(err, SIMT_E_USAGE, "a node has 1 to %d GPUs, not %u", NODE_MAX_GPUS, n);
    if (!(lk->gbps > 0) || !(lk->host_gbps > 0) || !(lk->bridge_gbps > 0) || !(lk->latency_us >= 0))
        return simt_errf(err, SIMT_E_USAGE, "link '%s' needs bandwidths > 0", lk->name);
    if (!reduce || reduce->nparams != 4)
        return simt_errf(err, SIMT_E_USAGE, "the reduction kernel needs 4 parameters (A, B, C, n)");
    nd->n = n;
    nd->link = *lk;
    nd->reduce = reduce;
    link_net_init(&nd->net);
    char name[40];
    int peer_is_pcie = lk->topo == NODE_PCIE || lk->topo == NODE_PCIE_HOST;
    for (uint32_t i = 0; i < n; i++) {
        nd->gpu[i] = gpus[i];
        snprintf(name, sizeof name, "GPU%u PCIe up", i);
        if ((nd->host_up[i] = add(nd, name, lk->host_gbps, err)) < 0)
            return -1;
        snprintf(name, sizeof name, "GPU%u PCIe down", i);
        if ((nd->host_down[i] = add(nd, name, lk->host_gbps, err)) < 0)
            return -1;
        if (peer_is_pcie) {
            nd->port_out[i] = nd->host_up[i];
            nd->port_in[i] = nd->host_down[i];
        } else if (lk->topo == NODE_SWITCH) {
            snprintf(name, sizeof name, "GPU%u -> switch", i);
            if ((nd->port_out[i] = add(nd, name, lk->gbps, err)) < 0)
                return -1;
            snprintf(name, sizeof name, "switch -> GPU%u", i);
            if ((nd->port_in[i] = add(nd, name, lk->gbps, err)) < 0)
                return -1;
        } else if (n > 1) {
            snprintf(name, sizeof name, "GPU%u -> GPU%u", i, (i + 1) % n);
            if ((nd->ring_next[i] = add(nd, name, lk->gbps, err)) < 0)
                return -1;
            snprintf(name, sizeof name, "GPU%u -> GPU%u", i, (i + n - 1) % n);
            if ((nd->ring_prev[i] = add(nd, name, lk->gbps, err)) < 0)
                return -1;
        }
    }
    if ((nd->bridge = add(nd, "host bridge", lk->bridge_gbps, err)) < 0)
        return -1;
    return 0;
}

/* The links a transfer from GPU s to GPU d crosses. */
static uint32_t path(const node_t *nd, uint32_t s, uint32_t d, uint32_t *hops)
{
    uint32_t h = 0, n = nd->n;
    switch (nd->link.topo) {
    case NODE_SWITCH:
    case NODE_PCIE:
        hops[h++] = (uint32_t)nd->port_out[s];
        hops[h++] = (uint32_t)nd->port_in[d];
        break;
    case NODE_PCIE_HOST:
        hops[h++] = (uint32_t)nd->port_out[s];
        hops[h++] = (uint32_t)nd->bridge;
        hops[h++] = (uint32_t)nd->port_in[d];
        break;
    case NODE_RING: {
        uint32_t fwd = (d + n - s) % n;
        for (uint32_t k = s; k != d && h < LINK_MAX_HOPS;) {
            if (fwd <= n - fwd) {
                hops[h++] = (uint32_t)nd->ring_next[k];
                k = (k + 1) % n;
            } else {
                hops[h++] = (uint32_t)nd->ring_prev[k];
                k = (k + n - 1) % n;
            }
        }
        break;
    }
    }
    return h;
}

void node_busy(node_t *nd, uint32_t i, double seconds)
{
    if (i >= nd->n)
        return;
    nd->t_compute[i] += seconds;
    if (nd->t_compute[i] > nd->t_end)
        nd->t_end = nd->t_compute[i];
}

/* One transfer of a round: bytes from (src, saddr) to (dst, daddr); with
 * acc != 0 the receiver then runs the reduction acc += daddr. */
typedef struct xfer {
    uint32_t src, dst, saddr, daddr, bytes, acc;
} xfer_t;

/* Move a round of transfers together, starting when both ends are ready
 * (ready[]: each GPU's communication clock), then the reductions. */
static int run_round(node_t *nd, const xfer_t *x, uint32_t k, double *ready, node_coll_t *r,
                     simt_err_t *err)
{
    link_flow_t f[NODE_MAX_GPUS * 2];
    uint32_t maxb = 0;
    if (k > NODE_MAX_GPUS * 2)
        return simt_errf(err, SIMT_E_USAGE, "too many transfers in one round");
    for (uint32_t i = 0; i < k; i++) {
        memset(&f[i], 0, sizeof f[i]);
        f[i].nhops = path(nd, x[i].src, x[i].dst, f[i].hops);
        f[i].bytes = x[i].bytes;
        f[i].start_s = fmax(ready[x[i].src], ready[x[i].dst]);
        f[i].latency_s = nd->link.latency_us * 1e-6 * (nd->link.topo == NODE_RING ? f[i].nhops : 1);
        if (x[i].bytes > maxb)
            maxb = x[i].bytes;
    }
    if (link_run(&nd->net, f, k, err) != 0)
        return -1;
    void *tmp = malloc(maxb ? maxb : 1);
    if (!tmp)
        return simt_errf(err, SIMT_E_NOMEM, "out of host memory for a transfer of %u bytes", maxb);
    double kmax = 0;
    for (uint32_t i = 0; i < k; i++) {
        const xfer_t *t = &x[i];
        if (gpu_read(nd->gpu[t->src], t->saddr, tmp, t->bytes, err) != 0
            || gpu_write(nd->gpu[t->dst], t->daddr, tmp, t->bytes, err) != 0) {
            free(tmp);
            return -1;
        }
        nd->sent[t->src] += t->bytes;
        ready[t->src] = fmax(ready[t->src], f[i].finish_s);
        double at = fmax(ready[t->dst], f[i].finish_s);
        if (t->acc) {
            uint32_t nf = t->bytes / 4;
            gpu_launch_t l;
            memset(&l, 0, sizeof l);
            l.grid[0] = (nf + 1023) / 1024;
            l.block[0] = 256;
            uint32_t args[4] = {t->acc, t->daddr, t->acc, nf};
            gpu_stats_t st;
            if (gpu_launch(nd->gpu[t->dst], nd->reduce, &l, args, 4, &st, err) != 0) {
                free(tmp);
                return -1;
            }
            nd->kernels++;
            at += st.time_us * 1e-6;
            if (st.time_us * 1e-6 > kmax)
                kmax = st.time_us * 1e-6;
        }
        ready[t->dst] = at;
    }
    free(tmp);
    r->kernel_s += kmax;
    r->steps++;
    return 0;
}

/* Common start and end of a collective. */
static void coll_begin(node_t *nd, double after, double *ready, node_coll_t *r, uint32_t nfloats)
{
    memset(r, 0, sizeof *r);
    double t = after;
    for (uint32_t i = 0; i < nd->n; i++)
        t = fmax(t, nd->t_comm[i]);
    r->start_s = t;
    r->bytes = 4.0 * nfloats;
    /* one kernel launch per collective (NCCL runs one kernel per call) */
    t += gpu_desc(nd->gpu[0])->launch_us * 1e-6;
    for (uint32_t i = 0; i < nd->n; i++)
        ready[i] = t;
}

static void coll_end(node_t *nd, const double *ready, double factor, node_coll_t *r)
{
    double t = r->start_s;
    for (uint32_t i = 0; i < nd->n; i++)
        t = fmax(t, ready[i]);
    for (uint32_t i = 0; i < nd->n; i++)
        nd->t_comm[i] = t;
    if (t > nd->t_end)
        nd->t_end = t;
    r->finish_s = t;
    r->time_s = t - r->start_s;
    r->algbw_gbs = r->time_s > 0 ? r->bytes / r->time_s / 1e9 : 0;
    r->busbw_gbs = r->algbw_gbs * factor;
}

static int check_sizes(const node_t *nd, uint32_t nfloats, simt_err_t *err)
{
    if (nfloats == 0 || nfloats % (4 * nd->n) != 0)
        return simt_errf(err, SIMT_E_USAGE,
                         "a collective's message must be a multiple of %u floats (4 x %u GPUs), not %u",
                         4 * nd->n, nd->n, nfloats);
    return 0;
}

uint32_t node_rs_chunk(const node_t *nd, uint32_t i)
{
    return (i + 1) % nd->n;
}

/* Ring phases. Reduce-scatter round s: GPU i sends chunk (i - s) mod n to
 * i + 1, which adds it into its own copy of that chunk; after n - 1 rounds
 * GPU i holds the total of chunk (i + 1) mod n. All-gather round s: GPU i
 * sends chunk (i + 1 - s) mod n, complete, to i + 1, which stores it. */
static int ring_phase(node_t *nd, const uint32_t *buf, const uint32_t *scratch, uint32_t nfloats,
                      int reduce, double *ready, node_coll_t *r, simt_err_t *err)
{
    uint32_t n = nd->n, cb = nfloats / n * 4;
    xfer_t x[NODE_MAX_GPUS];
    for (uint32_t s = 0; s + 1 < n; s++) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = (i + 1) % n;
            uint32_t c = reduce ? (i + n - s) % n : (i + 1 + n - s) % n;
            x[i].src = i;
            x[i].dst = j;
            x[i].saddr = buf[i] + c * cb;
            x[i].bytes = cb;
            x[i].daddr = reduce ? scratch[j] : buf[j] + c * cb;
            x[i].acc = reduce ? buf[j] + c * cb : 0;
        }
        if (run_round(nd, x, n, ready, r, err) != 0)
            return -1;
    }
    return 0;
}

/* Tree from GPU 0: reduce up (stride 1, 2, 4: GPU i sends to i - d), then
 * broadcast down (stride 4, 2, 1: GPU i sends to i + d). */
static int tree_phase(node_t *nd, const uint32_t *buf, const uint32_t *scratch, uint32_t nfloats,
                      int up, double *ready, node_coll_t *r, simt_err_t *err)
{
    uint32_t n = nd->n, top = 1;
    while (top * 2 < n)
        top *= 2;
    for (uint32_t d = up ? 1 : top; d >= 1 && d <= top; d = up ? d * 2 : d / 2) {
        xfer_t x[NODE_MAX_GPUS];
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (up && i % (2 * d) == d)
                x[k++] = (xfer_t){i, i - d, buf[i], scratch[i - d], nfloats * 4, buf[i - d]};
            else if (!up && i % (2 * d) == 0 && i + d < n)
                x[k++] = (xfer_t){i, i + d, buf[i], buf[i + d], nfloats * 4, 0};
        }
        if (k && run_round(nd, x, k, ready, r, err) != 0)
            return -1;
        if (n == 1)
            break;
    }
    return 0;
}

int node_allreduce(node_t *nd, const uint32_t *buf, const uint32_t *scratch, uint32_t nfloats,
                   node_algo_t algo, double after, node_coll_t *r, simt_err_t *err)
{
    double ready[NODE_MAX_GPUS];
    uint32_t n = nd->n;
    if (check_sizes(nd, nfloats, err) != 0)
        return -1;
    coll_begin(nd, after, ready, r, nfloats);
    if (n > 1 && algo == NODE_RING_ALGO) {
        if (ring_phase(nd, buf, scratch, nfloats, 1, ready, r, err) != 0
            || ring_phase(nd, buf, scratch, nfloats, 0, ready, r, err) != 0)
            return -1;
    } else if (n > 1 && algo == NODE_TREE) {
        if (tree_phase(nd, buf, scratch, nfloats, 1, ready, r, err) != 0
            || tree_phase(nd, buf, scratch, nfloats, 0, ready, r, err) != 0)
            return -1;
    } else if (n > 1) {
        /* parameter server GPU 0: the others send in turn (its one port
         * takes them all), it adds each; then it sends the sum to all at
         * once, sharing its port n - 1 ways */
        for (uint32_t i = 1; i < n; i++) {
            xfer_t x = {i, 0, buf[i], scratch[0], nfloats * 4, buf[0]};
            if (run_round(nd, &x, 1, ready, r, err) != 0)
                return -1;
        }
        xfer_t x[NODE_MAX_GPUS];
        for (uint32_t i = 1; i < n; i++)
            x[i - 1] = (xfer_t){0, i, buf[0], buf[i], nfloats * 4, 0};
        if (run_round(nd, x, n - 1, ready, r, err) != 0)
            return -1;
    }
    coll_end(nd, ready, n > 1 ? 2.0 * (n - 1) / n : 0, r);
    return 0;
}

int node_reduce_scatter(node_t *nd, const uint32_t *buf, const uint32_t *scratch,
                        uint32_t nfloats, double after, node_coll_t *r, simt_err_t *err)
{
    double ready[NODE_MAX_GPUS];
    if (check_sizes(nd, nfloats, err) != 0)
        return -1;
    coll_begin(nd, after, ready, r, nfloats);
    if (ring_phase(nd, buf, scratch, nfloats, 1, ready, r, err) != 0)
        return -1;
    coll_end(nd, ready, (nd->n - 1.0) / nd->n, r);
    return 0;
}

int node_all_gather(node_t *nd, const uint32_t *buf, uint32_t nfloats, double after,
                    node_coll_t *r, simt_err_t *err)
{
    double ready[NODE_MAX_GPUS];
    if (check_sizes(nd, nfloats, err) != 0)
        return -1;
    coll_begin(nd, after, ready, r, nfloats);
    if (ring_phase(nd, buf, NULL, nfloats, 0, ready, r, err) != 0)
        return -1;
    coll_end(nd, ready, (nd->n - 1.0) / nd->n, r);
    return 0;
}

int node_broadcast(node_t *nd, const uint32_t *buf, uint32_t nfloats, double after,
                   node_coll_t *r, simt_err_t *err)
{
    double ready[NODE_MAX_GPUS];
    if (check_sizes(nd, nfloats, err) != 0)
        return -1;
    coll_begin(nd, after, ready, r, nfloats);
    if (tree_phase(nd, buf, NULL, nfloats, 0, ready, r, err) != 0)
        return -1;
    coll_end(nd, ready, nd->n > 1 ? 1.0 : 0, r);
    return 0;
}

int node_copy(node_t *nd, uint32_t src, uint32_t saddr, uint32_t dst, uint32_t daddr,
              uint32_t bytes, double after, double *finish, simt_err_t *err)
{
    if (src >= nd->n || dst >= nd->n || src == dst)
        return simt_errf(err, SIMT_E_USAGE, "a peer copy needs two different GPUs of the %u", nd->n);
    double ready[NODE_MAX_GPUS];
    for (uint32_t i = 0; i < nd->n; i++)
        ready[i] = fmax(after, nd->t_comm[i]);
    node_coll_t r;
    memset(&r, 0, sizeof r);
    xfer_t x = {src, dst, saddr, daddr, bytes, 0};
    if (run_round(nd, &x, 1, ready, &r, err) != 0)
        return -1;
    nd->t_comm[src] = ready[src];
    nd->t_comm[dst] = ready[dst];
    *finish = ready[dst];
    if (*finish > nd->t_end)
        nd->t_end = *finish;
    return 0;
}

int node_host_copy(node_t *nd, uint32_t i, double bytes, int to_device, int pinned,
                   double after, double *finish, simt_err_t *err)
{
    if (i >= nd->n)
        return simt_errf(err, SIMT_E_USAGE, "no GPU %u in a node of %u", i, nd->n);
    link_flow_t f;
    memset(&f, 0, sizeof f);
    f.nhops = 2;
    f.hops[0] = (uint32_t)(to_device ? nd->bridge : nd->host_up[i]);
    f.hops[1] = (uint32_t)(to_device ? nd->host_down[i] : nd->bridge);
    f.bytes = bytes;
    f.start_s = fmax(after, nd->t_comm[i]);
    f.latency_s = nd->link.latency_us * 1e-6;
    f.cap_bytes_per_s = pinned ? 0 : nd->link.pageable_gbps * 1e9;
    if (link_run(&nd->net, &f, 1, err) != 0)
        return -1;
    nd->t_comm[i] = f.finish_s;
    *finish = f.finish_s;
    if (*finish > nd->t_end)
        nd->t_end = *finish;
    return 0;
}
