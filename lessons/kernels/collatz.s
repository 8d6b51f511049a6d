// collatz.s - data-dependent divergence: each thread counts the steps of
// the Collatz sequence x -> x/2 (x even), 3x+1 (x odd) from x = start + i
// until x = 1 (at most `limit` steps; a start of 0 or 1 gives 0 steps).
//   out[i] = number of steps (u32)
//
// Params:  out    device address of n 32-bit integers
//          start  first starting value (>= 1)
//          limit  most steps to take (a guard; 1000 is plenty for small x)
//          n      element count
// Launch:  1-D, block = {bx} (e.g. 128), grid = {ceil(n / bx)}.
// Mapping: one thread per starting value, i = ctaid.x * ntid.x + tid.x;
//          threads with i >= n exit at once.
// Speed:   neighbouring starting values need very different step counts,
//          so each warp loops as long as its slowest lane while the lanes
//          that are done sit masked off; the even/odd test inside the loop
//          diverges as well. Integer-only work, no floating point.
.kernel collatz
.param out
.param start
.param limit
.param n

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r0, %r0, %r1, %r2;        // i
    ld.param.u32 %r3, [n];
    setp.ge.u32 %p0, %r0, %r3;
    @%p0 exit;
    ld.param.u32 %r4, [start];
    add.u32 %r5, %r4, %r0;             // x = start + i
    ld.param.u32 %r6, [limit];
    mov.u32 %r7, 0;                    // steps
LOOP:
    setp.le.u32 %p1, %r5, 1;           // reached 1 (or started at 0)?
    @%p1 bra DONE;
    setp.ge.u32 %p1, %r7, %r6;         // out of steps?
    @%p1 bra DONE;
    and.b32 %r8, %r5, 1;
    setp.eq.u32 %p2, %r8, 0;
    @%p2 bra EVEN;
    mad.u32 %r5, %r5, 3, 1;            // odd: x = 3x + 1
    bra NEXT;
EVEN:
    shr.u32 %r5, %r5, 1;               // even: x = x / 2
NEXT:
    add.u32 %r7, %r7, 1;
    bra LOOP;
DONE:
    shl.b32 %r9, %r0, 2;
    ld.param.u32 %r10, [out];
    add.u32 %r10, %r10, %r9;
    st.global.u32 [%r10], %r7;         // out[i] = steps
    exit;
