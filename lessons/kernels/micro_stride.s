// micro_stride.s - strided global reads (useful bandwidth against stride).
//
// Measures: how much of the DRAM bandwidth is useful when neighbouring
//          threads read floats S apart: a warp's 32 loads touch 32 x 4 x S
//          bytes, and memory moves whole sectors (L1) and DRAM fetch blocks
//          (L2), so the useful share falls with S (arch/CALIBRATION.md
//          "Strided reads").
// Shape:   each thread reads in[k x S] for its k = i, i + T, i + 2T, ...
//          (T threads in the grid), 4 independent loads per trip, as a
//          compiler unrolls the loop `for (k = i; k < n; k += T) s += in[k*S]`
//          by 4; the sum is stored so the loads are used.
// Params:  A      device address of the data (bytes = 16 x S x T x iters);
//          S      stride in floats (>= 1);
//          iters  trips per thread (4 loads each);
//          out    one float per thread.
// Launch:  1-D, block a multiple of 32 threads, any grid.
.kernel micro_stride
.param A
.param S
.param iters
.param out

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r3, %r0, %r1, %r2;        // global thread index i
    mov.u32 %r4, %nctaid.x;
    mul.u32 %r4, %r4, %r1;             // T, threads in the grid
    ld.param.u32 %r6, [S];
    shl.b32 %r6, %r6, 2;               // 4 x S bytes between neighbours
    mul.u32 %r4, %r4, %r6;             // bytes between one load and the next (T x 4S)
    mul.u32 %r5, %r3, %r6;             // i x 4S
    ld.param.u32 %r7, [A];
    add.u32 %r5, %r5, %r7;             // &in[i x S]
    shl.b32 %r9, %r4, 2;               // bytes per trip (4 loads)
    ld.param.u32 %r8, [iters];
    mov.f32 %r20, 0.0;
LOOP:
    add.u32 %r14, %r5, %r4;
    add.u32 %r15, %r14, %r4;
    add.u32 %r16, %r15, %r4;
    ld.global.f32 %r10, [%r5];
    ld.global.f32 %r11, [%r14];
    ld.global.f32 %r12, [%r15];
    ld.global.f32 %r13, [%r16];
    sub.u32 %r8, %r8, 1;
    add.u32 %r5, %r5, %r9;
    setp.ne.u32 %p0, %r8, 0;
    add.f32 %r10, %r10, %r11;
    add.f32 %r12, %r12, %r13;
    add.f32 %r20, %r20, %r10;
    add.f32 %r20, %r20, %r12;
    @%p0 bra LOOP;
    shl.b32 %r3, %r3, 2;
    ld.param.u32 %r9, [out];
    add.u32 %r9, %r9, %r3;
    st.global.f32 [%r9], %r20;
    exit;
