// im2col.s - unfold an NCHW image into a column matrix so that a
// convolution becomes one matrix multiply (see lessons/lib/conv.lua):
//   Out[(c*R + r)*S + s][(n*P + p)*Q + q] =
//       X[n][c][p*stride - pad + r][q*stride - pad + s]   (0 outside X)
// Out has C*R*S rows and N*P*Q columns (the ordering of simt.ref.im2col);
// then Y[K][N*P*Q] = Wt[K][C*R*S] x Out (matmul_rect.s).
//
// Params:  X    input, N x C x H x W floats
//          Out  output, (C*R*S) x (N*P*Q) floats
//          N, C, H, W, R, S, pad, stride, P, Q  as in conv2d_direct.s
// Launch:  2-D, block = {bx, by} (e.g. {64, 4}),
//          grid = {ceil(N*P*Q / bx), ceil(C*R*S / by)}.
// Mapping: one thread per element of Out: column = ctaid.x*ntid.x + tid.x,
//          row = ctaid.y*ntid.y + tid.y; threads outside Out exit at once.
//          The row gives (c, r, s), the column gives (n, p, q).
// Speed:   pure data movement (no arithmetic on the data): consecutive
//          threads write consecutive floats of a row (coalesced) and read
//          X with a step of `stride`; Out is R*S times larger than X, the
//          memory price paid for turning convolution into a fast GEMM.
.kernel im2col
.param X
.param Out
.param N
.param C
.param H
.param W
.param R
.param S
.param pad
.param stride
.param P
.param Q

    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.u32 %r0, %r0, %r1, %r2;        // column
    mov.u32 %r1, %ctaid.y;
    mov.u32 %r2, %ntid.y;
    mov.u32 %r3, %tid.y;
    mad.u32 %r1, %r1, %r2, %r3;        // row
    ld.param.u32 %r2, [N];
    ld.param.u32 %r3, [P];
    ld.param.u32 %r4, [Q];
    mul.u32 %r5, %r3, %r4;             // P*Q
    mul.u32 %r6, %r2, %r5;             // columns = N*P*Q
    setp.ge.u32 %p0, %r0, %r6;
    @%p0 exit;                         // right of Out
    ld.param.u32 %r7, [C];
    ld.param.u32 %r8, [R];
    ld.param.u32 %r9, [S];
    mul.u32 %r10, %r8, %r9;            // R*S
    mul.u32 %r11, %r7, %r10;           // rows = C*R*S
    setp.ge.u32 %p0, %r1, %r11;
    @%p0 exit;                         // below Out
    // row -> (c, r, s)
    rem.u32 %r12, %r1, %r9;            // s
    div.u32 %r13, %r1, %r9;
    rem.u32 %r14, %r13, %r8;           // r
    div.u32 %r15, %r13, %r8;           // c
    // column -> (n, p, q)
    rem.u32 %r16, %r0, %r4;            // q
    div.u32 %r17, %r0, %r4;
    rem.u32 %r18, %r17, %r3;           // p
    div.u32 %r19, %r17, %r3;           // n
    // the input position (negative values are huge as u32)
    ld.param.u32 %r20, [stride];
    ld.param.u32 %r21, [pad];
    mul.u32 %r22, %r18, %r20;
    add.u32 %r22, %r22, %r14;
    sub.u32 %r22, %r22, %r21;          // h = p*stride + r - pad
    mul.u32 %r23, %r16, %r20;
    add.u32 %r23, %r23, %r12;
    sub.u32 %r23, %r23, %r21;          // w = q*stride + s - pad
    ld.param.u32 %r24, [H];
    ld.param.u32 %r25, [W];
    setp.lt.u32 %p1, %r22, %r24;       // 0 <= h < H
    setp.lt.u32 %p2, %r23, %r25;       // 0 <= w < W
    and.pred %p1, %p1, %p2;
    // &X[n][c][h][w] = X + (((n*C + c)*H + h)*W + w)*4
    mad.u32 %r26, %r19, %r7, %r15;     // n*C + c
    mad.u32 %r26, %r26, %r24, %r22;    // .. *H + h
    mad.u32 %r26, %r26, %r25, %r23;    // .. *W + w
    shl.b32 %r26, %r26, 2;
    ld.param.u32 %r27, [X];
    add.u32 %r26, %r26, %r27;
    mov.f32 %r28, 0.0;
    @%p1 ld.global.f32 %r28, [%r26];   // 0 in the padding
    // Out[row][column]
    mad.u32 %r29, %r1, %r6, %r0;       // row * columns + column
    shl.b32 %r29, %r29, 2;
    ld.param.u32 %r27, [Out];
    add.u32 %r29, %r29, %r27;
    st.global.f32 [%r29], %r28;
    exit;
