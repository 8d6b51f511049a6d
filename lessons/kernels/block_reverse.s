// block_reverse.s - reverse each block-sized chunk of an array through
// shared memory: threads exchange data across a barrier.
//   out[b*bx + t] = in[b*bx + (m - 1 - t)], m = elements in block b's chunk
//   (bx, or fewer in the last block when n is not a multiple of bx)
//
// Params:  in, out  device addresses of n floats; n  element count.
// Launch:  1-D, block = {bx} (1 <= bx <= 1024; edu-tiny: 256),
//          grid = {ceil(n / bx)}.
// Mapping: thread t of block b copies in[b*bx + t] to s[t], waits at
//          bar.sync until the whole chunk is in shared memory, then writes
//          s[m - 1 - t] - a value another thread (usually in another warp)
//          loaded. Threads past n stay alive until the barrier (they must
//          reach it) and skip their load and store.
// Speed:   two coalesced global accesses per element; without the barrier
//          a warp could read s[] before the other warps wrote it.
.kernel block_reverse
.param in
.param out
.param n
.shared s 4096                         // float s[1024]

    mov.u32 %r0, %tid.x;               // t
    mov.u32 %r1, %ntid.x;              // bx
    mov.u32 %r2, %ctaid.x;
    mul.u32 %r3, %r2, %r1;             // first = b * bx
    add.u32 %r4, %r3, %r0;             // i = first + t
    ld.param.u32 %r5, [n];
    setp.lt.u32 %p0, %r4, %r5;         // %p0: element i exists
    sub.u32 %r6, %r5, %r3;             // elements left from first
    min.u32 %r6, %r6, %r1;             // m = min(n - first, bx)
    shl.b32 %r7, %r4, 2;               // i * 4
    shl.b32 %r8, %r0, 2;
    add.u32 %r8, %r8, s;               // &s[t]
    ld.param.u32 %r9, [in];
    add.u32 %r9, %r9, %r7;
    @%p0 ld.global.f32 %r10, [%r9];
    @%p0 st.shared.f32 [%r8], %r10;
    bar.sync;                          // the whole chunk is in s[]
    sub.u32 %r11, %r6, 1;
    sub.u32 %r11, %r11, %r0;           // m - 1 - t
    shl.b32 %r11, %r11, 2;
    add.u32 %r11, %r11, s;             // &s[m - 1 - t]
    @%p0 ld.shared.f32 %r12, [%r11];
    ld.param.u32 %r13, [out];
    add.u32 %r13, %r13, %r7;
    @%p0 st.global.f32 [%r13], %r12;
    exit;
