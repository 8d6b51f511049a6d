#!/usr/bin/env python3
"""gen_tiled_cc.py - writes lessons/kernels/matmul_tiled16_cc.s and
matmul_tiled32_cc.s: the classic shared-memory tiled matmul as nvcc -O3
compiles it (the unrolled inner loop is too long to type). The .s files
are what readers read; this script only saves the typing.
Run: python3 scripts/gen_tiled_cc.py"""
import os, sys

VEC = "--scalar" not in sys.argv   # ld.shared.v4 for the As row (as nvcc emits LDS.128)

def gen(T):
    name = "matmul_tiled%d_cc" % T
    o = []
    def e(s, c=None):
        o.append("    " + s + ";" + ("" if c is None else "  // " + c))
    h = f"""\
// {name}.s - C = A x B for n x n row-major f32 matrices: the classic
// {T} x {T} shared-memory tiled kernel as nvcc -O3 compiles it.
//
// CUDA source (the textbook kernel, e.g. the CUDA C Programming Guide's
// shared-memory matrix multiplication, with bounds checks for any n):
//   #define T {T}
//   __global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {{
//     __shared__ float As[T][T], Bs[T][T];
//     int tx = threadIdx.x, ty = threadIdx.y;
//     int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
//     float acc = 0.0f;
//     for (int t = 0; t < n; t += T) {{
//       As[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
//       Bs[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
//       __syncthreads();
//       #pragma unroll
//       for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
//       __syncthreads();
//     }}
//     if (row < n && col < n) C[row * n + col] = acc;
//   }}
// What the compiler makes of it (and this file does by hand):
//   - the inner loop fully unrolled: every shared address is one base
//     register plus an immediate (As[ty][k] at +4k, Bs[k][tx] at +{4*T}k);
//   - As[ty][k..k+3] read with one 128-bit load (LDS.128{"" if VEC else ", here 4 scalar loads"}):
//     the four floats are contiguous and 16-byte aligned, and every lane
//     of a warp reads the same address (one row ty per warp{" half" if T == 16 else ""}), so
//     it is a broadcast: {T // 4} vector + {T} scalar loads per {T} FMAs;
//   - row < n and col < n tested once, outside the loop; the global
//     pointers strength-reduced (A: +{4*T} bytes, B: +{T} rows per step);
//   - the same FMA order as the source (k ascending, one accumulator):
//     C is bit-identical to matmul_naive.s and matmul_tiled{T}.s
//     {"(tiled32 keeps 4 outputs per thread; this is the textbook 1)" if T == 32 else ""}.
// Params:  A, B, C (device addresses), n (matrix size, any n >= 1).
// Launch:  block = {{{T}, {T}}} (exactly; {T*T} threads), grid = {{ceil(n/{T}), ceil(n/{T})}}.
// Mapping: thread (tx, ty) of block (bx, by) computes C[by*{T}+ty][bx*{T}+tx];
//          every thread loads one element of each tile per step (0 outside
//          the matrices) and reaches every barrier.
.kernel {name}
.param A
.param B
.param C
.param n
.shared As {4*T*T}                        // float As[{T}][{T}]
.shared Bs {4*T*T}                        // float Bs[{T}][{T}]
"""
    e("ld.param.u32 %r0, [A]")
    e("ld.param.u32 %r1, [B]")
    e("ld.param.u32 %r3, [n]")
    o.append("    // row, col and the predicates that do not change in the loop")
    e("mov.u32 %r4, %tid.x", "tx")
    e("mov.u32 %r5, %tid.y", "ty")
    e("mov.u32 %r6, %ctaid.y")
    e(f"mad.u32 %r7, %r6, {T}, %r5", "row")
    e("mov.u32 %r6, %ctaid.x")
    e(f"mad.u32 %r8, %r6, {T}, %r4", "col")
    e("setp.lt.u32 %p0, %r7, %r3", "row < n")
    e("setp.lt.u32 %p1, %r8, %r3", "col < n")
    o.append("    // shared addresses: the stores' &As[ty][tx], &Bs[ty][tx]; the loop's &As[ty][0], &Bs[0][tx]")
    e(f"mul.u32 %r9, %r5, {4*T}", "ty * row bytes")
    e("add.u32 %r9, %r9, As", "&As[ty][0]")
    e("shl.b32 %r10, %r4, 2")
    e("add.u32 %r11, %r9, %r10", "&As[ty][tx]")
    e("add.u32 %r12, %r10, Bs", "&Bs[0][tx]")
    e(f"mad.u32 %r13, %r5, {4*T}, %r12", "&Bs[ty][tx]")
    o.append("    // global pointers for t = 0: &A[row][tx], &B[ty][col]")
    e("mad.u32 %r14, %r7, %r3, %r4")
    e("shl.b32 %r14, %r14, 2")
    e("add.u32 %r14, %r0, %r14")
    e("mad.u32 %r15, %r5, %r3, %r8")
    e("shl.b32 %r15, %r15, 2")
    e("add.u32 %r15, %r1, %r15")
    e(f"mul.u32 %r16, %r3, {4*T}", f"{T} rows of B in bytes")
    e("mov.f32 %r17, 0.0", "acc")
    e("mov.u32 %r18, 0", "t")
    o.append("STEP:")
    o.append("    // this thread's element of each tile (0 outside A / B)")
    e("add.u32 %r19, %r18, %r4")
    e("setp.lt.u32 %p2, %r19, %r3")
    e("and.pred %p2, %p2, %p0", "row < n && t + tx < n")
    e("add.u32 %r19, %r18, %r5")
    e("setp.lt.u32 %p3, %r19, %r3")
    e("and.pred %p3, %p3, %p1", "t + ty < n && col < n")
    e("mov.f32 %r20, 0.0")
    e("mov.f32 %r21, 0.0")
    e("@%p2 ld.global.f32 %r20, [%r14]", "A[row][t + tx]")
    e("@%p3 ld.global.f32 %r21, [%r15]", "B[t + ty][col]")
    e("add.u32 %r14, %r14, " + str(4 * T), "strength-reduced: next step's A")
    e("add.u32 %r15, %r15, %r16", "next step's B")
    e(f"add.u32 %r18, %r18, {T}")
    e("setp.lt.u32 %p4, %r18, %r3", "another step? (compare early)")
    e("st.shared.f32 [%r11], %r20")
    e("st.shared.f32 [%r13], %r21")
    e("bar.sync", "both tiles complete")
    o.append(f"    // acc += As[ty][k] * Bs[k][tx], k = 0..{T-1}, unrolled; As four at a time")
    for k0 in range(0, T, 4):
        if VEC:
            e(f"ld.shared.v4.f32 {{%r24,%r25,%r26,%r27}}, [%r9+{4*k0}]", f"As[ty][{k0}..{k0+3}] (broadcast)")
        else:
            for j in range(4):
                e(f"ld.shared.f32 %r{24+j}, [%r9+{4*(k0+j)}]", f"As[ty][{k0+j}]")
        for j in range(4):
            e(f"ld.shared.f32 %r{28+j}, [%r12+{4*T*(k0+j)}]", f"Bs[{k0+j}][tx]")
        for j in range(4):
            e(f"fma.f32 %r17, %r{24+j}, %r{28+j}, %r17")
    e("bar.sync", "everyone done with the tiles before the next copy")
    e("@%p4 bra STEP")
    o.append("    // C[row][col] = acc where it exists")
    e("and.pred %p5, %p0, %p1")
    e("@!%p5 exit")
    e("ld.param.u32 %r2, [C]")
    e("mad.u32 %r19, %r7, %r3, %r8")
    e("shl.b32 %r19, %r19, 2")
    e("add.u32 %r19, %r2, %r19")
    e("st.global.f32 [%r19], %r17")
    e("exit")
    path = os.path.join(os.path.dirname(__file__), "..", "lessons", "kernels", name + ".s")
    with open(path, "w") as f:
        f.write(h + "\n".join(o) + "\n")
    print("wrote", os.path.normpath(path))

for T in (16, 32):
    gen(T)
