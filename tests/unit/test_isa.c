/* test_isa.c - the opcode table and the name helpers of isa.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "isa.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_complete),
        cmocka_unit_test(test_table_entries),
        cmocka_unit_test(test_instr_unit),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_type_bytes),
        cmocka_unit_test(test_program_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
