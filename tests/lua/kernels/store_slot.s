// store_slot.s - for the checker's global write-write race test
// (tests/lua/test_check_global_race.lua): thread t of block b stores its
// global index (as a float) to out[(b*ntid + t) / div] -- div = 1: every
// thread its own element; div > 1: div threads share one -- then, if
// again != 0, after bar.sync thread t stores to out[b*ntid + (t+1) mod
// ntid] (the element a neighbour stored before the barrier: ordered, no
// race), and atomically adds 1.0 to out[0] when atom != 0 (atomics never
// race).
.kernel store_slot
.param out
.param div
.param again
.param atom
    ld.param.u32 %r0, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.u32 %r4, %r1, %r2, %r3;        // global index
    ld.param.u32 %r5, [div];
    div.u32 %r6, %r4, %r5;
    shl.b32 %r6, %r6, 2;
    add.u32 %r6, %r0, %r6;
    cvt.f32.u32 %r7, %r4;
    st.global.f32 [%r6], %r7;
    bar.sync;
    ld.param.u32 %r8, [again];
    setp.eq.u32 %p0, %r8, 0;
    @%p0 bra ATOM;
    add.u32 %r9, %r3, 1;
    rem.u32 %r9, %r9, %r2;
    mad.u32 %r9, %r1, %r2, %r9;
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r0, %r9;
    st.global.f32 [%r9], %r7;
ATOM:
    ld.param.u32 %r10, [atom];
    setp.eq.u32 %p1, %r10, 0;
    @%p1 exit;
    mov.f32 %r11, 1.0;
    atom.global.add.f32 %r12, [%r0], %r11;
    exit;
