// micro_fma1.s - FP32 FMA with ONE dependent chain per thread.
//
// Measures: how many warps an SM needs to hide the FMA pipeline latency when
//          each warp has no independent work: each FMA waits for the previous
//          one, so one warp issues at most one FMA per FMA latency.
// Maps to: reference/h200-measured.md "Latency hiding with warps", row "FMA
//          TFLOP/s, 1 dependent chain per thread" (132 blocks of 32 x W
//          threads). The loop body is 16 dependent FMAs a = fma(a, b, c) plus
//          the loop counter (sub, setp, bra; the compare is placed
//          early in the body, as a compiler schedules it, so the branch never
//          waits for it).
// Params:  iters  loop trips (16 FMAs = 32 FLOP per thread each);
//          out    device address of one float per thread.
// Launch:  1-D, any grid and block; thread i stores its chain to out[i].
.kernel micro_fma1
.param iters
.param out

    ld.param.u32 %r0, [iters];
    mov.f32 %r2, 0.999;                // b
    mov.f32 %r3, 0.001;                // c
    mov.f32 %r10, 1.0;
LOOP:
    sub.u32 %r0, %r0, 1;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    setp.ne.u32 %p0, %r0, 0;         // compare early, as a compiler schedules it
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    @%p0 bra LOOP;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.u32 %r4, %r4, %r5, %r6;
    shl.b32 %r4, %r4, 2;
    ld.param.u32 %r5, [out];
    add.u32 %r5, %r5, %r4;
    st.global.f32 [%r5], %r10;
    exit;
