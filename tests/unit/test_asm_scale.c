/* test_asm_scale.c - the assembler and the listing stay linear in the
 * number of labels (issue 13: 100k labels took 15 s, a label lookup and a
 * listing's label-per-branch lookup were scans). A program of 200k labels
 * and branches must assemble, resolve every branch to its label and list
 * back identically, within a CPU-time bound that the quadratic versions
 * missed by orders of magnitude (even under ASan and valgrind). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "asm.h"

#define NLABELS 200000u

/* A label per instruction; instruction i branches to label (i*7919) mod N,
 * guarded so every path can end. */
static char *many_labels(size_t *len)
{
    size_t cap = (size_t)NLABELS * 48 + 64, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    n += (size_t)snprintf(s + n, cap - n, ".kernel many\n");
    for (uint32_t i = 0; i < NLABELS; i++)
        n += (size_t)snprintf(s + n, cap - n, "L%u:\n    @%%p0 bra L%u;\n", i, (i * 7919u) % NLABELS);
    n += (size_t)snprintf(s + n, cap - n, "    exit;\n");
    *len = n;
    return s;
}

static void test_many_labels(void **state)
{
    size_t len;
    char *src = many_labels(&len);
    isa_program_t p;
    simt_err_t err;
    (void)state;
    clock_t t0 = clock();
    assert_int_equal(asm_assemble(src, len, "many.s", &p, &err), 0);
    assert_int_equal(p.nlabels, NLABELS);
    assert_int_equal(p.ncode, NLABELS + 1);
    for (uint32_t i = 0; i < NLABELS; i += 997)
        assert_int_equal(p.code[i].opd[0].imm, (i * 7919u) % NLABELS);
    char *listing = asm_disassemble(&p);
    assert_non_null(listing);
    assert_non_null(strstr(listing, "L199999:\n    @%p0 bra L"));
    /* the listing assembles back to the same branches */
    isa_program_t q;
    assert_int_equal(asm_assemble(listing, strlen(listing), "again.s", &q, &err), 0);
    assert_int_equal(q.ncode, p.ncode);
    for (uint32_t i = 0; i < NLABELS; i += 991)
        assert_int_equal(q.code[i].opd[0].imm, p.code[i].opd[0].imm);
    isa_program_free(&q);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (secs > 30.0)
        fail_msg("assembling and listing %u labels took %.1f s of CPU time", NLABELS, secs);
    /* a duplicate is still found, by name and line */
    const char dup[] = ".kernel d\nA:\nB:\nA:\n    exit;\n";
    assert_int_equal(asm_assemble(dup, sizeof dup - 1, "d.s", &q, &err), -1);
    assert_non_null(strstr(err.msg, "duplicate label 'A' (first defined at line 2)"));
    isa_program_free(&p);
    free(listing);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
