/* isa.h - the simtlab instruction set: one table that every part reads.
 *
 * A PTX-flavoured, register-based ISA. One kernel per source file. Each
 * thread has 64 32-bit registers %r0..%r63 (typed by the instruction, not
 * by the register) and 8 predicate registers %p0..%p7. Addresses are 32-bit
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
 * [sym+imm], [imm] (and [param] for ld.param).
 *
 * Decisions the assembler (asm.c) makes, which the executor can rely on:
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
 */
#ifndef SIMT_ISA_H
#define SIMT_ISA_H

#include <stddef.h>
#include <stdint.h>

#define ISA_NUM_REGS   64    /* %r0..%r63 per thread */
#define ISA_NUM_PREDS  8     /* %p0..%p7 per thread */
#define ISA_MAX_OPDS   4     /* operands per instruction */
#define ISA_NAME_MAX   64    /* kernel, param, label and symbol names */
#define ISA_MAX_PARAMS 32
#define ISA_NO_REG     0xFF  /* memory operand with no base register */
#define ISA_NO_PC      0xFFFFFFFFu

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
    OP_LD,     /* ld.SPACE.T d, [addr]  load 1, 2 or 4 bytes (ld.param: 4)    */
    OP_ST,     /* st.SPACE.T [addr], a  store                                 */
    OP_ATOM,   /* atom.SPACE.AOP.T d, [addr], b   d = old; mem = old AOP b    */
               /*                       lanes apply in lane order             */
    OP_BRA,    /* bra LABEL             jump; may diverge when predicated     */
    OP_BAR,    /* bar.sync [0]          wait for every live thread of block   */
    OP_EXIT,   /* exit                  the thread ends (ret is a synonym)    */
    OP_COUNT
} isa_op_t;

/* Operand / access types, written as instruction suffixes. */
typedef enum isa_type {
    T_NONE,
    T_B32, T_U32, T_S32, T_F32,  /* 32-bit register types                  */
    T_U8, T_S8, T_U16, T_S16,    /* narrow memory types (ld/st, cvt)       */
    T_PRED,                      /* and/or/xor/not/mov on predicates       */
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
    UNIT_COUNT
} isa_unit_t;

/* Special registers, read-only, usable as a source operand. */
typedef enum isa_special {
    SR_TID_X, SR_TID_Y, SR_TID_Z,
    SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z,
    SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_SMID, SR_CLOCK,
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
 *   atom         d, [addr], b          cas: d, [addr], b, c with b = compare
 *                                      value, c = new value (stored if
 *                                      old == b); nopd = 4
 *   bra          LABEL                 opd[0] OPD_LABEL, imm = target pc
 *   nop, exit, bar.sync                nopd = 0
 * nopd == has_dst + nsrc of the table entry, except atom.cas (one more). */

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
 * types; ld.param and atom narrow it further (see asm.c). */
typedef struct isa_opinfo {
    const char *name;   /* mnemonic, e.g. "fma"                           */
    uint8_t unit;       /* isa_unit_t                                     */
    uint8_t nsrc;       /* source operands                                */
    uint8_t has_dst;    /* 1 if opd[0] is written                         */
    uint32_t types;     /* bit mask (1u << isa_type_t) of allowed types   */
    const char *doc;    /* one line: what it does and what it costs       */
} isa_opinfo_t;

extern const isa_opinfo_t isa_ops[OP_COUNT];

const char *isa_type_name(isa_type_t t);      /* "f32", or "" for T_NONE   */
const char *isa_cmp_name(isa_cmp_t c);        /* "lt"                      */
const char *isa_space_name(isa_space_t s);    /* "global"                  */
const char *isa_aop_name(isa_atom_op_t a);    /* "add"                     */
const char *isa_special_name(isa_special_t s);/* "%tid.x"                  */
unsigned isa_type_bytes(isa_type_t t);        /* 1, 2 or 4 (0: none, pred) */

/* The unit one instruction issues to: the table's unit, except that the
 * integer forms of FMA-unit opcodes (add.s32, min.u32 ...) use UNIT_ALU. */
isa_unit_t isa_instr_unit(const isa_instr_t *in);

/* Release everything an isa_program_t owns (not the struct itself). */
void isa_program_free(isa_program_t *p);

#endif
