/* gpu.c - the GPU as a whole: launch limits, occupancy, the block
 * dispatcher and the run loop (the description's defaults and checks:
 * gpu_desc.c).
 *
 * The run loop (gpu_launch) steps SMs in time order: at each step it takes
 * the earliest cycle at which any SM has something to do and simulates that
 * cycle on every such SM, in SM order (so the result never depends on
 * anything but the inputs). Cycles where no SM can issue are skipped. When a
 * block finishes, the dispatcher places the next waiting block on that SM,
 * so a grid with more blocks than fit runs in waves. In a cluster launch it
 * places whole clusters instead, each CTA on a different SM, when that many
 * SMs have room (place_cluster); an SM of a cluster that another SM's
 * instruction reaches (a remote mbarrier arrival, a multicast copy, a
 * barrier.cluster release) is woken for the next cycle (sm_async.c
 * wake_sm), so the run loop's skipping stays exact.
 */
#define _DEFAULT_SOURCE   /* madvise (Linux: huge pages for the SMs' state) */
#include "gpu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "check.h"
#include "memsys.h"
#include "meter.h"
#include "power.h"
#include "rates.h"
#include "sm.h"

struct gpu {
    gpu_desc_t desc;      /* copied at create                          */
    mem_t mem;            /* device memory                              */
    memsys_t memsys;      /* caches and DRAM timing, kept across launches */
};

static void block_index(uint64_t i, const uint32_t grid[3], uint32_t out[3]);

/* One observer of a run and its sample clock. */
typedef struct gpu_observer {
    gpu_observer_fn fn;
    void *user;
    uint64_t every;       /* sample period (0: no samples)              */
    uint64_t next;        /* cycle of its next sample                   */
} gpu_observer_t;

/* A launch in progress (gpu_run_begin .. gpu_run_end). Owns everything
 * the launch allocated; observers see it read-only. */
struct gpu_run {
    gpu_t *g;
    sm_launch_t l;        /* what the SMs share                         */
    gpu_stats_t st;       /* running totals, final after the last step  */
    uint32_t args[ISA_MAX_PARAMS]; /* the kernel's arguments, copied    */
    sm_t *sms;
    uint32_t nsm;
    uint64_t now;         /* the cycle simulated up to                  */
    uint64_t waiting;     /* blocks not yet placed                      */
    uint64_t nblocks, nclusters;
    uint64_t next_block;  /* next block (cluster, in a cluster launch) to place */
    uint64_t max_cycles, max_instrs;
    uint32_t occ;         /* blocks that fit on one SM                  */
    uint32_t placed_max;  /* most blocks resident on one SM at a time   */
    const char *limit;    /* what limits it                             */
    sm_deps_t *deps;      /* per pc; owned                              */
    sm_cluster_t *table;  /* clusters in flight; owned (NULL: none)     */
    uint32_t ntable;
    uint8_t *sm_state;    /* every SM's warps and registers; owned      */
    gpu_observer_t obs[GPU_MAX_OBSERVERS];
    uint32_t nobs;
    meter_t meter[GPU_LEVEL_COUNT]; /* bytes moved by cycle (if metered) */
    int metered;
    int started;          /* the first wave has been placed             */
    uint64_t host_bytes;  /* the state below, as gpu_run_begin counted it */
    int state;            /* GPU_RUN_MORE, GPU_RUN_DONE, GPU_RUN_FAILED */
    simt_err_t err;       /* why it failed                              */
};

uint64_t gpu_run_cycle(const gpu_run_t *r) { return r->now; }
uint64_t gpu_run_host_bytes(const gpu_run_t *r) { return r->host_bytes; }
const gpu_stats_t *gpu_run_stats(const gpu_run_t *r) { return &r->st; }
const gpu_desc_t *gpu_run_desc(const gpu_run_t *r) { return &r->g->desc; }
const isa_program_t *gpu_run_program(const gpu_run_t *r) { return r->l.prog; }
uint32_t gpu_run_sms(const gpu_run_t *r) { return r->nsm; }
uint32_t gpu_run_warp_slots(const gpu_run_t *r) { return r->nsm ? r->sms[0].nwarps : 0; }
uint64_t gpu_run_blocks_waiting(const gpu_run_t *r) { return r->waiting; }
uint64_t gpu_run_blocks_total(const gpu_run_t *r) { return r->nblocks; }

uint32_t gpu_run_blocks_resident(const gpu_run_t *r, uint32_t sm)
{
    return sm < r->nsm ? r->sms[sm].blocks_used : 0;
}

int gpu_run_warp(const gpu_run_t *r, uint32_t sm, uint32_t slot, gpu_warp_view_t *out)
{
    if (sm >= r->nsm || slot >= r->sms[sm].nwarps)
        return -1;
    const sm_t *s = &r->sms[sm];
    const warp_t *w = &s->warps[slot];
    memset(out, 0, sizeof *out);
    out->status = sm_warp_status(s, slot, r->now);
    if (out->status == WS_EMPTY)
        return 0;
    out->pc = warp_pc(w);
    out->line = out->pc < r->l.prog->ncode ? r->l.prog->code[out->pc].line : 0;
    out->issued_unit = w->issued_at != UINT64_MAX && w->issued_pc < r->l.prog->ncode
                       ? isa_instr_unit(&r->l.prog->code[w->issued_pc]) : UNIT_COUNT;
    out->active = warp_mask(w);
    out->live = w->live;
    memcpy(out->ctaid, s->blocks[w->block_slot].ctaid, sizeof out->ctaid);
    out->warp_in_block = w->warp_in_block;
    return 0;
}

uint32_t gpu_run_mem_inflight(const gpu_run_t *r, uint32_t sm)
{
    if (sm >= r->nsm)
        return 0;
    const memsys_t *ms = &r->g->memsys;
    uint32_t n = 0;
    uint64_t t = r->now * MEMSYS_TICKS_PER_CYCLE;
    for (uint32_t i = 0; i < ms->cfg.max_mem_inflight; i++)
        n += ms->sm[sm].mshr[i] > t;
    return n;
}

/* Place block idx on SM i at cycle `at` (as CTA `rank` of cluster cl, or
 * cl NULL), telling the observer. */
static int place_at(gpu_run_t *run, uint32_t i, const uint32_t idx[3], uint64_t at, sm_cluster_t *cl,
                    uint32_t rank)
{
    sm_launch_t *l = &run->l;
    int slot = sm_place_block(&run->sms[i], l, idx, at, cl, rank);
    if (slot < 0)
        return -1;
    run->waiting--;
    if (run->sms[i].blocks_used > run->placed_max)
        run->placed_max = run->sms[i].blocks_used;
    if (l->observe) {
        gpu_event_t ev = { .kind = GPU_EV_BLOCK_START, .cycle = at, .sm = i };
        memcpy(ev.ctaid, idx, sizeof ev.ctaid);
        ev.slot = ev.block_slot = (uint32_t)slot;
        sm_notify(l, &ev);
    }
    return 0;
}

/* Place block number `b` on SM i at cycle `at`. */
static int place(gpu_run_t *run, uint32_t i, uint64_t b, uint64_t at)
{
    uint32_t idx[3];
    block_index(b, run->l.grid, idx);
    return place_at(run, i, idx, at, NULL, 0);
}

/* Place cluster number c (clusters numbered x fastest over the grid /
 * cluster shape) at cycle `at`, all its CTAs at once on distinct SMs:
 * those with the fewest resident blocks, lowest number first (a first
 * wave thus fills every SM once before any twice). If fewer SMs than it
 * has CTAs have a free block slot, it waits (returns -1). Simplification:
 * the real chip keeps a cluster inside one GPC (H100: 7-8 GPCs of 16-18
 * SMs), which can leave a few SMs without a cluster; not modelled. */
static int place_cluster(gpu_run_t *run, sm_cluster_t *table, uint32_t ntable, uint64_t c, uint64_t at)
{
    sm_launch_t *l = &run->l;
    uint32_t n = l->cluster_size, pick[ISA_MAX_CLUSTER];
    for (uint32_t r = 0; r < n; r++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < run->nsm; i++) {
            const sm_t *sm = &run->sms[i];
            int taken = 0;
            for (uint32_t q = 0; q < r; q++)
                taken |= pick[q] == i;
            if (taken || sm->blocks_used >= sm->nblocks)
                continue;
            if (best == UINT32_MAX || sm->blocks_used < run->sms[best].blocks_used)
                best = i;
        }
        if (best == UINT32_MAX)
            return -1;
        pick[r] = best;
    }
    sm_cluster_t *cl = NULL;
    for (uint32_t k = 0; k < ntable && !cl; k++)
        if (table[k].live == 0)
            cl = &table[k];
    if (!cl)
        return -1;   /* not reached: the table has an entry per block slot */
    uint32_t ncl[3], cid[3];
    for (int a = 0; a < 3; a++)
        ncl[a] = l->grid[a] / l->cluster[a];
    block_index(c, ncl, cid);
    memset(cl, 0, sizeof *cl);
    cl->x.size = n;
    memcpy(cl->x.dim, l->cluster, sizeof cl->x.dim);
    memcpy(cl->x.id, cid, sizeof cl->x.id);
    cl->live = n;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t loc[3], idx[3];
        block_index(r, l->cluster, loc);
        for (int a = 0; a < 3; a++)
            idx[a] = cid[a] * l->cluster[a] + loc[a];
        if (place_at(run, pick[r], idx, at, cl, r) != 0)
            return -1;   /* not reached: pick[] had free slots */
    }
    return 0;
}

/* Host memory the simulator may use for device allocations. */
#define GPU_HOST_LIMIT (4ull << 30)

gpu_t *gpu_create(const gpu_desc_t *d, simt_err_t *err)
{
    if (gpu_desc_validate(d, err) != 0)
        return NULL;
    gpu_t *g = calloc(1, sizeof *g);
    if (!g) {
        simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        return NULL;
    }
    g->desc = *d;
    mem_init(&g->mem, d->mem_bytes, GPU_HOST_LIMIT);
    memsys_cfg_t mc;
    memsys_cfg_from_desc(&mc, d);
    if (memsys_init(&g->memsys, &mc, err) != 0) {
        free(g);
        return NULL;
    }
    return g;
}

void gpu_free(gpu_t *g)
{
    if (!g)
        return;
    mem_free_all(&g->mem);
    memsys_free(&g->memsys);
    free(g);
}

const gpu_desc_t *gpu_desc(const gpu_t *g) { return &g->desc; }
mem_t *gpu_mem(gpu_t *g) { return &g->mem; }

int gpu_malloc(gpu_t *g, uint64_t bytes, const char *label, uint32_t *addr, simt_err_t *err)
{
    return mem_alloc(&g->mem, bytes, label, addr, err);
}

int gpu_mfree(gpu_t *g, uint32_t addr, simt_err_t *err) { return mem_release(&g->mem, addr, err); }

int gpu_write(gpu_t *g, uint32_t addr, const void *src, uint64_t n, simt_err_t *err)
{
    return mem_write(&g->mem, addr, src, n, err);
}

int gpu_read(gpu_t *g, uint32_t addr, void *dst, uint64_t n, simt_err_t *err)
{
    return mem_read(&g->mem, addr, dst, n, err);
}

/* ---- launch checks and occupancy ------------------------------------------ */

static uint32_t ceil_div(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

/* Check a launch against the GPU's limits; fill the derived shape. */
static int check_launch(const gpu_t *g, const isa_program_t *p, const gpu_launch_t *in,
                        uint32_t nargs, uint32_t grid[3], uint32_t block[3], simt_err_t *err)
{
    const gpu_desc_t *d = &g->desc;
    static const char axis[3] = { 'x', 'y', 'z' };
    if (nargs != p->nparams) {
        char names[ISA_MAX_PARAMS * (ISA_NAME_MAX + 2)] = "";
        for (uint32_t i = 0; i < p->nparams; i++) {
            if (i) strcat(names, ", ");
            strcat(names, p->params[i]);
        }
        return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' takes %" PRIu32 " argument%s (%s), got %" PRIu32,
                         p->name, p->nparams, p->nparams == 1 ? "" : "s", names, nargs);
    }
    for (int i = 0; i < 3; i++) {
        grid[i] = in->grid[i] ? in->grid[i] : 1;
        block[i] = in->block[i] ? in->block[i] : 1;
        if (grid[i] > d->max_grid[i])
            return simt_errf(err, SIMT_E_LAUNCH, "grid %c dimension %" PRIu32 " exceeds the limit of %" PRIu32 " on %s",
                             axis[i], grid[i], d->max_grid[i], d->name);
    }
    if (block[2] > 64)
        return simt_errf(err, SIMT_E_LAUNCH, "block z dimension %" PRIu32 " exceeds the limit of 64", block[2]);
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (threads > d->max_threads_per_block)
        return simt_errf(err, SIMT_E_LAUNCH, "block of %" PRIu64 " threads (%" PRIu32 " x %" PRIu32 " x %" PRIu32
                         ") exceeds %" PRIu32 ", the most threads per block on %s",
                         threads, block[0], block[1], block[2], d->max_threads_per_block, d->name);
    if (threads > d->max_threads_per_sm)
        return simt_errf(err, SIMT_E_LAUNCH, "block of %" PRIu64 " threads does not fit an SM of %s (%" PRIu32 " threads)",
                         threads, d->name, d->max_threads_per_sm);
    uint32_t csize = 1;
    for (int i = 0; i < 3; i++) {
        uint32_t c = in->cluster[i] ? in->cluster[i] : 1;
        csize *= c <= GPU_MAX_CLUSTER ? c : GPU_MAX_CLUSTER + 1;
        if (grid[i] % c != 0)
            return simt_errf(err, SIMT_E_LAUNCH, "grid %c dimension %" PRIu32 " is not a multiple of the "
                             "cluster's %" PRIu32 " (a cluster's CTAs tile the grid)", axis[i], grid[i], c);
    }
    if (csize > 1 && d->max_cluster_size <= 1)
        return simt_errf(err, SIMT_E_LAUNCH, "%s has no thread-block clusters (max_cluster_size 1; they "
                         "came with Hopper, compute capability 9.0): launch without cluster = {...}", d->name);
    if (csize > d->max_cluster_size)
        return simt_errf(err, SIMT_E_LAUNCH, "cluster of %s%" PRIu32 " CTAs (%" PRIu32 " x %" PRIu32 " x %" PRIu32
                         ") exceeds %" PRIu32 ", the most CTAs per cluster on %s",
                         csize > GPU_MAX_CLUSTER ? "more than " : "", csize > GPU_MAX_CLUSTER ? GPU_MAX_CLUSTER : csize,
                         in->cluster[0] ? in->cluster[0] : 1, in->cluster[1] ? in->cluster[1] : 1,
                         in->cluster[2] ? in->cluster[2] : 1, d->max_cluster_size, d->name);
    if (csize > d->sms)
        return simt_errf(err, SIMT_E_LAUNCH, "a cluster of %" PRIu32 " CTAs needs as many SMs at once; %s has %"
                         PRIu32, csize, d->name, d->sms);
    if (p->shared_bytes > d->smem_per_block)
        return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' needs %" PRIu32 " bytes of shared memory per block; "
                         "%s allows %" PRIu32, p->name, p->shared_bytes, d->name, d->smem_per_block);
    return 0;
}

/* Registers one block occupies, rounded the way the hardware allocates. */
static uint64_t block_regs(const gpu_desc_t *d, const isa_program_t *p, uint32_t warps)
{
    uint32_t per_thread = p->nregs ? p->nregs : 1;
    uint64_t per_warp = (uint64_t)per_thread * 32;
    per_warp = (per_warp + d->reg_alloc_unit - 1) / d->reg_alloc_unit * d->reg_alloc_unit;
    return per_warp * warps;
}

/* Resident blocks per SM, and which resource limits it. */
static uint32_t occupancy(const gpu_desc_t *d, const isa_program_t *p, uint32_t warps, const char **limit)
{
    uint32_t best = d->max_blocks_per_sm;
    *limit = "blocks per SM";
    uint32_t by_threads = d->max_threads_per_sm / (warps * 32);
    if (by_threads < best) { best = by_threads; *limit = "threads per SM"; }
    uint32_t by_regs = (uint32_t)(d->regs_per_sm / block_regs(d, p, warps));
    if (by_regs < best) { best = by_regs; *limit = "registers"; }
    if (p->shared_bytes) {
        uint32_t by_smem = d->smem_per_sm / p->shared_bytes;
        if (by_smem < best) { best = by_smem; *limit = "shared memory"; }
    }
    return best;
}

/* ---- the run loop ---------------------------------------------------------- */

/* Block number i of the grid as (x, y, z), x fastest. */
static void block_index(uint64_t i, const uint32_t grid[3], uint32_t out[3])
{
    out[0] = (uint32_t)(i % grid[0]);
    out[1] = (uint32_t)(i / grid[0] % grid[1]);
    out[2] = (uint32_t)(i / ((uint64_t)grid[0] * grid[1]));
}

static void set_unit_timing(const gpu_desc_t *d, sm_launch_t *l)
{
    uint32_t s = d->schedulers_per_sm;
    /* a warp of 32 lanes passes through a unit with k lanes per scheduler in 32/k cycles */
    l->issue_interval[UNIT_ALU] = ceil_div(32ull * s, d->int_lanes_per_sm);
    l->issue_interval[UNIT_FMA] = ceil_div(32ull * s, d->fp32_lanes_per_sm);
    l->issue_interval[UNIT_SFU] = ceil_div(32ull * s, d->sfu_lanes_per_sm);
    l->issue_interval[UNIT_LSU] = ceil_div(32ull * s, d->lsu_lanes_per_sm);
    l->issue_interval[UNIT_BRANCH] = 1;
    l->issue_interval[UNIT_BAR] = 1;
    l->latency[UNIT_ALU] = d->lat_alu;
    l->latency[UNIT_FMA] = d->lat_fma;
    l->latency[UNIT_SFU] = d->lat_sfu;
    l->latency[UNIT_LSU] = d->lat_smem;
    l->latency[UNIT_BRANCH] = d->lat_branch;
    l->latency[UNIT_BAR] = 1;
    /* Tensor Core: each scheduler has rate / s FLOP per clock, so a
     * wmma.mma of F FLOP holds it ceil(F * s / rate) cycles (0 = none).
     * rate is the warp-level (mma.sync) rate, which on Hopper is below
     * the datasheet's tc_flops_per_clk (see gpu.h). */
    l->issue_interval[UNIT_TENSOR] = 1;
    l->latency[UNIT_TENSOR] = d->lat_tensor;
    const isa_type_t tc_types[5] = { T_F16, T_BF16, T_TF32, T_E4M3, T_E5M2 };
    for (int i = 0; i < 5; i++) {
        uint32_t rate = gpu_tc_sync_flops_per_clk(d, tc_types[i]);
        l->tc_interval[tc_types[i]] = rate ? (uint32_t)ceil_div((uint64_t)isa_mma_flops(tc_types[i]) * s, rate) : 0;
        l->tc_rate[tc_types[i]] = gpu_tc_flops_per_clk(d, tc_types[i]);   /* wgmma: full rate */
    }
}

uint32_t gpu_tc_flops_per_clk(const gpu_desc_t *d, isa_type_t t)
{
    switch (t) {
    case T_F16: return d->tc_flops_per_clk_f16;
    case T_BF16: return d->tc_flops_per_clk_bf16;
    case T_TF32: return d->tc_flops_per_clk_tf32;
    case T_E4M3: case T_E5M2: return d->tc_flops_per_clk_fp8;
    default: return 0;
    }
}

uint32_t gpu_tc_sync_flops_per_clk(const gpu_desc_t *d, isa_type_t t)
{
    uint32_t peak = gpu_tc_flops_per_clk(d, t);
    uint32_t sync = 0;
    switch (t) {
    case T_F16: sync = d->tc_sync_flops_per_clk_f16; break;
    case T_BF16: sync = d->tc_sync_flops_per_clk_bf16; break;
    case T_TF32: sync = d->tc_sync_flops_per_clk_tf32; break;
    case T_E4M3: case T_E5M2: sync = d->tc_sync_flops_per_clk_fp8; break;
    default: break;
    }
    return peak == 0 ? 0 : sync != 0 ? sync : peak;
}

/* A wmma.mma in a format the GPU has no Tensor Core for, or a wgmma on a
 * GPU without warpgroup MMA: report it. */
static int check_tensor_formats(const gpu_desc_t *d, const isa_program_t *p, simt_err_t *err)
{
    for (uint32_t pc = 0; pc < p->ncode; pc++) {
        const isa_instr_t *in = &p->code[pc];
        if ((in->op == OP_WGMMA || in->op == OP_WGMMA_WAIT) && !d->wgmma)
            return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' line %" PRIu32 ": %s has no warpgroup MMA "
                             "(wgmma is Hopper's, compute capability 9.0; its preset has wgmma = 0)",
                             p->name, in->line, d->name);
        if ((in->op == OP_WMMA_MMA || in->op == OP_WGMMA) && gpu_tc_flops_per_clk(d, (isa_type_t)in->type) == 0)
            return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' line %" PRIu32 ": %s has no %s Tensor Core "
                             "(its tc_flops_per_clk for %s is 0)", p->name, in->line, d->name,
                             isa_type_name((isa_type_t)in->type), isa_type_name((isa_type_t)in->type));
    }
    return 0;
}

static int timeout(const sm_t *sms, uint32_t nsm, const sm_launch_t *l,
                   uint64_t now, simt_err_t *err)
{
    char where[700] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < nsm && used < sizeof where - 100; i++) {
        sm_describe_warps(&sms[i], l, where + used, sizeof where - used);
        used = strlen(where);
    }
    if (now == SM_BLOCKED)   /* only warps waiting on mbarriers are left */
        return simt_errf(err, SIMT_E_TIMEOUT, "kernel '%s' is stuck: every warp still running waits on an "
                         "mbarrier phase that nothing can complete any more (fewer arrivals or bulk-copy "
                         "bytes than the mbarrier expects?) or at a barrier.cluster some warp never reaches:\n%s", l->prog->name, where);
    return simt_errf(err, SIMT_E_TIMEOUT,
                     "kernel '%s' did not finish after %" PRIu64 " cycles and %" PRIu64 " warp instructions "
                     "(an endless loop? raise max_cycles / max_warp_instrs if it is just long); warps still running:\n%s",
                     l->prog->name, now, l->st->warp_instrs, where);
}

/* Host memory for every SM's state (sm_host_bytes each), aligned to 128
 * bytes, not zeroed (sm_init zeroes what needs it); NULL if out of memory;
 * free with free(). The run loop touches it at random every simulated
 * cycle: for an H200 (132 SMs x 64 warps) that is tens of MB, so where the
 * host has transparent huge pages it asks for them (2 MB pages need 512
 * times fewer TLB entries than 4 KB ones). */
static void *alloc_sm_state(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    size_t align = bytes >= huge / 2 ? huge : 128;
    size_t n = (bytes + align - 1) / align * align;
    void *p = aligned_alloc(align, n ? n : align);
    if (!p)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == huge)
        (void)madvise(p, n, MADV_HUGEPAGE);   /* a hint: without it, 4 KB pages */
#endif
    return p;
}

/* ---- a launch in steps --------------------------------------------------- */

static void free_run(gpu_run_t *r)
{
    if (!r)
        return;
    if (r->g) {   /* the memory system outlives the run: detach the meters */
        r->g->memsys.dram.meter = NULL;
        r->g->memsys.meter_l2 = NULL;
        r->g->memsys.meter_lsu = NULL;
    }
    for (int i = 0; i < GPU_LEVEL_COUNT; i++)
        meter_free(&r->meter[i]);
    free(r->table);
    free(r->sm_state);
    free(r->sms);
    free(r->deps);
    check_free(r->l.check);
    free(r);
}

/* sm.c's single observer hook: fan non-sample events out to every
 * observer of the run, in the order they were added. */
static int dispatch(void *user, const gpu_run_t *run, const gpu_event_t *ev)
{
    gpu_run_t *r = user;
    (void)run;
    for (uint32_t i = 0; i < r->nobs; i++)
        if (r->obs[i].fn(r->obs[i].user, r, ev) != 0)
            return 1;
    return 0;
}

/* The launch's shape and limits (gpu_run_begin): the grid and block,
 * the arguments, the unit timing, and what one SM can hold, each checked
 * against the GPU with a report that names the limit. 0, or -1. */
static int launch_shape(gpu_run_t *r, gpu_t *g, const isa_program_t *p, const gpu_launch_t *in,
                        const uint32_t *args, uint32_t nargs, simt_err_t *err)
{
    const gpu_desc_t *d = &g->desc;
    sm_launch_t *l = &r->l;
    if (check_launch(g, p, in, nargs, l->grid, l->block, err) != 0)
        return -1;
    if (nargs > ISA_MAX_PARAMS)   /* check_launch compared it with p->nparams */
        return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' takes too many arguments", p->name);
    if (nargs)   /* args may be NULL for a kernel without parameters */
        memcpy(r->args, args, nargs * sizeof *args);
    l->desc = d;
    l->prog = p;
    l->mem = &g->mem;
    l->memsys = &g->memsys;
    l->params = r->args;
    l->st = &r->st;
    l->threads_per_block = l->block[0] * l->block[1] * l->block[2];
    l->cluster_size = 1;
    for (int a = 0; a < 3; a++) {
        l->cluster[a] = in->cluster[a] ? in->cluster[a] : 1;
        l->cluster_size *= l->cluster[a];
    }
    l->warps_per_block = ceil_div(l->threads_per_block, 32);
    if (p->nregs > d->max_regs_per_thread)
        return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' needs %" PRIu32 " registers per thread (%%r0..%%r%"
                         PRIu32 "), more than the %" PRIu32 " a thread may have on %s (max_regs_per_thread)",
                         p->name, p->nregs, p->nregs - 1, d->max_regs_per_thread, d->name);
    if (block_regs(d, p, l->warps_per_block) > d->regs_per_sm)
        return simt_errf(err, SIMT_E_LAUNCH, "block needs %" PRIu64 " registers (%" PRIu32 " threads x %" PRIu32
                         " registers each), more than the %" PRIu32 " of one SM on %s",
                         block_regs(d, p, l->warps_per_block), l->threads_per_block, p->nregs, d->regs_per_sm,
                         d->name);
    set_unit_timing(d, l);
    if (check_tensor_formats(d, p, err) != 0)
        return -1;
    r->occ = occupancy(d, p, l->warps_per_block, &r->limit);
    if (r->occ == 0)
        return simt_errf(err, SIMT_E_LAUNCH, "a block of %" PRIu32 " threads (%" PRIu32 " warps) does not fit "
                         "on one SM of %s: limited by %s", l->threads_per_block, l->warps_per_block, d->name,
                         r->limit);
    r->max_cycles = in->max_cycles ? in->max_cycles : GPU_DEFAULT_MAX_CYCLES;
    if (r->max_cycles > GPU_MAX_CYCLES_LIMIT)
        return simt_errf(err, SIMT_E_LAUNCH, "max_cycles %" PRIu64 " exceeds the simulator's limit of %llu cycles",
                         r->max_cycles, GPU_MAX_CYCLES_LIMIT);
    r->max_instrs = in->max_warp_instrs ? in->max_warp_instrs : GPU_DEFAULT_MAX_WARP_INSTRS;
    r->nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    return 0;
}

/* What the launch's host state takes (nsm SMs of `slots` block slots),
 * counted before any of it is made, into r->host_bytes: a report if that
 * is more than the memory left (in->max_host_bytes). 0, or -1. */
static int host_budget(gpu_run_t *r, const isa_program_t *p, const gpu_launch_t *in, uint32_t nsm,
                       uint32_t slots, simt_err_t *err)
{
    const sm_launch_t *l = &r->l;
    size_t sm_bytes = sm_host_bytes(l, slots);
    uint64_t deps = (uint64_t)p->ncode * sizeof *r->deps + (uint64_t)nsm * sizeof *r->sms
                    + (l->cluster_size > 1 ? (uint64_t)nsm * slots * sizeof *r->table : 0);
    uint64_t state = (uint64_t)sm_bytes * nsm;
    uint64_t checker = in->check ? check_host_bytes(p, nsm, slots, l->warps_per_block) : 0;
    r->host_bytes = sizeof *r + deps + state + checker;
    if (!in->max_host_bytes || r->host_bytes <= in->max_host_bytes)
        return 0;
    char chk[96] = "";
    if (in->check)
        snprintf(chk, sizeof chk, ", and %" PRIu64 " MB for the kernel checker's shadow state",
                 (checker + (1u << 20) - 1) >> 20);
    return simt_errf(err, SIMT_E_NOMEM, "the launch's state does not fit in the memory left (%" PRIu64 " MB): "
                     "%" PRIu32 " SMs x %" PRIu32 " resident blocks of %" PRIu32 " threads need %" PRIu64 " MB for "
                     "registers, scoreboards and shared memory%s (use fewer SMs, smaller blocks or check = false, "
                     "or raise --max-memory)",
                     in->max_host_bytes >> 20, nsm, slots, l->threads_per_block,
                     (state + deps + (1u << 20) - 1) >> 20, chk);
}

/* Make the launch's state: decoded instructions, nsm SMs of `slots` block
 * slots each, the cluster table, the kernel checker. 0, or -1. */
static int make_state(gpu_run_t *r, const isa_program_t *p, const gpu_launch_t *in, uint32_t nsm,
                      uint32_t slots, simt_err_t *err)
{
    sm_launch_t *l = &r->l;
    r->deps = calloc(p->ncode, sizeof *r->deps);
    r->sms = calloc(nsm, sizeof *r->sms);
    /* clusters in flight: at most one per block slot (a cluster of one
     * CTA each is the most there can be) */
    r->ntable = l->cluster_size > 1 ? nsm * slots : 0;
    r->table = r->ntable ? calloc(r->ntable, sizeof *r->table) : NULL;
    size_t sm_bytes = sm_host_bytes(l, slots);
    r->sm_state = alloc_sm_state(sm_bytes * nsm);
    if (!r->deps || !r->sms || !r->sm_state || (r->ntable && !r->table))
        return simt_errf(err, SIMT_E_NOMEM, "host out of memory");
    sm_decode_deps(p, r->deps);
    l->deps = r->deps;
    l->sms = r->sms;
    if (in->check && !(l->check = check_create(p, nsm, slots, l->warps_per_block, err)))
        return -1;
    if (l->check && in->max_host_bytes)   /* what is left for its records of global stores */
        check_set_budget(l->check, in->max_host_bytes - r->host_bytes + 1);
    for (uint32_t i = 0; i < nsm; i++)
        sm_init(&r->sms[i], i, l, slots, r->sm_state + sm_bytes * i);
    return 0;
}

gpu_run_t *gpu_run_begin(gpu_t *g, const isa_program_t *p, const gpu_launch_t *in,
                         const uint32_t *args, uint32_t nargs, simt_err_t *err)
{
    const gpu_desc_t *d = &g->desc;
    gpu_run_t *r = calloc(1, sizeof *r);
    if (!r) {
        simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        return NULL;
    }
    sm_launch_t *l = &r->l;
    if (launch_shape(r, g, p, in, args, nargs, err) != 0)
        goto fail;
    uint32_t nsm = r->nblocks < d->sms ? (uint32_t)r->nblocks : d->sms;
    uint32_t slots = r->occ < ceil_div(r->nblocks, nsm) ? r->occ : ceil_div(r->nblocks, nsm);
    if (host_budget(r, p, in, nsm, slots, err) != 0 || make_state(r, p, in, nsm, slots, err) != 0)
        goto fail;
    r->g = g;
    memsys_reset(&g->memsys, !in->warm_caches);
    for (uint32_t i = 0; i < in->nwarm; i++)   /* tensors a warm-up left in L2 */
        memsys_warm(&g->memsys, in->warm[i].addr, in->warm[i].bytes);
    r->nsm = nsm;
    r->waiting = r->nblocks;
    r->nclusters = r->nblocks / l->cluster_size;   /* in a cluster launch next_block counts clusters */
    l->run = r;
    if (in->observe && gpu_run_add_observer(r, in->observe, in->observe_user, in->sample_every, err) != 0)
        goto fail;
    return r;
fail:
    free_run(r);
    return NULL;
}

int gpu_run_add_observer(gpu_run_t *r, gpu_observer_fn fn, void *user, uint64_t sample_every,
                         simt_err_t *err)
{
    if (r->started)
        return simt_errf(err, SIMT_E_USAGE, "observers must be added before the run's first step");
    if (r->nobs >= GPU_MAX_OBSERVERS)
        return simt_errf(err, SIMT_E_USAGE, "a launch takes at most %d observers", GPU_MAX_OBSERVERS);
    gpu_observer_t *o = &r->obs[r->nobs++];
    o->fn = fn;
    o->user = user;
    o->every = sample_every;
    o->next = sample_every;
    r->l.observe = dispatch;
    r->l.observe_user = r;
    return 0;
}

int gpu_run_enable_meters(gpu_run_t *r, simt_err_t *err)
{
    if (r->metered)
        return 0;
    if (r->started)
        return simt_errf(err, SIMT_E_USAGE, "meters must be enabled before the run's first step");
    memsys_t *ms = &r->g->memsys;
    if (meter_init(&r->meter[GPU_LEVEL_LSU], MEMSYS_TICKS_PER_CYCLE, err) != 0 ||
        meter_init(&r->meter[GPU_LEVEL_L2], MEMSYS_TICKS_PER_CYCLE, err) != 0 ||
        meter_init(&r->meter[GPU_LEVEL_DRAM], MEMSYS_TICKS_PER_CYCLE, err) != 0)
        return -1;   /* free_run frees what was allocated */
    ms->meter_lsu = &r->meter[GPU_LEVEL_LSU];
    ms->meter_l2 = &r->meter[GPU_LEVEL_L2];
    ms->dram.meter = &r->meter[GPU_LEVEL_DRAM];
    r->metered = 1;
    return 0;
}

/* What one resource of level lv moves per busy tick, and how many such
 * resources the chip has (SMs' pipes, L2 slices, DRAM channels). */
static double level_bytes_per_tick(const gpu_run_t *r, gpu_level_t lv, uint32_t *resources)
{
    const memsys_t *ms = &r->g->memsys;
    switch (lv) {
    case GPU_LEVEL_LSU:   /* one 128-byte line or shared wavefront per cycle per SM */
        *resources = r->g->desc.sms;
        return (double)ms->cfg.line_bytes / MEMSYS_TICKS_PER_CYCLE;
    case GPU_LEVEL_L2:
        *resources = ms->l2_slices;
        return (double)ms->cfg.sector_bytes / (double)ms->l2_sector_ticks;
    case GPU_LEVEL_DRAM:
        *resources = ms->dram.cfg.channels;
        return (double)ms->dram.cfg.burst_bytes / (double)ms->dram.burst_ticks;
    default:
        *resources = 0;
        return 0.0;
    }
}

double gpu_run_peak_bytes_per_cycle(const gpu_run_t *r, gpu_level_t lv)
{
    uint32_t n;
    double per_tick = level_bytes_per_tick(r, lv, &n);
    double peak = per_tick * MEMSYS_TICKS_PER_CYCLE * n;
    if (lv == GPU_LEVEL_DRAM)   /* less the time the channels spend refreshing (dram.h) */
        peak *= dram_busy_fraction_max(&r->g->memsys.dram);
    return peak;
}

double gpu_run_take_bytes(const gpu_run_t *r, gpu_level_t lv, uint64_t until_cycle)
{
    uint32_t n;
    if (!r->metered || lv >= GPU_LEVEL_COUNT)
        return 0.0;
    uint64_t ticks = meter_take((meter_t *)&r->meter[lv], until_cycle);
    return (double)ticks * level_bytes_per_tick(r, lv, &n);
}

/* Samples fall on multiples of each observer's period, in time order (ties
 * in the order observers were added). Skipped cycles change nothing, so a
 * sample taken at `upto` shows the state at that cycle. */
static void emit_samples(gpu_run_t *r, uint64_t upto)
{
    for (;;) {
        gpu_observer_t *o = NULL;
        for (uint32_t i = 0; i < r->nobs; i++)
            if (r->obs[i].every && r->obs[i].next <= upto && (!o || r->obs[i].next < o->next))
                o = &r->obs[i];
        if (!o || r->l.stop)
            return;
        r->now = o->next;
        gpu_event_t ev = { .kind = GPU_EV_SAMPLE, .cycle = o->next };
        if (o->fn(o->user, r, &ev) != 0)
            r->l.stop = 1;
        o->next += o->every;
    }
}

/* The first wave of blocks, placed at cycle 0 when the run starts. */
static void first_wave(gpu_run_t *r)
{
    if (r->table) {
        /* whole clusters, while they fit */
        while (r->next_block < r->nclusters && place_cluster(r, r->table, r->ntable, r->next_block, 0) == 0)
            r->next_block++;
    } else {
        /* one block per SM per pass, until every slot is full */
        uint32_t slots = r->nsm ? r->sms[0].nblocks : 0;
        for (uint32_t pass = 0; pass < slots && r->next_block < r->nblocks; pass++)
            for (uint32_t i = 0; i < r->nsm && r->next_block < r->nblocks; i++)
                if (place(r, i, r->next_block, 0) == 0)
                    r->next_block++;
    }
}

/* Fill the final statistics once the last SM has nothing left to do. */
static int finish_run(gpu_run_t *r, simt_err_t *err)
{
    const gpu_desc_t *d = &r->g->desc;
    gpu_stats_t *st = &r->st;
    if (r->waiting)   /* a dispatcher bug, not the kernel's: say so rather than report a short run */
        return simt_errf(err, SIMT_E_LAUNCH, "internal error: %" PRIu64 " blocks of kernel '%s' were never placed",
                         r->waiting, r->l.prog->name);
    uint64_t wb_done;
    st->cycles = r->l.last_activity;
    /* what the kernel left dirty in L2; the launch ends when it is written */
    st->dram_bytes += memsys_writeback_all(&r->g->memsys, st->cycles, &wb_done);
    if (wb_done > st->cycles)
        st->cycles = wb_done;
    for (uint32_t i = 0; i < r->nsm; i++)
        sm_finish(&r->sms[i], &r->l, st->cycles);
    st->stalls[STALL_IDLE] += st->cycles * d->schedulers_per_sm * (d->sms - r->nsm);
    st->issue_slots = st->cycles * d->sms * d->schedulers_per_sm;
    {   /* time at the clock the power limit sustains (power.h) */
        double dram_per_cycle = gpu_run_peak_bytes_per_cycle(r, GPU_LEVEL_DRAM);
        double t_dram_us = dram_per_cycle > 0.0 ? (double)st->dram_bytes / dram_per_cycle / d->clock_mhz : 0.0;
        power_apply(d, st, t_dram_us);
    }
    st->blocks = r->nblocks;
    st->threads = r->nblocks * r->l.threads_per_block;
    /* what was placed, not what would fit: a grid of 4 blocks on 132 SMs
     * puts 1 block on an SM however many would fit */
    st->blocks_per_sm = r->placed_max;
    st->blocks_fit_per_sm = r->occ;
    st->warps_per_sm = r->placed_max * r->l.warps_per_block;
    st->occupancy = rate_occupancy(st->warps_per_sm, d->max_threads_per_sm);
    snprintf(st->occupancy_limit, sizeof st->occupancy_limit, "%s",
             r->placed_max < r->occ ? "blocks in the grid" : r->limit);
    /* the samples up to the end, then the end itself */
    emit_samples(r, st->cycles);
    r->now = st->cycles;
    if (r->l.observe) {
        gpu_event_t ev = { .kind = GPU_EV_DONE, .cycle = st->cycles };
        sm_notify(&r->l, &ev);
    }
    return 0;
}

int gpu_run_advance(gpu_run_t *r, uint64_t until, uint64_t max_steps, simt_err_t *err)
{
    if (r->state != GPU_RUN_MORE) {
        if (r->state < 0)
            *err = r->err;
        return r->state;
    }
    sm_launch_t *l = &r->l;
    sm_t *sms = r->sms;
    if (!r->started) {
        r->started = 1;
        first_wave(r);
    }
    for (uint64_t step = 0; ; step++) {
        uint64_t now = SM_NEVER;
        for (uint32_t i = 0; i < r->nsm; i++)
            if (sms[i].next_eval < now)
                now = sms[i].next_eval;
        if (now == SM_NEVER) {
            if (finish_run(r, &r->err) != 0)
                goto failed;
            r->state = GPU_RUN_DONE;
            return r->state;
        }
        if (now > until || (max_steps && step >= max_steps)) {
            /* Nothing happens before `now`: the state at `until` (or at
             * the last cycle simulated) is the state now. */
            uint64_t at = now > until ? until : now;
            emit_samples(r, at);
            r->now = at > r->now ? at : r->now;
            if (l->stop)
                goto stopped;
            return GPU_RUN_MORE;
        }
        emit_samples(r, now);
        r->now = now;
        if (l->stop)
            goto stopped;
        if (now >= r->max_cycles || r->st.warp_instrs >= r->max_instrs) {
            timeout(sms, r->nsm, l, now, &r->err);
            goto failed;
        }
        for (uint32_t i = 0; i < r->nsm; i++) {
            if (sms[i].next_eval != now)
                continue;
            int fin = sm_cycle(&sms[i], l, now, &r->err);
            if (fin < 0)
                goto failed;
            /* Refill freed slots; new blocks start next cycle. */
            if (r->table)
                while (fin > 0 && r->next_block < r->nclusters &&
                       place_cluster(r, r->table, r->ntable, r->next_block, now + 1) == 0)
                    r->next_block++;
            else
                while (fin > 0 && r->next_block < r->nblocks && place(r, i, r->next_block, now + 1) == 0)
                    r->next_block++;
        }
    }
stopped:
    simt_errf(&r->err, SIMT_E_STOPPED, "kernel '%s' stopped at cycle %" PRIu64 " by its observer",
              l->prog->name, r->now);
failed:
    r->state = GPU_RUN_FAILED;
    *err = r->err;
    return r->state;
}

int gpu_run_status(const gpu_run_t *r) { return r->state; }

int gpu_run_end(gpu_run_t *r, gpu_stats_t *out, simt_err_t *err)
{
    int rc = 0;
    if (r->state == GPU_RUN_FAILED) {
        *err = r->err;
        rc = -1;
    } else if (r->state == GPU_RUN_MORE) {
        simt_errf(err, SIMT_E_STOPPED, "kernel '%s' was ended at cycle %" PRIu64 " before it finished",
                  r->l.prog->name, r->now);
        rc = -1;
    }
    if (out)
        *out = r->st;
    free_run(r);
    return rc;
}

int gpu_launch(gpu_t *g, const isa_program_t *p, const gpu_launch_t *in,
               const uint32_t *args, uint32_t nargs, gpu_stats_t *out, simt_err_t *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    gpu_run_t *r = gpu_run_begin(g, p, in, args, nargs, err);
    if (!r)
        return -1;
    gpu_run_advance(r, UINT64_MAX, 0, err);
    return gpu_run_end(r, out, err);
}
