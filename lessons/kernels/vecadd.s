// vecadd.s - vector addition: C[i] = A[i] + B[i] for 0 <= i < n (f32).
//
// Params:  A, B, C  device addresses of n floats each; n  element count.
// Launch:  1-D, block = {bx} (any size, e.g. 128 or 256),
//          grid = {ceil(n / bx)}.
// Mapping: one thread per element, i = ctaid.x * ntid.x + tid.x; threads
//          with i >= n exit at once, so n need not be a multiple of bx.
// Speed:   memory bound - 2 loads and 1 store for every single add, but
//          consecutive threads touch consecutive floats, so every warp's
//          access is coalesced into a few 32-byte sectors.
.kernel vecadd
.param A
.param B
.param C
.param n

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r3, %r0, %r1, %r2;        // i = ctaid.x * ntid.x + tid.x
    ld.param.u32 %r4, [n];
    setp.ge.u32 %p0, %r3, %r4;         // past the end of the vectors?
    @%p0 exit;
    shl.b32 %r5, %r3, 2;               // byte offset i * 4
    ld.param.u32 %r6, [A];
    add.u32 %r6, %r6, %r5;             // &A[i]
    ld.param.u32 %r7, [B];
    add.u32 %r7, %r7, %r5;             // &B[i]
    ld.param.u32 %r8, [C];
    add.u32 %r8, %r8, %r5;             // &C[i]
    ld.global.f32 %r9, [%r6];
    ld.global.f32 %r10, [%r7];
    add.f32 %r11, %r9, %r10;
    st.global.f32 [%r8], %r11;
    exit;
