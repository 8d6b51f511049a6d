/* rates.c - the derived figures of a launch (see rates.h). */
#include "rates.h"

void gpu_rates(const gpu_stats_t *st, const gpu_desc_t *d, gpu_rates_t *out)
{
    double secs = st->time_us * 1e-6;
    double slots = (double)st->issue_slots;
    uint64_t stalled = 0, l1 = st->l1_hits + st->l1_misses, l2 = st->l2_hits + st->l2_misses;
    for (int i = 0; i < STALL_COUNT; i++)
        stalled += st->stalls[i];
    out->ipc = rate_ratio((double)st->warp_instrs, (double)st->cycles);
    out->tflops = rate_per_s((double)st->flops, secs, 1e12);
    out->dram_gbs = rate_per_s((double)st->dram_bytes, secs, 1e9);
    out->l1_gbs = rate_per_s((double)l1 * d->sector_bytes, secs, 1e9);
    out->l2_gbs = rate_per_s((double)l2 * d->sector_bytes, secs, 1e9);
    out->l1_hit_rate = rate_ratio((double)st->l1_hits, (double)l1);
    out->l2_hit_rate = rate_ratio((double)st->l2_hits, (double)l2);
    out->lane_utilisation = rate_ratio((double)st->thread_instrs, (double)st->warp_instrs * 32.0);
    out->issued_slots = st->issue_slots >= stalled ? st->issue_slots - stalled : 0;
    for (int i = 0; i < STALL_COUNT; i++)
        out->stall_frac[i] = rate_ratio((double)st->stalls[i], slots);
    out->issued_frac = st->issue_slots >= stalled ? rate_ratio((double)out->issued_slots, slots) : 0.0;
}

void cpu_rates(const cpu_stats_t *st, const cpu_desc_t *d, cpu_rates_t *out)
{
    double secs = st->time_us * 1e-6, total = 0;
    out->gflops = rate_per_s((double)st->flops, secs, 1e9);
    out->tflops = rate_per_s((double)st->flops, secs, 1e12);
    out->dram_gbs = rate_per_s((double)st->dram_bytes, secs, 1e9);
    out->ipc = rate_ratio((double)st->instrs, (double)st->cycles * (st->cores_used ? st->cores_used : 1));
    out->lane_utilisation = rate_ratio((double)st->thread_instrs, (double)st->instrs * d->simd_width);
    for (int i = 0; i < CPU_T_COUNT; i++)
        total += (double)st->time[i];
    for (int i = 0; i < CPU_T_COUNT; i++)
        out->time_frac[i] = rate_ratio((double)st->time[i], total);
}
