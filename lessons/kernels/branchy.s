// branchy.s - a divergence demo: the lanes of each warp are split into P
// groups that take P different code paths.
//   path = laneid % P (paths 7 and above all take path 7, so P <= 8 gives
//   P distinct paths); path j runs `iters` FMAs x = x * 1 + (j + 1)
//   from x = 0, so out[i] = iters * (j + 1) (exact while < 2^24).
//
// Params:  out    device address of n floats
//          iters  loop trips per thread (>= 1)
//          P      number of paths (>= 1)
//          n      element count
// Launch:  1-D, block = {bx} (a multiple of 32 shows the effect cleanly),
//          grid = {ceil(n / bx)}.
// Mapping: one thread per element, i = ctaid.x * ntid.x + tid.x; threads
//          with i >= n exit at once.
// Speed:   every path has its own copy of the same loop, so a warp whose
//          lanes want P paths runs the P loops one after another with only
//          32/P lanes switched on: the time grows about P-fold while the
//          useful work stays the same (SIMT divergence).
.kernel branchy
.param out
.param iters
.param P
.param n

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r0, %r0, %r1, %r2;        // i
    ld.param.u32 %r3, [n];
    setp.ge.u32 %p0, %r0, %r3;
    @%p0 exit;
    ld.param.u32 %r4, [iters];
    ld.param.u32 %r5, [P];
    mov.u32 %r6, %laneid;
    rem.u32 %r6, %r6, %r5;             // path = laneid % P
    mov.f32 %r7, 0.0;                  // x
    mov.u32 %r8, 0;                    // loop counter
    // a chain of tests, like a switch statement
    setp.eq.u32 %p1, %r6, 0;
    @%p1 bra PATH0;
    setp.eq.u32 %p1, %r6, 1;
    @%p1 bra PATH1;
    setp.eq.u32 %p1, %r6, 2;
    @%p1 bra PATH2;
    setp.eq.u32 %p1, %r6, 3;
    @%p1 bra PATH3;
    setp.eq.u32 %p1, %r6, 4;
    @%p1 bra PATH4;
    setp.eq.u32 %p1, %r6, 5;
    @%p1 bra PATH5;
    setp.eq.u32 %p1, %r6, 6;
    @%p1 bra PATH6;
    bra PATH7;                         // path >= 7
PATH0:
    fma.f32 %r7, %r7, 1.0, 1.0;      // x = x * 1 + 1
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH0;
    bra DONE;
PATH1:
    fma.f32 %r7, %r7, 1.0, 2.0;      // x = x * 1 + 2
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH1;
    bra DONE;
PATH2:
    fma.f32 %r7, %r7, 1.0, 3.0;      // x = x * 1 + 3
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH2;
    bra DONE;
PATH3:
    fma.f32 %r7, %r7, 1.0, 4.0;      // x = x * 1 + 4
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH3;
    bra DONE;
PATH4:
    fma.f32 %r7, %r7, 1.0, 5.0;      // x = x * 1 + 5
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH4;
    bra DONE;
PATH5:
    fma.f32 %r7, %r7, 1.0, 6.0;      // x = x * 1 + 6
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH5;
    bra DONE;
PATH6:
    fma.f32 %r7, %r7, 1.0, 7.0;      // x = x * 1 + 7
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH6;
    bra DONE;
PATH7:
    fma.f32 %r7, %r7, 1.0, 8.0;      // x = x * 1 + 8
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r4;
    @%p2 bra PATH7;
DONE:
    shl.b32 %r9, %r0, 2;
    ld.param.u32 %r10, [out];
    add.u32 %r10, %r10, %r9;
    st.global.f32 [%r10], %r7;         // out[i] = x
    exit;
