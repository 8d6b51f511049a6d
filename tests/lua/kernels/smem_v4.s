// smem_v4.s - shared-memory vector accesses for test_vector.lua: each
// thread stores 4 words of its own into a shared tile with st.shared.v4,
// then reads back the 4 words of thread (tid + shift) % ntid with
// ld.shared.v4 (mode 0) or the 4 words at the start of the tile, the same
// for every lane (mode 1: a broadcast), and writes them to out[4 tid..].
// Params: out (4 x ntid u32), shift, mode. Launch: 1 block of <= 256 threads.
.kernel smem_v4
.param out
.param shift
.param mode
.shared tile 4096

    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %ntid.x;
    shl.b32 %r2, %r0, 4;                  // 16 * tid
    mul.lo.u32 %r4, %r0, 10;
    add.u32 %r5, %r4, 1;
    add.u32 %r6, %r4, 2;
    add.u32 %r7, %r4, 3;
    add.u32 %r3, %r2, tile;
    st.shared.v4.u32 [%r3], {%r4, %r5, %r6, %r7};
    bar.sync;
    ld.param.u32 %r8, [shift];
    add.u32 %r9, %r0, %r8;
    rem.u32 %r9, %r9, %r1;
    shl.b32 %r9, %r9, 4;
    ld.param.u32 %r10, [mode];
    setp.ne.u32 %p0, %r10, 0;
    @%p0 mov.u32 %r9, 0;
    add.u32 %r9, %r9, tile;
    ld.shared.v4.u32 {%r200, %r201, %r202, %r203}, [%r9];
    ld.param.u32 %r11, [out];
    add.u32 %r11, %r11, %r2;
    st.global.v2.u32 [%r11], {%r200, %r201};
    st.global.v2.u32 [%r11+8], {%r202, %r203};
    exit;
