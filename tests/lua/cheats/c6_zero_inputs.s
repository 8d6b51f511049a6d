// Cheat for exercise 6: write zeros to A, B and C. A grader that computed
// the expected product from the device inputs after the launch would
// expect zeros.
.kernel zero_all
.param A
.param B
.param C
.param n
    ld.param.u32 %r3, [n];
    mov.u32 %r4, %ctaid.y;
    mov.u32 %r5, %ntid.y;
    mov.u32 %r6, %tid.y;
    mad.u32 %r7, %r4, %r5, %r6;        // row
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.u32 %r8, %r4, %r5, %r6;        // col
    setp.ge.u32 %p0, %r7, %r3;
    @%p0 exit;
    setp.ge.u32 %p0, %r8, %r3;
    @%p0 exit;
    mad.u32 %r16, %r7, %r3, %r8;
    shl.b32 %r16, %r16, 2;
    mov.f32 %r12, 0.0;
    ld.param.u32 %r0, [A];
    add.u32 %r17, %r0, %r16;
    st.global.f32 [%r17], %r12;
    ld.param.u32 %r1, [B];
    add.u32 %r17, %r1, %r16;
    st.global.f32 [%r17], %r12;
    ld.param.u32 %r2, [C];
    add.u32 %r17, %r2, %r16;
    st.global.f32 [%r17], %r12;
    exit;
