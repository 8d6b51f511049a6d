/* rates.h - the derived figures of a launch, computed in one place.
 *
 * A launch counts things (gpu_stats_t, cpu_stats_t: cycles, instructions,
 * bytes, flops); what a student reads are rates made from those counts:
 * IPC, TFLOP/s, GB/s, hit rates, lane utilisation, stall fractions and
 * occupancy. Every reader takes them from here: the Lua result tables
 * (sim/script/lsimt.c, lcpu.c), so `--stats` and the exports, which write
 * those tables, and the trace's counters (sim/io/trace.c). A rate of
 * nothing (a zero denominator) is 0, not NaN.
 *
 * The GB/s and TFLOP/s are per second of simulated time (time_us, at the
 * clock the power model sustains, power.h).
 */
#ifndef SIMT_RATES_H
#define SIMT_RATES_H

#include <stdint.h>

#include "cpu.h"
#include "gpu.h"

/* a / b, or 0 when b is not positive. */
static inline double rate_ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

/* count per second of `secs`, scaled by 1/unit (1e9: giga, 1e12: tera). */
static inline double rate_per_s(double count, double secs, double unit) { return rate_ratio(count, secs) / unit; }

/* Giga per second of `count` (bytes: GB/s; FLOP: GFLOP/s) done in
 * `cycles` cycles at clock_mhz (cycles > 0): count per cycle x cycles per
 * microsecond / 1e3. */
static inline double rate_giga_in_cycles(double count, double cycles, double clock_mhz)
{
    return count / cycles * clock_mhz / 1e3;
}

/* Occupancy: warps resident on an SM against the warps it can hold. */
static inline double rate_occupancy(uint64_t warps_per_sm, uint32_t max_threads_per_sm)
{
    return (double)warps_per_sm / (double)(max_threads_per_sm / 32);
}

/* A GPU launch's rates. */
typedef struct gpu_rates {
    double ipc;                     /* warp instructions per cycle (whole GPU)  */
    double tflops;                  /* flops per second / 1e12                  */
    double dram_gbs;                /* bytes to/from DRAM per second / 1e9      */
    double l1_gbs, l2_gbs;          /* sectors looked up, as bytes per second   */
    double l1_hit_rate, l2_hit_rate;  /* of sectors looked up                   */
    double lane_utilisation;        /* active lanes per warp instruction / 32   */
    uint64_t issued_slots;          /* scheduler-cycles that issued             */
    double stall_frac[STALL_COUNT]; /* fractions of issue_slots ...             */
    double issued_frac;             /* ... with the issuing ones: sum 1         */
} gpu_rates_t;

void gpu_rates(const gpu_stats_t *st, const gpu_desc_t *d, gpu_rates_t *out);

/* A CPU launch's rates. */
typedef struct cpu_rates {
    double gflops, tflops;          /* flops per second / 1e9, / 1e12           */
    double dram_gbs;                /* bytes to/from DRAM per second / 1e9      */
    double ipc;                     /* SIMD instructions per cycle per core used */
    double lane_utilisation;        /* active lanes per SIMD instruction / width */
    double time_frac[CPU_T_COUNT];  /* core-cycles by cpu_time_t, summing to 1  */
} cpu_rates_t;

void cpu_rates(const cpu_stats_t *st, const cpu_desc_t *d, cpu_rates_t *out);

#endif
