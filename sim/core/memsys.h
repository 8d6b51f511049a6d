/* memsys.h - the memory hierarchy of the timing model: per-SM LSU, L1 and
 * shared memory, the chip's sliced L2, and DRAM.
 *
 * How it is used. The simulator executes a warp's load or store
 * functionally when it issues it (the data moves at once, see mem.h) and
 * then asks this module WHEN the data is ready:
 *
 *     ready = memsys_access(ms, sm, now, &req, &res);
 *
 * There is no per-cycle ticking. Every shared resource is a timeline, the
 * tick at which it is next free: each SM's LSU data pipe, each SM's miss
 * registers (MSHRs), each L2 slice and each DRAM channel. A request takes
 * max(arrival, free) as its start and pushes `free` forward by its
 * occupancy, so a busy resource makes later requests wait; idle ones cost
 * nothing. Calls for one SM must come in non-decreasing `now`; SMs may
 * interleave, and the model is most faithful when calls are made in (near)
 * global time order, e.g. by a loop that steps all SMs cycle by cycle.
 *
 * Shared memory (space MEMSYS_SHARED):
 *   wavefronts = lsu_bank_wavefronts(...); start = max(now, LSU free);
 *   the LSU pipe is busy for `wavefronts` cycles (bank conflicts cost
 *   throughput), load ready = start + lat_smem + (wavefronts - 1). A wide
 *   access (ld/st.shared .v2/.v4: 8 or 16 bytes per lane) also needs the
 *   128 B/cycle data path: a contiguous .v4 is 4 wavefronts, a broadcast
 *   one 2 (lsu.h, with sources).
 *
 * Global memory (space MEMSYS_GLOBAL), per coalesced line, in address order:
 *   1. LSU: one tag lookup per line per cycle (the L1 and shared memory
 *      share this pipe, as in NVIDIA's SMs: 128 bytes per cycle). So a
 *      warp's ld.global.v4 of 512 contiguous bytes (isa.h) is one issued
 *      instruction that holds the LSU 4 cycles: 4 lines, 16 sectors, as
 *      four scalar loads of the same bytes would.
 *   2. L1 (per SM, write-through, no allocate on store): hit sectors are
 *      ready lat_l1 after the lookup (or when a fill still in flight lands).
 *   3. A load line with missed sectors takes one MSHR; max_mem_inflight
 *      counts these L1 miss LINES per SM (an MSHR tracks one 128-byte line
 *      with a sector mask, and is held until its last sector arrives). When
 *      all are taken the LSU stalls until the earliest one frees.
 *   4. L2 (shared, write-back, write-allocate by whole sectors; sets
 *      indexed by a hash of the line number, L1 sets by its low bits:
 *      cache_set_hashing): each missed
 *      sector goes to its slice (lines are spread over slices by a hash of
 *      the line address); a slice passes one sector per
 *      sector_bytes / (l2_bytes_per_clk / slices) cycles. Hit: ready =
 *      slice start + transfer + lat_l2.
 *   5. DRAM (dram.h): an L2-missed load sector makes the L2 fetch the
 *      aligned block of dram_fetch_bytes around it (64 B on Ampere and
 *      Hopper: 2 sectors; the other missed sectors of the lookup in that
 *      block come with it, the rest of the block is filled clean; sectors
 *      already in L2 are not fetched again), one channel access of that many
 *      bursts; ready = channel start (after a refresh window it meets:
 *      dram.h "Refresh") + transfer + lat_dram. Dirty L2 victims
 *      are written back (bandwidth only) through their slice's write-back
 *      buffer of MEMSYS_WB_LINES lines: a store that evicts a dirty line
 *      waits only when the buffer is full, i.e. until the write-back that
 *      many lines earlier has started on its channel, so a store stream
 *      cannot outrun DRAM by more than the buffers hold (64 lines per
 *      slice: fewer would hold a large copy below the measured 4,215 GB/s,
 *      arch/CALIBRATION.md "Write-back buffer"). What is still dirty at the end of
 *      a launch is written back in the channels' idle time, and the launch
 *      lasts until it could be (memsys_writeback_all).
 *   The load is ready when its last sector is. A store is fire-and-forget:
 *   it returns when the LSU may take the next request, which is after its
 *   lines have passed the LSU and its sectors were accepted by their L2
 *   slices (and any write-back it forced has started), so a store stream
 *   cannot outrun L2 or DRAM bandwidth.
 *
 * Latencies are END-TO-END unloaded load-to-use times as a pointer chase
 * measures them (H200: lat_l1 ~40, lat_l2 ~290, lat_dram ~670), not
 * increments: an L2 hit costs lat_l2, not lat_l1 + lat_l2.
 *
 * Bulk copies (cp.async.bulk, like Hopper's TMA; memsys_bulk_copy): the
 * SM's copy engine walks the box row by row and sends each 32-byte sector
 * straight to its L2 slice (no L1, no MSHR, no LSU slot), one line_bytes
 * (128) per cycle per SM (the width of the SM's L2 fill path, the same as
 * the L1 data path). Each sector is timed like an L1 miss (L2 hit or DRAM
 * burst); the copy has arrived when its last sector has. Writing the data
 * into shared memory takes no bank cycles (not modelled). A bulk store
 * (memsys_bulk_store) walks its box the same way with stores: each sector
 * is written into its L2 slice (write-allocate, as st), the engine does
 * not wait for acceptance, and reading shared memory is not charged.
 *
 * Tensor Core operand reads (wgmma; memsys_smem_read): `bytes` of shared
 * memory read at full bank width, ceil(bytes / (4 x banks)) cycles of the
 * SM's shared-memory pipe (the one ld/st.shared use: they contend), ready
 * lat_smem + those cycles - 1 after the start.
 *
 * Not modelled (said here so lessons can say it): the L1 data path width
 * for wide accesses beyond one line per cycle, DRAM banks, row buffers
 * and read/write turnaround (folded into dram_efficiency and the refresh
 * windows), partial-sector
 * stores (a store writes whole sectors in L2). The two L2 partitions of
 * Ampere/Hopper are an option (l2_partitions, below) that every preset
 * leaves off (arch/CALIBRATION.md "Near/far L2 partitions").
 */
#ifndef SIMT_MEMSYS_H
#define SIMT_MEMSYS_H

#include <stdint.h>

#include "cache.h"
#include "dram.h"
#include "err.h"
#include "lsu.h"

struct gpu_desc;

#define MEMSYS_TICKS_PER_CYCLE 1024u  /* time resolution of the timelines */
#define MEMSYS_WB_LINES 64u          /* write-back buffer per L2 slice, lines (step 5 above) */

/* Configuration, copied at init. memsys_cfg_from_desc fills it from a
 * gpu_desc_t; tests fill it by hand. Latencies in core cycles. */
typedef struct memsys_cfg {
    uint32_t sms;               /* SMs, each with its own L1 and LSU         */
    double clock_mhz;           /* core clock, converts GB/s to bytes/cycle  */
    uint32_t lat_smem;          /* shared-memory load, conflict-free          */
    uint32_t lat_l1;            /* global load, L1 hit (end to end)          */
    uint32_t lat_l2;            /* global load, L2 hit (end to end)          */
    uint32_t lat_dram;          /* global load, DRAM (end to end)            */
    uint32_t lat_l2_far;        /* global load, hit in the far L2 partition  */
    uint32_t l2_partitions;     /* 1 or 2 (0 is read as 1)                   */
    uint32_t smem_banks;        /* banks of 4 bytes (32), <= LSU_MAX_BANKS    */
    uint32_t l1_bytes, l1_assoc;/* per SM                                    */
    uint32_t l2_bytes, l2_assoc;/* whole chip                                */
    uint32_t line_bytes;        /* cache line (128), power of two            */
    uint32_t sector_bytes;      /* sector / DRAM burst (32), power of two    */
    uint32_t dram_fetch_bytes;  /* an L2 load miss fetches the aligned block
                                   of this many bytes (sector..line, power of
                                   two; 0 = sector_bytes)                    */
    double l2_bytes_per_clk;    /* L2 bandwidth, whole chip                  */
    uint32_t l2_slices;         /* 0: one sector per cycle per slice, i.e.
                                   round(l2_bytes_per_clk / sector_bytes),
                                   clamped to 1..128                         */
    double dram_gbps;           /* datasheet DRAM bandwidth, 1e9 bytes/s     */
    double dram_efficiency;     /* usable fraction of dram_gbps, (0,1]       */
    uint32_t dram_channels;     /* DRAM channels (h200: 192 pseudo-channels) */
    uint32_t dram_interleave;   /* bytes per channel block (256)             */
    double dram_trefi_ns;       /* refresh interval per channel; 0 = none    */
    double dram_refresh_ns;     /* how long a refresh blocks its channel     */
    uint32_t max_mem_inflight;  /* MSHRs: L1 miss lines in flight per SM     */
} memsys_cfg_t;

typedef enum memsys_space {
    MEMSYS_GLOBAL,              /* device memory through L1, L2, DRAM        */
    MEMSYS_SHARED               /* the block's shared memory (banks)         */
} memsys_space_t;

/* One warp memory instruction. */
typedef struct memsys_req {
    memsys_space_t space;       /* global or shared                          */
    int is_store;               /* 0: load, 1: store                         */
    uint32_t bytes;             /* per lane: 1, 2, 4, 8 or 16                */
    uint32_t mask;              /* active lanes (bit i = lane i)             */
    uint32_t addr[LSU_WARP_SIZE]; /* per-lane byte address (shared: offset) */
} memsys_req_t;

/* What one access did; the caller adds these to its statistics. */
typedef struct memsys_result {
    uint64_t ready;             /* cycle the load's data is ready (store: = accepted) */
    uint64_t accepted;          /* cycle the LSU can take the next request   */
    uint32_t lines;             /* global: cache lines after coalescing      */
    uint32_t sectors;           /* global: sectors after coalescing          */
    uint32_t wavefronts;        /* shared: bank-conflict wavefronts          */
    uint32_t l1_hits, l1_misses;/* load sectors                              */
    uint32_t l2_hits, l2_misses;/* sectors, loads and stores                 */
    uint32_t dram_bytes;        /* read for misses + written back            */
} memsys_result_t;

/* Counters, per SM and (memsys_totals) for the whole chip. */
typedef struct memsys_stats {
    uint64_t gld_requests, gst_requests; /* global warp loads / stores      */
    uint64_t sld_requests, sst_requests; /* shared warp loads / stores      */
    uint64_t gld_bytes, gst_bytes;       /* bytes asked for by active lanes */
    uint64_t sld_bytes, sst_bytes;
    uint64_t gld_sectors, gst_sectors;   /* after coalescing                */
    uint64_t lines;                      /* global lines (LSU tag lookups)  */
    uint64_t smem_wavefronts;            /* shared accesses after conflicts */
    uint64_t l1_hits, l1_misses;         /* load sectors                    */
    uint64_t l2_hits, l2_misses;         /* sectors                         */
    uint64_t dram_read_bytes;            /* L2 miss fills                   */
    uint64_t dram_write_bytes;           /* L2 write-backs this SM caused   */
    uint64_t mshr_waits;                 /* lines that found no free MSHR   */
    uint64_t bulk_bytes;                 /* bytes moved by bulk copies      */
    uint64_t tc_smem_bytes;              /* shared bytes read by wgmma      */
} memsys_stats_t;

/* Per-SM state. */
typedef struct memsys_sm {
    cache_t l1;                 /* this SM's L1                              */
    uint64_t lsu_free;          /* tick the LSU pipe takes its next line     */
    uint64_t copy_free;         /* tick the bulk-copy engine takes its next sector */
    uint64_t *mshr;             /* min-heap of MSHR free ticks, max_mem_inflight entries (points into memsys_t.mshr_pool) */
    uint64_t last_now;          /* last `now` seen, for the order check      */
    memsys_stats_t st;          /* counters since init / reset               */
} memsys_sm_t;

typedef struct memsys {
    memsys_cfg_t cfg;           /* copy of the configuration                 */
    memsys_sm_t *sm;            /* cfg.sms entries; owned                    */
    uint64_t *mshr_pool;        /* all SMs' MSHR heaps; owned                */
    cache_t l2;                 /* the shared L2 tags (partition 0 of 2)     */
    cache_t l2b;                /* partition 1's tags (l2_partitions = 2)    */
    uint32_t parts;             /* L2 partitions: 1 or 2                     */
    uint32_t l2_slices;         /* slices actually used (cfg or derived)     */
    uint32_t slice_shift;       /* bits in a slice number, for the hash      */
    uint64_t *slice_free;       /* per slice: tick it takes the next sector; owned */
    uint64_t *wb_ring;          /* per slice: MEMSYS_WB_LINES start ticks of the
                                   latest dirty-line write-backs (its write-back
                                   buffer); owned                            */
    uint32_t *wb_head;          /* per slice: the ring's oldest entry; owned  */
    uint64_t l2_sector_ticks;   /* ticks one sector occupies a slice         */
    uint32_t spl;               /* sectors per line (no division per access) */
    uint32_t spf;               /* sectors per DRAM fetch block              */
    uint32_t line_shift;        /* log2(line_bytes)                          */
    dram_t dram;                /* channels and their timelines              */
    meter_t *meter_l2;          /* optional (NULL: off): L2 slices' busy ticks
                                   by cycle, summed over slices; not owned   */
    meter_t *meter_lsu;         /* optional: the SMs' load/store data pipes
                                   (L1 and shared memory), summed over SMs   */
} memsys_t;

/* L2 partitions (l2_partitions = 2, as the A100 and H100 whitepapers
 * describe them): each half of the L2 holds the lines homed on its half of
 * the slices and caches copies of far-homed lines its SMs read (SM i is on
 * side i % 2). A load from SM i first looks in its own half: a hit costs
 * lat_l2; sectors it misses go on to the home half: a hit there costs
 * lat_l2_far and leaves a clean copy in the near half; a miss there goes to
 * DRAM (lat_dram) and fills both. Stores and bulk copies write the home
 * half (a near copy is not updated: the data is functional, only its
 * timing would differ). Each half has l2_bytes / 2. */

/* Fill c from a GPU description: copies the memory fields (with the DRAM's
 * channels, efficiency and refresh) and sets the model's own choices
 * (channels interleaved every 256 bytes, l2_slices 0 = derived). */
void memsys_cfg_from_desc(memsys_cfg_t *c, const struct gpu_desc *d);

/* Build the memory system: all caches empty, all timelines idle, all
 * memory allocated here and nowhere else. Fails with SIMT_E_USAGE naming
 * the bad field, or SIMT_E_NOMEM; on failure ms owns nothing. */
int memsys_init(memsys_t *ms, const memsys_cfg_t *cfg, simt_err_t *err);
void memsys_free(memsys_t *ms);

/* Prepare for a new launch whose time starts again at cycle 0: every
 * timeline idle, counters zero. flush_caches = 1 also empties L1s and L2
 * (dirty data dropped); 0 keeps them warm (pending fills count as done). */
void memsys_reset(memsys_t *ms, int flush_caches);

/* Time one warp memory instruction issued by SM `sm` at cycle `now` (see
 * the top of this file). Returns the cycle a load's data is ready, or for
 * a store the cycle the LSU may take the next request. Fills *out (may be
 * NULL). A request with no active lanes costs nothing and returns now.
 * sm < cfg.sms, req->bytes in 1..16, and `now` not smaller than the
 * previous call's for this SM (all asserted: caller bugs). */
uint64_t memsys_access(memsys_t *ms, uint32_t sm, uint64_t now,
                       const memsys_req_t *req, memsys_result_t *out);

/* Time a bulk copy (cp.async.bulk) issued by SM `sm` at cycle `now`: rows
 * rows of row_bytes bytes from global src + r * pitch. Returns the cycle
 * its last byte has arrived in shared memory; fills *out (sectors, L2 and
 * DRAM counters; may be NULL). row_bytes >= 1. */
uint64_t memsys_bulk_copy(memsys_t *ms, uint32_t sm, uint64_t now, uint32_t src, uint32_t rows,
                          uint32_t row_bytes, uint32_t pitch, memsys_result_t *out);

/* Time a bulk store (cp.async.bulk.global.shared) issued by SM `sm` at
 * cycle `now`: rows rows of row_bytes bytes to global dst + r * pitch.
 * The SM's copy engine sends each sector to its L2 slice, one line_bytes
 * per cycle, without waiting for the slice to accept it (a store is
 * written back by L2 like any other). Returns the cycle the last sector
 * was accepted; fills *out (may be NULL). row_bytes >= 1. */
uint64_t memsys_bulk_store(memsys_t *ms, uint32_t sm, uint64_t now, uint32_t dst, uint32_t rows,
                           uint32_t row_bytes, uint32_t pitch, memsys_result_t *out);

/* Time a Tensor Core operand read of `bytes` bytes of shared memory by SM
 * `sm` at cycle `now`; returns the cycle the data is ready and adds the
 * wavefronts (pipe cycles) it took to *wavefronts. */
uint64_t memsys_smem_read(memsys_t *ms, uint32_t sm, uint64_t now, uint32_t bytes, uint64_t *wavefronts);

/* Write every dirty L2 sector back to DRAM at the end of a launch that
 * ended at cycle `end`; return the bytes written and set *done (may be
 * NULL) to the cycle the write-back is finished. The L2 drains dirty data
 * while DRAM has spare time: each channel's share of the write-back fills
 * the ticks that channel was idle during the launch, and only what does not
 * fit runs past `end` (then *done > end). So a launch's DRAM bytes never
 * need more time than the channels' usable bandwidth allows. */
uint64_t memsys_writeback_all(memsys_t *ms, uint64_t end, uint64_t *done);

/* Put the bytes [addr, addr + bytes) into L2 as clean, ready data before a
 * launch (a tensor a framework's warm-up left in L2). Counts no hits or
 * misses; a dirty line it evicts is written back untimed (its bytes go to
 * the DRAM write counter only). Call after memsys_reset. */
void memsys_warm(memsys_t *ms, uint32_t addr, uint32_t bytes);

/* Counters of one SM, and the sum over all SMs. */
const memsys_stats_t *memsys_sm_stats(const memsys_t *ms, uint32_t sm);
void memsys_totals(const memsys_t *ms, memsys_stats_t *total);

/* Usable DRAM bandwidth in bytes per core cycle (gbps x efficiency / clock). */
double memsys_dram_bytes_per_cycle(const memsys_cfg_t *cfg);

#endif
