-- gen_conv_kernels.lua - writes lessons/kernels/conv_igemm.s, the
-- implicit-GEMM convolution, and conv2d_direct_cc.s, the direct
-- convolution as nvcc compiles it, whose unrolled loops are too long to
-- keep consistent by hand. Run from the repository root:
--   build/simtlab run --unsafe scripts/gen_conv_kernels.lua   (or lua5.4 ...)
-- (the generated file is committed; edit this script, not it).

local out = {}
local function emit(s) out[#out + 1] = s end
local function op(text, comment)
  if comment then
    emit(string.format("    %-34s // %s", text, comment))
  else
    emit("    " .. text)
  end
end

local header = [[
// conv_igemm.s - 2-D convolution as an IMPLICIT GEMM, the way cuDNN's and
// CUTLASS's "fprop" kernels do it (CUTLASS: conv::device::
// ImplicitGemmConvolution, Conv2dFprop with the "analytic" iterators; the
// CUDA source it mirrors is the SGEMM mainloop of matmul_reg64 with its
// global loads replaced by im2col address arithmetic):
//   Y[n][k][p][q] = sum over c, r, s of
//       X[n][c][p*stride - pad + r][q*stride - pad + s] * Wt[k][c][r][s]
// (zero padding outside the H x W image).
//
// The GEMM view:   Y[K][N*P*Q] = Wt[K][C*R*S] x cols[C*R*S][N*P*Q]
//   M = N*P*Q output pixels, N_gemm = K filters, K_gemm = C*R*S.
// The matrix cols is the one im2col.s writes to memory. Here it is never
// built: each block computes, for the 64 pixels it owns, where the element
// cols[(c, r, s)][pixel] lives in X (or that it is padding) and loads it
// straight into a shared-memory tile. The reduction runs in the order
// (r, s) outer, c inner, 16 channels per step: for one (r, s) the pixel's
// input position is fixed, so its address and its padding test are
// computed once per (r, s), and the 16 channels are 16 planes of X apart.
//
// Layouts: X and Y are NCHW (as conv2d_direct.s, im2col.s and
//   simt.ref.conv2d, so the three kernels are compared on the same tensors):
//   in NCHW the pixels of one channel are contiguous, so the GEMM's M
//   dimension (pixels) is the coalesced one, for X loads and for Y stores.
//   (Libraries prefer NHWC, where the channels, the reduction dimension,
//   are contiguous and one pixel's 16 channels are one 64-byte load; in
//   NCHW a warp reads 32 neighbouring pixels of one channel, which is just
//   as coalesced at stride 1 and half as efficient at stride 2.)
//   The filter is read as Wr[r][s][c][k] ("RSCK", K contiguous): the
//   weights are constant, so lessons/lib/conv.lua reorders them once on
//   the host, as cuDNN/TensorRT reformat weights when a plan is built.
//
// Params:  X   input,  N x C x H x W floats (NCHW)
//          Wr  filter, R x S x C x K floats (RSCK)
//          Y   output, N x K x P x Q floats (NCHW)
//          N, C, H, W, K, R, S, pad, stride, P, Q  as in conv2d_direct.s.
// Launch:  2-D, block = {16, 16} (exactly: 256 threads),
//          grid = {ceil(N*P*Q / 64), ceil(K / 64)}.
// Mapping: block (bx, by) owns the 64 x 64 output tile of pixels
//          bx*64 .. +63 (flat n*P*Q + p*Q + q) and filters by*64 .. +63.
//          Thread (tx, ty) accumulates the 4 x 4 outputs of filters
//          by*64 + ty + 16i and pixels bx*64 + tx + 16j (i, j = 0..3) in
//          %r16..%r31, acc[i][j] = %r(16 + 4i + j), as in matmul_reg64.s.
//          Each step (one (r, s), channels c0 .. c0+15) the block copies
//            As[16][64]: As[cc][f] = Wr[r][s][c0 + cc][by*64 + f]
//            Bs[16][64]: Bs[cc][m] = X[n][c0 + cc][h0 + r][w0 + s] of pixel
//                        bx*64 + m (0 outside the image, past C, past N*P*Q)
//          thread t = ty*16 + tx copying column t%64, rows t/64 + 4q
//          (q = 0..3) of both, then every thread does 16 x 16 FMAs from
//          shared memory. Steps: R*S*ceil(C/16). Threads outside Y still
//          copy and reach every barrier; only their stores are skipped, so
//          any N, C, H, W, K, R, S, pad, stride work.
// Why it is fast (against conv2d_direct.s and against im2col + GEMM):
//  - it is a register-blocked GEMM: every float staged in shared memory is
//    used by 64 outputs, every value loaded from shared memory by 4 FMAs
//    (8 shared loads feed 16 FMAs); conv2d_direct.s reads both operands
//    from global memory for every FMA;
//  - unlike im2col + GEMM it never writes the R*S-times larger cols matrix
//    to DRAM and reads it back: X (R*S times smaller) is read through the
//    caches, neighbouring (r, s) steps hitting the same lines in L1/L2;
//  - the pixel -> (n, p, q) divisions are done once per thread, not per
//    element, and the per-step address update is a few adds; the (r, s)
//    change every ceil(C/16) steps costs ~15 instructions;
//  - software pipelining: the next step's 8 global loads are issued before
//    this step's 256 FMAs, so their latency hides behind the arithmetic.
// Shared-memory banks: the copy writes 64 consecutive words per tile row;
//   the compute reads As[k][ty + 16i] (2 words per warp: a broadcast) and
//   Bs[k][tx + 16j] (16 consecutive words): no bank conflict.
// The cost: ~60 of the 64 registers, so register count limits occupancy.
// With 32-bit shared loads the LSU (8 loads per 16 FMAs), not the FMA
// pipes, sets the pace: ~31% of the h200's FP32 peak. conv_igemm_v4.s is
// the same algorithm with 128-bit loads and 8 x 8 outputs per thread (~63%).
// (Generated by scripts/gen_conv_kernels.lua: edit that, not this file.)
// Registers: %r0 Xpix (this thread's copy pixel: &X[n][t/64][h0][w0]),
//   %r1 wrs (&Wr[r][s][t/64][kf]), %r2 xcur, %r3 wcur (this step's copy
//   addresses), %r4 tx, %r5 ty, %r6 &As[0][ty], %r7 &Bs[0][tx],
//   %r8 &As[t/64][t%64], %r9 &Bs[t/64][t%64], %r10 c0, %r11 c0 + t/64,
//   %r12 h0, %r13 w0, %r14 r, %r15 s, %r40 t/64, %r42 C, %r45 4 planes of
//   X in bytes, %r46 4 rows of Wr in bytes, %r47 one (r, s) slice of Wr in
//   bytes, %r48..%r55 the prefetched tiles, %r56 H, %r57 W, %r58 R, %r59 S,
//   %r60 16 planes of X in bytes, %r61 16 rows of Wr in bytes.
// Predicates: %p0 copy pixel exists, %p1 copy filter exists, %p3 copy
//   pixel's (r, s) tap is inside the image, %p6 there is a next step.
.kernel conv_igemm
.param X
.param Wr
.param Y
.param N
.param C
.param H
.param W
.param K
.param R
.param S
.param pad
.param stride
.param P
.param Q
.shared As 4096                        // float As[16][64]: filters
.shared Bs 4096                        // float Bs[16][64]: im2col pixels
]]
emit(header:sub(1, -2))

emit("")
emit("    // ---- sizes and this thread's places in the shared tiles")
op("ld.param.u32 %r42, [C];")
op("ld.param.u32 %r56, [H];")
op("ld.param.u32 %r57, [W];")
op("ld.param.u32 %r58, [R];")
op("ld.param.u32 %r59, [S];")
op("mov.u32 %r4, %tid.x;", "tx (0..15)")
op("mov.u32 %r5, %tid.y;", "ty (0..15)")
op("mad.u32 %r41, %r5, 16, %r4;", "t = ty*16 + tx")
op("shr.u32 %r40, %r41, 6;", "t/64: the tile row (channel) this thread copies")
op("shl.b32 %r43, %r5, 2;")
op("add.u32 %r6, %r43, As;", "&As[0][ty]")
op("shl.b32 %r43, %r4, 2;")
op("add.u32 %r7, %r43, Bs;", "&Bs[0][tx]")
op("shl.b32 %r43, %r41, 2;")
op("add.u32 %r8, %r43, As;", "&As[t/64][t%64] (= As + 4t)")
op("add.u32 %r9, %r43, Bs;", "&Bs[t/64][t%64] (= Bs + 4t)")
emit("    // ---- the pixel whose im2col column this thread copies: m = bx*64 + t%64")
op("and.b32 %r43, %r41, 63;")
op("mov.u32 %r44, %ctaid.x;")
op("mad.u32 %r43, %r44, 64, %r43;", "m")
op("ld.param.u32 %r62, [P];")
op("ld.param.u32 %r63, [Q];")
op("mul.u32 %r61, %r62, %r63;", "P*Q")
op("ld.param.u32 %r44, [N];")
op("mul.u32 %r44, %r44, %r61;", "N*P*Q pixels")
op("setp.lt.u32 %p0, %r43, %r44;", "%p0: the pixel exists")
op("div.u32 %r44, %r43, %r61;", "n (once per thread: not in the loop)")
op("rem.u32 %r43, %r43, %r61;", "p*Q + q")
op("div.u32 %r12, %r43, %r63;", "p")
op("rem.u32 %r13, %r43, %r63;", "q")
op("ld.param.u32 %r62, [stride];")
op("ld.param.u32 %r60, [pad];")
op("mul.u32 %r12, %r12, %r62;")
op("sub.s32 %r12, %r12, %r60;", "h0 = p*stride - pad (may be < 0)")
op("mul.u32 %r13, %r13, %r62;")
op("sub.s32 %r13, %r13, %r60;", "w0 = q*stride - pad (may be < 0)")
op("mul.u32 %r45, %r56, %r57;", "H*W: one plane")
op("mad.u32 %r43, %r44, %r42, %r40;", "n*C + t/64")
op("mul.u32 %r43, %r43, %r45;")
op("mad.u32 %r43, %r12, %r57, %r43;", "+ h0*W (mod 2^32: negative is fine)")
op("add.u32 %r43, %r43, %r13;", "+ w0")
op("shl.b32 %r43, %r43, 2;")
op("ld.param.u32 %r0, [X];")
op("add.u32 %r0, %r0, %r43;", "Xpix = &X[n][t/64][h0][w0]")
op("shl.b32 %r60, %r45, 6;", "16 planes in bytes: the channel step")
op("shl.b32 %r45, %r45, 4;", "4 planes in bytes: between the q copies")
emit("    // ---- the filter whose column this thread copies: kf = by*64 + t%64")
op("ld.param.u32 %r62, [K];")
op("and.b32 %r43, %r41, 63;")
op("mov.u32 %r44, %ctaid.y;")
op("mad.u32 %r43, %r44, 64, %r43;", "kf")
op("setp.lt.u32 %p1, %r43, %r62;", "%p1: the filter exists")
op("mad.u32 %r43, %r40, %r62, %r43;", "(t/64)*K + kf")
op("shl.b32 %r43, %r43, 2;")
op("ld.param.u32 %r1, [Wr];")
op("add.u32 %r1, %r1, %r43;", "wrs = &Wr[0][0][t/64][kf]")
op("shl.b32 %r46, %r62, 4;", "4 rows of Wr (4 channels) in bytes")
op("shl.b32 %r61, %r62, 6;", "16 rows of Wr in bytes: the channel step")
op("mul.u32 %r47, %r42, %r62;")
op("shl.b32 %r47, %r47, 2;", "C*K*4: one (r, s) slice of Wr")
emit("    // ---- the first step: (r, s) = (0, 0), c0 = 0")
op("mov.u32 %r10, 0;", "c0")
op("mov.u32 %r11, %r40;", "c0 + t/64")
op("mov.u32 %r14, 0;", "r")
op("mov.u32 %r15, 0;", "s")
op("mov.u32 %r2, %r0;", "xcur = Xpix + (r*W + s)*4 + c0 planes")
op("mov.u32 %r3, %r1;", "wcur = wrs + c0 rows")
op("setp.lt.u32 %p3, %r12, %r56;", "0 <= h0 + r < H (negative is huge as u32)")
op("setp.lt.u32 %p5, %r13, %r57;", "0 <= w0 + s < W")
op("and.pred %p3, %p3, %p5;")
op("and.pred %p3, %p3, %p0;", "%p3: this tap of the pixel is real data")
for i = 16, 31 do op(string.format("mov.f32 %%r%d, 0.0;", i), i == 16 and "acc[i][j] = 0" or nil) end

local function fetch()
  emit("    // the copy of one step into %r48..%r55: A rows t/64 + 4q of Wr,")
  emit("    // B = im2col rows t/64 + 4q (channels c0 + t/64 + 4q) of the pixel")
  for q = 0, 3 do
    if q == 0 then
      op("setp.lt.u32 %p4, %r11, %r42;", "channel c0 + t/64 inside C")
    else
      op(string.format("add.u32 %%r43, %%r11, %d;", 4 * q))
      op("setp.lt.u32 %p4, %r43, %r42;", string.format("channel c0 + t/64 + %d inside C", 4 * q))
    end
    local xa, wa = "%r2", "%r3"
    if q > 0 then
      op(string.format("add.u32 %%r44, %s, %%r45;", q == 1 and "%r2" or "%r44"), "4 planes further")
      op(string.format("add.u32 %%r62, %s, %%r46;", q == 1 and "%r3" or "%r62"), "4 rows of Wr further")
      xa, wa = "%r44", "%r62"
    end
    op("and.pred %p2, %p4, %p3;")
    op(string.format("mov.f32 %%r%d, 0.0;", 52 + q))
    op(string.format("@%%p2 ld.global.f32 %%r%d, [%s];", 52 + q, xa), "X (0 in the padding)")
    op("and.pred %p2, %p4, %p1;")
    op(string.format("mov.f32 %%r%d, 0.0;", 48 + q))
    op(string.format("@%%p2 ld.global.f32 %%r%d, [%s];", 48 + q, wa), "Wr")
  end
end

emit("    // ---- prologue: fetch the first step's tiles")
fetch()
emit("STEP:")
emit("    // As[t/64 + 4q][t%64] = %r(48+q), Bs[t/64 + 4q][t%64] = %r(52+q)")
for q = 0, 3 do op(string.format("st.shared.f32 [%%r8+%d], %%r%d;", 1024 * q, 48 + q)) end
for q = 0, 3 do op(string.format("st.shared.f32 [%%r9+%d], %%r%d;", 1024 * q, 52 + q)) end
op("bar.sync;", "both tiles complete")
emit("    // ---- advance to the next step: 16 channels further, or the next (r, s)")
op("add.u32 %r10, %r10, 16;", "c0 += 16")
op("add.u32 %r11, %r11, 16;")
op("add.u32 %r2, %r2, %r60;", "16 planes of X further")
op("add.u32 %r3, %r3, %r61;", "16 rows of Wr further")
op("setp.lt.u32 %p6, %r10, %r42;", "%p6: more channels at this (r, s)")
op("@%p6 bra FETCH;")
emit("    // the channels of this (r, s) are done: the next tap (s, then r)")
op("mov.u32 %r10, 0;")
op("mov.u32 %r11, %r40;")
op("add.u32 %r1, %r1, %r47;", "next (r, s) slice of Wr")
op("mov.u32 %r3, %r1;")
op("add.u32 %r15, %r15, 1;", "s += 1")
op("setp.lt.u32 %p5, %r15, %r59;")
op("@!%p5 mov.u32 %r15, 0;", "s == S: s = 0, r += 1")
op("@!%p5 add.u32 %r14, %r14, 1;")
op("mad.u32 %r43, %r14, %r57, %r15;", "r*W + s")
op("shl.b32 %r43, %r43, 2;")
op("add.u32 %r2, %r0, %r43;", "xcur = Xpix + (r*W + s)*4")
op("add.u32 %r43, %r12, %r14;")
op("setp.lt.u32 %p3, %r43, %r56;", "0 <= h0 + r < H")
op("add.u32 %r43, %r13, %r15;")
op("setp.lt.u32 %p5, %r43, %r57;", "0 <= w0 + s < W")
op("and.pred %p3, %p3, %p5;")
op("and.pred %p3, %p3, %p0;")
op("setp.lt.u32 %p6, %r14, %r58;", "%p6: r < R, there is a next step")
op("@!%p6 bra COMPUTE;")
emit("FETCH:")
emit("    // the next step's loads are in flight during the FMAs below")
fetch()
emit("COMPUTE:")
emit("    // for k = 0..15: a_i = As[k][ty + 16i] (%r32..35), b_j = Bs[k][tx + 16j]")
emit("    // (%r36..39), acc[i][j] += a_i * b_j: 8 loads, 16 FMAs (unrolled)")
for k = 0, 15 do
  for i = 0, 3 do op(string.format("ld.shared.f32 %%r%d, [%%r6+%d];", 32 + i, 256 * k + 64 * i)) end
  for j = 0, 3 do op(string.format("ld.shared.f32 %%r%d, [%%r7+%d];", 36 + j, 256 * k + 64 * j)) end
  for i = 0, 3 do
    for j = 0, 3 do
      local a = 16 + 4 * i + j
      op(string.format("fma.f32 %%r%d, %%r%d, %%r%d, %%r%d;", a, 32 + i, 36 + j, a))
    end
  end
end
op("bar.sync;", "done reading before the next copy")
op("@%p6 bra STEP;")
emit("    // ---- store: Y[n][k][p][q] for filters k = by*64 + ty + 16i and pixels")
emit("    // m = bx*64 + tx + 16j = n*P*Q + (p*Q + q); %r(56+j) = &Y[n][k0][p][q]")
op("ld.param.u32 %r62, [P];")
op("ld.param.u32 %r63, [Q];")
op("mul.u32 %r61, %r62, %r63;", "P*Q")
op("ld.param.u32 %r62, [N];")
op("mul.u32 %r62, %r62, %r61;", "N*P*Q")
op("ld.param.u32 %r42, [K];")
op("ld.param.u32 %r0, [Y];")
op("shl.b32 %r47, %r61, 2;", "one plane of Y in bytes")
op("shl.b32 %r46, %r47, 4;", "16 planes: between the i rows")
op("mov.u32 %r43, %ctaid.y;")
op("mad.u32 %r40, %r43, 64, %r5;", "k0 = by*64 + ty")
op("mov.u32 %r43, %ctaid.x;")
op("mad.u32 %r41, %r43, 64, %r4;", "m0 = bx*64 + tx")
for j = 0, 3 do
  op(string.format("add.u32 %%r43, %%r41, %d;", 16 * j), string.format("m0 + %d", 16 * j))
  op(string.format("setp.lt.u32 %%p%d, %%r43, %%r62;", 4 + j), "the pixel exists")
  op("div.u32 %r44, %r43, %r61;", "n")
  op("rem.u32 %r45, %r43, %r61;", "p*Q + q")
  op("mad.u32 %r44, %r44, %r42, %r40;", "n*K + k0")
  op("mad.u32 %r44, %r44, %r61, %r45;", "(n*K + k0)*P*Q + p*Q + q")
  op("shl.b32 %r44, %r44, 2;")
  op(string.format("add.u32 %%r%d, %%r0, %%r44;", 56 + j))
end
for i = 0, 3 do
  op(string.format("add.u32 %%r43, %%r40, %d;", 16 * i))
  op("setp.lt.u32 %p1, %r43, %r42;", string.format("filter k0 + %d exists", 16 * i))
  for j = 0, 3 do
    op(string.format("and.pred %%p2, %%p1, %%p%d;", 4 + j))
    op(string.format("@%%p2 st.global.f32 [%%r%d], %%r%d;", 56 + j, 16 + 4 * i + j))
    if i < 3 then op(string.format("add.u32 %%r%d, %%r%d, %%r46;", 56 + j, 56 + j)) end
  end
end
op("exit;")

local function write(name)
  local f = assert(io.open("lessons/kernels/" .. name, "w"))
  f:write(table.concat(out, "\n"), "\n")
  f:close()
  print("wrote lessons/kernels/" .. name .. " (" .. #out .. " lines)")
  out = {}
end
write("conv_igemm.s")

-- ---------------------------------------------------------------------
-- conv2d_direct_cc.s: conv2d_direct.s's CUDA source with R = S = 3 as
-- template parameters, as nvcc -O3 compiles it.
emit([[
// conv2d_direct_cc.s - the direct convolution of conv2d_direct.s (one
// thread per output, NCHW, f32) as nvcc -O3 compiles it when the filter
// size is a compile-time constant, here R = S = 3 (the usual way such code
// is written: template <int R, int S>). The CUDA source:
//   template <int R, int S> __global__ void conv2d_direct(X, Wt, Y, N, C,
//       H, W, K, pad, stride, P, Q) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i >= N*K*P*Q) return;
//     int q = i % Q, p = i / Q % P, k = i / (P*Q) % K, n = i / (K*P*Q);
//     int h0 = p*stride - pad, w0 = q*stride - pad;  float acc = 0.f;
//     for (int c = 0; c < C; c++)
//       #pragma unroll
//       for (int r = 0; r < R; r++)
//         #pragma unroll
//         for (int s = 0; s < S; s++) {
//           int h = h0 + r, w = w0 + s;
//           if (h >= 0 && h < H && w >= 0 && w < W)
//             acc += X[((n*C + c)*H + h)*W + w] * Wt[((k*C + c)*R + r)*S + s];
//         }
//     Y[i] = acc;
//   }
// What the compiler does with it (and conv2d_direct.s, written as the
// loops read, does not):
//  - the r and s loops are unrolled completely: the 9 taps of a channel
//    are 18 loads issued back to back (18 in flight instead of 2), then
//    9 FMAs; the filter taps are one pointer plus immediate offsets
//    [%r+0] .. [%r+32], the input taps three row pointers plus 0, 4, 8;
//  - the padding tests do not depend on c, so they are hoisted out of the
//    c loop: 3 row and 3 column predicates computed once per thread, one
//    and.pred per tap in the loop (a tap outside the image loads nothing
//    and skips its FMA, as the `if` says);
//  - the index arithmetic is strength-reduced: per channel the input and
//    filter pointers advance by one plane (H*W*4) and by 36 bytes;
//  - the div/rem that split i run once per thread, before the loop.
// The result is bit-identical to conv2d_direct.s (same FMAs in the same
// order; the skipped ones add 0).
//
// Params:  as conv2d_direct.s (R and S must be 3: they are still passed,
//          so that the two kernels are launched the same way).
// Launch:  1-D, block = {bx} (e.g. 128), grid = {ceil(N*K*P*Q / bx)}.
// Mapping: as conv2d_direct.s: one thread per output, i the flat NKPQ index.
// Speed:   still one thread per output reading both operands from L1/L2
//          for every FMA (no reuse through shared memory or registers),
//          but with the loads of a whole channel in flight at once the
//          latency is hidden by far fewer warps; the structural cure is the
//          tiled implicit GEMM, conv_igemm.s.
.kernel conv2d_direct_cc
.param X
.param Wt
.param Y
.param N
.param C
.param H
.param W
.param K
.param R
.param S
.param pad
.param stride
.param P
.param Q
]])
out[#out] = out[#out]:gsub("\n$", "")
op("mov.u32 %r0, %ctaid.x;")
op("mov.u32 %r1, %ntid.x;")
op("mov.u32 %r2, %tid.x;")
op("mad.u32 %r0, %r0, %r1, %r2;", "i = ctaid.x * ntid.x + tid.x")
op("ld.param.u32 %r1, [N];")
op("ld.param.u32 %r2, [K];")
op("ld.param.u32 %r3, [P];")
op("ld.param.u32 %r4, [Q];")
op("mul.u32 %r5, %r1, %r2;")
op("mul.u32 %r5, %r5, %r3;")
op("mul.u32 %r5, %r5, %r4;", "N*K*P*Q outputs")
op("setp.ge.u32 %p0, %r0, %r5;")
op("@%p0 exit;", "past the end of Y")
emit("    // split i into (n, k, p, q), once")
op("rem.u32 %r6, %r0, %r4;", "q")
op("div.u32 %r7, %r0, %r4;")
op("rem.u32 %r8, %r7, %r3;", "p")
op("div.u32 %r7, %r7, %r3;")
op("rem.u32 %r9, %r7, %r2;", "k")
op("div.u32 %r10, %r7, %r2;", "n")
op("ld.param.u32 %r11, [stride];")
op("ld.param.u32 %r12, [pad];")
op("mul.u32 %r13, %r8, %r11;")
op("sub.s32 %r13, %r13, %r12;", "h0 = p*stride - pad")
op("mul.u32 %r14, %r6, %r11;")
op("sub.s32 %r14, %r14, %r12;", "w0 = q*stride - pad")
op("ld.param.u32 %r15, [C];")
op("ld.param.u32 %r16, [H];")
op("ld.param.u32 %r17, [W];")
emit("    // the padding tests, hoisted out of the c loop: rows h0 + r (%p1..%p3),")
emit("    // columns w0 + s (%p4..%p6); negative values are huge as u32")
for r = 0, 2 do
  op(string.format("add.u32 %%r18, %%r13, %d;", r))
  op(string.format("setp.lt.u32 %%p%d, %%r18, %%r16;", 1 + r), string.format("0 <= h0 + %d < H", r))
end
for s = 0, 2 do
  op(string.format("add.u32 %%r18, %%r14, %d;", s))
  op(string.format("setp.lt.u32 %%p%d, %%r18, %%r17;", 4 + s), string.format("0 <= w0 + %d < W", s))
end
op("shl.b32 %r19, %r17, 2;", "one image row in bytes: W*4")
op("mul.u32 %r20, %r16, %r19;", "one plane in bytes: H*W*4")
emit("    // %r21 = &X[n][0][h0][w0] (the window's corner, may lie outside),")
emit("    // advanced one plane per c")
op("mul.u32 %r21, %r10, %r15;", "n*C")
op("mad.u32 %r21, %r21, %r16, %r13;", "n*C*H + h0")
op("mad.u32 %r21, %r21, %r17, %r14;", "(n*C*H + h0)*W + w0")
op("shl.b32 %r21, %r21, 2;")
op("ld.param.u32 %r22, [X];")
op("add.u32 %r21, %r21, %r22;")
emit("    // %r23 = &Wt[k][0][0][0], advanced 9 floats (36 bytes) per c")
op("mul.u32 %r23, %r9, %r15;")
op("mul.u32 %r23, %r23, 36;")
op("ld.param.u32 %r22, [Wt];")
op("add.u32 %r23, %r23, %r22;")
op("mov.f32 %r24, 0.0;", "acc")
op("mov.u32 %r25, 0;", "c")
emit("LOOP_C:")
emit("    // the three row pointers of this channel's window")
op("add.u32 %r26, %r21, %r19;", "row h0 + 1")
op("add.u32 %r27, %r26, %r19;", "row h0 + 2")
emit("    // all 18 loads of the channel first (taps outside the image: none)")
local rowp = { "%r21", "%r26", "%r27" }
for r = 0, 2 do
  for s = 0, 2 do
    local t = 3 * r + s
    op(string.format("and.pred %%p7, %%p%d, %%p%d;", 1 + r, 4 + s), string.format("tap (%d, %d) inside the image", r, s))
    op(string.format("@%%p7 ld.global.f32 %%r%d, [%s+%d];", 28 + t, rowp[r + 1], 4 * s), "X[n][c][h0+" .. r .. "][w0+" .. s .. "]")
    op(string.format("@%%p7 ld.global.f32 %%r%d, [%%r23+%d];", 37 + t, 4 * t), "Wt[k][c][" .. r .. "][" .. s .. "]")
  end
end
emit("    // then the 9 FMAs, in the source's (r, s) order")
for r = 0, 2 do
  for s = 0, 2 do
    local t = 3 * r + s
    op(string.format("and.pred %%p7, %%p%d, %%p%d;", 1 + r, 4 + s))
    op(string.format("@%%p7 fma.f32 %%r24, %%r%d, %%r%d, %%r24;", 28 + t, 37 + t))
  end
end
op("add.u32 %r21, %r21, %r20;", "next plane of X")
op("add.u32 %r23, %r23, 36;", "next channel of the filter")
op("add.u32 %r25, %r25, 1;")
op("setp.lt.u32 %p0, %r25, %r15;")
op("@%p0 bra LOOP_C;")
emit("    // Y[i]: i is already the flat NKPQ index")
op("shl.b32 %r18, %r0, 2;")
op("ld.param.u32 %r22, [Y];")
op("add.u32 %r18, %r18, %r22;")
op("st.global.f32 [%r18], %r24;")
op("exit;")
write("conv2d_direct_cc.s")

-- ---------------------------------------------------------------------
-- conv_igemm_v4.s: the implicit GEMM with 128-bit shared loads, 128 x 64
-- tiles and 8 x 8 outputs per thread (needs the vector loads and the 255
-- registers).
local function R(n) return "%r" .. n end
local function vec4(base) return string.format("{%%r%d, %%r%d, %%r%d, %%r%d}", base, base + 1, base + 2, base + 3) end
-- register map
local ACC, FA, FB = 0, 64, 72          -- acc[i][j] = %r(8i+j); fragments a[2][8] at 64 + 16*buf, b at 72 + 16*buf
local PW, PX = 96, 104                 -- prefetch: 8 filter floats, 16 pixel floats
local XPIX, WRS, XCUR, WCUR, C0, CL = 120, 121, 122, 123, 124, 125
local H0, W0, RR, SS = 126, 127, 128, 129
local RC, RH, RW, RR_, RS_ = 130, 131, 132, 133, 134
local HW4, X16, K8, W16, CK4 = 135, 136, 137, 138, 139
local RDA, RDB, STB, STA = 140, 141, 142, 143
local T0, T1, T2, TDIV = 144, 145, 146, 147

emit([[
// conv_igemm_v4.s - the implicit-GEMM convolution of conv_igemm.s, built
// the way a library's FP32 kernel is once the ISA has 128-bit loads and
// 255 registers: cuDNN's / CUTLASS's SIMT implicit-GEMM fprop
// (conv::device::ImplicitGemmConvolution, Conv2dFprop, SIMT, threadblock
// 128 x 64 x 16, 8 x 8 outputs per thread). The CUDA source, in outline:
//   __shared__ float As[16][64], Bs[16][128];   // filters, im2col pixels
//   float acc[8][8] = {0}, a[2][8], b[2][8], pw[8], px[16];
//   pixel m = bx*128 + t: (n, p, q) once; for each (r, s), c0 step 16:
//     px[cc] = inside ? X[n][c0+cc][p*stride-pad+r][q*stride-pad+s] : 0
//     pw[q]  = Wr[r][s][c0 + t/64 + 2q][by*64 + t%64]
//     Bs[cc][t] = px[cc]; As[t/64 + 2q][t%64] = pw[q]; __syncthreads();
//     (issue the next step's px/pw loads)
//     #pragma unroll
//     for (k = 0; k < 16; k++) {  a[] = 2 float4 of As[k], b[] = 2 float4
//       of Bs[k] (for k+1, double-buffered); acc[i][j] += a[i] * b[j]; }
//     __syncthreads();
//   Y[n][f][p][q] = acc (float4 stores when P*Q % 4 == 0)
// Layouts, GEMM view and zero padding as in conv_igemm.s: X, Y NCHW, the
// filter as Wr[r][s][c][k] (reordered once on the host), M = N*P*Q pixels,
// N_gemm = K filters, K_gemm = C*R*S in the order (r, s) outer, c inner.
// (In NCHW four neighbouring pixels of a tap are not 16-byte aligned for
// s = 1, 2, so the global loads of X stay 32-bit, coalesced across the
// warp; in NHWC, the libraries' layout, four channels are one float4.)
//
// Params:  as conv_igemm.s (X, Wr, Y, N, C, H, W, K, R, S, pad, stride, P, Q).
// Launch:  1-D, block = {128} (exactly), grid = {ceil(N*P*Q / 128), ceil(K / 64)}.
// Mapping: block (bx, by) owns pixels bx*128 .. +127 and filters by*64 .. +63.
//          Thread t, warp w = t/32, lane l: tp = (w%2)*8 + l%8 (0..15),
//          tf = (w/2)*4 + l/8 (0..7); it owns the 8 x 8 outputs of
//            filters by*64 + 4tf + {0..3} and + 32 + 4tf + {0..3} (i = 0..7)
//            pixels  bx*128 + 4tp + {0..3} and + 64 + 4tp + {0..3} (j = 0..7)
//          acc[i][j] = %r(8i + j). A warp is a 4 x 8 grid of threads (as in
//          CUTLASS): its a-fragment load reads 4 distinct float4 (64 bytes),
//          its b-fragment load 8 (128 bytes): one shared wavefront each.
//          The copy: thread t loads all 16 channels of pixel bx*128 + t (one
//          address and one padding test per (r, s), then 16 planes apart)
//          and 8 filter floats (filter t%64, channels t/64 + 2q); full
//          16-channel steps skip the channel tests (a uniform branch), only
//          the last step of a tap when C % 16 != 0 makes them.
// Why it is fast:
//  - per k each thread does 64 FMAs with 4 ld.shared.v4 (16 floats): 16
//    FMAs per load instruction (conv_igemm.s: 2), so the LSU, a quarter of
//    the FP32 rate, is no longer the limit: the FMA pipes are;
//  - the next k's fragments are loaded during this k's FMAs, the next
//    step's 24 global loads during this step's 1024 FMAs;
//  - every staged float is used 64 (filters) or 128 (pixels) times;
//  - the im2col matrix is never written: only X, the filter and Y cross
//    DRAM (X again from L2 for the other taps).
// The cost: ~150 registers per thread, 3 blocks (12 warps) per h200 SM;
//   a 128 x 64 tile leaves one image of a small layer few blocks (56 x 56:
//   25 blocks at batch 1 for 132 SMs): the batch fills the machine.
// (Generated by scripts/gen_conv_kernels.lua: edit that, not this file.)
// Registers: %r0-%r63 acc, %r64-%r95 fragments (a then b, 2 buffers),
//   %r96-%r103 filter prefetch, %r104-%r119 pixel prefetch, %r120 Xpix
//   (&X[n][0][h0][w0]), %r121 wrs (&Wr[r][s][t/64][kf]), %r122 xcur,
//   %r123 wcur, %r124 c0, %r125 C - c0, %r126 h0, %r127 w0, %r128 r,
//   %r129 s, %r130-%r134 C H W R S, %r135 one plane of X in bytes,
//   %r136 16 planes, %r137 2 rows of Wr, %r138 16 rows, %r139 one (r, s)
//   slice of Wr, %r140-%r143 shared addresses, %r144-%r147 scratch, t/64
//   (this is the map in the loop; the setup and the stores reuse some of
//   these registers for other values, each commented where it is set).
// Predicates: %p0 copy pixel exists, %p1 copy filter exists, %p3 its tap is
//   inside the image, %p6 there is a next step, %p7 a full 16-channel step.
.kernel conv_igemm_v4
.param X
.param Wr
.param Y
.param N
.param C
.param H
.param W
.param K
.param R
.param S
.param pad
.param stride
.param P
.param Q
.shared As 4096                        // float As[16][64]: filters
.shared Bs 8192                        // float Bs[16][128]: im2col pixels
]])
out[#out] = out[#out]:gsub("\n$", "")
emit("    // ---- sizes, thread coordinates and shared addresses")
op(string.format("ld.param.u32 %s, [C];", R(RC)))
op(string.format("ld.param.u32 %s, [H];", R(RH)))
op(string.format("ld.param.u32 %s, [W];", R(RW)))
op(string.format("ld.param.u32 %s, [R];", R(RR_)))
op(string.format("ld.param.u32 %s, [S];", R(RS_)))
op(string.format("mov.u32 %s, %%tid.x;", R(T0)), "t (0..127)")
op(string.format("shr.u32 %s, %s, 6;", R(TDIV), R(T0)), "t/64: first filter-tile row this thread copies")
op(string.format("shr.u32 %s, %s, 5;", R(T1), R(T0)), "w = t/32")
op(string.format("and.b32 %s, %s, 31;", R(T2), R(T0)), "l = t%32")
op(string.format("and.b32 %s, %s, 1;", R(RDB), R(T1)))
op(string.format("shl.b32 %s, %s, 3;", R(RDB), R(RDB)), "(w%2)*8")
op(string.format("and.b32 %s, %s, 7;", R(RDA), R(T2)))
op(string.format("add.u32 %s, %s, %s;", R(RDB), R(RDB), R(RDA)), "tp = (w%2)*8 + l%8")
op(string.format("shl.b32 %s, %s, 4;", R(RDB), R(RDB)))
op(string.format("add.u32 %s, %s, Bs;", R(RDB), R(RDB)), "rdB = &Bs[0][4tp]")
op(string.format("shr.u32 %s, %s, 1;", R(RDA), R(T1)))
op(string.format("shl.b32 %s, %s, 2;", R(RDA), R(RDA)), "(w/2)*4")
op(string.format("shr.u32 %s, %s, 3;", R(T2), R(T2)))
op(string.format("add.u32 %s, %s, %s;", R(RDA), R(RDA), R(T2)), "tf = (w/2)*4 + l/8")
op(string.format("shl.b32 %s, %s, 4;", R(RDA), R(RDA)))
op(string.format("add.u32 %s, %s, As;", R(RDA), R(RDA)), "rdA = &As[0][4tf]")
op(string.format("shl.b32 %s, %s, 2;", R(T1), R(T0)))
op(string.format("add.u32 %s, %s, Bs;", R(STB), R(T1)), "&Bs[0][t]")
op(string.format("add.u32 %s, %s, As;", R(STA), R(T1)), "&As[t/64][t%64] (= As + 4t)")
emit("    // ---- the pixel this thread copies: m = bx*128 + t")
op(string.format("mov.u32 %s, %%ctaid.x;", R(T1)))
op(string.format("mad.u32 %s, %s, 128, %s;", R(T1), R(T1), R(T0)), "m")
op(string.format("ld.param.u32 %s, [P];", R(T2)))
op(string.format("ld.param.u32 %s, [Q];", R(HW4)))
op(string.format("mul.u32 %s, %s, %s;", R(X16), R(T2), R(HW4)), "P*Q")
op(string.format("ld.param.u32 %s, [N];", R(W16)))
op(string.format("mul.u32 %s, %s, %s;", R(W16), R(W16), R(X16)), "N*P*Q")
op(string.format("setp.lt.u32 %%p0, %s, %s;", R(T1), R(W16)), "%p0: the pixel exists")
op(string.format("div.u32 %s, %s, %s;", R(W16), R(T1), R(X16)), "n (once per thread)")
op(string.format("rem.u32 %s, %s, %s;", R(T1), R(T1), R(X16)), "p*Q + q")
op(string.format("div.u32 %s, %s, %s;", R(H0), R(T1), R(HW4)), "p")
op(string.format("rem.u32 %s, %s, %s;", R(W0), R(T1), R(HW4)), "q")
op(string.format("ld.param.u32 %s, [stride];", R(T1)))
op(string.format("ld.param.u32 %s, [pad];", R(T2)))
op(string.format("mul.u32 %s, %s, %s;", R(H0), R(H0), R(T1)))
op(string.format("sub.s32 %s, %s, %s;", R(H0), R(H0), R(T2)), "h0 = p*stride - pad (may be < 0)")
op(string.format("mul.u32 %s, %s, %s;", R(W0), R(W0), R(T1)))
op(string.format("sub.s32 %s, %s, %s;", R(W0), R(W0), R(T2)), "w0 = q*stride - pad (may be < 0)")
op(string.format("mul.u32 %s, %s, %s;", R(HW4), R(RH), R(RW)), "H*W")
op(string.format("mul.u32 %s, %s, %s;", R(T1), R(W16), R(RC)), "n*C")
op(string.format("mul.u32 %s, %s, %s;", R(T1), R(T1), R(HW4)))
op(string.format("mad.u32 %s, %s, %s, %s;", R(T1), R(H0), R(RW), R(T1)), "+ h0*W (mod 2^32)")
op(string.format("add.u32 %s, %s, %s;", R(T1), R(T1), R(W0)), "+ w0")
op(string.format("shl.b32 %s, %s, 2;", R(T1), R(T1)))
op(string.format("ld.param.u32 %s, [X];", R(XPIX)))
op(string.format("add.u32 %s, %s, %s;", R(XPIX), R(XPIX), R(T1)), "Xpix = &X[n][0][h0][w0]")
op(string.format("shl.b32 %s, %s, 2;", R(HW4), R(HW4)), "one plane in bytes")
op(string.format("shl.b32 %s, %s, 4;", R(X16), R(HW4)), "16 planes: the channel step")
emit("    // ---- the filter this thread copies: kf = by*64 + t%64, channels t/64 + 2q")
op(string.format("ld.param.u32 %s, [K];", R(T2)))
op(string.format("and.b32 %s, %s, 63;", R(T1), R(T0)))
op(string.format("mov.u32 %s, %%ctaid.y;", R(WRS)))
op(string.format("mad.u32 %s, %s, 64, %s;", R(T1), R(WRS), R(T1)), "kf")
op(string.format("setp.lt.u32 %%p1, %s, %s;", R(T1), R(T2)), "%p1: the filter exists")
op(string.format("mad.u32 %s, %s, %s, %s;", R(T1), R(TDIV), R(T2), R(T1)), "(t/64)*K + kf")
op(string.format("shl.b32 %s, %s, 2;", R(T1), R(T1)))
op(string.format("ld.param.u32 %s, [Wr];", R(WRS)))
op(string.format("add.u32 %s, %s, %s;", R(WRS), R(WRS), R(T1)), "wrs = &Wr[0][0][t/64][kf]")
op(string.format("shl.b32 %s, %s, 3;", R(K8), R(T2)), "2 rows of Wr in bytes")
op(string.format("shl.b32 %s, %s, 6;", R(W16), R(T2)), "16 rows: the channel step")
op(string.format("mul.u32 %s, %s, %s;", R(CK4), R(RC), R(T2)))
op(string.format("shl.b32 %s, %s, 2;", R(CK4), R(CK4)), "C*K*4: one (r, s) slice of Wr")
emit("    // ---- the first step: (r, s) = (0, 0), c0 = 0")
op(string.format("mov.u32 %s, 0;", R(C0)), "c0")
op(string.format("mov.u32 %s, %s;", R(CL), R(RC)), "C - c0: channels left at this tap")
op(string.format("mov.u32 %s, 0;", R(RR)), "r")
op(string.format("mov.u32 %s, 0;", R(SS)), "s")
op(string.format("mov.u32 %s, %s;", R(XCUR), R(XPIX)), "xcur = Xpix + (r*W + s)*4 + c0 planes")
op(string.format("mov.u32 %s, %s;", R(WCUR), R(WRS)), "wcur = wrs + c0 rows")
op(string.format("setp.lt.u32 %%p3, %s, %s;", R(H0), R(RH)), "0 <= h0 + r < H (negative is huge as u32)")
op(string.format("setp.lt.u32 %%p5, %s, %s;", R(W0), R(RW)), "0 <= w0 + s < W")
op("and.pred %p3, %p3, %p5;")
op("and.pred %p3, %p3, %p0;", "%p3: this tap of the pixel is real data")
op(string.format("setp.ge.s32 %%p7, %s, 16;", R(CL)), "%p7: 16 channels left (no channel tests)")
for i = 0, 63 do op(string.format("mov.f32 %%r%d, 0.0;", ACC + i), i == 0 and "acc[i][j] = 0" or nil) end

local nfetch = 0
local function fetch_v4()
  nfetch = nfetch + 1
  local tail, done = "TAIL" .. nfetch, "FETCHED" .. nfetch
  emit("    // the copy of one step into registers: 16 channels of the pixel")
  emit("    // (%r104..119) and 8 filter floats (%r96..103)")
  op("@!%p7 bra " .. tail .. ";", "the last, partial step of a tap")
  for cc = 0, 15 do
    local a = cc == 0 and R(XCUR) or R(T0)
    op(string.format("mov.f32 %%r%d, 0.0;", PX + cc))
    op(string.format("@%%p3 ld.global.f32 %%r%d, [%s];", PX + cc, a), string.format("X[n][c0+%d][h0+r][w0+s] (0 in the padding)", cc))
    if cc < 15 then op(string.format("add.u32 %s, %s, %s;", R(T0), a, R(HW4)), "next plane") end
  end
  for q = 0, 7 do
    local a = q == 0 and R(WCUR) or R(T1)
    op(string.format("mov.f32 %%r%d, 0.0;", PW + q))
    op(string.format("@%%p1 ld.global.f32 %%r%d, [%s];", PW + q, a), string.format("Wr[r][s][c0 + t/64 + %d][kf]", 2 * q))
    if q < 7 then op(string.format("add.u32 %s, %s, %s;", R(T1), a, R(K8)), "2 rows further") end
  end
  op("bra " .. done .. ";")
  emit(tail .. ":")
  emit("    // as above, with channel c0 + cc tested against C")
  for cc = 0, 15 do
    local a = cc == 0 and R(XCUR) or R(T0)
    op(string.format("setp.gt.s32 %%p4, %s, %d;", R(CL), cc), string.format("channel c0 + %d < C", cc))
    op("and.pred %p2, %p4, %p3;")
    op(string.format("mov.f32 %%r%d, 0.0;", PX + cc))
    op(string.format("@%%p2 ld.global.f32 %%r%d, [%s];", PX + cc, a))
    if cc < 15 then op(string.format("add.u32 %s, %s, %s;", R(T0), a, R(HW4))) end
  end
  op(string.format("sub.s32 %s, %s, %s;", R(T2), R(CL), R(TDIV)), "channels left after t/64")
  for q = 0, 7 do
    local a = q == 0 and R(WCUR) or R(T1)
    op(string.format("setp.gt.s32 %%p4, %s, %d;", R(T2), 2 * q), string.format("channel c0 + t/64 + %d < C", 2 * q))
    op("and.pred %p2, %p4, %p1;")
    op(string.format("mov.f32 %%r%d, 0.0;", PW + q))
    op(string.format("@%%p2 ld.global.f32 %%r%d, [%s];", PW + q, a))
    if q < 7 then op(string.format("add.u32 %s, %s, %s;", R(T1), a, R(K8))) end
  end
  emit(done .. ":")
end

emit("    // ---- prologue: fetch the first step")
fetch_v4()
emit("STEP:")
emit("    // Bs[cc][t] = pixel channel cc, As[t/64 + 2q][t%64] = filter float q")
for cc = 0, 15 do op(string.format("st.shared.f32 [%s+%d], %%r%d;", R(STB), 512 * cc, PX + cc)) end
for q = 0, 7 do op(string.format("st.shared.f32 [%s+%d], %%r%d;", R(STA), 512 * q, PW + q)) end
op("bar.sync;", "both tiles complete")
emit("    // the k = 0 fragments: a = As[0][4tf..+3], As[0][32+4tf..+3]; b = Bs[0][4tp..], Bs[0][64+4tp..]")
op(string.format("ld.shared.v4.f32 %s, [%s+0];", vec4(FA), R(RDA)))
op(string.format("ld.shared.v4.f32 %s, [%s+128];", vec4(FA + 4), R(RDA)))
op(string.format("ld.shared.v4.f32 %s, [%s+0];", vec4(FB), R(RDB)))
op(string.format("ld.shared.v4.f32 %s, [%s+256];", vec4(FB + 4), R(RDB)))
emit("    // ---- advance: 16 channels further, or the next (r, s)")
op(string.format("add.u32 %s, %s, 16;", R(C0), R(C0)), "c0 += 16")
op(string.format("sub.s32 %s, %s, 16;", R(CL), R(CL)))
op(string.format("add.u32 %s, %s, %s;", R(XCUR), R(XCUR), R(X16)), "16 planes of X further")
op(string.format("add.u32 %s, %s, %s;", R(WCUR), R(WCUR), R(W16)), "16 rows of Wr further")
op(string.format("setp.gt.s32 %%p6, %s, 0;", R(CL)), "%p6: channels left at this (r, s)")
op("@%p6 bra NEXT;")
emit("    // the channels of this tap are done: the next tap (s, then r)")
op(string.format("mov.u32 %s, 0;", R(C0)))
op(string.format("mov.u32 %s, %s;", R(CL), R(RC)))
op(string.format("add.u32 %s, %s, %s;", R(WRS), R(WRS), R(CK4)), "next (r, s) slice of Wr")
op(string.format("mov.u32 %s, %s;", R(WCUR), R(WRS)))
op(string.format("add.u32 %s, %s, 1;", R(SS), R(SS)), "s += 1")
op(string.format("setp.lt.u32 %%p5, %s, %s;", R(SS), R(RS_)))
op(string.format("@!%%p5 mov.u32 %s, 0;", R(SS)), "s == S: s = 0, r += 1")
op(string.format("@!%%p5 add.u32 %s, %s, 1;", R(RR), R(RR)))
op(string.format("mad.u32 %s, %s, %s, %s;", R(T0), R(RR), R(RW), R(SS)), "r*W + s")
op(string.format("shl.b32 %s, %s, 2;", R(T0), R(T0)))
op(string.format("add.u32 %s, %s, %s;", R(XCUR), R(XPIX), R(T0)), "xcur = Xpix + (r*W + s)*4")
op(string.format("add.u32 %s, %s, %s;", R(T0), R(H0), R(RR)))
op(string.format("setp.lt.u32 %%p3, %s, %s;", R(T0), R(RH)), "0 <= h0 + r < H")
op(string.format("add.u32 %s, %s, %s;", R(T0), R(W0), R(SS)))
op(string.format("setp.lt.u32 %%p5, %s, %s;", R(T0), R(RW)), "0 <= w0 + s < W")
op("and.pred %p3, %p3, %p5;")
op("and.pred %p3, %p3, %p0;")
op(string.format("setp.lt.u32 %%p6, %s, %s;", R(RR), R(RR_)), "%p6: r < R, there is a next step")
emit("NEXT:")
op(string.format("setp.ge.s32 %%p7, %s, 16;", R(CL)), "%p7: a full 16-channel step")
op("@!%p6 bra COMPUTE;")
emit("    // the next step's loads are in flight during the FMAs below")
fetch_v4()
emit("COMPUTE:")
emit("    // k = 0..15: load the k+1 fragments (other buffer), then 64 FMAs")
emit("    // acc[i][j] += a[i] * b[j] with the k fragments")
for k = 0, 15 do
  local cur, nxt = (k % 2) * 16, ((k + 1) % 2) * 16
  if k < 15 then
    local k1 = k + 1
    op(string.format("ld.shared.v4.f32 %s, [%s+%d];", vec4(FA + nxt), R(RDA), 256 * k1), "k = " .. k1 .. " fragments")
    op(string.format("ld.shared.v4.f32 %s, [%s+%d];", vec4(FA + nxt + 4), R(RDA), 256 * k1 + 128))
    op(string.format("ld.shared.v4.f32 %s, [%s+%d];", vec4(FB + nxt), R(RDB), 512 * k1))
    op(string.format("ld.shared.v4.f32 %s, [%s+%d];", vec4(FB + nxt + 4), R(RDB), 512 * k1 + 256))
  end
  for i = 0, 7 do
    for j = 0, 7 do
      op(string.format("fma.f32 %%r%d, %%r%d, %%r%d, %%r%d;", ACC + 8 * i + j, FA + cur + i, FB + cur + j, ACC + 8 * i + j),
         (i == 0 and j == 0) and ("k = " .. k) or nil)
    end
  end
end
op("bar.sync;", "done reading before the next copy")
op("@%p6 bra STEP;")
emit("    // ---- store Y[n][f][p][q]: filters f_i = by*64 + 4tf + i (i < 4),")
emit("    // + 32 + 4tf + i - 4 (i >= 4); pixels m_j = bx*128 + 4tp + j, + 64 + 4tp + j - 4")
op(string.format("ld.param.u32 %s, [P];", R(T1)))
op(string.format("ld.param.u32 %s, [Q];", R(T2)))
op(string.format("mul.u32 %s, %s, %s;", R(X16), R(T1), R(T2)), "P*Q")
op(string.format("ld.param.u32 %s, [N];", R(T1)))
op(string.format("mul.u32 %s, %s, %s;", R(W16), R(T1), R(X16)), "N*P*Q")
op(string.format("ld.param.u32 %s, [K];", R(RC)))
op(string.format("ld.param.u32 %s, [Y];", R(XPIX)))
op(string.format("shl.b32 %s, %s, 2;", R(HW4), R(X16)), "one plane of Y in bytes")
op(string.format("sub.u32 %s, %s, As;", R(RDA), R(RDA)))
op(string.format("shr.u32 %s, %s, 2;", R(RDA), R(RDA)), "4tf")
op(string.format("mov.u32 %s, %%ctaid.y;", R(T1)))
op(string.format("mad.u32 %s, %s, 64, %s;", R(RDA), R(T1), R(RDA)), "f0 = by*64 + 4tf")
op(string.format("sub.u32 %s, %s, Bs;", R(RDB), R(RDB)))
op(string.format("shr.u32 %s, %s, 2;", R(RDB), R(RDB)), "4tp")
op(string.format("mov.u32 %s, %%ctaid.x;", R(T1)))
op(string.format("mad.u32 %s, %s, 128, %s;", R(RDB), R(T1), R(RDB)), "m0 = bx*128 + 4tp")
op(string.format("and.b32 %s, %s, 3;", R(T1), R(X16)))
op(string.format("setp.eq.u32 %%p7, %s, 0;", R(T1)), "%p7: P*Q % 4 == 0: float4 stores")
-- the address of pixel m (register mreg) for filter f0: XPIX + ((n*K + f0)*PQ + pq)*4
local function pixaddr(dst, mreg)
  op(string.format("div.u32 %s, %s, %s;", R(T1), mreg, R(X16)), "n")
  op(string.format("rem.u32 %s, %s, %s;", R(T2), mreg, R(X16)), "p*Q + q")
  op(string.format("mad.u32 %s, %s, %s, %s;", R(T1), R(T1), R(RC), R(RDA)), "n*K + f0")
  op(string.format("mad.u32 %s, %s, %s, %s;", R(T1), R(T1), R(X16), R(T2)))
  op(string.format("shl.b32 %s, %s, 2;", R(T1), R(T1)))
  op(string.format("add.u32 %s, %s, %s;", dst, R(XPIX), R(T1)))
end
local function frow(i) return (i < 4) and i or (32 + i - 4) end
op("@!%p7 bra STORE1;")
emit("    // float4 stores: the 4 pixels 4tp.. of a group lie in one image and")
emit("    // exist together (N*P*Q is a multiple of 4); %r148/%r149 = group addresses")
for g = 0, 1 do
  op(string.format("add.u32 %s, %s, %d;", R(T0), R(RDB), 64 * g))
  op(string.format("setp.lt.u32 %%p%d, %s, %s;", 4 + g, R(T0), R(W16)), "the group exists")
  pixaddr(R(148 + g), R(T0))
end
for i = 0, 7 do
  op(string.format("add.u32 %s, %s, %d;", R(T0), R(RDA), frow(i)))
  op(string.format("setp.lt.u32 %%p1, %s, %s;", R(T0), R(RC)), "filter f_" .. i .. " exists")
  op(string.format("mul.u32 %s, %s, %d;", R(T1), R(HW4), frow(i)), "its plane offset")
  for g = 0, 1 do
    op(string.format("and.pred %%p2, %%p1, %%p%d;", 4 + g))
    op(string.format("add.u32 %s, %s, %s;", R(T2), R(148 + g), R(T1)))
    op(string.format("@%%p2 st.global.v4.f32 [%s], %s;", R(T2), vec4(ACC + 8 * i + 4 * g)))
  end
end
op("exit;")
emit("STORE1:")
emit("    // scalar stores, each pixel on its own (P*Q not a multiple of 4)")
for j = 0, 7 do
  local mo = (j < 4) and j or (64 + j - 4)
  op(string.format("add.u32 %s, %s, %d;", R(T0), R(RDB), mo))
  op(string.format("setp.lt.u32 %%p4, %s, %s;", R(T0), R(W16)), "pixel m_" .. j .. " exists")
  pixaddr(R(148), R(T0))
  for i = 0, 7 do
    op(string.format("add.u32 %s, %s, %d;", R(T0), R(RDA), frow(i)))
    op(string.format("setp.lt.u32 %%p1, %s, %s;", R(T0), R(RC)))
    op("and.pred %p2, %p1, %p4;")
    op(string.format("mul.u32 %s, %s, %d;", R(T1), R(HW4), frow(i)))
    op(string.format("add.u32 %s, %s, %s;", R(T2), R(148), R(T1)))
    op(string.format("@%%p2 st.global.f32 [%s], %%r%d;", R(T2), ACC + 8 * i + j))
  end
end
op("exit;")
write("conv_igemm_v4.s")
