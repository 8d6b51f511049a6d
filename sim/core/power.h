/* power.h - energy per launch and the clock a power limit sustains.
 *
 * A launch's dynamic energy is the sum of what it did, each priced at the
 * preset's energy per event (gpu_desc_t power_*): warp instructions issued,
 * lane operations per unit (FP32, integer, SFU), Tensor Core FLOP per input
 * format, and bytes moved through L1/shared memory, the L2 slices and DRAM.
 * Static power (leakage, idle) adds power_static_w for the whole time.
 *
 * The clock. The timing model counts cycles at the boost clock (clock_mhz).
 * A real GPU lowers its clock (DVFS) when the board would draw more than
 * its limit (tdp_watts). At clock f, with r = f / clock_mhz:
 *   core voltage     v(r) = 1 - power_volt_slope x (1 - r)   (relative)
 *   time             t(f) = max(t_boost / r, t_dram)
 *   energy           E(f) = E_core x v(r)^2 + E_dram + power_static_w x t(f)
 *   power            P(f) = E(f) / t(f)
 * where t_boost = cycles / clock_mhz, E_core is the core-domain dynamic
 * energy at the boost voltage (dynamic energy per event ~ C V^2), E_dram is
 * the DRAM energy (its own supply, not scaled) and t_dram the time DRAM
 * needs for the launch's bytes at its usable rate (DRAM runs on its own
 * clock, so a launch cannot get faster than that however the core clock
 * goes; for a compute-bound launch t_boost / r is the larger). If P at the
 * boost clock is at most tdp_watts, the launch keeps the boost clock;
 * otherwise the clock is the f in [power_mhz_min, clock_mhz] with
 * P(f) = tdp_watts (P rises with f; bisection, a fixed number of steps, so
 * results are deterministic). Assumptions and sources: arch/CALIBRATION.md
 * "Power and sustained clocks".
 */
#ifndef SIMT_POWER_H
#define SIMT_POWER_H

#include "gpu.h"

/* Index of gpu_stats_t.tc_flops for input type t (f16 0, bf16 1, tf32 2,
 * e4m3/e5m2 3); -1 for a type with no Tensor Core format. */
int power_tc_index(isa_type_t t);

/* 1 if the description has a power model (power_static_w > 0 and
 * tdp_watts > 0). */
int power_enabled(const gpu_desc_t *d);

/* The parts of a launch's dynamic energy, in joules at the boost voltage. */
typedef struct power_energy {
    double instr, fp32, integer, sfu;   /* issue overhead and lane ops     */
    double tensor;                      /* Tensor Core FLOP, all formats   */
    double l1, l2;                      /* bytes through L1/shared, L2     */
    double dram;                        /* bytes to/from DRAM              */
    double core;                        /* all but dram                    */
} power_energy_t;

void power_energy(const gpu_desc_t *d, const gpu_stats_t *st, power_energy_t *e);

/* Relative core voltage at clock mhz (1 at clock_mhz). */
double power_volt(const gpu_desc_t *d, double mhz);

/* The solver's inputs and outputs. */
typedef struct power_point {
    double clock_mhz;       /* sustained clock                              */
    double time_us;         /* t(f)                                         */
    double energy_j;        /* E(f)                                         */
    double power_w;         /* P(f)                                         */
    double power_boost_w;   /* P(clock_mhz)                                 */
    double energy_dram_j, energy_static_j;
} power_point_t;

/* Power at clock mhz of a launch with core energy e_core_j (at the boost
 * voltage), DRAM energy e_dram_j, boost time t_boost_us and DRAM floor
 * t_dram_us; fills *pt (may be NULL) and returns the power in watts. */
double power_at(const gpu_desc_t *d, double e_core_j, double e_dram_j, double t_boost_us,
                double t_dram_us, double mhz, power_point_t *pt);

/* The clock the TDP sustains for such a launch, and its time, energy and
 * power there (see the top of this file). */
void power_solve(const gpu_desc_t *d, double e_core_j, double e_dram_j, double t_boost_us,
                 double t_dram_us, power_point_t *pt);

/* After a run: fill the energy, power and clock fields of *st and set
 * st->time_us to the time at the sustained clock. t_dram_us: the DRAM
 * floor (dram bytes / usable DRAM rate). Without a power model the fields
 * say so (energy 0, clock_mhz_sustained = clock_mhz) and time_us stays
 * cycles / clock_mhz. */
void power_apply(const gpu_desc_t *d, gpu_stats_t *st, double t_dram_us);

#endif
