/* asm_lex.c - the assembler's operands as written: %registers, numbers,
 * [addresses] and {register vectors}, read into raw_opd_t before they are
 * checked against the instruction (asm_opd.c). */
#include "asm_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Operands                                                            */

/* Read "%name" at s into raw (register, predicate or special). */
int asm_lex_percent(asm_ctx_t *a, const char *s, raw_opd_t *r)
{
    const char *e = s + 1;
    while (is_ident_char(*e) || *e == '.')
        e++;
    size_t n = (size_t)(e - s);
    r->at = s;
    r->len = n;
    if (n > 2 && (s[1] == 'r' || s[1] == 'p')) {
        int digits = 1;
        for (size_t i = 2; i < n; i++)
            if (!isdigit((unsigned char)s[i]))
                digits = 0;
        if (digits) {
            long v = 0;
            for (size_t i = 2; i < n && v < 100000; i++)
                v = v * 10 + (s[i] - '0');
            if (s[1] == 'r') {
                if (v >= ISA_NUM_REGS)
                    return asm_fail(a, s, "unknown register '%.*s' (registers are %%r0..%%r%d)",
                                (int)n, s, ISA_NUM_REGS - 1);
                r->kind = RAW_REG;
            } else {
                if (v >= ISA_NUM_PREDS)
                    return asm_fail(a, s, "unknown predicate '%.*s' (predicates are %%p0..%%p%d)",
                                (int)n, s, ISA_NUM_PREDS - 1);
                r->kind = RAW_PRED;
            }
            r->index = (int)v;
            return 0;
        }
    }
    for (int i = 0; i < SR_COUNT; i++) {
        if (word_eq(s, n, isa_special_name((isa_special_t)i))) {
            r->kind = RAW_SPECIAL;
            r->index = i;
            return 0;
        }
    }
    return asm_fail(a, s, "unknown special register '%.*s'", (int)n, s);
}

/* Where the number at p (after its sign) ends, and what it is: 0f bits,
 * 0x hex, or decimal (a float when it has a '.' or an exponent). */
static const char *scan_number(const char *p, int *is_float, int *is_hex, int *is_bits)
{
    const char *e = p;
    *is_float = *is_hex = *is_bits = 0;
    if (p[0] == '0' && (p[1] == 'f' || p[1] == 'F') && isxdigit((unsigned char)p[2])) {
        *is_bits = 1;
        for (e = p + 2; isxdigit((unsigned char)*e);)
            e++;
        return e;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        *is_hex = 1;
        for (e = p + 2; isxdigit((unsigned char)*e);)
            e++;
        return e;
    }
    int mant = 0;
    while (isdigit((unsigned char)*e)) {
        e++;
        mant = 1;
    }
    if (*e == '.') {
        *is_float = 1;
        e++;
        while (isdigit((unsigned char)*e)) {
            e++;
            mant = 1;
        }
    }
    if (mant && (*e == 'e' || *e == 'E')) {
        const char *x = e + 1;
        if (*x == '+' || *x == '-')
            x++;
        if (isdigit((unsigned char)*x)) {
            *is_float = 1;
            e = x;
            while (isdigit((unsigned char)*e))
                e++;
        }
    }
    return mant ? e : p;
}

/* Read a number at s: decimal or 0x integer, decimal float, 0fXXXXXXXX.
 * Integers must fit 32 bits (-2^31 .. 2^32-1). Sets *end after it. */
static int lex_number(asm_ctx_t *a, const char *s, raw_opd_t *r, const char **end)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    int is_float, is_hex, is_bits;
    const char *e = scan_number(p, &is_float, &is_hex, &is_bits);
    size_t n = (size_t)(e - s);
    r->at = s;
    r->len = n;
    if (e == p || is_ident_char(*e) || *e == '.' || (is_bits && (neg || e - p != 10))) {
        const char *w = e;
        while (is_ident_char(*w) || *w == '.')
            w++;
        if (w == s)
            w = s + 1;
        return asm_fail(a, s, "bad number '%.*s'", (int)(w - s), s);
    }
    char tok[128];
    if (n >= sizeof tok)
        return asm_fail(a, s, "number '%.*s' is too long", (int)n, s);
    memcpy(tok, s, n);
    tok[n] = '\0';
    *end = e;

    if (is_bits) {
        r->kind = RAW_BITS;
        r->bits = (uint32_t)strtoul(tok + 2, NULL, 16);
        return 0;
    }
    if (is_float) {
        errno = 0;
        float f = strtof(tok, NULL);
        if (isinf(f))
            return asm_fail(a, s, "float immediate '%s' is out of the f32 range", tok);
        r->kind = RAW_FLOAT;
        memcpy(&r->bits, &f, sizeof f);
        return 0;
    }
    errno = 0;
    unsigned long long v = strtoull(p, NULL, is_hex ? 16 : 10);
    if (errno == ERANGE || (!neg && v > 0xFFFFFFFFull) || (neg && v > 0x80000000ull))
        return asm_fail(a, s, "immediate %s does not fit 32 bits", tok);
    r->kind = RAW_INT;
    r->hex = is_hex;
    r->ival = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int starts_number(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    return isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]));
}

/* The identifier at s into out (ISA_NAME_MAX); returns its end, or NULL
 * after an error (too long). */
static const char *lex_name(asm_ctx_t *a, const char *s, char *out)
{
    const char *e = s;
    while (is_ident_char(*e))
        e++;
    return asm_copy_name(a, s, e, out) ? NULL : e;
}

/* Read "[ base (+|- offset)? ]". base: %rN, a name, or an integer. */
static int lex_mem(asm_ctx_t *a, const char *s, raw_opd_t *r, const char **end)
{
    const char *t = skip_ws(s + 1);
    raw_opd_t in;
    memset(&in, 0, sizeof in);
    r->kind = RAW_MEM;
    r->at = s;
    r->mem_off = 0;
    if (*t == '%') {
        if (asm_lex_percent(a, t, &in))
            return -1;
        if (in.kind != RAW_REG)
            return asm_fail(a, t, "memory base must be a %%r register, got '%.*s'",
                        (int)in.len, t);
        r->mem_base = MB_REG;
        r->index = in.index;
        t += in.len;
    } else if (is_ident_start(*t)) {
        const char *e = lex_name(a, t, r->name);
        if (!e)
            return -1;
        r->name_at = t;
        r->mem_base = MB_NAME;
        t = e;
    } else if (starts_number(t)) {
        const char *e;
        if (lex_number(a, t, &in, &e))
            return -1;
        if (in.kind != RAW_INT)
            return asm_fail(a, t, "address '%.*s' must be an integer", (int)in.len, t);
        r->mem_base = MB_INT;
        r->mem_off = in.ival;
        t = e;
    } else {
        return asm_fail(a, t, "expected a register, name or number inside '[ ]'");
    }
    t = skip_ws(t);
    if (r->mem_base != MB_INT && (*t == '+' || *t == '-')) {
        int neg = *t == '-';
        const char *o = skip_ws(t + 1), *e;
        if (!isdigit((unsigned char)*o))
            return asm_fail(a, o, "expected an integer offset after '%c', got '%.*s'",
                        neg ? '-' : '+', (int)word_len(o), o);
        if (lex_number(a, o, &in, &e))
            return -1;
        if (in.kind != RAW_INT)
            return asm_fail(a, o, "address offset '%.*s' must be an integer", (int)in.len, o);
        r->mem_off = neg ? -in.ival : in.ival;
        t = skip_ws(e);
    }
    if (*t != ']')
        return asm_fail(a, t, "expected ']' after memory operand");
    *end = t + 1;
    r->len = (size_t)(*end - s);
    return 0;
}

/* Read "{ %rA, %rB, ... }" (the data registers of ld/st .v2/.v4). They
 * must be consecutive ascending, as SASS register pairs and quads are;
 * how many the instruction needs is checked against its .vN later. */
static int vec_item_len(const char *t)
{
    int n = 0;
    while (t[n] && !is_space(t[n]) && t[n] != ',' && t[n] != '}')
        n++;
    return n ? n : (t[0] ? 1 : 0);
}

static int lex_vec(asm_ctx_t *a, const char *s, raw_opd_t *r, const char **end)
{
    const char *t = skip_ws(s + 1);
    r->kind = RAW_VEC;
    r->at = s;
    r->nvec = 0;
    for (;;) {
        raw_opd_t in;
        memset(&in, 0, sizeof in);
        if (*t != '%')
            return asm_fail(a, t, "expected a %%r register in '{ }', got '%.*s'", vec_item_len(t), t);
        if (asm_lex_percent(a, t, &in))
            return -1;
        if (in.kind != RAW_REG)
            return asm_fail(a, t, "a vector's registers must be %%r registers, got '%.*s'",
                        (int)in.len, t);
        if (r->nvec == 0)
            r->index = in.index;
        else if (in.index != r->index + r->nvec)
            return asm_fail(a, t, "registers in '{ }' must be consecutive ascending (like SASS "
                        "register pairs and quads): expected %%r%d after %%r%d, got '%.*s'",
                        r->index + r->nvec, r->index + r->nvec - 1, (int)in.len, t);
        if (r->nvec == 4)
            return asm_fail(a, t, "a vector has at most 4 registers (.v2 or .v4)");
        r->nvec++;
        t = skip_ws(t + in.len);
        if (*t == ',') {
            t = skip_ws(t + 1);
            continue;
        }
        if (*t == '}')
            break;
        return asm_fail(a, t, "expected ',' or '}' in a register vector, got '%.*s'", vec_item_len(t), t);
    }
    *end = t + 1;
    r->len = (size_t)(*end - s);
    return 0;
}

/* Read one operand at s (already past white space). */
int asm_lex_operand(asm_ctx_t *a, const char *s, raw_opd_t *r, const char **end)
{
    memset(r, 0, sizeof *r);
    r->at = s;
    if (*s == '{')
        return lex_vec(a, s, r, end);
    if (*s == '%') {
        if (asm_lex_percent(a, s, r))
            return -1;
        *end = s + r->len;
        return 0;
    }
    if (*s == '[')
        return lex_mem(a, s, r, end);
    if (is_ident_start(*s)) {
        const char *e = lex_name(a, s, r->name);
        if (!e)
            return -1;
        r->kind = RAW_NAME;
        r->len = (size_t)(e - s);
        *end = e;
        return 0;
    }
    if (starts_number(s))
        return lex_number(a, s, r, end);
    if (*s == ',' || *s == '\0')
        return asm_fail(a, s, "missing operand");
    return asm_fail(a, s, "unexpected '%.*s' where an operand was expected",
                (int)word_len(s), s);
}
