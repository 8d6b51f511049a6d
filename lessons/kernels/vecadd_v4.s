// vecadd_v4.s - vector addition with 128-bit loads and stores: C[i] = A[i] +
// B[i] for 0 <= i < n (f32), four elements per thread.
//
// What nvcc emits for the float4 form of vecadd:
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (4 * i < n) {
//         float4 a = ((const float4 *)A)[i], b = ((const float4 *)B)[i];
//         ((float4 *)C)[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
//     }
// (ld.global.v4.f32 / st.global.v4.f32 in PTX, LDG.E.128 / STG.E.128 in SASS).
//
// Params:  A, B, C  device addresses of n floats each, 16-byte aligned (as
//                   every tensor is); n  element count, a multiple of 4.
// Launch:  1-D, block = {bx}, grid = {ceil(n / (4 * bx))}.
// Mapping: thread i moves elements 4i..4i+3: a warp's load is 512
//          contiguous bytes, 4 cache lines in ONE instruction (vecadd.s
//          needs 4 instructions of 1 line each for the same bytes), so
//          gld_requests is a quarter of vecadd's with the same sectors.
.kernel vecadd_v4
.param A
.param B
.param C
.param n

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r3, %r0, %r1, %r2;        // i = ctaid.x * ntid.x + tid.x
    shl.b32 %r5, %r3, 4;               // byte offset 16 * i (= 4 * (4i))
    shr.u32 %r12, %r5, 2;              // first element 4i
    ld.param.u32 %r4, [n];
    setp.ge.u32 %p0, %r12, %r4;        // past the end of the vectors?
    @%p0 exit;
    ld.param.u32 %r6, [A];
    add.u32 %r6, %r6, %r5;             // &A[4i]
    ld.param.u32 %r7, [B];
    add.u32 %r7, %r7, %r5;             // &B[4i]
    ld.param.u32 %r8, [C];
    add.u32 %r8, %r8, %r5;             // &C[4i]
    ld.global.v4.f32 {%r16, %r17, %r18, %r19}, [%r6];
    ld.global.v4.f32 {%r20, %r21, %r22, %r23}, [%r7];
    add.f32 %r24, %r16, %r20;
    add.f32 %r25, %r17, %r21;
    add.f32 %r26, %r18, %r22;
    add.f32 %r27, %r19, %r23;
    st.global.v4.f32 [%r8], {%r24, %r25, %r26, %r27};
    exit;
