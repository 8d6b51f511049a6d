// decode_attn.s - attention of one new token over the KV cache (decode), the
// first half of split-K "flash decoding": each block takes 256 cached tokens
// of one head of one sequence and writes that part's unnormalised output with
// its running max and sum; decode_attn_combine.s joins the parts.
//
// For sequence b, query head h (its K/V head kvh = h / group: grouped-query
// attention shares one K/V head among `group` query heads) and tokens
// t0 .. t0+255 (t0 = 256 * blockIdx.x):
//   s[t] = scale * sum_d q[d] K[d][t]          (scale = 1/sqrt(hd))
//   mx = max_t s[t];  p[t] = exp(s[t] - mx);  l = sum_t p[t]
//   O[d] = sum_t p[t] V[t][d]                  (written with mx and l)
// Layouts: Q f32, row b at Q + b*qstride floats, head h at h*hd (the QKV
//          projection's output); Kc f16 [b][kvh][hd][T] (K transposed per
//          head, so a warp's 32 tokens of one d are 128 contiguous bytes; the
//          FasterTransformer decoder keeps its K cache transposed for the same
//          reason); Vc f16 [b][kvh][T][hd]; O f32 [b][h][split][hd];
//          ML f32 [b][h][split][2] = (mx, l).
// Params:  Q, Kc, Vc, O, ML, T (cached tokens, even), qstride, group, hd (a
//          multiple of 8, <= 128), scale (f32 bits).
// Launch:  block = {128}, grid = {ceil(T/256), heads, batch}.
// Mapping: thread i scores tokens t0 + 2i and t0 + 2i + 1 (one 32-bit load per
//          d: a pair of f16); thread d < hd then sums p[t] V[t][d] over the
//          block's tokens (a warp reads 64 contiguous bytes of V per token).
//          Max and sum go through a fixed tree in shared memory, so the
//          result does not depend on timing.
.kernel decode_attn
.param Q
.param Kc
.param Vc
.param O
.param ML
.param T
.param qstride
.param group
.param hd
.param scale
.shared qs 512                         // q[hd] * scale
.shared ps 1024                        // p[256]
.shared rs 512                         // reduction scratch [128]
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %ctaid.x;  // split
    mov.u32 %r2, %ctaid.y;  // h
    mov.u32 %r3, %ctaid.z;  // b
    ld.param.u32 %r4, [T];
    ld.param.u32 %r5, [hd];
    ld.param.u32 %r6, [group];
    div.u32 %r7, %r2, %r6;  // kvh = h / group
    mov.u32 %r8, %nctaid.y;
    div.u32 %r8, %r8, %r6;  // kv heads
    shl.b32 %r9, %r1, 8;  // t0 = 256 * split
    // q (scaled) into shared memory
    setp.lt.u32 %p0, %r0, %r5;
    ld.param.u32 %r10, [qstride];
    mul.u32 %r10, %r10, %r3;
    mad.u32 %r10, %r2, %r5, %r10;
    add.u32 %r10, %r10, %r0;
    shl.b32 %r10, %r10, 2;
    ld.param.u32 %r11, [Q];
    add.u32 %r10, %r10, %r11;
    @%p0 ld.global.f32 %r12, [%r10];
    ld.param.f32 %r13, [scale];
    mul.f32 %r12, %r12, %r13;
    shl.b32 %r14, %r0, 2;
    add.u32 %r15, %r14, qs;
    @%p0 st.shared.f32 [%r15], %r12;
    bar.sync;
    // ---- scores of tokens t0 + 2i, t0 + 2i + 1
    mad.u32 %r16, %r3, %r8, %r7;  // kvbase = b * kvheads + kvh
    mul.u32 %r17, %r16, %r5;
    mul.u32 %r17, %r17, %r4;  // kvbase * hd * T
    shl.b32 %r18, %r0, 1;
    add.u32 %r18, %r18, %r9;  // t = t0 + 2i
    setp.lt.u32 %p1, %r18, %r4;  // this thread's pair exists (T even)
    add.u32 %r19, %r17, %r18;
    shl.b32 %r19, %r19, 1;
    ld.param.u32 %r11, [Kc];
    add.u32 %r19, %r19, %r11;  // &K[kvbase][0][t]
    shl.b32 %r20, %r4, 1;  // T * 2: the next d
    mov.f32 %r21, 0.0;  // s0
    mov.f32 %r22, 0.0;  // s1
    mov.u32 %r23, qs;
    mov.u32 %r24, 0;  // d
    @!%p1 bra SCORED;
DLOOP:
    // 8 d's: 8 pairs of K in flight, q from shared (broadcast)
    ld.global.b32 %r60, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.global.b32 %r61, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.global.b32 %r62, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.global.b32 %r63, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.global.b32 %r64, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.global.b32 %r65, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.global.b32 %r66, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.global.b32 %r67, [%r19];
    add.u32 %r19, %r19, %r20;
    ld.shared.v4.f32 {%r40,%r41,%r42,%r43}, [%r23];
    ld.shared.v4.f32 {%r70,%r71,%r72,%r73}, [%r23+16];
    add.u32 %r23, %r23, 32;
    add.u32 %r24, %r24, 8;
    setp.lt.u32 %p2, %r24, %r5;
    cvt.f32.f16 %r34, %r60;
    shr.u32 %r60, %r60, 16;
    cvt.f32.f16 %r60, %r60;
    fma.f32 %r21, %r40, %r34, %r21;
    fma.f32 %r22, %r40, %r60, %r22;
    cvt.f32.f16 %r34, %r61;
    shr.u32 %r61, %r61, 16;
    cvt.f32.f16 %r61, %r61;
    fma.f32 %r21, %r41, %r34, %r21;
    fma.f32 %r22, %r41, %r61, %r22;
    cvt.f32.f16 %r34, %r62;
    shr.u32 %r62, %r62, 16;
    cvt.f32.f16 %r62, %r62;
    fma.f32 %r21, %r42, %r34, %r21;
    fma.f32 %r22, %r42, %r62, %r22;
    cvt.f32.f16 %r34, %r63;
    shr.u32 %r63, %r63, 16;
    cvt.f32.f16 %r63, %r63;
    fma.f32 %r21, %r43, %r34, %r21;
    fma.f32 %r22, %r43, %r63, %r22;
    cvt.f32.f16 %r34, %r64;
    shr.u32 %r64, %r64, 16;
    cvt.f32.f16 %r64, %r64;
    fma.f32 %r21, %r70, %r34, %r21;
    fma.f32 %r22, %r70, %r64, %r22;
    cvt.f32.f16 %r34, %r65;
    shr.u32 %r65, %r65, 16;
    cvt.f32.f16 %r65, %r65;
    fma.f32 %r21, %r71, %r34, %r21;
    fma.f32 %r22, %r71, %r65, %r22;
    cvt.f32.f16 %r34, %r66;
    shr.u32 %r66, %r66, 16;
    cvt.f32.f16 %r66, %r66;
    fma.f32 %r21, %r72, %r34, %r21;
    fma.f32 %r22, %r72, %r66, %r22;
    cvt.f32.f16 %r34, %r67;
    shr.u32 %r67, %r67, 16;
    cvt.f32.f16 %r67, %r67;
    fma.f32 %r21, %r73, %r34, %r21;
    fma.f32 %r22, %r73, %r67, %r22;
    @%p2 bra DLOOP;
SCORED:
    mov.f32 %r25, -1e30;
    selp.b32 %r21, %r21, %r25, %p1;  // tokens past T: -1e30 (exp -> 0)
    selp.b32 %r22, %r22, %r25, %p1;
    // ---- max over the block: rs[i] = max(s0, s1), then a tree
    max.f32 %r26, %r21, %r22;
    add.u32 %r27, %r14, rs;  // &rs[i]
    st.shared.f32 [%r27], %r26;
    bar.sync;
    mov.u32 %r28, 64;
MAXTREE:
    setp.lt.u32 %p3, %r0, %r28;
    shl.b32 %r29, %r28, 2;
    add.u32 %r29, %r29, %r27;
    @%p3 ld.shared.f32 %r35, [%r27];
    @%p3 ld.shared.f32 %r36, [%r29];
    @%p3 max.f32 %r35, %r35, %r36;
    @%p3 st.shared.f32 [%r27], %r35;
    bar.sync;
    shr.u32 %r28, %r28, 1;
    setp.ne.u32 %p4, %r28, 0;
    @%p4 bra MAXTREE;
    mov.u32 %r29, rs;
    ld.shared.f32 %r37, [%r29];  // mx
    bar.sync;  // everyone has mx before rs is reused
    // ---- p = exp(s - mx) = 2^((s - mx) log2 e)
    sub.f32 %r21, %r21, %r37;
    sub.f32 %r22, %r22, %r37;
    mul.f32 %r21, %r21, 1.4426950408889634;
    mul.f32 %r22, %r22, 1.4426950408889634;
    ex2.f32 %r21, %r21;
    ex2.f32 %r22, %r22;
    shl.b32 %r38, %r0, 3;
    add.u32 %r38, %r38, ps;  // &p[2i]
    st.shared.f32 [%r38], %r21;
    st.shared.f32 [%r38+4], %r22;
    add.f32 %r26, %r21, %r22;
    st.shared.f32 [%r27], %r26;
    bar.sync;
    mov.u32 %r28, 64;
SUMTREE:
    setp.lt.u32 %p3, %r0, %r28;
    shl.b32 %r29, %r28, 2;
    add.u32 %r29, %r29, %r27;
    @%p3 ld.shared.f32 %r35, [%r27];
    @%p3 ld.shared.f32 %r36, [%r29];
    @%p3 add.f32 %r35, %r35, %r36;
    @%p3 st.shared.f32 [%r27], %r35;
    bar.sync;
    shr.u32 %r28, %r28, 1;
    setp.ne.u32 %p4, %r28, 0;
    @%p4 bra SUMTREE;
    mov.u32 %r29, rs;
    ld.shared.f32 %r39, [%r29];  // l
    // ---- O[d] = sum_t p[t] V[t][d] over this block's tokens
    sub.u32 %r44, %r4, %r9;
    min.u32 %r44, %r44, 256;  // tokens in this block
    mov.u32 %r45, %nctaid.x;
    mov.u32 %r46, %nctaid.y;
    mad.u32 %r46, %r3, %r46, %r2;  // b * heads + h
    mad.u32 %r46, %r46, %r45, %r1;  // (b * heads + h) * splits + split
    setp.eq.u32 %p5, %r0, 0;
    @%p5 shl.b32 %r47, %r46, 3;
    ld.param.u32 %r11, [ML];
    @%p5 add.u32 %r47, %r47, %r11;
    @%p5 st.global.f32 [%r47], %r37;  // mx
    @%p5 st.global.f32 [%r47+4], %r39;  // l
    @!%p0 exit;  // threads d >= hd are done
    mul.u32 %r48, %r16, %r4;
    add.u32 %r48, %r48, %r9;
    mul.u32 %r48, %r48, %r5;
    add.u32 %r48, %r48, %r0;
    shl.b32 %r48, %r48, 1;
    ld.param.u32 %r11, [Vc];
    add.u32 %r48, %r48, %r11;  // &V[kvbase][t0][d]
    shl.b32 %r49, %r5, 1;  // hd * 2: the next token
    mov.f32 %r50, 0.0;
    mov.f32 %r51, 0.0;
    mov.u32 %r52, ps;
    mov.u32 %r53, 0;
    mov.u32 %r74, 0;
    mov.u32 %r75, 0;
    mov.u32 %r76, 0;
    mov.u32 %r77, 0;
    mov.u32 %r78, 0;
    mov.u32 %r79, 0;
    mov.u32 %r80, 0;
    mov.u32 %r81, 0;
TLOOP:
    // 8 tokens per trip, all loads in flight first; tokens past the block's count
    // are not loaded (their p is 0 and their register holds a finite old value)
    add.u32 %r59, %r53, 0;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r74, [%r48];
    add.u32 %r48, %r48, %r49;
    add.u32 %r59, %r53, 1;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r75, [%r48];
    add.u32 %r48, %r48, %r49;
    add.u32 %r59, %r53, 2;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r76, [%r48];
    add.u32 %r48, %r48, %r49;
    add.u32 %r59, %r53, 3;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r77, [%r48];
    add.u32 %r48, %r48, %r49;
    add.u32 %r59, %r53, 4;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r78, [%r48];
    add.u32 %r48, %r48, %r49;
    add.u32 %r59, %r53, 5;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r79, [%r48];
    add.u32 %r48, %r48, %r49;
    add.u32 %r59, %r53, 6;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r80, [%r48];
    add.u32 %r48, %r48, %r49;
    add.u32 %r59, %r53, 7;
    setp.lt.u32 %p7, %r59, %r44;
    @%p7 ld.global.f16 %r81, [%r48];
    add.u32 %r48, %r48, %r49;
    ld.shared.v4.f32 {%r60,%r61,%r62,%r63}, [%r52];
    ld.shared.v4.f32 {%r64,%r65,%r66,%r67}, [%r52+16];
    add.u32 %r52, %r52, 32;
    add.u32 %r53, %r53, 8;
    setp.lt.u32 %p6, %r53, %r44;
    cvt.f32.f16 %r74, %r74;
    fma.f32 %r50, %r60, %r74, %r50;
    cvt.f32.f16 %r75, %r75;
    fma.f32 %r51, %r61, %r75, %r51;
    cvt.f32.f16 %r76, %r76;
    fma.f32 %r50, %r62, %r76, %r50;
    cvt.f32.f16 %r77, %r77;
    fma.f32 %r51, %r63, %r77, %r51;
    cvt.f32.f16 %r78, %r78;
    fma.f32 %r50, %r64, %r78, %r50;
    cvt.f32.f16 %r79, %r79;
    fma.f32 %r51, %r65, %r79, %r51;
    cvt.f32.f16 %r80, %r80;
    fma.f32 %r50, %r66, %r80, %r50;
    cvt.f32.f16 %r81, %r81;
    fma.f32 %r51, %r67, %r81, %r51;
    @%p6 bra TLOOP;
    add.f32 %r50, %r50, %r51;
    mul.u32 %r58, %r46, %r5;
    add.u32 %r58, %r58, %r0;
    shl.b32 %r58, %r58, 2;
    ld.param.u32 %r11, [O];
    add.u32 %r58, %r58, %r11;
    st.global.f32 [%r58], %r50;  // O[b][h][split][d]
    exit;
