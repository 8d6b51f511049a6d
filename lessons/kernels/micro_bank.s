// micro_bank.s - shared-memory bank conflicts.
//
// Measures: the cost of bank conflicts: lane l of each warp reads shared
//          word l x S again and again. Shared memory has 32 banks of 4 bytes
//          (word w lives in bank w mod 32), so stride S puts gcd(S, 32) lanes
//          on the same bank and the access needs gcd(S, 32) wavefronts;
//          stride 33 (an array padded by one word per row) is conflict free.
// Maps to: reference/h200-measured.md "Shared-memory bank conflicts" (time
//          per launch for S = 1, 2, 4, 8, 16, 32, 33). All warps read the
//          same 4 KB table (the words are never written, so only the
//          addresses matter); each trip issues 8 independent loads of the
//          same word (as an unrolled CUDA loop would) and adds each into its
//          own accumulator.
// Params:  S      stride in words (lane l reads word (l x S) mod 1024);
//          iters  trips (8 loads each);
//          out    one float per thread (the sum, so the loads are used).
// Launch:  1-D, block a multiple of 32 threads, any grid.
.kernel micro_bank
.param S
.param iters
.param out
.shared table 4096                     // 1024 words, never written (zeros)

    ld.param.u32 %r0, [S];
    mov.u32 %r1, %laneid;
    mul.u32 %r2, %r1, %r0;             // lane x S
    and.b32 %r2, %r2, 1023;            // stay inside the table
    shl.b32 %r2, %r2, 2;
    add.u32 %r5, %r2, table;           // this lane's address
    ld.param.u32 %r8, [iters];
    mov.f32 %r20, 0.0;
    mov.f32 %r21, 0.0;
    mov.f32 %r22, 0.0;
    mov.f32 %r23, 0.0;
    mov.f32 %r24, 0.0;
    mov.f32 %r25, 0.0;
    mov.f32 %r26, 0.0;
    mov.f32 %r27, 0.0;
LOOP:
    sub.u32 %r8, %r8, 1;
    setp.ne.u32 %p0, %r8, 0;
    ld.shared.f32 %r10, [%r5];
    ld.shared.f32 %r11, [%r5];
    ld.shared.f32 %r12, [%r5];
    ld.shared.f32 %r13, [%r5];
    ld.shared.f32 %r14, [%r5];
    ld.shared.f32 %r15, [%r5];
    ld.shared.f32 %r16, [%r5];
    ld.shared.f32 %r17, [%r5];
    add.f32 %r20, %r20, %r10;
    add.f32 %r21, %r21, %r11;
    add.f32 %r22, %r22, %r12;
    add.f32 %r23, %r23, %r13;
    add.f32 %r24, %r24, %r14;
    add.f32 %r25, %r25, %r15;
    add.f32 %r26, %r26, %r16;
    add.f32 %r27, %r27, %r17;
    @%p0 bra LOOP;
    add.f32 %r20, %r20, %r21;
    add.f32 %r22, %r22, %r23;
    add.f32 %r24, %r24, %r25;
    add.f32 %r26, %r26, %r27;
    add.f32 %r20, %r20, %r22;
    add.f32 %r24, %r24, %r26;
    add.f32 %r20, %r20, %r24;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.u32 %r3, %r3, %r4, %r6;
    shl.b32 %r3, %r3, 2;
    ld.param.u32 %r9, [out];
    add.u32 %r9, %r9, %r3;
    st.global.f32 [%r9], %r20;
    exit;
