// async_misuse.s - one block of 32 x W threads (W warps) misuses the
// asynchronous instructions in the way `mode` picks (a test kernel for
// their error reports; every mode is uniform across the block):
//   0  correct: warp 0 copies 4 rows of 64 bytes of `in` (row pitch
//      `pitch`) into shared memory through mbarrier bar; every warp waits,
//      then one wgmma.n32.f16 per warp reads them; lane 0 of each warp
//      stores its first accumulator to out[warp]
//   1  the copy's mbarrier was never initialised
//   2  the mbarrier expects 2 arrivals but gets 1: the wait never ends
//   3  wgmma reads shared memory nothing has written (checker)
//   4  wgmma with lane 31 of every warp switched off by a guard
.kernel async_misuse
.param in
.param out
.param pitch
.param mode
.shared a 512
.shared b 1024
.shared bar 8
    ld.param.u32 %r40, [mode]
    mov.u32 %r41, %tid.x
    shr.u32 %r42, %r41, 5              // warp
    setp.eq.u32 %p0, %r42, 0
    setp.ne.u32 %p1, %r40, 1
    and.pred %p1, %p1, %p0
    mov.u32 %r43, 1
    setp.eq.u32 %p2, %r40, 2
@%p2 mov.u32 %r43, 2
@%p1 mbarrier.init.shared [bar], %r43
    bar.sync
    setp.eq.u32 %p3, %r40, 3
@%p3 bra MMA
    ld.param.u32 %r44, [in]
    ld.param.u32 %r45, [pitch]
@%p0 mbarrier.arrive.expect_tx.shared [bar], 1024
@%p0 cp.async.bulk.shared.global.16x64 [b], [%r44], %r45, [bar]
@%p0 cp.async.bulk.shared.global.16x32 [a], [%r44], %r45, [bar]
    mbarrier.wait.parity.shared [bar], 0
MMA:
    mov.b32 %r0, 0
    mov.b32 %r1, 0
    mov.b32 %r2, 0
    mov.b32 %r3, 0
    mov.b32 %r4, 0
    mov.b32 %r5, 0
    mov.b32 %r6, 0
    mov.b32 %r7, 0
    mov.b32 %r8, 0
    mov.b32 %r9, 0
    mov.b32 %r10, 0
    mov.b32 %r11, 0
    mov.b32 %r12, 0
    mov.b32 %r13, 0
    mov.b32 %r14, 0
    mov.b32 %r15, 0
    setp.eq.u32 %p4, %r40, 4
    and.b32 %r46, %r41, 31
    setp.ne.u32 %p5, %r46, 31
    not.pred %p6, %p4
    or.pred %p5, %p5, %p6             // all lanes unless mode 4 (then lane 31 is off)
@%p5 wgmma.mma_async.n32.f16 %r0, [a], [b], 64
    wgmma.wait 0
    setp.ne.u32 %p6, %r46, 0
@%p6 exit
    ld.param.u32 %r47, [out]
    shl.b32 %r48, %r42, 2
    add.u32 %r47, %r47, %r48
    st.global.f32 [%r47], %r0
    exit
