// conv2d_direct_cc.s - the direct convolution of conv2d_direct.s (one
// thread per output, NCHW, f32) as nvcc -O3 compiles it when the filter
// size is a compile-time constant, here R = S = 3 (the usual way such code
// is written: template <int R, int S>). The CUDA source:
//   template <int R, int S> __global__ void conv2d_direct(X, Wt, Y, N, C,
//       H, W, K, pad, stride, P, Q) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i >= N*K*P*Q) return;
//     int q = i % Q, p = i / Q % P, k = i / (P*Q) % K, n = i / (K*P*Q);
//     int h0 = p*stride - pad, w0 = q*stride - pad;  float acc = 0.f;
//     for (int c = 0; c < C; c++)
//       #pragma unroll
//       for (int r = 0; r < R; r++)
//         #pragma unroll
//         for (int s = 0; s < S; s++) {
//           int h = h0 + r, w = w0 + s;
//           if (h >= 0 && h < H && w >= 0 && w < W)
//             acc += X[((n*C + c)*H + h)*W + w] * Wt[((k*C + c)*R + r)*S + s];
//         }
//     Y[i] = acc;
//   }
// What the compiler does with it (and conv2d_direct.s, written as the
// loops read, does not):
//  - the r and s loops are unrolled completely: the 9 taps of a channel
//    are 18 loads issued back to back (18 in flight instead of 2), then
//    9 FMAs; the filter taps are one pointer plus immediate offsets
//    [%r+0] .. [%r+32], the input taps three row pointers plus 0, 4, 8;
//  - the padding tests do not depend on c, so they are hoisted out of the
//    c loop: 3 row and 3 column predicates computed once per thread, one
//    and.pred per tap in the loop (a tap outside the image loads nothing
//    and skips its FMA, as the `if` says);
//  - the index arithmetic is strength-reduced: per channel the input and
//    filter pointers advance by one plane (H*W*4) and by 36 bytes;
//  - the div/rem that split i run once per thread, before the loop.
// The result is bit-identical to conv2d_direct.s (same FMAs in the same
// order; the skipped ones add 0).
//
// Params:  as conv2d_direct.s (R and S must be 3: they are still passed,
//          so that the two kernels are launched the same way).
// Launch:  1-D, block = {bx} (e.g. 128), grid = {ceil(N*K*P*Q / bx)}.
// Mapping: as conv2d_direct.s: one thread per output, i the flat NKPQ index.
// Speed:   still one thread per output reading both operands from L1/L2
//          for every FMA (no reuse through shared memory or registers),
//          but with the loads of a whole channel in flight at once the
//          latency is hidden by far fewer warps; the structural cure is the
//          tiled implicit GEMM, conv_igemm.s.
.kernel conv2d_direct_cc
.param X
.param Wt
.param Y
.param N
.param C
.param H
.param W
.param K
.param R
.param S
.param pad
.param stride
.param P
.param Q
    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r0, %r0, %r1, %r2;        // i = ctaid.x * ntid.x + tid.x
    ld.param.u32 %r1, [N];
    ld.param.u32 %r2, [K];
    ld.param.u32 %r3, [P];
    ld.param.u32 %r4, [Q];
    mul.u32 %r5, %r1, %r2;
    mul.u32 %r5, %r5, %r3;
    mul.u32 %r5, %r5, %r4;             // N*K*P*Q outputs
    setp.ge.u32 %p0, %r0, %r5;
    @%p0 exit;                         // past the end of Y
    // split i into (n, k, p, q), once
    rem.u32 %r6, %r0, %r4;             // q
    div.u32 %r7, %r0, %r4;
    rem.u32 %r8, %r7, %r3;             // p
    div.u32 %r7, %r7, %r3;
    rem.u32 %r9, %r7, %r2;             // k
    div.u32 %r10, %r7, %r2;            // n
    ld.param.u32 %r11, [stride];
    ld.param.u32 %r12, [pad];
    mul.u32 %r13, %r8, %r11;
    sub.s32 %r13, %r13, %r12;          // h0 = p*stride - pad
    mul.u32 %r14, %r6, %r11;
    sub.s32 %r14, %r14, %r12;          // w0 = q*stride - pad
    ld.param.u32 %r15, [C];
    ld.param.u32 %r16, [H];
    ld.param.u32 %r17, [W];
    // the padding tests, hoisted out of the c loop: rows h0 + r (%p1..%p3),
    // columns w0 + s (%p4..%p6); negative values are huge as u32
    add.u32 %r18, %r13, 0;
    setp.lt.u32 %p1, %r18, %r16;       // 0 <= h0 + 0 < H
    add.u32 %r18, %r13, 1;
    setp.lt.u32 %p2, %r18, %r16;       // 0 <= h0 + 1 < H
    add.u32 %r18, %r13, 2;
    setp.lt.u32 %p3, %r18, %r16;       // 0 <= h0 + 2 < H
    add.u32 %r18, %r14, 0;
    setp.lt.u32 %p4, %r18, %r17;       // 0 <= w0 + 0 < W
    add.u32 %r18, %r14, 1;
    setp.lt.u32 %p5, %r18, %r17;       // 0 <= w0 + 1 < W
    add.u32 %r18, %r14, 2;
    setp.lt.u32 %p6, %r18, %r17;       // 0 <= w0 + 2 < W
    shl.b32 %r19, %r17, 2;             // one image row in bytes: W*4
    mul.u32 %r20, %r16, %r19;          // one plane in bytes: H*W*4
    // %r21 = &X[n][0][h0][w0] (the window's corner, may lie outside),
    // advanced one plane per c
    mul.u32 %r21, %r10, %r15;          // n*C
    mad.u32 %r21, %r21, %r16, %r13;    // n*C*H + h0
    mad.u32 %r21, %r21, %r17, %r14;    // (n*C*H + h0)*W + w0
    shl.b32 %r21, %r21, 2;
    ld.param.u32 %r22, [X];
    add.u32 %r21, %r21, %r22;
    // %r23 = &Wt[k][0][0][0], advanced 9 floats (36 bytes) per c
    mul.u32 %r23, %r9, %r15;
    mul.u32 %r23, %r23, 36;
    ld.param.u32 %r22, [Wt];
    add.u32 %r23, %r23, %r22;
    mov.f32 %r24, 0.0;                 // acc
    mov.u32 %r25, 0;                   // c
LOOP_C:
    // the three row pointers of this channel's window
    add.u32 %r26, %r21, %r19;          // row h0 + 1
    add.u32 %r27, %r26, %r19;          // row h0 + 2
    // all 18 loads of the channel first (taps outside the image: none)
    and.pred %p7, %p1, %p4;            // tap (0, 0) inside the image
    @%p7 ld.global.f32 %r28, [%r21+0]; // X[n][c][h0+0][w0+0]
    @%p7 ld.global.f32 %r37, [%r23+0]; // Wt[k][c][0][0]
    and.pred %p7, %p1, %p5;            // tap (0, 1) inside the image
    @%p7 ld.global.f32 %r29, [%r21+4]; // X[n][c][h0+0][w0+1]
    @%p7 ld.global.f32 %r38, [%r23+4]; // Wt[k][c][0][1]
    and.pred %p7, %p1, %p6;            // tap (0, 2) inside the image
    @%p7 ld.global.f32 %r30, [%r21+8]; // X[n][c][h0+0][w0+2]
    @%p7 ld.global.f32 %r39, [%r23+8]; // Wt[k][c][0][2]
    and.pred %p7, %p2, %p4;            // tap (1, 0) inside the image
    @%p7 ld.global.f32 %r31, [%r26+0]; // X[n][c][h0+1][w0+0]
    @%p7 ld.global.f32 %r40, [%r23+12]; // Wt[k][c][1][0]
    and.pred %p7, %p2, %p5;            // tap (1, 1) inside the image
    @%p7 ld.global.f32 %r32, [%r26+4]; // X[n][c][h0+1][w0+1]
    @%p7 ld.global.f32 %r41, [%r23+16]; // Wt[k][c][1][1]
    and.pred %p7, %p2, %p6;            // tap (1, 2) inside the image
    @%p7 ld.global.f32 %r33, [%r26+8]; // X[n][c][h0+1][w0+2]
    @%p7 ld.global.f32 %r42, [%r23+20]; // Wt[k][c][1][2]
    and.pred %p7, %p3, %p4;            // tap (2, 0) inside the image
    @%p7 ld.global.f32 %r34, [%r27+0]; // X[n][c][h0+2][w0+0]
    @%p7 ld.global.f32 %r43, [%r23+24]; // Wt[k][c][2][0]
    and.pred %p7, %p3, %p5;            // tap (2, 1) inside the image
    @%p7 ld.global.f32 %r35, [%r27+4]; // X[n][c][h0+2][w0+1]
    @%p7 ld.global.f32 %r44, [%r23+28]; // Wt[k][c][2][1]
    and.pred %p7, %p3, %p6;            // tap (2, 2) inside the image
    @%p7 ld.global.f32 %r36, [%r27+8]; // X[n][c][h0+2][w0+2]
    @%p7 ld.global.f32 %r45, [%r23+32]; // Wt[k][c][2][2]
    // then the 9 FMAs, in the source's (r, s) order
    and.pred %p7, %p1, %p4;
    @%p7 fma.f32 %r24, %r28, %r37, %r24;
    and.pred %p7, %p1, %p5;
    @%p7 fma.f32 %r24, %r29, %r38, %r24;
    and.pred %p7, %p1, %p6;
    @%p7 fma.f32 %r24, %r30, %r39, %r24;
    and.pred %p7, %p2, %p4;
    @%p7 fma.f32 %r24, %r31, %r40, %r24;
    and.pred %p7, %p2, %p5;
    @%p7 fma.f32 %r24, %r32, %r41, %r24;
    and.pred %p7, %p2, %p6;
    @%p7 fma.f32 %r24, %r33, %r42, %r24;
    and.pred %p7, %p3, %p4;
    @%p7 fma.f32 %r24, %r34, %r43, %r24;
    and.pred %p7, %p3, %p5;
    @%p7 fma.f32 %r24, %r35, %r44, %r24;
    and.pred %p7, %p3, %p6;
    @%p7 fma.f32 %r24, %r36, %r45, %r24;
    add.u32 %r21, %r21, %r20;          // next plane of X
    add.u32 %r23, %r23, 36;            // next channel of the filter
    add.u32 %r25, %r25, 1;
    setp.lt.u32 %p0, %r25, %r15;
    @%p0 bra LOOP_C;
    // Y[i]: i is already the flat NKPQ index
    shl.b32 %r18, %r0, 2;
    ld.param.u32 %r22, [Y];
    add.u32 %r18, %r18, %r22;
    st.global.f32 [%r18], %r24;
    exit;
