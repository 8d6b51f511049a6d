/* cpu_time.c - how long one instruction takes on a CPU core (cpu.h has the
 * model, cpu_int.h the core): dispatch into the reorder buffer, operands,
 * a port of its unit, loads and stores through the core's L1 and L2, the
 * shared L3 and DRAM, and in-order retirement; and the register saves and
 * reloads a CPU runtime makes at a barrier, timed as SIMD stores and
 * loads.
 */
#include "cpu_int.h"

#include <string.h>

/* ---- memory hierarchy --------------------------------------------------------- */

/* DRAM ready tick -> cycle (rounded up). */
static uint64_t ticks_to_cycle(uint64_t t) { return (t + CPU_TICKS_PER_CYCLE - 1) / CPU_TICKS_PER_CYCLE; }

/* Write a dirty line evicted from level `from` (1: L1, 2: L2, 3: L3) into
 * the next level at cycle t: bandwidth only, nobody waits for it. */
static void write_back(cpu_t *c, cpu_core_t *k, int from, uint32_t addr, uint64_t t, cpu_stats_t *st)
{
    cache_info_t ci;
    while (from < 3) {
        cache_t *next = from == 1 ? &k->l2 : &c->l3;
        cache_lookup(next, addr, 1, 1, NULL, &ci);
        if (!ci.evicted || !ci.victim_dirty)
            return;
        addr = ci.victim_addr;
        from++;
    }
    dram_access(&c->dram, t * CPU_TICKS_PER_CYCLE, addr, c->d.line_bytes, 1, NULL);
    st->dram_bytes += c->d.line_bytes;
}

/* Access the line holding addr at cycle t (a load, or a store, which
 * reads the line for ownership when it misses). Returns the cycle its data
 * is ready; *beyond_l1 = 1 if it came from L2, L3 or DRAM. */
static uint64_t line_access(cpu_t *c, cpu_core_t *k, uint32_t addr, int is_store, uint64_t t,
                            int *beyond_l1, cpu_stats_t *st)
{
    const cpu_desc_t *d = &c->d;
    cache_info_t c1, c2, c3;
    uint64_t ready;
    uint32_t hit = cache_lookup(&k->l1, addr, 1, is_store, NULL, &c1);
    if (c1.evicted && c1.victim_dirty)
        write_back(c, k, 1, c1.victim_addr, t, st);
    if (hit) {
        st->l1_hits++;
        *beyond_l1 = 0;
        return max_u64(t + d->lat_l1, c1.ready);
    }
    st->l1_misses++;
    *beyond_l1 = 1;
    hit = cache_lookup(&k->l2, addr, 1, 0, NULL, &c2);
    if (c2.evicted && c2.victim_dirty)
        write_back(c, k, 2, c2.victim_addr, t, st);
    if (hit) {
        st->l2_hits++;
        ready = max_u64(t + d->lat_l2, c2.ready);
    } else {
        st->l2_misses++;
        hit = cache_lookup(&c->l3, addr, 1, 0, NULL, &c3);
        if (c3.evicted && c3.victim_dirty)
            write_back(c, k, 3, c3.victim_addr, t, st);
        if (hit) {
            st->l3_hits++;
            ready = max_u64(t + d->lat_l3, c3.ready);
        } else {
            st->l3_misses++;
            ready = ticks_to_cycle(dram_access(&c->dram, t * CPU_TICKS_PER_CYCLE, addr, d->line_bytes, 0, NULL));
            st->dram_bytes += d->line_bytes;
            cache_set_ready(&c->l3, c3.slot, 1, ready);
        }
        cache_set_ready(&k->l2, c2.slot, 1, ready);
    }
    cache_set_ready(&k->l1, c1.slot, 1, ready);
    return ready;
}

/* The cache lines one SIMD access touches (in lane order, each once) and
 * the load/store port cycles it costs: one per line when the active lanes
 * read one word (a broadcast) or consecutive words, else one per lane (a
 * gather or scatter). Sets *gather. Returns the port cycles (at least 1). */
static uint32_t simd_lines(const exec_info_t *info, uint32_t shift, uint32_t lines[64],
                           uint32_t *nlines, int *gather)
{
    uint32_t nlanes = 0, first = 32, n = 0;
    int uniform = 1, contiguous = 1;
    for (uint32_t l = 0; l < 32; l++) {
        if (!(info->mask >> l & 1u))
            continue;
        uint32_t a = info->addrs[l];
        if (first == 32)
            first = l;
        uniform &= a == info->addrs[first];
        contiguous &= a == info->addrs[first] + info->bytes * (l - first);
        /* its first and last byte's lines (an access may cross a line) */
        uint32_t ends[2] = { a >> shift, (a + info->bytes - 1) >> shift };
        for (int e = 0; e < 2; e++) {
            uint32_t j = 0;
            while (j < n && lines[j] != ends[e])
                j++;
            if (j == n)
                lines[n++] = ends[e];
        }
        nlanes++;
    }
    *nlines = n;
    *gather = nlanes > 1 && !(uniform || contiguous);
    if (nlanes == 0)
        return 1;
    return *gather ? nlanes : n;
}

/* Time one SIMD global access starting at cycle t. Returns the cycle the
 * last line's data is ready; *port_cycles as simd_lines; *beyond_l1 as in
 * line_access. */
static uint64_t global_access(cpu_t *c, cpu_core_t *k, const exec_info_t *info, uint64_t t,
                              uint32_t *port_cycles, int *beyond_l1, cpu_stats_t *st)
{
    uint32_t lines[64], nlines, shift = 0;
    int gather;
    while ((1u << shift) < c->d.line_bytes)
        shift++;
    *port_cycles = simd_lines(info, shift, lines, &nlines, &gather);
    st->gathers += (uint64_t)gather;
    uint64_t ready = t;
    *beyond_l1 = 0;
    for (uint32_t j = 0; j < nlines; j++) {
        int far;
        uint64_t r = line_access(c, k, lines[j] << shift, info->is_store, t, &far, st);
        ready = max_u64(ready, r);
        *beyond_l1 |= far;
    }
    return ready;
}

/* ---- timing of one instruction ------------------------------------------------- */

/* Earliest-free port of a unit (row) and its index. */
static uint32_t pick_port(const uint64_t *ports, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (ports[i] < ports[best])
            best = i;
    return best;
}

/* Step 1, dispatch: issue_width instructions per cycle, and a free
 * reorder-buffer entry (*slot). Returns the dispatch cycle. */
static inline uint64_t dispatch(cpu_core_t *k, const cpu_desc_t *d, uint32_t *slot)
{
    if (k->fe_used >= d->issue_width) {
        k->fe++;
        k->fe_used = 0;
        k->time[CPU_T_COMPUTE]++;
    }
    *slot = (uint32_t)(k->n % d->rob_size);
    if (k->n >= d->rob_size && k->rob[*slot] > k->fe) {
        k->time[k->rob_mem[*slot] ? CPU_T_MEMORY : CPU_T_COMPUTE] += k->rob[*slot] - k->fe;
        k->fe = k->rob[*slot];
        k->fe_used = 0;
    }
    return k->fe;
}

/* Step 2, operands (register renaming: only true dependencies wait; an
 * in-order core also waits for its destination and the instruction
 * before). Returns when they are ready, from disp on; *wait_mem = 1 if the
 * last of them comes from memory. */
static inline uint64_t operands_ready(const cpu_core_t *k, const cpu_desc_t *d, const warp_t *w,
                                      const sm_deps_t *dep, uint64_t disp, int *wait_mem)
{
    uint64_t t = disp;
    *wait_mem = 0;
    for (uint32_t i = 0; i < dep->nsrc; i++)
        for (uint32_t j = 0; j < dep->src_n[i]; j++) {   /* a range: st.v4, wmma */
            uint64_t rt = w->reg_ready[dep->src[i] + j];
            if (rt > t) {
                t = rt;
                *wait_mem = warp_reg_mem(w, dep->src[i] + j);
            }
        }
    for (uint32_t i = 0; i < 3 && dep->psrc[i] != ISA_NO_REG; i++)
        if (w->pred_ready[dep->psrc[i]] > t) {
            t = w->pred_ready[dep->psrc[i]];
            *wait_mem = 0;
        }
    if (d->in_order) {
        for (uint32_t j = 0; dep->dst != ISA_NO_REG && j < dep->dst_n; j++)
            if (w->reg_ready[dep->dst + j] > t)
                t = w->reg_ready[dep->dst + j];
        if (k->last_start > t)
            t = k->last_start;
    }
    return t;
}

/* Step 3's unit: which row of port_free the instruction uses, how many
 * ports that unit has, how long one stays busy and the latency. */
typedef struct port_use {
    uint32_t row, nports, busy, lat;
} port_use_t;

static inline port_use_t port_use(const cpu_desc_t *d, uint32_t unit, const exec_info_t *info, int is_mem)
{
    port_use_t u = { .row = unit, .nports = d->alu_ports, .busy = 1, .lat = d->lat_alu };
    switch (unit) {
    case UNIT_FMA: u.nports = d->fma_ports; u.lat = d->lat_fma; break;
    case UNIT_SFU: u.nports = d->sfu_ports; u.lat = d->lat_sfu; u.busy = d->sfu_interval; break;
    case UNIT_LSU:
        if (is_mem && info->is_store && info->op == OP_ST) {
            u.row = UNIT_COUNT;
            u.nports = d->store_ports;
        } else if (is_mem) {
            u.nports = d->load_ports;
        } else {
            u.row = UNIT_ALU;           /* ld.param: the argument is in a register */
        }
        break;
    case UNIT_BAR: u.lat = 1; break;   /* a barrier ends one work-item loop: no wait */
    default: u.row = UNIT_ALU; break;  /* ALU, branch, exit, nop */
    }
    return u;
}

/* The bytes of a global load or store (ctx: a register save or reload). */
static inline void count_bytes(cpu_stats_t *st, const exec_info_t *info, uint64_t bytes, int ctx)
{
    if (ctx)
        st->spill_bytes += bytes;
    else if (info->is_store)
        st->st_bytes += bytes;
    else
        st->ld_bytes += bytes;
}

/* Step 5, results and retirement (in order): the destination is ready at
 * `done` (result_mem: from memory), and the reorder buffer's entry slot
 * retires after the instruction before. */
static inline void retire(cpu_core_t *k, const cpu_desc_t *d, warp_t *w, const sm_deps_t *dep, uint32_t slot,
                          uint64_t done, int result_mem, int taken)
{
    if (dep->dst != ISA_NO_REG) {
        for (uint32_t j = 0; j < dep->dst_n; j++) {   /* ld.v4: all at once */
            w->reg_ready[dep->dst + j] = done;
            warp_set_reg_mem(w, dep->dst + j, result_mem);
        }
    }
    if (dep->pdst != ISA_NO_REG)
        w->pred_ready[dep->pdst] = done;
    if (done >= k->last_retire) {
        k->last_retire = done;
        k->last_retire_mem = (uint8_t)result_mem;
    }
    k->rob[slot] = k->last_retire;
    k->rob_mem[slot] = k->last_retire_mem;
    k->n++;
    k->fe_used++;
    if (taken)
        k->fe_used = d->issue_width;   /* a taken branch ends the fetch group */
}

void cpu_time_instr(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, warp_t *w, const sm_deps_t *dep,
                    const exec_info_t *info, int taken, int ctx)
{
    const cpu_desc_t *d = &c->d;
    uint32_t slot;
    uint64_t disp = dispatch(k, d, &slot);                 /* 1. */
    int wait_mem;
    uint64_t t = operands_ready(k, d, w, dep, disp, &wait_mem);   /* 2. */

    /* 3. a port of its unit */
    uint32_t unit = dep->unit;
    int is_mem = unit == UNIT_LSU && info->space != SPACE_PARAM;
    port_use_t u = port_use(d, unit, info, is_mem);
    uint64_t *ports = k->port_free[u.row];
    uint32_t p = pick_port(ports, u.nports);
    if (unit != UNIT_BAR && ports[p] > t) {
        t = ports[p];
        wait_mem = 0;
    }

    /* 4. start and finish */
    uint64_t done = t + u.lat;
    int result_mem = wait_mem && t > disp;
    if (is_mem) {
        /* (here, not in a function of its own: with lines[] on its stack
         * GCC would not inline it, +2% host instructions on a CPU run) */
        int far = 0;
        uint64_t bytes = 0;
        for (uint32_t m = info->mask; m; m &= m - 1)
            bytes += info->bytes;
        if (info->space == SPACE_SHARED) {
            /* shared memory is an ordinary per-core buffer that stays in L1 */
            uint32_t lines[64], nlines, shift = 0;
            int gather;
            while ((1u << shift) < d->line_bytes)
                shift++;
            u.busy = simd_lines(info, shift, lines, &nlines, &gather);
            done = t + d->lat_l1;
        } else {
            done = global_access(c, k, info, t, &u.busy, &far, r->st);
            if (info->is_store && info->op == OP_ST)
                done = t + 1;               /* the store buffer takes it */
            count_bytes(r->st, info, bytes, ctx);
        }
        /* the store data path is CPU_STORE_BYTES_PER_CYCLE wide */
        if (info->is_store && info->op == OP_ST) {
            uint32_t data = (uint32_t)((bytes + CPU_STORE_BYTES_PER_CYCLE - 1) / CPU_STORE_BYTES_PER_CYCLE);
            if (data > u.busy)
                u.busy = data;
        }
        result_mem |= far;
    }
    if (unit != UNIT_BAR)
        ports[p] = t + u.busy;
    if (d->in_order && t > disp) {
        /* an in-order core's front end waits for the instruction to start */
        k->time[result_mem || wait_mem ? CPU_T_MEMORY : CPU_T_COMPUTE] += t - disp;
        k->fe = t;
        k->fe_used = 0;
    }
    k->last_start = t;
    retire(k, d, w, dep, slot, done, result_mem, taken);   /* 5. */
}

/* ---- register save and restore at barriers -------------------------------------- */

/* A made-up SIMD access of register reg of group g (its lanes: mask) to
 * the core's context area: the runtime's array ctx_reg[thread] for that
 * register, so the group's lanes are consecutive words. */
static void ctx_access(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, warp_t *w, uint32_t g,
                       uint32_t reg, int store)
{
    uint32_t W = c->d.simd_width;
    uint32_t lane0 = (g * W) % WARP_SIZE;
    exec_info_t info;
    memset(&info, 0, sizeof info);
    info.op = store ? OP_ST : OP_LD;
    info.space = SPACE_GLOBAL;
    info.is_store = (uint8_t)store;
    info.bytes = 4;
    info.parts = 1;
    info.mask = w->live;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        if (w->live >> l & 1u)
            info.addrs[l] = CPU_CTX_BASE + (uint32_t)(((uint64_t)k->ctx_off +
                            ((uint64_t)reg * r->ngroups * W + g * W + (l - lane0)) * 4u) % CPU_CTX_WINDOW);
    sm_deps_t dep;
    memset(&dep, 0, sizeof dep);
    dep.unit = UNIT_LSU;
    dep.dst = dep.pdst = ISA_NO_REG;
    dep.psrc[0] = dep.psrc[1] = dep.psrc[2] = ISA_NO_REG;
    dep.dst_n = 1;
    if (store) {
        dep.nsrc = 1;
        dep.src[0] = (uint8_t)reg;
        dep.src_n[0] = 1;
    } else {
        dep.dst = (uint8_t)reg;
    }
    cpu_time_instr(c, k, r, w, &dep, &info, 0, 1);
    r->st->spill_instrs++;
}

/* Group g of core k has just executed the bar.sync at pc: store every
 * register live after the barrier (one SIMD store each) and remember them
 * for cpu_restore_regs. This is what a CPU runtime pays to run many threads on
 * one core between barriers (cpu.h, "Barriers"). */
void cpu_save_regs(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, uint32_t g, uint32_t pc)
{
    const isa_regset_t *m = &r->live[pc + 1];
    warp_t *w = &k->groups[g];
    uint64_t any = 0;
    for (uint32_t reg = 0; reg < ISA_NUM_REGS; reg++)
        if (isa_regset_has(m, reg))
            ctx_access(c, k, r, w, g, reg, 1);
    for (uint32_t i = 0; i < ISA_REG_WORDS; i++)
        any |= m->w[i];
    k->fill[g] = *m;
    k->filled[g] = any != 0;
}

/* Group g is about to run again after a barrier: reload its saved
 * registers (one SIMD load each; later instructions wait for them). */
void cpu_restore_regs(cpu_t *c, cpu_core_t *k, const cpu_run_t *r, uint32_t g)
{
    const isa_regset_t *m = &k->fill[g];
    warp_t *w = &k->groups[g];
    for (uint32_t reg = 0; reg < ISA_NUM_REGS; reg++)
        if (isa_regset_has(m, reg))
            ctx_access(c, k, r, w, g, reg, 0);
    memset(&k->fill[g], 0, sizeof k->fill[g]);
    k->filled[g] = 0;
}
