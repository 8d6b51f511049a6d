// micro_chase_init.s - build a pointer-chasing chain in global memory.
//
// Used by: the latency experiments (lessons/lib/calibrate.lua) before
//          micro_chase.s. Element i, at A + i x stride, holds the address of
//          element (i + 1) mod n, so a chase visits n distinct locations
//          stride bytes apart and then starts again.
// Params:  A       device address of the chain (n x stride bytes);
//          n       elements; stride  bytes between elements (multiple of 4).
// Launch:  1-D, at least n threads in total; thread i writes element i.
.kernel micro_chase_init
.param A
.param n
.param stride

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r3, %r0, %r1, %r2;        // i
    ld.param.u32 %r4, [n];
    setp.ge.u32 %p0, %r3, %r4;
    @%p0 exit;
    ld.param.u32 %r5, [A];
    ld.param.u32 %r6, [stride];
    add.u32 %r7, %r3, 1;
    rem.u32 %r7, %r7, %r4;             // (i + 1) mod n
    mad.u32 %r7, %r7, %r6, %r5;        // its address
    mad.u32 %r8, %r3, %r6, %r5;        // my address
    st.global.u32 [%r8], %r7;
    exit;
