/* cpu.h - a CPU that runs the very same kernels as the GPU: one core
 * (the classroom "one painter") or many cores with SIMD lanes.
 *
 * How a CPU runs a GPU kernel (the way CPU runtimes such as POCL do it):
 * each thread block goes to one core as a whole. The core cuts the block's
 * threads into "thread groups" of simd_width threads (1 on a scalar core,
 * 16 with AVX-512 FP32) and runs group 0 until it reaches bar.sync or
 * exits, then group 1, and so on; when every group has reached the
 * barrier they all go on to the next barrier the same way. A group is a
 * warp_t whose live mask holds simd_width lanes, executed by exec_step, so
 * the results are bit-identical to the GPU's (for kernels without data
 * races) and a divergent branch costs what masked SIMD costs: both paths.
 * Blocks are handed to whichever core becomes free first.
 *
 * The timing model of one core (cpu_desc_t has every number):
 *  - The front end passes up to issue_width instructions per cycle, in
 *    program order; a taken branch ends the cycle's group.
 *  - An instruction starts when its operands are ready (a scoreboard of
 *    per-register ready cycles) and a port of its unit is free (alu, fma,
 *    sfu, load/store ports, each pipelined). Its result is ready `latency`
 *    cycles later; a load's latency comes from the cache hierarchy.
 *  - Out of order, like real server cores: instructions may start before
 *    older ones that wait, but at most rob_size instructions are in flight
 *    (retirement is in order). in_order = 1 makes every instruction wait
 *    for the one before it to start (a simple in-order core).
 *  - Memory: per-core L1 and L2, one L3 shared by all cores, DRAM with
 *    channels and bandwidth (dram.h), all write-back, write-allocate,
 *    64-byte lines, LRU (cache.h tags only). A SIMD load of consecutive
 *    words or one broadcast word costs one port cycle per cache line; any
 *    other pattern is a gather costing one port cycle per lane. Shared
 *    memory is a per-core buffer that stays in L1: lat_l1.
 *  - Stores: a store port writes 32 bytes per cycle on every preset (Zen
 *    4's store data path is 256 bits wide), so a 16-lane (64-byte) store
 *    holds it 2 cycles; a scalar store 1.
 *  - Barriers cost what they cost a real CPU runtime. A thread group that
 *    reaches bar.sync gives the core to the next group, and the next group
 *    needs the SIMD registers: so (like POCL's "context arrays") the group
 *    stores every register that is still needed after the barrier (live:
 *    a liveness analysis of the kernel, cpu_live_in) to a per-core save
 *    area, one SIMD store per register, and loads them back before it runs
 *    on. These accesses go through the caches like any other (a block of
 *    256 threads x 40 live registers saves 40 KB: more than a 32 KB L1),
 *    are timed like the kernel's own loads and stores, and are counted in
 *    spill_instrs / spill_bytes. Real runtimes keep values that are equal
 *    in every thread (n, a loop counter) in one copy; the model saves every
 *    live register, a little more than they do.
 *  - A block costs block_overhead cycles to start (the runtime's work-group
 *    loop); a launch costs launch_us (thread-pool wake-up), reported apart
 *    from the kernel time as for the GPU's launch_us.
 *
 * Not modelled (said here so lessons can say it): hardware prefetchers (a
 * kernel that streams through memory waits for every miss), the limit of
 * 32 SIMD registers (AVX-512) between barriers (a kernel with more live
 * values would spill there too), branch mispredictions,
 * the limit on misses in flight per core (MSHRs), L3 and on-chip network
 * bandwidth, the split of the L3 into per-CCD slices (one L3 of l3_bytes is
 * shared by all cores), frequency changes with load, hyper-threading,
 * compiler optimisations beyond the kernel's own instructions.
 *
 * Deterministic: the cores are simulated in time order (always the core
 * with the smallest clock next, ties by core number).
 */
#ifndef SIMT_CPU_H
#define SIMT_CPU_H

#include <stdint.h>

#include "err.h"
#include "gpu.h"     /* gpu_event_t: one event type for GPU and CPU runs */
#include "isa.h"
#include "mem.h"

#define CPU_MAX_PORTS 8      /* ports per unit                          */
#define CPU_MAX_ROB   1024   /* largest rob_size                        */

/* Everything the simulator knows about a CPU model. A plain value; the
 * presets arch/cpu-core.lua and arch/cpu-server.lua fill it (sim/script
 * lcpu.c). Latencies in core cycles, sizes in bytes. */
typedef struct cpu_desc {
    char name[64];               /* "cpu-server"                            */
    char vendor_name[96];        /* "AMD EPYC 9554 (Zen 4, 64 cores)"      */
    uint32_t cores;              /* cores that run blocks                   */
    uint32_t simd_width;         /* FP32 lanes per SIMD instruction (1..32, a divisor of 32) */
    double clock_mhz;            /* core clock                              */
    uint32_t issue_width;        /* instructions the front end passes per cycle */
    uint32_t rob_size;           /* instructions in flight (reorder buffer) */
    uint32_t in_order;           /* 1: no instruction starts before an older one */
    uint32_t alu_ports, fma_ports, sfu_ports; /* pipelined units of each kind */
    uint32_t load_ports, store_ports;         /* SIMD memory accesses per cycle */
    uint32_t sfu_interval;       /* cycles an SFU port is busy (div, sqrt)  */
    uint32_t lat_alu, lat_fma, lat_sfu;       /* cycles to result           */
    uint32_t line_bytes;         /* cache line (64)                         */
    uint32_t l1_bytes, l1_assoc, lat_l1;      /* per core, load-to-use      */
    uint32_t l2_bytes, l2_assoc, lat_l2;      /* per core                   */
    uint32_t l3_bytes, l3_assoc, lat_l3;      /* shared by all cores        */
    uint32_t lat_dram;           /* load-to-use from DRAM, unloaded         */
    double dram_gbps;            /* DRAM bandwidth the cores can use, GB/s  */
    double dram_efficiency;      /* usable fraction of dram_gbps, (0, 1]    */
    uint32_t dram_channels;      /* independent DRAM channels               */
    uint32_t block_overhead;     /* cycles to start one block on a core     */
    double launch_us;            /* host-side cost of one launch            */
    uint64_t mem_bytes;          /* memory capacity                         */
    uint32_t max_threads_per_block; /* launch limit (like the GPU's)        */
    uint32_t smem_per_block;     /* most shared memory a block may use      */
    uint32_t max_regs_per_thread; /* most registers a kernel may use (1..255;
                                    a CPU runtime keeps them in memory, so
                                    the presets allow the ISA's 255)        */
    double tdp_watts;            /* for energy estimates: TDP x time        */
    double price_per_hour;       /* USD, cloud list price (0: unknown)      */
} cpu_desc_t;

/* Where the cores' time went, in core-cycles (summed over cores, so they
 * add up to cycles x cores). */
typedef enum cpu_time {
    CPU_T_COMPUTE,   /* issuing, or waiting on arithmetic results           */
    CPU_T_MEMORY,    /* waiting on data from L2, L3 or DRAM                 */
    CPU_T_OVERHEAD,  /* starting blocks (the runtime's work-group loop)     */
    CPU_T_IDLE,      /* no block left for this core while others still run  */
    CPU_T_COUNT
} cpu_time_t;

/* Results of one launch. */
typedef struct cpu_stats {
    uint64_t cycles;             /* core cycles from start to last retire   */
    double time_us;              /* cycles / clock (launch_us not included) */
    uint64_t instrs;             /* SIMD (thread-group) instructions        */
    uint64_t thread_instrs;      /* sum of active lanes over instructions   */
    uint64_t flops;              /* floating-point operations (fma = 2)     */
    uint64_t blocks, threads;    /* run                                     */
    uint32_t cores_used;         /* min(cores, blocks)                      */
    uint64_t ld_bytes, st_bytes; /* global bytes asked for by active lanes  */
    uint64_t gathers;            /* SIMD accesses that were not contiguous  */
    uint64_t l1_hits, l1_misses, l2_hits, l2_misses, l3_hits, l3_misses; /* lines */
    uint64_t dram_bytes;         /* read for misses + written back          */
    uint64_t time[CPU_T_COUNT];  /* core-cycles per cpu_time_t              */
    uint64_t spill_instrs;       /* SIMD register saves + restores at barriers
                                    (not counted in instrs)                  */
    uint64_t spill_bytes;        /* bytes they moved (not in ld/st_bytes)    */
} cpu_stats_t;

#define CPU_DEFAULT_MAX_INSTRS 4000000000ull

/* A launch: grid and block shape and the watchdog. */
typedef struct cpu_launch {
    uint32_t grid[3];            /* blocks in x, y, z (0 is read as 1)      */
    uint32_t block[3];           /* threads in x, y, z (0 is read as 1)     */
    uint64_t max_instrs;         /* SIMD instructions before SIMT_E_TIMEOUT;
                                    0 = CPU_DEFAULT_MAX_INSTRS              */
    int warm_caches;             /* 1: keep cache contents from the last launch */
    uint64_t max_cycles;         /* stop with SIMT_E_TIMEOUT when a core's clock
                                    reaches this; 0 = no cycle limit        */
} cpu_launch_t;

typedef struct cpu cpu_t;

/* A small single-core scalar description (the cpu-core preset's values). */
void cpu_desc_default(cpu_desc_t *d);

/* Check every field's range; names the bad field (SIMT_E_USAGE). */
int cpu_desc_validate(const cpu_desc_t *d, simt_err_t *err);

/* Create a CPU from a description (copied): caches and DRAM timelines.
 * NULL + err (SIMT_E_USAGE, SIMT_E_NOMEM) on failure. */
cpu_t *cpu_create(const cpu_desc_t *d, simt_err_t *err);
void cpu_free(cpu_t *c);
const cpu_desc_t *cpu_desc(const cpu_t *c);

/* Liveness of p's registers: live[pc] (pc = 0 .. p->ncode, so ncode + 1
 * entries) holds register r when r may be read at or after pc before it
 * is surely written (a guarded write does not count). The registers saved
 * and restored at a bar.sync at pc are live[pc + 1]. Fails only with
 * SIMT_E_NOMEM. */
int cpu_live_in(const isa_program_t *p, isa_regset_t *live, simt_err_t *err);

/* Run kernel p over memory m (which the caller owns: the same mem_t type
 * a GPU uses, so data and addresses are the same as on a GPU). args: nargs
 * 32-bit values, nargs == p->nparams. Fails with SIMT_E_LAUNCH (bad
 * shape, too many threads or too much shared memory), SIMT_E_MEM /
 * SIMT_E_KERNEL (a kernel fault, reported as on the GPU), SIMT_E_TIMEOUT
 * (watchdog) or SIMT_E_NOMEM; memory written before a fault stays written.
 * Fills *st (may be NULL). */
int cpu_launch(cpu_t *c, mem_t *m, const isa_program_t *p, const cpu_launch_t *l,
               const uint32_t *args, uint32_t nargs, cpu_stats_t *st, simt_err_t *err);

/* ---- a launch in steps (as gpu_run_*, gpu.h) ------------------------------
 * The same launch advanced in any slices gives the same results and
 * statistics as cpu_launch. An observer sees gpu_event_t events: BLOCK_START
 * and BLOCK_END (sm = the core, ctaid = the block), SAMPLE every
 * sample_every cycles, DONE. The program, the CPU and the memory must
 * outlive the run; the arguments are copied. */
typedef struct cpu_run cpu_run_t;
typedef int (*cpu_observer_fn)(void *user, const cpu_run_t *run, const gpu_event_t *ev);
enum { CPU_RUN_FAILED = -1, CPU_RUN_MORE = 0, CPU_RUN_DONE = 1 };

/* What one core is doing, as the window shows it. */
typedef struct cpu_core_view {
    int busy;                    /* running a block                         */
    uint32_t ctaid[3];           /* that block                              */
    uint32_t group;              /* the thread group executing              */
    uint32_t pc, line;           /* its next instruction and source line    */
    uint8_t unit;                /* isa_unit_t of that instruction (UNIT_COUNT: idle) */
    uint64_t cycle;              /* the core's own clock                    */
} cpu_core_view_t;

cpu_run_t *cpu_run_begin(cpu_t *c, mem_t *m, const isa_program_t *p, const cpu_launch_t *l,
                         const uint32_t *args, uint32_t nargs, simt_err_t *err);
/* Set the (one) observer, before the first cpu_run_advance. */
int cpu_run_observe(cpu_run_t *r, cpu_observer_fn fn, void *user, uint64_t sample_every, simt_err_t *err);
/* Run until every core has passed cycle `until`, or max_steps instructions
 * (0: no limit). CPU_RUN_MORE, CPU_RUN_DONE or CPU_RUN_FAILED (err). */
int cpu_run_advance(cpu_run_t *r, uint64_t until, uint64_t max_steps, simt_err_t *err);
int cpu_run_status(const cpu_run_t *r);
uint64_t cpu_run_cycle(const cpu_run_t *r);              /* every core got here */
const cpu_stats_t *cpu_run_stats(const cpu_run_t *r);    /* running totals      */
const cpu_desc_t *cpu_run_desc(const cpu_run_t *r);
const isa_program_t *cpu_run_program(const cpu_run_t *r);
uint32_t cpu_run_cores(const cpu_run_t *r);              /* cores in use        */
uint64_t cpu_run_blocks_done(const cpu_run_t *r);
uint64_t cpu_run_blocks_total(const cpu_run_t *r);
uint32_t cpu_run_groups_per_block(const cpu_run_t *r);   /* thread groups per block */
int cpu_run_core(const cpu_run_t *r, uint32_t core, cpu_core_view_t *out);  /* -1: no such core */
/* Free the run; *st gets its statistics. 0 if it had finished, else -1. */
int cpu_run_end(cpu_run_t *r, cpu_stats_t *st, simt_err_t *err);

#endif
