/* lsu.h - load/store unit helpers: the global-memory coalescer and the
 * shared-memory bank model.
 *
 * Both are pure functions of one warp instruction's 32 lane addresses: no
 * state, no allocation. The memory system (memsys.h) calls them to learn
 * how much work one warp access is; they can also be used (and are tested)
 * on their own.
 *
 * Coalescing: the bytes every active lane touches are grouped into cache
 * lines (128 bytes) and, inside each line, sectors (32 bytes). The memory
 * system moves whole sectors, so 32 lanes reading 32 consecutive floats
 * cost 4 sectors of 1 line, while 32 lanes reading floats 128 bytes apart
 * cost 32 sectors of 32 lines.
 *
 * Bank conflicts: shared memory is nbanks banks (32) of 4-byte words;
 * word w lives in bank w % nbanks. Each bank delivers one word per cycle,
 * so one "wavefront" serves at most one distinct word per bank. Lanes that
 * read the same word share it (broadcast). The number of wavefronts is
 * the largest number of distinct words any one bank must deliver.
 *
 * Wide accesses (ld/st.shared .v2/.v4, 8 or 16 bytes per lane; wmma
 * fragments) are counted the same way: a warp's contiguous .v4 covers 128
 * distinct words, 4 in every bank, so 4 wavefronts; a .v2 2. (The CUDA C++
 * Best Practices Guide, "Shared Memory and Memory Banks", and Programming
 * Guide, compute capability 5.x+ "Shared Memory", give the 32 banks of 32
 * bits and the broadcast rule; that the hardware serves 64-bit accesses in
 * half-warp and 128-bit ones in quarter-warp phases is the description
 * given on NVIDIA's developer forum, e.g. the thread "Shared memory bank
 * conflict reordering": 32 lanes reading different float4s from the same
 * 4 banks take 32 cycles, not 128.) Counting distinct words per bank over the
 * whole warp equals the phase count when no phase has a conflict and is a
 * lower bound otherwise. A second limit
 * applies to wide accesses only: the data path returns 128 bytes (one
 * register of every lane) a cycle, so 32 lanes of .v4 take at least 4
 * cycles even when they all read the same 16 bytes, or 2 when lane pairs
 * (n, n^1) or (n, n^2) share their addresses and the returned registers
 * are packed (NVIDIA's Greg Smith on the developer forum, "Unexpected
 * shared memory bank conflict", 2019, for compute capability 7.x: "The
 * return bandwidth of L1 and shared memory is 128 bytes/cycle == 1
 * register/cycle ... LDS.128 requires 4 requests per instruction ... If the
 * guidelines are met the requests/instruction should reduce from 4 to 2").
 * So a broadcast .v4 is 2 wavefronts, a broadcast .v2 1. Accesses of 4
 * bytes or less never hit this limit (a warp moves at most 128 bytes).
 */
#ifndef SIMT_LSU_H
#define SIMT_LSU_H

#include <stdint.h>

#define LSU_WARP_SIZE  32   /* lanes per warp                                */
#define LSU_MAX_BYTES  16   /* widest per-lane access (ld.v4.b32 / 128-bit)   */
#define LSU_MAX_LINES  64   /* 32 lanes, each may straddle 2 lines            */
#define LSU_MAX_BANKS  64   /* most shared-memory banks lsu_bank_wavefronts takes */

/* One cache line touched by a warp access. */
typedef struct lsu_line {
    uint32_t addr;     /* first byte address of the line (line-aligned)     */
    uint32_t sectors;  /* bit i set: sector i of the line is touched        */
} lsu_line_t;

/* The result of coalescing one warp access. */
typedef struct lsu_coalesced {
    uint32_t nlines;                   /* entries used in line[]            */
    uint32_t nsectors;                 /* total sector bits over all lines  */
    lsu_line_t line[LSU_MAX_LINES];    /* unique lines, ascending address   */
} lsu_coalesced_t;

/* Coalesce a warp access: lane i (bit i of mask set) touches bytes
 * [addrs[i], addrs[i] + bytes). Fills out with the unique lines touched,
 * in ascending address order, each with its sector mask. bytes is 1..16;
 * sector_bytes and line_bytes are powers of two with
 * line_bytes / sector_bytes <= 32. A lane whose bytes straddle a sector or
 * line boundary touches both. Inactive lanes are ignored; mask == 0 gives
 * no lines. Returns out->nlines. Cannot fail (bad sizes are asserted). */
uint32_t lsu_coalesce(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask,
                      uint32_t bytes, uint32_t sector_bytes,
                      uint32_t line_bytes, lsu_coalesced_t *out);

/* Number of shared-memory wavefronts (cycles of the bank array) needed to
 * serve a warp access: lane i (bit i of mask) touches the 4-byte words
 * covering [addrs[i], addrs[i] + bytes). Equal words are broadcast; distinct
 * words in the same bank serialise. Returns the largest count of distinct
 * words in any one bank: 1 for a conflict-free access, 32 for 32 lanes
 * reading with a stride of 32 words; 0 when mask is 0. For bytes > 4, at
 * least the data path's cycles (above): ceil(lanes x bytes / (4 x nbanks)),
 * halved (rounded up) when lane pairs share addresses. bytes is 1..16 and
 * nbanks is 1..LSU_MAX_BANKS (asserted). */
uint32_t lsu_bank_wavefronts(const uint32_t addrs[LSU_WARP_SIZE], uint32_t mask,
                             uint32_t bytes, uint32_t nbanks);

#endif
