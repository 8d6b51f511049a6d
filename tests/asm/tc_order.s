// tc_order.s - test fixture: one warp loads A, B (f16, 16x16 row-major)
// and C (f32 16x16) from global memory, D = A x B + C, stores D.
// Params: A, B, C, D. Launch: 1 block of 32 threads.
.kernel tc_order
.param A
.param B
.param C
.param D
    ld.param.u32 %r0, [A]
    ld.param.u32 %r1, [B]
    ld.param.u32 %r2, [C]
    ld.param.u32 %r3, [D]
    wmma.load.a.global.f16 %r8, [%r0], 16
    wmma.load.b.global.f16 %r12, [%r1], 16
    wmma.load.c.global.f32 %r16, [%r2], 16
    wmma.mma.f16 %r24, %r8, %r12, %r16
    wmma.store.d.global.f32 [%r3], %r24, 16
    exit
