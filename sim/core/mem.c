/* mem.c - device memory: a sorted table of live allocations, each with its
 * own zeroed host buffer, handed out at increasing device addresses. */
#include "mem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mem_init(mem_t *m, uint64_t capacity, uint64_t host_limit)
{
    memset(m, 0, sizeof *m);
    m->next_addr = MEM_BASE;
    m->capacity = capacity;
    m->host_limit = host_limit;
}

void mem_free_all(mem_t *m)
{
    for (uint32_t i = 0; i < m->nallocs; i++) {
        free(m->allocs[i].data);
        free(m->allocs[i].written);
    }
    free(m->allocs);
    free(m->resv);
    mem_init(m, m->capacity, m->host_limit);
}

/* Format a byte count for people in decimal units, as presets and
 * datasheets give them: "512 bytes", "4.1 KB", "141.0 GB". */
static void fmt_bytes(uint64_t n, char *buf, size_t len)
{
    if (n < 1000)
        snprintf(buf, len, "%" PRIu64 " bytes", n);
    else if (n < 1000000)
        snprintf(buf, len, "%.1f KB", (double)n / 1e3);
    else if (n < 1000000000)
        snprintf(buf, len, "%.1f MB", (double)n / 1e6);
    else
        snprintf(buf, len, "%.1f GB", (double)n / 1e9);
}

/* The out-of-memory report: what did not fit, the capacity and what is
 * free, and the largest things already there (allocations and size-only
 * reservations), at most four by name and the rest as a count. */
static int oom_error(const mem_t *m, uint64_t size, const char *label, simt_err_t *err)
{
    char want[32], have[32], cap[32], there[400];
    size_t used = 0;
    uint32_t shown = 0, total = m->nallocs + m->nresv;
    uint64_t rest = m->used;
    int taken[4] = { -1, -1, -1, -1 };   /* index: < nallocs an allocation, else a reservation */
    fmt_bytes(size, want, sizeof want);
    fmt_bytes(m->capacity - m->used, have, sizeof have);
    fmt_bytes(m->capacity, cap, sizeof cap);
    there[0] = '\0';
    for (; shown < 4 && shown < total; shown++) {
        int best = -1;
        uint64_t bsize = 0;
        for (uint32_t i = 0; i < total; i++) {
            int dup = 0;
            for (uint32_t j = 0; j < shown; j++)
                dup |= taken[j] == (int)i;
            uint64_t sz = i < m->nallocs ? m->allocs[i].size : m->resv[i - m->nallocs].size;
            if (!dup && (best < 0 || sz > bsize)) {
                best = (int)i;
                bsize = sz;
            }
        }
        taken[shown] = best;
        const char *lb = (uint32_t)best < m->nallocs ? m->allocs[best].label : m->resv[best - (int)m->nallocs].label;
        char b[32];
        fmt_bytes(bsize, b, sizeof b);
        rest -= bsize;
        if (used < sizeof there)
            used += (size_t)snprintf(there + used, sizeof there - used, "%s'%s' %s", shown ? ", " : "", lb, b);
    }
    if (shown < total && used < sizeof there) {
        char b[32];
        fmt_bytes(rest, b, sizeof b);
        snprintf(there + used, sizeof there - used, " and %u more (%s)", (unsigned)(total - shown), b);
    }
    return simt_errf(err, SIMT_E_MEM,
                     "out of memory: %s requested for '%s' on a GPU with %s of device memory, "
                     "%s free; already there: %s", want, label ? label : "?", cap, have,
                     total ? there : "nothing");
}

int mem_alloc(mem_t *m, uint64_t size, const char *label, uint32_t *addr, simt_err_t *err)
{
    char want[32], have[32];
    if (size == 0)
        return simt_errf(err, SIMT_E_USAGE, "cannot allocate 0 bytes");
    if (size > m->capacity - m->used)
        return oom_error(m, size, label, err);
    if (m->used - m->reserved + size > m->host_limit) {
        fmt_bytes(size, want, sizeof want);
        fmt_bytes(m->host_limit, have, sizeof have);
        return simt_errf(err, SIMT_E_MEM,
                         "allocation of %s for '%s' would pass the simulator's host memory "
                         "limit of %s (the modelled GPU has room; this machine does not)",
                         want, label ? label : "?", have);
    }
    /* Reuse the address space above the last live allocation so that long
     * scripts which allocate and free do not run out of 32-bit addresses. */
    uint64_t start = MEM_BASE;
    if (m->nallocs > 0) {
        const mem_alloc_t *top = &m->allocs[m->nallocs - 1];
        start = (uint64_t)top->addr + top->size + MEM_REDZONE;
    }
    start = (start + MEM_ALIGN - 1) / MEM_ALIGN * MEM_ALIGN;
    if (start + size > 0xFFFFFFFFull - MEM_REDZONE) {
        fmt_bytes(size, want, sizeof want);
        return simt_errf(err, SIMT_E_MEM,
                         "out of device address space: %s for '%s' does not fit the "
                         "simulator's 32-bit addresses (4 GB)", want, label ? label : "?");
    }
    if (m->nallocs == m->cap) {
        uint32_t ncap = m->cap ? m->cap * 2 : 16;
        mem_alloc_t *na = realloc(m->allocs, ncap * sizeof *na);
        if (!na)
            return simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        m->allocs = na;
        m->cap = ncap;
    }
    uint8_t *data = calloc(1, (size_t)size);
    uint8_t *written = calloc(1, (size_t)(size + 7) / 8);   /* nothing written yet */
    if (!data || !written) {
        free(data);
        free(written);
        return simt_errf(err, SIMT_E_NOMEM, "host out of memory allocating %" PRIu64 " bytes", size);
    }
    mem_alloc_t *a = &m->allocs[m->nallocs++];
    a->addr = (uint32_t)start;
    a->size = (uint32_t)size;
    a->data = data;
    a->written = written;
    snprintf(a->label, sizeof a->label, "%s", label ? label : "");
    m->used += size;
    *addr = a->addr;
    return 0;
}

/* Index of the last allocation whose addr <= x, or -1. */
static int32_t find_below(const mem_t *m, uint32_t x)
{
    int32_t lo = 0, hi = (int32_t)m->nallocs - 1, best = -1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (m->allocs[mid].addr <= x) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

const mem_alloc_t *mem_find(const mem_t *m, uint32_t addr)
{
    int32_t i = find_below(m, addr);
    if (i < 0)
        return NULL;
    const mem_alloc_t *a = &m->allocs[i];
    return (uint64_t)addr < (uint64_t)a->addr + a->size ? a : NULL;
}

int mem_reserve(mem_t *m, uint64_t size, const char *label, uint32_t *id, simt_err_t *err)
{
    if (size == 0)
        return simt_errf(err, SIMT_E_USAGE, "cannot reserve 0 bytes");
    if (size > m->capacity - m->used)
        return oom_error(m, size, label, err);
    if (m->nresv == m->resv_cap) {
        uint32_t ncap = m->resv_cap ? m->resv_cap * 2 : 8;
        mem_resv_t *nr = realloc(m->resv, ncap * sizeof *nr);
        if (!nr)
            return simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        m->resv = nr;
        m->resv_cap = ncap;
    }
    mem_resv_t *r = &m->resv[m->nresv++];
    r->id = ++m->next_resv;
    r->size = size;
    snprintf(r->label, sizeof r->label, "%s", label ? label : "");
    m->used += size;
    m->reserved += size;
    *id = r->id;
    return 0;
}

int mem_unreserve(mem_t *m, uint32_t id, simt_err_t *err)
{
    for (uint32_t i = 0; i < m->nresv; i++) {
        if (m->resv[i].id == id) {
            m->used -= m->resv[i].size;
            m->reserved -= m->resv[i].size;
            memmove(&m->resv[i], &m->resv[i + 1], (m->nresv - i - 1) * sizeof *m->resv);
            m->nresv--;
            return 0;
        }
    }
    return simt_errf(err, SIMT_E_USAGE, "no size-only reservation %u", (unsigned)id);
}

int mem_release(mem_t *m, uint32_t addr, simt_err_t *err)
{
    int32_t i = find_below(m, addr);
    if (i < 0 || m->allocs[i].addr != addr)
        return simt_errf(err, SIMT_E_USAGE, "free of 0x%08" PRIx32 ", which is not the start of an allocation", addr);
    m->used -= m->allocs[i].size;
    free(m->allocs[i].data);
    free(m->allocs[i].written);
    memmove(&m->allocs[i], &m->allocs[i + 1], (m->nallocs - (uint32_t)i - 1) * sizeof *m->allocs);
    m->nallocs--;
    m->last = 0;
    return 0;
}

uint8_t *mem_ptr(mem_t *m, uint32_t addr, uint32_t n)
{
    if (m->last < m->nallocs) {
        mem_alloc_t *a = &m->allocs[m->last];
        if (addr >= a->addr && (uint64_t)addr + n <= (uint64_t)a->addr + a->size)
            return a->data + (addr - a->addr);
    }
    int32_t i = find_below(m, addr);
    if (i < 0)
        return NULL;
    mem_alloc_t *a = &m->allocs[i];
    if ((uint64_t)addr + n > (uint64_t)a->addr + a->size)
        return NULL;
    m->last = (uint32_t)i;
    return a->data + (addr - a->addr);
}

void mem_set_written(const mem_alloc_t *a, uint32_t off, uint64_t n)
{
    uint64_t i = off, end = (uint64_t)off + n;
    for (; i < end && i % 8; i++)            /* leading bits */
        a->written[i / 8] |= (uint8_t)(1u << (i % 8));
    if (end - i >= 8) {                       /* whole shadow bytes */
        memset(a->written + i / 8, 0xFF, (size_t)((end - i) / 8));
        i += (end - i) / 8 * 8;
    }
    for (; i < end; i++)                      /* trailing bits */
        a->written[i / 8] |= (uint8_t)(1u << (i % 8));
}

void mem_mark_written(mem_t *m, uint32_t addr, uint64_t n)
{
    const mem_alloc_t *a = mem_find(m, addr);
    if (!a || n == 0)
        return;
    uint32_t off = addr - a->addr;
    if (n > a->size - off)
        n = a->size - off;
    mem_set_written(a, off, n);
}

/* The failing part of a host copy, described for the caller. */
static int range_error(const mem_t *m, const char *what, uint32_t addr, uint64_t n, simt_err_t *err)
{
    char where[160];
    mem_describe(m, addr, where, sizeof where);
    return simt_errf(err, SIMT_E_MEM, "%s of %" PRIu64 " bytes at 0x%08" PRIx32
                     " is outside device memory: %s", what, n, addr, where);
}

int mem_write(mem_t *m, uint32_t addr, const void *src, uint64_t n, simt_err_t *err)
{
    if (n == 0)
        return 0;
    uint8_t *p = n <= UINT32_MAX ? mem_ptr(m, addr, (uint32_t)n) : NULL;
    if (!p)
        return range_error(m, "copy to device", addr, n, err);
    memcpy(p, src, (size_t)n);
    mem_mark_written(m, addr, n);
    return 0;
}

int mem_read(mem_t *m, uint32_t addr, void *dst, uint64_t n, simt_err_t *err)
{
    if (n == 0)
        return 0;
    uint8_t *p = n <= UINT32_MAX ? mem_ptr(m, addr, (uint32_t)n) : NULL;
    if (!p)
        return range_error(m, "copy from device", addr, n, err);
    memcpy(dst, p, (size_t)n);
    return 0;
}

void mem_describe(const mem_t *m, uint32_t addr, char *buf, size_t n)
{
    if (addr < 4096) {
        snprintf(buf, n, "near address 0: a null or uninitialised pointer?");
        return;
    }
    int32_t i = find_below(m, addr);
    const mem_alloc_t *below = i >= 0 ? &m->allocs[i] : NULL;
    const mem_alloc_t *above = (uint32_t)(i + 1) < m->nallocs ? &m->allocs[i + 1] : NULL;
    if (below && (uint64_t)addr < (uint64_t)below->addr + below->size) {
        snprintf(buf, n, "byte %" PRIu32 " of '%s' (0x%08" PRIx32 ", %" PRIu32 " bytes)",
                 addr - below->addr, below->label, below->addr, below->size);
        return;
    }
    uint64_t past = below ? (uint64_t)addr - below->addr - below->size : UINT64_MAX;
    uint64_t before = above ? (uint64_t)above->addr - addr : UINT64_MAX;
    if (!below && !above)
        snprintf(buf, n, "no device memory is allocated");
    else if (past <= before)
        snprintf(buf, n, "%" PRIu64 " bytes past the end of '%s' (0x%08" PRIx32 ", %" PRIu32 " bytes)",
                 past, below->label, below->addr, below->size);
    else
        snprintf(buf, n, "%" PRIu64 " bytes before the start of '%s' (0x%08" PRIx32 ", %" PRIu32 " bytes)",
                 before, above->label, above->addr, above->size);
}
