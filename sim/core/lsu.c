/* lsu.c - coalescer and shared-memory bank model (see lsu.h). */
#include "lsu.h"

#include <assert.h>
#include <stddef.h>

/* log2 of a power of two. */
static uint32_t log2u(uint32_t v)
{
    uint32_t n = 0;
    while (v > 1u) {
        v >>= 1;
        n++;
    }
    return n;
}

/* Add sector s of the line at line_addr to out, keeping out->line[] sorted
 * by address (insertion sort: at most LSU_MAX_LINES entries). */
static inline void add_sector(lsu_coalesced_t *out, uint32_t line_addr, uint32_t s)
{
    /* Fast path: consecutive lanes usually hit the line added last. */
    if (out->nlines > 0 && out->line[out->nlines - 1].addr == line_addr) {
        lsu_line_t *ln = &out->line[out->nlines - 1];
        if (!(ln->sectors & (1u << s))) {
            ln->sectors |= 1u << s;
            out->nsectors++;
        }
        return;
    }
    uint32_t i = 0;
    while (i < out->nlines && out->line[i].addr < line_addr)
        i++;
    if (i < out->nlines && out->line[i].addr == line_addr) {
        if (!(out->line[i].sectors & (1u << s))) {
            out->line[i].sectors |= 1u << s;
            out->nsectors++;
        }
        return;
    }
    assert(out->nlines < LSU_MAX_LINES);
    for (uint32_t j = out->nlines; j > i; j--)
        out->line[j] = out->line[j - 1];
    out->line[i].addr = line_addr;
    out->line[i].sectors = 1u << s;
    out->nlines++;
    out->nsectors++;
}

uint32_t lsu_coalesce(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask,
                      uint32_t bytes, uint32_t sector_bytes,
                      uint32_t line_bytes, lsu_coalesced_t *out)
{
    assert(bytes >= 1 && bytes <= LSU_MAX_BYTES);
    assert(sector_bytes != 0 && (sector_bytes & (sector_bytes - 1)) == 0);
    assert(line_bytes != 0 && (line_bytes & (line_bytes - 1)) == 0);
    assert(line_bytes >= sector_bytes && line_bytes / sector_bytes <= 32);

    out->nlines = 0;
    out->nsectors = 0;
    uint32_t sec_shift = log2u(sector_bytes), line_shift = log2u(line_bytes);
    uint64_t prev_sec = UINT64_MAX;
    for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++) {
        if (!(mask & (1u << lane)))
            continue;
        /* 64-bit arithmetic: an access at the top of the 32-bit space must
         * not wrap around to address 0. */
        uint64_t first = addrs[lane];
        uint64_t last = first + bytes - 1;
        uint64_t s0 = first >> sec_shift, s1 = last >> sec_shift;
        if (s0 == s1 && s0 == prev_sec)
            continue;               /* same sector as the previous lane: common */
        for (uint64_t sec = s0; sec <= s1; sec++) {
            uint64_t byte = sec << sec_shift;
            uint32_t line_addr = (uint32_t)(byte >> line_shift << line_shift);
            uint32_t s = (uint32_t)((byte - line_addr) >> sec_shift);
            add_sector(out, line_addr, s);
        }
        prev_sec = s1;
    }
    return out->nlines;
}

uint32_t lsu_bank_wavefronts(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask,
                             uint32_t bytes, uint32_t nbanks)
{
    /* Distinct words seen so far in each bank: a lane's word only needs to
     * be compared with the words already in its own bank. A bank holds at
     * most 32 lanes x 5 words (a misaligned 16-byte access covers 5). */
    uint32_t words[LSU_MAX_BANKS][LSU_WARP_SIZE * (LSU_MAX_BYTES / 4 + 1)];
    uint32_t per_bank[LSU_MAX_BANKS] = {0};
    uint32_t worst = 0;

    assert(bytes >= 1 && bytes <= LSU_MAX_BYTES);
    assert(nbanks >= 1 && nbanks <= LSU_MAX_BANKS);

    /* Fast path for the usual access (each lane inside one word, banks a
     * power of two): note the first word each bank sees; if no bank sees a
     * second word, every bank serves one word (or a broadcast): 1 wavefront. */
    if (bytes <= 4 && (nbanks & (nbanks - 1u)) == 0) {
        uint32_t first_word[LSU_MAX_BANKS];
        uint64_t used = 0;   /* bit b: bank b has a word */
        int simple = 1;
        for (uint32_t lane = 0; lane < LSU_WARP_SIZE && simple; lane++) {
            if (!(mask >> lane & 1u))
                continue;
            uint32_t a = addrs[lane];
            uint32_t w = a >> 2, b = w & (nbanks - 1u);
            if ((a & 3u) + bytes > 4u)
                simple = 0;                          /* straddles two words */
            else if (!(used >> b & 1u)) {
                used |= 1ull << b;
                first_word[b] = w;
            } else if (first_word[b] != w)
                simple = 0;                          /* a conflict: count it below */
        }
        if (simple)
            return used ? 1 : 0;
    }

    for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++) {
        if (!(mask & (1u << lane)))
            continue;
        uint64_t first = addrs[lane];
        uint64_t last = first + bytes - 1;
        for (uint64_t w64 = first / 4; w64 <= last / 4; w64++) {
            uint32_t w = (uint32_t)w64;
            uint32_t b = w % nbanks;
            uint32_t k = 0;
            while (k < per_bank[b] && words[b][k] != w)
                k++;
            if (k < per_bank[b])
                continue;               /* same word: broadcast, free */
            words[b][per_bank[b]++] = w;
            if (per_bank[b] > worst)
                worst = per_bank[b];
        }
    }
    return worst;
}
