/* node.h - several simulated GPUs in one machine, joined by links, with
 * transfers and collectives on one clock.
 *
 *   node_link_t lk; node_link_preset("nvlink", gpu_desc(g[0]), &lk, &err);
 *   node_t nd; node_init(&nd, g, 8, &lk, &vecadd_v4_prog, &err);
 *   node_coll_t r; node_allreduce(&nd, bufs, scratch, nfloats, NODE_RING, &r, &err);
 *
 * Every GPU is a full simulated GPU with its own memory (not owned here).
 * Each GPU has two clocks in seconds: its compute stream (kernels the
 * script launches, node_busy) and its communication stream (collectives,
 * which start when the data they need is ready). Transfers go through the
 * link model (link.h): one direction of every link is a resource with a
 * bandwidth, transfers that share a resource share its bandwidth. The data
 * really moves (device memory to device memory) and every reduction is a
 * real kernel (C = A + B on f32, the shape of lessons/kernels/vecadd_v4.s)
 * run on the receiving GPU, whose simulated time is added to its clock.
 *
 * Data moves in slices (NODE_SLICE_BYTES), pipelined: while a GPU reduces
 * slice k, slice k + 1 is on the wire; each receiver has two receive
 * buffers of a slice. Not modelled: the reduction kernel taking SMs from
 * the compute stream, NVLink SHARP (in-switch reduction), more
 * than one node (no network).
 */
#ifndef SIMT_NODE_H
#define SIMT_NODE_H

#include <stdint.h>

#include "gpu.h"
#include "isa.h"
#include "link.h"

#define NODE_MAX_GPUS 8
/* Collectives move data in slices of this size, pipelined: a GPU reduces
 * one slice while the next is on the wire (NCCL's Simple protocol moves a
 * 4 MiB buffer in 8 steps of 512 KiB). */
#define NODE_SLICE_BYTES (512u * 1024u)

typedef enum node_topo {
    NODE_SWITCH,     /* every GPU one port on a switch (NVSwitch)           */
    NODE_RING,       /* each GPU linked to its two neighbours only          */
    NODE_PCIE,       /* PCIe with peer-to-peer: GPU -> PCIe switch -> GPU   */
    NODE_PCIE_HOST   /* PCIe without peer-to-peer: through host memory      */
} node_topo_t;

/* How the GPUs are joined. Bandwidths in GB/s (1e9 bytes/s), one
 * direction. */
typedef struct node_link {
    char name[32];        /* "nvlink", "pcie5-host"                        */
    node_topo_t topo;
    double gbps;          /* one GPU's port to its peers (ring: to EACH
                             neighbour)                                     */
    double latency_us;    /* per transfer, before the first byte arrives   */
    double host_gbps;     /* each GPU's PCIe link to the host (pinned)     */
    double pageable_gbps; /* a copy from / to pageable host memory         */
    double bridge_gbps;   /* the host's memory and socket bridge, shared by
                             every peer transfer through host memory
                             (NODE_PCIE_HOST)                              */
    char source[160];     /* where the figures come from (estimates said)  */
} node_link_t;

/* Fill *out for link preset `name` for GPUs of description d (NVLink takes
 * the GPU's own generation, d->nvlink_gbps; the host link d->pcie_gbps).
 * Names: nvlink (NVSwitch), nvlink-ring, pcie4, pcie5 (peer-to-peer),
 * pcie4-host, pcie5-host (no peer-to-peer). -1 + err for an unknown name
 * or NVLink on a GPU without it. */
int node_link_preset(const char *name, const gpu_desc_t *d, node_link_t *out, simt_err_t *err);
/* The preset names, space-separated (for messages and --help). */
const char *node_link_names(void);

typedef enum node_algo {
    NODE_RING_ALGO,  /* ring: reduce-scatter then all-gather                */
    NODE_TREE,       /* binary tree: reduce to GPU 0, then broadcast back   */
    NODE_PS          /* parameter server: all send to GPU 0, it sends back  */
} node_algo_t;

typedef struct node {
    uint32_t n;                          /* GPUs                          */
    gpu_t *gpu[NODE_MAX_GPUS];           /* not owned                     */
    node_link_t link;
    link_net_t net;                      /* the links, with their counters */
    int port_out[NODE_MAX_GPUS], port_in[NODE_MAX_GPUS]; /* to peers      */
    int ring_next[NODE_MAX_GPUS], ring_prev[NODE_MAX_GPUS]; /* NODE_RING: i -> i+1, i -> i-1 */
    int host_up[NODE_MAX_GPUS], host_down[NODE_MAX_GPUS];   /* PCIe to the host */
    int bridge;                          /* the host bridge               */
    const isa_program_t *reduce;         /* C = A + B kernel, not owned   */
    double t_compute[NODE_MAX_GPUS];     /* compute stream free at (s)    */
    double t_comm[NODE_MAX_GPUS];        /* communication stream free at  */
    double sent[NODE_MAX_GPUS];          /* bytes each GPU sent to peers  */
    uint64_t kernels;                    /* reduction kernels run         */
    double t_end;                        /* latest time anything ended    */
} node_t;

/* Results of one collective. */
typedef struct node_coll {
    double start_s, finish_s;  /* on the node's clock                      */
    double time_s;             /* finish - start                           */
    double bytes;              /* the message (bytes per GPU)              */
    double algbw_gbs;          /* bytes / time, GB/s                       */
    double busbw_gbs;          /* algbw x the nccl-tests factor:
                                  all-reduce 2(n-1)/n, reduce-scatter and
                                  all-gather (n-1)/n, broadcast 1          */
    double kernel_s;           /* reduction kernel time, summed on the GPU
                                  that spent the most                      */
    uint32_t steps;            /* rounds of transfers                      */
} node_coll_t;

/* Set up a node of n GPUs (1..NODE_MAX_GPUS) joined by *lk; reduce is the
 * reduction kernel (params A, B, C, n; C[i] = A[i] + B[i] for n f32, n a
 * multiple of 4, launched 1-D with 4 elements per thread). */
int node_init(node_t *nd, gpu_t *const *gpus, uint32_t n, const node_link_t *lk,
              const isa_program_t *reduce, simt_err_t *err);

/* GPU i's compute stream is busy from max(now, its clock) for seconds. */
void node_busy(node_t *nd, uint32_t i, double seconds);

/* Copy bytes from GPU src to GPU dst (addresses in their memories) after
 * `after` seconds on the node's clock; really moves the data. Fills
 * *finish. */
int node_copy(node_t *nd, uint32_t src, uint32_t saddr, uint32_t dst, uint32_t daddr,
              uint32_t bytes, double after, double *finish, simt_err_t *err);
/* A host <-> device copy of bytes (to_device 1: host -> GPU i), pinned or
 * pageable host memory, starting at `after`; timing only. It crosses the
 * GPU's own PCIe link (one direction); copies of different GPUs do not
 * slow each other (the host's memory is taken to be wide enough). */
int node_host_copy(node_t *nd, uint32_t i, double bytes, int to_device, int pinned,
                   double after, double *finish, simt_err_t *err);

/* Collectives over the f32 buffers buf[i] (nfloats each, a multiple of 4,
 * at least 4 n; a ring's chunks are whole groups of 4 floats and may
 * differ by one group) with scratch[i] (receive buffers: 2 x NODE_SLICE_BYTES, or the
 * message's bytes if smaller) on every GPU. All start at `after`
 * (seconds; each GPU's communication stream also waits for itself).
 *   all-reduce: every buf[i] becomes the sum of all;
 *   reduce-scatter (ring): GPU i's chunk (i + 1) mod n of buf[i] becomes the
 *     sum of that chunk over all GPUs (nccl-tests puts chunk i on rank i;
 *     only the labelling differs: node_rs_chunk says which);
 *   all-gather (ring): chunk node_rs_chunk(i) of buf[i] is sent to all;
 *   broadcast (tree from GPU 0): every buf[i] becomes buf[0]. */
int node_allreduce(node_t *nd, const uint32_t *buf, const uint32_t *scratch, uint32_t nfloats,
                   node_algo_t algo, double after, node_coll_t *r, simt_err_t *err);
int node_reduce_scatter(node_t *nd, const uint32_t *buf, const uint32_t *scratch,
                        uint32_t nfloats, double after, node_coll_t *r, simt_err_t *err);
int node_all_gather(node_t *nd, const uint32_t *buf, uint32_t nfloats, double after,
                    node_coll_t *r, simt_err_t *err);
int node_broadcast(node_t *nd, const uint32_t *buf, uint32_t nfloats, double after,
                   node_coll_t *r, simt_err_t *err);
/* The chunk GPU i holds the sum of after a ring reduce-scatter (chunk c
 * of a message of nfloats starts at float 4 floor(nfloats/4 x c / n)). */
uint32_t node_rs_chunk(const node_t *nd, uint32_t i);

#endif
