// matmul_naive.s - C = A x B for n x n row-major f32 matrices.
//
// One thread computes one element of C:
//   row = ctaid.y * ntid.y + tid.y,  col = ctaid.x * ntid.x + tid.x
//   C[row][col] = sum over k of A[row][k] * B[k][col]
// Threads with row >= n or col >= n exit at once, so n need not be a
// multiple of the block size (launch ceil(n / block) blocks per dimension).
// Launch: block = {16, 16} (any 2-D block works), grid = {ceil(n/16), ceil(n/16)}.
// Every thread reads a whole row of A and a whole column of B straight from
// global memory: no reuse through shared memory (see the tiled version).
// Consecutive threads (tid.x) read consecutive B elements and write
// consecutive C elements, so those accesses are coalesced; compare
// matmul_naive_T.s, where they are not.
// Params: A, B, C (device addresses), n (matrix size).
.kernel matmul_naive
.param A
.param B
.param C
.param n

    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [B];
    ld.param.u32 %r2, [C];
    ld.param.u32 %r3, [n];
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
    mul.u32 %r9, %r7, %r3;             // row * n
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r0, %r9;             // %r9  = &A[row][0]
    shl.b32 %r10, %r8, 2;
    add.u32 %r10, %r1, %r10;           // %r10 = &B[0][col]
    shl.b32 %r11, %r3, 2;              // %r11 = n * 4, one row of B in bytes
    mov.f32 %r12, 0.0;                 // %r12 = acc
    mov.u32 %r13, 0;                   // %r13 = k
LOOP:
    ld.global.f32 %r14, [%r9];         // A[row][k]
    ld.global.f32 %r15, [%r10];        // B[k][col]
    fma.f32 %r12, %r14, %r15, %r12;    // acc += A[row][k] * B[k][col]
    add.u32 %r9, %r9, 4;               // next column of A
    add.u32 %r10, %r10, %r11;          // next row of B
    add.u32 %r13, %r13, 1;
    setp.lt.u32 %p1, %r13, %r3;
    @%p1 bra LOOP;
    mad.u32 %r16, %r7, %r3, %r8;       // row * n + col
    shl.b32 %r16, %r16, 2;
    add.u32 %r16, %r2, %r16;           // &C[row][col]
    st.global.f32 [%r16], %r12;
    exit;
