// matmul_tiled32.s - C = A x B for n x n row-major f32 matrices, using
// shared-memory tiles of 32 x 32.
//
// Params:  A, B, C  device addresses of n*n floats; n  matrix size.
// Launch:  2-D, block = {32, 8} (exactly: 256 threads, the most edu-tiny
//          allows in one block), grid = {ceil(n/32), ceil(n/32)}.
// Mapping: block (bx, by) computes the 32 x 32 tile of C at rows by*32..,
//          columns bx*32..; thread (tx, ty) computes FOUR elements of it,
//          in column col = bx*32 + tx and rows by*32 + ty + {0, 8, 16, 24}.
//          For each 32-wide step t along k the block copies the tiles
//          A[by*32 .. +31][t .. t+31] -> As and B[t .. t+31][bx*32 .. +31]
//          -> Bs (four elements of each per thread, coalesced), waits at
//          bar.sync, multiplies the tiles out of shared memory and waits
//          again before the next copy. Elements outside the matrices are
//          stored as 0; threads outside C still load and reach every
//          barrier (they only skip their stores), so any n works.
// Speed:   each float loaded from global memory is used 32 times, half
//          the traffic of the 16-wide tile, and each Bs value read from
//          shared memory feeds 4 FMAs (register reuse), so fewer shared
//          loads per FMA too; the cost is 4 accumulators per thread.
.kernel matmul_tiled32
.param A
.param B
.param C
.param n
.shared As 4096                        // float As[32][32]
.shared Bs 4096                        // float Bs[32][32]

    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [B];
    ld.param.u32 %r2, [C];
    ld.param.u32 %r3, [n];
    mov.u32 %r4, %tid.x;               // tx (0..31)
    mov.u32 %r5, %tid.y;               // ty (0..7)
    mov.u32 %r6, %ctaid.y;
    mad.u32 %r7, %r6, 32, %r5;         // row0 = by * 32 + ty
    mov.u32 %r6, %ctaid.x;
    mad.u32 %r8, %r6, 32, %r4;         // col = bx * 32 + tx
    setp.lt.u32 %p0, %r8, %r3;         // %p0: col < n
    // shared addresses used every step
    shl.b32 %r6, %r5, 7;               // ty * 128 (one tile row = 128 bytes)
    add.u32 %r11, %r6, As;             // &As[ty][0]
    shl.b32 %r12, %r4, 2;              // tx * 4
    add.u32 %r9, %r11, %r12;           // &As[ty][tx]
    add.u32 %r10, %r6, Bs;
    add.u32 %r10, %r10, %r12;          // &Bs[ty][tx]
    add.u32 %r12, %r12, Bs;            // &Bs[0][tx]
    // global pointers for step t = 0
    mad.u32 %r13, %r7, %r3, %r4;       // row0 * n + tx
    shl.b32 %r13, %r13, 2;
    add.u32 %r13, %r0, %r13;           // %r13 = &A[row0][t + tx]
    mad.u32 %r14, %r5, %r3, %r8;       // ty * n + col
    shl.b32 %r14, %r14, 2;
    add.u32 %r14, %r1, %r14;           // %r14 = &B[t + ty][col]
    shl.b32 %r15, %r3, 5;              // 8 rows in bytes: n * 32
    shl.b32 %r16, %r3, 7;              // 32 rows in bytes: n * 128
    mov.f32 %r18, 0.0;                 // acc for row0
    mov.f32 %r19, 0.0;                 // acc for row0 + 8
    mov.f32 %r20, 0.0;                 // acc for row0 + 16
    mov.f32 %r21, 0.0;                 // acc for row0 + 24
    mov.u32 %r17, 0;                   // t
STEP:
    // As[ty + 8j][tx] = A[row0 + 8j][t + tx] for j = 0..3 (0 outside A)
    add.u32 %r24, %r17, %r4;
    setp.lt.u32 %p1, %r24, %r3;        // %p1: column t + tx inside A
    mov.u32 %r22, %r13;
    add.u32 %r24, %r7, 0;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p1;          // A[row0 + 0][t + tx] inside?
    mov.f32 %r27, 0.0;
    @%p2 ld.global.f32 %r27, [%r22];
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r7, 8;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p1;          // A[row0 + 8][t + tx] inside?
    mov.f32 %r28, 0.0;
    @%p2 ld.global.f32 %r28, [%r22];
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r7, 16;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p1;          // A[row0 + 16][t + tx] inside?
    mov.f32 %r29, 0.0;
    @%p2 ld.global.f32 %r29, [%r22];
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r7, 24;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p1;          // A[row0 + 24][t + tx] inside?
    mov.f32 %r30, 0.0;
    @%p2 ld.global.f32 %r30, [%r22];
    // Bs[ty + 8j][tx] = B[t + ty + 8j][col] for j = 0..3 (0 outside B)
    mov.u32 %r22, %r14;
    add.u32 %r24, %r17, %r5;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // B[t + ty + 0][col] inside?
    mov.f32 %r31, 0.0;
    @%p2 ld.global.f32 %r31, [%r22];
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r17, %r5;
    add.u32 %r24, %r24, 8;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // B[t + ty + 8][col] inside?
    mov.f32 %r32, 0.0;
    @%p2 ld.global.f32 %r32, [%r22];
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r17, %r5;
    add.u32 %r24, %r24, 16;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // B[t + ty + 16][col] inside?
    mov.f32 %r33, 0.0;
    @%p2 ld.global.f32 %r33, [%r22];
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r17, %r5;
    add.u32 %r24, %r24, 24;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // B[t + ty + 24][col] inside?
    mov.f32 %r34, 0.0;
    @%p2 ld.global.f32 %r34, [%r22];
    // the eight loads above are in flight together (eight registers);
    // now store them to the tiles
    st.shared.f32 [%r9+0], %r27;
    st.shared.f32 [%r9+1024], %r28;
    st.shared.f32 [%r9+2048], %r29;
    st.shared.f32 [%r9+3072], %r30;
    st.shared.f32 [%r10+0], %r31;
    st.shared.f32 [%r10+1024], %r32;
    st.shared.f32 [%r10+2048], %r33;
    st.shared.f32 [%r10+3072], %r34;
    bar.sync;                          // both tiles complete
    // acc_j += As[ty + 8j][k] * Bs[k][tx], k = 0..31, j = 0..3 (unrolled)
    ld.shared.f32 %r25, [%r12+0];
    ld.shared.f32 %r26, [%r11+0];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1024];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2048];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3072];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+128];
    ld.shared.f32 %r26, [%r11+4];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1028];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2052];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3076];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+256];
    ld.shared.f32 %r26, [%r11+8];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1032];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2056];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3080];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+384];
    ld.shared.f32 %r26, [%r11+12];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1036];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2060];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3084];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+512];
    ld.shared.f32 %r26, [%r11+16];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1040];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2064];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3088];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+640];
    ld.shared.f32 %r26, [%r11+20];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1044];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2068];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3092];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+768];
    ld.shared.f32 %r26, [%r11+24];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1048];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2072];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3096];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+896];
    ld.shared.f32 %r26, [%r11+28];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1052];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2076];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3100];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1024];
    ld.shared.f32 %r26, [%r11+32];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1056];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2080];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3104];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1152];
    ld.shared.f32 %r26, [%r11+36];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1060];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2084];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3108];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1280];
    ld.shared.f32 %r26, [%r11+40];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1064];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2088];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3112];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1408];
    ld.shared.f32 %r26, [%r11+44];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1068];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2092];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3116];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1536];
    ld.shared.f32 %r26, [%r11+48];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1072];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2096];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3120];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1664];
    ld.shared.f32 %r26, [%r11+52];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1076];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2100];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3124];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1792];
    ld.shared.f32 %r26, [%r11+56];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1080];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2104];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3128];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+1920];
    ld.shared.f32 %r26, [%r11+60];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1084];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2108];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3132];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2048];
    ld.shared.f32 %r26, [%r11+64];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1088];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2112];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3136];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2176];
    ld.shared.f32 %r26, [%r11+68];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1092];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2116];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3140];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2304];
    ld.shared.f32 %r26, [%r11+72];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1096];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2120];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3144];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2432];
    ld.shared.f32 %r26, [%r11+76];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1100];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2124];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3148];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2560];
    ld.shared.f32 %r26, [%r11+80];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1104];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2128];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3152];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2688];
    ld.shared.f32 %r26, [%r11+84];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1108];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2132];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3156];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2816];
    ld.shared.f32 %r26, [%r11+88];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1112];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2136];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3160];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+2944];
    ld.shared.f32 %r26, [%r11+92];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1116];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2140];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3164];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3072];
    ld.shared.f32 %r26, [%r11+96];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1120];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2144];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3168];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3200];
    ld.shared.f32 %r26, [%r11+100];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1124];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2148];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3172];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3328];
    ld.shared.f32 %r26, [%r11+104];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1128];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2152];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3176];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3456];
    ld.shared.f32 %r26, [%r11+108];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1132];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2156];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3180];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3584];
    ld.shared.f32 %r26, [%r11+112];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1136];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2160];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3184];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3712];
    ld.shared.f32 %r26, [%r11+116];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1140];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2164];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3188];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3840];
    ld.shared.f32 %r26, [%r11+120];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1144];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2168];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3192];
    fma.f32 %r21, %r26, %r25, %r21;
    ld.shared.f32 %r25, [%r12+3968];
    ld.shared.f32 %r26, [%r11+124];
    fma.f32 %r18, %r26, %r25, %r18;
    ld.shared.f32 %r26, [%r11+1148];
    fma.f32 %r19, %r26, %r25, %r19;
    ld.shared.f32 %r26, [%r11+2172];
    fma.f32 %r20, %r26, %r25, %r20;
    ld.shared.f32 %r26, [%r11+3196];
    fma.f32 %r21, %r26, %r25, %r21;
    bar.sync;                          // done reading before the next copy
    add.u32 %r13, %r13, 128;           // A pointer: 32 columns right
    add.u32 %r14, %r14, %r16;          // B pointer: 32 rows down
    add.u32 %r17, %r17, 32;
    setp.lt.u32 %p3, %r17, %r3;
    @%p3 bra STEP;
    // store the four elements that exist
    mad.u32 %r22, %r7, %r3, %r8;       // row0 * n + col
    shl.b32 %r22, %r22, 2;
    add.u32 %r22, %r2, %r22;           // &C[row0][col]
    add.u32 %r24, %r7, 0;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // C[row0 + 0][col] inside?
    @%p2 st.global.f32 [%r22], %r18;
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r7, 8;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // C[row0 + 8][col] inside?
    @%p2 st.global.f32 [%r22], %r19;
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r7, 16;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // C[row0 + 16][col] inside?
    @%p2 st.global.f32 [%r22], %r20;
    add.u32 %r22, %r22, %r15;         // 8 rows down
    add.u32 %r24, %r7, 24;
    setp.lt.u32 %p2, %r24, %r3;
    and.pred %p2, %p2, %p0;          // C[row0 + 24][col] inside?
    @%p2 st.global.f32 [%r22], %r21;
    exit;
