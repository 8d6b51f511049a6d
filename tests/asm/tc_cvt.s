// tc_cvt.s - test fixture: out[i] = cvt of in[i] for one conversion per
// warp lane group; used by tests/lua/test_tensor_cores.lua.
// Params: in (f32 values), out (u32 results), n. Launch: 1 block of 32.
// Lane l < n writes 7 results: out[7*l + 0..6] = cvt.{f16,bf16,tf32,e4m3,
// e5m2}.f32 of in[l], then cvt.f32.f16 and cvt.f32.e4m3 of those patterns.
.kernel tc_cvt
.param in
.param out
.param n
    ld.param.u32 %r0, [in]
    ld.param.u32 %r1, [out]
    ld.param.u32 %r2, [n]
    mov.u32 %r3, %tid.x
    setp.ge.u32 %p0, %r3, %r2
@%p0 exit
    shl.b32 %r4, %r3, 2
    add.u32 %r4, %r4, %r0
    ld.global.f32 %r5, [%r4]
    mul.lo.u32 %r6, %r3, 28
    add.u32 %r6, %r6, %r1
    cvt.f16.f32 %r7, %r5
    st.global.u32 [%r6], %r7
    cvt.bf16.f32 %r8, %r5
    st.global.u32 [%r6+4], %r8
    cvt.tf32.f32 %r9, %r5
    st.global.u32 [%r6+8], %r9
    cvt.e4m3.f32 %r10, %r5
    st.global.u32 [%r6+12], %r10
    cvt.e5m2.f32 %r11, %r5
    st.global.u32 [%r6+16], %r11
    cvt.f32.f16 %r12, %r7
    st.global.f32 [%r6+20], %r12
    cvt.f32.e4m3 %r13, %r10
    st.global.f32 [%r6+24], %r13
    exit
