/* dram.h - device memory (DRAM/HBM) timing: bandwidth, channels, latency.
 *
 * The DRAM is split into `channels` independent channels (an HBM part's
 * pseudo-channels: 192 on an H200). Consecutive blocks of interleave_bytes
 * (256) go to different channels, every channel once per round of
 * `channels` blocks; an XOR fold of the block number (a power-of-two
 * count) or a hashed rotation of each round (any other count) keeps
 * power-of-two strides, such as the rows of a 4 KB-pitch matrix, off a
 * single channel. Each channel is
 * a timeline: it moves one burst (burst_bytes, = the 32-byte sector) at a
 * time, taking burst_bytes / (bytes_per_cycle / channels) cycles per
 * burst. A request that finds its channel busy waits. Its data is ready at
 *
 *     start = max(now, channel free), ready = start + transfer + latency
 *
 * where latency (lat_dram, 662 cycles on the h200 preset) is the whole
 * unloaded load-to-use time of a DRAM access as a program sees it, less
 * the refresh waits below.
 *
 * bytes_per_cycle is the usable bandwidth: datasheet GB/s / clock, times the
 * preset's dram_efficiency (0.92 where refresh is not modelled: an H200
 * streams 4,410 of its 4,800 GB/s).
 *
 * Refresh (optional: refresh_interval > 0). DRAM must refresh every row
 * once per tREFI (3.9 us on HBM3); during a refresh window a channel moves
 * no data. Channel c is blocked during
 *
 *     [(k + (c + 1/2) / channels) x interval,  ... + refresh_cycles)
 *
 * (the channels take turns, as controllers stagger refresh to spread its
 * power), and a request whose turn on its channel falls in a window starts
 * at the window's end. The requests that arrive meanwhile queue behind it,
 * and the queue drains only as fast as the channel's spare capacity allows:
 * at load rho (the fraction of the channel's time spent moving data) a
 * backlog of one window takes window x rho / (1 - rho) to clear. So the
 * average DRAM latency rises with load well below saturation, and Little's
 * law (bandwidth = bytes in flight / latency) then holds a fixed number of
 * warps below the peak, as on the real chip. A transfer that begins just
 * before a window is not cut (one request's bursts may overlap it). The fraction
 * of time refresh takes, refresh_cycles / interval, is what the datasheet
 * bandwidth loses; dram_efficiency is then 1 (arch/CALIBRATION.md "DRAM
 * refresh and loaded latency").
 *
 * Time is in "ticks", a fixed fraction of a core cycle (ticks_per_cycle),
 * so that a transfer of a fraction of a cycle (one of 16 channels of
 * 4.8 TB/s moves a 32-byte burst in about 0.23 cycles; one of the H200's
 * 192, in about 2.5) still adds up exactly. Integer ticks
 * keep the model deterministic on every machine.
 *
 * No per-cycle work: a request costs O(1), idle channels cost nothing.
 */
#ifndef SIMT_DRAM_H
#define SIMT_DRAM_H

#include <stdint.h>

#include "err.h"
#include "meter.h"

/* Configuration; a plain value copied at init. */
typedef struct dram_cfg {
    uint32_t channels;          /* independent channels (h200: 192)         */
    uint32_t interleave_bytes;  /* bytes per channel block (256), power of 2 */
    uint32_t burst_bytes;       /* bytes per burst (32)                      */
    double bytes_per_cycle;     /* usable bandwidth, whole DRAM, per core cycle */
    uint32_t latency;           /* cycles from start of service to data ready */
    uint32_t ticks_per_cycle;   /* time resolution (memsys: 1024)            */
    double refresh_interval;    /* cycles between a channel's refresh windows
                                   (tREFI); 0 = no refresh                   */
    double refresh_cycles;      /* cycles a refresh window blocks its channel */
} dram_cfg_t;

typedef struct dram_stats {
    uint64_t read_bytes;        /* bytes read (whole bursts)                */
    uint64_t write_bytes;       /* bytes written (whole bursts)             */
    uint64_t requests;          /* dram_access calls                        */
    uint64_t wait_ticks;        /* sum over requests of start - now (queue
                                   and refresh)                             */
    uint64_t refresh_waits;     /* requests whose turn fell in a refresh window */
    uint64_t refresh_ticks;     /* their waits for the window's end         */
} dram_stats_t;

typedef struct dram {
    dram_cfg_t cfg;             /* copy of the configuration                */
    uint64_t burst_ticks;       /* ticks one burst occupies its channel     */
    uint64_t latency_ticks;     /* cfg.latency in ticks                     */
    uint32_t hash_shift;        /* bits in a channel number, ceil(log2 channels) */
    uint64_t refi_ticks;        /* refresh_interval in ticks; 0 = no refresh */
    uint64_t rfc_ticks;         /* refresh_cycles in ticks                  */
    uint64_t *free_at;          /* per channel: tick it can start the next burst; owned */
    uint64_t *busy_ticks;       /* per channel: ticks spent transferring; owned */
    dram_stats_t st;            /* counters since init / dram_reset         */
    meter_t *meter;             /* optional: busy ticks by cycle (not owned) */
} dram_t;

/* Set up the channels (all idle at tick 0). Fails with SIMT_E_USAGE naming
 * the bad field (channels 0, interleave not a power of two, burst 0,
 * bytes_per_cycle <= 0, ticks_per_cycle 0, a refresh window not shorter
 * than its interval) or SIMT_E_NOMEM. On failure d owns nothing. */
int dram_init(dram_t *d, const dram_cfg_t *cfg, simt_err_t *err);
void dram_free(dram_t *d);

/* Make every channel idle at tick 0 and zero the counters. */
void dram_reset(dram_t *d);

/* Channel that serves byte address addr. */
uint32_t dram_channel(const dram_t *d, uint64_t addr);

/* The share of time a channel can move data: 1 - refresh_cycles /
 * refresh_interval (1 without refresh). */
double dram_busy_fraction_max(const dram_t *d);

/* Read or write `bytes` (rounded up to whole bursts, all on addr's channel)
 * arriving at tick `now`. Occupies the channel from start = max(now, its
 * free tick), moved to the end of a refresh window it falls in, for the
 * transfer. Returns the tick the data is ready
 * (start + transfer + latency); *start (may be NULL) gets the start tick.
 * Counts bytes. Requests may arrive in any order; a request always queues
 * behind every earlier-made request on its channel. */
uint64_t dram_access(dram_t *d, uint64_t now, uint64_t addr, uint32_t bytes,
                     int is_write, uint64_t *start);

#endif
