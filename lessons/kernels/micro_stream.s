// micro_stream.s - streaming global loads (HBM read bandwidth).
//
// Measures: DRAM read bandwidth as a function of warps in flight (Little's
//          law: bandwidth = bytes in flight / latency) and at full occupancy.
// Maps to: reference/h200-measured.md "HBM read, streaming float4 loads" and
//          the "HBM read GB/s" row of "Latency hiding with warps". As the
//          measured kernel, each thread loads one float4 (16 bytes, one
//          ld.global.v4.f32) per trip: 512 contiguous bytes (4 lines) per
//          warp per trip, then sums them.
// Params:  A      device address of the data (bytes = 16 x threads x iters);
//          iters  trips per thread (grid-stride: each trip advances by
//                 16 bytes x all threads of the grid);
//          out    one float per thread (the sum, so the loads are used).
// Launch:  1-D, block a multiple of 32 threads, any grid.
.kernel micro_stream
.param A
.param iters
.param out

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r3, %r0, %r1, %r2;        // global thread index i
    mov.u32 %r4, %nctaid.x;
    mul.u32 %r4, %r4, %r1;             // threads in the grid
    shl.b32 %r4, %r4, 4;               // stride per trip: 16 bytes x threads
    shl.b32 %r5, %r3, 4;               // this thread's float4: 16 bytes x i
    ld.param.u32 %r7, [A];
    add.u32 %r5, %r5, %r7;             // this lane's first address
    ld.param.u32 %r8, [iters];
    mov.f32 %r20, 0.0;
LOOP:
    ld.global.v4.f32 {%r10, %r11, %r12, %r13}, [%r5];
    sub.u32 %r8, %r8, 1;
    add.u32 %r5, %r5, %r4;
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
