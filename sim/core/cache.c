/* cache.c - sectored set-associative LRU cache (see cache.h). */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"

static int is_pow2(uint32_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

int cache_init(cache_t *c, const char *name, uint32_t bytes, uint32_t assoc,
               uint32_t line_bytes, uint32_t sector_bytes,
               cache_policy_t policy, simt_err_t *err)
{
    memset(c, 0, sizeof *c);
    if (!is_pow2(line_bytes) || !is_pow2(sector_bytes) || sector_bytes > line_bytes)
        return simt_errf(err, SIMT_E_USAGE,
                         "%s: line_bytes (%u) and sector_bytes (%u) must be powers of two "
                         "with sector_bytes <= line_bytes", name, line_bytes, sector_bytes);
    if (line_bytes / sector_bytes > CACHE_MAX_SECTORS)
        return simt_errf(err, SIMT_E_USAGE,
                         "%s: %u sectors per line, at most %d supported", name,
                         line_bytes / sector_bytes, CACHE_MAX_SECTORS);
    if (assoc == 0)
        return simt_errf(err, SIMT_E_USAGE, "%s: associativity must be at least 1", name);
    if ((uint64_t)bytes < (uint64_t)line_bytes * assoc)
        return simt_errf(err, SIMT_E_USAGE,
                         "%s: %u bytes is less than one set (%u ways x %u bytes)",
                         name, bytes, assoc, line_bytes);

    c->nsets = (uint32_t)(bytes / ((uint64_t)line_bytes * assoc));
    c->assoc = assoc;
    c->line_bytes = line_bytes;
    c->sector_bytes = sector_bytes;
    c->spl = line_bytes / sector_bytes;
    while ((1u << c->line_shift) < line_bytes)
        c->line_shift++;
    c->sets_pow2 = (uint8_t)is_pow2(c->nsets);
    c->policy = policy;
    size_t nlines = (size_t)c->nsets * assoc;
    c->lines = calloc(nlines, sizeof *c->lines);
    c->ready = calloc(nlines * (line_bytes / sector_bytes), sizeof *c->ready);
    c->touched = calloc(c->nsets, sizeof *c->touched);
    c->is_touched = calloc(c->nsets, sizeof *c->is_touched);
    if (!c->lines || !c->ready || !c->touched || !c->is_touched) {
        cache_free(c);
        return simt_errf(err, SIMT_E_NOMEM, "%s: out of host memory for %zu lines",
                         name, nlines);
    }
    return 0;
}

void cache_free(cache_t *c)
{
    free(c->lines);
    free(c->ready);
    free(c->touched);
    free(c->is_touched);
    c->lines = NULL;
    c->ready = NULL;
    c->touched = NULL;
    c->is_touched = NULL;
    c->ntouched = 0;
}

static uint32_t sectors_per_line(const cache_t *c)
{
    return c->spl;
}

void cache_set_hashing(cache_t *c, int on)
{
    uint32_t b = 1;
    while ((1u << b) < c->nsets && b < 31)
        b++;
    c->set_bits = (uint8_t)b;
    c->hashed = on ? 1 : 0;
}

/* First line index of tag's set. */
static uint32_t set_base(const cache_t *c, uint32_t tag)
{
    if (c->hashed) {   /* fold the bits above the set index onto it, twice */
        uint32_t b = c->set_bits;
        tag ^= (tag >> b) ^ (2 * b < 32 ? tag >> (2 * b) : 0);   /* >> 32 would be undefined */
    }
    uint32_t set = c->sets_pow2 ? tag & (c->nsets - 1u) : tag % c->nsets;
    return set * c->assoc;
}

/* Index of the way holding tag in its set, or -1. */
static inline int32_t find(const cache_t *c, uint32_t tag)
{
    uint32_t base = set_base(c, tag);
    for (uint32_t w = 0; w < c->assoc; w++) {
        const cache_line_t *l = &c->lines[base + w];
        if (l->valid && l->tag == tag)
            return (int32_t)(base + w);
    }
    return -1;
}

/* Way to replace in tag's set: the first invalid way, else the least
 * recently used one (stamps are unique, so there are no ties). */
static int32_t victim(const cache_t *c, uint32_t tag)
{
    uint32_t base = set_base(c, tag);
    uint32_t best = base;
    for (uint32_t w = 0; w < c->assoc; w++) {
        const cache_line_t *l = &c->lines[base + w];
        if (!l->valid)
            return (int32_t)(base + w);
        if (l->last_use < c->lines[best].last_use)
            best = base + w;
    }
    return (int32_t)best;
}

/* Way to replace when only lines may_evict accepts may go: the first
 * invalid way, else the least recently used acceptable one, else -1. */
static int32_t victim_if(const cache_t *c, uint32_t tag, cache_evict_fn may_evict, void *user)
{
    uint32_t base = set_base(c, tag);
    int32_t best = -1;
    for (uint32_t w = 0; w < c->assoc; w++) {
        const cache_line_t *l = &c->lines[base + w];
        if (!l->valid)
            return (int32_t)(base + w);
        if (may_evict(user, l->tag * c->line_bytes) &&
            (best < 0 || l->last_use < c->lines[best].last_use))
            best = (int32_t)(base + w);
    }
    return best;
}

uint32_t cache_lookup_if(cache_t *c, uint32_t line_addr, uint32_t sector_mask,
                         uint32_t *miss_sectors, cache_info_t *info,
                         cache_evict_fn may_evict, void *user)
{
    uint32_t r;
    c->may_evict = may_evict;
    c->evict_user = user;
    r = cache_lookup(c, line_addr, sector_mask, 0, miss_sectors, info);
    c->may_evict = NULL;
    c->evict_user = NULL;
    return r;
}

/* Give line `slot` (the victim) to `tag`: its old contents are evicted
 * (said in *inf, written back if dirty) and no sector is valid yet. */
static inline void claim_line(cache_t *c, uint32_t slot, uint32_t tag, cache_info_t *inf)
{
    uint32_t set = slot / c->assoc;
    if (!c->is_touched[set]) {
        c->is_touched[set] = 1;
        c->touched[c->ntouched++] = set;
    }
    cache_line_t *v = &c->lines[slot];
    if (v->valid) {
        inf->evicted = 1;
        inf->victim_addr = v->tag * c->line_bytes;
        inf->victim_dirty = v->dirty;
        c->st.evictions++;
        c->st.writebacks += bits_popcount8(v->dirty);
    }
    v->tag = tag;
    v->valid = 0;   /* ready times of invalid sectors are never read:
                       each sector gets 0 when it becomes valid */
    v->dirty = 0;
}

uint32_t cache_lookup(cache_t *c, uint32_t line_addr, uint32_t sector_mask,
                      int is_store, uint32_t *miss_sectors, cache_info_t *info)
{
    uint32_t spl = sectors_per_line(c);
    uint32_t tag = line_addr >> c->line_shift;
    int32_t slot = find(c, tag);
    uint32_t hit = 0, miss;
    cache_info_t inf = {-1, 0, 0, 0, 0};

    sector_mask &= (1u << spl) - 1;
    if (slot >= 0 && (c->lines[slot].valid & sector_mask) == sector_mask) {
        /* Fast path of what follows for the usual case, a hit on every
         * sector asked for: nothing to allocate, nothing missed. Same
         * effects as the general code below. */
        cache_line_t *l = &c->lines[slot];
        const uint64_t *ready = &c->ready[(size_t)slot * spl];
        uint32_t n = bits_popcount8(sector_mask);
        for (uint32_t m = sector_mask; m; m &= m - 1u) {
            uint64_t r = ready[bits_lowest64(m)];
            inf.ready = r > inf.ready ? r : inf.ready;
        }
        if (is_store && c->policy == CACHE_WRITE_BACK)
            l->dirty |= (uint8_t)sector_mask;
        l->last_use = ++c->use_clock;
        if (is_store)
            c->st.store_hits += n;
        else
            c->st.load_hits += n;
        inf.slot = slot;
        if (miss_sectors)
            *miss_sectors = 0;
        if (info)
            *info = inf;
        return sector_mask;
    }
    if (slot >= 0)
        hit = c->lines[slot].valid & sector_mask;
    miss = sector_mask & ~hit;

    /* Latest ready time among the hit sectors (a pending fill). */
    for (uint32_t m = hit; m; m &= m - 1u) {
        uint64_t r = c->ready[(size_t)slot * spl + bits_lowest64(m)];
        if (r > inf.ready)
            inf.ready = r;
    }

    int allocate = !is_store || c->policy == CACHE_WRITE_BACK;
    int fresh = 0;
    if (slot < 0 && allocate && miss) {
        slot = c->may_evict ? victim_if(c, tag, c->may_evict, c->evict_user) : victim(c, tag);
        fresh = slot >= 0;   /* -1: no way may go, nothing is allocated */
    }
    if (fresh)
        claim_line(c, (uint32_t)slot, tag, &inf);
    if (slot >= 0) {
        cache_line_t *l = &c->lines[slot];
        if (allocate) {
            l->valid |= (uint8_t)miss;
            for (uint32_t m = miss; m; m &= m - 1u)
                c->ready[(size_t)slot * spl + bits_lowest64(m)] = 0;
        }
        if (is_store && c->policy == CACHE_WRITE_BACK)
            l->dirty |= (uint8_t)sector_mask;
        l->last_use = ++c->use_clock;
    }
    inf.slot = slot;

    if (is_store) {
        c->st.store_hits += bits_popcount8(hit);
        c->st.store_misses += bits_popcount8(miss);
    } else {
        c->st.load_hits += bits_popcount8(hit);
        c->st.load_misses += bits_popcount8(miss);
    }
    if (miss_sectors)
        *miss_sectors = miss;
    if (info)
        *info = inf;
    return hit;
}

int cache_probe(const cache_t *c, uint32_t line_addr, uint32_t sector_mask)
{
    int32_t slot = find(c, line_addr >> c->line_shift);
    if (slot < 0)
        return sector_mask == 0;
    return (c->lines[slot].valid & sector_mask) == sector_mask;
}

/* Only sets in c->touched can hold anything (cache.h). */
uint64_t cache_clean(cache_t *c)
{
    uint64_t sectors = 0;
    for (uint32_t t = 0; t < c->ntouched; t++) {
        cache_line_t *l = &c->lines[(size_t)c->touched[t] * c->assoc];
        for (uint32_t w = 0; w < c->assoc; w++) {
            sectors += bits_popcount8(l[w].dirty);
            l[w].dirty = 0;
        }
    }
    return sectors;
}

uint64_t cache_clean_each(cache_t *c, void (*fn)(void *user, uint32_t line_addr, uint32_t dirty),
                          void *user)
{
    uint64_t sectors = 0;
    for (uint32_t t = 0; t < c->ntouched; t++) {
        cache_line_t *l = &c->lines[(size_t)c->touched[t] * c->assoc];
        for (uint32_t w = 0; w < c->assoc; w++) {
            if (!l[w].dirty)
                continue;
            sectors += bits_popcount8(l[w].dirty);
            fn(user, l[w].tag * c->line_bytes, l[w].dirty);
            l[w].dirty = 0;
        }
    }
    return sectors;
}

void cache_fill(cache_t *c, int32_t slot, uint32_t sector_mask, uint64_t ready)
{
    if (slot < 0)
        return;
    cache_line_t *l = &c->lines[slot];
    uint32_t add = sector_mask & ~(uint32_t)l->valid & ((1u << c->spl) - 1u);
    l->valid |= (uint8_t)add;
    for (uint32_t m = add; m; m &= m - 1u)
        c->ready[(size_t)slot * c->spl + bits_lowest64(m)] = ready;
}

void cache_preload(cache_t *c, uint32_t line_addr, uint32_t sector_mask, cache_info_t *info)
{
    cache_stats_t saved = c->st;
    cache_info_t inf;
    uint32_t miss = 0;
    /* a load lookup allocates and marks the missing sectors valid, ready 0 */
    cache_lookup(c, line_addr, sector_mask, 0, &miss, &inf);
    c->st = saved;
    if (info)
        *info = inf;
}

void cache_flush(cache_t *c)
{
    size_t per_set = (size_t)c->assoc * sectors_per_line(c);
    for (uint32_t t = 0; t < c->ntouched; t++) {
        uint32_t set = c->touched[t];
        memset(&c->lines[(size_t)set * c->assoc], 0, c->assoc * sizeof *c->lines);
        memset(&c->ready[set * per_set], 0, per_set * sizeof *c->ready);
        c->is_touched[set] = 0;
    }
    c->ntouched = 0;
    c->use_clock = 0;
}

void cache_clear_times(cache_t *c)
{
    size_t per_set = (size_t)c->assoc * sectors_per_line(c);
    for (uint32_t t = 0; t < c->ntouched; t++)
        memset(&c->ready[c->touched[t] * per_set], 0, per_set * sizeof *c->ready);
}

uint32_t cache_nlines(const cache_t *c)
{
    return c->nsets * c->assoc;
}
