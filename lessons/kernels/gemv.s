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
    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [x];
    ld.param.u32 %r3, [M];
    ld.param.u32 %r4, [K];
    mov.u32 %r5, %tid.x;
    shr.u32 %r6, %r5, 5;  // w
    and.b32 %r7, %r5, 31;  // lane
    mov.u32 %r8, %ctaid.x;
    shl.b32 %r8, %r8, 3;
    add.u32 %r8, %r8, %r6;  // row = b*8 + w
    sub.u32 %r15, %r3, 1;
    min.u32 %r9, %r8, %r15;  // clamped row (past M: loaded, not stored)
    mul.u32 %r9, %r9, %r4;
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r0, %r9;  // &A[row][0]
    mov.f32 %r12, 0.0;  // s0
    mov.f32 %r13, 0.0;  // s1
    mov.u32 %r11, 0;  // kb: the warp's (uniform) position in the row
    and.b32 %r15, %r4, 3;
    setp.ne.u32 %p0, %r15, 0;  // K % 4 != 0: rows not 16-byte aligned
    @%p0 bra SCALAR;
    // ---- float4 path: lane l reads elements kb + 4l .. +3 of each 128-float chunk
    shl.b32 %r15, %r7, 4;
    add.u32 %r9, %r9, %r15;  // pA = &A[row][4*lane]
    add.u32 %r10, %r1, %r15;  // px = &x[4*lane]
    add.u32 %r14, %r11, 512;
    setp.le.u32 %p1, %r14, %r4;  // a whole 512-float trip left?
    @!%p1 bra VTAIL;
VMAIN:
    // 4 float4 of A and of x per lane in flight, then 16 FMAs in two chains
    ld.global.v4.f32 {%r16,%r17,%r18,%r19}, [%r9+0];  // A[row][kb + 0 + 4l ..]
    ld.global.v4.f32 {%r20,%r21,%r22,%r23}, [%r10+0];  // x[kb + 0 + 4l ..]
    ld.global.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+512];  // A[row][kb + 128 + 4l ..]
    ld.global.v4.f32 {%r28,%r29,%r30,%r31}, [%r10+512];  // x[kb + 128 + 4l ..]
    ld.global.v4.f32 {%r32,%r33,%r34,%r35}, [%r9+1024];  // A[row][kb + 256 + 4l ..]
    ld.global.v4.f32 {%r36,%r37,%r38,%r39}, [%r10+1024];  // x[kb + 256 + 4l ..]
    ld.global.v4.f32 {%r40,%r41,%r42,%r43}, [%r9+1536];  // A[row][kb + 384 + 4l ..]
    ld.global.v4.f32 {%r44,%r45,%r46,%r47}, [%r10+1536];  // x[kb + 384 + 4l ..]
    add.u32 %r11, %r11, 512;
    add.u32 %r14, %r11, 512;
    setp.le.u32 %p1, %r14, %r4;  // another whole trip? (compare early)
    add.u32 %r9, %r9, 2048;
    add.u32 %r10, %r10, 2048;
    fma.f32 %r12, %r16, %r20, %r12;
    fma.f32 %r12, %r17, %r21, %r12;
    fma.f32 %r12, %r18, %r22, %r12;
    fma.f32 %r12, %r19, %r23, %r12;
    fma.f32 %r13, %r24, %r28, %r13;
    fma.f32 %r13, %r25, %r29, %r13;
    fma.f32 %r13, %r26, %r30, %r13;
    fma.f32 %r13, %r27, %r31, %r13;
    fma.f32 %r12, %r32, %r36, %r12;
    fma.f32 %r12, %r33, %r37, %r12;
    fma.f32 %r12, %r34, %r38, %r12;
    fma.f32 %r12, %r35, %r39, %r12;
    fma.f32 %r13, %r40, %r44, %r13;
    fma.f32 %r13, %r41, %r45, %r13;
    fma.f32 %r13, %r42, %r46, %r13;
    fma.f32 %r13, %r43, %r47, %r13;
    @%p1 bra VMAIN;
VTAIL:
    // the last < 512 floats, one float4 per lane per trip (lanes past K idle)
    setp.lt.u32 %p1, %r11, %r4;
    @!%p1 bra REDUCE;
    shl.b32 %r15, %r7, 2;  // 4*lane
VTAIL_LOOP:
    add.u32 %r14, %r11, %r15;
    setp.lt.u32 %p2, %r14, %r4;  // this lane's float4 inside the row
    @%p2 ld.global.v4.f32 {%r16,%r17,%r18,%r19}, [%r9];
    @%p2 ld.global.v4.f32 {%r20,%r21,%r22,%r23}, [%r10];
    add.u32 %r11, %r11, 128;
    setp.lt.u32 %p1, %r11, %r4;
    add.u32 %r9, %r9, 512;
    add.u32 %r10, %r10, 512;
    @%p2 fma.f32 %r12, %r16, %r20, %r12;
    @%p2 fma.f32 %r12, %r17, %r21, %r12;
    @%p2 fma.f32 %r12, %r18, %r22, %r12;
    @%p2 fma.f32 %r12, %r19, %r23, %r12;
    @%p1 bra VTAIL_LOOP;
    bra REDUCE;
SCALAR:
    // ---- scalar path (any K): lane l reads element kb + l of each 32-float chunk
    shl.b32 %r15, %r7, 2;
    add.u32 %r9, %r9, %r15;  // pA = &A[row][lane]
    add.u32 %r10, %r1, %r15;  // px = &x[lane]
    add.u32 %r14, %r11, 128;
    setp.le.u32 %p1, %r14, %r4;  // a whole 128-float trip left?
    @!%p1 bra STAIL;
SMAIN:
    ld.global.f32 %r16, [%r9+0];  // A[row][kb + 0 + l]
    ld.global.f32 %r20, [%r10+0];  // x[kb + 0 + l]
    ld.global.f32 %r17, [%r9+128];  // A[row][kb + 32 + l]
    ld.global.f32 %r21, [%r10+128];  // x[kb + 32 + l]
    ld.global.f32 %r18, [%r9+256];  // A[row][kb + 64 + l]
    ld.global.f32 %r22, [%r10+256];  // x[kb + 64 + l]
    ld.global.f32 %r19, [%r9+384];  // A[row][kb + 96 + l]
    ld.global.f32 %r23, [%r10+384];  // x[kb + 96 + l]
    add.u32 %r11, %r11, 128;
    add.u32 %r14, %r11, 128;
    setp.le.u32 %p1, %r14, %r4;  // another whole trip? (compare early)
    add.u32 %r9, %r9, 512;
    add.u32 %r10, %r10, 512;
    fma.f32 %r12, %r16, %r20, %r12;
    fma.f32 %r13, %r17, %r21, %r13;
    fma.f32 %r12, %r18, %r22, %r12;
    fma.f32 %r13, %r19, %r23, %r13;
    @%p1 bra SMAIN;
STAIL:
    setp.lt.u32 %p1, %r11, %r4;
    @!%p1 bra REDUCE;
STAIL_LOOP:
    add.u32 %r14, %r11, %r7;
    setp.lt.u32 %p2, %r14, %r4;  // this lane's element inside the row
    @%p2 ld.global.f32 %r16, [%r9];
    @%p2 ld.global.f32 %r20, [%r10];
    add.u32 %r11, %r11, 32;
    setp.lt.u32 %p1, %r11, %r4;
    add.u32 %r9, %r9, 128;
    add.u32 %r10, %r10, 128;
    @%p2 fma.f32 %r12, %r16, %r20, %r12;
    @%p1 bra STAIL_LOOP;
REDUCE:
    // ---- the warp's 32 partial sums -> one, through shared memory (no shuffle in the ISA)
    add.f32 %r12, %r12, %r13;  // s = s0 + s1
    shl.b32 %r15, %r5, 2;
    add.u32 %r15, %r15, red1;
    st.shared.f32 [%r15], %r12;  // red1[w][lane]
    bar.sync;
    setp.lt.u32 %p3, %r7, 8;  // lanes 0..7 add 4 each
    @%p3 ld.shared.f32 %r16, [%r15];
    @%p3 ld.shared.f32 %r17, [%r15+32];
    @%p3 ld.shared.f32 %r18, [%r15+64];
    @%p3 ld.shared.f32 %r19, [%r15+96];
    add.f32 %r16, %r16, %r17;
    add.f32 %r18, %r18, %r19;
    add.f32 %r16, %r16, %r18;
    shl.b32 %r14, %r6, 5;
    shl.b32 %r15, %r7, 2;
    add.u32 %r14, %r14, %r15;
    add.u32 %r14, %r14, red2;
    @%p3 st.shared.f32 [%r14], %r16;  // red2[w][lane]
    bar.sync;
    setp.eq.u32 %p4, %r7, 0;
    setp.lt.u32 %p5, %r8, %r3;
    and.pred %p4, %p4, %p5;  // lane 0 of a warp whose row exists
    @!%p4 exit;
    @%p4 ld.shared.v4.f32 {%r16,%r17,%r18,%r19}, [%r14];  // red2[w][0..3]
    @%p4 ld.shared.v4.f32 {%r20,%r21,%r22,%r23}, [%r14+16];  // red2[w][4..7]
    add.f32 %r16, %r16, %r17;
    add.f32 %r18, %r18, %r19;
    add.f32 %r20, %r20, %r21;
    add.f32 %r22, %r22, %r23;
    add.f32 %r16, %r16, %r18;
    add.f32 %r20, %r20, %r22;
    add.f32 %r16, %r16, %r20;
    ld.param.u32 %r2, [y];
    shl.b32 %r15, %r8, 2;
    add.u32 %r15, %r2, %r15;
    st.global.f32 [%r15], %r16;  // y[row]
    exit;
