#!/usr/bin/env python3
"""gen_decode.py - writes lessons/kernels/gemv.s and skinny_gemm.s, the
decode-time kernels (y = A x, and C = A B for a few rows of A). Their
unrolled loops are long to type; the .s files are what readers read.
Run: python3 scripts/gen_decode.py"""
import os

KDIR = os.path.join(os.path.dirname(__file__), "..", "lessons", "kernels")

def writer():
    o = []
    def e(s, c=None):
        o.append("    " + s + ";" + ("" if c is None else "  // " + c))
    def lab(s):
        o.append(s + ":")
    def cm(s):
        o.append("    // " + s)
    return o, e, lab, cm

def v4(b):
    return "{" + ",".join("%%r%d" % (b + i) for i in range(4)) + "}"

# ---------------------------------------------------------------- gemv
def gemv():
    o, e, lab, cm = writer()
    h = """\
// gemv.s - y = A x for an M x K row-major f32 matrix A and a K-vector x
// (decode with batch 1: every weight is used once, so the kernel is a
// stream over A and its speed is DRAM bandwidth). Any M, K >= 1.
//
// CUDA source it corresponds to (one warp per row, float4 loads, the
// usual "warp-per-row" GEMV of inference libraries; a real one reduces
// with __shfl_xor_sync, which simtlab's ISA does not have, so the 32
// partial sums go through shared memory in two barrier-separated steps):
//   __global__ void gemv(const float *A, const float *x, float *y, int M, int K) {
//     int row = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32;
//     const float *a = A + min(row, M - 1) * K;
//     float s0 = 0, s1 = 0;
//     if (K % 4 == 0) {                  // rows 16-byte aligned: float4
//       int kb = 0;
//       for (; kb + 512 <= K; kb += 512)  // 4 float4 per lane in flight
//         for (int u = 0; u < 4; u++) { float4 av = A4[(kb + 128u)/4 + lane], xv = ...;
//           (u % 2 ? s1 : s0) += av.x*xv.x + av.y*xv.y + av.z*xv.z + av.w*xv.w; }
//       for (; kb < K; kb += 128) if (kb + lane*4 < K) s0 += dot4(...);
//     } else {                           // any K: scalar, unrolled by 4
//       ... the same with floats, 32 per warp per load
//     }
//     red1[w][lane] = s0 + s1; __syncthreads();
//     if (lane < 8) red2[w][lane] = red1[w][lane] + red1[w][lane+8] + red1[w][lane+16] + red1[w][lane+24];
//     __syncthreads();
//     if (lane == 0 && row < M) y[row] = red2[w][0] + ... + red2[w][7];
//   }
// Params:  A, x, y (device addresses), M, K.
// Launch:  block = {256} (8 warps, one row each), grid = {ceil(M/8)}.
// Mapping: warp w of block b computes y[b*8 + w]; lane l reads the float4s
//          l, l + 32, ... of the row (512 contiguous bytes per warp load:
//          4 full lines, perfectly coalesced). Rows past M are clamped to
//          M - 1 (loaded, not stored) so every warp reaches both barriers.
// Speed:   16 bytes per lane per load and 4 loads in flight per lane = 2 KB
//          per warp, so ~8 warps per SM already cover DRAM latency x
//          bandwidth; x (K floats) stays in L1/L2. The sum order is fixed
//          (per lane k ascending in two chains, then the fixed tree), so
//          results are deterministic; they differ from a sequential dot
//          product only by rounding.
.kernel gemv
.param A
.param x
.param y
.param M
.param K
.shared red1 1024                      // float red1[8][32]: per-lane partial sums
.shared red2 256                       // float red2[8][8]
"""
    e("ld.param.u32 %r0, [A]")
    e("ld.param.u32 %r1, [x]")
    e("ld.param.u32 %r3, [M]")
    e("ld.param.u32 %r4, [K]")
    e("mov.u32 %r5, %tid.x")
    e("shr.u32 %r6, %r5, 5", "w")
    e("and.b32 %r7, %r5, 31", "lane")
    e("mov.u32 %r8, %ctaid.x")
    e("shl.b32 %r8, %r8, 3")
    e("add.u32 %r8, %r8, %r6", "row = b*8 + w")
    e("sub.u32 %r15, %r3, 1")
    e("min.u32 %r9, %r8, %r15", "clamped row (past M: loaded, not stored)")
    e("mul.u32 %r9, %r9, %r4")
    e("shl.b32 %r9, %r9, 2")
    e("add.u32 %r9, %r0, %r9", "&A[row][0]")
    e("mov.f32 %r12, 0.0", "s0")
    e("mov.f32 %r13, 0.0", "s1")
    e("mov.u32 %r11, 0", "kb: the warp's (uniform) position in the row")
    e("and.b32 %r15, %r4, 3")
    e("setp.ne.u32 %p0, %r15, 0", "K % 4 != 0: rows not 16-byte aligned")
    e("@%p0 bra SCALAR")
    cm("---- float4 path: lane l reads elements kb + 4l .. +3 of each 128-float chunk")
    e("shl.b32 %r15, %r7, 4")
    e("add.u32 %r9, %r9, %r15", "pA = &A[row][4*lane]")
    e("add.u32 %r10, %r1, %r15", "px = &x[4*lane]")
    e("add.u32 %r14, %r11, 512")
    e("setp.le.u32 %p1, %r14, %r4", "a whole 512-float trip left?")
    e("@!%p1 bra VTAIL")
    lab("VMAIN")
    cm("4 float4 of A and of x per lane in flight, then 16 FMAs in two chains")
    for u in range(4):
        e("ld.global.v4.f32 %s, [%%r9+%d]" % (v4(16 + 8 * u), 512 * u), "A[row][kb + %d + 4l ..]" % (128 * u))
        e("ld.global.v4.f32 %s, [%%r10+%d]" % (v4(20 + 8 * u), 512 * u), "x[kb + %d + 4l ..]" % (128 * u))
    e("add.u32 %r11, %r11, 512")
    e("add.u32 %r14, %r11, 512")
    e("setp.le.u32 %p1, %r14, %r4", "another whole trip? (compare early)")
    e("add.u32 %r9, %r9, 2048")
    e("add.u32 %r10, %r10, 2048")
    for u in range(4):
        acc = 12 + u % 2
        for c in range(4):
            e("fma.f32 %%r%d, %%r%d, %%r%d, %%r%d" % (acc, 16 + 8 * u + c, 20 + 8 * u + c, acc))
    e("@%p1 bra VMAIN")
    lab("VTAIL")
    cm("the last < 512 floats, one float4 per lane per trip (lanes past K idle)")
    e("setp.lt.u32 %p1, %r11, %r4")
    e("@!%p1 bra REDUCE")
    e("shl.b32 %r15, %r7, 2", "4*lane")
    lab("VTAIL_LOOP")
    e("add.u32 %r14, %r11, %r15")
    e("setp.lt.u32 %p2, %r14, %r4", "this lane's float4 inside the row")
    e("@%%p2 ld.global.v4.f32 %s, [%%r9]" % v4(16))
    e("@%%p2 ld.global.v4.f32 %s, [%%r10]" % v4(20))
    e("add.u32 %r11, %r11, 128")
    e("setp.lt.u32 %p1, %r11, %r4")
    e("add.u32 %r9, %r9, 512")
    e("add.u32 %r10, %r10, 512")
    for c in range(4):
        e("@%%p2 fma.f32 %%r12, %%r%d, %%r%d, %%r12" % (16 + c, 20 + c))
    e("@%p1 bra VTAIL_LOOP")
    e("bra REDUCE")
    lab("SCALAR")
    cm("---- scalar path (any K): lane l reads element kb + l of each 32-float chunk")
    e("shl.b32 %r15, %r7, 2")
    e("add.u32 %r9, %r9, %r15", "pA = &A[row][lane]")
    e("add.u32 %r10, %r1, %r15", "px = &x[lane]")
    e("add.u32 %r14, %r11, 128")
    e("setp.le.u32 %p1, %r14, %r4", "a whole 128-float trip left?")
    e("@!%p1 bra STAIL")
    lab("SMAIN")
    for u in range(4):
        e("ld.global.f32 %%r%d, [%%r9+%d]" % (16 + u, 128 * u), "A[row][kb + %d + l]" % (32 * u))
        e("ld.global.f32 %%r%d, [%%r10+%d]" % (20 + u, 128 * u), "x[kb + %d + l]" % (32 * u))
    e("add.u32 %r11, %r11, 128")
    e("add.u32 %r14, %r11, 128")
    e("setp.le.u32 %p1, %r14, %r4", "another whole trip? (compare early)")
    e("add.u32 %r9, %r9, 512")
    e("add.u32 %r10, %r10, 512")
    for u in range(4):
        acc = 12 + u % 2
        e("fma.f32 %%r%d, %%r%d, %%r%d, %%r%d" % (acc, 16 + u, 20 + u, acc))
    e("@%p1 bra SMAIN")
    lab("STAIL")
    e("setp.lt.u32 %p1, %r11, %r4")
    e("@!%p1 bra REDUCE")
    lab("STAIL_LOOP")
    e("add.u32 %r14, %r11, %r7")
    e("setp.lt.u32 %p2, %r14, %r4", "this lane's element inside the row")
    e("@%p2 ld.global.f32 %r16, [%r9]")
    e("@%p2 ld.global.f32 %r20, [%r10]")
    e("add.u32 %r11, %r11, 32")
    e("setp.lt.u32 %p1, %r11, %r4")
    e("add.u32 %r9, %r9, 128")
    e("add.u32 %r10, %r10, 128")
    e("@%p2 fma.f32 %r12, %r16, %r20, %r12")
    e("@%p1 bra STAIL_LOOP")
    lab("REDUCE")
    cm("---- the warp's 32 partial sums -> one, through shared memory (no shuffle in the ISA)")
    e("add.f32 %r12, %r12, %r13", "s = s0 + s1")
    e("shl.b32 %r15, %r5, 2")
    e("add.u32 %r15, %r15, red1")
    e("st.shared.f32 [%r15], %r12", "red1[w][lane]")
    e("bar.sync")
    e("setp.lt.u32 %p3, %r7, 8", "lanes 0..7 add 4 each")
    e("@%p3 ld.shared.f32 %r16, [%r15]")
    e("@%p3 ld.shared.f32 %r17, [%r15+32]")
    e("@%p3 ld.shared.f32 %r18, [%r15+64]")
    e("@%p3 ld.shared.f32 %r19, [%r15+96]")
    e("add.f32 %r16, %r16, %r17")
    e("add.f32 %r18, %r18, %r19")
    e("add.f32 %r16, %r16, %r18")
    e("shl.b32 %r14, %r6, 5")
    e("shl.b32 %r15, %r7, 2")
    e("add.u32 %r14, %r14, %r15")
    e("add.u32 %r14, %r14, red2")
    e("@%p3 st.shared.f32 [%r14], %r16", "red2[w][lane]")
    e("bar.sync")
    e("setp.eq.u32 %p4, %r7, 0")
    e("setp.lt.u32 %p5, %r8, %r3")
    e("and.pred %p4, %p4, %p5", "lane 0 of a warp whose row exists")
    e("@!%p4 exit")
    e("@%%p4 ld.shared.v4.f32 %s, [%%r14]" % v4(16), "red2[w][0..3]")
    e("@%%p4 ld.shared.v4.f32 %s, [%%r14+16]" % v4(20), "red2[w][4..7]")
    e("add.f32 %r16, %r16, %r17")
    e("add.f32 %r18, %r18, %r19")
    e("add.f32 %r20, %r20, %r21")
    e("add.f32 %r22, %r22, %r23")
    e("add.f32 %r16, %r16, %r18")
    e("add.f32 %r20, %r20, %r22")
    e("add.f32 %r16, %r16, %r20")
    e("ld.param.u32 %r2, [y]")
    e("shl.b32 %r15, %r8, 2")
    e("add.u32 %r15, %r2, %r15")
    e("st.global.f32 [%r15], %r16", "y[row]")
    e("exit")
    return h + "\n".join(o) + "\n"

# ---------------------------------------------------------------- skinny
def skinny():
    o, e, lab, cm = writer()
    h = """\
// skinny_gemm.s - C = A x B for a few rows: A is M x K (M small: the
// tokens of a decode batch, 1..128), B is K x N (the weights), C is M x N,
// all row-major f32, any M, N, K >= 1.
//
// CUDA source it corresponds to (the split-K "skinny" kernels inference
// libraries use when M is too small for a GEMM tile; one column per lane,
// the k range split over the warps of a block, partials added in shared
// memory in a fixed order, so no atomics and deterministic results):
//   __global__ void skinny(const float *A, const float *B, float *C, int M, int N, int K) {
//     __shared__ float As[128][8];            // 8 rows of A, 128 k's, transposed
//     __shared__ float red[8][8][32];
//     int w = threadIdx.x / 32, lane = threadIdx.x % 32;
//     int col = blockIdx.x * 32 + lane, m0 = blockIdx.y * 8;
//     float acc[8] = {0};
//     float b[16] = B[16w + j][col], a4[4] = A[m0 + t%8][t/8 + 32j];   // chunk 0
//     for (int kc = 0; kc < K; kc += 128) {
//       for (j = 0; j < 4; j++) As[t/8 + 32j][t%8] = a4[j];   // loaded a chunk ahead
//       __syncthreads();
//       for (j < 16) { float4 a0 = As4[16w + j][0], a1 = As4[16w + j][1];   // broadcast
//                      for (i < 8) acc[i] += a[i] * b[j];
//                      b[j] = B[kc + 128 + 16w + j][col]; }   // next chunk, in flight
//       a4[j] = A[m0 + t%8][kc + 128 + t/8 + 32j] (0 past K);
//       __syncthreads();
//     }
//     red[w][i][lane] = acc[i]; __syncthreads();
//     if (m0 + w < M && col < N) C[m0 + w][col] = red[0][w][lane] + ... + red[7][w][lane];
//   }
// Params:  A, B, C (device addresses), M, N, K.
// Launch:  block = {256}, grid = {ceil(N/32), ceil(M/8)}.
// Mapping: block (bx, by) computes C[by*8 .. +7][bx*32 .. +31]; lane l owns
//          column bx*32 + l, warp w the k's 16w .. 16w+15 of every 128-wide
//          chunk. Rows past M and columns past N are clamped (loaded, not
//          stored); k's past K read 0 from As and multiply stale b's.
// Speed:   B, the big operand, streams through once per 8 rows of A, each
//          warp load one 128-byte row segment, 16 in flight per warp; the 8
//          A values a k needs come from shared memory as 2 broadcast float4,
//          so a k costs 1 global + 2 shared loads for 8 FMAs. Each b[j] is
//          reloaded with the next chunk's row as soon as its FMAs issued, so
//          B loads stay in flight through the FMAs and barriers. Measured
//          (arch/CALIBRATION.md, N = K = 4096 on h200): 50% of DRAM at M = 1,
//          limited by parallelism (N/32 = 128 blocks, one per SM; real decode
//          kernels add split-K across blocks); at M = 128 B is read 16 times
//          (from L2 if it fits) and sgemm_128x128.s is the better kernel.
.kernel skinny_gemm
.param A
.param B
.param C
.param M
.param N
.param K
.shared As 4096                        // float As[128][8]
.shared red 8192                       // float red[8][8][32]
"""
    # registers: r0-7 acc, r8-23 b, r24-31 / r64-71 a fragments (double buffer)
    e("ld.param.u32 %r35, [M]")
    e("ld.param.u32 %r36, [N]")
    e("ld.param.u32 %r37, [K]")
    e("mov.u32 %r38, %tid.x", "t")
    e("shr.u32 %r39, %r38, 5", "w")
    e("and.b32 %r40, %r38, 31", "lane")
    e("mov.u32 %r41, %ctaid.x")
    e("shl.b32 %r41, %r41, 5")
    e("add.u32 %r41, %r41, %r40", "col = bx*32 + lane")
    e("sub.u32 %r53, %r36, 1")
    e("min.u32 %r42, %r41, %r53", "clamped column")
    e("mov.u32 %r43, %ctaid.y")
    e("shl.b32 %r43, %r43, 3", "m0 = by*8")
    cm("staging: this thread copies A[min(m0 + t%8, M-1)][kc + t/8 + 32j], j = 0..3")
    e("and.b32 %r53, %r38, 7", "t % 8: the row")
    e("shr.u32 %r45, %r38, 3", "t / 8: the k within the chunk")
    e("add.u32 %r54, %r43, %r53")
    e("sub.u32 %r55, %r35, 1")
    e("min.u32 %r54, %r54, %r55")
    e("mad.u32 %r44, %r54, %r37, %r45")
    e("shl.b32 %r44, %r44, 2")
    e("ld.param.u32 %r32, [A]")
    e("add.u32 %r44, %r44, %r32", "pAst = &A[row][t/8]")
    e("shl.b32 %r46, %r45, 5")
    e("shl.b32 %r54, %r53, 2")
    e("add.u32 %r46, %r46, %r54")
    e("add.u32 %r46, %r46, As", "wrAs = &As[t/8][t%8]")
    e("shl.b32 %r47, %r39, 9")
    e("add.u32 %r47, %r47, As", "rdAs = &As[16w][0]")
    cm("B pointer: &B[16w][col], 16 rows per warp, 128 rows per chunk")
    e("shl.b32 %r49, %r36, 2", "N*4: one row of B")
    e("shl.b32 %r50, %r36, 9", "N*512: 128 rows")
    e("shl.b32 %r52, %r39, 4", "kw = 16w: the warp's first k")
    e("mad.u32 %r48, %r52, %r36, %r42")
    e("shl.b32 %r48, %r48, 2")
    e("ld.param.u32 %r33, [B]")
    e("add.u32 %r48, %r48, %r33")
    for i in range(8):
        e("mov.f32 %%r%d, 0.0" % i)
    e("mov.u32 %r51, 0", "kc")
    def stage_loads(what):
        cm("A values of %s for As (0 past K): kc + t/8 + 32j < K" % what)
        for j in range(4):
            e("add.u32 %r55, %r51, %r45" if j == 0 else "add.u32 %r55, %r55, 32")
            e("setp.lt.u32 %%p%d, %%r55, %%r37" % (j + 1))
        for j in range(4):
            e("mov.f32 %%r%d, 0.0" % (56 + j))
            e("@%%p%d ld.global.f32 %%r%d, [%%r44+%d]" % (j + 1, 56 + j, 128 * j))
    def b_loads(what, ptr):
        cm("16 rows of B for %s (rows past K not loaded)" % what)
        e("sub.u32 %r55, %r37, %r52", "K - kw: rows left for this warp (signed)")
        e("mov.u32 %%r54, %s" % ptr)
        for j in range(16):
            e("setp.gt.s32 %%p1, %%r55, %d" % j)
            e("@%%p1 ld.global.f32 %%r%d, [%%r54]" % (8 + j), "B[kw + %d][col]" % j)
            if j < 15:
                e("add.u32 %r54, %r54, %r49")
    cm("prologue: chunk 0's A values and B rows, all in flight")
    stage_loads("chunk 0")
    b_loads("chunk 0", "%r48")
    lab("CHUNK")
    cm("As <- the A values loaded one chunk ahead")
    for j in range(4):
        e("st.shared.f32 [%%r46+%d], %%r%d" % (1024 * j, 56 + j), "As[t/8 + %d][t%%8]" % (32 * j))
    e("bar.sync", "As complete")
    cm("advance to the next chunk (its loads are issued during this one's FMAs)")
    e("add.u32 %r51, %r51, 128", "kc")
    e("add.u32 %r52, %r52, 128", "kw")
    e("setp.lt.u32 %p6, %r51, %r37", "another chunk? (compare early)")
    e("add.u32 %r44, %r44, 512")
    e("add.u32 %r48, %r48, %r50")
    e("sub.u32 %r55, %r37, %r52", "K - kw of the next chunk (signed)")
    e("mov.u32 %r54, %r48", "&B[next kw][col]")
    cm("acc[i] += As[16w + j][i] * b[j]: two broadcast float4 per k (the next k's loaded")
    cm("before this k's FMAs); once b[j] is used, it is reloaded with the next chunk's")
    cm("row j, so B loads are in flight all the time, not only at the chunk's start")
    bufs = [24, 64]
    e("ld.shared.v4.f32 %s, [%%r47]" % v4(24))
    e("ld.shared.v4.f32 %s, [%%r47+16]" % v4(28))
    for j in range(16):
        cur, nxt = bufs[j % 2], bufs[(j + 1) % 2]
        if j < 15:
            e("ld.shared.v4.f32 %s, [%%r47+%d]" % (v4(nxt), 32 * (j + 1)), "As[16w + %d][0..3]" % (j + 1))
            e("ld.shared.v4.f32 %s, [%%r47+%d]" % (v4(nxt + 4), 32 * (j + 1) + 16), "As[16w + %d][4..7]" % (j + 1))
        for i in range(8):
            e("fma.f32 %%r%d, %%r%d, %%r%d, %%r%d" % (i, cur + i, 8 + j, i))
        e("setp.gt.s32 %%p1, %%r55, %d" % j)
        e("@%%p1 ld.global.f32 %%r%d, [%%r54]" % (8 + j), "next chunk's B[kw + %d][col]" % j)
        if j < 15:
            e("add.u32 %r54, %r54, %r49")
    stage_loads("the next chunk")
    e("bar.sync", "done with As before the next chunk overwrites it")
    e("@%p6 bra CHUNK")
    cm("epilogue: red[w][i][lane] = acc[i]; warp w adds row w over the 8 warps in order")
    e("shl.b32 %r53, %r38, 2")
    e("shl.b32 %r54, %r39, 10")
    e("shl.b32 %r55, %r40, 2")
    e("add.u32 %r54, %r54, %r55")
    e("add.u32 %r54, %r54, red", "&red[w][0][lane]")
    for i in range(8):
        e("st.shared.f32 [%%r54+%d], %%r%d" % (128 * i, i))
    e("bar.sync")
    e("shl.b32 %r56, %r39, 7")
    e("add.u32 %r56, %r56, %r55")
    e("add.u32 %r56, %r56, red", "&red[0][w][lane]")
    for w in range(8):
        e("ld.shared.f32 %%r%d, [%%r56+%d]" % (8 + w, 1024 * w), "red[%d][w][lane]" % w)
    e("add.f32 %r8, %r8, %r9", "fixed order: ((((((r0 + r1) + r2) + r3) ...")
    for w in range(2, 8):
        e("add.f32 %%r8, %%r8, %%r%d" % (8 + w))
    e("add.u32 %r57, %r43, %r39", "row = m0 + w")
    e("setp.lt.u32 %p1, %r57, %r35")
    e("setp.lt.u32 %p2, %r41, %r36")
    e("and.pred %p1, %p1, %p2")
    e("@!%p1 exit")
    e("mad.u32 %r58, %r57, %r36, %r41")
    e("shl.b32 %r58, %r58, 2")
    e("ld.param.u32 %r34, [C]")
    e("add.u32 %r58, %r58, %r34")
    e("st.global.f32 [%r58], %r8", "C[m0 + w][col]")
    e("exit")
    return h + "\n".join(o) + "\n"

for name, fn in (("gemv", gemv), ("skinny_gemm", skinny)):
    with open(os.path.join(KDIR, name + ".s"), "w") as f:
        f.write(fn())
    print("wrote", os.path.normpath(os.path.join(KDIR, name + ".s")))
