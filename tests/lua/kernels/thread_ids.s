// thread_ids.s - every thread writes its special registers: out[4 t + 0..3]
// = tid.x, tid.y, tid.z, laneid, where t = (tid.z * ntid.y + tid.y) *
// ntid.x + tid.x is its index in the block (one block). A test kernel for
// the lane-by-lane values of the thread-index registers in any block shape.
.kernel thread_ids
.param out
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %tid.y;
    mov.u32 %r2, %tid.z;
    mov.u32 %r3, %laneid;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %ntid.y;
    mad.u32 %r6, %r2, %r5, %r1;      // tid.z * ntid.y + tid.y
    mad.u32 %r6, %r6, %r4, %r0;      // t
    shl.b32 %r6, %r6, 4;             // 16 bytes per thread
    ld.param.u32 %r7, [out];
    add.u32 %r7, %r7, %r6;
    st.global.u32 [%r7], %r0;
    st.global.u32 [%r7+4], %r1;
    st.global.u32 [%r7+8], %r2;
    st.global.u32 [%r7+12], %r3;
    exit;
