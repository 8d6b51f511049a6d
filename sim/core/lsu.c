/* lsu.c - coalescer and shared-memory bank model (see lsu.h). */
#include "lsu.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "bits.h"

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

BITS_LANE_CLONES
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
    uint32_t sec_shift = bits_lowest64(sector_bytes), line_shift = bits_lowest64(line_bytes);   /* powers of two: their log2 */

    /* Fast path for a full warp, same result: when every address is a
     * multiple of bytes (a power of two no larger than a sector), no lane
     * straddles a sector or wraps around, so each lane touches exactly its
     * own sector; only a change of sector from one lane to the next can add
     * one. Plain loops over all lanes, which vectorise. */
    if (mask == 0xFFFFFFFFu && (bytes & (bytes - 1u)) == 0 && bytes <= sector_bytes) {
        /* sec[l + 1] = lane l's sector; sec[0] = lane 0's too, so that
         * lane l compares sec[l + 1] with sec[l] (lane 0 with itself) */
        uint32_t odd = 0, sec[LSU_WARP_SIZE + 1];
        for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++) {
            odd |= addrs[lane];
            sec[lane + 1] = addrs[lane] >> sec_shift;
        }
        sec[0] = sec[1];
        if ((odd & (bytes - 1u)) == 0) {
            uint32_t per_line = line_shift - sec_shift, in_line = (line_bytes >> sec_shift) - 1u;
            uint32_t change = 0;   /* bit l: lane l's sector differs from lane l-1's */
            for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++)   /* whole vectors */
                change |= sec[lane + 1] != sec[lane] ? bits_lane[lane] : 0;
            add_sector(out, sec[0] >> per_line << line_shift, sec[0] & in_line);
            for (; change; change &= change - 1u) {   /* only the lanes where it changes */
                uint32_t lane = bits_lowest64(change);
                add_sector(out, sec[lane + 1] >> per_line << line_shift, sec[lane + 1] & in_line);
            }
            return out->nlines;
        }
    }

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

/* 1 if every active lane's access lies inside one 4-byte word and no
 * bank (nbanks a power of two) holds two different of those words; 0 if
 * not (or not sure: the caller then counts exactly). Each bank keeps the
 * word of the last lane that uses it, then every lane's word is compared
 * with its bank's: two plain passes without early exits (conflicts are
 * rare), with a variant without mask tests for the full warp, which
 * first tries a cheaper sufficient test. */
static int one_word_per_bank(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask,
                             uint32_t bytes, uint32_t nbanks)
{
    uint32_t bank_word[LSU_MAX_BANKS];
    uint32_t hi = 0, differ = 0, bmask = nbanks - 1u;
    if (mask == 0xFFFFFFFFu && bytes == 4) {
        /* quickest: aligned words that all lie in one aligned group of
         * nbanks words are in different banks whenever they differ (the
         * bits that differ between any two addresses are in x) */
        uint32_t a0 = addrs[0], x = 0;
        for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++)
            x |= addrs[lane] ^ a0;
        /* all aligned if lane 0's is and no lane differs from it in the
         * low two bits */
        if (((a0 | x) & 3u) == 0 && (x >> 2) < nbanks)
            return 1;
    }
    if (mask == 0xFFFFFFFFu) {
        for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++) {
            uint32_t a = addrs[lane];
            hi = (a & 3u) > hi ? (a & 3u) : hi;
            bank_word[(a >> 2) & bmask] = a >> 2;
        }
        for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++) {
            uint32_t w = addrs[lane] >> 2;
            differ |= bank_word[w & bmask] ^ w;
        }
    } else {
        for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++)
            if (mask >> lane & 1u) {
                uint32_t a = addrs[lane];
                hi = (a & 3u) > hi ? (a & 3u) : hi;
                bank_word[(a >> 2) & bmask] = a >> 2;
            }
        for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++)
            if (mask >> lane & 1u) {
                uint32_t w = addrs[lane] >> 2;
                differ |= bank_word[w & bmask] ^ w;
            }
    }
    /* the lane with the highest offset in its word straddles if any does */
    return hi + bytes <= 4u && differ == 0;
}

/* 1 if every active lane's address equals that of its partner lane ^ x
 * (an inactive partner does not count against it). */
static int pairs_equal(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask, uint32_t x)
{
    for (uint32_t lane = 0; lane < LSU_WARP_SIZE; lane++)
        if ((mask >> lane & 1u) && (mask >> (lane ^ x) & 1u) && addrs[lane] != addrs[lane ^ x])
            return 0;
    return 1;
}

/* The cycles the data path needs for a warp's wide (8- or 16-byte)
 * accesses: nbanks x 4 bytes (128) a cycle, i.e. one register of every
 * lane, halved when lane pairs (n, n^1) or (n, n^2) all share an address
 * (the returned registers are packed); see lsu.h. */
static uint32_t wide_data_cycles(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask,
                                 uint32_t bytes, uint32_t nbanks)
{
    uint32_t lanes = bits_popcount32(mask);
    uint32_t width = 4u * nbanks;
    uint32_t cycles = (lanes * bytes + width - 1u) / width;
    if (cycles > 1 && (pairs_equal(addrs, mask, 1) || pairs_equal(addrs, mask, 2)))
        cycles = (cycles + 1u) / 2u;
    return cycles;
}

uint32_t lsu_bank_wavefronts(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask,
                             uint32_t bytes, uint32_t nbanks)
{
    /* Distinct words seen so far in each bank: a lane's word only needs to
     * be compared with the words already in its own bank. A bank holds at
     * most 32 lanes x 5 words (a misaligned 16-byte access covers 5). */
    uint32_t words[LSU_MAX_BANKS][LSU_WARP_SIZE * (LSU_MAX_BYTES / 4 + 1)];
    uint32_t per_bank[LSU_MAX_BANKS];
    uint32_t worst = 0;

    assert(bytes >= 1 && bytes <= LSU_MAX_BYTES);
    assert(nbanks >= 1 && nbanks <= LSU_MAX_BANKS);

    /* Fast path for the usual access (each lane inside one word, banks a
     * power of two) when no bank sees two different words: 1 wavefront. */
    if (bytes <= 4 && (nbanks & (nbanks - 1u)) == 0 && one_word_per_bank(addrs, mask, bytes, nbanks))
        return mask ? 1 : 0;

    memset(per_bank, 0, sizeof per_bank);
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
    if (bytes > 4 && mask) {
        uint32_t data = wide_data_cycles(addrs, mask, bytes, nbanks);
        worst = data > worst ? data : worst;
    }
    return worst;
}
