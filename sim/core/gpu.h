/* gpu.h - the simulated GPU as a whole: description, memory, launch, results.
 *
 * Public API of the core. Usage:
 *
 *   gpu_desc_t d; gpu_desc_default(&d);            // or arch loader (sim/script)
 *   gpu_t *g = gpu_create(&d, &err);
 *   uint32_t a; gpu_malloc(g, bytes, "A", &a, &err); gpu_write(g, a, host, bytes, &err);
 *   gpu_launch_t l = { .grid = {16,16,1}, .block = {16,16,1} };
 *   gpu_stats_t st; gpu_launch(g, &prog, &l, args, nargs, &st, &err);
 *   gpu_free(g);
 *
 * Everything is deterministic: the same program, arguments, memory and
 * description give the same results and the same statistics.
 */
#ifndef SIMT_GPU_H
#define SIMT_GPU_H

#include <stdint.h>

#include "err.h"
#include "isa.h"
#include "mem.h"

/* Warp scheduler policies. */
typedef enum gpu_sched {
    SCHED_LRR,   /* loose round robin: next ready warp after the last issued */
    SCHED_GTO    /* greedy then oldest: keep issuing one warp until it stalls */
} gpu_sched_t;

/* Everything the simulator knows about a GPU model. A plain value: copied
 * into gpu_t at create time. Presets (arch/NAME.lua) fill it; every field can
 * be overridden from Lua and the command line. Sizes in bytes, latencies in
 * core clock cycles. */
typedef struct gpu_desc {
    char name[64];                 /* "h200", "edu-tiny"                     */
    char vendor_name[96];          /* "NVIDIA H200 SXM 141GB"                */
    /* compute organisation */
    uint32_t sms;                  /* streaming multiprocessors              */
    double clock_mhz;              /* core clock for time = cycles / clock   */
    uint32_t schedulers_per_sm;    /* sub-partitions, one scheduler each     */
    uint32_t fp32_lanes_per_sm;    /* FP32 FMA lanes                         */
    uint32_t int_lanes_per_sm;     /* INT32 lanes                            */
    uint32_t sfu_lanes_per_sm;     /* special function lanes                 */
    uint32_t lsu_lanes_per_sm;     /* load/store lanes (addresses per cycle) */
    gpu_sched_t sched;             /* warp scheduler policy                  */
    uint32_t sched_reference;      /* 1: pick warps with the plain reference
                                      scan (sched.h; slower, same result)   */
    /* Tensor Cores: dense FLOP per clock per SM by input precision (FP32
     * accumulate; an FMA is 2 FLOP), split evenly over the schedulers.
     * 0: the GPU has no Tensor Core for that format (wmma.mma fails). */
    uint32_t tc_flops_per_clk_f16;  /* FP16 inputs                           */
    uint32_t tc_flops_per_clk_bf16; /* BF16 inputs                           */
    uint32_t tc_flops_per_clk_tf32; /* TF32 inputs                           */
    uint32_t tc_flops_per_clk_fp8;  /* FP8 inputs (E4M3 and E5M2)            */
    /* The rate warp-level wmma.mma actually gets (FLOP per clock per SM),
     * which sets its issue interval. Equal to tc_flops_per_clk_* on most
     * chips; on Hopper the datasheet rate needs the warpgroup instruction
     * (wgmma, not in our ISA) and warp-level mma.sync reaches ~60% of it
     * (arch/CALIBRATION.md). 0: same as tc_flops_per_clk_*. */
    uint32_t tc_sync_flops_per_clk_f16;  /* FP16 inputs                      */
    uint32_t tc_sync_flops_per_clk_bf16; /* BF16 inputs                      */
    uint32_t tc_sync_flops_per_clk_tf32; /* TF32 inputs                      */
    uint32_t tc_sync_flops_per_clk_fp8;  /* FP8 inputs (E4M3 and E5M2)       */
    /* occupancy limits */
    uint32_t max_threads_per_sm;
    uint32_t max_blocks_per_sm;
    uint32_t max_threads_per_block;
    uint32_t regs_per_sm;          /* 32-bit registers in the register file  */
    uint32_t max_regs_per_thread;  /* most registers one thread may use
                                      (255 on NVIDIA; 1..ISA_NUM_REGS): a
                                      launch of a kernel that needs more
                                      fails by name                          */
    uint32_t reg_alloc_unit;       /* registers allocated per warp in units  */
    uint32_t smem_per_sm;          /* shared memory bytes per SM             */
    uint32_t smem_per_block;       /* most shared memory one block may use   */
    uint32_t max_grid[3];          /* grid dimension limits                  */
    /* thread-block clusters (isa.h "Clusters"): the most CTAs in one
     * cluster (1: the GPU has no clusters), and the latency of a remote
     * mbarrier arrival or a barrier.cluster release across SMs */
    uint32_t max_cluster_size;
    uint32_t lat_cluster;
    uint32_t wgmma;                /* 1: warpgroup MMA (wgmma.*, compute
                                      capability 9.0); 0: a launch of a
                                      kernel that uses it fails by name    */
    /* pipeline latencies (cycles from issue to result ready) */
    uint32_t lat_alu, lat_fma, lat_sfu, lat_branch;
    uint32_t lat_tensor;           /* wmma.mma issue to result (D) ready     */
    uint32_t lat_smem;             /* shared memory load                     */
    uint32_t lat_l1, lat_l2, lat_dram;  /* global load hit latencies         */
    uint32_t lat_l2_far;           /* L2 hit in the far partition (end to end;
                                      used when l2_partitions = 2)           */
    /* memory hierarchy */
    uint32_t smem_banks;           /* 32 banks of 4 bytes                    */
    uint32_t l1_bytes, l1_assoc;   /* per SM                                 */
    uint32_t l2_bytes, l2_assoc;   /* whole chip                             */
    uint32_t line_bytes;           /* cache line (128)                       */
    uint32_t sector_bytes;         /* cache sector / DRAM burst (32)         */
    uint32_t dram_fetch_bytes;     /* bytes an L2 load miss fetches from DRAM:
                                      the aligned block around the sector
                                      (64 on Ampere/Hopper); 0 = sector_bytes */
    uint32_t l2_partitions;        /* 1, or 2: halves that each cache data for
                                      the SMs attached to them (memsys.h)    */
    double l2_bytes_per_clk;       /* L2 bandwidth, whole chip               */
    double dram_gbps;              /* DRAM bandwidth, GB/s (1e9 bytes/s)     */
    uint32_t dram_channels;        /* independent DRAM channels (an HBM
                                      part's pseudo-channels: 192 on H200)   */
    double dram_efficiency;        /* usable fraction of dram_gbps, (0, 1]   */
    double dram_trefi_ns;          /* a channel refreshes once per tREFI;
                                      0 = refresh not modelled (dram.h)      */
    double dram_refresh_ns;        /* each refresh blocks its channel this long */
    uint32_t max_mem_inflight;     /* outstanding memory requests per SM     */
    uint64_t mem_bytes;            /* device memory capacity                 */
    /* the power limit of the power model below (with a model: the clock a
     * launch sustains; without: only for comparisons), price and launch
     * overhead for comparisons (lesson 15) */
    double tdp_watts;
    double price_per_hour;         /* USD, on-demand cloud list price        */
    double launch_us;              /* host launch overhead per kernel        */
    /* power model (power.h, arch/CALIBRATION.md "Power and sustained
     * clocks"): dynamic energy per operation and per byte moved, in pJ at
     * the clock_mhz voltage, static power, and the DVFS relation the TDP
     * limit works through. power_static_w = 0: no power model (energy and
     * clock fields of the results are 0 / clock_mhz; time is cycles /
     * clock_mhz). */
    double power_static_w;         /* leakage and idle power, whole chip     */
    double power_pj_instr;         /* per warp instruction issued (fetch,
                                      decode, schedule, operand collection) */
    double power_pj_fp32;          /* per FP32 lane op (FMA unit), incl. its
                                      register reads and write              */
    double power_pj_int;           /* per integer/logic lane op (ALU)        */
    double power_pj_sfu;           /* per SFU lane op                        */
    double power_pj_tc_f16;        /* per Tensor Core FLOP, FP16 inputs      */
    double power_pj_tc_bf16;       /* ... BF16 inputs                        */
    double power_pj_tc_tf32;       /* ... TF32 inputs                        */
    double power_pj_tc_fp8;        /* ... FP8 inputs (E4M3 and E5M2)         */
    double power_pj_byte_l1;       /* per byte through L1 / shared memory    */
    double power_pj_byte_l2;       /* per byte through the L2 slices (incl.
                                      the crossbar to the SMs)              */
    double power_pj_byte_dram;     /* per byte to or from DRAM (device +
                                      PHY; not scaled by the core voltage)  */
    double power_volt_slope;       /* DVFS: relative voltage change per
                                      relative clock change near the top,
                                      V(f)/V(clock) = 1 - s (1 - f/clock)   */
    double power_mhz_min;          /* the lowest clock the TDP limit may set */
    /* links to other GPUs and the host (node.h), GB/s = 1e9 bytes/s, one
     * direction: 0 = the GPU has no NVLink (peers over PCIe only) */
    double nvlink_gbps;            /* NVLink, all of one GPU's links         */
    double pcie_gbps;              /* host <-> device copy, pinned memory    */
    double pageable_gbps;          /* host <-> device copy, pageable memory  */
} gpu_desc_t;

/* Tensor Core FLOP per clock per SM for wmma.mma input type t (f16 bf16
 * tf32 e4m3 e5m2; the FP8 types share tc_flops_per_clk_fp8); 0 for none. */
uint32_t gpu_tc_flops_per_clk(const gpu_desc_t *d, isa_type_t t);
/* The rate wmma.mma of input type t issues at: tc_sync_flops_per_clk for
 * t if set, else gpu_tc_flops_per_clk (0: no Tensor Core for t). */
uint32_t gpu_tc_sync_flops_per_clk(const gpu_desc_t *d, isa_type_t t);

/* Stall reasons: why a scheduler issued nothing in a cycle. */
typedef enum gpu_stall {
    STALL_MEMORY,      /* oldest warp waits on a load                        */
    STALL_DEPENDENCY,  /* waits on an arithmetic result (scoreboard)         */
    STALL_BARRIER,     /* waits at bar.sync                                  */
    STALL_PIPE,        /* function unit busy                                 */
    STALL_IDLE,        /* no warp to run                                     */
    STALL_COUNT
} gpu_stall_t;

/* Results of one launch. */
typedef struct gpu_stats {
    uint64_t cycles;               /* core cycles from launch to last exit   */
    double time_us;                /* cycles / clock                         */
    uint64_t warp_instrs;          /* warp instructions issued               */
    uint64_t thread_instrs;        /* sum of active lanes over all issues    */
    uint64_t flops;                /* floating-point operations (fma = 2)    */
    uint64_t blocks;               /* thread blocks run                      */
    uint64_t threads;              /* threads launched                       */
    uint64_t gld_bytes, gst_bytes; /* bytes requested by global ld/st        */
    uint64_t sld_bytes, sst_bytes; /* bytes requested by shared ld/st        */
    uint64_t gld_sectors, gst_sectors; /* 32-byte sectors after coalescing   */
    uint64_t gld_requests, gst_requests; /* warp instructions that took global
                                      data through the LSU: ld, st, atom,
                                      wmma.load/store (a .v4 load of 512
                                      bytes is 1 request of 16 sectors; bulk
                                      copies are not requests)               */
    uint64_t sld_requests, sst_requests; /* the same for shared memory      */
    uint64_t smem_wavefronts;      /* shared accesses after bank conflicts   */
    uint64_t l1_hits, l1_misses, l2_hits, l2_misses;
    uint64_t dram_bytes;           /* bytes moved to or from DRAM, including
                                      the write-back of what the kernel left
                                      dirty in L2 (counted, not timed)       */
    uint64_t divergent_branches;   /* branches that split a warp             */
    uint64_t stalls[STALL_COUNT];  /* scheduler-cycles per stall reason      */
    uint64_t issue_slots;          /* scheduler-cycles in total (all SMs)    */
    uint32_t blocks_per_sm;        /* most blocks placed on one SM at a time */
    uint32_t blocks_fit_per_sm;    /* blocks that fit on one SM (the limit)  */
    uint32_t warps_per_sm;         /* blocks_per_sm x warps per block        */
    double occupancy;              /* warps_per_sm / max warps per SM        */
    char occupancy_limit[32];      /* what limits blocks_per_sm: "threads per
                                      SM", "registers", "shared memory",
                                      "blocks per SM", or "blocks in the
                                      grid" when fewer were placed than fit  */
    /* for the power model (power.h) */
    uint64_t lane_ops[UNIT_COUNT]; /* active lanes summed over the issues of
                                      each unit (isa_unit_t)                */
    uint64_t tc_flops[4];          /* Tensor Core FLOP (wmma.mma, wgmma) by
                                      input format: f16 bf16 tf32 fp8       */
    /* set after the run by the power model; without one (power_static_w
     * = 0): energy 0, clock_mhz_sustained = clock_mhz */
    double time_us_boost;          /* cycles / clock_mhz (time_us is at the
                                      sustained clock)                      */
    double clock_mhz_sustained;    /* the clock the TDP allows this launch   */
    double energy_j;               /* at the sustained clock                 */
    double avg_power_w;            /* energy_j / time_us                     */
    double power_boost_w;          /* what the launch would draw at
                                      clock_mhz (> tdp_watts: throttled)    */
    double energy_dram_j;          /* of energy_j: DRAM                      */
    double energy_static_j;        /* of energy_j: static power x time       */
} gpu_stats_t;

/* ---- watching a launch (for the window, traces and lessons) -------------
 * A launch can carry an observer: a function called at events and every
 * `sample_every` cycles, which may look at the running GPU through the
 * const getters below but never changes it, so results and timing are the
 * same with or without it. Returning nonzero stops the launch
 * (SIMT_E_STOPPED). */
typedef enum gpu_event_kind {
    GPU_EV_SAMPLE,       /* every sample_every cycles                       */
    GPU_EV_BLOCK_START,  /* a block was placed on an SM                     */
    GPU_EV_BLOCK_END,    /* a block's last warp exited                      */
    GPU_EV_WARP_END,     /* a warp's last lane exited                       */
    GPU_EV_DONE          /* the launch finished (stats are final)           */
} gpu_event_kind_t;

typedef struct gpu_event {
    uint8_t kind;        /* gpu_event_kind_t                                */
    uint64_t cycle;      /* when                                            */
    uint32_t sm;         /* which SM (block and warp events)                */
    uint32_t slot;       /* block slot (block events) or warp slot (warp)   */
    uint32_t block_slot; /* block slot (block and warp events)              */
    uint32_t ctaid[3];   /* the block (block and warp events)               */
    uint32_t warp_in_block; /* warp events                                  */
} gpu_event_t;

/* What a warp is doing, as the window shows it. */
typedef enum gpu_warp_status {
    WS_EMPTY,            /* no warp in this slot                            */
    WS_ISSUING,          /* issued an instruction in the last cycle         */
    WS_READY,            /* ready, waiting for its scheduler's turn         */
    WS_MEMORY,           /* waiting for a load                              */
    WS_DEPENDENCY,       /* waiting for an arithmetic result                */
    WS_PIPE,             /* its function unit is busy                       */
    WS_BARRIER,          /* waiting at bar.sync                             */
    WS_DONE              /* exited, block still running                     */
} gpu_warp_status_t;

typedef struct gpu_warp_view {
    uint8_t status;      /* gpu_warp_status_t                               */
    uint32_t pc;         /* next instruction                                */
    uint32_t line;       /* its source line                                 */
    uint32_t active;     /* lanes on the executing path                     */
    uint32_t live;       /* lanes not exited                                */
    uint32_t ctaid[3];   /* its block                                       */
    uint32_t warp_in_block;
    uint8_t issued_unit; /* isa_unit_t of its last issued instruction
                            (UNIT_COUNT: none yet)                          */
} gpu_warp_view_t;

typedef struct gpu_run gpu_run_t;  /* a launch in progress, read-only */
typedef int (*gpu_observer_fn)(void *user, const gpu_run_t *run, const gpu_event_t *ev);

uint64_t gpu_run_cycle(const gpu_run_t *r);              /* current cycle      */
const gpu_stats_t *gpu_run_stats(const gpu_run_t *r);    /* running totals     */
const gpu_desc_t *gpu_run_desc(const gpu_run_t *r);
const isa_program_t *gpu_run_program(const gpu_run_t *r);
uint32_t gpu_run_sms(const gpu_run_t *r);                /* SMs in the launch  */
uint32_t gpu_run_warp_slots(const gpu_run_t *r);         /* per SM             */
uint32_t gpu_run_blocks_resident(const gpu_run_t *r, uint32_t sm);
uint64_t gpu_run_blocks_waiting(const gpu_run_t *r);     /* not yet placed     */
uint64_t gpu_run_blocks_total(const gpu_run_t *r);       /* in the grid        */
/* Fill *out for warp slot `slot` of SM `sm`; returns 0, -1 if out of range. */
int gpu_run_warp(const gpu_run_t *r, uint32_t sm, uint32_t slot, gpu_warp_view_t *out);
/* Memory requests (L1 miss lines) in flight on an SM at the current cycle. */
uint32_t gpu_run_mem_inflight(const gpu_run_t *r, uint32_t sm);

/* Bytes moved, by the time they moved (meter.h), per level of the memory
 * hierarchy. Enabled per run (gpu_run_enable_meters) for the window. */
typedef enum gpu_level {
    GPU_LEVEL_LSU,       /* the SMs' L1 / shared-memory data pipes          */
    GPU_LEVEL_L2,        /* the L2 slices                                   */
    GPU_LEVEL_DRAM,      /* the DRAM channels                               */
    GPU_LEVEL_COUNT
} gpu_level_t;
/* The most bytes per cycle a level can move (the whole chip; DRAM: the
 * usable rate, dram_gbps x efficiency, less the share of time refresh
 * takes). */
double gpu_run_peak_bytes_per_cycle(const gpu_run_t *r, gpu_level_t lv);
/* Bytes level lv moved in the cycles since the last call, up to (not
 * including) until_cycle, which must be at most the current cycle. One
 * reader per run: the bytes are handed out once. 0 when not metered. */
double gpu_run_take_bytes(const gpu_run_t *r, gpu_level_t lv, uint64_t until_cycle);

#define GPU_DEFAULT_MAX_CYCLES      2000000000ull
#define GPU_DEFAULT_MAX_WARP_INSTRS 1000000000ull
/* The largest max_cycles a launch accepts (2^39, about 5 simulated minutes
 * at 1.8 GHz): the warp schedulers pack cycles into 40 bits (sm.c). */
#define GPU_MAX_CYCLES_LIMIT        (1ull << 39)
#define GPU_MAX_CLUSTER             ISA_MAX_CLUSTER  /* CTAs per cluster (isa.h) */

/* A range of device memory [addr, addr + bytes). */
typedef struct gpu_range {
    uint32_t addr;
    uint32_t bytes;
} gpu_range_t;

/* A launch: grid and block shape plus safety limits. */
typedef struct gpu_launch {
    uint32_t grid[3];              /* blocks in x, y, z (0 is read as 1)      */
    uint32_t block[3];             /* threads in x, y, z (0 is read as 1)     */
    uint64_t max_cycles;           /* stop with SIMT_E_TIMEOUT after this many
                                      cycles; 0 = GPU_DEFAULT_MAX_CYCLES;
                                      at most GPU_MAX_CYCLES_LIMIT           */
    uint64_t max_warp_instrs;      /* ... or this many warp instructions
                                      (the watchdog for endless loops);
                                      0 = GPU_DEFAULT_MAX_WARP_INSTRS        */
    int warm_caches;               /* 1: keep L1/L2 contents from the last
                                      launch; 0 (default): start cold        */
    const gpu_range_t *warm;       /* optional: device ranges put into L2,
                                      clean, before the launch (memsys_warm),
                                      in order; not owned                    */
    uint32_t nwarm;                /* entries of warm                        */
    gpu_observer_fn observe;       /* optional: called at events (above)     */
    void *observe_user;            /* its first argument                     */
    uint64_t sample_every;         /* cycles between GPU_EV_SAMPLE; 0: none  */
    uint32_t cluster[3];           /* CTAs per thread-block cluster in x, y,
                                      z (0 is read as 1; {1,1,1}: none). The
                                      grid must be a multiple of it and its
                                      size at most max_cluster_size         */
    int check;                     /* 1: run the kernel checker (check.h):
                                      uninitialised reads, shared-memory
                                      races, mismatched barriers reported
                                      as faults; slower. 0 (default): off */
    uint64_t max_host_bytes;       /* refuse (SIMT_E_NOMEM, naming each part)
                                      a launch whose host state (registers,
                                      scoreboards, shared memory, checker)
                                      is larger, before allocating it; 0: no
                                      limit. gpu_run_host_bytes says what a
                                      run holds */
} gpu_launch_t;

typedef struct gpu gpu_t;

/* ---- a launch in steps (for the window: several runs move together) -----
 *   gpu_run_t *r = gpu_run_begin(g, &prog, &l, args, nargs, &err);
 *   gpu_run_add_observer(r, fn, user, sample_every, &err);   // optional
 *   while (gpu_run_advance(r, t, 0, &err) == GPU_RUN_MORE) t += step;
 *   gpu_run_end(r, &st, &err);
 * The same launch advanced in any slices gives the same results and
 * statistics as gpu_launch. The program, the GPU and its memory must
 * outlive the run; the arguments are copied. */
#define GPU_MAX_OBSERVERS 4
enum { GPU_RUN_FAILED = -1, GPU_RUN_MORE = 0, GPU_RUN_DONE = 1 };

/* Check the launch (as gpu_launch does) and set it up; nothing runs yet.
 * l->observe, if set, becomes the first observer. NULL + err on failure. */
gpu_run_t *gpu_run_begin(gpu_t *g, const isa_program_t *p, const gpu_launch_t *l,
                         const uint32_t *args, uint32_t nargs, simt_err_t *err);

/* The host bytes a run holds for its state (what max_host_bytes limits). */
uint64_t gpu_run_host_bytes(const gpu_run_t *r);
/* Add an observer with its own sample period (0: events only), before the
 * first gpu_run_advance. At most GPU_MAX_OBSERVERS. */
int gpu_run_add_observer(gpu_run_t *r, gpu_observer_fn fn, void *user, uint64_t sample_every,
                         simt_err_t *err);
/* Count bytes moved per level by transfer time (gpu_run_take_bytes), before
 * the first gpu_run_advance. Costs a little host time per memory access. */
int gpu_run_enable_meters(gpu_run_t *r, simt_err_t *err);
/* Simulate every cycle up to and including `until`, or max_steps run-loop
 * steps (0: no limit) if that comes first. Returns GPU_RUN_MORE (more to
 * do), GPU_RUN_DONE (finished: stats are final) or GPU_RUN_FAILED (err:
 * a kernel fault, the watchdog, an observer's stop); once done or failed
 * it returns the same again. */
int gpu_run_advance(gpu_run_t *r, uint64_t until, uint64_t max_steps, simt_err_t *err);
/* GPU_RUN_MORE, GPU_RUN_DONE or GPU_RUN_FAILED. */
int gpu_run_status(const gpu_run_t *r);
/* Free the run; *st (may be NULL) gets its statistics (partial if it did
 * not finish). Returns 0 if it had finished, else -1 with err (its failure,
 * or SIMT_E_STOPPED for a run ended early). */
int gpu_run_end(gpu_run_t *r, gpu_stats_t *st, simt_err_t *err);

/* A small default description (the edu-tiny preset's values). */
void gpu_desc_default(gpu_desc_t *d);

/* Check a description's fields for sane ranges; names the bad field. */
int gpu_desc_validate(const gpu_desc_t *d, simt_err_t *err);

/* Create a GPU from a description (copied). NULL + err on failure. */
gpu_t *gpu_create(const gpu_desc_t *d, simt_err_t *err);
void gpu_free(gpu_t *g);

const gpu_desc_t *gpu_desc(const gpu_t *g);
mem_t *gpu_mem(gpu_t *g);

/* Device memory (see mem.h for the failure cases). */
int gpu_malloc(gpu_t *g, uint64_t bytes, const char *label, uint32_t *addr, simt_err_t *err);
int gpu_mfree(gpu_t *g, uint32_t addr, simt_err_t *err);
int gpu_write(gpu_t *g, uint32_t addr, const void *src, uint64_t n, simt_err_t *err);
int gpu_read(gpu_t *g, uint32_t addr, void *dst, uint64_t n, simt_err_t *err);

/* Run a kernel to completion. args: nargs 32-bit parameter values, which
 * must equal p->nparams. Launch limits are checked first and named
 * ("block of 2048 threads exceeds 1024"). A kernel fault (out-of-bounds
 * access, deadlock at a barrier, cycle limit) stops the launch with a
 * report naming kernel, pc, source line, block, thread and address; memory
 * written before the fault stays written. Fills *st (may be NULL). */
int gpu_launch(gpu_t *g, const isa_program_t *p, const gpu_launch_t *l,
               const uint32_t *args, uint32_t nargs, gpu_stats_t *st,
               simt_err_t *err);

#endif
