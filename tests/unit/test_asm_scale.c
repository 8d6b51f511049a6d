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

/* ---- post-dominators (issue 20, class 2) ------------------------------- */

/* CFG successors as the assembler sees them (asm.c successors()). */
static int succ_of(const isa_program_t *p, uint32_t i, uint32_t out[2])
{
    const isa_instr_t *in = &p->code[i];
    uint32_t n = p->ncode;
    int guarded = in->guard != ISA_NO_REG, k = 0;
    if (in->op == OP_EXIT) {
        out[k++] = n;
        if (guarded)
            out[k++] = i + 1 < n ? i + 1 : n;
    } else if (in->op == OP_BRA) {
        out[k++] = in->opd[0].imm;
        if (guarded && i + 1 != in->opd[0].imm)
            out[k++] = i + 1 < n ? i + 1 : n;
    } else {
        out[k++] = i + 1 < n ? i + 1 : n;
    }
    return k;
}

/* Reconvergence pcs by brute force: post-dominator sets as bit masks
 * iterated to a fixed point (n < 63), ipdom = the strict post-dominator
 * whose set is one smaller. */
static void brute_reconv(const isa_program_t *p, uint32_t *want)
{
    uint32_t n = p->ncode;
    /* bit 63: "no path to an exit yet" (only the start value has it) */
    uint64_t all = ((1ull << (n + 1)) - 1) | 1ull << 63, pd[64];
    for (uint32_t v = 0; v < n; v++)
        pd[v] = all;
    pd[n] = 1ull << n;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t v = 0; v < n; v++) {
            uint32_t s[2];
            int k = succ_of(p, v, s);
            uint64_t m = all;
            for (int j = 0; j < k; j++)
                m &= pd[s[j]];
            m |= 1ull << v;
            if (m != pd[v]) {
                pd[v] = m;
                changed = 1;
            }
        }
    }
    for (uint32_t v = 0; v < n; v++) {
        want[v] = ISA_NO_PC;
        if (p->code[v].op != OP_BRA || (pd[v] >> 63))
            continue;
        uint64_t strict = pd[v] & ~(1ull << v);
        for (uint32_t d = 0; d <= n; d++)
            if ((strict >> d & 1) && pd[d] == strict)
                want[v] = d == n ? ISA_NO_PC : d;
    }
}

/* Random small programs: branches, guarded exits and plain instructions
 * anywhere; the assembler's reconv must equal the brute force's. */
static void test_reconv_random(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    char src[8192];
    for (int trial = 0; trial < 3000; trial++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t n = 2 + (uint32_t)(seed >> 58) % 40, used = 0;
        used += (uint32_t)snprintf(src + used, sizeof src - used, ".kernel r\n");
        for (uint32_t i = 0; i + 1 < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t r = (uint32_t)(seed >> 33), kind = r % 6, to = (r >> 8) % n;
            used += (uint32_t)snprintf(src + used, sizeof src - used, "L%u: ", i);
            if (kind == 0 || kind == 1)
                used += (uint32_t)snprintf(src + used, sizeof src - used, "@%%p0 bra L%u;\n", to);
            else if (kind == 2)
                used += (uint32_t)snprintf(src + used, sizeof src - used, "bra L%u;\n", to);
            else if (kind == 3)
                used += (uint32_t)snprintf(src + used, sizeof src - used, "@%%p1 exit;\n");
            else
                used += (uint32_t)snprintf(src + used, sizeof src - used, "add.u32 %%r1, %%r1, 1;\n");
        }
        used += (uint32_t)snprintf(src + used, sizeof src - used, "L%u: exit;\n", n - 1);
        isa_program_t p;
        simt_err_t err;
        if (asm_assemble(src, used, "r.s", &p, &err) != 0)
            fail_msg("trial %d did not assemble: %s\n%s", trial, err.msg, src);
        uint32_t want[64];
        brute_reconv(&p, want);
        for (uint32_t i = 0; i < p.ncode; i++)
            if (p.code[i].reconv != want[i])
                fail_msg("trial %d, pc %u: reconv %u, brute force %u\n%s", trial, (unsigned)i,
                         (unsigned)p.code[i].reconv, (unsigned)want[i], src);
        isa_program_free(&p);
    }
}

/* 280k branch lines of the shapes that made the iterative algorithm
 * quadratic (every branch back to the top; every branch two ahead) must
 * assemble within seconds, with the right reconvergence pcs. */
static void test_reconv_scale(void **state)
{
    (void)state;
    const uint32_t N = 280000;
    for (int shape = 0; shape < 2; shape++) {
        size_t cap = (size_t)N * 40 + 64, len = 0;
        char *s = malloc(cap);
        assert_non_null(s);
        len += (size_t)snprintf(s + len, cap - len, ".kernel big\nTOP:\n");
        for (uint32_t i = 0; i < N; i++) {
            if (shape == 0)
                len += (size_t)snprintf(s + len, cap - len, "    @%%p0 bra TOP;\n");
            else
                len += (size_t)snprintf(s + len, cap - len, "L%u: @%%p0 bra L%u;\n", i, i + 2 < N ? i + 2 : N);
        }
        len += (size_t)snprintf(s + len, cap - len, shape == 0 ? "    exit;\n" : "L%u: exit;\n", N);
        isa_program_t p;
        simt_err_t err;
        clock_t t0 = clock();
        assert_int_equal(asm_assemble(s, len, "big.s", &p, &err), 0);
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (secs > 10.0)
            fail_msg("shape %d: %u branch lines took %.1f s of CPU time", shape, N, secs);
        /* shape 0: every branch reconverges at the next line; shape 1:
         * a ladder (each step one or two lines on) meets only at the
         * final exit */
        for (uint32_t i = 0; i + 1 < N; i += 997)
            assert_int_equal(p.code[i].reconv, shape == 0 ? i + 1 : N);
        isa_program_free(&p);
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_labels),
        cmocka_unit_test(test_reconv_random),
        cmocka_unit_test(test_reconv_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
