// copy_first.s - out[t] = in[t] for every thread t of one block (a test
// kernel for the checker: its input may be left unwritten on purpose).
.kernel copy_first
.param in
.param out
    mov.u32 %r0, %tid.x;
    shl.b32 %r1, %r0, 2;
    ld.param.u32 %r2, [in];
    add.u32 %r2, %r2, %r1;
    ld.global.f32 %r3, [%r2];
    ld.param.u32 %r4, [out];
    add.u32 %r4, %r4, %r1;
    st.global.f32 [%r4], %r3;
    exit;
