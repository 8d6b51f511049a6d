/* bits.h - counting and finding set bits in masks (lanes, sectors, warps).
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

#endif
