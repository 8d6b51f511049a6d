// reduce_atomic.s - sum of n floats, one block at a time, with a tree in shared memory.
//   *out += sum of A[0 .. n-1]   (*out must be 0 before the launch)
//
// Params:  A    device address of n floats
//          out  device address of ONE float, zeroed by the caller
//          n    element count
// Launch:  1-D, block = {bx} with bx a power of two, 1 <= bx <= 1024
//          (edu-tiny: at most 256), any grid = {gx} (e.g. ceil(n / bx), or
//          fewer blocks: each thread first adds up every gx*bx-th element).
// Mapping: like reduce_sum.s: grid-stride accumulate, then a tree with
//          sequential addressing; finally thread 0 of each block adds its
//          block's total to *out with atom.global.add.f32, so ONE launch
//          gives the answer (the order of the block totals - and so the
//          last bits of the result - follows the order blocks finish).
// Speed:   one launch instead of two; the gx atomics all hit the same
//          address and are serialised, which is cheap for a few blocks and
//          a bottleneck for many.
.kernel reduce_atomic
.param A
.param out
.param n
.shared sdata 4096                     // float sdata[1024]: one per thread

    mov.u32 %r0, %tid.x;               // t
    mov.u32 %r1, %ntid.x;              // bx
    mov.u32 %r2, %ctaid.x;             // b
    mad.u32 %r3, %r2, %r1, %r0;        // i = b*bx + t
    mov.u32 %r4, %nctaid.x;
    mul.u32 %r4, %r4, %r1;             // grid-stride: gx*bx elements
    shl.b32 %r5, %r4, 2;               // ... in bytes
    ld.param.u32 %r6, [n];
    ld.param.u32 %r7, [A];
    shl.b32 %r8, %r3, 2;
    add.u32 %r8, %r7, %r8;             // &A[i]
    mov.f32 %r9, 0.0;                  // this thread's sum
    setp.ge.u32 %p0, %r3, %r6;
    @%p0 bra STORE;                    // no element for this thread
ACCUM:
    ld.global.f32 %r10, [%r8];
    add.f32 %r9, %r9, %r10;
    add.u32 %r8, %r8, %r5;
    add.u32 %r3, %r3, %r4;             // i += gx*bx
    setp.lt.u32 %p0, %r3, %r6;
    @%p0 bra ACCUM;
STORE:
    shl.b32 %r11, %r0, 2;
    add.u32 %r11, %r11, sdata;         // &sdata[t]
    st.shared.f32 [%r11], %r9;
    bar.sync;                          // every sdata[t] written
    shr.u32 %r12, %r1, 1;              // s = bx / 2
    setp.eq.u32 %p1, %r12, 0;
    @%p1 bra DONE;                     // a block of one thread
TREE:
    setp.lt.u32 %p2, %r0, %r12;        // t < s: this thread adds
    shl.b32 %r13, %r12, 2;
    add.u32 %r13, %r11, %r13;          // &sdata[t + s]
    @%p2 ld.shared.f32 %r14, [%r11];
    @%p2 ld.shared.f32 %r15, [%r13];
    @%p2 add.f32 %r14, %r14, %r15;
    @%p2 st.shared.f32 [%r11], %r14;
    bar.sync;                          // this step done before the next
    shr.u32 %r12, %r12, 1;             // s /= 2 (the same in every thread)
    setp.ne.u32 %p1, %r12, 0;
    @%p1 bra TREE;
DONE:
    setp.ne.u32 %p3, %r0, 0;
    @%p3 exit;                         // only thread 0 writes
    ld.shared.f32 %r16, [sdata];       // the block's total
    ld.param.u32 %r17, [out];
    atom.global.add.f32 %r18, [%r17], %r16;   // *out += total (old value to %r18)
    exit;
