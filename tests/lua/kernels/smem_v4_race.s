// smem_v4_race.s - smem_v4.s without its bar.sync, for test_vector.lua:
// thread t reads the 16 bytes thread t + 1 stores with no barrier between,
// a shared-memory race the kernel checker must name.
.kernel smem_v4_race
.param out
.shared tile 4096

    mov.u32 %r0, %tid.x;
    shl.b32 %r2, %r0, 4;
    mov.u32 %r4, %r0;
    mov.u32 %r5, %r0;
    mov.u32 %r6, %r0;
    mov.u32 %r7, %r0;
    st.shared.v4.u32 [%r2], {%r4, %r5, %r6, %r7};
    add.u32 %r3, %r2, 16;
    ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r3];
    ld.param.u32 %r8, [out];
    add.u32 %r8, %r8, %r2;
    st.global.v4.u32 [%r8], {%r4, %r5, %r6, %r7};
    exit;
