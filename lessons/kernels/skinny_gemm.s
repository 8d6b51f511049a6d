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
    ld.param.u32 %r35, [M];
    ld.param.u32 %r36, [N];
    ld.param.u32 %r37, [K];
    mov.u32 %r38, %tid.x;  // t
    shr.u32 %r39, %r38, 5;  // w
    and.b32 %r40, %r38, 31;  // lane
    mov.u32 %r41, %ctaid.x;
    shl.b32 %r41, %r41, 5;
    add.u32 %r41, %r41, %r40;  // col = bx*32 + lane
    sub.u32 %r53, %r36, 1;
    min.u32 %r42, %r41, %r53;  // clamped column
    mov.u32 %r43, %ctaid.y;
    shl.b32 %r43, %r43, 3;  // m0 = by*8
    // staging: this thread copies A[min(m0 + t%8, M-1)][kc + t/8 + 32j], j = 0..3
    and.b32 %r53, %r38, 7;  // t % 8: the row
    shr.u32 %r45, %r38, 3;  // t / 8: the k within the chunk
    add.u32 %r54, %r43, %r53;
    sub.u32 %r55, %r35, 1;
    min.u32 %r54, %r54, %r55;
    mad.u32 %r44, %r54, %r37, %r45;
    shl.b32 %r44, %r44, 2;
    ld.param.u32 %r32, [A];
    add.u32 %r44, %r44, %r32;  // pAst = &A[row][t/8]
    shl.b32 %r46, %r45, 5;
    shl.b32 %r54, %r53, 2;
    add.u32 %r46, %r46, %r54;
    add.u32 %r46, %r46, As;  // wrAs = &As[t/8][t%8]
    shl.b32 %r47, %r39, 9;
    add.u32 %r47, %r47, As;  // rdAs = &As[16w][0]
    // B pointer: &B[16w][col], 16 rows per warp, 128 rows per chunk
    shl.b32 %r49, %r36, 2;  // N*4: one row of B
    shl.b32 %r50, %r36, 9;  // N*512: 128 rows
    shl.b32 %r52, %r39, 4;  // kw = 16w: the warp's first k
    mad.u32 %r48, %r52, %r36, %r42;
    shl.b32 %r48, %r48, 2;
    ld.param.u32 %r33, [B];
    add.u32 %r48, %r48, %r33;
    mov.f32 %r0, 0.0;
    mov.f32 %r1, 0.0;
    mov.f32 %r2, 0.0;
    mov.f32 %r3, 0.0;
    mov.f32 %r4, 0.0;
    mov.f32 %r5, 0.0;
    mov.f32 %r6, 0.0;
    mov.f32 %r7, 0.0;
    mov.u32 %r51, 0;  // kc
    // prologue: chunk 0's A values and B rows, all in flight
    // A values of chunk 0 for As (0 past K): kc + t/8 + 32j < K
    add.u32 %r55, %r51, %r45;
    setp.lt.u32 %p1, %r55, %r37;
    add.u32 %r55, %r55, 32;
    setp.lt.u32 %p2, %r55, %r37;
    add.u32 %r55, %r55, 32;
    setp.lt.u32 %p3, %r55, %r37;
    add.u32 %r55, %r55, 32;
    setp.lt.u32 %p4, %r55, %r37;
    mov.f32 %r56, 0.0;
    @%p1 ld.global.f32 %r56, [%r44+0];
    mov.f32 %r57, 0.0;
    @%p2 ld.global.f32 %r57, [%r44+128];
    mov.f32 %r58, 0.0;
    @%p3 ld.global.f32 %r58, [%r44+256];
    mov.f32 %r59, 0.0;
    @%p4 ld.global.f32 %r59, [%r44+384];
    // 16 rows of B for chunk 0 (rows past K not loaded)
    sub.u32 %r55, %r37, %r52;  // K - kw: rows left for this warp (signed)
    mov.u32 %r54, %r48;
    setp.gt.s32 %p1, %r55, 0;
    @%p1 ld.global.f32 %r8, [%r54];  // B[kw + 0][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 1;
    @%p1 ld.global.f32 %r9, [%r54];  // B[kw + 1][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 2;
    @%p1 ld.global.f32 %r10, [%r54];  // B[kw + 2][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 3;
    @%p1 ld.global.f32 %r11, [%r54];  // B[kw + 3][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 4;
    @%p1 ld.global.f32 %r12, [%r54];  // B[kw + 4][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 5;
    @%p1 ld.global.f32 %r13, [%r54];  // B[kw + 5][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 6;
    @%p1 ld.global.f32 %r14, [%r54];  // B[kw + 6][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 7;
    @%p1 ld.global.f32 %r15, [%r54];  // B[kw + 7][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 8;
    @%p1 ld.global.f32 %r16, [%r54];  // B[kw + 8][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 9;
    @%p1 ld.global.f32 %r17, [%r54];  // B[kw + 9][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 10;
    @%p1 ld.global.f32 %r18, [%r54];  // B[kw + 10][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 11;
    @%p1 ld.global.f32 %r19, [%r54];  // B[kw + 11][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 12;
    @%p1 ld.global.f32 %r20, [%r54];  // B[kw + 12][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 13;
    @%p1 ld.global.f32 %r21, [%r54];  // B[kw + 13][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 14;
    @%p1 ld.global.f32 %r22, [%r54];  // B[kw + 14][col]
    add.u32 %r54, %r54, %r49;
    setp.gt.s32 %p1, %r55, 15;
    @%p1 ld.global.f32 %r23, [%r54];  // B[kw + 15][col]
CHUNK:
    // As <- the A values loaded one chunk ahead
    st.shared.f32 [%r46+0], %r56;  // As[t/8 + 0][t%8]
    st.shared.f32 [%r46+1024], %r57;  // As[t/8 + 32][t%8]
    st.shared.f32 [%r46+2048], %r58;  // As[t/8 + 64][t%8]
    st.shared.f32 [%r46+3072], %r59;  // As[t/8 + 96][t%8]
    bar.sync;  // As complete
    // advance to the next chunk (its loads are issued during this one's FMAs)
    add.u32 %r51, %r51, 128;  // kc
    add.u32 %r52, %r52, 128;  // kw
    setp.lt.u32 %p6, %r51, %r37;  // another chunk? (compare early)
    add.u32 %r44, %r44, 512;
    add.u32 %r48, %r48, %r50;
    sub.u32 %r55, %r37, %r52;  // K - kw of the next chunk (signed)
    mov.u32 %r54, %r48;  // &B[next kw][col]
    // acc[i] += As[16w + j][i] * b[j]: two broadcast float4 per k (the next k's loaded
    // before this k's FMAs); once b[j] is used, it is reloaded with the next chunk's
    // row j, so B loads are in flight all the time, not only at the chunk's start
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47];
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+16];
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+32];  // As[16w + 1][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+48];  // As[16w + 1][4..7]
    fma.f32 %r0, %r24, %r8, %r0;
    fma.f32 %r1, %r25, %r8, %r1;
    fma.f32 %r2, %r26, %r8, %r2;
    fma.f32 %r3, %r27, %r8, %r3;
    fma.f32 %r4, %r28, %r8, %r4;
    fma.f32 %r5, %r29, %r8, %r5;
    fma.f32 %r6, %r30, %r8, %r6;
    fma.f32 %r7, %r31, %r8, %r7;
    setp.gt.s32 %p1, %r55, 0;
    @%p1 ld.global.f32 %r8, [%r54];  // next chunk's B[kw + 0][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47+64];  // As[16w + 2][0..3]
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+80];  // As[16w + 2][4..7]
    fma.f32 %r0, %r64, %r9, %r0;
    fma.f32 %r1, %r65, %r9, %r1;
    fma.f32 %r2, %r66, %r9, %r2;
    fma.f32 %r3, %r67, %r9, %r3;
    fma.f32 %r4, %r68, %r9, %r4;
    fma.f32 %r5, %r69, %r9, %r5;
    fma.f32 %r6, %r70, %r9, %r6;
    fma.f32 %r7, %r71, %r9, %r7;
    setp.gt.s32 %p1, %r55, 1;
    @%p1 ld.global.f32 %r9, [%r54];  // next chunk's B[kw + 1][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+96];  // As[16w + 3][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+112];  // As[16w + 3][4..7]
    fma.f32 %r0, %r24, %r10, %r0;
    fma.f32 %r1, %r25, %r10, %r1;
    fma.f32 %r2, %r26, %r10, %r2;
    fma.f32 %r3, %r27, %r10, %r3;
    fma.f32 %r4, %r28, %r10, %r4;
    fma.f32 %r5, %r29, %r10, %r5;
    fma.f32 %r6, %r30, %r10, %r6;
    fma.f32 %r7, %r31, %r10, %r7;
    setp.gt.s32 %p1, %r55, 2;
    @%p1 ld.global.f32 %r10, [%r54];  // next chunk's B[kw + 2][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47+128];  // As[16w + 4][0..3]
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+144];  // As[16w + 4][4..7]
    fma.f32 %r0, %r64, %r11, %r0;
    fma.f32 %r1, %r65, %r11, %r1;
    fma.f32 %r2, %r66, %r11, %r2;
    fma.f32 %r3, %r67, %r11, %r3;
    fma.f32 %r4, %r68, %r11, %r4;
    fma.f32 %r5, %r69, %r11, %r5;
    fma.f32 %r6, %r70, %r11, %r6;
    fma.f32 %r7, %r71, %r11, %r7;
    setp.gt.s32 %p1, %r55, 3;
    @%p1 ld.global.f32 %r11, [%r54];  // next chunk's B[kw + 3][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+160];  // As[16w + 5][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+176];  // As[16w + 5][4..7]
    fma.f32 %r0, %r24, %r12, %r0;
    fma.f32 %r1, %r25, %r12, %r1;
    fma.f32 %r2, %r26, %r12, %r2;
    fma.f32 %r3, %r27, %r12, %r3;
    fma.f32 %r4, %r28, %r12, %r4;
    fma.f32 %r5, %r29, %r12, %r5;
    fma.f32 %r6, %r30, %r12, %r6;
    fma.f32 %r7, %r31, %r12, %r7;
    setp.gt.s32 %p1, %r55, 4;
    @%p1 ld.global.f32 %r12, [%r54];  // next chunk's B[kw + 4][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47+192];  // As[16w + 6][0..3]
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+208];  // As[16w + 6][4..7]
    fma.f32 %r0, %r64, %r13, %r0;
    fma.f32 %r1, %r65, %r13, %r1;
    fma.f32 %r2, %r66, %r13, %r2;
    fma.f32 %r3, %r67, %r13, %r3;
    fma.f32 %r4, %r68, %r13, %r4;
    fma.f32 %r5, %r69, %r13, %r5;
    fma.f32 %r6, %r70, %r13, %r6;
    fma.f32 %r7, %r71, %r13, %r7;
    setp.gt.s32 %p1, %r55, 5;
    @%p1 ld.global.f32 %r13, [%r54];  // next chunk's B[kw + 5][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+224];  // As[16w + 7][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+240];  // As[16w + 7][4..7]
    fma.f32 %r0, %r24, %r14, %r0;
    fma.f32 %r1, %r25, %r14, %r1;
    fma.f32 %r2, %r26, %r14, %r2;
    fma.f32 %r3, %r27, %r14, %r3;
    fma.f32 %r4, %r28, %r14, %r4;
    fma.f32 %r5, %r29, %r14, %r5;
    fma.f32 %r6, %r30, %r14, %r6;
    fma.f32 %r7, %r31, %r14, %r7;
    setp.gt.s32 %p1, %r55, 6;
    @%p1 ld.global.f32 %r14, [%r54];  // next chunk's B[kw + 6][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47+256];  // As[16w + 8][0..3]
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+272];  // As[16w + 8][4..7]
    fma.f32 %r0, %r64, %r15, %r0;
    fma.f32 %r1, %r65, %r15, %r1;
    fma.f32 %r2, %r66, %r15, %r2;
    fma.f32 %r3, %r67, %r15, %r3;
    fma.f32 %r4, %r68, %r15, %r4;
    fma.f32 %r5, %r69, %r15, %r5;
    fma.f32 %r6, %r70, %r15, %r6;
    fma.f32 %r7, %r71, %r15, %r7;
    setp.gt.s32 %p1, %r55, 7;
    @%p1 ld.global.f32 %r15, [%r54];  // next chunk's B[kw + 7][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+288];  // As[16w + 9][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+304];  // As[16w + 9][4..7]
    fma.f32 %r0, %r24, %r16, %r0;
    fma.f32 %r1, %r25, %r16, %r1;
    fma.f32 %r2, %r26, %r16, %r2;
    fma.f32 %r3, %r27, %r16, %r3;
    fma.f32 %r4, %r28, %r16, %r4;
    fma.f32 %r5, %r29, %r16, %r5;
    fma.f32 %r6, %r30, %r16, %r6;
    fma.f32 %r7, %r31, %r16, %r7;
    setp.gt.s32 %p1, %r55, 8;
    @%p1 ld.global.f32 %r16, [%r54];  // next chunk's B[kw + 8][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47+320];  // As[16w + 10][0..3]
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+336];  // As[16w + 10][4..7]
    fma.f32 %r0, %r64, %r17, %r0;
    fma.f32 %r1, %r65, %r17, %r1;
    fma.f32 %r2, %r66, %r17, %r2;
    fma.f32 %r3, %r67, %r17, %r3;
    fma.f32 %r4, %r68, %r17, %r4;
    fma.f32 %r5, %r69, %r17, %r5;
    fma.f32 %r6, %r70, %r17, %r6;
    fma.f32 %r7, %r71, %r17, %r7;
    setp.gt.s32 %p1, %r55, 9;
    @%p1 ld.global.f32 %r17, [%r54];  // next chunk's B[kw + 9][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+352];  // As[16w + 11][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+368];  // As[16w + 11][4..7]
    fma.f32 %r0, %r24, %r18, %r0;
    fma.f32 %r1, %r25, %r18, %r1;
    fma.f32 %r2, %r26, %r18, %r2;
    fma.f32 %r3, %r27, %r18, %r3;
    fma.f32 %r4, %r28, %r18, %r4;
    fma.f32 %r5, %r29, %r18, %r5;
    fma.f32 %r6, %r30, %r18, %r6;
    fma.f32 %r7, %r31, %r18, %r7;
    setp.gt.s32 %p1, %r55, 10;
    @%p1 ld.global.f32 %r18, [%r54];  // next chunk's B[kw + 10][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47+384];  // As[16w + 12][0..3]
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+400];  // As[16w + 12][4..7]
    fma.f32 %r0, %r64, %r19, %r0;
    fma.f32 %r1, %r65, %r19, %r1;
    fma.f32 %r2, %r66, %r19, %r2;
    fma.f32 %r3, %r67, %r19, %r3;
    fma.f32 %r4, %r68, %r19, %r4;
    fma.f32 %r5, %r69, %r19, %r5;
    fma.f32 %r6, %r70, %r19, %r6;
    fma.f32 %r7, %r71, %r19, %r7;
    setp.gt.s32 %p1, %r55, 11;
    @%p1 ld.global.f32 %r19, [%r54];  // next chunk's B[kw + 11][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+416];  // As[16w + 13][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+432];  // As[16w + 13][4..7]
    fma.f32 %r0, %r24, %r20, %r0;
    fma.f32 %r1, %r25, %r20, %r1;
    fma.f32 %r2, %r26, %r20, %r2;
    fma.f32 %r3, %r27, %r20, %r3;
    fma.f32 %r4, %r28, %r20, %r4;
    fma.f32 %r5, %r29, %r20, %r5;
    fma.f32 %r6, %r30, %r20, %r6;
    fma.f32 %r7, %r31, %r20, %r7;
    setp.gt.s32 %p1, %r55, 12;
    @%p1 ld.global.f32 %r20, [%r54];  // next chunk's B[kw + 12][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r47+448];  // As[16w + 14][0..3]
    ld.shared.v4.f32 {%r28,%r29,%r30,%r31}, [%r47+464];  // As[16w + 14][4..7]
    fma.f32 %r0, %r64, %r21, %r0;
    fma.f32 %r1, %r65, %r21, %r1;
    fma.f32 %r2, %r66, %r21, %r2;
    fma.f32 %r3, %r67, %r21, %r3;
    fma.f32 %r4, %r68, %r21, %r4;
    fma.f32 %r5, %r69, %r21, %r5;
    fma.f32 %r6, %r70, %r21, %r6;
    fma.f32 %r7, %r71, %r21, %r7;
    setp.gt.s32 %p1, %r55, 13;
    @%p1 ld.global.f32 %r21, [%r54];  // next chunk's B[kw + 13][col]
    add.u32 %r54, %r54, %r49;
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r47+480];  // As[16w + 15][0..3]
    ld.shared.v4.f32 {%r68,%r69,%r70,%r71}, [%r47+496];  // As[16w + 15][4..7]
    fma.f32 %r0, %r24, %r22, %r0;
    fma.f32 %r1, %r25, %r22, %r1;
    fma.f32 %r2, %r26, %r22, %r2;
    fma.f32 %r3, %r27, %r22, %r3;
    fma.f32 %r4, %r28, %r22, %r4;
    fma.f32 %r5, %r29, %r22, %r5;
    fma.f32 %r6, %r30, %r22, %r6;
    fma.f32 %r7, %r31, %r22, %r7;
    setp.gt.s32 %p1, %r55, 14;
    @%p1 ld.global.f32 %r22, [%r54];  // next chunk's B[kw + 14][col]
    add.u32 %r54, %r54, %r49;
    fma.f32 %r0, %r64, %r23, %r0;
    fma.f32 %r1, %r65, %r23, %r1;
    fma.f32 %r2, %r66, %r23, %r2;
    fma.f32 %r3, %r67, %r23, %r3;
    fma.f32 %r4, %r68, %r23, %r4;
    fma.f32 %r5, %r69, %r23, %r5;
    fma.f32 %r6, %r70, %r23, %r6;
    fma.f32 %r7, %r71, %r23, %r7;
    setp.gt.s32 %p1, %r55, 15;
    @%p1 ld.global.f32 %r23, [%r54];  // next chunk's B[kw + 15][col]
    // A values of the next chunk for As (0 past K): kc + t/8 + 32j < K
    add.u32 %r55, %r51, %r45;
    setp.lt.u32 %p1, %r55, %r37;
    add.u32 %r55, %r55, 32;
    setp.lt.u32 %p2, %r55, %r37;
    add.u32 %r55, %r55, 32;
    setp.lt.u32 %p3, %r55, %r37;
    add.u32 %r55, %r55, 32;
    setp.lt.u32 %p4, %r55, %r37;
    mov.f32 %r56, 0.0;
    @%p1 ld.global.f32 %r56, [%r44+0];
    mov.f32 %r57, 0.0;
    @%p2 ld.global.f32 %r57, [%r44+128];
    mov.f32 %r58, 0.0;
    @%p3 ld.global.f32 %r58, [%r44+256];
    mov.f32 %r59, 0.0;
    @%p4 ld.global.f32 %r59, [%r44+384];
    bar.sync;  // done with As before the next chunk overwrites it
    @%p6 bra CHUNK;
    // epilogue: red[w][i][lane] = acc[i]; warp w adds row w over the 8 warps in order
    shl.b32 %r53, %r38, 2;
    shl.b32 %r54, %r39, 10;
    shl.b32 %r55, %r40, 2;
    add.u32 %r54, %r54, %r55;
    add.u32 %r54, %r54, red;  // &red[w][0][lane]
    st.shared.f32 [%r54+0], %r0;
    st.shared.f32 [%r54+128], %r1;
    st.shared.f32 [%r54+256], %r2;
    st.shared.f32 [%r54+384], %r3;
    st.shared.f32 [%r54+512], %r4;
    st.shared.f32 [%r54+640], %r5;
    st.shared.f32 [%r54+768], %r6;
    st.shared.f32 [%r54+896], %r7;
    bar.sync;
    shl.b32 %r56, %r39, 7;
    add.u32 %r56, %r56, %r55;
    add.u32 %r56, %r56, red;  // &red[0][w][lane]
    ld.shared.f32 %r8, [%r56+0];  // red[0][w][lane]
    ld.shared.f32 %r9, [%r56+1024];  // red[1][w][lane]
    ld.shared.f32 %r10, [%r56+2048];  // red[2][w][lane]
    ld.shared.f32 %r11, [%r56+3072];  // red[3][w][lane]
    ld.shared.f32 %r12, [%r56+4096];  // red[4][w][lane]
    ld.shared.f32 %r13, [%r56+5120];  // red[5][w][lane]
    ld.shared.f32 %r14, [%r56+6144];  // red[6][w][lane]
    ld.shared.f32 %r15, [%r56+7168];  // red[7][w][lane]
    add.f32 %r8, %r8, %r9;  // fixed order: ((((((r0 + r1) + r2) + r3) ...
    add.f32 %r8, %r8, %r10;
    add.f32 %r8, %r8, %r11;
    add.f32 %r8, %r8, %r12;
    add.f32 %r8, %r8, %r13;
    add.f32 %r8, %r8, %r14;
    add.f32 %r8, %r8, %r15;
    add.u32 %r57, %r43, %r39;  // row = m0 + w
    setp.lt.u32 %p1, %r57, %r35;
    setp.lt.u32 %p2, %r41, %r36;
    and.pred %p1, %p1, %p2;
    @!%p1 exit;
    mad.u32 %r58, %r57, %r36, %r41;
    shl.b32 %r58, %r58, 2;
    ld.param.u32 %r34, [C];
    add.u32 %r58, %r58, %r34;
    st.global.f32 [%r58], %r8;  // C[m0 + w][col]
    exit;
