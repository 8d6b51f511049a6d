// micro_diverge.s - SIMT divergence: P paths inside one warp.
//
// Measures: how a warp runs divergent code: the lanes of each warp are split
//          into P groups (group = lane mod P) and each group runs the same
//          loop in its own branch. The warp executes every path in turn with
//          the other lanes masked off, so time grows in proportion to P.
// Maps to: reference/h200-measured.md "SIMT divergence" (P = 1 .. 32). The
//          CUDA version is a chain of `if (group == k) loop();` branches; here
//          the chain is written as an outer loop over k = 0 .. P-1 whose body
//          branches around the work for lanes with group != k, which is the
//          same instruction stream for the warp (one compare and one
//          divergent branch per path, reconverging after each path).
//          The work loop: 8 independent FMA chains (throughput bound).
// Params:  P      paths (1 .. 32);
//          iters  trips of the work loop per path (8 FMAs each);
//          out    one float per thread.
// Launch:  1-D, block a multiple of 32 threads, any grid.
.kernel micro_diverge
.param P
.param iters
.param out

    ld.param.u32 %r0, [P];
    mov.u32 %r1, %laneid;
    rem.u32 %r4, %r1, %r0;             // my group
    mov.f32 %r2, 0.999;
    mov.f32 %r3, 0.001;
    mov.f32 %r10, 1.0;
    mov.f32 %r11, 2.0;
    mov.f32 %r12, 3.0;
    mov.f32 %r13, 4.0;
    mov.f32 %r14, 5.0;
    mov.f32 %r15, 6.0;
    mov.f32 %r16, 7.0;
    mov.f32 %r17, 8.0;
    mov.u32 %r5, 0;                    // path k
PATH:
    setp.ne.u32 %p1, %r4, %r5;
    @%p1 bra NEXT;                     // lanes of other groups skip path k
    ld.param.u32 %r8, [iters];
WORK:
    sub.u32 %r8, %r8, 1;
    fma.f32 %r10, %r10, %r2, %r3;
    setp.ne.u32 %p0, %r8, 0;
    fma.f32 %r11, %r11, %r2, %r3;
    fma.f32 %r12, %r12, %r2, %r3;
    fma.f32 %r13, %r13, %r2, %r3;
    fma.f32 %r14, %r14, %r2, %r3;
    fma.f32 %r15, %r15, %r2, %r3;
    fma.f32 %r16, %r16, %r2, %r3;
    fma.f32 %r17, %r17, %r2, %r3;
    @%p0 bra WORK;
NEXT:
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p2, %r5, %r0;
    @%p2 bra PATH;
    add.f32 %r10, %r10, %r11;
    add.f32 %r12, %r12, %r13;
    add.f32 %r14, %r14, %r15;
    add.f32 %r16, %r16, %r17;
    add.f32 %r10, %r10, %r12;
    add.f32 %r14, %r14, %r16;
    add.f32 %r10, %r10, %r14;
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ntid.x;
    mov.u32 %r9, %tid.x;
    mad.u32 %r6, %r6, %r7, %r9;
    shl.b32 %r6, %r6, 2;
    ld.param.u32 %r9, [out];
    add.u32 %r9, %r9, %r6;
    st.global.f32 [%r9], %r10;
    exit;
