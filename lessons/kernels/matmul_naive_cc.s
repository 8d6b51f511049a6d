// matmul_naive_cc.s - C = A x B for n x n row-major f32 matrices, the naive
// one-thread-per-output kernel as nvcc -O3 compiles it.
//
// CUDA source (the same as matmul_naive.s):
//   __global__ void matmul(const float *A, const float *B, float *C, int n) {
//     int row = blockIdx.y * blockDim.y + threadIdx.y;
//     int col = blockIdx.x * blockDim.x + threadIdx.x;
//     if (row >= n || col >= n) return;
//     float acc = 0.0f;
//     for (int k = 0; k < n; k++) acc += A[row * n + k] * B[k * n + col];
//     C[row * n + col] = acc;
//   }
// What the compiler does with the loop, and this file does by hand:
//   - unrolls it by 4 (for n unknown at compile time nvcc emits a 4-way
//     unrolled main loop plus a remainder loop of n % 4 trips);
//   - hoists all 8 loads of an unrolled trip ahead of the 4 FMAs, so 8
//     loads are in flight per thread (matmul_naive.s has 2);
//   - strength-reduces the addresses: one pointer into A's row advanced by
//     16 bytes per trip (the 4 A loads use immediate offsets +0/+4/+8/+12),
//     one pointer into B's column advanced by 4 rows, and the other B
//     addresses formed with one add each from a precomputed row stride;
//   - keeps the same FMA order (k ascending, one accumulator), so C is
//     bit-identical to matmul_naive.s.
// Params:  A, B, C (device addresses), n (matrix size, any n >= 1).
// Launch:  block = {16, 16} (any 2-D block works), grid = {ceil(n/16), ceil(n/16)}.
// Mapping: thread (tx, ty) of block (bx, by) computes C[by*16+ty][bx*16+tx];
//          threads outside C exit at once.
// Speed:   the same global traffic as matmul_naive.s (B coalesced across a
//          warp, A broadcast), but four times the memory-level parallelism
//          per warp and about 40% fewer instructions per FMA (19 per 4 FMAs
//          instead of 8 per 1), so fewer warps are needed to hide the
//          latency of L1/L2.
.kernel matmul_naive_cc
.param A
.param B
.param C
.param n

    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [B];
    ld.param.u32 %r2, [C];
    ld.param.u32 %r3, [n];
    // row and col, and the bounds check
    mov.u32 %r4, %ctaid.y;
    mov.u32 %r5, %ntid.y;
    mov.u32 %r6, %tid.y;
    mad.u32 %r7, %r4, %r5, %r6;        // row
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.u32 %r8, %r4, %r5, %r6;        // col
    setp.ge.u32 %p0, %r7, %r3;         // row outside C?
    @%p0 exit;
    setp.ge.u32 %p0, %r8, %r3;         // col outside C?
    @%p0 exit;
    // strength-reduced pointers
    mul.u32 %r9, %r7, %r3;
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r0, %r9;             // %r9  = &A[row][0]
    shl.b32 %r10, %r8, 2;
    add.u32 %r10, %r1, %r10;           // %r10 = &B[0][col]
    shl.b32 %r11, %r3, 2;              // %r11 = one row of B in bytes (n*4)
    shl.b32 %r12, %r3, 4;              // %r12 = four rows of B (n*16)
    mov.f32 %r13, 0.0;                 // acc
    and.b32 %r14, %r3, 3;              // remainder trips: n % 4
    shr.u32 %r15, %r3, 2;              // main-loop trips: n / 4
    setp.eq.u32 %p1, %r15, 0;
    @%p1 bra REM;
MAIN:
    // 4 k's per trip: the 8 loads first, all in flight together
    add.u32 %r16, %r10, %r11;          // &B[k+1][col]
    add.u32 %r17, %r16, %r11;          // &B[k+2][col]
    add.u32 %r18, %r17, %r11;          // &B[k+3][col]
    ld.global.f32 %r20, [%r9];         // A[row][k]
    ld.global.f32 %r21, [%r10];        // B[k][col]
    ld.global.f32 %r22, [%r9+4];       // A[row][k+1]
    ld.global.f32 %r23, [%r16];        // B[k+1][col]
    ld.global.f32 %r24, [%r9+8];       // A[row][k+2]
    ld.global.f32 %r25, [%r17];        // B[k+2][col]
    ld.global.f32 %r26, [%r9+12];      // A[row][k+3]
    ld.global.f32 %r27, [%r18];        // B[k+3][col]
    // loop bookkeeping while the loads are in flight (compare early)
    sub.u32 %r15, %r15, 1;
    setp.ne.u32 %p1, %r15, 0;
    add.u32 %r9, %r9, 16;              // A: 4 columns on
    add.u32 %r10, %r10, %r12;          // B: 4 rows down
    // the 4 FMAs in k order (the same rounding as the simple loop)
    fma.f32 %r13, %r20, %r21, %r13;
    fma.f32 %r13, %r22, %r23, %r13;
    fma.f32 %r13, %r24, %r25, %r13;
    fma.f32 %r13, %r26, %r27, %r13;
    @%p1 bra MAIN;
REM:
    // the n % 4 remaining k's, one at a time
    setp.eq.u32 %p1, %r14, 0;
    @%p1 bra DONE;
REMLOOP:
    ld.global.f32 %r20, [%r9];
    ld.global.f32 %r21, [%r10];
    sub.u32 %r14, %r14, 1;
    setp.ne.u32 %p1, %r14, 0;
    add.u32 %r9, %r9, 4;
    add.u32 %r10, %r10, %r11;
    fma.f32 %r13, %r20, %r21, %r13;
    @%p1 bra REMLOOP;
DONE:
    mad.u32 %r16, %r7, %r3, %r8;       // row * n + col
    shl.b32 %r16, %r16, 2;
    add.u32 %r16, %r2, %r16;           // &C[row][col]
    st.global.f32 [%r16], %r13;
    exit;
