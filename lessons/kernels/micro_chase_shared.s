// micro_chase_shared.s - shared-memory load latency by pointer chasing.
//
// Measures: the load-to-use latency of a conflict-free shared-memory load.
// Maps to: reference/h200-measured.md "Latencies", shared-memory load
//          (pointer chase), 29 cycles.
// How:     one thread fills a table of n words where word i holds the byte
//          offset of word (i + stride) mod n, then follows it (p = *p).
// Params:  n      words in the table (<= 1024); stride  words per step;
//          steps  timed steps (a multiple of 4); out  2 words: out[0] =
//          cycles of the timed steps (%clock), out[1] = final offset.
// Launch:  grid 1, block 1.
.kernel micro_chase_shared
.param n
.param stride
.param steps
.param out
.shared table 4096

    ld.param.u32 %r0, [n];
    ld.param.u32 %r1, [stride];
    ld.param.u32 %r2, [steps];
    mov.u32 %r3, 0;                    // i
FILL:
    add.u32 %r4, %r3, %r1;
    rem.u32 %r4, %r4, %r0;             // (i + stride) mod n
    shl.b32 %r4, %r4, 2;
    add.u32 %r4, %r4, table;           // its offset
    shl.b32 %r9, %r3, 2;
    add.u32 %r9, %r9, table;
    st.shared.u32 [%r9], %r4;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p0, %r3, %r0;
    @%p0 bra FILL;
    mov.u32 %r5, table;
    ld.shared.u32 %r5, [%r5];          // first step, untimed (waits for the stores)
    setp.eq.u32 %p3, %r5, 1;
    @!%p3 mov.u32 %r6, %clock;
CHASE:
    ld.shared.u32 %r5, [%r5];
    sub.u32 %r2, %r2, 4;
    setp.ne.u32 %p0, %r2, 0;
    ld.shared.u32 %r5, [%r5];
    ld.shared.u32 %r5, [%r5];
    ld.shared.u32 %r5, [%r5];
    @%p0 bra CHASE;
    setp.eq.u32 %p3, %r5, 1;
    @!%p3 mov.u32 %r7, %clock;
    sub.u32 %r7, %r7, %r6;
    ld.param.u32 %r8, [out];
    st.global.u32 [%r8], %r7;
    st.global.u32 [%r8+4], %r5;
    exit;
