/* cpu_int.h - inside the CPU model (internal; the interface is cpu.h): a
 * core, the CPU and a launch in progress, shared by cpu.c (cores, blocks,
 * thread groups and the run loop) and cpu_time.c (the timing of one
 * instruction on a core's pipeline, its caches and DRAM, and the
 * registers a group saves and reloads at a barrier).
 */
#ifndef SIMT_CPU_INT_H
#define SIMT_CPU_INT_H

#include "cpu.h"
#include "cache.h"
#include "dram.h"
#include "exec.h"
#include "sm.h"      /* sm_deps_t, sm_decode_deps: operands of each instruction */
#include "warp.h"

#define CPU_TICKS_PER_CYCLE 1024u  /* DRAM timeline resolution (dram.h) */

/* Where the work-items' saved registers (the "context arrays" of a CPU
 * runtime, see cpu.h) live in the cache model's address space: the window
 * [CPU_CTX_BASE, 2^32), 1 GB. Core i's area starts at i * CPU_CTX_BYTES in
 * it and holds CPU_CTX_REGS registers x 4096 threads (the largest block
 * cpu_desc_validate allows) x 4 bytes, so 1024 cores fill the window.
 * Register r of a thread lies r x (threads of the block) words into its
 * core's area; the registers from %r64 on (ISA_NUM_REGS is 255) run past
 * it into the next cores' areas, and offsets wrap around inside the window
 * (ctx_addr): an alias changes only cache timing, never data (the caches
 * hold tags only). Device allocations (mem.c) start near 0 and would have
 * to pass 3 GB to alias it. */
#define CPU_CTX_BASE   0xC0000000u
#define CPU_CTX_WINDOW 0x40000000u
#define CPU_CTX_REGS   64u
#define CPU_CTX_BYTES  (CPU_CTX_REGS * 4096u * 4u)

/* Bytes one store port writes per cycle: a SIMD store of more (a 64-byte
 * AVX-512 store on Zen 4, whose store data path is 256 bits wide) holds
 * its port for bytes / 32 cycles. Scalar stores take one cycle. */
#define CPU_STORE_BYTES_PER_CYCLE 32u

/* One core: its caches, its pipeline state and the block it runs. */
typedef struct cpu_core {
    cache_t l1, l2;              /* private caches (tags only)               */
    /* pipeline */
    uint64_t fe;                 /* front end: cycle the next instruction dispatches */
    uint32_t fe_used;            /* instructions dispatched in cycle fe      */
    uint64_t port_free[UNIT_COUNT + 1][CPU_MAX_PORTS]; /* cycle each port is free;
                                    row UNIT_COUNT holds the store ports     */
    uint64_t *rob;               /* rob_size retire cycles (a ring); owned   */
    uint8_t *rob_mem;            /* 1: that retire time was set by memory    */
    uint64_t n;                  /* instructions dispatched (ring position)  */
    uint64_t last_start;         /* start cycle of the newest instruction    */
    uint64_t last_retire;        /* retire cycle of the newest instruction   */
    uint8_t last_retire_mem;     /* ... set by a memory wait                 */
    uint8_t finished;            /* no block left for this core             */
    uint64_t end;                /* cycle its last instruction retired       */
    uint64_t time[CPU_T_COUNT];  /* cycles by cpu_time_t                     */
    /* the block it runs (groups, registers and shared memory: per launch) */
    int busy;                    /* a block is running                       */
    uint32_t ctaid[3];           /* that block                               */
    warp_t *groups;              /* ngroups thread groups; owned per launch  */
    uint32_t *regs;              /* ngroups x nregs x 32 registers           */
    uint64_t *ready;             /* ngroups x nregs: their scoreboard        */
    uint8_t *smem;               /* the block's shared memory                */
    uint32_t cur;                /* group executing now                      */
    uint32_t live;               /* groups not done                          */
    uint32_t at_bar;             /* groups waiting at bar.sync               */
    uint32_t bar_pc;             /* the bar.sync they wait at (at_bar > 0)   */
    isa_regset_t *fill;          /* per group: registers saved at its last
                                    barrier, to reload before it runs on;
                                    owned per launch                         */
    uint8_t *filled;             /* per group: 1 if fill is not empty        */
    uint32_t ctx_off;            /* this core's context area: offset in the
                                    CPU_CTX_BASE window                      */
} cpu_core_t;

struct cpu {
    cpu_desc_t d;                /* copied at create                         */
    cpu_core_t *core;            /* d.cores entries; owned                   */
    cache_t l3;                  /* shared by all cores                      */
    dram_t dram;                 /* channels and their timelines             */
};

/* What one launch shares between cores: a launch in progress. */
struct cpu_run {
    const isa_program_t *prog;
    sm_deps_t *deps;             /* prog->ncode entries; owned               */
    isa_regset_t *live;          /* prog->ncode + 1 entries: registers live
                                    before each pc (live_in); owned          */
    mem_t *mem;
    const uint32_t *params;
    uint32_t grid[3], block[3];
    uint32_t threads;            /* per block                                */
    uint32_t ngroups;            /* thread groups per block                  */
    uint32_t nregs;              /* registers per thread (at least 1)        */
    uint64_t nblocks, next_block;
    uint64_t max_instrs;
    uint64_t max_cycles;         /* 0: none                                  */
    cpu_stats_t *st;             /* = &stats                                 */
    /* a launch in steps (cpu_run_begin .. cpu_run_end) */
    cpu_t *cpu;
    cpu_stats_t stats;           /* running totals, final when done          */
    uint32_t args[ISA_MAX_PARAMS]; /* the kernel's arguments, copied         */
    uint32_t ncores;             /* cores in use: min(cores, blocks)         */
    uint64_t blocks_done;
    int in_burst;                /* core `best` runs until it passes `second` */
    uint32_t best;
    uint64_t second;
    uint64_t now;                /* cycle every core has reached             */
    cpu_observer_fn observe;     /* optional                                 */
    void *observe_user;
    uint64_t sample_every, next_sample;
    int state;                   /* CPU_RUN_MORE, _DONE, _FAILED             */
    simt_err_t err;
};

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* cpu_time.c: time one instruction of group w on core k (cpu.h has the
 * model): dep its operands, info what exec_step did (or a register save or
 * restore: ctx = 1, counted in spill_bytes instead of the global bytes).
 * `taken`: a branch that jumped. */
void cpu_time_instr(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, warp_t *w, const sm_deps_t *dep,
                    const exec_info_t *info, int taken, int ctx);

/* cpu_time.c: group g of core k has just executed the bar.sync at pc:
 * store every register live after it (cpu_save_regs); group g is about to
 * run again after a barrier: reload them (cpu_restore_regs). */
void cpu_save_regs(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, uint32_t g, uint32_t pc);
void cpu_restore_regs(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, uint32_t g);

#endif
