/* isa.h - the simtlab instruction set: one table that every part reads.
 *
 * A PTX-flavoured, register-based ISA. One kernel per source file. Each
 * thread has 255 32-bit registers %r0..%r254 (typed by the instruction, not
 * by the register; NVIDIA allows 255 per thread, CUDA C++ Programming
 * Guide, compute capability table; a preset's max_regs_per_thread may
 * allow fewer, checked at launch) and 8 predicate registers %p0..%p7. A
 * kernel uses registers 0 .. nregs-1 (isa_program_t.nregs: the highest it
 * names, plus 1), which is what occupancy counts. Addresses are 32-bit
 * byte addresses in one of three spaces: global (device memory), shared
 * (per thread block) and param (the kernel's arguments, read-only).
 *
 * Text syntax (full reference with examples: README.md "The ISA"):
 *
 *   // comment            ; comment also accepted
 *   .kernel vecadd        name of the kernel (optional, default: file stem)
 *   .param a              a 32-bit kernel parameter (pointer, int or float
 *   .param n              bits); params are numbered in declaration order
 *   .shared tile 1024     a shared-memory array of 1024 bytes (each array's
 *                         offset is aligned to 16 bytes, in declaration order)
 *   LOOP:                 a label
 *   @%p1  bra LOOP;       predicated instruction (@!%p1 negates)
 *   add.f32 %r1, %r2, 1.5;   the trailing ';' is optional
 *
 * Operands: %rN, %pN, special registers (%tid.x ...), integer immediates
 * (decimal, 0x hex, negative), float immediates (1.5, -2e-3, 0f3F800000
 * for exact bits), a shared symbol name (its byte offset in shared
 * memory), and memory operands [%rN], [%rN+imm], [%rN-imm], [sym],
 * [sym+imm], [imm] (and [param] for ld.param), and for ld/st .v2/.v4 a
 * register vector {%rN, %rN+1[, %rN+2, %rN+3]}.
 *
 * Decisions the assembler (asm*.c) makes, which the executor can rely on:
 *  - Immediates in an f32 context (the instruction type is f32; for cvt the
 *    source type) are stored as float bits: 1.5 -> 0x3FC00000, a decimal
 *    integer 2 -> 2.0f, 0f7F800000 -> those exact bits. A hex integer (0x..)
 *    or a shared symbol there is an error; a float literal in an integer
 *    context is an error. Integer immediates must fit 32 bits
 *    (-2147483648 .. 4294967295) and are stored as their low 32 bits.
 *  - Shared symbols are resolved at assembly time: `mov.u32 %r1, tile` is an
 *    OPD_IMM holding tile's byte offset; [tile+8] is OPD_MEM with index
 *    ISA_NO_REG and imm = offset + 8. [%r2-4] stores imm = (uint32_t)-4, so
 *    the address is always (base + imm) mod 2^32.
 *  - ld.param d, [n]: OPD_MEM, index ISA_NO_REG, imm = 4 * param index.
 *  - bar.sync and bar.sync 0 both give nopd = 0 (only barrier 0 exists).
 *  - `ret` assembles to OP_EXIT; `mul.lo`/`mad.lo` to OP_MUL/OP_MAD;
 *    `bra.uni` to OP_BRA.
 *  - Guards are allowed on every instruction, bar.sync and exit included.
 *  - ld/st .v2/.v4: isa_instr_t.vec = 2 or 4; the vector is OPD_REG with
 *    index = its first register (isa_opd_regs gives its length). An
 *    address without a base register must be aligned to the vector.
 *
 * Vector loads and stores (what nvcc emits for float2 / float4 accesses):
 *
 *   ld.global.v4.f32 {%r4, %r5, %r6, %r7}, [%r1+16];
 *   st.shared.v2.f32 [%r2], {%r8, %r9};
 *
 * ld/st.{global,shared}.{v2,v4}.T with T one of b32 u32 s32 f32: each lane
 * moves 2 or 4 consecutive words between [addr, addr + 4 x vec) and the
 * registers in braces, which must be consecutive ascending (SASS register
 * pairs and quads). addr must be a multiple of 4 x vec (8 or 16): else a
 * kernel fault "misaligned global vector load (.v4) of 16 bytes" naming
 * kernel, pc, thread and address and the alignment needed, as for scalar
 * accesses (whose own size is their alignment). ld.param, atom, wmma and
 * ld/st.cluster have no vector forms. The assembler refuses every other
 * form by name (wrong register count, non-consecutive registers, a narrow
 * or 16-bit type, the suffix in the wrong place, a misaligned constant
 * address).
 * Cost (exec_info_t.bytes = 4 x vec; the memory system takes 1..16 bytes
 * per lane): ONE issued instruction, one request (gld_requests ...). The
 * coalescer groups the lanes' bytes into lines and sectors as for any
 * access, so a warp's .v4 of 512 contiguous bytes is 4 lines and 16
 * sectors, and the LSU takes one line per cycle (the L1's 128-byte data
 * path, memsys.h): 4 cycles, the same LSU time and sectors as 4 scalar
 * loads of the same bytes but a quarter of the instructions and requests.
 * In shared memory the banks serve one word each per cycle: a contiguous
 * .v4 is 128 distinct words, 4 per bank, so 4 wavefronts (a .v2 2); a
 * broadcast .v4 takes 2, because the data path returns 128 bytes (one
 * register of every lane) a cycle and packs equal addresses 2x (lsu.h
 * gives the rule and its sources). The scoreboard makes all the
 * destination registers of a vector load ready at the same cycle, when
 * the last byte has arrived. The kernel checker checks every byte (check.h)
 * and the CPU model times a vector like any SIMD access of its bytes.
 */
#ifndef SIMT_ISA_H
#define SIMT_ISA_H

#include <stddef.h>
#include <stdint.h>

#define ISA_NUM_REGS   255   /* %r0..%r254 per thread (255 is ISA_NO_REG) */
#define ISA_NUM_PREDS  8     /* %p0..%p7 per thread */
#define ISA_REG_WORDS  ((ISA_NUM_REGS + 63) / 64)  /* 64-bit words of an isa_regset_t */
#define ISA_MAX_OPDS   4     /* operands per instruction */
#define ISA_NAME_MAX   64    /* kernel, param, label and symbol names */
#define ISA_MAX_PARAMS 32
#define ISA_NO_REG     0xFF  /* memory operand with no base register */
#define ISA_NO_PC      0xFFFFFFFFu
#define ISA_MAX_CLUSTER 8    /* CTAs per cluster (multicast masks are 8 bits) */

/* Opcodes. Semantics per lane; d = destination, a b c = sources. Integer
 * arithmetic wraps modulo 2^32. Float arithmetic is IEEE binary32 with
 * round-to-nearest-even; denormals are kept (no flush to zero). */
typedef enum isa_op {
    OP_NOP,    /* nop                   does nothing                          */
    OP_MOV,    /* mov.T d, a            d = a                                 */
    OP_ADD,    /* add.T d, a, b         d = a + b          (s32 u32 f32)      */
    OP_SUB,    /* sub.T d, a, b         d = a - b          (s32 u32 f32)      */
    OP_MUL,    /* mul.T d, a, b         d = a * b, low 32 bits for integers   */
    OP_MULHI,  /* mul.hi.T d, a, b      high 32 bits of the 64-bit product    */
    OP_MAD,    /* mad.T d, a, b, c      d = a * b + c (f32: fused, = fma)     */
    OP_FMA,    /* fma.f32 d, a, b, c    d = a * b + c, one rounding           */
    OP_DIV,    /* div.T d, a, b         integer: truncates; x/0 = 0xFFFFFFFF  */
    OP_REM,    /* rem.T d, a, b         C remainder; x%0 = x                  */
    OP_MIN,    /* min.T d, a, b         f32: IEEE minNum (NaN loses)          */
    OP_MAX,    /* max.T d, a, b                                               */
    OP_ABS,    /* abs.T d, a            (s32 f32)                             */
    OP_NEG,    /* neg.T d, a            (s32 f32)                             */
    OP_RCP,    /* rcp.f32 d, a          d = 1/a            (SFU)              */
    OP_SQRT,   /* sqrt.f32 d, a                            (SFU)              */
    OP_RSQRT,  /* rsqrt.f32 d, a        d = 1/sqrt(a)      (SFU)              */
    OP_EX2,    /* ex2.f32 d, a          d = 2^a            (SFU)              */
    OP_LG2,    /* lg2.f32 d, a          d = log2(a)        (SFU)              */
    OP_SIN,    /* sin.f32 d, a          radians            (SFU)              */
    OP_COS,    /* cos.f32 d, a                             (SFU)              */
    OP_AND,    /* and.b32 d, a, b       (also and.pred d, a, b on predicates) */
    OP_OR,     /* or.b32  d, a, b       (also or.pred)                        */
    OP_XOR,    /* xor.b32 d, a, b       (also xor.pred)                       */
    OP_NOT,    /* not.b32 d, a          (also not.pred)                       */
    OP_SHL,    /* shl.b32 d, a, b       shift counts >= 32 give 0             */
    OP_SHR,    /* shr.T d, a, b         u32/b32 logical, s32 arithmetic       */
    OP_SETP,   /* setp.CMP.T p, a, b    p = a CMP b; f32 compares with NaN    */
               /*                       are false except ne                   */
    OP_SELP,   /* selp.T d, a, b, p     d = p ? a : b                         */
    OP_CVT,    /* cvt.D.S d, a          convert type S to D; f32->int rounds  */
               /*                       toward zero and saturates, NaN -> 0   */
    OP_LD,     /* ld.SPACE.T d, [addr]  load 1, 2 or 4 bytes (ld.param: 4);   */
               /* ld.SPACE.vN.T {d..}, [addr]  2 or 4 words (.v2 / .v4)       */
    OP_ST,     /* st.SPACE.T [addr], a  store; st.SPACE.vN.T [addr], {a..}    */
    OP_ATOM,   /* atom.SPACE.AOP.T d, [addr], b   d = old; mem = old AOP b    */
               /*                       lanes apply in lane order             */
    OP_BRA,    /* bra LABEL             jump; may diverge when predicated     */
    OP_BAR,    /* bar.sync [0]          wait for every live thread of block   */
    OP_EXIT,   /* exit                  the thread ends (ret is a synonym)    */
    /* Warp matrix (Tensor Core) instructions: the whole warp works on one
     * 16x16 tile together. See "Warp matrix instructions" below. */
    OP_WMMA_LOAD_A, /* wmma.load.a.SPACE.T d, [addr], stride  A fragment    */
    OP_WMMA_LOAD_B, /* wmma.load.b.SPACE.T d, [addr], stride  B fragment    */
    OP_WMMA_LOAD_C, /* wmma.load.c.SPACE.f32 d, [addr], stride  C fragment  */
    OP_WMMA_MMA,    /* wmma.mma.T d, a, b, c   D = A x B + C (f32 accumulate) */
    OP_WMMA_STORE_D,/* wmma.store.d.SPACE.f32 [addr], d, stride            */
    /* Hopper-style asynchronous instructions: bulk copies into shared
     * memory, barriers in shared memory that wait for them, and Tensor
     * Core MMAs that read their operands from shared memory. See
     * "Asynchronous copies and MMAs" below. */
    OP_MBAR_INIT,   /* mbarrier.init.shared [m], count                      */
    OP_MBAR_ARRIVE, /* mbarrier.arrive.expect_tx.shared [m], bytes          */
    OP_MBAR_WAIT,   /* mbarrier.wait.parity.shared [m], parity              */
    OP_CP_BULK,     /* cp.async.bulk.shared.global.RxB [dst], [src], pitch, [m] */
    OP_WGMMA,       /* wgmma.mma_async.nN.T d, [a], [b], bstride            */
    OP_WGMMA_WAIT,  /* wgmma.wait N                                         */
    /* Thread-block clusters (Hopper): the CTAs of a cluster run at the
     * same time on different SMs and reach each other's mbarriers and
     * shared memory. See "Clusters" below. */
    OP_MBAR_ARRIVE_REMOTE, /* mbarrier.arrive.cluster.shared [m], rank        */
    OP_BAR_CLUSTER, /* barrier.cluster     every thread of every CTA of the cluster */
    OP_CP_BULK_ST,  /* cp.async.bulk.global.shared.RxB [dst], [src], pitch  (TMA store) */
    OP_LD_CLUSTER,  /* ld.cluster.shared.T d, [addr], rank   a peer CTA's shared memory */
    OP_ST_CLUSTER,  /* st.cluster.shared.T [addr], a, rank                              */
    OP_COUNT
} isa_op_t;

/* A set of registers %r0..%r254: bit r % 64 of w[r / 64] (the CPU model's
 * liveness, a warp's "pending write is a load" bits). */
typedef struct isa_regset {
    uint64_t w[ISA_REG_WORDS];
} isa_regset_t;

static inline int isa_regset_has(const isa_regset_t *s, uint32_t r)
{
    return (int)(s->w[r >> 6] >> (r & 63) & 1u);
}

static inline void isa_regset_put(isa_regset_t *s, uint32_t r, int on)
{
    uint64_t b = 1ull << (r & 63);
    s->w[r >> 6] = on ? s->w[r >> 6] | b : s->w[r >> 6] & ~b;
}

/* Operand / access types, written as instruction suffixes. */
typedef enum isa_type {
    T_NONE,
    T_B32, T_U32, T_S32, T_F32,  /* 32-bit register types                  */
    T_U8, T_S8, T_U16, T_S16,    /* narrow memory types (ld/st, cvt)       */
    T_PRED,                      /* and/or/xor/not/mov on predicates       */
    T_F16, T_BF16,               /* 16-bit floats (ld/st: 2 raw bytes, cvt) */
    T_TF32,                      /* TF32 in an f32 container (cvt, wmma)   */
    T_E4M3, T_E5M2,              /* FP8 (ld/st: 1 raw byte, cvt, wmma)     */
    T_COUNT
} isa_type_t;

typedef enum isa_cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_COUNT } isa_cmp_t;

typedef enum isa_space { SPACE_NONE, SPACE_GLOBAL, SPACE_SHARED, SPACE_PARAM, SPACE_COUNT } isa_space_t;

typedef enum isa_atom_op { AOP_NONE, AOP_ADD, AOP_MIN, AOP_MAX, AOP_EXCH, AOP_CAS, AOP_COUNT } isa_atom_op_t;

/* Which function unit an instruction issues to (the timing model reads
 * latency and issue interval per unit from the preset). */
typedef enum isa_unit {
    UNIT_ALU,     /* integer and logic, mov, setp, selp, cvt  */
    UNIT_FMA,     /* FP32 add/mul/fma/min/max                  */
    UNIT_SFU,     /* rcp sqrt rsqrt ex2 lg2 sin cos, div       */
    UNIT_LSU,     /* ld st atom                                */
    UNIT_BRANCH,  /* bra exit nop                              */
    UNIT_BAR,     /* bar.sync                                  */
    UNIT_TENSOR,  /* wmma.mma, wgmma (one Tensor Core per scheduler) */
    UNIT_COUNT
} isa_unit_t;

/* Special registers, read-only, usable as a source operand. */
typedef enum isa_special {
    SR_TID_X, SR_TID_Y, SR_TID_Z,
    SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z,
    SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_SMID, SR_CLOCK,
    SR_CLUSTER_CTARANK,             /* %cluster_ctarank: 0..size-1 in the cluster */
    SR_CLUSTER_NCTARANK,            /* %cluster_nctarank: CTAs in the cluster     */
    SR_CLUSTERID_X, SR_CLUSTERID_Y, SR_CLUSTERID_Z,            /* %clusterid.x   */
    SR_CLUSTER_NCTAID_X, SR_CLUSTER_NCTAID_Y, SR_CLUSTER_NCTAID_Z, /* cluster shape */
    SR_COUNT
} isa_special_t;

typedef enum isa_opd_kind {
    OPD_NONE,
    OPD_REG,      /* %rN: index = N                                          */
    OPD_PRED,     /* %pN: index = N                                          */
    OPD_IMM,      /* immediate: imm holds the 32 bits (int or float bits)    */
    OPD_SPECIAL,  /* %tid.x etc: index = isa_special_t                       */
    OPD_MEM,      /* [base + imm]: index = base register or ISA_NO_REG       */
    OPD_LABEL     /* branch target: imm = target pc                          */
} isa_opd_kind_t;

/* Operand layout in isa_instr_t.opd[] (as written in the source):
 *   most ops     d, a [, b [, c]]      d OPD_REG; sources OPD_REG, OPD_IMM
 *                                      or OPD_SPECIAL
 *   .pred forms  and/or/xor/not/mov.pred: every operand is OPD_PRED
 *   setp         p, a, b               opd[0] is OPD_PRED
 *   selp         d, a, b, p            opd[3] is OPD_PRED
 *   cvt          d, a                  a is read as stype, d written as type
 *   ld           d, [addr]             opd[1] OPD_MEM
 *   st           [addr], a             opd[0] OPD_MEM (no destination)
 *   ld/st .vN    {d..}, [addr] / [addr], {a..}   as ld / st, the vector an
 *                                      OPD_REG (its first register); vec = N
 *   atom         d, [addr], b          cas: d, [addr], b, c with b = compare
 *                                      value, c = new value (stored if
 *                                      old == b); nopd = 4
 *   bra          LABEL                 opd[0] OPD_LABEL, imm = target pc
 *   nop, exit, bar.sync                nopd = 0
 *   wmma.load.X       d, [addr], stride   opd[0] OPD_REG (first register of
 *                                      the fragment), opd[1] OPD_MEM, opd[2]
 *                                      OPD_REG or OPD_IMM (u32)
 *   wmma.mma          d, a, b, c       four OPD_REG, each the first register
 *                                      of a range (see below)
 *   wmma.store.d      [addr], d, stride
 *   mbarrier.*        [m], value       opd[0] OPD_MEM (shared), opd[1]
 *                                      OPD_REG or OPD_IMM (u32)
 *   cp.async.bulk     [dst], [src], pitch, [m]   opd[0] OPD_MEM (shared),
 *                                      opd[1] OPD_MEM (global), opd[2] REG
 *                                      or IMM, opd[3] OPD_MEM (shared);
 *                                      shape[0] = rows, shape[1] = row
 *                                      bytes / 16
 *   wgmma.mma_async   d, [a], [b], bstride   opd[0] OPD_REG (first of N/2
 *                                      accumulator registers, read and
 *                                      written), opd[1..2] OPD_MEM (shared),
 *                                      opd[3] REG or IMM; shape[0] = N
 *   wgmma.wait        N                opd[0] OPD_IMM
 *   mbarrier.arrive.cluster [m], rank  as mbarrier.* (rank: REG or IMM < 8)
 *   cp.async.bulk...multicast          as cp.async.bulk; the 5th operand,
 *                                      the CTA mask, is in ctamask
 *   barrier.cluster                    nopd = 0
 *   ld.cluster.shared.T d, [addr], rank   opd[1] OPD_MEM, opd[2] REG or IMM
 *   st.cluster.shared.T [addr], a, rank   opd[0] OPD_MEM, opd[2] REG or IMM
 *   cp.async.bulk.global.shared.RxB [dst], [src], pitch   opd[0] OPD_MEM
 *                                      (global), opd[1] OPD_MEM (shared),
 *                                      opd[2] REG or IMM; shape as above
 * nopd == has_dst + nsrc of the table entry, except atom.cas (one more).
 * The table (isa_opinfo_t.opd) says this layout operand by operand, as
 * roles; isa_instr_roles applies the variants (.pred, .vN, atom.cas). */

/* What an instruction does with the operand at one position. */
typedef enum isa_role {
    ROLE_NONE,      /* no operand here                                        */
    ROLE_DST,       /* %r written (.pred forms: a %p)                         */
    ROLE_PDST,      /* %p written (setp)                                      */
    ROLE_SRC,       /* read as the instruction's type (cvt: its source type):
                       %r, special, immediate or shared symbol (.pred: a %p)  */
    ROLE_USRC,      /* an integer read as u32 whatever the type: a stride,
                       count, byte count, rank, pitch, parity or N            */
    ROLE_PSRC,      /* %p read (selp's selector)                              */
    ROLE_MEM,       /* [address] in the instruction's state space             */
    ROLE_GMEM,      /* [address] in global memory (a bulk copy's far side)    */
    ROLE_MBAR,      /* [address] of an mbarrier in shared memory (8 bytes)    */
    ROLE_LABEL,     /* branch target                                          */
    ROLE_FRAG_DST,  /* first %r of a register range written: a wmma fragment,
                       wgmma's accumulator (which it also reads)              */
    ROLE_FRAG,      /* first %r of a register range read: a wmma fragment     */
    ROLE_VEC,       /* {%rN, %rN+1, ...}: the data of ld/st .v2 / .v4         */
    ROLE_COUNT
} isa_role_t;

/* One operand of the table: its role and the name signatures show. */
typedef struct isa_opd_desc {
    uint8_t role;       /* isa_role_t                                     */
    const char *name;   /* "d", "addr", "stride" ... ("[addr]" in a signature) */
} isa_opd_desc_t;

/* Number formats (numfmt.h). Registers hold them as bit patterns:
 *   cvt.f16.f32 d, a    round a to FP16 (nearest even, overflow -> inf) and
 *                       store the 16-bit pattern zero-extended in d; same
 *                       for .bf16; .e4m3/.e5m2 round with satfinite (+-448,
 *                       +-57344 instead of overflow; NaN stays NaN)
 *   cvt.tf32.f32 d, a   round a to TF32 (nearest even), stored as f32 bits
 *                       with the low 13 mantissa bits zero
 *   cvt.f32.f16 d, a    decode the low 16 bits of a exactly (also bf16,
 *                       tf32, e4m3, e5m2); cvt between two narrow formats
 *                       goes through f32
 *   ld/st.SPACE.f16     move 2 raw bytes (bf16 too), .e4m3/.e5m2 1 byte,
 *                       .tf32 4 bytes; no conversion, loads zero-extend
 *
 * Warp matrix instructions (Tensor Cores). The 32 lanes of a warp hold one
 * matrix "fragment" between them; every lane must be active (a guard or a
 * divergent path that leaves lanes out is a kernel fault), and the address
 * and stride are read from the lowest lane. Shapes, by input type T:
 *   f16, bf16    m16n16k16   A 16x16, B 16x16   2 elements per register
 *   tf32         m16n16k8    A 16x8,  B 8x16    1 element per register
 *   e4m3, e5m2   m16n16k32   A 16x32, B 32x16   4 elements per register
 * C and D are 16x16 f32 in every case. A and B fragments are 512 bytes,
 * 16 bytes per lane = 4 registers; C and D are 1024 bytes = 8 registers.
 * A register operand of a wmma instruction names the FIRST register of a
 * consecutive range (%r8 for an A fragment means %r8..%r11); the range
 * must end at or below %r63, and nregs counts all of it.
 *
 * Fragment layout (simtlab's own, simpler than NVIDIA's undocumented
 * one): number the R x C fragment's elements row-major, e = row * C + col.
 * With E = R*C/32 elements per lane, element e lives in lane e / E, slot
 * e % E; slot s sits in register s / (4 / bytes) at bit 8 * bytes *
 * (s % (4 / bytes)) (little-endian, like memory). So each lane holds E
 * consecutive elements of one row, and a load or store is one 16-byte
 * access per lane (two for C/D) at addr + (row * stride + col) * bytes.
 * stride is in elements and every matrix is row-major; each lane's
 * address must be a multiple of 16 (so addr and stride * bytes too).
 *
 * wmma.mma.T d, a, b, c computes D = A x B + C. Order (documented, tested):
 * each input element is decoded exactly to f32; then for every (i, j),
 * acc = C[i][j] and for k = 0, 1, ..., K-1 in ascending order
 * acc = fmaf(A[i][k], B[k][j], acc) (the product of two inputs is exact in
 * f32, so each step rounds once, to nearest even); D[i][j] = acc. Real
 * Tensor Cores add several products at once in a wider internal format
 * and round (or truncate) differently, so their low bits differ; the
 * error sizes shown in lessons are the same order.
 *
 * Asynchronous copies and MMAs (the way Hopper GEMMs feed Tensor Cores).
 * A thread block stages tiles of A and B in shared memory with bulk copies
 * (like TMA), waits for them on an mbarrier, and runs wgmma on them while
 * the copies of the next tiles are in flight (lessons/kernels/
 * tc_gemm_async_*.s).
 *
 *   mbarrier.init.shared [m], count
 *       m is an mbarrier: 8 bytes of shared memory (8-byte aligned) that
 *       the block uses only through mbarrier instructions. Its state
 *       (phase, pending arrivals, pending transaction bytes) is kept by
 *       the SM beside shared memory, keyed by the address (at most
 *       SM_MAX_MBARS = 16 per block); an ld/st of those bytes does not see
 *       it. Starts phase 0 expecting `count` (1..65535) arrivals. Use
 *       bar.sync after it before other warps touch the barrier.
 *   mbarrier.arrive.expect_tx.shared [m], bytes
 *       One arrival (per WARP executing it, not per thread: simtlab's
 *       simplification) that also expects `bytes` more bytes from bulk
 *       copies in this phase (0 allowed). The phase completes when all
 *       `count` arrivals came and all expected bytes arrived (a copy may
 *       land before its arrival); the next phase then starts with the same
 *       count. More arrivals than `count` in a phase are a kernel fault.
 *   mbarrier.wait.parity.shared [m], parity
 *       The warp waits until the phase with this parity (0 or 1: phase
 *       number & 1) has completed, i.e. until the barrier's current phase
 *       parity differs from `parity` (so waiting for parity 1 before
 *       anything happened returns at once, as in PTX). It resumes at the
 *       cycle the phase's last byte (or last arrival) came. A launch whose
 *       remaining warps all wait for phases nothing can complete stops with
 *       a "stuck" report.
 *   cp.async.bulk.shared.global.RxB [dst], [src], pitch, [m]
 *       A 2-D bulk copy, like a TMA box: R rows (1..255) of B bytes (16..
 *       4080, a multiple of 16) from global src + r * pitch to shared
 *       dst + r * B (rows packed), then "complete_tx" of R * B bytes on
 *       mbarrier m. dst, src and pitch must be multiples of 16. Executed
 *       once per warp with the lowest active lane's operands (guard it so
 *       that one warp issues it); no lane active: nothing. Functionally the
 *       data moves at issue (like every load here); the timing model sends
 *       its sectors from L2/DRAM through the SM's copy engine (not L1, not
 *       the LSU; memsys.h) and the bytes arrive when the last sector does.
 *   wgmma.mma_async.nN.T d, [a], [b], bstride
 *       Accumulate D += A x B on the Tensor Core with both inputs read from
 *       shared memory: A is 16 x K, 16 rows of 32 bytes packed (512 bytes
 *       at a; K = 16 for f16/bf16, 8 for tf32, 32 for e4m3/e5m2), B is K x
 *       N, row-major, rows bstride bytes apart starting at b (a, b and
 *       bstride multiples of 16). N = 8..128, a multiple of 8. D is 16 x N
 *       f32 in the N/2 registers d..d+N/2-1: element e = row * N + col
 *       lives in register d + e / 32 of lane e % 32, so each register
 *       holds 32 consecutive elements of a row (one coalesced 128-byte
 *       st.global.f32 when N is a multiple of 32). Products and sums in
 *       the order of wmma.mma (acc = D[i][j], fmaf over k ascending), so
 *       results equal a chain of wmma.mma over the same k. Every lane must
 *       be active.
 *       Real wgmma is issued by a warpgroup (4 consecutive warps, m64):
 *       here each warp issues its own 16 rows (simpler, and the same work
 *       per Tensor Core), and warps 4g..4g+3 of a block (a warpgroup) that
 *       issue their i-th wgmma share one read of B, as the hardware
 *       broadcasts it to the four Tensor Cores. Timing: it issues at once;
 *       its operand reads take the SM's shared-memory pipe (128 bytes a
 *       cycle, shared with ld/st.shared; counted in sld_bytes and
 *       wavefronts); the scheduler's Tensor Core runs it at the full
 *       tc_flops_per_clk rate (not the mma.sync rate) once the operands
 *       are read, after the wgmmas queued before it. D's registers are busy
 *       (scoreboard) until it finishes, except for the next wgmma into the
 *       same D, which queues behind it on the Tensor Core.
 *   wgmma.wait N
 *       Wait until at most N (0..7) of this warp's wgmma.mma_async are
 *       still running: before shared memory they read is overwritten (the
 *       data was read at issue, but the timing must say when).
 *   cp.async.bulk.global.shared.RxB [dst], [src], pitch
 *       The other direction (a TMA store, as Hopper GEMM epilogues use):
 *       R rows of B bytes from shared src + r * B (rows packed) to global
 *       dst + r * pitch, by the lowest active lane, alignment and limits as
 *       above. The data moves at issue, so the shared memory may be reused
 *       at once; the timing model sends its sectors through the SM's copy
 *       engine to their L2 slices (one line per cycle, like a bulk copy's
 *       reads: the warp does not wait for L2 to accept them, unlike st,
 *       whose LSU waits for each line), and the launch lasts until the
 *       last sector is accepted. No mbarrier: nothing in the kernel waits
 *       for it (PTX's bulk_group wait_group is not modelled).
 * The kernel checker sees a bulk copy as stores to shared memory (and
 * reads of global), a bulk store as shared reads and global stores, and
 * wgmma as shared reads; see check.h.
 *
 * Clusters (Hopper's thread-block clusters; lessons/kernels/
 * tc_gemm_cluster_*.s). A launch with cluster = {cx, cy, cz} groups the
 * grid into clusters of cx x cy x cz CTAs (the grid must be a multiple;
 * at most max_cluster_size CTAs, 8 on Hopper presets, 1 = none on the
 * others). The CTAs of a cluster are placed at the same time on distinct
 * SMs and reach each other's mbarriers and shared memory. A CTA's rank is
 * x + cx * (y + cy * z) of its place (ctaid % cluster shape) in the
 * cluster. In a launch without clusters every CTA is a cluster of one
 * (rank 0), as in CUDA.
 *
 *   %cluster_ctarank, %cluster_nctarank    this CTA's rank, CTAs per cluster
 *   %clusterid.{x,y,z}                      the cluster's index (ctaid / shape)
 *   %cluster_nctaid.{x,y,z}                 the cluster's shape
 *   mbarrier.arrive.cluster.shared [m], rank
 *       One arrival (no transaction bytes) on the mbarrier at shared offset
 *       m in CTA `rank` of the cluster (its own rank allowed). It lands
 *       lat_cluster cycles later (the SM-to-SM network; an estimate, see
 *       the preset). PTX writes this as mapa (the peer's address) +
 *       mbarrier.arrive.release.cluster.shared::cluster; simtlab names the
 *       peer by its rank instead. The peer must have initialised that
 *       mbarrier (order it with barrier.cluster).
 *   cp.async.bulk.shared.global.multicast.RxB [dst], [src], pitch, [m], ctamask
 *       The bulk copy above, read from L2 once and written into the shared
 *       memory of every CTA whose rank bit is set in ctamask (an immediate
 *       1..255; the issuing CTA need not be one of them), at the same
 *       offset dst, completing R * B transaction bytes on the mbarrier at
 *       offset m in each of them, all at the time the last byte arrives
 *       (the copy engine of the issuing SM is busy once). ctamask is kept
 *       in isa_instr_t.ctamask (0: a plain copy).
 *   barrier.cluster
 *       Arrive and wait: the warp waits until every warp of every CTA of
 *       the cluster that has not exited has arrived; all resume
 *       lat_cluster cycles after the last arrival. Every thread of the warp
 *       must take part (as bar.sync). Use it after initialising mbarriers
 *       that peers will use, and before exiting when peers may still write
 *       into this CTA. In a launch without clusters it is bar.sync.
 *   ld.cluster.shared.T d, [addr], rank     (T: b32 u32 s32 f32)
 *   st.cluster.shared.T [addr], a, rank
 *       Distributed shared memory: each lane loads / stores 4 bytes at
 *       shared offset addr of CTA `rank` (its own value per lane; its own
 *       rank allowed) of the cluster. PTX writes mapa + ld.shared::cluster.
 *       Timing: a load's data arrives lat_cluster cycles after issue when
 *       any lane reads another CTA (lat_smem when all read their own); a
 *       store is fire-and-forget. Their bandwidth on the SM-to-SM network
 *       and the peer's banks is not modelled, and the kernel checker does
 *       not check them (what st.cluster writes counts as initialised).
 * Faults (kernel, pc, thread and address): a rank or mask bit outside the
 * cluster, a peer that has exited, a peer's mbarrier not initialised, a
 * misaligned or out-of-bounds ld/st.cluster address.
 * Not modelled: atomics on a peer's shared memory, clusters confined to a
 * GPC (gpu.c), multicast traffic on the SM-to-SM network (a multicast
 * costs the issuing SM's copy engine and L2 once, nothing on the
 * receivers). */

typedef struct isa_operand {
    uint8_t kind;     /* isa_opd_kind_t                                   */
    uint8_t index;    /* register / predicate / special index              */
    uint32_t imm;     /* immediate bits, memory offset, or label pc        */
} isa_operand_t;

typedef struct isa_instr {
    uint8_t op;        /* isa_op_t                                        */
    uint8_t type;      /* isa_type_t: main type (cvt: destination type)   */
    uint8_t stype;     /* isa_type_t: cvt source type, else T_NONE        */
    uint8_t cmp;       /* isa_cmp_t for setp                              */
    uint8_t space;     /* isa_space_t for ld/st/atom                      */
    uint8_t aop;       /* isa_atom_op_t for atom                          */
    uint8_t guard;     /* guard predicate index, or ISA_NO_REG for none   */
    uint8_t guard_neg; /* 1: execute where the guard predicate is false   */
    uint8_t nopd;      /* operands used in opd[]                          */
    uint8_t shape[2];  /* cp.async.bulk: rows, row bytes / 16; wgmma: N   */
    uint8_t ctamask;   /* cp.async.bulk.multicast: the CTA ranks of the
                          cluster it writes into (bit r = rank r; 0: a
                          plain copy into the issuing CTA only)           */
    uint8_t vec;       /* ld/st .v2/.v4: registers per lane (2 or 4; the
                          access is 4 x vec bytes); 0 for a scalar access */
    isa_operand_t opd[ISA_MAX_OPDS]; /* opd[0] is the destination if any */
    uint32_t reconv;   /* bra: reconvergence pc (immediate post-dominator
                          of the branch), ISA_NO_PC when none (exit)      */
    uint32_t line;     /* source line (1-based) for reports               */
    uint32_t col;      /* source column (1-based) of the mnemonic         */
} isa_instr_t;

typedef struct isa_symbol {
    char name[ISA_NAME_MAX];
    uint32_t value;    /* label: pc; shared: byte offset; param: index    */
    uint32_t size;     /* shared: bytes; else 0                           */
} isa_symbol_t;

/* An assembled kernel. Owned by the caller; release with isa_program_free. */
typedef struct isa_program {
    char name[ISA_NAME_MAX];       /* kernel name                            */
    char file[256];                /* source path, for error reports         */
    isa_instr_t *code;             /* ncode instructions                     */
    uint32_t ncode;
    uint32_t nregs;                /* highest %r used + 1 (occupancy)        */
    uint32_t npreds;               /* highest %p used + 1                    */
    uint32_t nparams;
    char params[ISA_MAX_PARAMS][ISA_NAME_MAX]; /* parameter names in order  */
    uint32_t shared_bytes;         /* static shared memory per block         */
    isa_symbol_t *shared;          /* nshared shared arrays                  */
    uint32_t nshared;
    isa_symbol_t *labels;          /* nlabels labels (for disassembly)       */
    uint32_t nlabels;
} isa_program_t;

/* Static description of one opcode: the assembler, disassembler,
 * executor and timing model all read this one table. `unit` is the unit
 * of the f32 form for opcodes that also have integer forms (add sub mul
 * mad min max abs neg: UNIT_FMA); their integer forms run on UNIT_ALU.
 * isa_instr_unit() gives the unit of one concrete instruction. div and rem
 * (all types) are UNIT_SFU. `types` has bit T_NONE for opcodes written
 * without a type suffix (nop bra bar.sync exit); for cvt it applies to both
 * types; ld.param and atom narrow it further (asm_mnem.c type_mask). */
typedef struct isa_opinfo {
    /* 128 bytes (a power of two): the simulator reads isa_ops[op] for every
     * instruction it executes, and a shift indexes it in one instruction
     * where the 96 bytes of the fields took two (callgrind: +0.03%) */
    _Alignas(128) const char *name;   /* mnemonic, e.g. "fma"             */
    uint8_t unit;       /* isa_unit_t                                     */
    uint8_t nsrc;       /* source operands (the roles of opd[] after the
                           destination; exec reads this count)            */
    uint8_t has_dst;    /* 1 if opd[0] is written (a DST, PDST or FRAG_DST
                           role; the SM's scoreboard reads this)          */
    uint32_t types;     /* bit mask (1u << isa_type_t) of allowed types   */
    const char *doc;    /* one line: what it does and what it costs       */
    uint8_t async;      /* 1: its effects are timed by the SM's
                           asynchronous machinery (mbarriers, bulk copies,
                           wgmma, clusters: sm_async.c), not by the
                           unit latency or the load path                  */
    uint8_t f32_flops;  /* FLOP per active lane of its .f32 form (fma 2,
                           add/mul/rcp... 1, mov/abs/neg 0); the Tensor
                           Core counts come from isa_mma_flops           */
    uint8_t spaces;     /* bit mask (1u << isa_space_t) of the state spaces
                           its ROLE_MEM / ROLE_MBAR operands are in: one bit
                           when fixed (mbarrier, wgmma, cp.async.bulk,
                           ld/st.cluster: shared), several when a suffix
                           chooses (ld: .global .shared .param); 0: none  */
    uint8_t mem_align;  /* bytes every address known at assembly (no base
                           register) of its ROLE_MEM / ROLE_GMEM operands
                           must be a multiple of (bulk copies and wgmma:
                           16); 0: checked per access at run time         */
    isa_opd_desc_t opd[ISA_MAX_OPDS]; /* the operands in source order, of
                           the plain form: not .pred, not .vN, not cas    */
} isa_opinfo_t;

extern const isa_opinfo_t isa_ops[OP_COUNT];

const char *isa_type_name(isa_type_t t);      /* "f32", or "" for T_NONE   */
const char *isa_cmp_name(isa_cmp_t c);        /* "lt"                      */
const char *isa_space_name(isa_space_t s);    /* "global"                  */
const char *isa_aop_name(isa_atom_op_t a);    /* "add"                     */
const char *isa_special_name(isa_special_t s);/* "%tid.x"                  */
unsigned isa_type_bytes(isa_type_t t);        /* 1, 2 or 4 (0: none, pred) */

/* Which fragment of a warp matrix operation. */
typedef enum isa_frag { FRAG_A, FRAG_B, FRAG_C } isa_frag_t;  /* C also means D */

/* Rows and columns of fragment f for input type t (f16 bf16 tf32 e4m3
 * e5m2; FRAG_C ignores t: 16x16 f32), and the registers per lane it
 * takes (4 for A and B, 8 for C/D). 0 for a type without wmma. */
unsigned isa_frag_rows(isa_frag_t f, isa_type_t t);
unsigned isa_frag_cols(isa_frag_t f, isa_type_t t);
unsigned isa_frag_regs(isa_frag_t f, isa_type_t t);
/* Registers operand i of instruction in covers: the fragment's length for
 * a wmma register operand, the vector's (2 or 4) for the data of ld/st
 * .v2/.v4, else 1. */
unsigned isa_opd_regs(const isa_instr_t *in, int i);
/* Floating-point operations of one wmma.mma.T: 2 x 16 x 16 x K. */
uint32_t isa_mma_flops(isa_type_t t);
/* K of one wgmma.mma_async.T (32 bytes of A per row: 16, 8 or 32; 0 for a
 * type without Tensor Cores) and its flops, 2 x 16 x N x K. */
unsigned isa_wgmma_k(isa_type_t t);
uint32_t isa_wgmma_flops(isa_type_t t, unsigned n);

/* The unit one instruction issues to: the table's unit, except that the
 * integer forms of FMA-unit opcodes (add.s32, min.u32 ...) use UNIT_ALU. */
isa_unit_t isa_instr_unit(const isa_instr_t *in);

/* The roles of in's operands (from in->op, type, vec and aop): the
 * table's, with a .pred type making DST/SRC predicates, .v2/.v4 making
 * ld's destination or st's data a ROLE_VEC, and atom.cas reading one
 * more source. Returns how many (the operand count the source needs). */
int isa_instr_roles(const isa_instr_t *in, isa_role_t roles[ISA_MAX_OPDS]);

/* How in's operands are written, for messages: "d, [addr], b",
 * "{d0, d1, d2, d3}, [addr]" (the same variants). Returns the length the
 * full text needs, like snprintf. */
int isa_signature(const isa_instr_t *in, char *buf, size_t n);

/* 1 if the program text names in's state space as a suffix (the table
 * allows it several: ld st atom wmma.load wmma.store). */
int isa_space_written(isa_op_t op);

/* Release everything an isa_program_t owns (not the struct itself). */
void isa_program_free(isa_program_t *p);

#endif
