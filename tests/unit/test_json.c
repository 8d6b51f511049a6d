/* test_json.c - JSON string literals (sim/io/json.h) and the trace writer
 * that uses them: any kernel name gives valid JSON. */
#define _POSIX_C_SOURCE 200809L   /* mkstemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "json.h"
#include "support.h"
#include "trace.h"

static void test_quote_escapes(void **state)
{
    (void)state;
    char out[64];
    const char s[] = "a\"b\\c\nd\te\x01" "f\xc3\xa9";   /* quote, backslash, controls, UTF-8 */
    size_t n = json_quote(out, sizeof out, s, sizeof s - 1);
    assert_string_equal(out, "\"a\\\"b\\\\c\\nd\\te\\u0001f\xc3\xa9\"");
    assert_int_equal(n, strlen(out));
    /* the NUL byte inside a string is escaped too */
    n = json_quote(out, sizeof out, "x\0y", 3);
    assert_string_equal(out, "\"x\\u0000y\"");
}

static void test_quote_cut_short(void **state)
{
    (void)state;
    char out[6];
    size_t n = json_quote(out, sizeof out, "abc\"def", 7);
    assert_int_equal(n, 10);                 /* what it needs: "abc\"def" */
    assert_string_equal(out, "\"abc\\");     /* what fitted, NUL-terminated */
    assert_int_equal(json_quote(NULL, 0, "\t", 1), 4);
}

/* Outside strings, a well-formed JSON text has balanced braces and
 * brackets; inside them, no raw control character and no unescaped quote
 * before the closing one. A small checker is enough for the trace. */
static void assert_json_shape(const char *t)
{
    int depth = 0, in_str = 0;
    for (const char *c = t; *c; c++) {
        if (in_str) {
            assert_true((unsigned char)*c >= 0x20 || *c == '\0');
            if (*c == '\\') {
                c++;
                assert_non_null(strchr("\"\\/bfnrtu", *c));
            } else if (*c == '"') {
                in_str = 0;
                /* after a string: , : } ] or whitespace */
                const char *n = c + 1;
                while (*n == ' ' || *n == '\n')
                    n++;
                assert_non_null(strchr(",:}]", *n));
            }
        } else if (*c == '"') {
            in_str = 1;
        } else if (*c == '{' || *c == '[') {
            depth++;
        } else if (*c == '}' || *c == ']') {
            depth--;
            assert_true(depth >= 0);
        }
    }
    assert_false(in_str);
    assert_int_equal(depth, 0);
}

static void test_trace_with_quoted_kernel_name(void **state)
{
    (void)state;
    isa_program_t p;
    support_assemble(".kernel say\"hi\\\n"
                     "    exit;\n", &p);
    assert_string_equal(p.name, "say\"hi\\");
    gpu_t *g = support_gpu(NULL);
    char path[] = "/tmp/simtlab-test-json-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    simt_err_t e;
    trace_t *t = trace_open(path, &e);
    assert_non_null(t);
    gpu_launch_t l = { .grid = { 2 }, .block = { 64 }, .observe = trace_observe, .observe_user = t,
                       .sample_every = 1 };
    gpu_stats_t st;
    assert_int_equal(gpu_launch(g, &p, &l, NULL, 0, &st, &e), 0);
    assert_int_equal(trace_close(t, &e), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    remove(path);
    assert_true(n > 0);
    support_contains(text, "\"kernel say\\\"hi\\\\\"");
    assert_json_shape(text);
    free(text);
    gpu_free(g);
    isa_program_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote_escapes),
        cmocka_unit_test(test_quote_cut_short),
        cmocka_unit_test(test_trace_with_quoted_kernel_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
