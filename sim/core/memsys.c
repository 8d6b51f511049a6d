/* memsys.c - memory hierarchy timing: LSU, L1, L2 slices, DRAM (see memsys.h). */
#include "memsys.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "gpu.h"   /* gpu_desc_t, for memsys_cfg_from_desc only */

#define T MEMSYS_TICKS_PER_CYCLE

void memsys_cfg_from_desc(memsys_cfg_t *c, const gpu_desc_t *d)
{
    memset(c, 0, sizeof *c);
    c->sms = d->sms;
    c->clock_mhz = d->clock_mhz;
    c->lat_smem = d->lat_smem;
    c->lat_l1 = d->lat_l1;
    c->lat_l2 = d->lat_l2;
    c->lat_dram = d->lat_dram;
    c->lat_l2_far = d->lat_l2_far;
    c->l2_partitions = d->l2_partitions;
    c->smem_banks = d->smem_banks;
    c->l1_bytes = d->l1_bytes;
    c->l1_assoc = d->l1_assoc;
    c->l2_bytes = d->l2_bytes;
    c->l2_assoc = d->l2_assoc;
    c->line_bytes = d->line_bytes;
    c->sector_bytes = d->sector_bytes;
    c->dram_fetch_bytes = d->dram_fetch_bytes ? d->dram_fetch_bytes : d->sector_bytes;
    c->l2_bytes_per_clk = d->l2_bytes_per_clk;
    c->l2_slices = 0;
    c->dram_gbps = d->dram_gbps;
    c->dram_efficiency = d->dram_efficiency;
    c->dram_channels = d->dram_channels;
    c->dram_interleave = 256;
    c->dram_trefi_ns = d->dram_trefi_ns;
    c->dram_refresh_ns = d->dram_refresh_ns;
    c->max_mem_inflight = d->max_mem_inflight;
}

double memsys_dram_bytes_per_cycle(const memsys_cfg_t *cfg)
{
    /* GB/s = 1e9 bytes/s, MHz = 1e6 cycles/s. */
    return cfg->dram_gbps * 1000.0 / cfg->clock_mhz * cfg->dram_efficiency;
}

static int validate(const memsys_cfg_t *c, simt_err_t *err)
{
    if (c->sms == 0)
        return simt_errf(err, SIMT_E_USAGE, "memsys: sms must be at least 1");
    if (!(c->clock_mhz > 0.0) || !isfinite(c->clock_mhz))
        return simt_errf(err, SIMT_E_USAGE, "memsys: clock_mhz must be positive (got %g)",
                         c->clock_mhz);
    if (c->smem_banks == 0 || c->smem_banks > LSU_MAX_BANKS)
        return simt_errf(err, SIMT_E_USAGE, "memsys: smem_banks (%u) must be 1..%d",
                         c->smem_banks, LSU_MAX_BANKS);
    if (!(c->l2_bytes_per_clk > 0.0) || !isfinite(c->l2_bytes_per_clk))
        return simt_errf(err, SIMT_E_USAGE, "memsys: l2_bytes_per_clk must be positive (got %g)",
                         c->l2_bytes_per_clk);
    if (!(c->dram_gbps > 0.0) || !isfinite(c->dram_gbps))
        return simt_errf(err, SIMT_E_USAGE, "memsys: dram_gbps must be positive (got %g)",
                         c->dram_gbps);
    if (!(c->dram_efficiency > 0.0 && c->dram_efficiency <= 1.0))
        return simt_errf(err, SIMT_E_USAGE, "memsys: dram_efficiency (%g) must be in (0, 1]",
                         c->dram_efficiency);
    if (c->max_mem_inflight == 0)
        return simt_errf(err, SIMT_E_USAGE, "memsys: max_mem_inflight must be at least 1");
    if (c->sector_bytes < 4 || c->line_bytes > 65536)
        return simt_errf(err, SIMT_E_USAGE,
                         "memsys: sector_bytes (%u) must be >= 4 and line_bytes (%u) <= 65536",
                         c->sector_bytes, c->line_bytes);
    if (c->dram_fetch_bytes != 0 &&
        (c->dram_fetch_bytes < c->sector_bytes || c->dram_fetch_bytes > c->line_bytes ||
         (c->dram_fetch_bytes & (c->dram_fetch_bytes - 1))))
        return simt_errf(err, SIMT_E_USAGE,
                         "memsys: dram_fetch_bytes (%u) must be a power of two from sector_bytes (%u) "
                         "to line_bytes (%u), or 0",
                         c->dram_fetch_bytes, c->sector_bytes, c->line_bytes);
    /* Cache and DRAM geometry are checked by cache_init and dram_init. */
    return 0;
}

/* Bits needed for a number below n (at least 1), for the slice hash. */
static uint32_t bits_for(uint32_t n)
{
    uint32_t b = 1;
    while ((1u << b) < n && b < 31)
        b++;
    return b;
}

int memsys_init(memsys_t *ms, const memsys_cfg_t *cfg, simt_err_t *err)
{
    memset(ms, 0, sizeof *ms);
    if (validate(cfg, err) != 0)
        return -1;
    ms->cfg = *cfg;

    ms->l2_slices = cfg->l2_slices;
    if (ms->l2_slices == 0) {
        double s = floor(cfg->l2_bytes_per_clk / cfg->sector_bytes + 0.5);
        ms->l2_slices = s < 1.0 ? 1u : s > 128.0 ? 128u : (uint32_t)s;
    }
    ms->slice_shift = bits_for(ms->l2_slices);
    ms->spl = cfg->line_bytes / cfg->sector_bytes;   /* powers of two: cache_init checks */
    ms->spf = cfg->dram_fetch_bytes ? cfg->dram_fetch_bytes / cfg->sector_bytes : 1;
    while (ms->line_shift < 31 && (1u << ms->line_shift) < cfg->line_bytes)
        ms->line_shift++;
    double per_slice = cfg->l2_bytes_per_clk / ms->l2_slices;
    double ticks = (double)cfg->sector_bytes * T / per_slice;
    ms->l2_sector_ticks = ticks < 1.0 ? 1 : (uint64_t)llround(ticks);

    ms->sm = calloc(cfg->sms, sizeof *ms->sm);
    ms->mshr_pool = calloc((size_t)cfg->sms * cfg->max_mem_inflight, sizeof *ms->mshr_pool);
    ms->slice_free = calloc(ms->l2_slices, sizeof *ms->slice_free);
    ms->wb_ring = calloc((size_t)ms->l2_slices * MEMSYS_WB_LINES, sizeof *ms->wb_ring);
    ms->wb_head = calloc(ms->l2_slices, sizeof *ms->wb_head);
    if (!ms->sm || !ms->mshr_pool || !ms->slice_free || !ms->wb_ring || !ms->wb_head) {
        simt_errf(err, SIMT_E_NOMEM, "memsys: out of host memory");
        goto fail;
    }
    /* calloc left every L1 zeroed, which cache_free accepts, so a
     * failure half way through the loop below can free them all. */
    for (uint32_t i = 0; i < cfg->sms; i++)
        ms->sm[i].mshr = ms->mshr_pool + (size_t)i * cfg->max_mem_inflight;
    for (uint32_t i = 0; i < cfg->sms; i++)
        if (cache_init(&ms->sm[i].l1, "L1", cfg->l1_bytes, cfg->l1_assoc, cfg->line_bytes,
                       cfg->sector_bytes, CACHE_WRITE_THROUGH, err) != 0)
            goto fail;
    ms->parts = cfg->l2_partitions == 2 && ms->l2_slices >= 2 ? 2 : 1;
    if (cache_init(&ms->l2, "L2", cfg->l2_bytes / ms->parts, cfg->l2_assoc, cfg->line_bytes,
                   cfg->sector_bytes, CACHE_WRITE_BACK, err) != 0)
        goto fail;
    cache_set_hashing(&ms->l2, 1);   /* hashed L2 sets, linear L1 sets (memsys.h) */
    if (ms->parts == 2) {
        if (cache_init(&ms->l2b, "L2", cfg->l2_bytes / 2, cfg->l2_assoc, cfg->line_bytes,
                       cfg->sector_bytes, CACHE_WRITE_BACK, err) != 0)
            goto fail;
        cache_set_hashing(&ms->l2b, 1);
    }

    dram_cfg_t dc;
    dc.channels = cfg->dram_channels;
    dc.interleave_bytes = cfg->dram_interleave;
    dc.burst_bytes = cfg->sector_bytes;
    dc.bytes_per_cycle = memsys_dram_bytes_per_cycle(cfg);
    dc.latency = cfg->lat_dram;
    dc.ticks_per_cycle = T;
    dc.refresh_interval = cfg->dram_trefi_ns * cfg->clock_mhz / 1000.0;
    dc.refresh_cycles = cfg->dram_trefi_ns > 0.0 ? cfg->dram_refresh_ns * cfg->clock_mhz / 1000.0 : 0.0;
    if (dram_init(&ms->dram, &dc, err) != 0)
        goto fail;
    return 0;

fail:
    memsys_free(ms);
    return -1;
}

void memsys_free(memsys_t *ms)
{
    if (ms->sm)
        for (uint32_t i = 0; i < ms->cfg.sms; i++)
            cache_free(&ms->sm[i].l1);   /* safe on a zeroed cache_t */
    cache_free(&ms->l2);
    cache_free(&ms->l2b);
    dram_free(&ms->dram);
    free(ms->sm);
    free(ms->mshr_pool);
    free(ms->slice_free);
    free(ms->wb_ring);
    free(ms->wb_head);
    ms->sm = NULL;
    ms->mshr_pool = NULL;
    ms->slice_free = NULL;
    ms->wb_ring = NULL;
    ms->wb_head = NULL;
}

/* The L2 half a slice belongs to (memsys.h "L2 partitions"): slices
 * 0 .. n/2-1 are half 0, the rest (with an odd count, one more) half 1;
 * always 0 with one partition. And the tags of half p. */
static uint32_t slice_part(const memsys_t *ms, uint32_t slice)
{
    return ms->parts == 2 && slice >= ms->l2_slices / 2;
}

static cache_t *part_tags(memsys_t *ms, uint32_t p)
{
    return p ? &ms->l2b : &ms->l2;
}

void memsys_reset(memsys_t *ms, int flush_caches)
{
    for (uint32_t i = 0; i < ms->cfg.sms; i++) {
        memsys_sm_t *s = &ms->sm[i];
        if (flush_caches)
            cache_flush(&s->l1);
        else
            cache_clear_times(&s->l1);
        memset(&s->l1.st, 0, sizeof s->l1.st);
        s->lsu_free = 0;
        s->copy_free = 0;
        s->last_now = 0;
        memset(&s->st, 0, sizeof s->st);
    }
    memset(ms->mshr_pool, 0,
           (size_t)ms->cfg.sms * ms->cfg.max_mem_inflight * sizeof *ms->mshr_pool);
    memset(ms->slice_free, 0, ms->l2_slices * sizeof *ms->slice_free);
    memset(ms->wb_ring, 0, (size_t)ms->l2_slices * MEMSYS_WB_LINES * sizeof *ms->wb_ring);
    memset(ms->wb_head, 0, ms->l2_slices * sizeof *ms->wb_head);
    for (uint32_t p = 0; p < ms->parts; p++) {
        cache_t *c = part_tags(ms, p);
        if (flush_caches)
            cache_flush(c);
        else
            cache_clear_times(c);
        memset(&c->st, 0, sizeof c->st);
    }
    dram_reset(&ms->dram);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Ticks -> cycles, rounding up: data ready mid-cycle is usable next cycle. */
static uint64_t to_cycles(uint64_t ticks)
{
    return (ticks + T - 1) / T;
}

/* The MSHR heap is a binary min-heap of free ticks: heap[0] is the entry
 * that frees first. Take it (the caller has waited until heap[0]) and
 * put it back holding until `busy_until`. */
static void mshr_replace_top(uint64_t *heap, uint32_t n, uint64_t busy_until)
{
    uint32_t i = 0;
    heap[0] = busy_until;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && heap[l] < heap[m])
            m = l;
        if (r < n && heap[r] < heap[m])
            m = r;
        if (m == i)
            break;
        uint64_t tmp = heap[i];
        heap[i] = heap[m];
        heap[m] = tmp;
        i = m;
    }
}

/* Slice of a line: line number XOR-folded with its higher bits, modulo
 * the slice count (spreads power-of-two strides, as real hashes do). */
static uint32_t l2_slice(const memsys_t *ms, uint32_t line_addr)
{
    uint64_t n = line_addr >> ms->line_shift;
    uint32_t b = ms->slice_shift;
    uint64_t h = n ^ (n >> b) ^ (n >> (2 * b));
    return (uint32_t)(h % ms->l2_slices);
}

/* Write the dirty sectors of an evicted L2 line back to DRAM, starting no
 * earlier than tick `now`, through slice `slice`'s write-back buffer
 * (memsys.h, step 5 of an access). Returns the tick the line found room in the buffer:
 * when the write-back MEMSYS_WB_LINES dirty lines before it at this slice
 * started (0 when nothing was dirty or the buffer had room). */
static uint64_t l2_writeback(memsys_t *ms, memsys_stats_t *st, uint32_t slice, uint64_t now,
                             const cache_info_t *info, memsys_result_t *res)
{
    uint64_t latest = 0;
    uint32_t spl = ms->spl;
    if (!info->evicted || !info->victim_dirty)
        return 0;
    for (uint32_t k = 0; k < spl; k++) {
        if (!(info->victim_dirty & (1u << k)))
            continue;
        uint64_t start;
        dram_access(&ms->dram, now, (uint64_t)info->victim_addr + (uint64_t)k * ms->cfg.sector_bytes,
                    ms->cfg.sector_bytes, 1, &start);
        latest = max_u64(latest, start);
        st->dram_write_bytes += ms->cfg.sector_bytes;
        res->dram_bytes += ms->cfg.sector_bytes;
    }
    uint64_t *ring = ms->wb_ring + (size_t)slice * MEMSYS_WB_LINES;
    uint32_t *head = &ms->wb_head[slice];
    uint64_t room = ring[*head];   /* the oldest buffered line leaves when its write-back starts */
    ring[*head] = latest;
    *head = (*head + 1) % MEMSYS_WB_LINES;
    return room;
}

/* The sectors in `sectors` of one line at its home L2 tags c (the whole
 * L2, or its partition), arriving at tick `now`; slice `slice` takes them
 * one after another, lowest first, and a hit is ready lat_hit cycles after
 * its slot (lat_l2, or lat_l2_far across partitions). One tag
 * lookup serves them all: it has the outcome of one lookup per sector in
 * that order (only the first can allocate the line and evict another;
 * the rest find it), and it is the same LRU order. For a load ready[k]
 * gets the tick sector k's data reaches the SM, for a store the tick the
 * L2 accepted it. Returns the latest of those (0 for no sectors). */
static inline uint64_t l2_home(memsys_t *ms, cache_t *c, uint32_t slice, uint32_t lat_hit,
                               memsys_stats_t *st, uint64_t now,
                               uint32_t line_addr, uint32_t sectors, int is_store,
                               memsys_result_t *res, uint64_t ready[CACHE_MAX_SECTORS])
{
    uint64_t latest = 0;
    cache_info_t info;
    uint32_t miss;
    uint32_t hit = cache_lookup(c, line_addr, sectors, is_store, &miss, &info);
    /* valid before this lookup (it made the missed sectors valid) */
    uint32_t valid_before = cache_valid(c, info.slot) & ~miss;
    uint32_t fetched = 0;   /* fetch blocks already asked of DRAM here */
    uint64_t block_ready[CACHE_MAX_SECTORS];

    for (uint32_t m = sectors; m; m &= m - 1u) {
        uint32_t k = bits_lowest64(m);
        uint64_t start = max_u64(now, ms->slice_free[slice]);
        uint64_t r;
        ms->slice_free[slice] = start + ms->l2_sector_ticks;
        if (ms->meter_l2)
            meter_add(ms->meter_l2, start, ms->l2_sector_ticks);
        /* the first sector's lookup is the one that evicted */
        uint64_t wb_room = m == sectors ? l2_writeback(ms, st, slice, start, &info, res) : 0;
        if (hit >> k & 1u) {
            st->l2_hits++;
            res->l2_hits++;
        } else {
            st->l2_misses++;
            res->l2_misses++;
        }
        if (is_store) {
            r = max_u64(start, wb_room);
        } else if (hit >> k & 1u) {
            r = max_u64(start + ms->l2_sector_ticks + (uint64_t)lat_hit * T,
                        cache_sector_ready(c, info.slot, k));
        } else {
            /* Miss: the L2 fetches the aligned block of spf sectors around
             * sector k (dram_fetch_bytes) in one DRAM access, less the
             * sectors of it it already holds; the other missed sectors of
             * this lookup in the same block come with it, and the ones
             * nobody asked for are filled clean. All are ready when the
             * block arrives. */
            uint32_t blk = k / ms->spf;
            if (fetched >> blk & 1u) {
                r = block_ready[blk];
            } else {
                uint32_t bmask = ((1u << ms->spf) - 1u) << (blk * ms->spf);
                uint32_t want = bmask & ~valid_before;   /* absent: the missed ones and the rest */
                uint32_t first = bits_lowest64(want);
                uint32_t bytes = bits_popcount8(want) * ms->cfg.sector_bytes;
                uint64_t addr = (uint64_t)line_addr + (uint64_t)first * ms->cfg.sector_bytes;
                r = dram_access(&ms->dram, start, addr, bytes, 0, NULL);
                cache_fill(c, info.slot, want & ~sectors, r);
                fetched |= 1u << blk;
                block_ready[blk] = r;
                st->dram_read_bytes += bytes;
                res->dram_bytes += bytes;
            }
            cache_set_ready(c, info.slot, 1u << k, r);
        }
        ready[k] = r;
        latest = max_u64(latest, r);
    }
    return latest;
}

typedef struct copy_filter {
    const memsys_t *ms;
    uint32_t part;              /* the half whose cache is looked in        */
} copy_filter_t;

/* Is the line a copy in half f->part, i.e. homed in the other half? */
static int is_copy(void *user, uint32_t line_addr)
{
    const copy_filter_t *f = user;
    return slice_part(f->ms, l2_slice(f->ms, line_addr)) != f->part;
}

/* The L2 side of SM partition `part` (memsys.h "L2 partitions"): one
 * partition, or the home half of the line (stores, near lines), or for a
 * load of a far-homed line the near half's copy first: its hits cost
 * lat_l2, its misses go on to the home half (lat_l2_far, or DRAM) and are
 * copied into the near half. Arguments and result as l2_home. */
static uint64_t l2_line(memsys_t *ms, memsys_stats_t *st, uint64_t now,
                        uint32_t line_addr, uint32_t sectors, int is_store,
                        memsys_result_t *res, uint64_t ready[CACHE_MAX_SECTORS], uint32_t part)
{
    uint32_t slice = l2_slice(ms, line_addr);
    if (ms->parts == 1)
        return l2_home(ms, &ms->l2, slice, ms->cfg.lat_l2, st, now, line_addr, sectors, is_store, res, ready);
    uint32_t half = ms->l2_slices / 2;
    uint32_t home = slice_part(ms, slice);
    cache_t *hc = part_tags(ms, home);
    if (is_store || home == part)
        return l2_home(ms, hc, slice, ms->cfg.lat_l2, st, now, line_addr, sectors, is_store, res, ready);

    cache_t *nc = part_tags(ms, part);
    uint32_t nslice = part * half + slice % half;
    cache_info_t info;
    uint32_t miss;
    /* a copy may push out only other copies, never a line homed here */
    copy_filter_t cf = { ms, part };
    uint32_t hit = cache_lookup_if(nc, line_addr, sectors, &miss, &info, is_copy, &cf);
    uint64_t latest = 0, cross = 0;
    for (uint32_t m = sectors; m; m &= m - 1u) {
        uint32_t k = bits_lowest64(m);
        uint64_t start = max_u64(now, ms->slice_free[nslice]);
        ms->slice_free[nslice] = start + ms->l2_sector_ticks;
        if (ms->meter_l2)
            meter_add(ms->meter_l2, start, ms->l2_sector_ticks);
        if (m == sectors)
            l2_writeback(ms, st, nslice, start, &info, res);   /* a dirty near line it evicted */
        if (hit >> k & 1u) {
            st->l2_hits++;
            res->l2_hits++;
            ready[k] = max_u64(start + ms->l2_sector_ticks + (uint64_t)ms->cfg.lat_l2 * T,
                               cache_sector_ready(nc, info.slot, k));
            latest = max_u64(latest, ready[k]);
        } else if (!cross) {
            cross = start;   /* the misses cross to the home half from here */
        }
    }
    if (miss) {
        uint64_t far[CACHE_MAX_SECTORS];
        latest = max_u64(latest, l2_home(ms, hc, slice, ms->cfg.lat_l2_far, st, cross, line_addr, miss, 0,
                                         res, far));
        for (uint32_t m = miss; m; m &= m - 1u) {
            uint32_t k = bits_lowest64(m);
            ready[k] = far[k];
            cache_set_ready(nc, info.slot, 1u << k, far[k]);   /* no-op when no copy was made */
        }
    }
    return latest;
}

/* One sector s of a line at the L2 (l2_line for one sector). */
static uint64_t l2_sector(memsys_t *ms, memsys_stats_t *st, uint64_t now,
                          uint32_t line_addr, uint32_t s, int is_store,
                          memsys_result_t *res, uint32_t part)
{
    uint64_t ready[CACHE_MAX_SECTORS];
    return l2_line(ms, st, now, line_addr, 1u << s, is_store, res, ready, part);
}

/* A global load line looked up at tick t (the LSU slot). Returns the
 * tick its last sector is ready. */
static uint64_t global_load_line(memsys_t *ms, memsys_sm_t *s, uint64_t t,
                                 const lsu_line_t *line, memsys_result_t *res)
{
    uint32_t miss;
    cache_info_t info;
    uint32_t hit = cache_lookup(&s->l1, line->addr, line->sectors, 0, &miss, &info);
    uint64_t ready = 0;
    uint32_t nhit = bits_popcount8(hit), nmiss = bits_popcount8(miss);   /* sector masks */

    s->st.l1_hits += nhit;
    s->st.l1_misses += nmiss;
    res->l1_hits += nhit;
    res->l1_misses += nmiss;
    if (hit)
        ready = max_u64(t + (uint64_t)ms->cfg.lat_l1 * T, info.ready);
    if (!miss)
        return ready;

    /* Take an MSHR; with none free, the LSU stalls until one is. */
    uint64_t tm = max_u64(t, s->mshr[0]);
    if (tm > t) {
        s->st.mshr_waits++;
        s->lsu_free = max_u64(s->lsu_free, tm + T);
    }
    uint64_t sector_ready[CACHE_MAX_SECTORS];
    uint64_t line_ready = l2_line(ms, &s->st, tm, line->addr, miss, 0, res, sector_ready,
                                  (uint32_t)(s - ms->sm) % ms->parts);
    for (uint32_t m = miss; m; m &= m - 1u) {
        uint32_t k = bits_lowest64(m);
        cache_set_ready(&s->l1, info.slot, 1u << k, sector_ready[k]);
    }
    mshr_replace_top(s->mshr, ms->cfg.max_mem_inflight, line_ready);
    return max_u64(ready, line_ready);
}

/* A global store line at tick t: L1 is written through (updated if
 * present, never allocated), every sector goes on to the L2. Returns the
 * tick the last sector was accepted. */
static uint64_t global_store_line(memsys_t *ms, memsys_sm_t *s, uint64_t t,
                                  const lsu_line_t *line, memsys_result_t *res)
{
    uint64_t sector_accepted[CACHE_MAX_SECTORS];
    cache_lookup(&s->l1, line->addr, line->sectors, 1, NULL, NULL);
    return max_u64(t, l2_line(ms, &s->st, t, line->addr, line->sectors, 1, res, sector_accepted, 0));
}

uint64_t memsys_access(memsys_t *ms, uint32_t sm, uint64_t now,
                       const memsys_req_t *req, memsys_result_t *out)
{
    memsys_result_t res;
    memsys_sm_t *s;
    uint64_t t = now * T;
    uint64_t ready;
    uint64_t lanes = req->mask == 0xFFFFFFFFu ? 32 : bits_popcount32(req->mask);   /* usually a full warp */
    uint64_t bytes = lanes * req->bytes;

    assert(sm < ms->cfg.sms);
    assert(req->bytes >= 1 && req->bytes <= LSU_MAX_BYTES);
    s = &ms->sm[sm];
    assert(now >= s->last_now);
    s->last_now = now;
    memset(&res, 0, sizeof res);

    if (req->mask == 0) {
        res.ready = res.accepted = now;
        if (out)
            *out = res;
        return now;
    }

    if (req->space == MEMSYS_SHARED) {
        uint32_t wf = lsu_bank_wavefronts(req->addr, req->mask, req->bytes, ms->cfg.smem_banks);
        uint64_t start = max_u64(t, s->lsu_free);
        s->lsu_free = start + (uint64_t)wf * T;
        if (ms->meter_lsu)
            meter_add(ms->meter_lsu, start, (uint64_t)wf * T);
        res.wavefronts = wf;
        s->st.smem_wavefronts += wf;
        if (req->is_store) {
            s->st.sst_requests++;
            s->st.sst_bytes += bytes;
            ready = s->lsu_free;
        } else {
            s->st.sld_requests++;
            s->st.sld_bytes += bytes;
            ready = start + ((uint64_t)ms->cfg.lat_smem + wf - 1) * T;
        }
    } else {
        lsu_coalesced_t co;
        lsu_coalesce(req->addr, req->mask, req->bytes, ms->cfg.sector_bytes,
                     ms->cfg.line_bytes, &co);
        res.lines = co.nlines;
        res.sectors = co.nsectors;
        s->st.lines += co.nlines;
        if (req->is_store) {
            s->st.gst_requests++;
            s->st.gst_bytes += bytes;
            s->st.gst_sectors += co.nsectors;
        } else {
            s->st.gld_requests++;
            s->st.gld_bytes += bytes;
            s->st.gld_sectors += co.nsectors;
        }
        ready = 0;
        for (uint32_t i = 0; i < co.nlines; i++) {
            /* One tag lookup per line per cycle through the LSU pipe. */
            uint64_t tl = max_u64(t, s->lsu_free);
            s->lsu_free = tl + T;
            if (ms->meter_lsu)
                meter_add(ms->meter_lsu, tl, T);
            if (req->is_store) {
                uint64_t acc = global_store_line(ms, s, tl, &co.line[i], &res);
                s->lsu_free = max_u64(s->lsu_free, acc);
                ready = max_u64(ready, s->lsu_free);
            } else {
                ready = max_u64(ready, global_load_line(ms, s, tl, &co.line[i], &res));
            }
        }
    }
    res.accepted = to_cycles(s->lsu_free);
    res.ready = to_cycles(ready);
    if (out)
        *out = res;
    return res.ready;
}

/* A bulk copy (is_store 0: global -> shared) or bulk store (1: shared ->
 * global) through SM sm's copy engine: rows rows of row_bytes bytes at
 * global addr + r * pitch, one sector after another at line_bytes per
 * cycle, each timed at its L2 slice. Returns when the last sector is done. */
static uint64_t bulk_transfer(memsys_t *ms, uint32_t sm, uint64_t now, uint32_t addr0, uint32_t rows,
                              uint32_t row_bytes, uint32_t pitch, int is_store, memsys_result_t *out)
{
    memsys_result_t res;
    assert(sm < ms->cfg.sms && row_bytes >= 1);
    memsys_sm_t *s = &ms->sm[sm];
    uint32_t sb = ms->cfg.sector_bytes;
    uint64_t per_sector = (uint64_t)T * sb / ms->cfg.line_bytes;   /* line_bytes per cycle */
    uint64_t t = max_u64(now * T, s->copy_free);
    uint64_t done = now * T;
    memset(&res, 0, sizeof res);
    for (uint32_t r = 0; r < rows; r++) {
        uint64_t a0 = (uint32_t)(addr0 + r * pitch);   /* 32-bit addresses wrap, as in exec.c */
        uint64_t first = a0 / sb, last = (a0 + row_bytes - 1) / sb;
        for (uint64_t sec = first; sec <= last; sec++) {
            uint64_t addr = sec * sb;
            uint32_t line = (uint32_t)(addr & ~(uint64_t)(ms->cfg.line_bytes - 1));
            uint32_t k = (uint32_t)(addr - line) / sb;
            done = max_u64(done, l2_sector(ms, &s->st, t, line, k, is_store, &res, sm % ms->parts));
            t += per_sector;
            res.sectors++;
        }
    }
    s->copy_free = t;
    s->st.bulk_bytes += (uint64_t)rows * row_bytes;
    res.ready = res.accepted = to_cycles(done);
    if (out)
        *out = res;
    return res.ready;
}

uint64_t memsys_bulk_copy(memsys_t *ms, uint32_t sm, uint64_t now, uint32_t src, uint32_t rows,
                          uint32_t row_bytes, uint32_t pitch, memsys_result_t *out)
{
    return bulk_transfer(ms, sm, now, src, rows, row_bytes, pitch, 0, out);
}

uint64_t memsys_bulk_store(memsys_t *ms, uint32_t sm, uint64_t now, uint32_t dst, uint32_t rows,
                           uint32_t row_bytes, uint32_t pitch, memsys_result_t *out)
{
    return bulk_transfer(ms, sm, now, dst, rows, row_bytes, pitch, 1, out);
}

uint64_t memsys_smem_read(memsys_t *ms, uint32_t sm, uint64_t now, uint32_t bytes, uint64_t *wavefronts)
{
    assert(sm < ms->cfg.sms);
    memsys_sm_t *s = &ms->sm[sm];
    uint32_t width = 4u * ms->cfg.smem_banks;
    uint64_t wf = bytes ? (bytes + width - 1) / width : 0;
    uint64_t start = max_u64(now * T, s->lsu_free);
    s->lsu_free = start + wf * T;
    if (ms->meter_lsu)
        meter_add(ms->meter_lsu, start, wf * T);
    s->st.tc_smem_bytes += bytes;
    s->st.smem_wavefronts += wf;
    *wavefronts += wf;
    return to_cycles(start + ((uint64_t)ms->cfg.lat_smem + (wf ? wf - 1 : 0)) * T);
}

const memsys_stats_t *memsys_sm_stats(const memsys_t *ms, uint32_t sm)
{
    assert(sm < ms->cfg.sms);
    return &ms->sm[sm].st;
}

static void stats_add(memsys_stats_t *a, const memsys_stats_t *b)
{
    a->gld_requests += b->gld_requests;
    a->gst_requests += b->gst_requests;
    a->sld_requests += b->sld_requests;
    a->sst_requests += b->sst_requests;
    a->gld_bytes += b->gld_bytes;
    a->gst_bytes += b->gst_bytes;
    a->sld_bytes += b->sld_bytes;
    a->sst_bytes += b->sst_bytes;
    a->gld_sectors += b->gld_sectors;
    a->gst_sectors += b->gst_sectors;
    a->lines += b->lines;
    a->smem_wavefronts += b->smem_wavefronts;
    a->l1_hits += b->l1_hits;
    a->l1_misses += b->l1_misses;
    a->l2_hits += b->l2_hits;
    a->l2_misses += b->l2_misses;
    a->dram_read_bytes += b->dram_read_bytes;
    a->dram_write_bytes += b->dram_write_bytes;
    a->mshr_waits += b->mshr_waits;
    a->bulk_bytes += b->bulk_bytes;
    a->tc_smem_bytes += b->tc_smem_bytes;
}

void memsys_totals(const memsys_t *ms, memsys_stats_t *total)
{
    memset(total, 0, sizeof *total);
    for (uint32_t i = 0; i < ms->cfg.sms; i++)
        stats_add(total, &ms->sm[i].st);
}

/* One dirty line of the final write-back: its sectors' bursts, counted
 * per DRAM channel (struct wb_acc). */
typedef struct wb_acc {
    memsys_t *ms;
    uint64_t *ticks;            /* per channel: write-back ticks          */
} wb_acc_t;

static void wb_line(void *user, uint32_t line_addr, uint32_t dirty)
{
    wb_acc_t *a = user;
    memsys_t *ms = a->ms;
    if (ms->cfg.line_bytes <= ms->cfg.dram_interleave) {   /* the whole line on one channel */
        a->ticks[dram_channel(&ms->dram, line_addr)] += bits_popcount8(dirty) * ms->dram.burst_ticks;
        return;
    }
    for (uint32_t m = dirty; m; m &= m - 1u) {
        uint64_t addr = (uint64_t)line_addr + (uint64_t)bits_lowest64(m) * ms->cfg.sector_bytes;
        a->ticks[dram_channel(&ms->dram, addr)] += ms->dram.burst_ticks;
    }
}

uint64_t memsys_writeback_all(memsys_t *ms, uint64_t end, uint64_t *done)
{
    uint32_t nch = ms->dram.cfg.channels;
    uint64_t ticks[64];
    uint64_t *t = nch <= 64 ? ticks : calloc(nch, sizeof *t);
    uint64_t finish = end * T;
    wb_acc_t acc = { ms, t };
    uint64_t sectors;

    if (!t) {   /* out of host memory: count the bytes, skip the timing */
        if (done)
            *done = end;
        return (cache_clean(&ms->l2) + (ms->parts == 2 ? cache_clean(&ms->l2b) : 0)) * ms->cfg.sector_bytes;
    }
    memset(t, 0, nch * sizeof *t);
    sectors = cache_clean_each(&ms->l2, wb_line, &acc);
    if (ms->parts == 2)
        sectors += cache_clean_each(&ms->l2b, wb_line, &acc);
    /* Each channel writes its share in the time it was idle during the
     * launch; what does not fit runs past the end (memsys.h). Refresh
     * counts at its average share of time (frac), not window by window: a
     * window open at the launch's end would otherwise add its rest to a
     * short kernel whose few dirty lines a real L2 writes back later. */
    double frac = dram_busy_fraction_max(&ms->dram);
    for (uint32_t ch = 0; ch < nch; ch++) {
        if (!t[ch])
            continue;
        uint64_t busy = ms->dram.busy_ticks[ch];
        uint64_t open = (uint64_t)((double)(end * T) * frac);
        uint64_t idle = open > busy ? open - busy : 0;
        uint64_t over = t[ch] > idle ? t[ch] - idle : 0;
        uint64_t f = max_u64(end * T, ms->dram.free_at[ch]) + (uint64_t)((double)over / frac);
        finish = max_u64(finish, f);
        ms->dram.busy_ticks[ch] += t[ch];
    }
    ms->dram.st.write_bytes += sectors * ms->cfg.sector_bytes;
    if (t != ticks)
        free(t);
    if (done)
        *done = to_cycles(finish);
    return sectors * ms->cfg.sector_bytes;
}

void memsys_warm(memsys_t *ms, uint32_t addr, uint32_t bytes)
{
    uint32_t lb = ms->cfg.line_bytes, sb = ms->cfg.sector_bytes;
    if (bytes == 0)
        return;
    uint64_t a0 = addr, a1 = (uint64_t)addr + bytes;   /* [a0, a1) */
    for (uint64_t line = a0 & ~(uint64_t)(lb - 1); line < a1; line += lb) {
        uint64_t lo = line > a0 ? line : a0, hi = line + lb < a1 ? line + lb : a1;
        uint32_t first = (uint32_t)((lo - line) / sb), last = (uint32_t)((hi - 1 - line) / sb);
        uint32_t mask = ((1u << (last + 1)) - 1u) & ~((1u << first) - 1u);
        cache_info_t info;
        /* into the line's home half (memsys.h "L2 partitions") */
        cache_preload(part_tags(ms, slice_part(ms, l2_slice(ms, (uint32_t)line))), (uint32_t)line, mask, &info);
        if (info.evicted && info.victim_dirty)   /* written back before the launch: not timed */
            ms->dram.st.write_bytes += (uint64_t)bits_popcount8(info.victim_dirty) * sb;
    }
}
