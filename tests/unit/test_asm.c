/* test_asm.c - assembler, disassembler and reconvergence points.
 *
 * Expected values are worked out by hand from the source text: columns
 * are counted in the strings below, float bits come from the C compiler's
 * own conversion of the same literal, and reconvergence points follow from
 * the control-flow graph drawn in each test's comment. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "asm.h"

#ifndef SIMT_SOURCE_DIR
#define SIMT_SOURCE_DIR "."
#endif

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Assemble src (file "t.s"); fail the test with the message if it fails. */
static void assemble_ok(const char *src, isa_program_t *p)
{
    simt_err_t err;
    int rc = asm_assemble(src, strlen(src), "t.s", p, &err);
    if (rc != 0)
        fail_msg("unexpected assembly error:\n%s", err.msg);
    assert_int_equal(err.code, SIMT_OK);
}

/* Assemble src and check the whole error message. */
static void expect_error_full(const char *src, const char *msg)
{
    isa_program_t p;
    simt_err_t err;
    int rc = asm_assemble(src, strlen(src), "t.s", &p, &err);
    assert_int_equal(rc, -1);
    assert_int_equal(err.code, SIMT_E_ASM);
    assert_string_equal(err.msg, msg);
    assert_null(p.code);
    assert_int_equal(p.ncode, 0);
}

/* Assemble src and check the first line of the error message (the
 * "file:line:col: error: ..." line). */
static void expect_error(const char *src, const char *first_line)
{
    isa_program_t p;
    simt_err_t err;
    int rc = asm_assemble(src, strlen(src), "t.s", &p, &err);
    assert_int_equal(rc, -1);
    assert_int_equal(err.code, SIMT_E_ASM);
    char got[1024];
    snprintf(got, sizeof got, "%s", err.msg);
    char *nl = strchr(got, '\n');
    if (nl)
        *nl = '\0';
    assert_string_equal(got, first_line);
    assert_null(p.code);
}

/* Declarations shared by the one-instruction tests: params a=0, b=1, n=2;
 * tile at shared offset 0 (60 bytes), buf at 64 (aligned to 16). */
static const char *PRELUDE =
    ".param a\n.param b\n.param n\n.shared tile 60\n.shared buf 32\n";

/* Assemble PRELUDE + line + exit and return the first instruction. */
static isa_instr_t one(const char *line)
{
    char src[512];
    snprintf(src, sizeof src, "%s%s\nexit\n", PRELUDE, line);
    isa_program_t p;
    assemble_ok(src, &p);
    assert_int_equal(p.ncode, 2);
    isa_instr_t in = p.code[0];
    isa_program_free(&p);
    return in;
}

static void check_opd(const isa_operand_t *o, int kind, int index, uint32_t imm)
{
    assert_int_equal(o->kind, kind);
    assert_int_equal(o->index, index);
    assert_int_equal(o->imm, imm);
}

/* ------------------------------------------------------------------ */
/* Instruction forms                                                   */

static void test_arith_forms(void **state)
{
    (void)state;
    isa_instr_t in = one("add.s32 %r1, %r2, %r3");
    assert_int_equal(in.op, OP_ADD);
    assert_int_equal(in.type, T_S32);
    assert_int_equal(in.stype, T_NONE);
    assert_int_equal(in.nopd, 3);
    assert_int_equal(in.guard, ISA_NO_REG);
    assert_int_equal(in.guard_neg, 0);
    assert_int_equal(in.reconv, ISA_NO_PC);
    check_opd(&in.opd[0], OPD_REG, 1, 0);
    check_opd(&in.opd[1], OPD_REG, 2, 0);
    check_opd(&in.opd[2], OPD_REG, 3, 0);

    in = one("add.f32 %r1, %r2, 1.5");
    assert_int_equal(in.type, T_F32);
    check_opd(&in.opd[2], OPD_IMM, 0, 0x3FC00000u);

    in = one("mul.hi.u32 %r1, %r2, %r3");
    assert_int_equal(in.op, OP_MULHI);
    assert_int_equal(in.type, T_U32);

    in = one("mul.lo.s32 %r1, %r2, 7");
    assert_int_equal(in.op, OP_MUL);
    check_opd(&in.opd[2], OPD_IMM, 0, 7);

    in = one("mad.lo.s32 %r1, %r2, %r3, %r4");
    assert_int_equal(in.op, OP_MAD);
    assert_int_equal(in.type, T_S32);
    assert_int_equal(in.nopd, 4);
    check_opd(&in.opd[3], OPD_REG, 4, 0);

    in = one("mad.u32 %r1, %r2, %ntid.x, %r4");
    assert_int_equal(in.op, OP_MAD);
    check_opd(&in.opd[2], OPD_SPECIAL, SR_NTID_X, 0);

    in = one("fma.f32 %r1, %r2, %r3, -1.0");
    assert_int_equal(in.op, OP_FMA);
    check_opd(&in.opd[3], OPD_IMM, 0, 0xBF800000u);

    const struct { const char *src; int op; int type; int nopd; } forms[] = {
        { "sub.u32 %r1, %r2, %r3", OP_SUB, T_U32, 3 },
        { "div.s32 %r1, %r2, %r3", OP_DIV, T_S32, 3 },
        { "div.f32 %r1, %r2, %r3", OP_DIV, T_F32, 3 },
        { "rem.u32 %r1, %r2, %r3", OP_REM, T_U32, 3 },
        { "min.f32 %r1, %r2, %r3", OP_MIN, T_F32, 3 },
        { "max.s32 %r1, %r2, %r3", OP_MAX, T_S32, 3 },
        { "abs.s32 %r1, %r2", OP_ABS, T_S32, 2 },
        { "neg.f32 %r1, %r2", OP_NEG, T_F32, 2 },
        { "rcp.f32 %r1, %r2", OP_RCP, T_F32, 2 },
        { "sqrt.f32 %r1, %r2", OP_SQRT, T_F32, 2 },
        { "rsqrt.f32 %r1, %r2", OP_RSQRT, T_F32, 2 },
        { "ex2.f32 %r1, %r2", OP_EX2, T_F32, 2 },
        { "lg2.f32 %r1, %r2", OP_LG2, T_F32, 2 },
        { "sin.f32 %r1, %r2", OP_SIN, T_F32, 2 },
        { "cos.f32 %r1, %r2", OP_COS, T_F32, 2 },
        { "and.b32 %r1, %r2, %r3", OP_AND, T_B32, 3 },
        { "or.b32 %r1, %r2, 0x10", OP_OR, T_B32, 3 },
        { "xor.b32 %r1, %r2, %r3", OP_XOR, T_B32, 3 },
        { "not.b32 %r1, %r2", OP_NOT, T_B32, 2 },
        { "shl.b32 %r1, %r2, 2", OP_SHL, T_B32, 3 },
        { "shr.s32 %r1, %r2, 1", OP_SHR, T_S32, 3 },
        { "nop", OP_NOP, T_NONE, 0 },
        { "exit", OP_EXIT, T_NONE, 0 },
        { "ret", OP_EXIT, T_NONE, 0 },
        { "bar.sync", OP_BAR, T_NONE, 0 },
        { "bar.sync 0", OP_BAR, T_NONE, 0 },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        in = one(forms[i].src);
        assert_int_equal(in.op, forms[i].op);
        assert_int_equal(in.type, forms[i].type);
        assert_int_equal(in.nopd, forms[i].nopd);
    }
    in = one("or.b32 %r1, %r2, 0x10");
    check_opd(&in.opd[2], OPD_IMM, 0, 16);
}

static void test_compare_select_convert(void **state)
{
    (void)state;
    isa_instr_t in = one("setp.lt.f32 %p1, %r1, %r2");
    assert_int_equal(in.op, OP_SETP);
    assert_int_equal(in.cmp, CMP_LT);
    assert_int_equal(in.type, T_F32);
    check_opd(&in.opd[0], OPD_PRED, 1, 0);
    check_opd(&in.opd[1], OPD_REG, 1, 0);
    check_opd(&in.opd[2], OPD_REG, 2, 0);

    in = one("setp.ge.u32 %p7, %r1, 100");
    assert_int_equal(in.cmp, CMP_GE);
    check_opd(&in.opd[0], OPD_PRED, 7, 0);
    check_opd(&in.opd[2], OPD_IMM, 0, 100);

    in = one("selp.f32 %r1, %r2, %r3, %p1");
    assert_int_equal(in.op, OP_SELP);
    assert_int_equal(in.nopd, 4);
    check_opd(&in.opd[3], OPD_PRED, 1, 0);

    in = one("cvt.f32.s32 %r1, %r2");
    assert_int_equal(in.op, OP_CVT);
    assert_int_equal(in.type, T_F32);
    assert_int_equal(in.stype, T_S32);
    assert_int_equal(in.nopd, 2);

    /* cvt reads an immediate as the source type: 2.5 is fine for .f32. */
    in = one("cvt.s32.f32 %r1, 2.5");
    assert_int_equal(in.type, T_S32);
    assert_int_equal(in.stype, T_F32);
    check_opd(&in.opd[1], OPD_IMM, 0, 0x40200000u);

    in = one("cvt.u8.u32 %r1, %r2");
    assert_int_equal(in.type, T_U8);
    assert_int_equal(in.stype, T_U32);
}

static void test_predicate_ops(void **state)
{
    (void)state;
    isa_instr_t in = one("and.pred %p1, %p2, %p3");
    assert_int_equal(in.op, OP_AND);
    assert_int_equal(in.type, T_PRED);
    check_opd(&in.opd[0], OPD_PRED, 1, 0);
    check_opd(&in.opd[1], OPD_PRED, 2, 0);
    check_opd(&in.opd[2], OPD_PRED, 3, 0);

    in = one("not.pred %p1, %p2");
    assert_int_equal(in.op, OP_NOT);
    assert_int_equal(in.nopd, 2);
    check_opd(&in.opd[1], OPD_PRED, 2, 0);

    in = one("mov.pred %p0, %p7");
    assert_int_equal(in.op, OP_MOV);
    assert_int_equal(in.type, T_PRED);
    check_opd(&in.opd[0], OPD_PRED, 0, 0);
    check_opd(&in.opd[1], OPD_PRED, 7, 0);

    in = one("xor.pred %p4, %p3, %p2");
    assert_int_equal(in.op, OP_XOR);
}

static void test_memory_forms(void **state)
{
    (void)state;
    isa_instr_t in = one("ld.global.f32 %r1, [%r2+16]");
    assert_int_equal(in.op, OP_LD);
    assert_int_equal(in.space, SPACE_GLOBAL);
    assert_int_equal(in.type, T_F32);
    assert_int_equal(in.nopd, 2);
    check_opd(&in.opd[0], OPD_REG, 1, 0);
    check_opd(&in.opd[1], OPD_MEM, 2, 16);

    in = one("ld.global.f32 %r1, [ %r2 ]");
    check_opd(&in.opd[1], OPD_MEM, 2, 0);

    in = one("ld.shared.u8 %r1, [%r2-4]");
    assert_int_equal(in.space, SPACE_SHARED);
    assert_int_equal(in.type, T_U8);
    check_opd(&in.opd[1], OPD_MEM, 2, 0xFFFFFFFCu);

    in = one("ld.global.s16 %r1, [1024]");
    assert_int_equal(in.type, T_S16);
    check_opd(&in.opd[1], OPD_MEM, ISA_NO_REG, 1024);

    /* Param n is the third parameter: byte offset 2 * 4. */
    in = one("ld.param.u32 %r1, [n]");
    assert_int_equal(in.space, SPACE_PARAM);
    check_opd(&in.opd[1], OPD_MEM, ISA_NO_REG, 8);
    in = one("ld.param.f32 %r1, [a]");
    check_opd(&in.opd[1], OPD_MEM, ISA_NO_REG, 0);

    /* buf is at 64: 60 bytes of tile rounded up to 16. */
    in = one("st.shared.f32 [buf+4], %r3");
    assert_int_equal(in.op, OP_ST);
    assert_int_equal(in.nopd, 2);
    check_opd(&in.opd[0], OPD_MEM, ISA_NO_REG, 68);
    check_opd(&in.opd[1], OPD_REG, 3, 0);

    in = one("st.shared.u16 [tile], 7");
    assert_int_equal(in.type, T_U16);
    check_opd(&in.opd[0], OPD_MEM, ISA_NO_REG, 0);
    check_opd(&in.opd[1], OPD_IMM, 0, 7);

    in = one("ld.shared.b32 %r1, [buf-8]");
    check_opd(&in.opd[1], OPD_MEM, ISA_NO_REG, 56);

    in = one("st.global.s8 [%r9+0x20], %r1");
    assert_int_equal(in.type, T_S8);
    check_opd(&in.opd[0], OPD_MEM, 9, 32);

    in = one("atom.global.add.u32 %r1, [%r2], %r3");
    assert_int_equal(in.op, OP_ATOM);
    assert_int_equal(in.space, SPACE_GLOBAL);
    assert_int_equal(in.aop, AOP_ADD);
    assert_int_equal(in.type, T_U32);
    assert_int_equal(in.nopd, 3);
    check_opd(&in.opd[0], OPD_REG, 1, 0);
    check_opd(&in.opd[1], OPD_MEM, 2, 0);
    check_opd(&in.opd[2], OPD_REG, 3, 0);

    in = one("atom.shared.cas.b32 %r1, [%r2], %r3, %r4");
    assert_int_equal(in.aop, AOP_CAS);
    assert_int_equal(in.space, SPACE_SHARED);
    assert_int_equal(in.nopd, 4);
    check_opd(&in.opd[2], OPD_REG, 3, 0);
    check_opd(&in.opd[3], OPD_REG, 4, 0);

    in = one("atom.global.add.f32 %r1, [%r2+4], 0.5");
    assert_int_equal(in.type, T_F32);
    check_opd(&in.opd[2], OPD_IMM, 0, 0x3F000000u);
    in = one("atom.shared.exch.b32 %r1, [tile+12], %r3");
    assert_int_equal(in.aop, AOP_EXCH);
    check_opd(&in.opd[1], OPD_MEM, ISA_NO_REG, 12);
    in = one("atom.global.min.s32 %r1, [%r2], -1");
    assert_int_equal(in.aop, AOP_MIN);
    check_opd(&in.opd[2], OPD_IMM, 0, 0xFFFFFFFFu);
    in = one("atom.global.max.u32 %r1, [%r2], 1");
    assert_int_equal(in.aop, AOP_MAX);
}

static void test_operands_and_immediates(void **state)
{
    (void)state;
    isa_instr_t in = one("mov.u32 %r1, buf");      /* symbol -> its offset */
    check_opd(&in.opd[1], OPD_IMM, 0, 64);
    in = one("add.u32 %r1, %r2, tile");
    check_opd(&in.opd[2], OPD_IMM, 0, 0);

    in = one("mov.u32 %r1, %tid.y");
    check_opd(&in.opd[1], OPD_SPECIAL, SR_TID_Y, 0);
    in = one("mov.u32 %r1, %clock");
    check_opd(&in.opd[1], OPD_SPECIAL, SR_CLOCK, 0);
    in = one("mov.u32 %r1, %nctaid.z");
    check_opd(&in.opd[1], OPD_SPECIAL, SR_NCTAID_Z, 0);
    in = one("mov.u32 %r1, %laneid");
    check_opd(&in.opd[1], OPD_SPECIAL, SR_LANEID, 0);

    in = one("mov.s32 %r1, -5");
    check_opd(&in.opd[1], OPD_IMM, 0, 0xFFFFFFFBu);
    in = one("mov.u32 %r1, 0xFFFFFFFF");
    check_opd(&in.opd[1], OPD_IMM, 0, 0xFFFFFFFFu);
    in = one("mov.u32 %r1, 4294967295");
    check_opd(&in.opd[1], OPD_IMM, 0, 0xFFFFFFFFu);
    in = one("mov.s32 %r1, -2147483648");
    check_opd(&in.opd[1], OPD_IMM, 0, 0x80000000u);

    /* Float immediates: exact bits. */
    in = one("mov.f32 %r1, 1.5");
    check_opd(&in.opd[1], OPD_IMM, 0, 0x3FC00000u);
    in = one("mov.f32 %r1, 0f7F800000");
    check_opd(&in.opd[1], OPD_IMM, 0, 0x7F800000u);
    in = one("mov.f32 %r1, 0f3f800001");
    check_opd(&in.opd[1], OPD_IMM, 0, 0x3F800001u);
    in = one("mov.f32 %r1, -2e-3");
    check_opd(&in.opd[1], OPD_IMM, 0, fbits(-2e-3f));
    in = one("mov.f32 %r1, 1e10");
    check_opd(&in.opd[1], OPD_IMM, 0, fbits(1e10f));
    in = one("mov.f32 %r1, .5");
    check_opd(&in.opd[1], OPD_IMM, 0, 0x3F000000u);
    in = one("mov.f32 %r1, -0.0");
    check_opd(&in.opd[1], OPD_IMM, 0, 0x80000000u);
    in = one("mov.f32 %r1, 0.1");
    check_opd(&in.opd[1], OPD_IMM, 0, 0x3DCCCCCDu);
    in = one("mov.f32 %r1, 1.4e-45");             /* smallest denormal */
    check_opd(&in.opd[1], OPD_IMM, 0, 1u);
    /* A decimal integer in an f32 instruction is that value as a float. */
    in = one("mul.f32 %r1, %r2, 2");
    check_opd(&in.opd[2], OPD_IMM, 0, 0x40000000u);
    in = one("mov.f32 %r1, -3");
    check_opd(&in.opd[1], OPD_IMM, 0, 0xC0400000u);
}

static void test_guards_labels_comments(void **state)
{
    (void)state;
    isa_instr_t in = one("@%p1 add.s32 %r1, %r2, %r3");
    assert_int_equal(in.guard, 1);
    assert_int_equal(in.guard_neg, 0);
    assert_int_equal(in.op, OP_ADD);
    in = one("@!%p3 exit");
    assert_int_equal(in.guard, 3);
    assert_int_equal(in.guard_neg, 1);
    assert_int_equal(in.op, OP_EXIT);
    in = one("@%p2 bar.sync");
    assert_int_equal(in.guard, 2);

    const char *src =
        "# hash comment\n"                           /* line 1 */
        "// slash comment\n"                         /* line 2 */
        "  START:  add.s32 %r1, %r2, %r3; junk\n"    /* line 3: col 12 */
        "\n"                                         /* line 4 */
        "L1:\n"                                      /* line 5 */
        "L2: ; two labels, one pc\n"                 /* line 6 */
        "\t@!%p0 bra.uni L1 // loop\r\n"             /* line 7: col 8 */
        "exit;\n";                                   /* line 8 */
    isa_program_t p;
    assemble_ok(src, &p);
    assert_int_equal(p.ncode, 3);
    assert_int_equal(p.code[0].line, 3);
    assert_int_equal(p.code[0].col, 11);
    assert_int_equal(p.code[1].line, 7);
    assert_int_equal(p.code[1].col, 8);
    assert_int_equal(p.code[1].op, OP_BRA);
    check_opd(&p.code[1].opd[0], OPD_LABEL, 0, 1);
    assert_int_equal(p.code[2].line, 8);
    assert_int_equal(p.code[2].col, 1);
    assert_int_equal(p.nlabels, 3);
    assert_string_equal(p.labels[0].name, "START");
    assert_int_equal(p.labels[0].value, 0);
    assert_string_equal(p.labels[1].name, "L1");
    assert_int_equal(p.labels[1].value, 1);
    assert_string_equal(p.labels[2].name, "L2");
    assert_int_equal(p.labels[2].value, 1);
    assert_int_equal(p.nregs, 4);
    assert_int_equal(p.npreds, 1);
    isa_program_free(&p);
}

static void test_program_fields(void **state)
{
    (void)state;
    isa_program_t p;
    /* No .kernel: the name is the file stem of "t.s". */
    assemble_ok(".param x\n.shared s1 5\n.shared s2 17\n.shared s3 1\n"
                "@%p3 ld.global.u32 %r1, [%r5]\nexit\n", &p);
    assert_string_equal(p.name, "t");
    assert_string_equal(p.file, "t.s");
    assert_int_equal(p.nparams, 1);
    assert_string_equal(p.params[0], "x");
    assert_int_equal(p.nshared, 3);
    assert_int_equal(p.shared[0].value, 0);
    assert_int_equal(p.shared[0].size, 5);
    assert_int_equal(p.shared[1].value, 16);
    assert_int_equal(p.shared[1].size, 17);
    assert_int_equal(p.shared[2].value, 48);     /* 16 + 17 = 33 -> 48 */
    assert_int_equal(p.shared_bytes, 49);
    assert_int_equal(p.nregs, 6);                 /* %r5 as a base counts */
    assert_int_equal(p.npreds, 4);                /* %p3 as a guard counts */
    isa_program_free(&p);

    assemble_ok(".kernel my_kernel\nexit\n", &p);
    assert_string_equal(p.name, "my_kernel");
    assert_int_equal(p.nregs, 0);
    assert_int_equal(p.npreds, 0);
    assert_int_equal(p.shared_bytes, 0);
    isa_program_free(&p);

    simt_err_t err;
    assert_int_equal(asm_assemble("exit", 4, "dir/sub/kern.v2.s", &p, &err), 0);
    assert_string_equal(p.name, "kern.v2");
    isa_program_free(&p);

    /* Source need not be NUL-terminated: only len bytes are read. */
    const char buf[] = { 'e', 'x', 'i', 't', '\n', 'b', 'a', 'd' };
    assert_int_equal(asm_assemble(buf, 5, "t.s", &p, &err), 0);
    assert_int_equal(p.ncode, 1);
    isa_program_free(&p);
}

static void test_assemble_file(void **state)
{
    (void)state;
    isa_program_t p;
    simt_err_t err;
    int rc = asm_assemble_file(SIMT_SOURCE_DIR "/tests/asm/vecadd.s", &p, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_string_equal(p.name, "vecadd");
    assert_int_equal(p.nparams, 4);
    assert_string_equal(p.params[3], "n");
    assert_int_equal(p.ncode, 18);
    assert_int_equal(p.code[5].op, OP_EXIT);
    assert_int_equal(p.code[5].guard, 0);
    assert_int_equal(p.code[5].line, 12);
    assert_int_equal(p.nregs, 10);
    isa_program_free(&p);

    const char *path = "/nonexistent-simtlab-dir/missing.s";
    rc = asm_assemble_file(path, &p, &err);
    assert_int_equal(rc, -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    char want[512];
    snprintf(want, sizeof want, "%s: error: file not found (%s)", path, strerror(ENOENT));
    assert_string_equal(err.msg, want);
    assert_null(p.code);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

static void test_error_format(void **state)
{
    (void)state;
    expect_error_full("add.s32 %r1, %r255, 2\nexit\n",
                      "t.s:1:14: error: unknown register '%r255' (registers are %r0..%r254)\n"
                      "add.s32 %r1, %r255, 2\n"
                      "             ^");
    /* Tabs in the source line are copied into the caret line. */
    expect_error_full("exit\n\tadd.s32 %r1, %r255, 2\n",
                      "t.s:2:15: error: unknown register '%r255' (registers are %r0..%r254)\n"
                      "\tadd.s32 %r1, %r255, 2\n"
                      "\t             ^");
    expect_error_full("exit\nfmaa.f32 %r1, %r2, %r3, %r4\r\n",
                      "t.s:2:1: error: unknown instruction 'fmaa' (did you mean 'fma'?)\n"
                      "fmaa.f32 %r1, %r2, %r3, %r4\n"
                      "^");
    /* The first error wins. */
    expect_error("mov.u32 %r1, %r999\nfoo\n",
                 "t.s:1:14: error: unknown register '%r999' (registers are %r0..%r254)");
}

/* The asynchronous instructions (mbarrier, cp.async.bulk, wgmma): each
 * misuse is named at its file:line:col. */
static void test_errors_async(void **state)
{
    (void)state;
    static const struct { const char *line, *msg; } cases[] = {
        { "mbarrier.init [s], 1",
          "t.s:3:14: error: 'mbarrier.init' needs .shared (an mbarrier lives in shared memory)" },
        { "mbarrier.arrive.shared [s], 1",
          "t.s:3:9: error: 'mbarrier' needs .init, .arrive.expect_tx, .arrive.cluster or .wait.parity" },
        { "mbarrier.init.shared [s+4], 1",
          "t.s:3:22: error: operand 1 of 'mbarrier.init' must be 8-byte aligned (an mbarrier is 8 bytes), got offset 4" },
        { "mbarrier.wait.parity.shared [s], 2",
          "t.s:3:34: error: mbarrier parity must be 0 or 1, got '2'" },
        { "mbarrier.init.shared %r1, 1",
          "t.s:3:22: error: operand 1 of 'mbarrier.init' must be a memory address like [%r1+4], got '%r1'" },
        { "cp.async.bulk.shared.global [t], [%r1], 64, [s]",
          "t.s:3:28: error: 'cp.async.bulk' needs a box shape .RxB after .global (R rows of B bytes, e.g. .64x128)" },
        { "cp.async.bulk.shared.global.256x32 [t], [%r1], 64, [s]",
          "t.s:3:28: error: box .256x32: rows must be 1..255 and bytes per row a multiple of 16 in 16..4080" },
        { "cp.async.bulk.shared.global.4x24 [t], [%r1], 64, [s]",
          "t.s:3:28: error: box .4x24: rows must be 1..255 and bytes per row a multiple of 16 in 16..4080" },
        { "cp.async.bulk.shared.global.4x32 [t], [s], 64, [s]",
          "t.s:3:40: error: shared array 's' used in a .global address" },
        { "cp.async.bulk.shared.global.4x32 [t], [%r1], 40, [s]",
          "t.s:3:46: error: the global row pitch must be a multiple of 16 bytes, got '40'" },
        { "cp.async.bulk.shared.global.4x32 [t], [%r1], 64",
          "t.s:3:1: error: 'cp.async.bulk' needs 4 operands ([dst], [src], pitch, [mbar]), got 3" },
        { "cp [t], [%r1], 64, [s]",   /* no suffixes at all (a fuzz find: read stale suffixes) */
          "t.s:3:3: error: 'cp' needs .async.bulk.shared.global.RxB (a bulk copy of R rows of B bytes, e.g. cp.async.bulk.shared.global.64x128) or .async.bulk.global.shared.RxB (a bulk store)" },
        { "cp.async.global.shared [t], [%r1], 64, [s]",
          "t.s:3:3: error: 'cp' needs .async.bulk.shared.global.RxB (a bulk copy of R rows of B bytes, e.g. cp.async.bulk.shared.global.64x128) or .async.bulk.global.shared.RxB (a bulk store)" },
        { "wgmma.mma_async.f16 %r0, [t], [t], 64",
          "t.s:3:16: error: 'wgmma.mma_async' needs a shape .nN (N = 8..128, a multiple of 8), e.g. wgmma.mma_async.n64.f16" },
        { "wgmma.mma_async.n12.f16 %r0, [t], [t], 64",
          "t.s:3:16: error: shape .n12: N must be 8..128 and a multiple of 8" },
        { "wgmma.mma_async.n64.f32 %r0, [t], [t], 64",
          "t.s:3:20: error: type '.f32' not allowed for 'wgmma.mma_async' (allowed: f16 bf16 tf32 e4m3 e5m2)" },
        { "wgmma.mma_async.n128.f16 %r200, [t], [t], 64",
          "t.s:3:26: error: accumulator %r200..%r263 of 'wgmma.mma_async' needs 64 registers and goes past %r254" },
        { "wgmma.mma_async.n64.f16 %r0, [t+8], [t], 64",
          "t.s:3:30: error: operand 2 of 'wgmma.mma_async' must be 16-byte aligned (bulk copies and wgmma move 16-byte pieces), got offset 72" },
        { "wgmma.wait %r1",
          "t.s:3:12: error: 'wgmma.wait' needs an immediate 0..7 (wgmma.mma_async still allowed to run), got '%r1'" },
        { "wgmma.wait 8",
          "t.s:3:12: error: 'wgmma.wait' needs an immediate 0..7 (wgmma.mma_async still allowed to run), got '8'" },
        { "wgmma.commit",
          "t.s:3:6: error: 'wgmma' needs .mma_async or .wait" },
        /* clusters */
        { "mbarrier.arrive.cluster [s], 1",
          "t.s:3:24: error: 'mbarrier.arrive.cluster' needs .shared (an mbarrier lives in shared memory)" },
        { "mbarrier.arrive.cluster.shared [s], 8",
          "t.s:3:37: error: CTA rank must be 0..7 (a cluster has at most 8 CTAs), got '8'" },
        { "mbarrier.arrive.cluster.shared [s+4], 1",
          "t.s:3:32: error: operand 1 of 'mbarrier.arrive.cluster' must be 8-byte aligned (an mbarrier is 8 bytes), got offset 4" },
        { "mbarrier.arrive.cluster.shared [s]",
          "t.s:3:1: error: 'mbarrier.arrive.cluster' needs 2 operands ([mbar], rank), got 1" },
        { "barrier.sync",
          "t.s:3:8: error: 'barrier' needs '.cluster' (write barrier.cluster; for the block's barrier write bar.sync)" },
        { "barrier.cluster 0",
          "t.s:3:1: error: 'barrier.cluster' takes no operands, got 1" },
        { "cp.async.bulk.shared.global.multicast [t], [%r1], 64, [s], 3",
          "t.s:3:38: error: 'cp.async.bulk' needs a box shape .RxB after .global.multicast (R rows of B bytes, e.g. .64x128)" },
        { "cp.async.bulk.shared.global.multicast.4x32 [t], [%r1], 64, [s]",
          "t.s:3:1: error: 'cp.async.bulk.multicast' needs 5 operands ([dst], [src], pitch, [mbar], ctamask), got 4" },
        { "cp.async.bulk.shared.global.multicast.4x32 [t], [%r1], 64, [s], %r2",
          "t.s:3:65: error: the multicast CTA mask must be an immediate 1..255 (bit r = CTA rank r of the cluster, which has at most 8 CTAs), got '%r2'" },
        { "cp.async.bulk.shared.global.multicast.4x32 [t], [%r1], 64, [s], 0",
          "t.s:3:65: error: the multicast CTA mask must be an immediate 1..255 (bit r = CTA rank r of the cluster, which has at most 8 CTAs), got '0'" },
        { "cp.async.bulk.shared.global.multicast.4x32 [t], [%r1], 64, [s], 256",
          "t.s:3:65: error: the multicast CTA mask must be an immediate 1..255 (bit r = CTA rank r of the cluster, which has at most 8 CTAs), got '256'" },
        { "cp.async.bulk.shared.global.4x32 [t], [%r1], 64, [s], 3",
          "t.s:3:1: error: 'cp.async.bulk' needs 4 operands ([dst], [src], pitch, [mbar]), got 5" },
        /* distributed shared memory */
        { "ld.cluster.u32 %r1, [s], 1",
          "t.s:3:11: error: 'ld.cluster' needs .shared (it reaches the shared memory of a CTA of the cluster)" },
        { "ld.cluster.shared.u32 %r1, [s], 8",
          "t.s:3:33: error: CTA rank must be 0..7 (a cluster has at most 8 CTAs), got '8'" },
        { "st.cluster.shared.u32 [s], %r1",
          "t.s:3:1: error: 'st.cluster' needs 3 operands ([addr], a, rank), got 2" },
        { "ld.cluster.shared.u8 %r1, [s], 1",
          "t.s:3:18: error: type '.u8' not allowed for 'ld.cluster' (allowed: b32 s32 u32 f32)" },
        { "st.cluster.shared.f32 [s], 1.5, 1.5",
          "t.s:3:33: error: float immediate '1.5' needs an f32 instruction" },
        /* bulk stores */
        { "cp.async.bulk.global.shared.4x32 [%r1], [t], 64, [s]",
          "t.s:3:1: error: 'cp.async.bulk.global.shared' needs 3 operands ([dst], [src], pitch), got 4" },
        { "cp.async.bulk.global.shared.4x32 [t], [t], 64",
          "t.s:3:35: error: shared array 't' used in a .global address" },
        { "cp.async.bulk.global.shared.4x32 [%r1], [t+8], 64",
          "t.s:3:41: error: operand 2 of 'cp.async.bulk.global.shared' must be 16-byte aligned (bulk copies and wgmma move 16-byte pieces), got offset 72" },
        { "cp.async.bulk.global.shared.4x32 [%r1], [t], 40",
          "t.s:3:46: error: the global row pitch must be a multiple of 16 bytes, got '40'" },
        { "cp.async.bulk.global.shared [%r1], [t], 64",
          "t.s:3:28: error: 'cp.async.bulk' needs a box shape .RxB after .shared (R rows of B bytes, e.g. .64x128)" },
        { "cp.async.bulk.global.shared.multicast.4x32 [%r1], [t], 64",
          "t.s:3:28: error: 'cp.async.bulk' needs a box shape .RxB after .shared (R rows of B bytes, e.g. .64x128)" },
        { "mov.u32 %r1, %cluster_rank",
          "t.s:3:14: error: unknown special register '%cluster_rank'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[256];
        snprintf(src, sizeof src, ".shared s 64\n.shared t 1024\n%s\nexit\n", cases[i].line);
        expect_error(src, cases[i].msg);
    }
}

/* ld/st .v2/.v4 (isa.h "Vector loads and stores"): what they assemble to,
 * the registers they count, and how they print. */
static void test_vector_forms(void **state)
{
    (void)state;
    isa_program_t p;
    assemble_ok(".shared tile 64\n"
                "ld.global.v4.f32 {%r4, %r5, %r6, %r7}, [%r1+16];\n"
                "st.shared.v2.f32 [%r2], {%r8, %r9};\n"
                "ld.shared.v2.b32 {%r10,%r11}, [tile+8]\n"
                "st.global.v4.u32 [%r3-16], { %r251, %r252, %r253, %r254 }\n"
                "ld.global.v2.s32 {%r1, %r2}, [%r1]\n"
                "exit\n", &p);
    assert_int_equal(p.ncode, 6);
    assert_int_equal(p.code[0].op, OP_LD);
    assert_int_equal(p.code[0].vec, 4);
    assert_int_equal(p.code[0].space, SPACE_GLOBAL);
    assert_int_equal(p.code[0].type, T_F32);
    assert_int_equal(p.code[0].opd[0].kind, OPD_REG);
    assert_int_equal(p.code[0].opd[0].index, 4);
    assert_int_equal(p.code[0].opd[1].index, 1);
    assert_int_equal(p.code[0].opd[1].imm, 16);
    assert_int_equal(isa_opd_regs(&p.code[0], 0), 4);
    assert_int_equal(isa_opd_regs(&p.code[0], 1), 1);
    assert_int_equal(p.code[1].op, OP_ST);
    assert_int_equal(p.code[1].vec, 2);
    assert_int_equal(p.code[1].opd[1].index, 8);
    assert_int_equal(isa_opd_regs(&p.code[1], 1), 2);
    assert_int_equal(p.code[2].opd[1].imm, 8);
    assert_int_equal(p.code[4].vec, 2);
    assert_int_equal(p.nregs, 255);               /* %r254 is the last register */
    const char *want[] = {
        "ld.global.v4.f32 {%r4, %r5, %r6, %r7}, [%r1+16]",
        "st.shared.v2.f32 [%r2], {%r8, %r9}",
        "ld.shared.v2.b32 {%r10, %r11}, [tile+8]",
        "st.global.v4.u32 [%r3-16], {%r251, %r252, %r253, %r254}",
        "ld.global.v2.s32 {%r1, %r2}, [%r1]",
        "exit",
    };
    char buf[128];
    for (uint32_t i = 0; i < p.ncode; i++) {
        asm_format_instr(&p, &p.code[i], buf, sizeof buf);
        assert_string_equal(buf, want[i]);
    }
    isa_program_free(&p);
    /* a scalar ld/st is vec 0 and counts one register */
    assemble_ok("ld.global.f32 %r200, [%r1]\nexit\n", &p);
    assert_int_equal(p.code[0].vec, 0);
    assert_int_equal(isa_opd_regs(&p.code[0], 0), 1);
    assert_int_equal(p.nregs, 201);
    isa_program_free(&p);
}

/* Every malformed vector load or store is named at its file:line:col. */
static void test_errors_vector(void **state)
{
    (void)state;
    static const struct { const char *line, *msg; } cases[] = {
        { "ld.global.v4.f32 {%r4, %r5, %r6}, [%r1]",
          "t.s:3:18: error: '.v4' needs 4 registers in '{ }', got 3" },
        { "ld.global.v2.f32 {%r4, %r5, %r6, %r7}, [%r1]",
          "t.s:3:18: error: '.v2' needs 2 registers in '{ }', got 4" },
        { "st.shared.v4.f32 [%r2], {%r8, %r9}",
          "t.s:3:25: error: '.v4' needs 4 registers in '{ }', got 2" },
        { "ld.global.v4.f32 {%r4, %r6, %r7, %r8}, [%r1]",
          "t.s:3:24: error: registers in '{ }' must be consecutive ascending (like SASS register pairs and quads): expected %r5 after %r4, got '%r6'" },
        { "ld.global.v2.f32 {%r5, %r4}, [%r1]",
          "t.s:3:24: error: registers in '{ }' must be consecutive ascending (like SASS register pairs and quads): expected %r6 after %r5, got '%r4'" },
        { "ld.global.v4.f32 {%r0, %r1, %r2, %r3, %r4}, [%r1]",
          "t.s:3:39: error: a vector has at most 4 registers (.v2 or .v4)" },
        { "st.global.v4.f32 [%r1], {%r252, %r253, %r254, %r255}",
          "t.s:3:47: error: unknown register '%r255' (registers are %r0..%r254)" },
        { "ld.global.v2.f32 {%r4, 7}, [%r1]",
          "t.s:3:24: error: expected a %r register in '{ }', got '7'" },
        { "ld.global.v2.f32 {%r4, %p1}, [%r1]",
          "t.s:3:24: error: a vector's registers must be %r registers, got '%p1'" },
        { "ld.global.v2.f32 {%r4 %r5}, [%r1]",
          "t.s:3:23: error: expected ',' or '}' in a register vector, got '%r5'" },
        { "ld.global.v2.f32 {%r4, %r5, [%r1]",
          "t.s:3:29: error: expected a %r register in '{ }', got '[%r1]'" },
        { "ld.global.v4.f32 %r4, [%r1]",
          "t.s:3:18: error: operand 1 of 'ld.v4' must be 4 consecutive registers in braces, like {%r4, %r5, %r6, %r7}, got '%r4'" },
        { "st.global.v2.f32 [%r1], %r4",
          "t.s:3:25: error: operand 2 of 'st.v2' must be 2 consecutive registers in braces, like {%r4, %r5}, got '%r4'" },
        { "ld.global.f32 {%r4, %r5}, [%r1]",
          "t.s:3:15: error: a register vector '{%r4, %r5}' needs a vector load: write ld.global.v2.f32" },
        { "st.shared.u32 [%r1], {%r4, %r5, %r6, %r7}",
          "t.s:3:22: error: a register vector '{%r4, %r5, %r6, %r7}' needs a vector store: write st.shared.v4.u32" },
        { "add.f32 {%r4, %r5}, %r1, %r2",
          "t.s:3:9: error: operand 1 of 'add' cannot be a register vector '{%r4, %r5}' (only ld/st .v2 and .v4 take one)" },
        { "ld.global.v4.u8 {%r4, %r5, %r6, %r7}, [%r1]",
          "t.s:3:13: error: '.v4' needs a 32-bit element type (.b32 .u32 .s32 .f32: each element is one whole register), got '.u8'" },
        { "st.global.v2.f16 [%r1], {%r4, %r5}",
          "t.s:3:13: error: '.v2' needs a 32-bit element type (.b32 .u32 .s32 .f32: each element is one whole register), got '.f16'" },
        { "ld.global.v4 {%r4, %r5, %r6, %r7}, [%r1]",
          "t.s:3:13: error: 'ld.v4' needs a type suffix (allowed: b32 s32 u32 f32)" },
        { "ld.global.v3.f32 {%r4, %r5, %r6}, [%r1]",
          "t.s:3:10: error: '.v3' is not a vector width (vectors are .v2 and .v4)" },
        { "atom.global.v2.add.u32 {%r4, %r5}, [%r1], 1",
          "t.s:3:12: error: 'atom' has no vector form (.v2 and .v4 are for ld and st on .global and .shared)" },
        { "atom.global.add.v2.u32 %r4, [%r1], 1",
          "t.s:3:16: error: 'atom.add' has no vector form '.v2' (.v2 and .v4 are for ld and st on .global and .shared, right after the state space: ld.global.v4.f32)" },
        { "ld.param.v2.u32 {%r4, %r5}, [n]",
          "t.s:3:9: error: 'ld.param' has no vector form (.v2 and .v4 are for .global and .shared; load each parameter with its own ld.param)" },
        { "ld.v4.global.f32 {%r4, %r5, %r6, %r7}, [%r1]",
          "t.s:3:3: error: '.v4' goes after the state space (write ld.global.v4.f32)" },
        { "ld.global.f32.v4 {%r4, %r5, %r6, %r7}, [%r1]",
          "t.s:3:14: error: 'ld' has no vector form '.v4' (.v2 and .v4 are for ld and st on .global and .shared, right after the state space: ld.global.v4.f32)" },
        { "ld.cluster.shared.v2.u32 {%r4, %r5}, [%r1], 1",
          "t.s:3:18: error: 'ld.cluster' has no vector form '.v2' (.v2 and .v4 are for ld and st on .global and .shared, right after the state space: ld.global.v4.f32)" },
        { "wmma.load.a.global.v2.f16 %r0, [%r1], 16",
          "t.s:3:19: error: 'wmma.load.a' has no vector form (.v2 and .v4 are for ld and st on .global and .shared)" },
        { "ld.shared.v4.f32 {%r4, %r5, %r6, %r7}, [s+8]",
          "t.s:3:40: error: a .v4 address must be 16-byte aligned (the whole vector is one 16-byte access), got offset 8" },
        { "st.global.v2.f32 [12], {%r4, %r5}",
          "t.s:3:18: error: a .v2 address must be 8-byte aligned (the whole vector is one 8-byte access), got offset 12" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[256];
        snprintf(src, sizeof src, ".param n\n.shared s 64\n%s\nexit\n", cases[i].line);
        expect_error(src, cases[i].msg);
    }
}

static void test_errors_instructions(void **state)
{
    (void)state;
    expect_error("frobnicate %r1\nexit", "t.s:1:1: error: unknown instruction 'frobnicate'");
    expect_error("rett\n", "t.s:1:1: error: unknown instruction 'rett' (did you mean 'ret'?)");
    expect_error("  mvo.u32 %r1, 2\n",
                 "t.s:1:3: error: unknown instruction 'mvo' (did you mean 'mov'?)");
    expect_error("add.s32 %r1, %r2\nexit",
                 "t.s:1:1: error: 'add' needs 3 operands (d, a, b), got 2");
    expect_error("add.s32 %r1, %r2, %r3, %r4\nexit",
                 "t.s:1:1: error: 'add' needs 3 operands (d, a, b), got 4");
    expect_error("selp.u32 %r1, %r2, %r3\nexit",
                 "t.s:1:1: error: 'selp' needs 4 operands (d, a, b, p), got 3");
    expect_error("bra\n", "t.s:1:1: error: 'bra' needs 1 operand (LABEL), got 0");
    expect_error("exit 1\n", "t.s:1:1: error: 'exit' takes no operands, got 1");
    expect_error("add.f16 %r1, %r2, %r3\nexit",
                 "t.s:1:4: error: type '.f16' not allowed for 'add' (allowed: s32 u32 f32)");
    expect_error("sqrt.s32 %r1, %r2\nexit",
                 "t.s:1:5: error: type '.s32' not allowed for 'sqrt' (allowed: f32)");
    expect_error("add %r1, %r2, %r3\nexit",
                 "t.s:1:4: error: 'add' needs a type suffix (allowed: s32 u32 f32)");
    expect_error("add.s32.u32 %r1, %r2, %r3\nexit",
                 "t.s:1:8: error: unexpected suffix '.u32' on 'add'");
    expect_error("exit.s32\n", "t.s:1:5: error: unexpected suffix '.s32' on 'exit'");
    expect_error("setp.f32 %p1, %r1, %r2\nexit",
                 "t.s:1:5: error: 'setp' needs a comparison (.eq .ne .lt .le .gt .ge), "
                 "got '.f32'");
    expect_error("ld.f32 %r1, [%r2]\nexit",
                 "t.s:1:3: error: 'ld' needs a state space (.global, .shared or .param), "
                 "got '.f32'");
    expect_error("st.param.u32 [a], %r1\nexit",
                 "t.s:1:3: error: cannot store to .param (parameters are read-only)");
    expect_error(".param a\nld.param.u8 %r1, [a]\nexit",
                 "t.s:2:9: error: type '.u8' not allowed for 'ld.param' "
                 "(allowed: b32 s32 u32 f32)");
    expect_error("atom.global.min.f32 %r1, [%r2], %r3\nexit",
                 "t.s:1:16: error: type '.f32' not allowed for 'atom.min' (allowed: s32 u32)");
    expect_error("atom.global.inc.u32 %r1, [%r2], %r3\nexit",
                 "t.s:1:12: error: 'atom' needs an operation (.add .min .max .exch .cas), "
                 "got '.inc'");
    expect_error("bar 0\nexit", "t.s:1:4: error: 'bar' needs '.sync' (write bar.sync)");
    expect_error("bar.sync 1\nexit", "t.s:1:10: error: only barrier 0 is supported, got '1'");
    expect_error("@%r1 exit\n",
                 "t.s:1:2: error: guard must be a predicate %p0..%p7, got '%r1'");
    expect_error("cvt.f32 %r1, %r2\nexit",
                 "t.s:1:8: error: 'cvt' needs a type suffix (allowed: s32 u32 f32 u8 s8 u16 s16 f16 bf16 tf32 e4m3 e5m2)");
}

static void test_errors_operands(void **state)
{
    (void)state;
    expect_error("mov.u32 %r1, %tid.w\nexit",
                 "t.s:1:14: error: unknown special register '%tid.w'");
    expect_error("mov.pred %p8, %p1\nexit",
                 "t.s:1:10: error: unknown predicate '%p8' (predicates are %p0..%p7)");
    expect_error("mov.u32 %r1, 5000000000\nexit",
                 "t.s:1:14: error: immediate 5000000000 does not fit 32 bits");
    expect_error("mov.u32 %r1, 4294967296\nexit",
                 "t.s:1:14: error: immediate 4294967296 does not fit 32 bits");
    expect_error("mov.s32 %r1, -2147483649\nexit",
                 "t.s:1:14: error: immediate -2147483649 does not fit 32 bits");
    expect_error("mov.u32 %r1, 0x100000000\nexit",
                 "t.s:1:14: error: immediate 0x100000000 does not fit 32 bits");
    expect_error("add.s32 %r1, %r2, 1.5\nexit",
                 "t.s:1:19: error: float immediate '1.5' needs an f32 instruction");
    expect_error("mov.u32 %r1, 0f3F800000\nexit",
                 "t.s:1:14: error: float immediate '0f3F800000' needs an f32 instruction");
    expect_error("mov.f32 %r1, 0x3F800000\nexit",
                 "t.s:1:14: error: hex immediate '0x3F800000' in an f32 instruction "
                 "(write 0f3F800000 for raw bits or a decimal value)");
    expect_error("mov.f32 %r1, 1e39\nexit",
                 "t.s:1:14: error: float immediate '1e39' is out of the f32 range");
    expect_error("mov.u32 %r1, 12abc\nexit", "t.s:1:14: error: bad number '12abc'");
    expect_error("mov.f32 %r1, 0f3F80\nexit", "t.s:1:14: error: bad number '0f3F80'");
    expect_error("ld.global.f32 %r1, [%r2+4\nexit",
                 "t.s:1:26: error: expected ']' after memory operand");
    expect_error("ld.global.f32 %r1, [%r2 x]\nexit",
                 "t.s:1:25: error: expected ']' after memory operand");
    expect_error("ld.global.f32 %r1, [%r2+%r3]\nexit",
                 "t.s:1:25: error: expected an integer offset after '+', got '%r3]'");
    expect_error("ld.global.f32 %r1, [%p1]\nexit",
                 "t.s:1:21: error: memory base must be a %r register, got '%p1'");
    expect_error(".param a\n.param b\n.param n\nld.param.u32 %r1, [m]\nexit",
                 "t.s:4:20: error: unknown parameter 'm' (declared: a, b, n)");
    expect_error("ld.param.u32 %r1, [m]\nexit",
                 "t.s:1:20: error: unknown parameter 'm' (no .param declared)");
    expect_error(".param a\nld.param.u32 %r1, [%r2]\nexit",
                 "t.s:2:19: error: 'ld.param' needs a parameter name like [n], got '[%r2]'");
    expect_error("ld.shared.f32 %r1, [nope]\nexit",
                 "t.s:1:21: error: unknown shared array 'nope'");
    expect_error(".shared tile 64\nld.global.f32 %r1, [tile]\nexit",
                 "t.s:2:21: error: shared array 'tile' used in a .global address");
    expect_error(".param n\nmov.u32 %r1, n\nexit",
                 "t.s:2:14: error: 'n' is a parameter: load it first with "
                 "ld.param.u32 %rN, [n]");
    expect_error("mov.u32 %r1, foo\nexit",
                 "t.s:1:14: error: unknown name 'foo' (expected a register, an immediate "
                 "or a shared array)");
    expect_error("add.s32 %r1, , %r2\nexit", "t.s:1:14: error: missing operand");
    expect_error("add.s32 %r1, %r2,\nexit", "t.s:1:18: error: missing operand");
    expect_error("add.s32 %r1, %r2, %r3 xyz\nexit",
                 "t.s:1:23: error: trailing characters 'xyz'");
    expect_error("add.s32 %tid.x, %r1, %r2\nexit",
                 "t.s:1:9: error: cannot write to special register '%tid.x'");
    expect_error("add.s32 5, %r1, %r2\nexit",
                 "t.s:1:9: error: destination of 'add' must be a %r register, got '5'");
    expect_error("setp.eq.s32 %r1, %r1, %r2\nexit",
                 "t.s:1:13: error: destination of 'setp' must be a predicate %p0..%p7, "
                 "got '%r1'");
    expect_error("add.s32 %r1, %p1, %r2\nexit",
                 "t.s:1:14: error: operand 2 of 'add' must be a %r register or an "
                 "immediate, got '%p1'");
    expect_error("selp.s32 %r1, %r2, %r3, %r4\nexit",
                 "t.s:1:25: error: operand 4 of 'selp' must be a predicate %p0..%p7, "
                 "got '%r4'");
    expect_error("ld.global.u32 %r1, %r2\nexit",
                 "t.s:1:20: error: operand 2 of 'ld' must be a memory address like "
                 "[%r1+4], got '%r2'");
    expect_error("bra %r1\nexit", "t.s:1:5: error: 'bra' needs a label name, got '%r1'");
    /* An embedded NUL byte (the length, not strlen, bounds the source). */
    const char nul[] = "exit\nmov.u32 %r1, 2\0\nexit\n";
    isa_program_t p;
    simt_err_t err;
    assert_int_equal(asm_assemble(nul, sizeof nul - 1, "t.s", &p, &err), -1);
    assert_int_equal(err.code, SIMT_E_ASM);
    assert_non_null(strstr(err.msg, "t.s:2:15: error: unexpected NUL byte\n"));
}

static void test_errors_program(void **state)
{
    (void)state;
    expect_error("bra LOOP\nexit\n", "t.s:1:5: error: undefined label 'LOOP'");
    expect_error(".param a\n.param b\n.param c\nL1: nop\nL1: exit\n",
                 "t.s:5:1: error: duplicate label 'L1' (first defined at line 4)");
    expect_error(".shared x 16\n.shared x 8\nexit",
                 "t.s:2:9: error: shared memory array 'x' redeclared");
    expect_error(".param a\n.param a\nexit", "t.s:2:8: error: parameter 'a' redeclared");
    expect_error(".param a\n.shared a 4\nexit",
                 "t.s:2:9: error: 'a' is already declared as a parameter");
    expect_error(".shared x 0\nexit",
                 "t.s:1:11: error: shared array size must be 1..16777216 bytes, got '0'");
    expect_error(".shared x\nexit", "t.s:1:10: error: '.shared x' needs a size in bytes");
    expect_error(".shared x 16 extra\nexit", "t.s:1:14: error: trailing characters 'extra'");
    expect_error(".foo 1\nexit",
                 "t.s:1:1: error: unknown directive '.foo' (expected .kernel, .param or .shared)");
    expect_error(".kernel a\n.kernel b\nexit",
                 "t.s:2:1: error: second '.kernel' directive (one kernel per file)");
    expect_error(".param\nexit", "t.s:1:7: error: '.param' needs a name");

    char src[1024] = "";
    for (int i = 0; i <= ISA_MAX_PARAMS; i++) {
        char line[32];
        snprintf(line, sizeof line, ".param p%d\n", i);
        strcat(src, line);
    }
    strcat(src, "exit\n");
    expect_error(src, "t.s:33:8: error: too many parameters (at most 32)");

    expect_error_full("// nothing here\n\n",
                      "t.s: error: no instructions (a kernel needs at least exit)");
    expect_error("", "t.s: error: no instructions (a kernel needs at least exit)");
    expect_error("mov.u32 %r1, 1\nadd.u32 %r1, %r1, 1\n",
                 "t.s:2:1: error: kernel can run past its last instruction; end it with exit");
    expect_error("mov.u32 %r1, 1\n  @%p1 exit\n",
                 "t.s:2:8: error: kernel can run past its last instruction; end it with exit");
    expect_error("L: nop\n@%p0 bra L\n",
                 "t.s:2:6: error: kernel can run past its last instruction; end it with exit");
    expect_error("bra END\nexit\nEND:\n",
                 "t.s:1:5: error: label 'END' is after the last instruction; put an exit "
                 "after it");

    /* An unreachable tail may end any way it likes. */
    isa_program_t p;
    assemble_ok("exit\nadd.u32 %r1, %r1, 1\n", &p);
    isa_program_free(&p);
}

/* ------------------------------------------------------------------ */
/* Reconvergence                                                       */

/* Reconvergence pc of every instruction, in order. */
static void expect_reconv(const char *src, const uint32_t *want, uint32_t n)
{
    isa_program_t p;
    assemble_ok(src, &p);
    assert_int_equal(p.ncode, n);
    for (uint32_t i = 0; i < n; i++) {
        if (p.code[i].reconv != want[i])
            fail_msg("pc %u: reconv %u, expected %u", (unsigned)i,
                     (unsigned)p.code[i].reconv, (unsigned)want[i]);
    }
    isa_program_free(&p);
}

#define NO ISA_NO_PC

static void test_reconv_if_else(void **state)
{
    (void)state;
    /* 1 -> {4, 2}; 2 -> 3 -> 5; 4 -> 5. Both sides meet at 5. The
     * unconditional bra at 3 has only the edge to 5. */
    const uint32_t want[] = { NO, 5, NO, 5, NO, NO };
    expect_reconv("setp.lt.s32 %p1, %tid.x, 16\n"   /* 0 */
                  "@%p1 bra ELSE\n"                 /* 1 */
                  "add.s32 %r1, %r1, 1\n"           /* 2 */
                  "bra END\n"                       /* 3 */
                  "ELSE: add.s32 %r1, %r1, 2\n"     /* 4 */
                  "END: exit\n",                    /* 5 */
                  want, 6);
}

static void test_reconv_if_without_else(void **state)
{
    (void)state;
    const uint32_t want[] = { NO, 3, NO, NO, NO };
    expect_reconv("setp.lt.s32 %p1, %tid.x, 16\n"   /* 0 */
                  "@!%p1 bra SKIP\n"                /* 1 */
                  "add.s32 %r1, %r1, 1\n"           /* 2 */
                  "SKIP: st.global.u32 [%r2], %r1\n"/* 3 */
                  "exit\n",                         /* 4 */
                  want, 5);
}

static void test_reconv_nested(void **state)
{
    (void)state;
    /* Outer if 1 -> {OUT=7, 2}; inner if 3 -> {IN=5, 4}. The inner one
     * rejoins at 5, the outer at 7. */
    const uint32_t want[] = { NO, 7, NO, 5, NO, NO, NO, NO };
    expect_reconv("setp.lt.s32 %p1, %tid.x, 16\n"   /* 0 */
                  "@!%p1 bra OUT\n"                 /* 1 */
                  "setp.lt.s32 %p2, %tid.x, 8\n"    /* 2 */
                  "@!%p2 bra IN\n"                  /* 3 */
                  "add.s32 %r1, %r1, 1\n"           /* 4 */
                  "IN: add.s32 %r1, %r1, 2\n"       /* 5 */
                  "nop\n"                           /* 6 */
                  "OUT: exit\n",                    /* 7 */
                  want, 8);

    /* An if/else nested in the then-side of an if/else: the inner one
     * rejoins at J2 = 7, the outer at J1 = 9; the unconditional bras at 5
     * and 7 have their targets as post-dominators. */
    const uint32_t want2[] = { NO, 9, NO, 7, NO, 7, NO, 9, NO, NO };
    expect_reconv("setp.lt.s32 %p1, %tid.x, 16\n"   /* 0 */
                  "@%p1 bra E1\n"                   /* 1: -> 8 | 2 */
                  "setp.lt.s32 %p2, %tid.x, 8\n"    /* 2 */
                  "@%p2 bra E2\n"                   /* 3: -> 6 | 4 */
                  "add.s32 %r1, %r1, 1\n"           /* 4 */
                  "bra J2\n"                        /* 5: -> 7 */
                  "E2: add.s32 %r1, %r1, 2\n"       /* 6 */
                  "J2: bra J1\n"                    /* 7: -> 9 */
                  "E1: add.s32 %r1, %r1, 3\n"       /* 8 */
                  "J1: exit\n",                     /* 9 */
                  want2, 10);
}

static void test_reconv_loops(void **state)
{
    (void)state;
    /* do { r1++ } while (r1 < tid): back edge 3 -> 1, exit at 4. */
    const uint32_t want[] = { NO, NO, NO, 4, NO, NO };
    expect_reconv("mov.u32 %r1, 0\n"                /* 0 */
                  "LOOP: add.u32 %r1, %r1, 1\n"     /* 1 */
                  "setp.lt.u32 %p1, %r1, %tid.x\n"  /* 2 */
                  "@%p1 bra LOOP\n"                 /* 3 */
                  "st.global.u32 [%r2], %r1\n"      /* 4 */
                  "exit\n",                         /* 5 */
                  want, 6);

    /* A loop with a data-dependent break in the middle: both the break
     * (3 -> DONE) and the back edge (6 -> LOOP | 7) rejoin at DONE = 7. */
    const uint32_t want2[] = { NO, NO, NO, 7, NO, NO, 7, NO };
    expect_reconv("mov.u32 %r1, 0\n"                /* 0 */
                  "LOOP: ld.global.u32 %r2, [%r1]\n"/* 1 */
                  "setp.eq.u32 %p1, %r2, 0\n"       /* 2 */
                  "@%p1 bra DONE\n"                 /* 3 */
                  "add.u32 %r1, %r1, 4\n"           /* 4 */
                  "setp.lt.u32 %p2, %r1, 64\n"      /* 5 */
                  "@%p2 bra LOOP\n"                 /* 6 */
                  "DONE: exit\n",                   /* 7 */
                  want2, 8);

    /* A while loop: test at the top, unconditional back edge. */
    const uint32_t want3[] = { NO, NO, 5, NO, 1, NO };
    expect_reconv("mov.u32 %r1, 0\n"                /* 0 */
                  "TOP: setp.ge.u32 %p1, %r1, %tid.x\n" /* 1 */
                  "@%p1 bra END\n"                  /* 2: -> 5 | 3 */
                  "add.u32 %r1, %r1, 1\n"           /* 3 */
                  "bra TOP\n"                       /* 4 */
                  "END: exit\n",                    /* 5 */
                  want3, 6);
}

static void test_reconv_early_exit(void **state)
{
    (void)state;
    /* The then-side exits: the two paths never meet again, so the branch
     * has no reconvergence pc. */
    const uint32_t want[] = { NO, NO, NO, NO, NO, NO };
    expect_reconv("setp.lt.s32 %p1, %tid.x, 16\n"   /* 0 */
                  "@!%p1 bra SKIP\n"                /* 1: -> 4 | 2 */
                  "st.global.u32 [%r2], %r1\n"      /* 2 */
                  "exit\n"                          /* 3 */
                  "SKIP: add.s32 %r1, %r1, 1\n"     /* 4 */
                  "exit\n",                         /* 5 */
                  want, 6);

    /* A guarded exit inside one side: the lanes that stay still rejoin
     * only at the virtual exit (path 2 -> exit avoids 6). */
    const uint32_t want2[] = { NO, NO, NO, NO, 6, NO, NO };
    expect_reconv("setp.lt.s32 %p1, %tid.x, 16\n"   /* 0 */
                  "@%p1 bra ELSE\n"                 /* 1: -> 5 | 2 */
                  "@%p2 exit\n"                     /* 2: -> exit | 3 */
                  "add.s32 %r1, %r1, 1\n"           /* 3 */
                  "bra END\n"                       /* 4 */
                  "ELSE: add.s32 %r1, %r1, 2\n"     /* 5 */
                  "END: exit\n",                    /* 6 */
                  want2, 7);

    /* A guarded exit before the if does not matter to it. */
    const uint32_t want3[] = { NO, NO, 4, NO, NO };
    expect_reconv("setp.lt.s32 %p1, %tid.x, 16\n"   /* 0 */
                  "@%p1 exit\n"                     /* 1 */
                  "@%p2 bra J\n"                    /* 2: -> 4 | 3 */
                  "nop\n"                           /* 3 */
                  "J: exit\n",                      /* 4 */
                  want3, 5);
}

static void test_reconv_endless_loop(void **state)
{
    (void)state;
    /* L: bra L never reaches an exit: no post-dominator, no reconv. */
    const uint32_t want[] = { NO };
    expect_reconv("L: bra L\n", want, 1);
    /* One side spins forever: only paths that can reach an exit count, so
     * the branch's post-dominator is the other side's first instruction. */
    const uint32_t want2[] = { 1, 3, NO, NO };
    expect_reconv("@%p0 bra SPIN\n"                 /* 0: -> 2 | 1 */
                  "bra OUT\n"                       /* 1: -> 3 */
                  "SPIN: bra SPIN\n"                /* 2 */
                  "OUT: exit\n",                    /* 3 */
                  want2, 4);
}

/* Many sequential ifs: every branch reconverges at its own label. Also a
 * size check: 3000 instructions must assemble (post-dominators O(n^2) at
 * worst). */
static void test_reconv_large(void **state)
{
    (void)state;
    const int nif = 1000;
    size_t cap = (size_t)nif * 96 + 64;
    char *src = malloc(cap);
    assert_non_null(src);
    size_t len = 0;
    for (int i = 0; i < nif; i++)
        len += (size_t)snprintf(src + len, cap - len,
                                "setp.lt.s32 %%p1, %%tid.x, %d\n@%%p1 bra S%d\n"
                                "add.s32 %%r1, %%r1, 1\nS%d:\n", i, i, i);
    len += (size_t)snprintf(src + len, cap - len, "exit\n");
    isa_program_t p;
    assemble_ok(src, &p);
    assert_int_equal(p.ncode, (uint32_t)nif * 3 + 1);
    for (int i = 0; i < nif; i++) {
        const isa_instr_t *b = &p.code[3 * i + 1];
        assert_int_equal(b->op, OP_BRA);
        assert_int_equal(b->opd[0].imm, 3u * (uint32_t)i + 3);
        assert_int_equal(b->reconv, 3u * (uint32_t)i + 3);
    }
    isa_program_free(&p);
    free(src);
}

/* ------------------------------------------------------------------ */
/* Disassembly                                                         */

static void assert_same_program(const isa_program_t *x, const isa_program_t *y)
{
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->ncode, y->ncode);
    for (uint32_t i = 0; i < x->ncode; i++) {
        const isa_instr_t *a = &x->code[i], *b = &y->code[i];
        assert_int_equal(a->op, b->op);
        assert_int_equal(a->type, b->type);
        assert_int_equal(a->stype, b->stype);
        assert_int_equal(a->cmp, b->cmp);
        assert_int_equal(a->space, b->space);
        assert_int_equal(a->aop, b->aop);
        assert_int_equal(a->guard, b->guard);
        assert_int_equal(a->guard_neg, b->guard_neg);
        assert_int_equal(a->nopd, b->nopd);
        assert_int_equal(a->reconv, b->reconv);
        for (int k = 0; k < a->nopd; k++) {
            assert_int_equal(a->opd[k].kind, b->opd[k].kind);
            assert_int_equal(a->opd[k].index, b->opd[k].index);
            assert_int_equal(a->opd[k].imm, b->opd[k].imm);
        }
    }
    assert_int_equal(x->nparams, y->nparams);
    for (uint32_t i = 0; i < x->nparams; i++)
        assert_string_equal(x->params[i], y->params[i]);
    assert_int_equal(x->nshared, y->nshared);
    for (uint32_t i = 0; i < x->nshared; i++) {
        assert_string_equal(x->shared[i].name, y->shared[i].name);
        assert_int_equal(x->shared[i].value, y->shared[i].value);
        assert_int_equal(x->shared[i].size, y->shared[i].size);
    }
    assert_int_equal(x->shared_bytes, y->shared_bytes);
    assert_int_equal(x->nregs, y->nregs);
    assert_int_equal(x->npreds, y->npreds);
}

/* disassemble(p) assembles back to p, and disassembling that gives the
 * same text again. */
static void check_roundtrip(const isa_program_t *p)
{
    char *text = asm_disassemble(p);
    assert_non_null(text);
    isa_program_t q;
    simt_err_t err;
    if (asm_assemble(text, strlen(text), "round.s", &q, &err))
        fail_msg("listing does not assemble:\n%s\n---\n%s", err.msg, text);
    assert_same_program(p, &q);
    char *text2 = asm_disassemble(&q);
    assert_non_null(text2);
    /* Only the first comment line (it names the file) may differ. */
    assert_string_equal(strchr(text, '\n'), strchr(text2, '\n'));
    free(text);
    free(text2);
    isa_program_free(&q);
}

static void test_roundtrip_all_ops(void **state)
{
    (void)state;
    isa_program_t p;
    simt_err_t err;
    if (asm_assemble_file(SIMT_SOURCE_DIR "/tests/asm/all_ops.s", &p, &err))
        fail_msg("%s", err.msg);
    /* The fixture really has every opcode. */
    for (int op = 0; op < OP_COUNT; op++) {
        int found = 0;
        for (uint32_t i = 0; i < p.ncode; i++)
            found |= p.code[i].op == op;
        if (!found)
            fail_msg("all_ops.s lacks %s", isa_ops[op].name);
    }
    assert_string_equal(p.name, "all_ops");
    assert_int_equal(p.nregs, 64);
    assert_int_equal(p.npreds, 8);
    check_roundtrip(&p);

    /* Without label names the listing invents L_<pc> labels. */
    p.nlabels = 0;
    char *text = asm_disassemble(&p);
    assert_non_null(text);
    assert_non_null(strstr(text, "\nL_0:\n"));
    assert_non_null(strstr(text, "bra L_0\n"));
    free(text);
    check_roundtrip(&p);
    isa_program_free(&p);
}

static void test_roundtrip_programs(void **state)
{
    (void)state;
    const char *progs[] = {
        "exit\n",
        ".kernel k\n.param x\n.shared s 3\n.shared t 100\nmov.u32 %r1, t\n"
        "st.shared.u8 [t+99], 1\nst.shared.u8 [s+2], 1\nld.param.u32 %r2, [x]\nexit\n",
        "mov.f32 %r1, 0.1\nmov.f32 %r2, -0.0\nmov.f32 %r3, 1e-45\nmov.f32 %r4, 3.4028235e38\n"
        "mov.f32 %r5, 0f7FC00001\nmov.f32 %r6, 0fFF800000\nmov.f32 %r7, 16777216\n"
        "mov.s32 %r8, -2147483648\nmov.u32 %r9, 4294967295\nmov.b32 %r10, -1\nexit\n",
        "ld.global.u32 %r1, [%r2-2147483648]\nld.global.u32 %r1, [%r2+2147483647]\n"
        "ld.global.u32 %r1, [4294967295]\nst.global.u16 [%r63-1], %r0\nexit\n",
        "L1:\nL2: @%p1 bra L3\nL3: @!%p1 bra L1\nexit\nEND:\n",
        /* A real label named like a generated one. */
        "L_1: @%p0 bra X\nX: @%p1 bra L_1\nexit\n",
    };
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        isa_program_t p;
        assemble_ok(progs[i], &p);
        check_roundtrip(&p);
        if (i == 4) {
            p.nlabels = 1;       /* keep only L1 (pc 0): L3 becomes L_1 */
            check_roundtrip(&p);
        }
        if (i == 5) {
            /* Drop X (pc 1): the generated name for pc 1 must not be L_1. */
            p.nlabels = 1;
            char *text = asm_disassemble(&p);
            assert_non_null(strstr(text, "L_1_:\n"));
            free(text);
            check_roundtrip(&p);
        }
        isa_program_free(&p);
    }
}

static void test_format_instr(void **state)
{
    (void)state;
    isa_program_t p;
    assemble_ok(".param a\n.shared tile 32\n"
                "@!%p2 mad.lo.s32 %r1, %r2, -3, %tid.x\n"
                "ld.shared.f32 %r3, [tile+4]\n"
                "ld.param.u32 %r4, [a]\n"
                "setp.le.f32 %p1, %r3, 2\n"
                "cvt.s32.f32 %r5, 1.5\n"
                "LOOP: @%p1 bra.uni LOOP\n"
                "ld.global.u32 %r1, [%r2-4]\n"
                "exit\n", &p);
    const char *want[] = {
        "@!%p2 mad.s32 %r1, %r2, -3, %tid.x",
        "ld.shared.f32 %r3, [tile+4]",
        "ld.param.u32 %r4, [a]",
        "setp.le.f32 %p1, %r3, 2.0",
        "cvt.s32.f32 %r5, 1.5",
        "@%p1 bra LOOP",
        "ld.global.u32 %r1, [%r2-4]",
        "exit",
    };
    char buf[128];
    for (uint32_t i = 0; i < p.ncode; i++) {
        int n = asm_format_instr(&p, &p.code[i], buf, sizeof buf);
        assert_string_equal(buf, want[i]);
        assert_int_equal(n, (int)strlen(want[i]));
    }
    /* Like snprintf: the full length, truncated text, NUL-terminated. */
    char small[6];
    int n = asm_format_instr(&p, &p.code[0], small, sizeof small);
    assert_int_equal(n, (int)strlen(want[0]));
    assert_string_equal(small, "@!%p2");
    assert_int_equal(asm_format_instr(&p, &p.code[0], NULL, 0), (int)strlen(want[0]));
    /* Without the program, labels get generated names. */
    asm_format_instr(NULL, &p.code[5], buf, sizeof buf);
    assert_string_equal(buf, "@%p1 bra L_5");
    isa_program_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arith_forms),
        cmocka_unit_test(test_compare_select_convert),
        cmocka_unit_test(test_predicate_ops),
        cmocka_unit_test(test_memory_forms),
        cmocka_unit_test(test_operands_and_immediates),
        cmocka_unit_test(test_guards_labels_comments),
        cmocka_unit_test(test_program_fields),
        cmocka_unit_test(test_assemble_file),
        cmocka_unit_test(test_error_format),
        cmocka_unit_test(test_errors_instructions),
        cmocka_unit_test(test_errors_async),
        cmocka_unit_test(test_vector_forms),
        cmocka_unit_test(test_errors_vector),
        cmocka_unit_test(test_errors_operands),
        cmocka_unit_test(test_errors_program),
        cmocka_unit_test(test_reconv_if_else),
        cmocka_unit_test(test_reconv_if_without_else),
        cmocka_unit_test(test_reconv_nested),
        cmocka_unit_test(test_reconv_loops),
        cmocka_unit_test(test_reconv_early_exit),
        cmocka_unit_test(test_reconv_endless_loop),
        cmocka_unit_test(test_reconv_large),
        cmocka_unit_test(test_roundtrip_all_ops),
        cmocka_unit_test(test_roundtrip_programs),
        cmocka_unit_test(test_format_instr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
