// transpose.s - B = A transposed: B[c][r] = A[r][c] for a row-major f32
// matrix A of R x C (B is C x R).
//
// Params:  A, B  device addresses of R*C floats; R, C  the sizes of A.
// Launch:  2-D, block = {16, 16}, grid = {ceil(C/16), ceil(R/16)}.
// Mapping: thread (tx, ty) of block (bx, by) moves one element:
//            r = by * 16 + ty,  c = bx * 16 + tx,  B[c * R + r] = A[r * C + c]
//          threads outside the matrix do nothing (any R, C >= 1 work).
// Speed:   the loads are coalesced (a warp reads consecutive c), the
//          stores are not (consecutive c are R floats apart in B): the
//          simplest transpose. Used by lessons/lib/dataparallel.lua for
//          the backward pass of a linear layer (X^T and W^T); libraries
//          fold the transpose into the GEMM instead.
.kernel transpose
.param A
.param B
.param R
.param C

    ld.param.u32 %r0, [A];
    ld.param.u32 %r1, [B];
    ld.param.u32 %r2, [R];
    ld.param.u32 %r3, [C];
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, %tid.y;
    mov.u32 %r6, %ctaid.y;
    mad.u32 %r7, %r6, 16, %r5;         // r = by * 16 + ty
    mov.u32 %r6, %ctaid.x;
    mad.u32 %r8, %r6, 16, %r4;         // c = bx * 16 + tx
    setp.lt.u32 %p0, %r7, %r2;         // r < R
    setp.lt.u32 %p1, %r8, %r3;         // c < C
    and.pred %p0, %p0, %p1;
    @!%p0 bra DONE;
    mad.u32 %r9, %r7, %r3, %r8;        // r * C + c
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r0, %r9;
    ld.global.f32 %r10, [%r9];         // A[r][c]
    mad.u32 %r11, %r8, %r2, %r7;       // c * R + r
    shl.b32 %r11, %r11, 2;
    add.u32 %r11, %r1, %r11;
    st.global.f32 [%r11], %r10;        // B[c][r]
DONE:
    exit;
