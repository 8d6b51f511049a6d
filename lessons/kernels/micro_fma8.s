// micro_fma8.s - FP32 FMA throughput: 8 independent FMA chains per thread.
//
// Measures: the FP32 FMA ceiling of one SM or the whole chip, and (with a
//          varying number of warps) how few warps arithmetic needs when every
//          warp has independent work (instruction-level parallelism).
// Maps to: reference/h200-measured.md "Ceilings" (FP32 FMA whole chip and one
//          SM), "SM scaling" (1024 threads per block, one block per SM) and the
//          "8 independent chains" row of "Latency hiding with warps". The
//          measured CUDA kernel keeps 8 accumulators per thread, a[j] =
//          fma(a[j], b, c); here the loop body holds 4 rounds of the 8 chains
//          (32 FMAs) plus the loop counter (sub, setp, bra; the compare is placed
//          early in the body, as a compiler schedules it, so the branch never
//          waits for it), so 32 of every 35
//          instructions are FMAs, as an unrolled compiled loop would be.
// Params:  iters  loop trips (each trip = 32 FMAs = 64 FLOP per thread);
//          out    device address of one float per thread (grid x block).
// Launch:  1-D, any grid and block; thread i stores the sum of its chains to
//          out[i] so the work has a visible result.
.kernel micro_fma8
.param iters
.param out

    ld.param.u32 %r0, [iters];
    mov.f32 %r2, 0.999;                // b
    mov.f32 %r3, 0.001;                // c
    mov.f32 %r10, 1.0;
    mov.f32 %r11, 2.0;
    mov.f32 %r12, 3.0;
    mov.f32 %r13, 4.0;
    mov.f32 %r14, 5.0;
    mov.f32 %r15, 6.0;
    mov.f32 %r16, 7.0;
    mov.f32 %r17, 8.0;
LOOP:
    sub.u32 %r0, %r0, 1;               // counter first: ready long before the branch
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r11, %r11, %r2, %r3;
    fma.f32 %r12, %r12, %r2, %r3;
    fma.f32 %r13, %r13, %r2, %r3;
    fma.f32 %r14, %r14, %r2, %r3;
    fma.f32 %r15, %r15, %r2, %r3;
    fma.f32 %r16, %r16, %r2, %r3;
    fma.f32 %r17, %r17, %r2, %r3;
    setp.ne.u32 %p0, %r0, 0;         // compare early, as a compiler schedules it
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r11, %r11, %r2, %r3;
    fma.f32 %r12, %r12, %r2, %r3;
    fma.f32 %r13, %r13, %r2, %r3;
    fma.f32 %r14, %r14, %r2, %r3;
    fma.f32 %r15, %r15, %r2, %r3;
    fma.f32 %r16, %r16, %r2, %r3;
    fma.f32 %r17, %r17, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r11, %r11, %r2, %r3;
    fma.f32 %r12, %r12, %r2, %r3;
    fma.f32 %r13, %r13, %r2, %r3;
    fma.f32 %r14, %r14, %r2, %r3;
    fma.f32 %r15, %r15, %r2, %r3;
    fma.f32 %r16, %r16, %r2, %r3;
    fma.f32 %r17, %r17, %r2, %r3;
    fma.f32 %r10, %r10, %r2, %r3;
    fma.f32 %r11, %r11, %r2, %r3;
    fma.f32 %r12, %r12, %r2, %r3;
    fma.f32 %r13, %r13, %r2, %r3;
    fma.f32 %r14, %r14, %r2, %r3;
    fma.f32 %r15, %r15, %r2, %r3;
    fma.f32 %r16, %r16, %r2, %r3;
    fma.f32 %r17, %r17, %r2, %r3;
    @%p0 bra LOOP;
    add.f32 %r10, %r10, %r11;
    add.f32 %r12, %r12, %r13;
    add.f32 %r14, %r14, %r15;
    add.f32 %r16, %r16, %r17;
    add.f32 %r10, %r10, %r12;
    add.f32 %r14, %r14, %r16;
    add.f32 %r10, %r10, %r14;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.u32 %r4, %r4, %r5, %r6;        // global thread index i
    shl.b32 %r4, %r4, 2;
    ld.param.u32 %r5, [out];
    add.u32 %r5, %r5, %r4;
    st.global.f32 [%r5], %r10;
    exit;
