/* cache.h - a sectored, set-associative cache with LRU replacement.
 *
 * Used for each SM's L1 and for the chip's L2. Only tags and state are
 * kept, never data: the simulator reads and writes device memory directly
 * (mem.h) when it executes an instruction; this module only answers "was
 * it here?" so that the timing model can charge the right latency.
 *
 * Geometry: lines of line_bytes (128), each split into sectors of
 * sector_bytes (32); a line is allocated as a whole (one tag) but each
 * sector is filled on its own, so a miss fetches only the sectors asked
 * for. Set of a line = (line_addr / line_bytes) % nsets, or of a hash of
 * it (cache_set_hashing). Replacement: the
 * least recently used line of the set (an invalid way is always taken
 * first, lowest way number first), so results are fully deterministic.
 *
 * Write policies:
 *  - CACHE_WRITE_THROUGH (L1, as NVIDIA's L1 does for global stores):
 *    loads allocate; stores never allocate and never make a sector dirty
 *    (the store goes on to the next level anyway); a store to a present
 *    sector updates it, so it stays valid.
 *  - CACHE_WRITE_BACK (L2): loads and stores allocate; a store marks its
 *    sectors valid and dirty without fetching them first (the model treats
 *    every store as writing whole sectors; real L2s keep byte masks). When a
 *    line with dirty sectors is evicted the caller is told (cache_info_t) so
 *    it can charge the write-back to DRAM.
 *
 * Pending fills: each sector also records the time its data arrives
 * ("ready"), set by the caller with cache_set_ready after it has asked the
 * next level. A later access that finds the sector valid but not yet ready
 * is a hit that must wait for the fill (like a merged miss in an MSHR).
 * Times are opaque 64-bit values to this module.
 */
#ifndef SIMT_CACHE_H
#define SIMT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "bits.h"
#include "err.h"

#define CACHE_MAX_SECTORS 8   /* most sectors per line (masks are 8 bits) */

typedef enum cache_policy {
    CACHE_WRITE_THROUGH,   /* store: no allocate, no dirty (L1)           */
    CACHE_WRITE_BACK       /* store: allocate, dirty, write back on evict */
} cache_policy_t;

/* One line (one way of one set). */
typedef struct cache_line {
    uint32_t tag;          /* line_addr / line_bytes                      */
    uint8_t valid;         /* bit i: sector i holds data (or will: ready) */
    uint8_t dirty;         /* bit i: sector i must be written back        */
    uint64_t last_use;     /* LRU stamp: cache's use counter at last hit  */
} cache_line_t;

/* Counters, in sectors (a warp access of 4 sectors counts 4). */
typedef struct cache_stats {
    uint64_t load_hits, load_misses;    /* sectors asked for by loads      */
    uint64_t store_hits, store_misses;  /* sectors written by stores       */
    uint64_t evictions;                 /* valid lines replaced            */
    uint64_t writebacks;                /* dirty sectors of evicted lines  */
} cache_stats_t;

/* What one lookup did, for callers that need more than the hit mask. */
typedef struct cache_info {
    int32_t slot;          /* line index now holding line_addr, -1: none   */
    uint64_t ready;        /* latest ready time of the hit sectors, 0: none */
    int evicted;           /* 1 if a valid line was replaced               */
    uint32_t victim_addr;  /* address of the replaced line (if evicted)    */
    uint32_t victim_dirty; /* its dirty sectors: to be written back        */
} cache_info_t;

typedef struct cache {
    uint32_t nsets, assoc;         /* geometry: nsets * assoc lines        */
    uint32_t line_bytes;           /* bytes per line (power of two)        */
    uint32_t sector_bytes;         /* bytes per sector (power of two)      */
    cache_policy_t policy;         /* what a store does                    */
    /* Derived at init, so that a lookup needs no division (a host divide
     * takes tens of cycles; lookups happen for every memory access). */
    uint32_t spl;                  /* sectors per line                     */
    uint32_t line_shift;           /* log2(line_bytes)                     */
    uint8_t sets_pow2;             /* nsets is a power of two: set = tag & (nsets - 1) */
    uint8_t hashed;                /* 1: set of a hashed tag (cache_set_hashing) */
    uint8_t set_bits;              /* bits of a set number, for the hash    */
    cache_line_t *lines;           /* nsets * assoc, set-major; owned      */
    uint64_t *ready;               /* nsets * assoc * sectors ready times  */
    uint64_t use_clock;            /* bumped on every lookup, for LRU      */
    /* Sets that have had a line allocated since the last flush, so that
     * flushing, cleaning and clearing times cost O(sets used) rather than
     * O(cache size) (the H200's 60 MB L2 has 30,720 sets of 16 ways; a
     * small launch touches a few of them). Every other set is all zero. */
    uint32_t *touched;             /* ntouched set indices; owned          */
    uint32_t ntouched;
    uint8_t *is_touched;           /* nsets flags: set is in touched[]; owned */
    cache_stats_t st;              /* counters since init; caller may zero  */
    int (*may_evict)(void *user, uint32_t line_addr);  /* set only inside cache_lookup_if */
    void *evict_user;
} cache_t;

/* Which lines a lookup may evict (cache_lookup_if): 1 = may go. */
typedef int (*cache_evict_fn)(void *user, uint32_t line_addr);

/* Build an empty cache of `bytes` capacity (rounded down to whole sets;
 * at least one set). Fails with SIMT_E_USAGE naming the bad size (line or
 * sector not a power of two, more than CACHE_MAX_SECTORS sectors per line,
 * assoc 0, fewer bytes than one set) and SIMT_E_NOMEM if memory runs out.
 * `name` ("L1", "L2") is used only in messages. On failure c owns nothing. */
int cache_init(cache_t *c, const char *name, uint32_t bytes, uint32_t assoc,
               uint32_t line_bytes, uint32_t sector_bytes,
               cache_policy_t policy, simt_err_t *err);
void cache_free(cache_t *c);

/* Index sets by a hash of the line number instead of its low bits: the
 * tag XOR-folded with its next two set-sized bit fields, then reduced as
 * before (mask or modulo). Power-of-two strides that would pile into a few
 * sets are spread over all of them (the L2 of NVIDIA GPUs since Volta is
 * modelled so in Accel-Sim, arch/CALIBRATION.md). Call on an empty cache
 * (right after cache_init). */
void cache_set_hashing(cache_t *c, int on);

/* Look up the sectors in sector_mask of the line at line_addr (any address
 * inside the line works). Returns the mask of those sectors that were
 * present (hits); *miss_sectors (may be NULL) gets the rest. Updates LRU
 * and, as the policy says, allocates the line (evicting the LRU way) and
 * marks missing sectors valid with ready time 0, and marks stored sectors
 * dirty. info (may be NULL) reports the slot, the hit sectors' latest
 * ready time and any eviction. Counts hits and misses in c->st. */
uint32_t cache_lookup(cache_t *c, uint32_t line_addr, uint32_t sector_mask,
                      int is_store, uint32_t *miss_sectors, cache_info_t *info);

/* A load lookup (cache_lookup with is_store 0) that may evict only lines
 * may_evict(user, line_addr) accepts (an invalid way is always taken); when
 * none may go the line is not allocated (info->slot = -1, every sector
 * missed). For a cache whose copies must not push out its own lines. */
uint32_t cache_lookup_if(cache_t *c, uint32_t line_addr, uint32_t sector_mask,
                         uint32_t *miss_sectors, cache_info_t *info,
                         cache_evict_fn may_evict, void *user);

/* Record that the sectors in sector_mask of the line in slot (from
 * cache_info_t) get their data at time `ready`. Inline: the memory system
 * calls it for every missed sector. */
static inline void cache_set_ready(cache_t *c, int32_t slot, uint32_t sector_mask, uint64_t ready)
{
    if (slot < 0)
        return;
    sector_mask &= (1u << c->spl) - 1;
    for (uint32_t m = sector_mask; m; m &= m - 1u)
        c->ready[(size_t)slot * c->spl + bits_lowest64(m)] = ready;
}

/* The ready time of sector `sector` of the line in slot (from
 * cache_info_t). */
static inline uint64_t cache_sector_ready(const cache_t *c, int32_t slot, uint32_t sector)
{
    if (slot < 0 || sector >= c->spl)
        return 0;
    return c->ready[(size_t)slot * c->spl + sector];
}

/* Is the sector mask present (all its sectors valid)? No side effects:
 * LRU order and counters are untouched. */
int cache_probe(const cache_t *c, uint32_t line_addr, uint32_t sector_mask);

/* Write back every dirty sector: clear the dirty bits (lines stay valid)
 * and return how many sectors were dirty. */
uint64_t cache_clean(cache_t *c);

/* cache_clean that also calls fn(user, line_addr, dirty_mask) for every
 * line with dirty sectors, in set order (deterministic). */
uint64_t cache_clean_each(cache_t *c, void (*fn)(void *user, uint32_t line_addr, uint32_t dirty),
                          void *user);

/* Valid sectors of the line in slot (from cache_info_t; 0 for slot < 0). */
static inline uint32_t cache_valid(const cache_t *c, int32_t slot)
{
    return slot < 0 ? 0u : c->lines[slot].valid;
}

/* Make the sectors in sector_mask of the line in slot valid and clean,
 * their data arriving at `ready` (a fill the caller fetched without a
 * lookup asking for it: a DRAM fetch block wider than a sector). Sectors
 * already valid are left alone. No counters change. */
void cache_fill(cache_t *c, int32_t slot, uint32_t sector_mask, uint64_t ready);

/* Bring the sectors in sector_mask of line_addr into the cache as clean,
 * ready data (allocating the line, LRU as a lookup) without counting a
 * hit or a miss; a dirty victim is reported in *info as by cache_lookup.
 * Used to start a launch with data already cached (warm tensors). */
void cache_preload(cache_t *c, uint32_t line_addr, uint32_t sector_mask, cache_info_t *info);

/* Invalidate every line (dirty data is dropped, not written back). */
void cache_flush(cache_t *c);

/* Set every ready time to 0 (all pending fills complete): used when time
 * starts again from 0 but the contents should stay warm. */
void cache_clear_times(cache_t *c);

/* Lines in the cache (nsets * assoc). */
uint32_t cache_nlines(const cache_t *c);

#endif
