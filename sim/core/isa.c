/* isa.c - the opcode table and the small name helpers of isa.h.
 *
 * The table below is the single description of every opcode: the
 * assembler checks type suffixes, state spaces and every operand against
 * it, the disassembler prints from it, and the timing model reads `unit`.
 *
 * Each entry: name, unit, sources, writes a destination, allowed types, one
 * line of what it does and costs, then (when not 0) `async` and the FLOP
 * per lane of the f32 form, which the timing model, the statistics and the
 * window read from here; then `.spaces` (the state spaces of its memory
 * operands), `.mem_align` and `.opd`: its operands in source order, each a
 * role (R(DST, "d"): a register written, shown as "d" in messages; see
 * isa_role_t in isa.h). sources and destination are the roles counted
 * (tests/unit/test_isa.c checks that they agree).
 *
 * About `unit`: some opcodes exist both as integer and as f32 instructions
 * (add, sub, mul, mad, min, max, abs, neg). The table gives the unit of the
 * f32 form (UNIT_FMA); the integer forms run on the integer ALU. Use
 * isa_instr_unit() to get the unit of one concrete instruction.
 */
#include "isa.h"

#include <stdio.h>
#include <stdlib.h>

/* Type masks, one bit per isa_type_t. */
#define TM(t) (1u << (t))
#define TM_NONE  TM(T_NONE)
#define TM_INT   (TM(T_U32) | TM(T_S32))
#define TM_ARITH (TM(T_U32) | TM(T_S32) | TM(T_F32))
#define TM_BITS  (TM(T_B32) | TM(T_U32) | TM(T_S32))
#define TM_REG   (TM(T_B32) | TM(T_U32) | TM(T_S32) | TM(T_F32))
#define TM_F32   TM(T_F32)
#define TM_NARROW (TM(T_U8) | TM(T_S8) | TM(T_U16) | TM(T_S16))
/* the number formats of numfmt.h, as register bit patterns */
#define TM_FMT   (TM(T_F16) | TM(T_BF16) | TM(T_TF32) | TM(T_E4M3) | TM(T_E5M2))

/* State-space masks, one bit per isa_space_t. */
#define SP_S     (1u << SPACE_SHARED)
#define SP_GS    ((1u << SPACE_GLOBAL) | SP_S)
#define SP_GSP   (SP_GS | (1u << SPACE_PARAM))

/* One operand: its role (ROLE_DST ...) and the name signatures show. */
#define R(role, name) { ROLE_##role, name }

const isa_opinfo_t isa_ops[OP_COUNT] = {
    /* name      unit         nsrc dst types */
    [OP_NOP]   = {"nop",    UNIT_BRANCH, 0, 0, TM_NONE,
                  "does nothing; takes one issue slot"},
    [OP_MOV]   = {"mov",    UNIT_ALU,    1, 1, TM_REG | TM(T_PRED),
                  "d = a (register, immediate, special register or shared symbol); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_ADD]   = {"add",    UNIT_FMA,    2, 1, TM_ARITH,
                  "d = a + b; f32 on the FP32 (FMA) pipe, integers on the ALU", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_SUB]   = {"sub",    UNIT_FMA,    2, 1, TM_ARITH,
                  "d = a - b; f32 on the FP32 (FMA) pipe, integers on the ALU", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_MUL]   = {"mul",    UNIT_FMA,    2, 1, TM_ARITH,
                  "d = a * b (integers: low 32 bits); f32 on the FMA pipe", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_MULHI] = {"mul.hi", UNIT_ALU,    2, 1, TM_INT,
                  "d = high 32 bits of the 64-bit product a * b; integer ALU",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_MAD]   = {"mad",    UNIT_FMA,    3, 1, TM_ARITH,
                  "d = a * b + c (f32: fused, same as fma); f32 on the FMA pipe", 0, 2,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b"), R(SRC, "c") }},
    [OP_FMA]   = {"fma",    UNIT_FMA,    3, 1, TM_F32,
                  "d = a * b + c with one rounding; 2 flops on the FMA pipe", 0, 2,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b"), R(SRC, "c") }},
    [OP_DIV]   = {"div",    UNIT_SFU,    2, 1, TM_ARITH,
                  "d = a / b (integers truncate, x/0 = 0xFFFFFFFF); slow, SFU", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_REM]   = {"rem",    UNIT_SFU,    2, 1, TM_INT,
                  "d = a % b as in C (x%0 = x); costs like div, SFU",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_MIN]   = {"min",    UNIT_FMA,    2, 1, TM_ARITH,
                  "d = smaller of a, b (f32: NaN loses); f32 on the FMA pipe", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_MAX]   = {"max",    UNIT_FMA,    2, 1, TM_ARITH,
                  "d = larger of a, b (f32: NaN loses); f32 on the FMA pipe", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_ABS]   = {"abs",    UNIT_FMA,    1, 1, TM(T_S32) | TM_F32,
                  "d = |a|; f32 on the FMA pipe, s32 on the ALU",
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_NEG]   = {"neg",    UNIT_FMA,    1, 1, TM(T_S32) | TM_F32,
                  "d = -a; f32 on the FMA pipe, s32 on the ALU",
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_RCP]   = {"rcp",    UNIT_SFU,    1, 1, TM_F32,
                  "d = 1/a; special function unit (few lanes, long latency)", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_SQRT]  = {"sqrt",   UNIT_SFU,    1, 1, TM_F32,
                  "d = sqrt(a); special function unit", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_RSQRT] = {"rsqrt",  UNIT_SFU,    1, 1, TM_F32,
                  "d = 1/sqrt(a); special function unit", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_EX2]   = {"ex2",    UNIT_SFU,    1, 1, TM_F32,
                  "d = 2^a; special function unit", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_LG2]   = {"lg2",    UNIT_SFU,    1, 1, TM_F32,
                  "d = log2(a); special function unit", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_SIN]   = {"sin",    UNIT_SFU,    1, 1, TM_F32,
                  "d = sin(a), a in radians; special function unit", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_COS]   = {"cos",    UNIT_SFU,    1, 1, TM_F32,
                  "d = cos(a), a in radians; special function unit", 0, 1,
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_AND]   = {"and",    UNIT_ALU,    2, 1, TM_BITS | TM(T_PRED),
                  "d = a & b (bitwise, or logical on predicates); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_OR]    = {"or",     UNIT_ALU,    2, 1, TM_BITS | TM(T_PRED),
                  "d = a | b (bitwise, or logical on predicates); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_XOR]   = {"xor",    UNIT_ALU,    2, 1, TM_BITS | TM(T_PRED),
                  "d = a ^ b (bitwise, or logical on predicates); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_NOT]   = {"not",    UNIT_ALU,    1, 1, TM_BITS | TM(T_PRED),
                  "d = ~a (bitwise, or logical on predicates); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_SHL]   = {"shl",    UNIT_ALU,    2, 1, TM_BITS,
                  "d = a << b (counts >= 32 give 0); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_SHR]   = {"shr",    UNIT_ALU,    2, 1, TM_BITS,
                  "d = a >> b (s32 arithmetic, else logical); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b") }},
    [OP_SETP]  = {"setp",   UNIT_ALU,    2, 1, TM_REG,
                  "p = a CMP b, writes a predicate; 1 ALU op",
                  .opd = { R(PDST, "p"), R(SRC, "a"), R(SRC, "b") }},
    [OP_SELP]  = {"selp",   UNIT_ALU,    3, 1, TM_REG,
                  "d = p ? a : b (p is the last operand); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a"), R(SRC, "b"), R(PSRC, "p") }},
    [OP_CVT]   = {"cvt",    UNIT_ALU,    1, 1, TM_ARITH | TM_NARROW | TM_FMT,
                  "convert a from the second type to the first (f16..e5m2: round "
                  "to nearest even, bit pattern in the register); 1 ALU op",
                  .opd = { R(DST, "d"), R(SRC, "a") }},
    [OP_LD]    = {"ld",     UNIT_LSU,    1, 1, TM_REG | TM_NARROW | TM_FMT,
                  "d = memory[addr] (.v2/.v4: 2 or 4 registers {d..}); load/store unit, latency from L1/L2/DRAM",
                  .spaces = SP_GSP, .opd = { R(DST, "d"), R(MEM, "addr") }},
    [OP_ST]    = {"st",     UNIT_LSU,    2, 0, TM_REG | TM_NARROW | TM_FMT,
                  "memory[addr] = a (.v2/.v4: 2 or 4 registers {a..}); load/store unit",
                  .spaces = SP_GS, .opd = { R(MEM, "addr"), R(SRC, "a") }},
    [OP_ATOM]  = {"atom",   UNIT_LSU,    2, 1, TM_REG,
                  "d = old memory[addr], then memory = old AOP b (cas: 3 sources); LSU",
                  .spaces = SP_GS, .opd = { R(DST, "d"), R(MEM, "addr"), R(SRC, "b") }},
    [OP_BRA]   = {"bra",    UNIT_BRANCH, 1, 0, TM_NONE,
                  "jump to a label; lanes may diverge when predicated",
                  .opd = { R(LABEL, "LABEL") }},
    [OP_BAR]   = {"bar.sync", UNIT_BAR,  0, 0, TM_NONE,
                  "wait until every live thread of the block arrives"},
    [OP_EXIT]  = {"exit",   UNIT_BRANCH, 0, 0, TM_NONE,
                  "the thread ends (ret is a synonym)"},
    [OP_WMMA_LOAD_A]  = {"wmma.load.a", UNIT_LSU, 2, 1, TM_FMT,
                  "the warp loads a 16xK A fragment (16 bytes per lane); load/store unit",
                  .spaces = SP_GS, .opd = { R(FRAG_DST, "d"), R(MEM, "addr"), R(USRC, "stride") }},
    [OP_WMMA_LOAD_B]  = {"wmma.load.b", UNIT_LSU, 2, 1, TM_FMT,
                  "the warp loads a Kx16 B fragment (16 bytes per lane); load/store unit",
                  .spaces = SP_GS, .opd = { R(FRAG_DST, "d"), R(MEM, "addr"), R(USRC, "stride") }},
    [OP_WMMA_LOAD_C]  = {"wmma.load.c", UNIT_LSU, 2, 1, TM_F32,
                  "the warp loads a 16x16 f32 C fragment (32 bytes per lane); load/store unit",
                  .spaces = SP_GS, .opd = { R(FRAG_DST, "d"), R(MEM, "addr"), R(USRC, "stride") }},
    [OP_WMMA_MMA]     = {"wmma.mma",    UNIT_TENSOR, 3, 1, TM_FMT,
                  "D = A x B + C for a 16x16 tile, f32 accumulate; Tensor Core, "
                  "2x16x16xK flops at the preset's per-precision rate",
                  .opd = { R(FRAG_DST, "d"), R(FRAG, "a"), R(FRAG, "b"), R(FRAG, "c") }},
    [OP_WMMA_STORE_D] = {"wmma.store.d", UNIT_LSU, 3, 0, TM_F32,
                  "the warp stores a 16x16 f32 D fragment (32 bytes per lane); load/store unit",
                  .spaces = SP_GS, .opd = { R(MEM, "addr"), R(FRAG, "d"), R(USRC, "stride") }},
    [OP_MBAR_INIT]    = {"mbarrier.init", UNIT_LSU, 2, 0, TM_NONE,
                  "set up an mbarrier in shared memory expecting `count` warp arrivals per phase", 1, 0,
                  .spaces = SP_S, .opd = { R(MBAR, "mbar"), R(USRC, "count") }},
    [OP_MBAR_ARRIVE]  = {"mbarrier.arrive.expect_tx", UNIT_LSU, 2, 0, TM_NONE,
                  "one arrival on an mbarrier, expecting `bytes` more from bulk copies", 1, 0,
                  .spaces = SP_S, .opd = { R(MBAR, "mbar"), R(USRC, "bytes") }},
    [OP_MBAR_WAIT]    = {"mbarrier.wait.parity", UNIT_LSU, 2, 0, TM_NONE,
                  "the warp waits until the mbarrier's phase of this parity has completed", 1, 0,
                  .spaces = SP_S, .opd = { R(MBAR, "mbar"), R(USRC, "parity") }},
    [OP_CP_BULK]      = {"cp.async.bulk", UNIT_LSU, 4, 0, TM_NONE,
                  "one warp copies an R x B-byte box from global to shared memory in the "
                  "background (TMA); completes its bytes on an mbarrier", 1, 0,
                  .spaces = SP_S, .mem_align = 16, .opd = { R(MEM, "dst"), R(GMEM, "src"), R(USRC, "pitch"), R(MBAR, "mbar") }},
    [OP_WGMMA]        = {"wgmma.mma_async", UNIT_TENSOR, 3, 1, TM_FMT,
                  "D(16xN, f32) += A(16xK) x B(KxN), A and B read from shared memory; "
                  "asynchronous, Tensor Core at the full rate", 1, 0,
                  .spaces = SP_S, .mem_align = 16, .opd = { R(FRAG_DST, "d"), R(MEM, "a"), R(MEM, "b"), R(USRC, "bstride") }},
    [OP_WGMMA_WAIT]   = {"wgmma.wait", UNIT_BRANCH, 1, 0, TM_NONE,
                  "wait until at most N of this warp's wgmma.mma_async are still running", 1, 0,
                  .opd = { R(USRC, "N") }},
    [OP_MBAR_ARRIVE_REMOTE] = {"mbarrier.arrive.cluster", UNIT_LSU, 2, 0, TM_NONE,
                  "one arrival on the mbarrier at the same shared offset in CTA `rank` of the "
                  "cluster (it may be this one); lands lat_cluster cycles later", 1, 0,
                  .spaces = SP_S, .opd = { R(MBAR, "mbar"), R(USRC, "rank") }},
    [OP_CP_BULK_ST]   = {"cp.async.bulk.global.shared", UNIT_LSU, 3, 0, TM_NONE,
                  "one warp copies an R x B-byte box from shared to global memory in the "
                  "background (TMA store); the warp does not wait for L2", 1, 0,
                  .spaces = SP_S, .mem_align = 16, .opd = { R(GMEM, "dst"), R(MEM, "src"), R(USRC, "pitch") }},
    [OP_LD_CLUSTER]   = {"ld.cluster", UNIT_LSU, 2, 1, TM_REG,
                  "each lane loads 4 bytes of the shared memory of CTA `rank` of the cluster "
                  "(distributed shared memory); lat_cluster cycles from a peer", 1, 0,
                  .spaces = SP_S, .opd = { R(DST, "d"), R(MEM, "addr"), R(USRC, "rank") }},
    [OP_ST_CLUSTER]   = {"st.cluster", UNIT_LSU, 3, 0, TM_REG,
                  "each lane stores 4 bytes into the shared memory of CTA `rank` of the cluster", 1, 0,
                  .spaces = SP_S, .opd = { R(MEM, "addr"), R(SRC, "a"), R(USRC, "rank") }},
    [OP_BAR_CLUSTER]  = {"barrier.cluster", UNIT_BAR, 0, 0, TM_NONE,
                  "wait until every thread of every CTA of the cluster arrives (released "
                  "lat_cluster cycles after the last)", 1, 0},
};

static const char *const type_names[T_COUNT] = {
    "", "b32", "u32", "s32", "f32", "u8", "s8", "u16", "s16", "pred",
    "f16", "bf16", "tf32", "e4m3", "e5m2"
};
static const unsigned type_bytes[T_COUNT] = { 0, 4, 4, 4, 4, 1, 1, 2, 2, 0, 2, 2, 4, 1, 1 };
static const char *const cmp_names[CMP_COUNT] = { "eq", "ne", "lt", "le", "gt", "ge" };
static const char *const space_names[SPACE_COUNT] = { "", "global", "shared", "param" };
static const char *const aop_names[AOP_COUNT] = { "", "add", "min", "max", "exch", "cas" };
static const char *const special_names[SR_COUNT] = {
    "%tid.x", "%tid.y", "%tid.z",
    "%ntid.x", "%ntid.y", "%ntid.z",
    "%ctaid.x", "%ctaid.y", "%ctaid.z",
    "%nctaid.x", "%nctaid.y", "%nctaid.z",
    "%laneid", "%warpid", "%smid", "%clock",
    "%cluster_ctarank", "%cluster_nctarank",
    "%clusterid.x", "%clusterid.y", "%clusterid.z",
    "%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z"
};

const char *isa_type_name(isa_type_t t)
{
    return (unsigned)t < T_COUNT ? type_names[t] : "?";
}

const char *isa_cmp_name(isa_cmp_t c)
{
    return (unsigned)c < CMP_COUNT ? cmp_names[c] : "?";
}

const char *isa_space_name(isa_space_t s)
{
    return (unsigned)s < SPACE_COUNT ? space_names[s] : "?";
}

const char *isa_aop_name(isa_atom_op_t a)
{
    return (unsigned)a < AOP_COUNT ? aop_names[a] : "?";
}

const char *isa_special_name(isa_special_t s)
{
    return (unsigned)s < SR_COUNT ? special_names[s] : "?";
}

unsigned isa_type_bytes(isa_type_t t)
{
    return (unsigned)t < T_COUNT ? type_bytes[t] : 0;
}

/* K of the m16n16kK shape for input type t, 0 if t has no wmma. */
static unsigned mma_k(isa_type_t t)
{
    switch (t) {
    case T_F16: case T_BF16: return 16;
    case T_TF32: return 8;
    case T_E4M3: case T_E5M2: return 32;
    default: return 0;
    }
}

unsigned isa_frag_rows(isa_frag_t f, isa_type_t t)
{
    if (f == FRAG_C) return 16;
    if (mma_k(t) == 0) return 0;
    return f == FRAG_A ? 16 : mma_k(t);
}

unsigned isa_frag_cols(isa_frag_t f, isa_type_t t)
{
    if (f == FRAG_C) return 16;
    if (mma_k(t) == 0) return 0;
    return f == FRAG_A ? mma_k(t) : 16;
}

/* bytes of the fragment / 32 lanes / 4 bytes per register */
unsigned isa_frag_regs(isa_frag_t f, isa_type_t t)
{
    unsigned esize = f == FRAG_C ? 4 : isa_type_bytes(t);
    return isa_frag_rows(f, t) * isa_frag_cols(f, t) * esize / (32 * 4);
}

uint32_t isa_mma_flops(isa_type_t t)
{
    return 2u * 16u * 16u * mma_k(t);
}

unsigned isa_wgmma_k(isa_type_t t)
{
    unsigned b = isa_type_bytes(t);
    return mma_k(t) && b ? 32u / b : 0;
}

uint32_t isa_wgmma_flops(isa_type_t t, unsigned n)
{
    return 2u * 16u * n * isa_wgmma_k(t);
}

unsigned isa_opd_regs(const isa_instr_t *in, int i)
{
    isa_type_t t = (isa_type_t)in->type;
    if (in->opd[i].kind != OPD_REG)
        return 1;
    switch (in->op) {
    case OP_WMMA_LOAD_A: return i == 0 ? isa_frag_regs(FRAG_A, t) : 1;
    case OP_WMMA_LOAD_B: return i == 0 ? isa_frag_regs(FRAG_B, t) : 1;
    case OP_WMMA_LOAD_C: return i == 0 ? isa_frag_regs(FRAG_C, t) : 1;
    case OP_WMMA_STORE_D: return i == 1 ? isa_frag_regs(FRAG_C, t) : 1;
    case OP_WMMA_MMA:
        return i == 1 ? isa_frag_regs(FRAG_A, t) : i == 2 ? isa_frag_regs(FRAG_B, t)
             : isa_frag_regs(FRAG_C, t);
    case OP_WGMMA: return i == 0 ? in->shape[0] / 2u : 1;
    case OP_LD: return i == 0 && in->vec ? in->vec : 1;
    case OP_ST: return i == 1 && in->vec ? in->vec : 1;
    default: return 1;
    }
}

/* The table gives the f32 unit for opcodes that have integer forms too;
 * an integer add/sub/mul/mad/min/max/abs/neg runs on the integer ALU. A
 * kernel's arguments come from the constant bank, so ld.param is an ALU
 * operand read, not a trip through the load/store unit. The timing (sm.c),
 * the CPU model and the window all ask here. */
isa_unit_t isa_instr_unit(const isa_instr_t *in)
{
    isa_unit_t u = (isa_unit_t)isa_ops[in->op].unit;
    if (u == UNIT_FMA && in->type != T_F32)
        return UNIT_ALU;
    if (in->op == OP_LD && in->space == SPACE_PARAM)
        return UNIT_ALU;
    return u;
}

int isa_instr_roles(const isa_instr_t *in, isa_role_t roles[ISA_MAX_OPDS])
{
    const isa_opinfo_t *info = &isa_ops[in->op];
    int n = 0;
    for (; n < ISA_MAX_OPDS && info->opd[n].role != ROLE_NONE; n++) {
        isa_role_t r = (isa_role_t)info->opd[n].role;
        if (in->type == T_PRED)   /* and/or/xor/not/mov.pred */
            r = r == ROLE_DST ? ROLE_PDST : r == ROLE_SRC ? ROLE_PSRC : r;
        if (in->vec && ((in->op == OP_LD && r == ROLE_DST) || (in->op == OP_ST && r == ROLE_SRC)))
            r = ROLE_VEC;
        roles[n] = r;
    }
    if (in->op == OP_ATOM && in->aop == AOP_CAS && n < ISA_MAX_OPDS)
        roles[n++] = ROLE_SRC;   /* c, the value stored when old == b */
    return n;
}

int isa_signature(const isa_instr_t *in, char *buf, size_t n)
{
    isa_role_t roles[ISA_MAX_OPDS];
    int k = isa_instr_roles(in, roles), len = 0;
    if (buf && n > 0)
        buf[0] = '\0';
    for (int i = 0; i < k; i++) {
        const char *name = isa_ops[in->op].opd[i].name ? isa_ops[in->op].opd[i].name
                                                       : "c";   /* atom.cas */
        const char *sep = i ? ", " : "";
        size_t used = (size_t)len < n ? (size_t)len : n;
        char *at = buf ? buf + used : NULL;
        size_t room = buf ? n - used : 0;
        if (roles[i] == ROLE_MEM || roles[i] == ROLE_GMEM || roles[i] == ROLE_MBAR)
            len += snprintf(at, room, "%s[%s]", sep, name);
        else if (roles[i] == ROLE_VEC && in->vec == 4)
            len += snprintf(at, room, "%s{%s0, %s1, %s2, %s3}", sep, name, name, name, name);
        else if (roles[i] == ROLE_VEC)
            len += snprintf(at, room, "%s{%s0, %s1}", sep, name, name);
        else
            len += snprintf(at, room, "%s%s", sep, name);
    }
    return len;
}

int isa_space_written(isa_op_t op)
{
    unsigned sp = isa_ops[op].spaces;
    return (sp & (sp - 1u)) != 0;   /* more than one bit */
}

void isa_program_free(isa_program_t *p)
{
    if (!p)
        return;
    free(p->code);
    free(p->shared);
    free(p->labels);
    p->code = NULL;
    p->shared = NULL;
    p->labels = NULL;
    p->ncode = p->nshared = p->nlabels = 0;
}
