// copy_strided.s - out[i] = in[i x S]: neighbouring threads, addresses S
// floats apart (coalescing, lesson 5).
//
// Params:  in   device address of n x S floats (only every S-th is read);
//          out  device address of n floats; S  stride in floats (>= 1);
//          n    element count.
// Launch:  1-D, block = {bx} (a multiple of 32), grid = {ceil(n / bx)}.
// Mapping: one thread per output element, i = ctaid.x * ntid.x + tid.x;
//          threads with i >= n exit at once.
// Speed:   a warp's 32 loads touch 32 x 4 x S bytes: S = 1 is 128 bytes,
//          4 sectors of 32 bytes per request; each step of S adds sectors
//          until S >= 8, where every lane needs a sector of its own (32 per
//          request, 8x the bytes moved for the same useful data). The stores
//          to out are always coalesced.
.kernel copy_strided
.param in
.param out
.param S
.param n

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r3, %r0, %r1, %r2;        // i
    ld.param.u32 %r4, [n];
    setp.ge.u32 %p0, %r3, %r4;
    @%p0 exit;
    ld.param.u32 %r5, [S];
    mul.u32 %r6, %r3, %r5;             // i x S
    shl.b32 %r6, %r6, 2;
    ld.param.u32 %r7, [in];
    add.u32 %r7, %r7, %r6;             // &in[i x S]
    ld.global.f32 %r8, [%r7];
    shl.b32 %r9, %r3, 2;
    ld.param.u32 %r10, [out];
    add.u32 %r10, %r10, %r9;           // &out[i]
    st.global.f32 [%r10], %r8;
    exit;
