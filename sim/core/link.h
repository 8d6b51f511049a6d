/* link.h - links between GPUs (and the host) as shared pipes: bandwidth per
 * direction, latency, and contention.
 *
 * A link network is a set of resources, each one direction of a link (or a
 * shared part such as the host's memory bridge) with a capacity in bytes
 * per second. A transfer (a flow) crosses one or more resources in order.
 * link_run moves every flow on one clock as a fluid:
 *
 *   - a flow starts moving at start_s + latency_s;
 *   - while several flows share a resource they share its capacity fairly
 *     (max-min: each flow gets the most it can without taking from a flow
 *     that gets less), so the bytes per second through a resource never
 *     exceed its capacity;
 *   - a flow alone on its resources moves at the smallest capacity on its
 *     path (or its own cap, e.g. a pageable host copy), so it takes
 *     latency_s + bytes / bandwidth.
 *
 * Every resource counts the bytes it moved and the time it was busy (for
 * statistics), and an optional callback sees every interval at a constant
 * rate (for a trace track per link and the stage). Plain values, no heap:
 * a link_net_t can live on the stack. Deterministic.
 */
#ifndef SIMT_LINK_H
#define SIMT_LINK_H

#include <stdint.h>

#include "err.h"

#define LINK_MAX_RES 72   /* resources in one network (8 GPUs x 8 + host)  */
#define LINK_MAX_HOPS 8   /* resources one flow crosses                    */

typedef struct link_res {
    char name[40];        /* "GPU0 -> switch", "host bridge"               */
    double bytes_per_s;   /* capacity (one direction)                      */
    double bytes;         /* bytes moved through it so far                 */
    double busy_s;        /* time during which some flow moved through it  */
    double peak_bytes_per_s; /* the most it ever carried (<= capacity)     */
    double free_at;       /* when the last flow through it finished: a
                             caller that runs flows in several link_run
                             calls starts later ones after this, so no
                             link ever carries two calls' flows at once  */
} link_res_t;

typedef struct link_flow {
    uint32_t hops[LINK_MAX_HOPS]; /* resources crossed, no repeats         */
    uint32_t nhops;
    double bytes;         /* to move (>= 0)                                */
    double start_s;       /* when the sender starts                        */
    double latency_s;     /* before the first byte moves                   */
    double cap_bytes_per_s; /* the most this flow can move (0: no cap)     */
    double finish_s;      /* out: when its last byte arrived               */
    double remaining;     /* internal                                      */
} link_flow_t;

/* Called for every interval [t0, t1) during which resource r carried a
 * constant rate (bytes per second, > 0). */
typedef void (*link_seg_fn)(void *user, uint32_t r, double t0, double t1, double rate);

typedef struct link_net {
    link_res_t res[LINK_MAX_RES];
    uint32_t nres;
    link_seg_fn on_segment;  /* optional                                   */
    void *user;              /* its first argument                         */
} link_net_t;

/* An empty network. */
void link_net_init(link_net_t *n);
/* Add a resource; returns its index, or -1 with err (too many, capacity
 * not > 0). */
int link_net_add(link_net_t *n, const char *name, double bytes_per_s, simt_err_t *err);
/* Move the nf flows together (each from its own start time) until all have
 * arrived; fills every flow's finish_s and adds to the resources' counters.
 * Fails (-1, err) on a bad flow: unknown or repeated hop, no hops, negative
 * or non-finite bytes/times. */
int link_run(link_net_t *n, link_flow_t *f, uint32_t nf, simt_err_t *err);
/* Fraction of [0, span_s] resource r was carrying bytes at full capacity:
 * bytes / (capacity x span_s), in [0, 1]. */
double link_utilisation(const link_net_t *n, uint32_t r, double span_s);

#endif
