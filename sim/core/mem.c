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
    mem_init(m, m->capacity, m->host_limit);
}

/* Format a byte count for people: "512 bytes", "4.0 KB", "141.0 GB". */
static void fmt_bytes(uint64_t n, char *buf, size_t len)
{
    if (n < 1024)
        snprintf(buf, len, "%" PRIu64 " bytes", n);
    else if (n < 1024u * 1024u)
        snprintf(buf, len, "%.1f KB", (double)n / 1024.0);
    else if (n < 1024ull * 1024u * 1024u)
        snprintf(buf, len, "%.1f MB", (double)n / (1024.0 * 1024.0));
    else
        snprintf(buf, len, "%.1f GB", (double)n / (1024.0 * 1024.0 * 1024.0));
}

int mem_alloc(mem_t *m, uint64_t size, const char *label, uint32_t *addr, simt_err_t *err)
{
    char want[32], have[32];
    if (size == 0)
        return simt_errf(err, SIMT_E_USAGE, "cannot allocate 0 bytes");
    if (m->used + size > m->capacity) {
        fmt_bytes(size, want, sizeof want);
        fmt_bytes(m->capacity - m->used, have, sizeof have);
        return simt_errf(err, SIMT_E_MEM,
                         "out of memory: %s requested for '%s', only %s of device memory free",
                         want, label ? label : "?", have);
    }
    if (m->used + size > m->host_limit) {
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
