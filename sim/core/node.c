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

/* Add two links named by the formats f1 (with i, j1) and f2 (with i, j2);
 * their indices go to *a and *b. */
static int add_two(node_t *nd, int *a, int *b, const char *f1, const char *f2, uint32_t i, uint32_t j1,
                   uint32_t j2, double gbps, simt_err_t *err)
{
    char name[40];
    snprintf(name, sizeof name, f1, i, j1);
    if ((*a = add(nd, name, gbps, err)) < 0)
        return -1;
    snprintf(name, sizeof name, f2, i, j2);
    return (*b = add(nd, name, gbps, err)) < 0 ? -1 : 0;
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
    int peer_is_pcie = lk->topo == NODE_PCIE || lk->topo == NODE_PCIE_HOST;
    for (uint32_t i = 0; i < n; i++) {
        nd->gpu[i] = gpus[i];
        if (add_two(nd, &nd->host_up[i], &nd->host_down[i], "GPU%u PCIe up", "GPU%u PCIe down", i, i, i,
                    lk->host_gbps, err) != 0)
            return -1;
        if (peer_is_pcie) {
            nd->port_out[i] = nd->host_up[i];
            nd->port_in[i] = nd->host_down[i];
        } else if (lk->topo == NODE_SWITCH) {
            if (add_two(nd, &nd->port_out[i], &nd->port_in[i], "GPU%u -> switch", "switch -> GPU%u", i, i, i,
                        lk->gbps, err) != 0)
                return -1;
        } else if (n > 1) {
            if (add_two(nd, &nd->ring_next[i], &nd->ring_prev[i], "GPU%u -> GPU%u", "GPU%u -> GPU%u", i,
                        (i + 1) % n, (i + n - 1) % n, lk->gbps, err) != 0)
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
 * acc != 0 the data lands in the receiver's scratch buffers and the
 * receiver then runs the reduction acc += it. */
typedef struct xfer {
    uint32_t src, dst, saddr, daddr, bytes, acc;
} xfer_t;

/* The state of one collective as it moves through its rounds, slice by
 * slice (a pipeline, as NCCL's: while slice k is being reduced, slice k + 1
 * is on the wire). done[i * nslices + k]: when GPU i's slice k of the data
 * it sends next is final; kern[i]: when its reduction stream is free;
 * bfree[i][b]: when its receive buffer b (two: double buffering) is free. */
typedef struct pipe {
    double t0;                     /* the collective's start            */
    double *done;                  /* n x nslices                       */
    uint32_t nslices;
    double kern[NODE_MAX_GPUS];
    double kern_sum[NODE_MAX_GPUS]; /* reduction time per GPU           */
    double bfree[NODE_MAX_GPUS][2];
    const uint32_t *scratch;       /* receive buffers (2 x a slice)     */
} pipe_t;

/* Bytes of slice k of a transfer of `bytes` (slices of NODE_SLICE_BYTES,
 * the last one shorter), and its offset. */
static uint32_t slices_of(uint32_t bytes)
{
    return bytes <= NODE_SLICE_BYTES ? 1 : (bytes + NODE_SLICE_BYTES - 1) / NODE_SLICE_BYTES;
}

static int launch_reduce(node_t *nd, uint32_t g, uint32_t acc, uint32_t in, uint32_t bytes,
                         double *seconds, simt_err_t *err)
{
    uint32_t nf = bytes / 4;
    gpu_launch_t l;
    memset(&l, 0, sizeof l);
    l.grid[0] = (nf + 1023) / 1024;
    l.block[0] = 256;
    uint32_t args[4] = {acc, in, acc, nf};
    gpu_stats_t st;
    if (gpu_launch(nd->gpu[g], nd->reduce, &l, args, 4, &st, err) != 0)
        return -1;
    nd->kernels++;
    *seconds = st.time_us * 1e-6;
    return 0;
}

/* Move a round of transfers (all of the same size) slice by slice. A
 * slice leaves when its data is final at the sender, the receiver's buffer
 * is free and the links it crosses have finished the slices before. The
 * data really moves; a reduction is a real kernel on the receiver. */
static int run_round(node_t *nd, const xfer_t *x, uint32_t k, pipe_t *p, node_coll_t *r,
                     simt_err_t *err)
{
    link_flow_t f[NODE_MAX_GPUS * 2];
    uint32_t fi[NODE_MAX_GPUS * 2];   /* the transfer of each flow */
    if (k == 0)
        return 0;
    if (k > NODE_MAX_GPUS * 2)
        return simt_errf(err, SIMT_E_USAGE, "too many transfers in one round");
    uint32_t ns = 0, maxb = 1;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t n = slices_of(x[i].bytes);
        if (n > p->nslices)
            return simt_errf(err, SIMT_E_USAGE, "a transfer of %u bytes has more slices than planned",
                             x[i].bytes);
        ns = n > ns ? n : ns;
        maxb = x[i].bytes > maxb ? x[i].bytes : maxb;
    }
    uint8_t *tmp = malloc(maxb < NODE_SLICE_BYTES ? maxb : NODE_SLICE_BYTES);
    if (!tmp)
        return simt_errf(err, SIMT_E_NOMEM, "out of host memory for a transfer of %u bytes", maxb);
    for (uint32_t s = 0; s < ns; s++) {
        uint32_t nf = 0, b = s % 2, off = s * NODE_SLICE_BYTES;
        for (uint32_t i = 0; i < k; i++) {
            if (s >= slices_of(x[i].bytes))
                continue;   /* a shorter transfer (chunks may differ by a few bytes) */
            link_flow_t *fl = &f[nf];
            fi[nf++] = i;
            memset(fl, 0, sizeof *fl);
            fl->nhops = path(nd, x[i].src, x[i].dst, fl->hops);
            fl->bytes = x[i].bytes - off < NODE_SLICE_BYTES ? x[i].bytes - off : NODE_SLICE_BYTES;
            double t = fmax(p->t0, p->done[x[i].src * p->nslices + s]);
            if (x[i].acc)
                t = fmax(t, p->bfree[x[i].dst][b]);
            /* the latency overlaps the slice before: its first byte moves
             * once the links are free */
            double lat = nd->link.latency_us * 1e-6 * (nd->link.topo == NODE_RING ? fl->nhops : 1);
            double first = t + lat;
            for (uint32_t h = 0; h < fl->nhops; h++)
                first = fmax(first, nd->net.res[fl->hops[h]].free_at);
            fl->start_s = first - lat;
            fl->latency_s = lat;
        }
        if (link_run(&nd->net, f, nf, err) != 0)
            goto fail;
        for (uint32_t q = 0; q < nf; q++) {
            const xfer_t *t = &x[fi[q]];
            uint32_t sb = (uint32_t)f[q].bytes;
            uint32_t buf_off = slices_of(t->bytes) > 1 ? b * NODE_SLICE_BYTES : 0;
            uint32_t to = t->acc ? p->scratch[t->dst] + buf_off : t->daddr + off;
            if (gpu_read(nd->gpu[t->src], t->saddr + off, tmp, sb, err) != 0
                || gpu_write(nd->gpu[t->dst], to, tmp, sb, err) != 0)
                goto fail;
            nd->sent[t->src] += sb;
            double at = f[q].finish_s;
            if (t->acc) {
                double ks;
                at = fmax(at, p->kern[t->dst]);
                if (launch_reduce(nd, t->dst, t->acc + off, to, sb, &ks, err) != 0)
                    goto fail;
                at += ks;
                p->kern[t->dst] = at;
                p->kern_sum[t->dst] += ks;
                p->bfree[t->dst][b] = at;
            }
            p->done[t->dst * p->nslices + s] = at;
        }
    }
    free(tmp);
    r->steps++;
    return 0;
fail:
    free(tmp);
    return -1;
}

/* Common start and end of a collective: every GPU starts together (the
 * collective waits for the last one), after one kernel launch. */
static int coll_begin(node_t *nd, double after, const uint32_t *scratch, uint32_t nfloats,
                      pipe_t *p, node_coll_t *r, simt_err_t *err)
{
    memset(r, 0, sizeof *r);
    memset(p, 0, sizeof *p);
    double t = after;
    for (uint32_t i = 0; i < nd->n; i++)
        t = fmax(t, nd->t_comm[i]);
    r->start_s = t;
    r->bytes = 4.0 * nfloats;
    /* one kernel launch per collective (NCCL runs one kernel per call) */
    t += gpu_desc(nd->gpu[0])->launch_us * 1e-6;
    p->t0 = t;
    p->scratch = scratch;
    p->nslices = slices_of(nfloats * 4);
    p->done = malloc(sizeof *p->done * nd->n * p->nslices);
    if (!p->done)
        return simt_errf(err, SIMT_E_NOMEM, "out of host memory for a collective");
    for (uint32_t i = 0; i < nd->n * p->nslices; i++)
        p->done[i] = t;
    for (uint32_t i = 0; i < nd->n; i++)
        p->kern[i] = p->bfree[i][0] = p->bfree[i][1] = t;
    return 0;
}

static int coll_end(node_t *nd, pipe_t *p, int rc, double factor, node_coll_t *r)
{
    double t = p->t0;
    for (uint32_t i = 0; i < nd->n * p->nslices; i++)
        t = fmax(t, p->done[i]);
    for (uint32_t i = 0; i < nd->n; i++) {
        t = fmax(t, p->kern[i]);
        r->kernel_s = fmax(r->kernel_s, p->kern_sum[i]);
    }
    free(p->done);
    p->done = NULL;
    if (rc != 0)
        return -1;
    for (uint32_t i = 0; i < nd->n; i++)
        nd->t_comm[i] = t;
    if (t > nd->t_end)
        nd->t_end = t;
    r->finish_s = t;
    r->time_s = t - r->start_s;
    r->algbw_gbs = r->time_s > 0 ? r->bytes / r->time_s / 1e9 : 0;
    r->busbw_gbs = r->algbw_gbs * factor;
    return 0;
}

static int check_sizes(const node_t *nd, uint32_t nfloats, simt_err_t *err)
{
    if (nfloats % 4 != 0 || nfloats < 4 * nd->n)
        return simt_errf(err, SIMT_E_USAGE,
                         "a collective's message must be a multiple of 4 floats and at least 4 per GPU "
                         "(%u), not %u", 4 * nd->n, nfloats);
    if (nfloats > (UINT32_MAX / 4) / 2)
        return simt_errf(err, SIMT_E_USAGE, "a collective's message is at most 2 GiB");
    return 0;
}

/* Byte offset of ring chunk c of a message of nfloats over n GPUs: chunks
 * are whole groups of 4 floats (the reduction kernel's step) and differ by
 * at most one group. */
static uint32_t chunk_off(uint32_t nfloats, uint32_t n, uint32_t c)
{
    return (uint32_t)((uint64_t)(nfloats / 4) * c / n) * 16;
}

uint32_t node_rs_chunk(const node_t *nd, uint32_t i)
{
    return (i + 1) % nd->n;
}

/* Ring phases. Reduce-scatter round s: GPU i sends chunk (i - s) mod n to
 * i + 1, which adds it into its own copy of that chunk; after n - 1 rounds
 * GPU i holds the total of chunk (i + 1) mod n. All-gather round s: GPU i
 * sends chunk (i + 1 - s) mod n, complete, to i + 1, which stores it. */
static int ring_phase(node_t *nd, const uint32_t *buf, uint32_t nfloats, int reduce, pipe_t *p,
                      node_coll_t *r, simt_err_t *err)
{
    uint32_t n = nd->n;
    xfer_t x[NODE_MAX_GPUS];
    for (uint32_t s = 0; s + 1 < n; s++) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = (i + 1) % n;
            uint32_t c = reduce ? (i + n - s) % n : (i + 1 + n - s) % n;
            uint32_t off = chunk_off(nfloats, n, c), cb = chunk_off(nfloats, n, c + 1) - off;
            x[i] = (xfer_t){i, j, buf[i] + off, buf[j] + off, cb, reduce ? buf[j] + off : 0};
        }
        if (run_round(nd, x, n, p, r, err) != 0)
            return -1;
    }
    return 0;
}

/* Tree from GPU 0: reduce up (stride 1, 2, 4: GPU i sends to i - d), then
 * broadcast down (stride 4, 2, 1: GPU i sends to i + d). */
static int tree_phase(node_t *nd, const uint32_t *buf, uint32_t nfloats, int up, pipe_t *p,
                      node_coll_t *r, simt_err_t *err)
{
    uint32_t n = nd->n, top = 1;
    if (n == 1)
        return 0;
    while (top * 2 < n)
        top *= 2;
    for (uint32_t d = up ? 1 : top; d >= 1 && d <= top; d = up ? d * 2 : d / 2) {
        xfer_t x[NODE_MAX_GPUS];
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (up && i % (2 * d) == d)
                x[k++] = (xfer_t){i, i - d, buf[i], 0, nfloats * 4, buf[i - d]};
            else if (!up && i % (2 * d) == 0 && i + d < n)
                x[k++] = (xfer_t){i, i + d, buf[i], buf[i + d], nfloats * 4, 0};
        }
        if (run_round(nd, x, k, p, r, err) != 0)
            return -1;
    }
    return 0;
}

int node_allreduce(node_t *nd, const uint32_t *buf, const uint32_t *scratch, uint32_t nfloats,
                   node_algo_t algo, double after, node_coll_t *r, simt_err_t *err)
{
    pipe_t p;
    uint32_t n = nd->n;
    if (check_sizes(nd, nfloats, err) != 0 || coll_begin(nd, after, scratch, nfloats, &p, r, err) != 0)
        return -1;
    int rc = 0;
    if (n > 1 && algo == NODE_RING_ALGO) {
        rc = ring_phase(nd, buf, nfloats, 1, &p, r, err) != 0
             || ring_phase(nd, buf, nfloats, 0, &p, r, err) != 0;
    } else if (n > 1 && algo == NODE_TREE) {
        rc = tree_phase(nd, buf, nfloats, 1, &p, r, err) != 0
             || tree_phase(nd, buf, nfloats, 0, &p, r, err) != 0;
    } else if (n > 1) {
        /* parameter server GPU 0: the others send in turn (its one port
         * takes them all), it adds each; then it sends the sum to all at
         * once, sharing its port n - 1 ways */
        for (uint32_t i = 1; i < n && rc == 0; i++) {
            xfer_t x = {i, 0, buf[i], 0, nfloats * 4, buf[0]};
            rc = run_round(nd, &x, 1, &p, r, err);
        }
        xfer_t x[NODE_MAX_GPUS];
        for (uint32_t i = 1; i < n; i++)
            x[i - 1] = (xfer_t){0, i, buf[0], buf[i], nfloats * 4, 0};
        if (rc == 0)
            rc = run_round(nd, x, n - 1, &p, r, err);
    }
    return coll_end(nd, &p, rc, n > 1 ? 2.0 * (n - 1) / n : 0, r);
}

/* The collectives made of one phase: a ring reduce-scatter or all-gather,
 * or a tree broadcast. */
typedef enum { PHASE_RS, PHASE_AG, PHASE_BCAST } phase_t;

static int one_phase(node_t *nd, const uint32_t *buf, const uint32_t *scratch, uint32_t nfloats,
                     double after, phase_t ph, node_coll_t *r, simt_err_t *err)
{
    pipe_t p;
    if (check_sizes(nd, nfloats, err) != 0 || coll_begin(nd, after, scratch, nfloats, &p, r, err) != 0)
        return -1;
    int rc = ph == PHASE_BCAST ? tree_phase(nd, buf, nfloats, 0, &p, r, err)
                               : ring_phase(nd, buf, nfloats, ph == PHASE_RS, &p, r, err);
    double factor = ph == PHASE_BCAST ? (nd->n > 1 ? 1.0 : 0) : (nd->n - 1.0) / nd->n;
    return coll_end(nd, &p, rc, factor, r);
}

int node_reduce_scatter(node_t *nd, const uint32_t *buf, const uint32_t *scratch,
                        uint32_t nfloats, double after, node_coll_t *r, simt_err_t *err)
{
    return one_phase(nd, buf, scratch, nfloats, after, PHASE_RS, r, err);
}

int node_all_gather(node_t *nd, const uint32_t *buf, uint32_t nfloats, double after,
                    node_coll_t *r, simt_err_t *err)
{
    return one_phase(nd, buf, NULL, nfloats, after, PHASE_AG, r, err);
}

int node_broadcast(node_t *nd, const uint32_t *buf, uint32_t nfloats, double after,
                   node_coll_t *r, simt_err_t *err)
{
    return one_phase(nd, buf, NULL, nfloats, after, PHASE_BCAST, r, err);
}

int node_copy(node_t *nd, uint32_t src, uint32_t saddr, uint32_t dst, uint32_t daddr,
              uint32_t bytes, double after, double *finish, simt_err_t *err)
{
    if (src >= nd->n || dst >= nd->n || src == dst)
        return simt_errf(err, SIMT_E_USAGE, "a peer copy needs two different GPUs of the %u", nd->n);
    if (bytes % 4 != 0 || bytes == 0)
        return simt_errf(err, SIMT_E_USAGE, "a peer copy moves a whole number of 4-byte words");
    pipe_t p;
    node_coll_t r;
    double t = fmax(after, fmax(nd->t_comm[src], nd->t_comm[dst]));
    memset(&r, 0, sizeof r);
    memset(&p, 0, sizeof p);
    p.t0 = t;
    p.nslices = slices_of(bytes);
    p.done = malloc(sizeof *p.done * nd->n * p.nslices);
    if (!p.done)
        return simt_errf(err, SIMT_E_NOMEM, "out of host memory for a copy");
    for (uint32_t i = 0; i < nd->n * p.nslices; i++)
        p.done[i] = t;
    xfer_t x = {src, dst, saddr, daddr, bytes, 0};
    int rc = run_round(nd, &x, 1, &p, &r, err);
    for (uint32_t s = 0; s < p.nslices; s++)
        t = fmax(t, p.done[dst * p.nslices + s]);
    free(p.done);
    if (rc != 0)
        return -1;
    nd->t_comm[src] = fmax(nd->t_comm[src], t);
    nd->t_comm[dst] = t;
    *finish = t;
    if (t > nd->t_end)
        nd->t_end = t;
    return 0;
}

int node_host_copy(node_t *nd, uint32_t i, double bytes, int to_device, int pinned,
                   double after, double *finish, simt_err_t *err)
{
    if (i >= nd->n)
        return simt_errf(err, SIMT_E_USAGE, "no GPU %u in a node of %u", i, nd->n);
    link_flow_t f;
    memset(&f, 0, sizeof f);
    f.nhops = 1;
    f.hops[0] = (uint32_t)(to_device ? nd->host_down[i] : nd->host_up[i]);
    f.bytes = bytes;
    f.latency_s = nd->link.latency_us * 1e-6;
    f.start_s = fmax(fmax(after, nd->t_comm[i]), nd->net.res[f.hops[0]].free_at - f.latency_s);
    f.cap_bytes_per_s = pinned ? 0 : nd->link.pageable_gbps * 1e9;
    if (link_run(&nd->net, &f, 1, err) != 0)
        return -1;
    nd->t_comm[i] = f.finish_s;
    *finish = f.finish_s;
    if (*finish > nd->t_end)
        nd->t_end = *finish;
    return 0;
}
