// two_barriers.s - the first warp of a block waits at one bar.sync, the
// rest at another: a wrong kernel that the GPU's checker and the CPU
// model both refuse (test_cpu_barrier_mismatch.lua).
.kernel two_barriers
.param out
    ld.param.u32 %r0, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p0, %r1, 32;
    @%p0 bra FIRST;
    bar.sync;
    bra DONE;
FIRST:
    bar.sync;
DONE:
    shl.b32 %r2, %r1, 2;
    add.u32 %r2, %r0, %r2;
    st.global.u32 [%r2], %r1;
    exit;
