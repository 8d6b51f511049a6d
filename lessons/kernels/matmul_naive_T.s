// matmul_naive_T.s - C = A x B for n x n row-major f32 matrices, with the
// thread mapping of matmul_naive.s transposed (a deliberately bad layout).
//
// Params:  A, B, C  device addresses of n*n floats; n  matrix size.
// Launch:  2-D, block = {16, 16}, grid = {ceil(n/16), ceil(n/16)}.
// Mapping: one thread per element of C, but with the ROW taken from x:
//            row = ctaid.x * ntid.x + tid.x,  col = ctaid.y * ntid.y + tid.y
//          C[row][col] = sum over k of A[row][k] * B[k][col]
//          Threads with row >= n or col >= n exit at once (any n works).
// Speed:   slow - the lanes of a warp have consecutive rows, so each load
//          of A[row][k] and each store of C[row][col] walks down a column:
//          lanes are n*4 bytes apart and every lane needs its own 32-byte
//          sector (uncoalesced). Same math as matmul_naive, more traffic.
.kernel matmul_naive_T
.param A
.param B
.param C
.param n

    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [B];
    ld.param.u32 %r2, [C];
    ld.param.u32 %r3, [n];
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.u32 %r7, %r4, %r5, %r6;        // row (from x: the bad choice)
    mov.u32 %r4, %ctaid.y;
    mov.u32 %r5, %ntid.y;
    mov.u32 %r6, %tid.y;
    mad.u32 %r8, %r4, %r5, %r6;        // col (from y)
    setp.ge.u32 %p0, %r7, %r3;         // row outside C?
    @%p0 exit;
    setp.ge.u32 %p0, %r8, %r3;         // col outside C?
    @%p0 exit;
    mul.u32 %r9, %r7, %r3;             // row * n
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r0, %r9;             // %r9  = &A[row][0]
    shl.b32 %r10, %r8, 2;
    add.u32 %r10, %r1, %r10;           // %r10 = &B[0][col]
    shl.b32 %r11, %r3, 2;              // %r11 = n * 4, one row in bytes
    mov.f32 %r12, 0.0;                 // %r12 = acc
    mov.u32 %r13, 0;                   // %r13 = k
LOOP:
    ld.global.f32 %r14, [%r9];         // A[row][k]: lanes n*4 bytes apart
    ld.global.f32 %r15, [%r10];        // B[k][col]
    fma.f32 %r12, %r14, %r15, %r12;    // acc += A[row][k] * B[k][col]
    add.u32 %r9, %r9, 4;               // next column of A
    add.u32 %r10, %r10, %r11;          // next row of B
    add.u32 %r13, %r13, 1;
    setp.lt.u32 %p1, %r13, %r3;
    @%p1 bra LOOP;
    mad.u32 %r16, %r7, %r3, %r8;       // row * n + col
    shl.b32 %r16, %r16, 2;
    add.u32 %r16, %r2, %r16;           // &C[row][col]: lanes n*4 bytes apart
    st.global.f32 [%r16], %r12;
    exit;
