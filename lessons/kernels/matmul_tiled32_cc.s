// matmul_tiled32_cc.s - C = A x B for n x n row-major f32 matrices: the classic
// 32 x 32 shared-memory tiled kernel as nvcc -O3 compiles it.
//
// CUDA source (the textbook kernel, e.g. the CUDA C Programming Guide's
// shared-memory matrix multiplication, with bounds checks for any n):
//   #define T 32
//   __global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
//     __shared__ float As[T][T], Bs[T][T];
//     int tx = threadIdx.x, ty = threadIdx.y;
//     int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
//     float acc = 0.0f;
//     for (int t = 0; t < n; t += T) {
//       As[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
//       Bs[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
//       __syncthreads();
//       #pragma unroll
//       for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
//       __syncthreads();
//     }
//     if (row < n && col < n) C[row * n + col] = acc;
//   }
// What the compiler makes of it (and this file does by hand):
//   - the inner loop fully unrolled: every shared address is one base
//     register plus an immediate (As[ty][k] at +4k, Bs[k][tx] at +128k);
//   - As[ty][k..k+3] read with one 128-bit load (LDS.128):
//     the four floats are contiguous and 16-byte aligned, and every lane
//     of a warp reads the same address (one row ty per warp), so
//     it is a broadcast: 8 vector + 32 scalar loads per 32 FMAs;
//   - row < n and col < n tested once, outside the loop; the global
//     pointers strength-reduced (A: +128 bytes, B: +32 rows per step);
//   - the same FMA order as the source (k ascending, one accumulator):
//     C is bit-identical to matmul_naive.s and matmul_tiled32.s
//     (tiled32 keeps 4 outputs per thread; this is the textbook 1).
// Params:  A, B, C (device addresses), n (matrix size, any n >= 1).
// Launch:  block = {32, 32} (exactly; 1024 threads), grid = {ceil(n/32), ceil(n/32)}.
// Mapping: thread (tx, ty) of block (bx, by) computes C[by*32+ty][bx*32+tx];
//          every thread loads one element of each tile per step (0 outside
//          the matrices) and reaches every barrier.
.kernel matmul_tiled32_cc
.param A
.param B
.param C
.param n
.shared As 4096                        // float As[32][32]
.shared Bs 4096                        // float Bs[32][32]
    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [B];
    ld.param.u32 %r3, [n];
    // row, col and the predicates that do not change in the loop
    mov.u32 %r4, %tid.x;  // tx
    mov.u32 %r5, %tid.y;  // ty
    mov.u32 %r6, %ctaid.y;
    mad.u32 %r7, %r6, 32, %r5;  // row
    mov.u32 %r6, %ctaid.x;
    mad.u32 %r8, %r6, 32, %r4;  // col
    setp.lt.u32 %p0, %r7, %r3;  // row < n
    setp.lt.u32 %p1, %r8, %r3;  // col < n
    // shared addresses: the stores' &As[ty][tx], &Bs[ty][tx]; the loop's &As[ty][0], &Bs[0][tx]
    mul.u32 %r9, %r5, 128;  // ty * row bytes
    add.u32 %r9, %r9, As;  // &As[ty][0]
    shl.b32 %r10, %r4, 2;
    add.u32 %r11, %r9, %r10;  // &As[ty][tx]
    add.u32 %r12, %r10, Bs;  // &Bs[0][tx]
    mad.u32 %r13, %r5, 128, %r12;  // &Bs[ty][tx]
    // global pointers for t = 0: &A[row][tx], &B[ty][col]
    mad.u32 %r14, %r7, %r3, %r4;
    shl.b32 %r14, %r14, 2;
    add.u32 %r14, %r0, %r14;
    mad.u32 %r15, %r5, %r3, %r8;
    shl.b32 %r15, %r15, 2;
    add.u32 %r15, %r1, %r15;
    mul.u32 %r16, %r3, 128;  // 32 rows of B in bytes
    mov.f32 %r17, 0.0;  // acc
    mov.u32 %r18, 0;  // t
STEP:
    // this thread's element of each tile (0 outside A / B)
    add.u32 %r19, %r18, %r4;
    setp.lt.u32 %p2, %r19, %r3;
    and.pred %p2, %p2, %p0;  // row < n && t + tx < n
    add.u32 %r19, %r18, %r5;
    setp.lt.u32 %p3, %r19, %r3;
    and.pred %p3, %p3, %p1;  // t + ty < n && col < n
    mov.f32 %r20, 0.0;
    mov.f32 %r21, 0.0;
    @%p2 ld.global.f32 %r20, [%r14];  // A[row][t + tx]
    @%p3 ld.global.f32 %r21, [%r15];  // B[t + ty][col]
    add.u32 %r14, %r14, 128;  // strength-reduced: next step's A
    add.u32 %r15, %r15, %r16;  // next step's B
    add.u32 %r18, %r18, 32;
    setp.lt.u32 %p4, %r18, %r3;  // another step? (compare early)
    st.shared.f32 [%r11], %r20;
    st.shared.f32 [%r13], %r21;
    bar.sync;  // both tiles complete
    // acc += As[ty][k] * Bs[k][tx], k = 0..31, unrolled; As four at a time
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+0];  // As[ty][0..3] (broadcast)
    ld.shared.f32 %r28, [%r12+0];  // Bs[0][tx]
    ld.shared.f32 %r29, [%r12+128];  // Bs[1][tx]
    ld.shared.f32 %r30, [%r12+256];  // Bs[2][tx]
    ld.shared.f32 %r31, [%r12+384];  // Bs[3][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+16];  // As[ty][4..7] (broadcast)
    ld.shared.f32 %r28, [%r12+512];  // Bs[4][tx]
    ld.shared.f32 %r29, [%r12+640];  // Bs[5][tx]
    ld.shared.f32 %r30, [%r12+768];  // Bs[6][tx]
    ld.shared.f32 %r31, [%r12+896];  // Bs[7][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+32];  // As[ty][8..11] (broadcast)
    ld.shared.f32 %r28, [%r12+1024];  // Bs[8][tx]
    ld.shared.f32 %r29, [%r12+1152];  // Bs[9][tx]
    ld.shared.f32 %r30, [%r12+1280];  // Bs[10][tx]
    ld.shared.f32 %r31, [%r12+1408];  // Bs[11][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+48];  // As[ty][12..15] (broadcast)
    ld.shared.f32 %r28, [%r12+1536];  // Bs[12][tx]
    ld.shared.f32 %r29, [%r12+1664];  // Bs[13][tx]
    ld.shared.f32 %r30, [%r12+1792];  // Bs[14][tx]
    ld.shared.f32 %r31, [%r12+1920];  // Bs[15][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+64];  // As[ty][16..19] (broadcast)
    ld.shared.f32 %r28, [%r12+2048];  // Bs[16][tx]
    ld.shared.f32 %r29, [%r12+2176];  // Bs[17][tx]
    ld.shared.f32 %r30, [%r12+2304];  // Bs[18][tx]
    ld.shared.f32 %r31, [%r12+2432];  // Bs[19][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+80];  // As[ty][20..23] (broadcast)
    ld.shared.f32 %r28, [%r12+2560];  // Bs[20][tx]
    ld.shared.f32 %r29, [%r12+2688];  // Bs[21][tx]
    ld.shared.f32 %r30, [%r12+2816];  // Bs[22][tx]
    ld.shared.f32 %r31, [%r12+2944];  // Bs[23][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+96];  // As[ty][24..27] (broadcast)
    ld.shared.f32 %r28, [%r12+3072];  // Bs[24][tx]
    ld.shared.f32 %r29, [%r12+3200];  // Bs[25][tx]
    ld.shared.f32 %r30, [%r12+3328];  // Bs[26][tx]
    ld.shared.f32 %r31, [%r12+3456];  // Bs[27][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    ld.shared.v4.f32 {%r24,%r25,%r26,%r27}, [%r9+112];  // As[ty][28..31] (broadcast)
    ld.shared.f32 %r28, [%r12+3584];  // Bs[28][tx]
    ld.shared.f32 %r29, [%r12+3712];  // Bs[29][tx]
    ld.shared.f32 %r30, [%r12+3840];  // Bs[30][tx]
    ld.shared.f32 %r31, [%r12+3968];  // Bs[31][tx]
    fma.f32 %r17, %r24, %r28, %r17;
    fma.f32 %r17, %r25, %r29, %r17;
    fma.f32 %r17, %r26, %r30, %r17;
    fma.f32 %r17, %r27, %r31, %r17;
    bar.sync;  // everyone done with the tiles before the next copy
    @%p4 bra STEP;
    // C[row][col] = acc where it exists
    and.pred %p5, %p0, %p1;
    @!%p5 exit;
    ld.param.u32 %r2, [C];
    mad.u32 %r19, %r7, %r3, %r8;
    shl.b32 %r19, %r19, 2;
    add.u32 %r19, %r2, %r19;
    st.global.f32 [%r19], %r17;
    exit;
