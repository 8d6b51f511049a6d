// all_ops.s - one of every instruction form, for assembler round-trip tests.
// Not a meaningful kernel: it only has to assemble. Threads: any.
.kernel all_ops
.param a
.param b
.param n
.shared tile 60          // offset 0
.shared buf 32           // offset 64 (16-byte aligned)

start:
    nop
    mov.u32 %r0, %tid.x
    mov.u32 %r1, %ctaid.x
    mov.s32 %r2, -5
    mov.f32 %r3, 1.5
    mov.b32 %r4, 0xFF
    mov.u32 %r5, buf
    mov.pred %p0, %p1
    mad.lo.s32 %r6, %r1, %ntid.x, %r0
    add.s32 %r7, %r6, 1
    add.f32 %r8, %r3, -2e-3
    sub.u32 %r9, %r7, %r6
    sub.f32 %r9, %r8, 0f7F800000
    mul.lo.u32 %r10, %r9, 3
    mul.f32 %r10, %r10, 2
    mul.hi.s32 %r11, %r10, %r9
    mad.f32 %r12, %r3, %r8, 1e10
    fma.f32 %r12, %r12, %r12, %r3
    div.u32 %r13, %r7, 3
    div.f32 %r13, %r3, %r8
    rem.s32 %r14, %r7, -3
    min.s32 %r15, %r7, %r2
    max.f32 %r15, %r3, 0.25
    abs.s32 %r16, %r2
    neg.f32 %r16, %r3
    rcp.f32 %r17, %r3
    sqrt.f32 %r18, %r3
    rsqrt.f32 %r19, %r3
    ex2.f32 %r20, %r3
    lg2.f32 %r21, %r3
    sin.f32 %r22, %r3
    cos.f32 %r23, %r3
    and.b32 %r24, %r4, 0x0F
    or.b32 %r24, %r24, 16
    xor.b32 %r24, %r24, %r4
    not.b32 %r25, %r24
    shl.b32 %r26, %r0, 2
    shr.s32 %r27, %r2, 1
    shr.u32 %r27, %r27, %r0
    setp.lt.s32 %p1, %r0, 16
    setp.ne.f32 %p2, %r3, 0.0
    and.pred %p3, %p1, %p2
    or.pred %p3, %p3, %p1
    xor.pred %p4, %p3, %p2
    not.pred %p5, %p4
    selp.f32 %r28, %r3, -1.0, %p1
    selp.u32 %r28, 1, 0, %p5
    cvt.f32.s32 %r29, %r2
    cvt.s32.f32 %r29, %r3
    cvt.u8.u32 %r29, %r29
    ld.param.u32 %r30, [a]
    ld.param.u32 %r31, [n]
    ld.global.f32 %r32, [%r30+16]
    ld.global.u8 %r33, [%r30-4]
    ld.global.s16 %r33, [1024]
    ld.shared.f32 %r34, [tile+8]
    ld.shared.u16 %r34, [%r26]
    st.global.f32 [%r30], %r32
    st.shared.f32 [buf], %r32
    st.shared.s8 [buf+3], 7
    atom.global.add.u32 %r35, [%r30], 1
    atom.shared.min.s32 %r35, [%r26], %r2
    atom.shared.max.u32 %r35, [tile], %r2
    atom.global.exch.b32 %r35, [%r30+4], %r3
    atom.shared.cas.b32 %r36, [%r26], %r35, 0
    cvt.f16.f32 %r40, %r32
    cvt.f32.bf16 %r40, %r41
    cvt.tf32.f32 %r40, 1.5
    cvt.e4m3.f32 %r40, %r32
    cvt.f32.e5m2 %r40, 0x7B
    ld.global.f16 %r40, [%r30]
    st.shared.bf16 [buf+2], %r40
    ld.shared.e4m3 %r40, [tile+1]
    st.global.e5m2 [%r30], %r40
    wmma.load.a.global.f16 %r40, [%r30], 64
    wmma.load.b.shared.bf16 %r44, [tile], %r2
    wmma.load.c.global.f32 %r48, [%r30+16], 16
    wmma.mma.f16 %r48, %r40, %r44, %r48
    wmma.mma.e4m3 %r48, %r40, %r44, %r56
    wmma.store.d.shared.f32 [buf], %r56, 16
    mbarrier.init.shared [buf+8], 1
    mbarrier.arrive.expect_tx.shared [%r30+8], %r2
    mbarrier.wait.parity.shared [buf+8], 1
    cp.async.bulk.shared.global.4x32 [tile], [%r30-16], 4096, [buf+8]
@%p1 cp.async.bulk.shared.global.128x64 [%r31+32], [%r30], %r2, [%r32]
    wgmma.mma_async.n64.f16 %r0, [tile], [%r31+512], 128
    wgmma.mma_async.n8.tf32 %r8, [%r2], [%r3], %r4
    wgmma.mma_async.n32.e5m2 %r16, [%r2+16], [tile+32], 64
    wgmma.wait 0
    wgmma.wait 7
    mbarrier.arrive.cluster.shared [buf+8], 1
    mbarrier.arrive.cluster.shared [%r30], %r2
    cp.async.bulk.shared.global.multicast.2x16 [tile], [%r30], 64, [buf+8], 0x3
    mov.u32 %r5, %cluster_ctarank
    mov.u32 %r5, %cluster_nctarank
    mov.u32 %r5, %clusterid.y
    mov.u32 %r5, %cluster_nctaid.z
    barrier.cluster
    cp.async.bulk.global.shared.4x32 [%r30], [tile], 4096
@%p2 cp.async.bulk.global.shared.128x1024 [%r30+16], [%r31], %r2
    ld.cluster.shared.u32 %r6, [%r30+4], %r2
    ld.cluster.shared.f32 %r7, [buf], 1
    st.cluster.shared.f32 [%r31-8], 1.5, %r3
    st.cluster.shared.b32 [buf+12], %r4, 0
    bar.sync
    bar.sync 0
@%p1 bra skip
    add.u32 %r37, %r37, 1
skip:
@!%p2 bra.uni start
    mov.u32 %r63, %clock
    @%p7 exit
    ret
