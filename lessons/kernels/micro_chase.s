// micro_chase.s - global-memory load latency by pointer chasing.
//
// Measures: the load-to-use latency of global loads that hit in L1, in L2,
//          or go to DRAM: one thread follows a chain built by
//          micro_chase_init.s (p = *p), so every load waits for the previous
//          one and nothing overlaps.
// Maps to: reference/h200-measured.md "Latencies" (global load L1 hit, L2
//          hit near partition, DRAM). The footprint picks the level: a chain
//          of a few KB stays in L1 after a warm-up pass, a few MB lives in L2
//          (L1 misses every time), and a chain in lines that were never
//          loaded since the caches were emptied goes to DRAM.
// Params:  p      first element; warm  untimed steps first (0: none);
//          steps  timed steps (a multiple of 4); out  2 words: out[0] =
//          cycles of the timed steps (read with %clock), out[1] = final p.
// Launch:  grid 1, block 1.
// The clock reads are guarded by a predicate computed from p, so they wait
// for the load before them (a %clock read has no register operands).
.kernel micro_chase
.param p
.param warm
.param steps
.param out

    ld.param.u32 %r5, [p];
    ld.param.u32 %r1, [warm];
    ld.param.u32 %r2, [steps];
    setp.eq.u32 %p0, %r1, 0;
    @%p0 bra TIMED_START;
WARM:
    ld.global.u32 %r5, [%r5];
    sub.u32 %r1, %r1, 1;
    setp.ne.u32 %p0, %r1, 0;
    @%p0 bra WARM;
TIMED_START:
    setp.eq.u32 %p3, %r5, 1;           // never true; waits for p
    @!%p3 mov.u32 %r6, %clock;
TIMED:
    ld.global.u32 %r5, [%r5];
    sub.u32 %r2, %r2, 4;
    setp.ne.u32 %p0, %r2, 0;
    ld.global.u32 %r5, [%r5];
    ld.global.u32 %r5, [%r5];
    ld.global.u32 %r5, [%r5];
    @%p0 bra TIMED;
    setp.eq.u32 %p3, %r5, 1;
    @!%p3 mov.u32 %r7, %clock;
    sub.u32 %r7, %r7, %r6;
    ld.param.u32 %r8, [out];
    st.global.u32 [%r8], %r7;
    st.global.u32 [%r8+4], %r5;
    exit;
