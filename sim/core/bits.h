/* bits.h - counting, finding and making set bits in masks (lanes, sectors,
 * warps).
 *
 * Plain C with a compiler builtin where there is one; the results are the
 * same either way.
 */
#ifndef SIMT_BITS_H
#define SIMT_BITS_H

#include <stdint.h>

/* Set bits in x (branch-free: the usual SWAR sum of bit pairs, nibbles,
 * bytes). */
static inline uint32_t bits_popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

/* Set bits in an 8-bit x (the sector mask of a cache line): two lookups
 * of a nibble's count, cheaper than the 32-bit sum. */
static inline uint32_t bits_popcount8(uint32_t x)
{
    static const uint8_t nibble[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
    return (uint32_t)nibble[x & 15u] + nibble[(x >> 4) & 15u];
}

/* Index of the lowest set bit of x (x != 0). */
static inline uint32_t bits_lowest64(uint64_t x)
{
#if defined(__GNUC__)
    return (uint32_t)__builtin_ctzll(x);
#else
    uint32_t i = 0;
    while (!(x >> i & 1u))
        i++;
    return i;
#endif
}

/* For a function whose time goes into plain loops over the 32 lanes (the
 * coalescer, exec_mem.c's memory instructions): compile it twice, for any
 * x86-64 and for CPUs with AVX2 (since 2013), whose vector instructions
 * take 8 lanes at once instead of 4; the program picks one when it starts
 * (an ifunc). GCC on x86-64 Linux only: Clang 14 leaves the symbol of such
 * a function undefined for callers in other files. Elsewhere there is
 * just the one. The C is the same, so are the results. Only for functions
 * that are called, not inlined, and that do not mostly call other small
 * functions: a clone inlines neither into its callers nor, often, its
 * callees (lsu_bank_wavefronts got slower). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define BITS_LANE_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#ifndef BITS_LANE_CLONES
#define BITS_LANE_CLONES
#endif

/* Bit l set, for l = 0..31, as a table: in a loop over the lanes,
 * "x ? bits_lane[l] : 0" becomes vector compares and ANDs, while a shift
 * by the lane number stays one lane at a time. */
static const uint32_t bits_lane[32] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
    1u << 8,  1u << 9,  1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
    1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
    1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31,
};

#endif
