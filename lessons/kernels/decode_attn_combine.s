// decode_attn_combine.s - the second half of split-K "flash decoding": joins
// decode_attn.s's parts of one head into the attention output,
//   mx = max_s mx_s;  out[d] = sum_s e^(mx_s - mx) O_s[d] / sum_s e^(mx_s - mx) l_s
// Params:  O (f32 [b][h][split][hd]), ML (f32 [b][h][split][2]), A (f32: row b
//          at A + b*astride floats, head h at h*hd: the input of the output
//          projection), splits, hd, astride.
// Launch:  block = {hd}, grid = {heads, batch}. Thread d owns out[d].
.kernel decode_attn_combine
.param O
.param ML
.param A
.param splits
.param hd
.param astride
    mov.u32 %r0, %tid.x;  // d
    mov.u32 %r1, %ctaid.x;  // h
    mov.u32 %r2, %ctaid.y;  // b
    ld.param.u32 %r3, [splits];
    ld.param.u32 %r4, [hd];
    mov.u32 %r5, %nctaid.x;
    mad.u32 %r6, %r2, %r5, %r1;
    mul.u32 %r6, %r6, %r3;  // (b * heads + h) * splits
    shl.b32 %r7, %r6, 3;
    ld.param.u32 %r8, [ML];
    add.u32 %r7, %r7, %r8;  // &ML[..][0]
    // mx = max of the parts' maxima
    mov.f32 %r9, -1e30;
    mov.u32 %r10, 0;
    mov.u32 %r11, %r7;
MLOOP:
    ld.global.f32 %r12, [%r11];
    max.f32 %r9, %r9, %r12;
    add.u32 %r11, %r11, 8;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p0, %r10, %r3;
    @%p0 bra MLOOP;
    // sums, each part weighted by 2^((mx_s - mx) log2 e)
    mul.u32 %r13, %r6, %r4;
    add.u32 %r13, %r13, %r0;
    shl.b32 %r13, %r13, 2;
    ld.param.u32 %r8, [O];
    add.u32 %r13, %r13, %r8;  // &O[..][0][d]
    shl.b32 %r14, %r4, 2;  // hd * 4: the next part
    mov.f32 %r15, 0.0;  // numerator
    mov.f32 %r16, 0.0;  // denominator
    mov.u32 %r10, 0;
    mov.u32 %r11, %r7;
SLOOP:
    ld.global.f32 %r12, [%r11];
    ld.global.f32 %r17, [%r11+4];
    ld.global.f32 %r18, [%r13];
    sub.f32 %r12, %r12, %r9;
    mul.f32 %r12, %r12, 1.4426950408889634;
    ex2.f32 %r12, %r12;
    fma.f32 %r15, %r12, %r18, %r15;
    fma.f32 %r16, %r12, %r17, %r16;
    add.u32 %r11, %r11, 8;
    add.u32 %r13, %r13, %r14;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p0, %r10, %r3;
    @%p0 bra SLOOP;
    div.f32 %r15, %r15, %r16;
    ld.param.u32 %r19, [astride];
    mul.u32 %r19, %r19, %r2;
    mad.u32 %r19, %r1, %r4, %r19;
    add.u32 %r19, %r19, %r0;
    shl.b32 %r19, %r19, 2;
    ld.param.u32 %r8, [A];
    add.u32 %r19, %r19, %r8;
    st.global.f32 [%r19], %r15;  // A[b][h*hd + d]
    exit;
