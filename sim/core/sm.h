/* sm.h - one streaming multiprocessor (SM): warp slots, block slots, and
 * the warp schedulers that pick one ready warp per cycle each.
 *
 * Internal to the core: gpu.c creates SMs for a launch and calls sm_cycle
 * in time order. The view reads the const getters at the bottom.
 */
#ifndef SIMT_SM_H
#define SIMT_SM_H

#include <stdint.h>

#include "err.h"
#include "exec.h"
#include "gpu.h"
#include "isa.h"
#include "sched.h"
#include "warp.h"

#define SM_MAX_SCHEDULERS 8
#define SM_NEVER UINT64_MAX
#define SM_MAX_WARPS_PER_SCHED SCHED_MAX_WARPS   /* one bit each in sched_t's masks */
#define SM_DEP_REGS (4 * 8 + 8)   /* 4 sources and a destination of up to 8 registers */
#define SM_MAX_MBARS 16       /* mbarriers per block (isa.h)                 */
#define SM_MAX_WARPGROUPS 8   /* 4 warps each: 1,024 threads per block      */
#define SM_WGMMA_RING 8       /* wgmma.wait N: N < SM_WGMMA_RING             */
#define SM_BLOCKED (SM_NEVER - 1) /* next_issue of a warp waiting on an
                                     mbarrier phase no one has completed  */

struct memsys;
struct sm;

/* A thread-block cluster being run (isa.h "Clusters"): gpu.c places its
 * CTAs together on distinct SMs and frees the entry when the last exits. */
typedef struct sm_cluster {
    exec_cluster_t x;             /* what its CTAs' instructions see         */
    uint32_t live;                /* CTAs not yet finished (0: entry free)   */
    uint32_t warps_live;          /* their warps not yet done                */
    uint32_t warps_at_bar;        /* warps waiting at barrier.cluster        */
} sm_cluster_t;

/* What every instruction needs the timing model to know, decoded once per
 * launch so that the scheduler's readiness check is a few loads. */
typedef struct sm_deps {
    uint8_t unit;             /* isa_unit_t this instruction issues to      */
    uint8_t nsrc;             /* registers read (in src[])                  */
    uint8_t src[4];           /* register indices read (first of a range)   */
    uint8_t src_n[4];         /* registers in each range (wmma: 4 or 8,
                                 st.v2/.v4: 2 or 4, everything else 1)      */
    uint8_t dst;              /* register written, or ISA_NO_REG            */
    uint8_t dst_n;            /* registers written from dst on (1, wmma 4/8,
                                 ld.v2/.v4 2/4)                             */
    uint8_t tc_type;          /* wmma.mma: input isa_type_t (sets how long it
                                 holds the Tensor Core), else T_NONE        */
    uint8_t psrc[3];          /* predicates read (guard first), ISA_NO_REG  */
    uint8_t pdst;             /* predicate written, or ISA_NO_REG           */
    /* The same registers as one flat list, for the scoreboard check
     * (warp_refresh): every register of src[] ranges in order, then of
     * dst's range. Filled by sm_decode_deps. */
    uint8_t nregs;            /* entries in regs[]                          */
    uint8_t regs[SM_DEP_REGS];
    uint8_t dst_word;         /* warp_t.reg_mem word holding dst's range... */
    uint64_t dst_bits;        /* ... and its bits there; 0 when the range
                                 straddles two words (then bit by bit)      */
    uint8_t async;            /* mbarrier, cp.async.bulk, wgmma: timed by
                                 sm_async_issue (sm_async.c)                */
} sm_deps_t;

/* Everything one launch shares between SMs (owned by gpu.c). */
typedef struct sm_launch {
    const gpu_desc_t *desc;
    const isa_program_t *prog;
    const sm_deps_t *deps;        /* prog->ncode entries                     */
    mem_t *mem;                   /* device memory                           */
    struct memsys *memsys;        /* caches and DRAM timing                  */
    const uint32_t *params;
    uint32_t grid[3], block[3];
    uint32_t threads_per_block;
    uint32_t warps_per_block;
    uint32_t issue_interval[UNIT_COUNT]; /* cycles a unit is busy per warp   */
    uint32_t latency[UNIT_COUNT];        /* cycles to result per unit        */
    uint32_t tc_interval[T_COUNT];       /* wmma.mma.T holds its scheduler's
                                            Tensor Core this many cycles (0:
                                            the preset has no such format) */
    uint32_t tc_rate[T_COUNT];           /* wgmma: the full (datasheet) Tensor
                                            Core FLOP per clock per SM        */
    gpu_stats_t *st;              /* statistics being accumulated            */
    uint64_t last_activity;       /* latest cycle anything issued/completed  */
    const struct gpu_run *run;    /* what observers see                      */
    gpu_observer_fn observe;      /* optional observer (gpu.h), or NULL      */
    void *observe_user;
    int stop;                     /* the observer asked to stop              */
    struct check *check;          /* kernel checker (check.h), NULL: off     */
    struct sm *sms;               /* every SM of the launch (cluster peers)  */
    uint32_t cluster[3];          /* cluster shape ({1,1,1}: no clusters)    */
    uint32_t cluster_size;        /* CTAs per cluster                        */
} sm_launch_t;

/* Tell the observer, if any, about an event. */
void sm_notify(sm_launch_t *l, const gpu_event_t *ev);

/* One mbarrier of a block (isa.h): its state, kept beside shared memory. */
typedef struct sm_mbar {
    uint32_t addr;                /* shared-memory address (the key)         */
    uint32_t count;               /* arrivals per phase                      */
    uint32_t pending;             /* arrivals still missing in this phase    */
    uint32_t phase;               /* phases completed                        */
    int64_t tx;                   /* bytes expected and not yet arrived      */
    uint64_t t_max;               /* latest arrival / byte of this phase     */
    uint64_t t_done;              /* cycle the last completed phase ended    */
} sm_mbar_t;

/* Per-warp state of the asynchronous instructions (apart from warp_t). */
typedef struct sm_async {
    uint64_t wgmma_done[SM_WGMMA_RING]; /* finish cycle of the last wgmmas  */
    uint32_t wgmma_n;             /* wgmma.mma_async issued so far           */
    uint8_t wait_mbar;            /* 1 + index of the mbarrier it waits on   */
    uint8_t wait_parity;          /* the phase parity it waits for           */
    uint8_t wait_cluster;         /* 1: waits at barrier.cluster             */
} sm_async_t;

/* A thread block resident on an SM. */
typedef struct sm_block {
    uint8_t used;                 /* slot holds a running block              */
    uint32_t ctaid[3];            /* block index in the grid                 */
    uint32_t first_warp;          /* its warps are slots first_warp..+n-1    */
    uint32_t warps_live;          /* warps not yet done                      */
    uint32_t warps_at_bar;        /* warps waiting at bar.sync               */
    uint8_t *smem;                /* its shared memory                       */
    uint64_t start;               /* cycle it was placed                     */
    exec_ctx_t x;                 /* what its warps' instructions see: filled
                                     when the block is placed, so that an
                                     issue only sets x.clock               */
    uint32_t nmbar;               /* mbarriers initialised                   */
    sm_mbar_t mbar[SM_MAX_MBARS];
    uint32_t wg_count[SM_MAX_WARPGROUPS];   /* wgmmas the warpgroup's first
                                               warp has issued (B reads)     */
    uint64_t wg_b_ready[SM_MAX_WARPGROUPS]; /* when that last B read is done */
    sm_cluster_t *cluster;        /* its cluster, NULL: not a cluster launch */
    uint32_t rank;                /* its rank in the cluster                 */
} sm_block_t;

typedef struct sm {
    uint32_t id;                  /* %smid                                   */
    uint32_t nsched;              /* schedulers in use                       */
    sched_t sched[SM_MAX_SCHEDULERS];  /* sched.h */
    warp_t *warps;                /* nwarps slots                            */
    uint32_t nwarps;
    sched_slot_t *view;           /* scheduler s's k-th slot (warp slot
                                     k * nsched + s) at view[s * per_sched + k] */
    uint32_t per_sched;           /* slots per scheduler, rounded up         */
    uint32_t *view_at;            /* nwarps: index of each slot in view      */
    sm_block_t *blocks;           /* nblocks slots                           */
    sm_async_t *async;            /* nwarps: per-warp async state            */
    uint32_t nblocks;
    uint32_t blocks_used;         /* resident blocks                         */
    uint32_t *regfile;            /* nwarps x nregs x 32 registers           */
    uint64_t *reg_ready;          /* nwarps x nregs: their scoreboard        */
    uint8_t *smem;                /* nblocks x shared bytes per block        */
    uint32_t smem_per_block;
    uint64_t next_eval;           /* next cycle worth simulating, or NEVER   */
    uint64_t last_eval;           /* last cycle simulated + 1 (0: none)      */
    uint64_t age;                 /* counter for warp dispatch order         */
    uint8_t sched_reference;      /* the GPU field: pick with the reference  */
    uint8_t sched_lrr;            /* the GPU field sched is loose round robin */
    uint8_t dirty;                /* warps changed state outside their own
                                     issue (barrier release, new block):
                                     every scheduler must look again        */
} sm_t;

/* Host bytes one SM needs for blocks_per_sm blocks of the launch's shape:
 * its warps, registers, scheduler state and shared memory. */
size_t sm_host_bytes(const sm_launch_t *l, uint32_t blocks_per_sm);

/* Set up an SM with slots for blocks_per_sm blocks, in `host`: sm_host_bytes
 * bytes aligned to 128 (need not be zeroed), which the caller owns and frees after the
 * launch (gpu.c gives all SMs one allocation, on huge pages where the host
 * has them: the SMs' state is tens of MB, touched at random every cycle). */
void sm_init(sm_t *sm, uint32_t id, const sm_launch_t *l, uint32_t blocks_per_sm, void *host);

/* Place block ctaid on the SM at cycle now, as CTA `rank` of `cluster`
 * (NULL: not a cluster launch); returns its block slot, or -1 if none is
 * free. */
int sm_place_block(sm_t *sm, const sm_launch_t *l, const uint32_t ctaid[3], uint64_t now,
                   sm_cluster_t *cluster, uint32_t rank);

/* Simulate cycle now: each scheduler issues at most one instruction.
 * Sets sm->next_eval. Returns the number of blocks that finished, or -1
 * on a kernel fault (report in err). */
int sm_cycle(sm_t *sm, sm_launch_t *l, uint64_t now, simt_err_t *err);

/* Account the SM's schedulers up to (not including) cycle end. */
void sm_finish(sm_t *sm, sm_launch_t *l, uint64_t end);

/* What warp slot `slot` is doing at cycle now (gpu_warp_status_t). */
uint8_t sm_warp_status(const sm_t *sm, uint32_t slot, uint64_t now);

/* Describe where the SM's live warps are (for timeout reports). */
void sm_describe_warps(const sm_t *sm, const sm_launch_t *l, char *buf, size_t n);

/* Decode per-instruction dependencies for the scoreboard. */
void sm_decode_deps(const isa_program_t *p, sm_deps_t *deps);

#endif
