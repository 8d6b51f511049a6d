// TEACHERS ONLY: students, please solve it yourself first.
// Reference solution of exercise 6 (lessons/exercises/06_tiling.s): the same
// as lessons/kernels/matmul_tiled16.s. Each thread copies one element of the
// A tile and one of the B tile (0 outside the matrix), then bar.sync; after
// the 16 multiply-adds, bar.sync again before the next copy.
// Launch: 2-D, block = {16, 16}, grid = {ceil(n/16), ceil(n/16)}.
.kernel matmul_tiled16
.param A
.param B
.param C
.param n
.shared As 1024                        // float As[16][16]
.shared Bs 1024                        // float Bs[16][16]

    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [B];
    ld.param.u32 %r2, [C];
    ld.param.u32 %r3, [n];
    mov.u32 %r4, %tid.x;               // tx
    mov.u32 %r5, %tid.y;               // ty
    mov.u32 %r6, %ctaid.y;
    mad.u32 %r7, %r6, 16, %r5;         // row = by * 16 + ty
    mov.u32 %r6, %ctaid.x;
    mad.u32 %r8, %r6, 16, %r4;         // col = bx * 16 + tx
    setp.lt.u32 %p0, %r7, %r3;         // %p0: row < n
    setp.lt.u32 %p1, %r8, %r3;         // %p1: col < n
    // shared addresses used every step
    shl.b32 %r9, %r5, 6;               // ty * 64 (one tile row = 64 bytes)
    shl.b32 %r10, %r4, 2;              // tx * 4
    add.u32 %r11, %r9, %r10;
    add.u32 %r12, %r11, As;            // &As[ty][tx]  (this thread's slot)
    add.u32 %r13, %r11, Bs;            // &Bs[ty][tx]
    add.u32 %r14, %r9, As;             // &As[ty][0]   (row read in the loop)
    add.u32 %r15, %r10, Bs;            // &Bs[0][tx]   (column read in the loop)
    // global pointers for step t = 0
    mad.u32 %r16, %r7, %r3, %r4;       // row * n + tx
    shl.b32 %r16, %r16, 2;
    add.u32 %r16, %r0, %r16;           // %r16 = &A[row][t + tx]
    mad.u32 %r17, %r5, %r3, %r8;       // ty * n + col
    shl.b32 %r17, %r17, 2;
    add.u32 %r17, %r1, %r17;           // %r17 = &B[t + ty][col]
    shl.b32 %r18, %r3, 6;              // 16 rows of B in bytes: n * 64
    mov.f32 %r19, 0.0;                 // acc
    mov.u32 %r20, 0;                   // t
STEP:
    // copy one element of each tile, 0 where it lies outside the matrix
    add.u32 %r21, %r20, %r4;           // t + tx: column of A
    setp.lt.u32 %p2, %r21, %r3;
    and.pred %p2, %p2, %p0;            // A element inside?
    mov.f32 %r22, 0.0;
    @%p2 ld.global.f32 %r22, [%r16];
    st.shared.f32 [%r12], %r22;
    add.u32 %r21, %r20, %r5;           // t + ty: row of B
    setp.lt.u32 %p3, %r21, %r3;
    and.pred %p3, %p3, %p1;            // B element inside?
    mov.f32 %r23, 0.0;
    @%p3 ld.global.f32 %r23, [%r17];
    st.shared.f32 [%r13], %r23;
    bar.sync;                          // both tiles complete
    // acc += As[ty][k] * Bs[k][tx] for k = 0..15 (unrolled)
    ld.shared.f32 %r24, [%r14+0];
    ld.shared.f32 %r25, [%r15+0];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+4];
    ld.shared.f32 %r25, [%r15+64];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+8];
    ld.shared.f32 %r25, [%r15+128];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+12];
    ld.shared.f32 %r25, [%r15+192];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+16];
    ld.shared.f32 %r25, [%r15+256];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+20];
    ld.shared.f32 %r25, [%r15+320];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+24];
    ld.shared.f32 %r25, [%r15+384];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+28];
    ld.shared.f32 %r25, [%r15+448];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+32];
    ld.shared.f32 %r25, [%r15+512];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+36];
    ld.shared.f32 %r25, [%r15+576];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+40];
    ld.shared.f32 %r25, [%r15+640];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+44];
    ld.shared.f32 %r25, [%r15+704];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+48];
    ld.shared.f32 %r25, [%r15+768];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+52];
    ld.shared.f32 %r25, [%r15+832];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+56];
    ld.shared.f32 %r25, [%r15+896];
    fma.f32 %r19, %r24, %r25, %r19;
    ld.shared.f32 %r24, [%r14+60];
    ld.shared.f32 %r25, [%r15+960];
    fma.f32 %r19, %r24, %r25, %r19;
    bar.sync;                          // done reading before the next copy
    add.u32 %r16, %r16, 64;            // A pointer: 16 columns right
    add.u32 %r17, %r17, %r18;          // B pointer: 16 rows down
    add.u32 %r20, %r20, 16;
    setp.lt.u32 %p4, %r20, %r3;
    @%p4 bra STEP;
    // store C[row][col] if this thread's element exists
    and.pred %p5, %p0, %p1;
    mad.u32 %r26, %r7, %r3, %r8;       // row * n + col
    shl.b32 %r26, %r26, 2;
    add.u32 %r26, %r2, %r26;
    @%p5 st.global.f32 [%r26], %r19;
    exit;
