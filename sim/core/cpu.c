/* cpu.c - a CPU running GPU kernels thread group by thread group (cpu.h).
 *
 * The run loop (cpu_launch) always advances the core whose clock is
 * smallest (ties: lowest core number), letting it run until its clock
 * passes the next core's, so that the shared L3 and DRAM see requests in
 * (nearly) global time order and the result depends only on the inputs.
 * One step of a core (core_step) is: start a block if it has none, or
 * execute one instruction of its current thread group with exec_step (the
 * same executor the GPU uses) and time it (cpu_time_instr, in cpu_time.c).
 */
#include "cpu_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"

/* ---- description ----------------------------------------------------------- */

/* The cpu-core preset's values (arch/cpu-core.lua; tests/lua/test_cpu.lua
 * checks that the two agree). */
void cpu_desc_default(cpu_desc_t *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "cpu-core");
    snprintf(d->vendor_name, sizeof d->vendor_name, "one Xeon core (Sapphire Rapids class), scalar");
    d->cores = 1;
    d->simd_width = 1;
    d->clock_mhz = 3000.0;
    d->issue_width = 6;
    d->rob_size = 512;
    d->in_order = 0;
    d->alu_ports = 5;
    d->fma_ports = 2;
    d->sfu_ports = 1;
    d->load_ports = 3;
    d->store_ports = 2;
    d->sfu_interval = 4;
    d->lat_alu = 1;
    d->lat_fma = 4;
    d->lat_sfu = 14;
    d->line_bytes = 64;
    d->l1_bytes = 48 * 1024;
    d->l1_assoc = 12;
    d->lat_l1 = 5;
    d->l2_bytes = 2 * 1024 * 1024;
    d->l2_assoc = 16;
    d->lat_l2 = 16;
    d->l3_bytes = 30 * 1024 * 1024;
    d->l3_assoc = 15;
    d->lat_l3 = 100;
    d->lat_dram = 400;
    d->dram_gbps = 30.0;
    d->dram_efficiency = 1.0;
    d->dram_channels = 1;
    d->block_overhead = 50;
    d->launch_us = 0.0;
    d->mem_bytes = 256ull << 30;
    d->max_threads_per_block = 1024;
    d->smem_per_block = 256 * 1024;
    d->max_regs_per_thread = 255;
    d->tdp_watts = 12.0;
    d->price_per_hour = 0.0;
}

/* Range checks naming the field (err.h). */
static int check_u(const char *field, uint64_t v, uint64_t lo, uint64_t hi, simt_err_t *err)
{
    return simt_check_u("CPU", field, v, lo, hi, err);
}

static int check_f(const char *field, double v, double lo, double hi, simt_err_t *err)
{
    return simt_check_f("CPU", field, v, lo, hi, err);
}

int cpu_desc_validate(const cpu_desc_t *d, simt_err_t *err)
{
    if (check_u("cores", d->cores, 1, 1024, err) ||
        check_u("simd_width", d->simd_width, 1, 32, err) ||
        check_f("clock_mhz", d->clock_mhz, 1.0, 10000.0, err) ||
        check_u("issue_width", d->issue_width, 1, 16, err) ||
        check_u("rob_size", d->rob_size, 1, CPU_MAX_ROB, err) ||
        check_u("in_order", d->in_order, 0, 1, err) ||
        check_u("alu_ports", d->alu_ports, 1, CPU_MAX_PORTS, err) ||
        check_u("fma_ports", d->fma_ports, 1, CPU_MAX_PORTS, err) ||
        check_u("sfu_ports", d->sfu_ports, 1, CPU_MAX_PORTS, err) ||
        check_u("load_ports", d->load_ports, 1, CPU_MAX_PORTS, err) ||
        check_u("store_ports", d->store_ports, 1, CPU_MAX_PORTS, err) ||
        check_u("sfu_interval", d->sfu_interval, 1, 1000, err) ||
        check_u("lat_alu", d->lat_alu, 1, 1000, err) ||
        check_u("lat_fma", d->lat_fma, 1, 1000, err) ||
        check_u("lat_sfu", d->lat_sfu, 1, 1000, err) ||
        check_u("line_bytes", d->line_bytes, 16, 1024, err) ||
        check_u("l1_assoc", d->l1_assoc, 1, 64, err) ||
        check_u("l2_assoc", d->l2_assoc, 1, 64, err) ||
        check_u("l3_assoc", d->l3_assoc, 1, 64, err) ||
        check_u("l1_bytes", d->l1_bytes, (uint64_t)d->line_bytes * d->l1_assoc, 1u << 24, err) ||
        check_u("l2_bytes", d->l2_bytes, (uint64_t)d->line_bytes * d->l2_assoc, 1u << 28, err) ||
        check_u("l3_bytes", d->l3_bytes, (uint64_t)d->line_bytes * d->l3_assoc, 1u << 30, err) ||
        check_u("lat_l1", d->lat_l1, 1, 100000, err) ||
        check_u("lat_l2", d->lat_l2, d->lat_l1, 100000, err) ||
        check_u("lat_l3", d->lat_l3, d->lat_l2, 100000, err) ||
        check_u("lat_dram", d->lat_dram, d->lat_l3, 100000, err) ||
        check_f("dram_gbps", d->dram_gbps, 0.1, 1e6, err) ||
        check_f("dram_efficiency", d->dram_efficiency, 1e-3, 1.0, err) ||
        check_u("dram_channels", d->dram_channels, 1, 256, err) ||
        check_u("block_overhead", d->block_overhead, 0, 1000000, err) ||
        check_f("launch_us", d->launch_us, 0.0, 1e6, err) ||
        check_u("mem_bytes", d->mem_bytes, 4096, 1ull << 50, err) ||
        check_u("max_threads_per_block", d->max_threads_per_block, 1, 4096, err) ||
        check_u("smem_per_block", d->smem_per_block, 0, 1u << 24, err) ||
        check_u("max_regs_per_thread", d->max_regs_per_thread, 1, ISA_NUM_REGS, err) ||
        check_f("tdp_watts", d->tdp_watts, 0.0, 1e6, err) ||
        check_f("price_per_hour", d->price_per_hour, 0.0, 1e6, err))
        return -1;
    if (32 % d->simd_width != 0)
        return simt_errf(err, SIMT_E_USAGE, "CPU field 'simd_width' = %" PRIu32 " must divide 32 (1, 2, 4, 8, 16 or 32)",
                         d->simd_width);
    if (d->line_bytes & (d->line_bytes - 1))
        return simt_errf(err, SIMT_E_USAGE, "CPU field 'line_bytes' = %" PRIu32 " must be a power of two", d->line_bytes);
    return 0;
}

/* ---- create / free ------------------------------------------------------------ */

static void core_free(cpu_core_t *k)
{
    cache_free(&k->l1);
    cache_free(&k->l2);
    free(k->rob);
    free(k->rob_mem);
    free(k->groups);
    free(k->regs);
    free(k->ready);
    free(k->smem);
    free(k->fill);
    free(k->filled);
    memset(k, 0, sizeof *k);
}

void cpu_free(cpu_t *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->core && i < c->d.cores; i++)
        core_free(&c->core[i]);
    free(c->core);
    cache_free(&c->l3);
    dram_free(&c->dram);
    free(c);
}

cpu_t *cpu_create(const cpu_desc_t *d, simt_err_t *err)
{
    if (cpu_desc_validate(d, err) != 0)
        return NULL;
    cpu_t *c = calloc(1, sizeof *c);
    if (!c) {
        simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        return NULL;
    }
    c->d = *d;
    c->core = calloc(d->cores, sizeof *c->core);
    if (!c->core)
        goto nomem;
    for (uint32_t i = 0; i < d->cores; i++) {
        cpu_core_t *k = &c->core[i];
        if (cache_init(&k->l1, "L1", d->l1_bytes, d->l1_assoc, d->line_bytes, d->line_bytes,
                       CACHE_WRITE_BACK, err) != 0 ||
            cache_init(&k->l2, "L2", d->l2_bytes, d->l2_assoc, d->line_bytes, d->line_bytes,
                       CACHE_WRITE_BACK, err) != 0)
            goto fail;
        k->rob = calloc(d->rob_size, sizeof *k->rob);
        k->rob_mem = calloc(d->rob_size, 1);
        if (!k->rob || !k->rob_mem)
            goto nomem;
    }
    if (cache_init(&c->l3, "L3", d->l3_bytes, d->l3_assoc, d->line_bytes, d->line_bytes,
                   CACHE_WRITE_BACK, err) != 0)
        goto fail;
    dram_cfg_t dc = {
        .channels = d->dram_channels, .interleave_bytes = 256, .burst_bytes = d->line_bytes,
        .bytes_per_cycle = d->dram_gbps * d->dram_efficiency * 1e3 / d->clock_mhz,
        .latency = d->lat_dram, .ticks_per_cycle = CPU_TICKS_PER_CYCLE,
    };
    if (dram_init(&c->dram, &dc, err) != 0)
        goto fail;
    return c;
nomem:
    simt_errf(err, SIMT_E_NOMEM, "host out of memory for CPU '%s'", d->name);
fail:
    cpu_free(c);
    return NULL;
}

const cpu_desc_t *cpu_desc(const cpu_t *c) { return &c->d; }

/* ---- registers live across barriers ------------------------------------------------ */

/* Add registers first..first+count-1 to set s. Used for the registers
 * each instruction reads (use) and surely writes (kill: an unguarded
 * destination; a guarded write may not happen, so it kills nothing). */
static void reg_bits(isa_regset_t *s, uint32_t first, uint32_t count)
{
    for (uint32_t i = 0; i < count && first + i < ISA_NUM_REGS; i++)
        isa_regset_put(s, first + i, 1);
}

/* Backward data-flow liveness over p's control-flow graph: live[pc] = the
 * registers whose value at pc may still be read (live_in). live[ncode] = 0
 * (past the end). Successors: the next pc, a branch's target (both for a
 * guarded branch), none after an unguarded exit. Iterates to the fixed
 * point (at most ncode x 64 rounds; a few in practice). */
static void live_in_from_deps(const isa_program_t *p, const sm_deps_t *deps, isa_regset_t *live)
{
    uint32_t n = p->ncode;
    memset(live, 0, ((size_t)n + 1) * sizeof *live);
    int changed = 1;
    while (changed) {
        changed = 0;
        for (uint32_t i = n; i-- > 0;) {
            const isa_instr_t *in = &p->code[i];
            const sm_deps_t *d = &deps[i];
            int guarded = in->guard != ISA_NO_REG;
            isa_regset_t out, use, kill;
            memset(&out, 0, sizeof out);
            memset(&use, 0, sizeof use);
            memset(&kill, 0, sizeof kill);
            if (in->op == OP_BRA) {
                if (in->opd[0].imm < n)
                    out = live[in->opd[0].imm];
                if (guarded)
                    for (uint32_t k = 0; k < ISA_REG_WORDS; k++)
                        out.w[k] |= live[i + 1].w[k];
            } else if (in->op != OP_EXIT || guarded) {
                out = live[i + 1];
            }
            for (uint32_t j = 0; j < d->nsrc; j++)
                reg_bits(&use, d->src[j], d->src_n[j]);
            if (d->dst != ISA_NO_REG && !guarded)
                reg_bits(&kill, d->dst, d->dst_n);
            for (uint32_t k = 0; k < ISA_REG_WORDS; k++) {
                uint64_t v = use.w[k] | (out.w[k] & ~kill.w[k]);
                if (v != live[i].w[k]) {
                    live[i].w[k] = v;
                    changed = 1;
                }
            }
        }
    }
}

int cpu_live_in(const isa_program_t *p, isa_regset_t *live, simt_err_t *err)
{
    sm_deps_t *deps = calloc(p->ncode ? p->ncode : 1, sizeof *deps);
    if (!deps)
        return simt_errf(err, SIMT_E_NOMEM, "host out of memory");
    sm_decode_deps(p, deps);
    live_in_from_deps(p, deps, live);
    free(deps);
    return 0;
}

/* ---- blocks and thread groups ---------------------------------------------------- */

/* Tell the observer, if any, about an event on core i. */
static void notify(cpu_run_t *r, uint8_t kind, uint32_t core, const uint32_t ctaid[3], uint64_t cycle)
{
    if (!r->observe || r->state != CPU_RUN_MORE)
        return;
    gpu_event_t ev = { .kind = kind, .cycle = cycle, .sm = core };
    if (ctaid)
        memcpy(ev.ctaid, ctaid, sizeof ev.ctaid);
    if (r->observe(r->observe_user, r, &ev) != 0) {
        r->state = CPU_RUN_FAILED;
        simt_errf(&r->err, SIMT_E_STOPPED, "kernel '%s' stopped at cycle %" PRIu64 " by its observer",
                  r->prog->name, cycle);
    }
}

/* Start block number b on core k. */
static void start_block(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, uint64_t b)
{
    uint32_t W = c->d.simd_width;
    k->ctaid[0] = (uint32_t)(b % r->grid[0]);
    k->ctaid[1] = (uint32_t)(b / r->grid[0] % r->grid[1]);
    k->ctaid[2] = (uint32_t)(b / ((uint64_t)r->grid[0] * r->grid[1]));
    if (r->prog->shared_bytes)
        memset(k->smem, 0, r->prog->shared_bytes);
    for (uint32_t g = 0; g < r->ngroups; g++) {
        warp_t *w = &k->groups[g];
        uint32_t first = g * W;
        uint32_t lanes = r->threads - first < W ? r->threads - first : W;
        uint32_t lane0 = first % WARP_SIZE;
        uint32_t mask = (lanes >= 32 ? 0xFFFFFFFFu : (1u << lanes) - 1u) << lane0;
        warp_start(w, &k->regs[(size_t)g * r->nregs * WARP_SIZE], &k->ready[(size_t)g * r->nregs], r->nregs,
                   WARP_SIZE);
        /* The group is threads first..first+lanes-1 of the block: lanes
         * lane0.. of the block's warp first / 32, so that exec_step computes
         * their %tid exactly as on the GPU. */
        w->live = mask;
        w->stack[0].mask = mask;
        w->warp_in_block = first / WARP_SIZE;
        w->slot = g;
        w->block_slot = 0;
        memset(&k->fill[g], 0, sizeof k->fill[g]);
        k->filled[g] = 0;
    }
    k->busy = 1;
    k->cur = 0;
    k->live = r->ngroups;
    k->at_bar = 0;
    k->fe += c->d.block_overhead;
    k->fe_used = 0;
    k->time[CPU_T_OVERHEAD] += c->d.block_overhead;
}

/* Move to the next group that can run; release the barrier when every
 * live group has reached it; end the block when every group is done. */
static void next_group(cpu_core_t *k, const cpu_run_t *r)
{
    for (uint32_t g = k->cur + 1; g < r->ngroups; g++)
        if (k->groups[g].state == WARP_READY) {
            k->cur = g;
            return;
        }
    if (k->live == 0) {
        k->busy = 0;
        return;
    }
    /* Every group before the end ran until the barrier or its exit. */
    k->at_bar = 0;
    k->cur = UINT32_MAX;
    for (uint32_t g = 0; g < r->ngroups; g++)
        if (k->groups[g].state == WARP_BARRIER) {
            k->groups[g].state = WARP_READY;
            if (k->cur == UINT32_MAX)
                k->cur = g;
        }
}

/* One step of core number i: start a block, or run one instruction.
 * Returns 0, or -1 on a kernel fault or the watchdog. */
static int core_step(cpu_t *c, uint32_t i, cpu_run_t *r, simt_err_t *err)
{
    cpu_core_t *k = &c->core[i];
    if (!k->busy) {
        if (r->next_block >= r->nblocks) {
            k->finished = 1;
            uint64_t end = max_u64(k->fe, k->last_retire);
            k->time[k->last_retire_mem ? CPU_T_MEMORY : CPU_T_COMPUTE] += end - k->fe;
            k->end = end;
            return 0;
        }
        start_block(c, k, r, r->next_block++);
        notify(r, GPU_EV_BLOCK_START, i, k->ctaid, k->fe);
        return 0;
    }
    if (r->st->instrs >= r->max_instrs)
        return simt_errf(err, SIMT_E_TIMEOUT,
                         "kernel '%s' did not finish after %" PRIu64 " instructions on CPU '%s' "
                         "(an endless loop? raise max_instrs if it is just long)",
                         r->prog->name, r->st->instrs, c->d.name);
    if (r->max_cycles && k->fe >= r->max_cycles)
        return simt_errf(err, SIMT_E_TIMEOUT,
                         "kernel '%s' did not finish after %" PRIu64 " cycles on CPU '%s' "
                         "(an endless loop? raise max_cycles if it is just long)",
                         r->prog->name, k->fe, c->d.name);
    warp_t *w = &k->groups[k->cur];
    if (k->filled[k->cur])
        cpu_restore_regs(c, k, r, k->cur);
    exec_ctx_t x = {
        .prog = r->prog, .mem = r->mem, .smem = k->smem, .smem_bytes = r->prog->shared_bytes,
        .params = r->params, .smid = i, .clock = k->fe,
    };
    memcpy(x.ctaid, k->ctaid, sizeof x.ctaid);
    memcpy(x.nctaid, r->grid, sizeof x.nctaid);
    memcpy(x.ntid, r->block, sizeof x.ntid);
    uint32_t pc = warp_pc(w);
    exec_info_t info;
    if (exec_step(&x, w, &info, err) != 0)
        return -1;
    int taken = r->prog->code[pc].op == OP_BRA && w->depth > 0 && warp_pc(w) != pc + 1;
    cpu_time_instr(c, k, r, w, &r->deps[pc], &info, taken, 0);
    r->st->instrs++;
    r->st->thread_instrs += bits_popcount32(info.mask);
    r->st->flops += info.flops;
    if (w->depth == 0) {
        w->state = WARP_DONE;
        k->live--;
        next_group(k, r);
        if (!k->busy) {
            r->blocks_done++;
            notify(r, GPU_EV_BLOCK_END, i, k->ctaid, max_u64(k->fe, k->last_retire));
        }
    } else if (info.barrier) {
        /* as the GPU's checker (check_barrier): every group of the block
         * waits at the same bar.sync, or the kernel is wrong */
        if (k->at_bar > 0 && pc != k->bar_pc)
            return simt_errf(err, SIMT_E_KERNEL,
                             "warps of a block wait at different barriers in kernel '%s' on CPU '%s': "
                             "block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") has threads at the bar.sync of "
                             "%s:%" PRIu32 " and at the one of line %" PRIu32 ": every thread of a block "
                             "must reach the same barrier", r->prog->name, c->d.name, k->ctaid[0],
                             k->ctaid[1], k->ctaid[2], r->prog->file, r->prog->code[k->bar_pc].line,
                             r->prog->code[pc].line);
        k->bar_pc = pc;
        cpu_save_regs(c, k, r, k->cur, pc);
        w->state = WARP_BARRIER;
        k->at_bar++;
        next_group(k, r);
    }
    return 0;
}

/* ---- launch ------------------------------------------------------------------------ */

static int check_launch(const cpu_t *c, const isa_program_t *p, const cpu_launch_t *in, uint32_t nargs,
                        uint32_t grid[3], uint32_t block[3], simt_err_t *err)
{
    const cpu_desc_t *d = &c->d;
    if (nargs != p->nparams)
        return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' takes %" PRIu32 " argument%s, got %" PRIu32,
                         p->name, p->nparams, p->nparams == 1 ? "" : "s", nargs);
    for (int i = 0; i < 3; i++) {
        grid[i] = in->grid[i] ? in->grid[i] : 1;
        block[i] = in->block[i] ? in->block[i] : 1;
    }
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (threads > d->max_threads_per_block)
        return simt_errf(err, SIMT_E_LAUNCH, "block of %" PRIu64 " threads exceeds %" PRIu32
                         ", the most threads per block on %s", threads, d->max_threads_per_block, d->name);
    if (p->nregs > d->max_regs_per_thread)
        return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' needs %" PRIu32 " registers per thread (%%r0..%%r%" PRIu32
                         "), more than the %" PRIu32 " a thread may have on %s (max_regs_per_thread)",
                         p->name, p->nregs, p->nregs - 1, d->max_regs_per_thread, d->name);
    if (p->shared_bytes > d->smem_per_block)
        return simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' needs %" PRIu32 " bytes of shared memory per block; "
                         "%s allows %" PRIu32, p->name, p->shared_bytes, d->name, d->smem_per_block);
    return 0;
}

/* Reset core k's pipeline and give it room for one block of the launch. */
static int core_prepare(cpu_core_t *k, uint32_t i, const cpu_run_t *r, int warm, simt_err_t *err)
{
    free(k->groups);
    free(k->regs);
    free(k->ready);
    free(k->smem);
    free(k->fill);
    free(k->filled);
    k->fill = calloc(r->ngroups, sizeof *k->fill);
    k->filled = calloc(r->ngroups, sizeof *k->filled);
    k->ctx_off = i * CPU_CTX_BYTES;
    k->groups = calloc(r->ngroups, sizeof *k->groups);
    k->regs = calloc((size_t)r->ngroups * r->nregs * WARP_SIZE, sizeof *k->regs);
    k->ready = calloc((size_t)r->ngroups * r->nregs, sizeof *k->ready);
    k->smem = r->prog->shared_bytes ? calloc(1, r->prog->shared_bytes) : NULL;
    if (!k->groups || !k->regs || !k->ready || !k->fill || !k->filled || (r->prog->shared_bytes && !k->smem))
        return simt_errf(err, SIMT_E_NOMEM, "host out of memory for a CPU core's thread groups");
    k->fe = 0;
    k->fe_used = 0;
    memset(k->port_free, 0, sizeof k->port_free);
    k->n = 0;
    k->last_start = k->last_retire = 0;
    k->last_retire_mem = 0;
    k->finished = 0;
    k->end = 0;
    memset(k->time, 0, sizeof k->time);
    k->busy = 0;
    if (warm) {
        cache_clear_times(&k->l1);
        cache_clear_times(&k->l2);
    } else {
        cache_flush(&k->l1);
        cache_flush(&k->l2);
    }
    return 0;
}

static void free_run(cpu_run_t *r)
{
    if (!r)
        return;
    free(r->deps);
    free(r->live);
    free(r);
}

cpu_run_t *cpu_run_begin(cpu_t *c, mem_t *m, const isa_program_t *p, const cpu_launch_t *in,
                         const uint32_t *args, uint32_t nargs, simt_err_t *err)
{
    const cpu_desc_t *d = &c->d;
    cpu_run_t *r = calloc(1, sizeof *r);
    if (!r) {
        simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        return NULL;
    }
    if (check_launch(c, p, in, nargs, r->grid, r->block, err) != 0)
        goto fail;
    if (nargs > ISA_MAX_PARAMS) {   /* check_launch compared it with p->nparams */
        simt_errf(err, SIMT_E_LAUNCH, "kernel '%s' takes too many arguments", p->name);
        goto fail;
    }
    if (nargs)   /* args may be NULL for a kernel without parameters */
        memcpy(r->args, args, nargs * sizeof *args);
    r->cpu = c;
    r->prog = p;
    r->mem = m;
    r->params = r->args;
    r->st = &r->stats;
    r->threads = r->block[0] * r->block[1] * r->block[2];
    r->ngroups = (r->threads + d->simd_width - 1) / d->simd_width;
    r->nregs = p->nregs ? p->nregs : 1;
    r->nblocks = (uint64_t)r->grid[0] * r->grid[1] * r->grid[2];
    r->max_instrs = in->max_instrs ? in->max_instrs : CPU_DEFAULT_MAX_INSTRS;
    r->max_cycles = in->max_cycles;
    r->ncores = r->nblocks < d->cores ? (uint32_t)r->nblocks : d->cores;
    r->deps = calloc(p->ncode ? p->ncode : 1, sizeof *r->deps);
    r->live = calloc((size_t)p->ncode + 1, sizeof *r->live);
    if (!r->deps || !r->live) {
        simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        goto fail;
    }
    sm_decode_deps(p, r->deps);
    live_in_from_deps(p, r->deps, r->live);
    for (uint32_t i = 0; i < r->ncores; i++)
        if (core_prepare(&c->core[i], i, r, in->warm_caches, err) != 0)
            goto fail;
    if (in->warm_caches) {
        cache_clear_times(&c->l3);
    } else {
        cache_flush(&c->l3);
    }
    dram_reset(&c->dram);
    r->state = CPU_RUN_MORE;
    return r;
fail:
    free_run(r);
    return NULL;
}

int cpu_run_observe(cpu_run_t *r, cpu_observer_fn fn, void *user, uint64_t sample_every, simt_err_t *err)
{
    if (r->observe)
        return simt_errf(err, SIMT_E_USAGE, "a CPU launch takes one observer");
    if (r->in_burst || r->stats.instrs)
        return simt_errf(err, SIMT_E_USAGE, "the observer must be added before the run's first step");
    r->observe = fn;
    r->observe_user = user;
    r->sample_every = sample_every;
    r->next_sample = sample_every;
    return 0;
}

/* Samples at multiples of sample_every up to cycle `upto`. */
static void emit_samples(cpu_run_t *r, uint64_t upto)
{
    while (r->observe && r->sample_every && r->next_sample <= upto && r->state == CPU_RUN_MORE) {
        r->now = r->next_sample;
        notify(r, GPU_EV_SAMPLE, 0, NULL, r->next_sample);
        r->next_sample += r->sample_every;
    }
}

/* The final statistics, once every core is finished. */
static void finish_run(cpu_run_t *r)
{
    cpu_t *c = r->cpu;
    const cpu_desc_t *d = &c->d;
    cpu_stats_t *st = &r->stats;
    for (uint32_t i = 0; i < r->ncores; i++)
        st->cycles = max_u64(st->cycles, c->core[i].end);
    for (uint32_t i = 0; i < r->ncores; i++) {
        for (int t = 0; t < CPU_T_COUNT; t++)
            st->time[t] += c->core[i].time[t];
        st->time[CPU_T_IDLE] += st->cycles - c->core[i].end;
    }
    st->time[CPU_T_IDLE] += st->cycles * (d->cores - r->ncores);
    st->time_us = (double)st->cycles / d->clock_mhz;
    st->blocks = r->nblocks;
    st->threads = r->nblocks * r->threads;
    st->cores_used = r->ncores;
    emit_samples(r, st->cycles);
    r->now = st->cycles;
    notify(r, GPU_EV_DONE, 0, NULL, st->cycles);
}

int cpu_run_advance(cpu_run_t *r, uint64_t until, uint64_t max_steps, simt_err_t *err)
{
    cpu_t *c = r->cpu;
    uint64_t steps = 0;
    while (r->state == CPU_RUN_MORE) {
        if (!r->in_burst) {
            /* the core with the smallest clock runs until it passes the next one */
            uint32_t best = UINT32_MAX;
            uint64_t second = UINT64_MAX;
            for (uint32_t i = 0; i < r->ncores; i++) {
                const cpu_core_t *k = &c->core[i];
                if (k->finished)
                    continue;
                if (best == UINT32_MAX || k->fe < c->core[best].fe) {
                    if (best != UINT32_MAX)
                        second = c->core[best].fe;
                    best = i;
                } else if (k->fe < second) {
                    second = k->fe;
                }
            }
            if (best == UINT32_MAX) {
                finish_run(r);
                if (r->state == CPU_RUN_MORE)
                    r->state = CPU_RUN_DONE;
                break;
            }
            r->in_burst = 1;
            r->best = best;
            r->second = second;
        }
        cpu_core_t *k = &c->core[r->best];
        /* every core has reached min(this core, the next one) */
        uint64_t low = k->fe < r->second ? k->fe : r->second;
        emit_samples(r, low);
        if (r->state != CPU_RUN_MORE)
            break;
        r->now = low > r->now ? low : r->now;
        if (k->fe > until || (max_steps && steps >= max_steps)) {
            /* nothing else happens before `until`: only when this core is
             * past it (stopped by max_steps it is not, and the clock must
             * not run ahead of it: a fast-forwarded stage showed that) */
            if (until < UINT64_MAX && until > r->now && r->second > until && k->fe > until)
                r->now = until;
            return CPU_RUN_MORE;
        }
        /* Stop at `until` and at the next sample (to take it on time);
         * the burst goes on from here at the next call, so the order of
         * steps is the same however the run is sliced. */
        uint64_t stop_at = until;
        if (r->observe && r->sample_every && r->next_sample < stop_at)
            stop_at = r->next_sample;
        do {
            if (core_step(c, r->best, r, &r->err) != 0) {
                r->state = CPU_RUN_FAILED;
                break;
            }
            steps++;
        } while (!k->finished && k->fe <= r->second && k->fe < stop_at &&
                 (!max_steps || steps < max_steps) && r->state == CPU_RUN_MORE);
        if (k->finished || k->fe > r->second)
            r->in_burst = 0;
    }
    if (r->state == CPU_RUN_FAILED)
        *err = r->err;
    return r->state;
}

int cpu_run_status(const cpu_run_t *r) { return r->state; }
uint64_t cpu_run_cycle(const cpu_run_t *r) { return r->now; }
const cpu_stats_t *cpu_run_stats(const cpu_run_t *r) { return &r->stats; }
const cpu_desc_t *cpu_run_desc(const cpu_run_t *r) { return &r->cpu->d; }
const isa_program_t *cpu_run_program(const cpu_run_t *r) { return r->prog; }
uint32_t cpu_run_cores(const cpu_run_t *r) { return r->ncores; }
uint64_t cpu_run_blocks_done(const cpu_run_t *r) { return r->blocks_done; }
uint64_t cpu_run_blocks_total(const cpu_run_t *r) { return r->nblocks; }
uint32_t cpu_run_groups_per_block(const cpu_run_t *r) { return r->ngroups; }

int cpu_run_core(const cpu_run_t *r, uint32_t core, cpu_core_view_t *out)
{
    memset(out, 0, sizeof *out);
    if (core >= r->ncores)
        return -1;
    const cpu_core_t *k = &r->cpu->core[core];
    out->cycle = k->fe;
    out->busy = k->busy && !k->finished;
    out->unit = UNIT_COUNT;
    if (!out->busy)
        return 0;
    memcpy(out->ctaid, k->ctaid, sizeof out->ctaid);
    out->group = k->cur;
    if (k->cur < r->ngroups) {
        const warp_t *w = &k->groups[k->cur];
        uint32_t pc = warp_pc(w);
        out->pc = pc;
        if (pc < r->prog->ncode) {
            out->line = r->prog->code[pc].line;
            out->unit = (uint8_t)isa_instr_unit(&r->prog->code[pc]);
        }
    }
    return 0;
}

int cpu_run_end(cpu_run_t *r, cpu_stats_t *out, simt_err_t *err)
{
    int rc = 0;
    if (r->state == CPU_RUN_FAILED) {
        *err = r->err;
        rc = -1;
    } else if (r->state == CPU_RUN_MORE) {
        simt_errf(err, SIMT_E_STOPPED, "kernel '%s' was ended at cycle %" PRIu64 " before it finished",
                  r->prog->name, r->now);
        rc = -1;
    }
    if (out)
        *out = r->stats;
    free_run(r);
    return rc;
}

int cpu_launch(cpu_t *c, mem_t *m, const isa_program_t *p, const cpu_launch_t *in,
               const uint32_t *args, uint32_t nargs, cpu_stats_t *out, simt_err_t *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    cpu_run_t *r = cpu_run_begin(c, m, p, in, args, nargs, err);
    if (!r)
        return -1;
    cpu_run_advance(r, UINT64_MAX, 0, err);
    return cpu_run_end(r, out, err);
}

