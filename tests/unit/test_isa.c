/* test_isa.c - the opcode table and the name helpers of isa.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "asm.h"
#include "isa.h"
#include "sm.h"

/* Every opcode has a name, a doc line, a valid unit and at least one
 * allowed type; names are unique. */
static void test_table_complete(void **state)
{
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) {
        const isa_opinfo_t *o = &isa_ops[op];
        assert_non_null(o->name);
        assert_non_null(o->doc);
        assert_true(strlen(o->name) > 0);
        assert_true(strlen(o->doc) > 10);
        assert_true(o->unit < UNIT_COUNT);
        assert_true(o->types != 0);
        assert_true(o->types < (1u << T_COUNT));
        assert_true(o->nsrc + o->has_dst <= ISA_MAX_OPDS);
        for (int other = 0; other < op; other++)
            assert_string_not_equal(o->name, isa_ops[other].name);
    }
}

static void test_table_entries(void **state)
{
    (void)state;
    assert_string_equal(isa_ops[OP_ADD].name, "add");
    assert_string_equal(isa_ops[OP_FMA].name, "fma");
    assert_string_equal(isa_ops[OP_MULHI].name, "mul.hi");
    assert_string_equal(isa_ops[OP_BAR].name, "bar.sync");
    assert_string_equal(isa_ops[OP_EXIT].name, "exit");

    /* Units as the brief assigns them. */
    const int fma_ops[] = { OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_MIN, OP_MAX,
                            OP_ABS, OP_NEG };
    for (size_t i = 0; i < sizeof fma_ops / sizeof fma_ops[0]; i++)
        assert_int_equal(isa_ops[fma_ops[i]].unit, UNIT_FMA);
    const int sfu_ops[] = { OP_RCP, OP_SQRT, OP_RSQRT, OP_EX2, OP_LG2, OP_SIN, OP_COS,
                            OP_DIV };
    for (size_t i = 0; i < sizeof sfu_ops / sizeof sfu_ops[0]; i++)
        assert_int_equal(isa_ops[sfu_ops[i]].unit, UNIT_SFU);
    const int alu_ops[] = { OP_MOV, OP_MULHI, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_SHL,
                            OP_SHR, OP_SETP, OP_SELP, OP_CVT };
    for (size_t i = 0; i < sizeof alu_ops / sizeof alu_ops[0]; i++)
        assert_int_equal(isa_ops[alu_ops[i]].unit, UNIT_ALU);
    assert_int_equal(isa_ops[OP_LD].unit, UNIT_LSU);
    assert_int_equal(isa_ops[OP_ST].unit, UNIT_LSU);
    assert_int_equal(isa_ops[OP_ATOM].unit, UNIT_LSU);
    assert_int_equal(isa_ops[OP_BRA].unit, UNIT_BRANCH);
    assert_int_equal(isa_ops[OP_EXIT].unit, UNIT_BRANCH);
    assert_int_equal(isa_ops[OP_NOP].unit, UNIT_BRANCH);
    assert_int_equal(isa_ops[OP_BAR].unit, UNIT_BAR);

    /* Operand shapes. */
    assert_int_equal(isa_ops[OP_ADD].nsrc, 2);
    assert_int_equal(isa_ops[OP_ADD].has_dst, 1);
    assert_int_equal(isa_ops[OP_FMA].nsrc, 3);
    assert_int_equal(isa_ops[OP_SELP].nsrc, 3);
    assert_int_equal(isa_ops[OP_ST].nsrc, 2);
    assert_int_equal(isa_ops[OP_ST].has_dst, 0);
    assert_int_equal(isa_ops[OP_BRA].has_dst, 0);
    assert_int_equal(isa_ops[OP_EXIT].nsrc, 0);

    /* Allowed types. */
    assert_true(isa_ops[OP_ADD].types & (1u << T_F32));
    assert_true(isa_ops[OP_ADD].types & (1u << T_S32));
    assert_false(isa_ops[OP_ADD].types & (1u << T_U8));
    assert_int_equal(isa_ops[OP_FMA].types, 1u << T_F32);
    assert_true(isa_ops[OP_AND].types & (1u << T_PRED));
    assert_true(isa_ops[OP_LD].types & (1u << T_S16));
    assert_false(isa_ops[OP_SQRT].types & (1u << T_S32));
    assert_int_equal(isa_ops[OP_EXIT].types, 1u << T_NONE);
}

static void test_instr_unit(void **state)
{
    (void)state;
    isa_instr_t in;
    memset(&in, 0, sizeof in);
    in.op = OP_ADD;
    in.type = T_F32;
    assert_int_equal(isa_instr_unit(&in), UNIT_FMA);
    in.type = T_S32;
    assert_int_equal(isa_instr_unit(&in), UNIT_ALU);
    in.op = OP_MIN;
    in.type = T_U32;
    assert_int_equal(isa_instr_unit(&in), UNIT_ALU);
    in.op = OP_DIV;
    assert_int_equal(isa_instr_unit(&in), UNIT_SFU);
    in.op = OP_LD;
    in.type = T_F32;
    in.space = SPACE_GLOBAL;
    assert_int_equal(isa_instr_unit(&in), UNIT_LSU);
    in.space = SPACE_SHARED;
    assert_int_equal(isa_instr_unit(&in), UNIT_LSU);
    /* arguments come from the constant bank: the timing charges ld.param to
     * the ALU, and the window, which asks the same function, says so too */
    in.space = SPACE_PARAM;
    in.type = T_U32;
    assert_int_equal(isa_instr_unit(&in), UNIT_ALU);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(isa_type_name(T_NONE), "");
    assert_string_equal(isa_type_name(T_B32), "b32");
    assert_string_equal(isa_type_name(T_F32), "f32");
    assert_string_equal(isa_type_name(T_S16), "s16");
    assert_string_equal(isa_type_name(T_PRED), "pred");
    assert_string_equal(isa_type_name(T_COUNT), "?");
    assert_string_equal(isa_cmp_name(CMP_EQ), "eq");
    assert_string_equal(isa_cmp_name(CMP_GE), "ge");
    assert_string_equal(isa_cmp_name(CMP_COUNT), "?");
    assert_string_equal(isa_space_name(SPACE_GLOBAL), "global");
    assert_string_equal(isa_space_name(SPACE_SHARED), "shared");
    assert_string_equal(isa_space_name(SPACE_PARAM), "param");
    assert_string_equal(isa_aop_name(AOP_ADD), "add");
    assert_string_equal(isa_aop_name(AOP_CAS), "cas");
    assert_string_equal(isa_aop_name(AOP_EXCH), "exch");
    assert_string_equal(isa_special_name(SR_TID_X), "%tid.x");
    assert_string_equal(isa_special_name(SR_NCTAID_Z), "%nctaid.z");
    assert_string_equal(isa_special_name(SR_LANEID), "%laneid");
    assert_string_equal(isa_special_name(SR_CLOCK), "%clock");
    assert_string_equal(isa_special_name(SR_COUNT), "?");
    for (int s = 0; s < SR_COUNT; s++)
        assert_int_equal(isa_special_name((isa_special_t)s)[0], '%');
}

static void test_type_bytes(void **state)
{
    (void)state;
    assert_int_equal(isa_type_bytes(T_NONE), 0);
    assert_int_equal(isa_type_bytes(T_B32), 4);
    assert_int_equal(isa_type_bytes(T_U32), 4);
    assert_int_equal(isa_type_bytes(T_S32), 4);
    assert_int_equal(isa_type_bytes(T_F32), 4);
    assert_int_equal(isa_type_bytes(T_U8), 1);
    assert_int_equal(isa_type_bytes(T_S8), 1);
    assert_int_equal(isa_type_bytes(T_U16), 2);
    assert_int_equal(isa_type_bytes(T_S16), 2);
    assert_int_equal(isa_type_bytes(T_PRED), 0);
}

static void test_program_free(void **state)
{
    (void)state;
    isa_program_t p;
    memset(&p, 0, sizeof p);
    isa_program_free(&p);          /* empty: nothing to free */
    isa_program_free(NULL);
    p.code = calloc(3, sizeof *p.code);
    p.ncode = 3;
    p.labels = calloc(1, sizeof *p.labels);
    p.nlabels = 1;
    isa_program_free(&p);
    assert_null(p.code);
    assert_null(p.labels);
    assert_int_equal(p.ncode, 0);
}

/* ---- operand roles and state spaces (the table against the ISA) -------- */

/* One instance of every opcode, written by hand as the ISA reference
 * (isa.h, README "The ISA") spells it, with the operand kinds the
 * assembler must produce (R register or vector, P predicate, I immediate,
 * S special register, M memory, L label) and the state space. This list,
 * not the table, is the reference: a role missing, added or in the wrong
 * place in isa_ops[].opd fails here. */
typedef struct instance {
    isa_op_t op;
    const char *text;
    const char *kinds;
    isa_space_t space;
} instance_t;

static const instance_t instances[] = {
    { OP_NOP, "nop", "", SPACE_NONE },
    { OP_MOV, "mov.u32 %r1, %tid.x", "RS", SPACE_NONE },
    { OP_ADD, "add.f32 %r1, %r2, 1.5", "RRI", SPACE_NONE },
    { OP_SUB, "sub.s32 %r1, %r2, %r3", "RRR", SPACE_NONE },
    { OP_MUL, "mul.lo.u32 %r1, %r2, 4", "RRI", SPACE_NONE },
    { OP_MULHI, "mul.hi.u32 %r1, %r2, %r3", "RRR", SPACE_NONE },
    { OP_MAD, "mad.lo.s32 %r1, %r2, %r3, %r4", "RRRR", SPACE_NONE },
    { OP_FMA, "fma.f32 %r1, %r2, %r3, 2.0", "RRRI", SPACE_NONE },
    { OP_DIV, "div.u32 %r1, %r2, 3", "RRI", SPACE_NONE },
    { OP_REM, "rem.s32 %r1, %r2, 3", "RRI", SPACE_NONE },
    { OP_MIN, "min.f32 %r1, %r2, %r3", "RRR", SPACE_NONE },
    { OP_MAX, "max.s32 %r1, %r2, 7", "RRI", SPACE_NONE },
    { OP_ABS, "abs.f32 %r1, %r2", "RR", SPACE_NONE },
    { OP_NEG, "neg.s32 %r1, %r2", "RR", SPACE_NONE },
    { OP_RCP, "rcp.f32 %r1, %r2", "RR", SPACE_NONE },
    { OP_SQRT, "sqrt.f32 %r1, 2.0", "RI", SPACE_NONE },
    { OP_RSQRT, "rsqrt.f32 %r1, %r2", "RR", SPACE_NONE },
    { OP_EX2, "ex2.f32 %r1, %r2", "RR", SPACE_NONE },
    { OP_LG2, "lg2.f32 %r1, %r2", "RR", SPACE_NONE },
    { OP_SIN, "sin.f32 %r1, %r2", "RR", SPACE_NONE },
    { OP_COS, "cos.f32 %r1, %r2", "RR", SPACE_NONE },
    { OP_AND, "and.b32 %r1, %r2, 0xff", "RRI", SPACE_NONE },
    { OP_OR, "or.pred %p1, %p2, %p3", "PPP", SPACE_NONE },
    { OP_XOR, "xor.b32 %r1, %r2, %r3", "RRR", SPACE_NONE },
    { OP_NOT, "not.b32 %r1, %r2", "RR", SPACE_NONE },
    { OP_SHL, "shl.b32 %r1, %r2, 2", "RRI", SPACE_NONE },
    { OP_SHR, "shr.s32 %r1, %r2, 1", "RRI", SPACE_NONE },
    { OP_SETP, "setp.lt.s32 %p1, %r2, %r3", "PRR", SPACE_NONE },
    { OP_SELP, "selp.f32 %r1, %r2, 0.5, %p1", "RRIP", SPACE_NONE },
    { OP_CVT, "cvt.f32.s32 %r1, %r2", "RR", SPACE_NONE },
    { OP_LD, "ld.global.f32 %r1, [%r2+4]", "RM", SPACE_GLOBAL },
    { OP_LD, "ld.param.u32 %r1, [n]", "RM", SPACE_PARAM },
    { OP_LD, "ld.shared.v4.f32 {%r4, %r5, %r6, %r7}, [tile+16]", "RM", SPACE_SHARED },
    { OP_ST, "st.shared.u32 [tile], %r1", "MR", SPACE_SHARED },
    { OP_ST, "st.global.v2.f32 [%r2], {%r4, %r5}", "MR", SPACE_GLOBAL },
    { OP_ATOM, "atom.global.add.u32 %r1, [%r2], 1", "RMI", SPACE_GLOBAL },
    { OP_ATOM, "atom.shared.cas.b32 %r1, [%r2], %r3, %r4", "RMRR", SPACE_SHARED },
    { OP_BRA, "bra L", "L", SPACE_NONE },
    { OP_BAR, "bar.sync 0", "", SPACE_NONE },
    { OP_EXIT, "exit", "", SPACE_NONE },
    { OP_WMMA_LOAD_A, "wmma.load.a.global.f16 %r8, [%r2], 16", "RMI", SPACE_GLOBAL },
    { OP_WMMA_LOAD_B, "wmma.load.b.shared.f16 %r12, [%r2], %r3", "RMR", SPACE_SHARED },
    { OP_WMMA_LOAD_C, "wmma.load.c.global.f32 %r16, [%r2], 16", "RMI", SPACE_GLOBAL },
    { OP_WMMA_MMA, "wmma.mma.f16 %r16, %r8, %r12, %r16", "RRRR", SPACE_NONE },
    { OP_WMMA_STORE_D, "wmma.store.d.global.f32 [%r2], %r16, 16", "MRI", SPACE_GLOBAL },
    { OP_MBAR_INIT, "mbarrier.init.shared [tile], 1", "MI", SPACE_SHARED },
    { OP_MBAR_ARRIVE, "mbarrier.arrive.expect_tx.shared [tile], 512", "MI", SPACE_SHARED },
    { OP_MBAR_WAIT, "mbarrier.wait.parity.shared [tile], %r1", "MR", SPACE_SHARED },
    { OP_CP_BULK, "cp.async.bulk.shared.global.2x256 [tile+16], [%r2], 256, [tile]", "MMIM",
      SPACE_SHARED },
    { OP_WGMMA, "wgmma.mma_async.n64.f16 %r32, [tile], [tile+512], 128", "RMMI", SPACE_SHARED },
    { OP_WGMMA_WAIT, "wgmma.wait 0", "I", SPACE_NONE },
    { OP_MBAR_ARRIVE_REMOTE, "mbarrier.arrive.cluster.shared [tile], 1", "MI", SPACE_SHARED },
    { OP_BAR_CLUSTER, "barrier.cluster", "", SPACE_NONE },
    { OP_CP_BULK_ST, "cp.async.bulk.global.shared.2x256 [%r2], [tile+16], 256", "MMI", SPACE_SHARED },
    { OP_LD_CLUSTER, "ld.cluster.shared.u32 %r1, [%r2], 1", "RMI", SPACE_SHARED },
    { OP_ST_CLUSTER, "st.cluster.shared.f32 [%r2], 1.5, 0", "MII", SPACE_SHARED },
};
#define NINST (sizeof instances / sizeof instances[0])

static const char *const prologue = ".kernel t\n.param n\n.shared tile 2048\nL:\n";

/* The operand kinds a role allows, as the letters of instance_t.kinds. */
static const char *role_kinds(isa_role_t r)
{
    switch (r) {
    case ROLE_DST: case ROLE_FRAG_DST: case ROLE_FRAG: case ROLE_VEC: return "R";
    case ROLE_PDST: case ROLE_PSRC: return "P";
    case ROLE_SRC: return "RIS";
    case ROLE_USRC: return "RIS";
    case ROLE_MEM: case ROLE_GMEM: case ROLE_MBAR: return "M";
    case ROLE_LABEL: return "L";
    default: return "";
    }
}

static char kind_letter(const isa_operand_t *o)
{
    switch (o->kind) {
    case OPD_REG: return 'R';
    case OPD_PRED: return 'P';
    case OPD_IMM: return 'I';
    case OPD_SPECIAL: return 'S';
    case OPD_MEM: return 'M';
    case OPD_LABEL: return 'L';
    default: return '?';
    }
}

static int assemble_lines(const char *body, isa_program_t *p, simt_err_t *err)
{
    char src[8192];
    snprintf(src, sizeof src, "%s%s\n    exit\n", prologue, body);
    return asm_assemble(src, strlen(src), "roles.s", p, err);
}

/* Every opcode has an instance; each assembles to the kinds written above,
 * its space is the one written and one the table allows, and the table's
 * roles (with .pred/.vN/cas) agree with both. */
static void test_roles_assemble(void **state)
{
    (void)state;
    int covered[OP_COUNT] = { 0 };
    char body[8192] = "";
    for (size_t i = 0; i < NINST; i++) {
        covered[instances[i].op] = 1;
        strcat(body, "    ");
        strcat(body, instances[i].text);
        strcat(body, "\n");
    }
    for (int op = 0; op < OP_COUNT; op++)
        if (!covered[op])
            fail_msg("no instance of %s", isa_ops[op].name);
    isa_program_t p;
    simt_err_t err;
    if (assemble_lines(body, &p, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p.ncode, NINST + 1);
    for (size_t i = 0; i < NINST; i++) {
        const instance_t *t = &instances[i];
        const isa_instr_t *in = &p.code[i];
        isa_role_t roles[ISA_MAX_OPDS];
        assert_int_equal(in->op, t->op);
        assert_int_equal(in->nopd, strlen(t->kinds));
        assert_int_equal(isa_instr_roles(in, roles), in->nopd);
        for (int k = 0; k < in->nopd; k++) {
            char c = kind_letter(&in->opd[k]);
            if (c != t->kinds[k] || !strchr(role_kinds(roles[k]), c))
                fail_msg("%s operand %d: kind %c, expected %c, role %d", t->text, k + 1, c,
                         t->kinds[k], (int)roles[k]);
        }
        assert_int_equal(in->space, t->space);
        if (t->space == SPACE_NONE)
            assert_int_equal(isa_ops[t->op].spaces, 0);
        else
            assert_true(isa_ops[t->op].spaces & (1u << t->space));
    }
    isa_program_free(&p);
}

static void refused(const char *text, const char *want)
{
    isa_program_t p;
    simt_err_t err;
    if (assemble_lines(text, &p, &err) == 0 || !strstr(err.msg, want))
        fail_msg("'%s': expected an error with '%s', got: %s", text, want, err.msg);
}

/* What a role means beyond the operand's kind: a source read as the
 * instruction's type or as u32, an mbarrier's alignment, a bulk copy's
 * global side. */
static void test_roles_meaning(void **state)
{
    (void)state;
    isa_program_t p;
    simt_err_t err;
    if (assemble_lines("    st.cluster.shared.f32 [%r2], 2, 1\n"
                       "    wmma.load.c.global.f32 %r16, [%r2], 16\n"
                       "    wgmma.mma_async.n8.f16 %r8, [tile], [tile], 32", &p, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p.code[0].opd[1].imm, 0x40000000u);   /* a: 2.0f, the f32 type   */
    assert_int_equal(p.code[0].opd[2].imm, 1);             /* rank: an integer        */
    assert_int_equal(p.code[1].opd[2].imm, 16);            /* stride: not 16.0f       */
    assert_int_equal(p.code[2].opd[3].imm, 32);            /* bstride                 */
    isa_program_free(&p);
    refused("    st.cluster.shared.u32 [%r2], 1.5, 0", "float immediate '1.5' needs an f32");
    refused("    wmma.load.c.global.f32 %r16, [%r2], 1.5", "float immediate '1.5' needs an f32");
    refused("    mbarrier.init.shared [tile+4], 1", "operand 1 of 'mbarrier.init' must be 8-byte");
    refused("    cp.async.bulk.shared.global.1x16 [tile], [%r1], 16, [tile+20]",
            "operand 4 of 'cp.async.bulk' must be 8-byte aligned (an mbarrier");
    refused("    cp.async.bulk.shared.global.1x16 [tile+8], [%r1], 16, [tile]",
            "operand 1 of 'cp.async.bulk' must be 16-byte aligned");
    refused("    cp.async.bulk.shared.global.1x16 [tile], [tile], 16, [tile]",
            "shared array 'tile' used in a .global address");
    refused("    cp.async.bulk.global.shared.1x16 [tile], [tile], 16",
            "shared array 'tile' used in a .global address");
    refused("    ld.shared.v4.f32 {%r4, %r5, %r6, %r7}, [8]", "a .v4 address must be 16-byte");
    refused("    ld.cluster.shared.u32 %r1, [%r2], 8", "CTA rank must be 0..7");
    refused("    mbarrier.wait.parity.shared [tile], 2", "parity must be 0 or 1");
    refused("    wgmma.wait 8", "'wgmma.wait' needs an immediate 0..7");
    refused("    or.pred %p1, %r2, %p3", "operand 2 of 'or' must be a predicate");
    refused("    selp.u32 %r1, %r2, %r3, %r4", "operand 4 of 'selp' must be a predicate");
    refused("    setp.lt.s32 %r1, %r2, %r3", "destination of 'setp' must be a predicate");
    refused("    wmma.mma.f16 %r16, %r8, 3, %r16", "operand 3 of 'wmma.mma' must be a %r register");
}

/* One operand fewer is refused, and the message shows the table's
 * signature of the instruction. */
static void test_roles_count(void **state)
{
    (void)state;
    for (size_t i = 0; i < NINST; i++) {
        const instance_t *t = &instances[i];
        const char *comma = strrchr(t->text, ',');
        if (t->op == OP_BAR || strlen(t->kinds) == 0)
            continue;
        char line[160];
        size_t cut = comma ? (size_t)(comma - t->text) : strcspn(t->text, " ");
        if (strchr(t->text, '{') && t->op == OP_ST)   /* the vector's own commas */
            cut = (size_t)(strchr(t->text, '{') - t->text) - 2;
        snprintf(line, sizeof line, "%.*s", (int)cut, t->text);
        isa_program_t p, whole;
        simt_err_t err;
        assert_int_equal(assemble_lines(t->text, &whole, &err), 0);
        char sig[96], want[200];
        isa_signature(&whole.code[0], sig, sizeof sig);
        snprintf(want, sizeof want, "(%s), got %d", sig, (int)strlen(t->kinds) - 1);
        if (assemble_lines(line, &p, &err) == 0 || !strstr(err.msg, want))
            fail_msg("'%s': expected an error with '%s', got: %s", line, want, err.msg);
        isa_program_free(&whole);
    }
}

static void sig_is(const char *text, const char *want)
{
    isa_program_t p;
    simt_err_t err;
    char sig[96];
    if (assemble_lines(text, &p, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(isa_signature(&p.code[0], sig, sizeof sig), (int)strlen(want));
    assert_string_equal(sig, want);
    isa_program_free(&p);
}

/* Signatures come from the roles and names: memory in brackets, vectors
 * in braces, atom.cas one more source. */
static void test_signatures(void **state)
{
    (void)state;
    sig_is("add.s32 %r1, %r2, %r3", "d, a, b");
    sig_is("selp.u32 %r1, %r2, %r3, %p1", "d, a, b, p");
    sig_is("ld.global.v4.f32 {%r4, %r5, %r6, %r7}, [%r1]", "{d0, d1, d2, d3}, [addr]");
    sig_is("st.shared.v2.f32 [%r1], {%r4, %r5}", "[addr], {a0, a1}");
    sig_is("st.global.u32 [%r1], %r2", "[addr], a");
    sig_is("atom.global.cas.b32 %r1, [%r2], %r3, %r4", "d, [addr], b, c");
    sig_is("atom.global.add.u32 %r1, [%r2], %r3", "d, [addr], b");
    sig_is("cp.async.bulk.shared.global.1x16 [tile], [%r2], 16, [tile+16]",
           "[dst], [src], pitch, [mbar]");
    sig_is("wgmma.mma_async.n8.f16 %r8, [tile], [tile], 16", "d, [a], [b], bstride");
    sig_is("bra L", "LABEL");
    sig_is("exit", "");
    char small[8];
    isa_instr_t in;
    memset(&in, 0, sizeof in);
    in.op = OP_MAD;
    assert_int_equal(isa_signature(&in, small, sizeof small), 10);   /* "d, a, b, c" */
    assert_string_equal(small, "d, a, b");
}

/* The table's operand counts, destination flag and roles say the same;
 * memory spaces and alignment of the asynchronous and memory opcodes. */
static void test_roles_table(void **state)
{
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) {
        const isa_opinfo_t *o = &isa_ops[op];
        int n = 0;
        while (n < ISA_MAX_OPDS && o->opd[n].role != ROLE_NONE) {
            assert_non_null(o->opd[n].name);
            assert_true(o->opd[n].role < ROLE_COUNT);
            n++;
        }
        int dst = n > 0 && (o->opd[0].role == ROLE_DST || o->opd[0].role == ROLE_PDST ||
                            o->opd[0].role == ROLE_FRAG_DST);
        if (dst != o->has_dst || n - dst != o->nsrc)
            fail_msg("%s: has_dst %d nsrc %d, but its roles give %d and %d", o->name,
                     o->has_dst, o->nsrc, dst, n - dst);
        int mem = 0;
        for (int k = 0; k < n; k++)
            mem |= o->opd[k].role == ROLE_MEM || o->opd[k].role == ROLE_MBAR;
        assert_int_equal(mem, o->spaces != 0);
    }
    const unsigned G = 1u << SPACE_GLOBAL, S = 1u << SPACE_SHARED, P = 1u << SPACE_PARAM;
    assert_int_equal(isa_ops[OP_LD].spaces, G | S | P);
    assert_int_equal(isa_ops[OP_ST].spaces, G | S);
    assert_int_equal(isa_ops[OP_ATOM].spaces, G | S);
    assert_int_equal(isa_ops[OP_WMMA_LOAD_A].spaces, G | S);
    assert_int_equal(isa_ops[OP_MBAR_WAIT].spaces, S);
    assert_int_equal(isa_ops[OP_CP_BULK].spaces, S);
    assert_int_equal(isa_ops[OP_LD_CLUSTER].spaces, S);
    assert_int_equal(isa_ops[OP_ADD].spaces, 0);
    assert_true(isa_space_written(OP_LD));
    assert_true(isa_space_written(OP_WMMA_STORE_D));
    assert_false(isa_space_written(OP_MBAR_INIT));
    assert_false(isa_space_written(OP_WGMMA));
    assert_int_equal(isa_ops[OP_CP_BULK].opd[1].role, ROLE_GMEM);
    assert_int_equal(isa_ops[OP_CP_BULK_ST].opd[0].role, ROLE_GMEM);
    assert_int_equal(isa_ops[OP_CP_BULK].opd[3].role, ROLE_MBAR);
    assert_int_equal(isa_ops[OP_CP_BULK].mem_align, 16);
    assert_int_equal(isa_ops[OP_WGMMA].mem_align, 16);
    assert_int_equal(isa_ops[OP_LD_CLUSTER].mem_align, 0);
    assert_int_equal(isa_ops[OP_LD].mem_align, 0);
}

/* ld.global / ld.shared / ld.param: the space the assembler stores and
 * the unit the timing charges (ld.param reads the constant bank: ALU). */
static void test_ld_spaces(void **state)
{
    (void)state;
    isa_program_t p;
    simt_err_t err;
    if (assemble_lines("    ld.global.u32 %r1, [%r2]\n    ld.shared.u32 %r1, [tile]\n"
                       "    ld.param.u32 %r1, [n]", &p, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p.code[0].space, SPACE_GLOBAL);
    assert_int_equal(p.code[1].space, SPACE_SHARED);
    assert_int_equal(p.code[2].space, SPACE_PARAM);
    assert_int_equal(isa_instr_unit(&p.code[0]), UNIT_LSU);
    assert_int_equal(isa_instr_unit(&p.code[1]), UNIT_LSU);
    assert_int_equal(isa_instr_unit(&p.code[2]), UNIT_ALU);
    isa_program_free(&p);
}

/* The asynchronous opcodes: exactly those the SM's async_issue (sm.c)
 * times, written out here as the reference; sm_decode_deps marks exactly
 * the table's. */
static void test_async_set(void **state)
{
    (void)state;
    static const isa_op_t async_ops[] = {
        OP_MBAR_INIT, OP_MBAR_ARRIVE, OP_MBAR_WAIT, OP_CP_BULK, OP_WGMMA, OP_WGMMA_WAIT,
        OP_MBAR_ARRIVE_REMOTE, OP_BAR_CLUSTER, OP_CP_BULK_ST, OP_LD_CLUSTER, OP_ST_CLUSTER,
    };
    int want[OP_COUNT] = { 0 };
    for (size_t i = 0; i < sizeof async_ops / sizeof async_ops[0]; i++)
        want[async_ops[i]] = 1;
    for (int op = 0; op < OP_COUNT; op++)
        if (isa_ops[op].async != want[op])
            fail_msg("%s: table async %d, the SM's %d", isa_ops[op].name, isa_ops[op].async,
                     want[op]);
    char body[8192] = "";
    for (size_t i = 0; i < NINST; i++) {
        strcat(body, "    ");
        strcat(body, instances[i].text);
        strcat(body, "\n");
    }
    isa_program_t p;
    simt_err_t err;
    if (assemble_lines(body, &p, &err) != 0)
        fail_msg("%s", err.msg);
    sm_deps_t *deps = calloc(p.ncode, sizeof *deps);
    assert_non_null(deps);
    sm_decode_deps(&p, deps);
    for (uint32_t pc = 0; pc < p.ncode; pc++)
        assert_int_equal(deps[pc].async, want[p.code[pc].op]);
    free(deps);
    isa_program_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_complete),
        cmocka_unit_test(test_table_entries),
        cmocka_unit_test(test_instr_unit),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_type_bytes),
        cmocka_unit_test(test_program_free),
        cmocka_unit_test(test_roles_assemble),
        cmocka_unit_test(test_roles_meaning),
        cmocka_unit_test(test_roles_count),
        cmocka_unit_test(test_signatures),
        cmocka_unit_test(test_roles_table),
        cmocka_unit_test(test_ld_spaces),
        cmocka_unit_test(test_async_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
