/* power.c - energy per launch and the clock a power limit sustains (power.h). */
#include "power.h"

int power_tc_index(isa_type_t t)
{
    switch (t) {
    case T_F16: return 0;
    case T_BF16: return 1;
    case T_TF32: return 2;
    case T_E4M3: case T_E5M2: return 3;
    default: return -1;
    }
}

int power_enabled(const gpu_desc_t *d)
{
    return d->power_static_w > 0.0 && d->tdp_watts > 0.0;
}

void power_energy(const gpu_desc_t *d, const gpu_stats_t *st, power_energy_t *e)
{
    const double pj = 1e-12;
    double l1_bytes = (double)st->gld_bytes + (double)st->gst_bytes + (double)st->sld_bytes
                      + (double)st->sst_bytes;
    double l2_bytes = (double)(st->l2_hits + st->l2_misses) * d->sector_bytes;
    e->instr = (double)st->warp_instrs * d->power_pj_instr * pj;
    e->fp32 = (double)st->lane_ops[UNIT_FMA] * d->power_pj_fp32 * pj;
    e->integer = (double)st->lane_ops[UNIT_ALU] * d->power_pj_int * pj;
    e->sfu = (double)st->lane_ops[UNIT_SFU] * d->power_pj_sfu * pj;
    e->tensor = ((double)st->tc_flops[0] * d->power_pj_tc_f16 + (double)st->tc_flops[1] * d->power_pj_tc_bf16
                 + (double)st->tc_flops[2] * d->power_pj_tc_tf32 + (double)st->tc_flops[3] * d->power_pj_tc_fp8)
                * pj;
    e->l1 = l1_bytes * d->power_pj_byte_l1 * pj;
    e->l2 = l2_bytes * d->power_pj_byte_l2 * pj;
    e->dram = (double)st->dram_bytes * d->power_pj_byte_dram * pj;
    e->core = e->instr + e->fp32 + e->integer + e->sfu + e->tensor + e->l1 + e->l2;
}

double power_volt(const gpu_desc_t *d, double mhz)
{
    double r = d->clock_mhz > 0.0 ? mhz / d->clock_mhz : 1.0;
    double v = 1.0 - d->power_volt_slope * (1.0 - r);
    return v > 0.0 ? v : 0.0;
}

double power_at(const gpu_desc_t *d, double e_core_j, double e_dram_j, double t_boost_us,
                double t_dram_us, double mhz, power_point_t *pt)
{
    double r = d->clock_mhz > 0.0 && mhz > 0.0 ? mhz / d->clock_mhz : 1.0;
    double v = power_volt(d, mhz);
    double t = t_boost_us / r;
    double t_min = t_dram_us < t_boost_us ? t_dram_us : t_boost_us;  /* at boost: t_boost */
    if (t_min > t)
        t = t_min;
    double e_static = d->power_static_w * t * 1e-6;
    double e = e_core_j * v * v + e_dram_j + e_static;
    double p = t > 0.0 ? e / (t * 1e-6) : d->power_static_w;
    if (pt) {
        pt->clock_mhz = mhz;
        pt->time_us = t;
        pt->energy_j = e;
        pt->power_w = p;
        pt->energy_dram_j = e_dram_j;
        pt->energy_static_j = e_static;
    }
    return p;
}

void power_solve(const gpu_desc_t *d, double e_core_j, double e_dram_j, double t_boost_us,
                 double t_dram_us, power_point_t *pt)
{
    double boost = d->clock_mhz;
    double p_boost = power_at(d, e_core_j, e_dram_j, t_boost_us, t_dram_us, boost, pt);
    if (p_boost > d->tdp_watts && d->tdp_watts > 0.0) {
        double lo = d->power_mhz_min > 0.0 && d->power_mhz_min < boost ? d->power_mhz_min : boost * 0.5;
        double hi = boost;
        if (power_at(d, e_core_j, e_dram_j, t_boost_us, t_dram_us, lo, NULL) >= d->tdp_watts) {
            hi = lo;   /* even the lowest clock is over the limit: report it there */
        } else {
            for (int i = 0; i < 50; i++) {   /* P rises with f: bisect P(f) = TDP */
                double mid = 0.5 * (lo + hi);
                if (power_at(d, e_core_j, e_dram_j, t_boost_us, t_dram_us, mid, NULL) > d->tdp_watts)
                    hi = mid;
                else
                    lo = mid;
            }
            hi = lo;   /* the highest clock found at or under the limit */
        }
        power_at(d, e_core_j, e_dram_j, t_boost_us, t_dram_us, hi, pt);
    }
    pt->power_boost_w = p_boost;
}

void power_apply(const gpu_desc_t *d, gpu_stats_t *st, double t_dram_us)
{
    double t_boost = d->clock_mhz > 0.0 ? (double)st->cycles / d->clock_mhz : 0.0;
    st->time_us_boost = t_boost;
    st->time_us = t_boost;
    st->clock_mhz_sustained = d->clock_mhz;
    st->energy_j = st->avg_power_w = st->power_boost_w = 0.0;
    st->energy_dram_j = st->energy_static_j = 0.0;
    if (!power_enabled(d))
        return;
    power_energy_t e;
    power_point_t pt;
    power_energy(d, st, &e);
    power_solve(d, e.core, e.dram, t_boost, t_dram_us, &pt);
    st->time_us = pt.time_us;
    st->clock_mhz_sustained = pt.clock_mhz;
    st->energy_j = pt.energy_j;
    st->avg_power_w = pt.power_w;
    st->power_boost_w = pt.power_boost_w;
    st->energy_dram_j = pt.energy_dram_j;
    st->energy_static_j = pt.energy_static_j;
}
