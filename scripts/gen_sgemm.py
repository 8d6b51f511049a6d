#!/usr/bin/env python3
"""gen_sgemm.py - writes lessons/kernels/sgemm_128x128.s (the unrolled
library-style FP32 GEMM: 512 FMAs and 32 fragment loads per k-step are
too many to type). The .s file is the source of truth for readers; this
script only saves the typing. Run: python3 scripts/gen_sgemm.py"""
import os

HEADER = """\
// sgemm_128x128.s - C = A x B in FP32 the way a library does it (cuBLAS /
// CUTLASS SIMT SGEMM class): A is M x K, B is K x N, C is M x N, all
// row-major f32.
//
// CUDA source it corresponds to: the classic 128x128x8 double-buffered
// SGEMM (CUTLASS's SIMT threadblock shape 128x128x8 with 8x8 per thread,
// cutlass/gemm/threadblock/default_mma_core_simt.h; Simon Boehm's "How to
// optimize a CUDA matmul kernel", kernels 9-10; the many sgemm_128x128x8
// float4 kernels written after them):
//
//   __shared__ float As[2][8][128], Bs[2][8][128];   // A transposed
//   float acc[8][8] = {0}, a[2][8], b[2][8]; float4 ldA, ldB;
//   ldA = A4[row(t) * K/4 + (t & 1)];  ldB = B4[(t >> 5) * N/4 + col(t)/4];
//   As[0][(t&1)*4 + i][t >> 1] = ldA[i]; Bs[0][t >> 5][(t&31)*4..] = ldB;
//   __syncthreads(); a[0] = As[0][0][mi*4..], As[0][0][64+mi*4..]; b[0] = ...
//   for (tile = 0; tile < K/8; tile++) {
//     if (tile + 1 < K/8) { ldA = next A float4; ldB = next B float4; }
//     #pragma unroll
//     for (k = 0; k < 8; k++) {
//       if (k == 6) store ldA/ldB into the other buffer (no warp reads it now);
//       if (k == 7) { __syncthreads(); swap buffers; }
//       a[(k+1)%2] = 2 float4 of As[..][(k+1)%8]; b[(k+1)%2] = 2 float4 of Bs;
//       for i, j < 8: acc[i][j] = fmaf(a[k%2][i], b[k%2][j], acc[i][j]);
//     }
//   }
//   C[rows][cols] = acc (two float4 per row)
//
// Params:  A, B, C  device addresses; M, N, K  sizes.
//          Needs K a multiple of 8 (and >= 8) and N a multiple of 4 (16-byte
//          aligned rows for the 128-bit loads and stores); M and N need
//          not be multiples of the tile: rows of A beyond M and columns of
//          B beyond N are clamped to the last valid one (loaded, never
//          stored) and the stores of C outside M x N are skipped.
// Launch:  block = {256}, grid = {ceil(N/128), ceil(M/128)}.
// Mapping: block (bx, by) computes the 128 x 128 tile of C at rows by*128..,
//          columns bx*128... Thread t (warp w = t/32, lane l) owns 8 x 8
//          outputs: rows  by*128 + mi*4 + {0..3} and + 64 + mi*4 + {0..3},
//                   cols  bx*128 + ni*4 + {0..3} and + 64 + ni*4 + {0..3},
//          with mi = (w/2)*4 + (l bit 1) + 2*(l bit 4)                 (0..15)
//          and  ni = (w%2)*8 + (l bit 0) + 2*(l bit 2) + 4*(l bit 3)   (0..15):
//          a warp is a 4 x 8 grid of threads, interleaved as CUTLASS's
//          SIMT policy (RowMajorInterleaved<2>) does, so that its A fragment
//          load reads 4 distinct float4 (64 bytes) with lanes n and n^1
//          sharing an address, and its B fragment load 8 (128 bytes) with
//          n and n^2 sharing: no bank conflict, and the pairs let the
//          128-byte-a-cycle return path pack the registers, 2 wavefronts
//          per .v4 instead of 4 (sim/core/lsu.h). The plain 4 x 8 layout
//          (mi = l/8, ni = l%8) gives B no pairs, 4 wavefronts: 80.8% of
//          peak on a 4-SM h200 instead of 82.5%.
//          Per k-step of 8 (one "tile"): thread t loads one float4 of A
//          (row t/2, k (t%2)*4..+3) and one of B (k t/32, cols (t%32)*4..+3)
//          from global memory; A goes to shared memory TRANSPOSED (As[k][m],
//          4 scalar stores) so that the A fragment is 4 consecutive floats
//          of one As row, read with ld.shared.v4 like B's.
// Speed:   per k each thread does 64 FMAs with 4 ld.shared.v4 (16 floats):
//          0.25 shared bytes per FLOP, a quarter of matmul_reg64's, and 4
//          LSU instructions per 64 FMA instructions, so the load/store unit
//          (a quarter of the FP32 rate on h200) is no longer the limit.
//          Both the shared tiles (2 x 8 KB) and the register fragments (2 x
//          16) are double-buffered: the global loads of tile t+1 are in
//          flight during the 512 FMAs of tile t, the fragment loads of k+1
//          during the 64 FMAs of k, and the block needs one bar.sync per
//          tile. As nvcc schedules LDS among FFMAs, each fragment load is
//          placed 16 FMAs after the previous one (not 4 in a row: each
//          scheduler's LSU takes a warp instruction per 4 cycles, and 4 in a
//          row made warps queue for it: 70% -> 83% of peak on 4 SMs), and
//          the tile stores go among the FMAs of k = 6. What is left (issue
//          slots: 512 FMAs of ~562 instructions per tile; the LSU pipe; the
//          ramp and the epilogue) is in arch/CALIBRATION.md, "FP32 GEMM like
//          a library": 79% of the FP32 peak at n = 2048 on h200.
// Registers: %r0-%r63 accumulators (acc[i][j] = %r(8i+j)), %r64-%r95 the
//          two fragment buffers (a then b, 16 each), %r96-%r103 the global
//          prefetch, %r104-%r123 pointers and scratch: 124 registers (128
//          as allocated), so two blocks (16 warps) fit an h200 SM's 65,536. Generated by scripts/gen_sgemm.py.
.kernel sgemm_128x128
.param A
.param B
.param C
.param M
.param N
.param K
.shared smem 16384                     // 2 buffers x (As[8][128] + Bs[8][128]) floats
"""

def r(i):
    return "%%r%d" % i

def v4(base):
    return "{%s}" % ",".join(r(base + i) for i in range(4))

ACC = 0
FRAG = [64, 80]          # buffer b: a = FRAG[b]..+7, b = FRAG[b]+8..+15
LDA, LDB = 96, 100
GA, GB, SB, WA, WB, RA, RB, STEPS, MM, NN, KK = range(104, 115)
T0, T1, T2, T3, T4, T5, T6 = range(115, 122)

out = []
def e(s, c=None):
    out.append("    " + s + (";" if not s.endswith(":") else "") + ("" if c is None else "  // " + c))
def lab(s):
    out.append(s + ":")
def cm(s):
    out.append("    // " + s)

def frag_lines(buf, k):
    a, b = FRAG[buf], FRAG[buf] + 8
    L = []
    e = lambda s, c: L.append("    " + s + ";  // " + c)
    e("ld.shared.v4.f32 %s, [%s+%d]" % (v4(a), r(RA), k * 512), "a[0..3] = As[k=%d][mi*4 ..]" % k)
    e("ld.shared.v4.f32 %s, [%s+%d]" % (v4(a + 4), r(RA), k * 512 + 256), "a[4..7] = As[k=%d][64 + mi*4 ..]" % k)
    e("ld.shared.v4.f32 %s, [%s+%d]" % (v4(b), r(RB), k * 512), "b[0..3] = Bs[k=%d][ni*4 ..]" % k)
    e("ld.shared.v4.f32 %s, [%s+%d]" % (v4(b + 4), r(RB), k * 512 + 256), "b[4..7] = Bs[k=%d][64 + ni*4 ..]" % k)
    return L

def frag_load(buf, k):
    out.extend(frag_lines(buf, k))

def store_lines():
    L = []
    e = lambda s, c: L.append("    " + s + ";  // " + c)
    for i in range(4):
        e("st.shared.f32 [%s+%d], %s" % (r(WA), i * 512, r(LDA + i)), "As[(t%%2)*4 + %d][t/2] (transposed)" % i)
    e("st.shared.v4.f32 [%s], %s" % (r(WB), v4(LDB)), "Bs[t/32][(t%32)*4 ..]")
    return L

def store_tiles():
    out.extend(store_lines())

SPREAD = 16  # one pending fragment load every SPREAD FMAs, as a compiler schedules LDS among FFMAs

def fmas(buf, pending=(), spread=SPREAD):
    a, b = FRAG[buf], FRAG[buf] + 8
    pending = list(pending)
    for i in range(8):
        for j in range(8):
            if pending and (8 * i + j) % spread == 0:
                out.append(pending.pop(0))
            e("fma.f32 %s, %s, %s, %s" % (r(ACC + 8 * i + j), r(a + i), r(b + j), r(ACC + 8 * i + j)))

cm("parameters and thread coordinates")
e("ld.param.u32 %s, [M]" % r(MM))
e("ld.param.u32 %s, [N]" % r(NN))
e("ld.param.u32 %s, [K]" % r(KK))
e("mov.u32 %s, %%tid.x" % r(T0), "t (0..255)")
cm("fragment read addresses: rdA = &As[0][mi*4], rdB = &Bs[0][ni*4] (buffer 0)")
e("shr.u32 %s, %s, 5" % (r(T1), r(T0)), "w = t / 32")
e("and.b32 %s, %s, 31" % (r(T2), r(T0)), "l = t % 32")
e("shr.u32 %s, %s, 1" % (r(T3), r(T1)), "w / 2")
e("shl.b32 %s, %s, 2" % (r(T3), r(T3)), "(w/2)*4")
e("shr.u32 %s, %s, 1" % (r(T4), r(T2)), "l >> 1")
e("and.b32 %s, %s, 1" % (r(T5), r(T4)))
e("add.u32 %s, %s, %s" % (r(T3), r(T3), r(T5)), "+ lane bit 1")
e("shr.u32 %s, %s, 3" % (r(T5), r(T2)))
e("and.b32 %s, %s, 2" % (r(T5), r(T5)))
e("add.u32 %s, %s, %s" % (r(T3), r(T3), r(T5)), "+ 2 * lane bit 4: mi")
e("and.b32 %s, %s, 6" % (r(T5), r(T4)), "2 * lane bit 2 + 4 * lane bit 3")
e("and.b32 %s, %s, 1" % (r(T6), r(T2)))
e("add.u32 %s, %s, %s" % (r(T5), r(T5), r(T6)), "+ lane bit 0")
e("and.b32 %s, %s, 1" % (r(T4), r(T1)))
e("shl.b32 %s, %s, 3" % (r(T4), r(T4)))
e("add.u32 %s, %s, %s" % (r(T4), r(T4), r(T5)), "ni = (w%2)*8 + lane's column group")
e("shl.b32 %s, %s, 4" % (r(RA), r(T3)))
e("add.u32 %s, %s, smem" % (r(RA), r(RA)), "rdA = &As[0][0][mi*4]")
e("shl.b32 %s, %s, 4" % (r(RB), r(T4)))
e("add.u32 %s, %s, 4096" % (r(RB), r(RB)), "Bs follows As (4096 bytes) in each buffer")
e("add.u32 %s, %s, smem" % (r(RB), r(RB)), "rdB = &Bs[0][0][ni*4]")
cm("keep mi, ni for the epilogue: %r122 = mi, %r123 = ni")
e("mov.u32 %r122, " + r(T3))
e("mov.u32 %r123, " + r(T4))
cm("tile store addresses: wrA = &As[0][(t%2)*4][t/2], wrB = &Bs[0][t/32][(t%32)*4]")
e("and.b32 %s, %s, 1" % (r(T1), r(T0)), "t % 2")
e("shl.b32 %s, %s, 11" % (r(WA), r(T1)), "(t%2) * 4 rows * 512 bytes")
e("shr.u32 %s, %s, 1" % (r(T2), r(T0)), "t / 2: the A row this thread loads")
e("shl.b32 %s, %s, 2" % (r(T3), r(T2)))
e("add.u32 %s, %s, %s" % (r(WA), r(WA), r(T3)))
e("add.u32 %s, %s, smem" % (r(WA), r(WA)))
e("shr.u32 %s, %s, 5" % (r(T4), r(T0)), "t / 32: the B row (k) this thread loads")
e("shl.b32 %s, %s, 9" % (r(WB), r(T4)))
e("and.b32 %s, %s, 31" % (r(T5), r(T0)))
e("shl.b32 %s, %s, 2" % (r(T5), r(T5)), "(t%32)*4: the first B column")
e("shl.b32 %s, %s, 2" % (r(T6), r(T5)))
e("add.u32 %s, %s, %s" % (r(WB), r(WB), r(T6)))
e("add.u32 %s, %s, 4096" % (r(WB), r(WB)))
e("add.u32 %s, %s, smem" % (r(WB), r(WB)))
cm("global pointers: gA = &A[min(by*128 + t/2, M-1)][(t%2)*4]")
e("mov.u32 %s, %%ctaid.y" % r(T6))
e("shl.b32 %s, %s, 7" % (r(T6), r(T6)))
e("add.u32 %s, %s, %s" % (r(T2), r(T6), r(T2)), "A row")
e("sub.u32 %s, %s, 1" % (r(T6), r(MM)))
e("min.u32 %s, %s, %s" % (r(T2), r(T2), r(T6)), "clamp to M-1 (loaded, never stored)")
e("shl.b32 %s, %s, 2" % (r(T1), r(T1)), "(t%2)*4")
e("mad.u32 %s, %s, %s, %s" % (r(GA), r(T2), r(KK), r(T1)))
e("shl.b32 %s, %s, 2" % (r(GA), r(GA)))
e("ld.param.u32 %s, [A]" % r(T6))
e("add.u32 %s, %s, %s" % (r(GA), r(GA), r(T6)))
cm("gB = &B[t/32][min(bx*128 + (t%32)*4, N-4)]")
e("mov.u32 %s, %%ctaid.x" % r(T6))
e("shl.b32 %s, %s, 7" % (r(T6), r(T6)))
e("add.u32 %s, %s, %s" % (r(T5), r(T6), r(T5)), "B column")
e("sub.u32 %s, %s, 4" % (r(T6), r(NN)))
e("min.u32 %s, %s, %s" % (r(T5), r(T5), r(T6)), "clamp to N-4 (loaded, never stored)")
e("mad.u32 %s, %s, %s, %s" % (r(GB), r(T4), r(NN), r(T5)))
e("shl.b32 %s, %s, 2" % (r(GB), r(GB)))
e("ld.param.u32 %s, [B]" % r(T6))
e("add.u32 %s, %s, %s" % (r(GB), r(GB), r(T6)))
e("shl.b32 %s, %s, 5" % (r(SB), r(NN)), "8 rows of B in bytes: the step of gB per tile")
e("shr.u32 %s, %s, 3" % (r(STEPS), r(KK)), "tiles left: K / 8")
cm("prologue: tile 0 into shared buffer 0")
e("ld.global.v4.f32 %s, [%s]" % (v4(LDA), r(GA)), "A[row][(t%2)*4 .. +3]")
e("ld.global.v4.f32 %s, [%s]" % (v4(LDB), r(GB)), "B[t/32][col .. +3]")
cm("zero the 64 accumulators while the loads are in flight")
for i in range(64):
    e("mov.f32 %s, 0.0" % r(ACC + i))
store_tiles()
e("bar.sync", "tile 0 is in shared buffer 0")
e("xor.b32 %s, %s, 8192" % (r(WA), r(WA)), "the next tile goes to buffer 1")
e("xor.b32 %s, %s, 8192" % (r(WB), r(WB)))
frag_load(0, 0)
lab("TILE")
cm("prefetch the next tile's two float4 from global memory (not after the last tile);")
cm("they land during this tile's 512 FMAs and are stored at k = 7")
e("setp.gt.u32 %p1, " + r(STEPS) + ", 1", "another tile after this one?")
e("add.u32 %s, %s, 32" % (r(GA), r(GA)), "A: 8 columns on")
e("add.u32 %s, %s, %s" % (r(GB), r(GB), r(SB)), "B: 8 rows down")
e("@%%p1 ld.global.v4.f32 %s, [%s]" % (v4(LDA), r(GA)))
e("@%%p1 ld.global.v4.f32 %s, [%s]" % (v4(LDB), r(GB)))
for k in range(8):
    cur, nxt = k % 2, (k + 1) % 2
    if k < 6:
        cm("k = %d: 64 FMAs on fragment buffer %d, with the 4 loads of k = %d's fragments" % (k, cur, k + 1))
        cm("into buffer %d spread among them (one every %d FMAs)" % (nxt, SPREAD))
        fmas(cur, frag_lines(nxt, k + 1))
    elif k == 6:
        cm("k = 6: as above, and the prefetched tile (landed by now) stored into the other")
        cm("shared buffer, which no warp reads during this tile")
        fmas(cur, frag_lines(nxt, k + 1) + store_lines(), 7)
    else:
        cm("k = 7: one barrier (the next tile is complete in the other buffer), swap the")
        cm("buffers, and the next tile's k = 0 fragments spread among the last 64 FMAs")
        e("bar.sync", "next tile complete; every warp is done with this buffer's previous use")
        for reg in (RA, RB, WA, WB):
            e("xor.b32 %s, %s, 8192" % (r(reg), r(reg)), "swap buffers")
        e("sub.u32 %s, %s, 1" % (r(STEPS), r(STEPS)))
        e("setp.ne.u32 %p2, " + r(STEPS) + ", 0", "loop test early, as compiled code places it")
        fmas(cur, frag_lines(nxt, 0))
e("@%p2 bra TILE")
cm("epilogue: C[row][col0 .. +3] = acc[i][0..3], C[row][col0+64 .. +67] = acc[i][4..7]")
cm("for the 8 rows, each store skipped outside M x N")
e("mov.u32 %s, %%ctaid.x" % r(T0))
e("shl.b32 %s, %s, 7" % (r(T0), r(T0)))
e("shl.b32 %s, %%r123, 2" % r(T1))
e("add.u32 %s, %s, %s" % (r(T0), r(T0), r(T1)), "col0 = bx*128 + ni*4")
e("setp.lt.u32 %%p6, %s, %s" % (r(T0), r(NN)), "columns col0 .. +3 inside C (N % 4 == 0)")
e("add.u32 %s, %s, 64" % (r(T1), r(T0)))
e("setp.lt.u32 %%p7, %s, %s" % (r(T1), r(NN)), "columns col0+64 .. +67 inside C")
e("mov.u32 %s, %%ctaid.y" % r(T2))
e("shl.b32 %s, %s, 7" % (r(T2), r(T2)))
e("shl.b32 %s, %%r122, 2" % r(T1))
e("add.u32 %s, %s, %s" % (r(T2), r(T2), r(T1)), "row0 = by*128 + mi*4")
e("mad.u32 %s, %s, %s, %s" % (r(T3), r(T2), r(NN), r(T0)))
e("shl.b32 %s, %s, 2" % (r(T3), r(T3)))
e("ld.param.u32 %s, [C]" % r(T1))
e("add.u32 %s, %s, %s" % (r(T3), r(T3), r(T1)), "&C[row0][col0]")
e("shl.b32 %s, %s, 2" % (r(T4), r(NN)), "one row of C in bytes")
e("shl.b32 %s, %s, 6" % (r(T5), r(T4)), "64 rows of C in bytes")
for i in range(8):
    row_off = i if i < 4 else 64 + i - 4
    if i == 4:
        e("add.u32 %s, %s, %s" % (r(T3), r(T3), r(T5)), "rows +64 ..")
        e("add.u32 %s, %s, 64" % (r(T2), r(T2)))
    if i % 4 != 0:
        e("add.u32 %s, %s, %s" % (r(T3), r(T3), r(T4)), "next row")
    e("add.u32 %s, %s, %d" % (r(T1), r(T2), i % 4), "row %s" % ("row0 + %d" % row_off))
    e("setp.lt.u32 %%p3, %s, %s" % (r(T1), r(MM)))
    e("and.pred %p4, %p3, %p6")
    e("and.pred %p5, %p3, %p7")
    e("@%%p4 st.global.v4.f32 [%s], %s" % (r(T3), v4(ACC + 8 * i)))
    e("@%%p5 st.global.v4.f32 [%s+256], %s" % (r(T3), v4(ACC + 8 * i + 4)))
    if i == 3:
        # T3 points at row0+3; rows +64 start at row0 + 64 = T3 - 3 rows + 64 rows
        out.append("    sub.u32 %s, %s, %s;  // back to row0 (3 rows up)" % (r(T3), r(T3), r(T4)))
        out.append("    sub.u32 %s, %s, %s;" % (r(T3), r(T3), r(T4)))
        out.append("    sub.u32 %s, %s, %s;" % (r(T3), r(T3), r(T4)))
e("exit")

path = os.path.join(os.path.dirname(__file__), "..", "lessons", "kernels", "sgemm_128x128.s")
with open(path, "w") as f:
    f.write(HEADER + "\n".join(out) + "\n")
print("wrote", os.path.normpath(path), len(out), "lines")
