// Exercise 3 (lesson 3, divergence): make whole warps take one side.
//
// What it computes: n numbers; element e is even or odd work:
//     e even:  out[e] = in[e] + 0.1 + 0.1 + ...   (iters additions of 0.1)
//     e odd:   out[e] = in[e] - 0.3 - 0.3 - ...   (iters subtractions of 0.3)
// each rounded to f32 as it happens, so the grader wants the loops: a
// closed form such as in[e] + iters x 0.1 gives other bits.
// Launch (fixed by the grader): 1-D, block = {128}, grid = {ceil(n / 128)}.
// Params:  in, out  device addresses of n floats; iters  loop trips; n  count.
//
// As written, thread i works on element e = i: the lanes of every warp
// alternate even, odd, even ... so every warp runs BOTH loops one after the
// other (divergence), with half of its lanes switched off each time.
//
// Your job: FILL ME IN (about 6 lines) below: choose a different element e
// for thread i so that all 32 lanes of a warp get elements of the same
// parity (for example: even warps take 32 even elements, odd warps the 32
// odd elements in between). Every element 0 .. n-1 must still be done
// exactly once, for any n (the grader tries n = 1, 2, 3, odd sizes and many
// blocks); threads whose e >= n must exit.
//
// Budget (simtlab check 3 FILE.s): cycles on edu-tiny, n = 4096, iters = 32:
// full marks at most 1.15 x the reference solution's, none from 1.35 x.
.kernel parity_work
.param in
.param out
.param iters
.param n

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r3, %r0, %r1, %r2;        // i = global thread index

    // ---- FILL ME IN (about 6 lines): compute e in %r4 from i -------------
    mov.u32 %r4, %r3;                  // e = i  (correct, but every warp diverges)
    // ------------------------------------------------------------------

    ld.param.u32 %r5, [n];
    setp.ge.u32 %p0, %r4, %r5;
    @%p0 exit;
    shl.b32 %r6, %r4, 2;               // e x 4 bytes
    ld.param.u32 %r7, [in];
    add.u32 %r7, %r7, %r6;
    ld.global.f32 %r8, [%r7];          // x = in[e]
    ld.param.u32 %r9, [iters];
    and.b32 %r10, %r4, 1;
    setp.ne.u32 %p1, %r10, 0;
    @%p1 bra ODD;
EVEN:
    add.f32 %r8, %r8, 0.1;
    sub.u32 %r9, %r9, 1;
    setp.ne.u32 %p2, %r9, 0;
    @%p2 bra EVEN;
    bra DONE;
ODD:
    sub.f32 %r8, %r8, 0.3;
    sub.u32 %r9, %r9, 1;
    setp.ne.u32 %p2, %r9, 0;
    @%p2 bra ODD;
DONE:
    ld.param.u32 %r11, [out];
    add.u32 %r11, %r11, %r6;
    st.global.f32 [%r11], %r8;         // out[e]
    exit;
