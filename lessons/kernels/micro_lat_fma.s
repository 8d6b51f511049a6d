// micro_lat_fma.s - latency of a dependent FP32 FMA.
//
// Measures: cycles from one FMA to the next when each needs the previous
//          result (a = fma(a, b, c)), one thread, loop overhead included.
// Maps to: reference/h200-measured.md "Latencies", dependent FP32 FMA, 4.4
//          cycles. The loop body is 32 dependent FMAs plus the counter.
// Params:  iters  trips (32 FMAs each); out  2 words: out[0] = cycles of
//          the loop (%clock), out[1] = the result.
// Launch:  grid 1, block 1.
.kernel micro_lat_fma
.param iters
.param out

    ld.param.u32 %r0, [iters];
    mov.f32 %r2, 0.999;
    mov.f32 %r3, 0.001;
    mov.f32 %r10, 1.0;
    mov.u32 %r6, %clock;
LOOP:
    sub.u32 %r0, %r0, 1;
    setp.ne.u32 %p0, %r0, 0;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    @%p0 bra LOOP;
    setp.eq.f32 %p3, %r10, 12345.0;    // never true; waits for the chain
    @!%p3 mov.u32 %r7, %clock;
    sub.u32 %r7, %r7, %r6;
    ld.param.u32 %r8, [out];
    st.global.u32 [%r8], %r7;
    st.global.f32 [%r8+4], %r10;
    exit;
