/* asm.c - text assembler and disassembler for the simtlab ISA.
 *
 * How it works:
 *   1. The source is copied once into a NUL-terminated buffer and read line
 *      by line. On each line a comment (`//`, `#`) or a `;` ends the text.
 *   2. A line holds optional labels (`NAME:`), then a directive (`.param`)
 *      or an instruction: optional guard, mnemonic with suffixes, operands.
 *   3. Operands are first read into raw_opd_t (what was written), then
 *      checked against the role the instruction expects at that position
 *      and turned into isa_operand_t.
 *   4. After the last line, branch labels are resolved, the "runs past the
 *      end" check is made and each branch gets its reconvergence pc (the
 *      immediate post-dominator, see compute_reconv).
 *
 * The first error stops assembly. Messages look like gcc's:
 *   k.s:3:13: error: unknown register '%r255' (registers are %r0..%r254)
 *   add.s32 %r1, %r255, 2
 *               ^
 * Columns are 1-based byte columns; the caret line copies tabs from the
 * source line so that it lines up in a terminal.
 */
#include "asm.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RAW_OPDS 8          /* operands read per line before counting only */
#define MAX_SUFFIXES 6          /* ".a.b.c" parts after the mnemonic           */
#define MAX_SHARED_BYTES (16u * 1024u * 1024u)
#define SHARED_ALIGN 16u

/* ------------------------------------------------------------------ */
/* Assembler state                                                     */

/* A branch whose label is resolved after the last line. */
typedef struct asm_fixup {
    uint32_t pc;                /* the bra instruction                       */
    uint32_t line, col;         /* where the label name was written          */
    char name[ISA_NAME_MAX];    /* the label name                            */
} asm_fixup_t;

typedef struct asm_ctx {
    const char *src;            /* caller's source text (for quoting lines)  */
    size_t len;                 /* its length in bytes                       */
    const char *file;           /* name used in messages                     */
    char *text;                 /* NUL-terminated working copy of src        */
    const char *cur;            /* start of the current line in text         */
    uint32_t lineno;            /* current line, 1-based                     */
    simt_err_t *err;            /* where the first error goes                */
    int failed;                 /* 1 once an error has been written          */
    int have_kernel;            /* 1 after a .kernel directive               */
    isa_program_t p;            /* the program being built                   */
    uint32_t code_cap, label_cap, shared_cap;
    uint32_t *label_line;       /* definition line of each label             */
    uint32_t *label_hash;       /* open addressing: label index + 1, 0 empty */
    uint32_t label_hash_cap;    /* a power of two, > 2 x nlabels             */
    asm_fixup_t *fix;           /* branch label references                   */
    uint32_t nfix, fix_cap;
} asm_ctx_t;

/* What an operand looked like in the source, before it is checked. */
typedef enum raw_kind {
    RAW_REG, RAW_PRED, RAW_SPECIAL,
    RAW_INT,                    /* integer literal: ival, hex                */
    RAW_FLOAT,                  /* decimal float literal: bits               */
    RAW_BITS,                   /* 0fXXXXXXXX: bits                          */
    RAW_NAME,                   /* an identifier: name                       */
    RAW_MEM,                    /* [ ... ]: mem_* fields                     */
    RAW_VEC                     /* {%rA, %rB, ...}: index = A, nvec registers */
} raw_kind_t;

typedef enum mem_base { MB_REG, MB_NAME, MB_INT } mem_base_t;

typedef struct raw_opd {
    raw_kind_t kind;
    const char *at;             /* first character in the line (column)      */
    size_t len;                 /* characters written                        */
    int index;                  /* RAW_REG/RAW_PRED/RAW_SPECIAL index        */
    int64_t ival;               /* RAW_INT value (range-checked to 32 bits)  */
    int hex;                    /* RAW_INT written as 0x...                  */
    uint32_t bits;              /* RAW_FLOAT / RAW_BITS bits                 */
    char name[ISA_NAME_MAX];    /* RAW_NAME, or the name inside [ ]          */
    const char *name_at;        /* RAW_MEM: where that name starts           */
    mem_base_t mem_base;        /* RAW_MEM: what comes first inside [ ]      */
    int64_t mem_off;            /* RAW_MEM: offset (base int or +/- imm)     */
    int nvec;                   /* RAW_VEC: registers in the braces          */
} raw_opd_t;

/* What an instruction expects at one operand position. */
typedef enum opd_role {
    ROLE_DST,                   /* %r register written                       */
    ROLE_PDST,                  /* %p register written                       */
    ROLE_SRC,                   /* %r, special, immediate, shared symbol     */
    ROLE_PSRC,                  /* %p register read                          */
    ROLE_MEM,                   /* [address]                                 */
    ROLE_LABEL,                 /* branch target                             */
    ROLE_RANGE,                 /* %r register: first of a wmma fragment     */
    ROLE_VEC                    /* {%rN, %rN+1, ...}: ld/st .v2 / .v4 data   */
} opd_role_t;

/* ------------------------------------------------------------------ */
/* Errors                                                              */

/* Find line `lineno` (1-based) of the original source; sets *n to its
 * length without the line ending. */
static const char *source_line(const asm_ctx_t *a, uint32_t lineno, size_t *n)
{
    const char *s = a->src, *end = a->src + a->len;
    uint32_t l = 1;
    while (l < lineno && s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) {
            s = end;
            break;
        }
        s = nl + 1;
        l++;
    }
    const char *e = s;
    while (e < end && *e != '\n')
        e++;
    if (e > s && e[-1] == '\r')
        e--;
    *n = (size_t)(e - s);
    return s;
}

/* 1 if byte c is a control character a terminal could act on (not a tab). */
static int is_ctl(unsigned char c)
{
    return (c < 0x20 && c != '\t') || c == 0x7f;
}

/* Copy s[0..n) to dst (cap bytes, NUL-terminated) with control characters
 * written as \xNN, and UTF-8 C1 controls (U+0080..U+009F, which some
 * terminals obey too) as \u00NN: an error message echoes a student's
 * text, which must not clear the teacher's screen or print a fake PASS. */
static void escape_ctl(char *dst, size_t cap, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && s[i] && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                                 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        for (size_t k = 1; k < len; k++)   /* a valid UTF-8 sequence? */
            if (i + k >= n || ((unsigned char)s[i + k] & 0xc0) != 0x80)
                len = 0;
        if (is_ctl(c) || len == 0) {   /* a control or a byte outside UTF-8 (0x9b: CSI) */
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", c);
        } else if (c == 0xc2 && (unsigned char)s[i + 1] <= 0x9f) {
            o += (size_t)snprintf(dst + o, cap - o, "\\u%04x", (unsigned char)s[++i]);
        } else {
            memcpy(dst + o, s + i, len);
            o += len;
            i += len - 1;
        }
    }
    dst[o] = '\0';
}

/* Write the first error: "FILE:LINE:COL: error: MSG", the source line and
 * a caret under COL. Later errors are ignored. Always returns -1. The
 * file name, message and line are echoed with control characters escaped
 * (the caret counts an escape's width). */
static int vfail_at(asm_ctx_t *a, uint32_t lineno, uint32_t col,
                    const char *fmt, va_list ap)
{
    if (a->failed)
        return -1;
    a->failed = 1;
    char msg[512], emsg[512], eline[1300], efile[300];
    vsnprintf(msg, sizeof msg, fmt, ap);

    size_t n;
    const char *line = source_line(a, lineno, &n);
    if (n > 300)
        n = 300;
    char caret[1300];
    size_t c = 0;
    for (uint32_t i = 1; i < col && c < sizeof caret - 8; i++) {
        unsigned char ch = i - 1 < n ? (unsigned char)line[i - 1] : ' ';
        int w = is_ctl(ch) ? 4 : 1;
        while (w-- > 0)
            caret[c++] = ch == '\t' ? '\t' : ' ';
    }
    caret[c++] = '^';
    caret[c] = '\0';
    escape_ctl(emsg, sizeof emsg, msg, strlen(msg));
    escape_ctl(eline, sizeof eline, line, n);
    escape_ctl(efile, sizeof efile, a->file, strlen(a->file));
    simt_errf(a->err, SIMT_E_ASM, "%s:%u:%u: error: %s\n%s\n%s",
              efile, (unsigned)lineno, (unsigned)col, emsg, eline, caret);
    return -1;
}

static int fail_at(asm_ctx_t *a, uint32_t lineno, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(a, lineno, col, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error at character `at` of the current line. */
static int fail(asm_ctx_t *a, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(a, a->lineno, (uint32_t)(at - a->cur) + 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error about the whole file (no line to point at). */
static int fail_file(asm_ctx_t *a, int code, const char *fmt, ...)
{
    if (a->failed)
        return -1;
    a->failed = 1;
    char msg[512], emsg[512], efile[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    escape_ctl(emsg, sizeof emsg, msg, strlen(msg));
    escape_ctl(efile, sizeof efile, a->file, strlen(a->file));
    return simt_errf(a->err, code, "%s: error: %s", efile, emsg);
}

static int fail_nomem(asm_ctx_t *a)
{
    return fail_file(a, SIMT_E_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Small lexical helpers                                               */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == '$';
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

static const char *skip_ws(const char *s)
{
    while (is_space(*s))
        s++;
    return s;
}

/* Length of the "word" at s, for quoting a bad token in a message. */
static size_t word_len(const char *s)
{
    size_t n = 0;
    while (s[n] && !is_space(s[n]) && s[n] != ',')
        n++;
    return n;
}

/* Copy an identifier [s, e) into out (ISA_NAME_MAX). Fails if too long. */
static int copy_name(asm_ctx_t *a, const char *s, const char *e, char *out)
{
    size_t n = (size_t)(e - s);
    if (n >= ISA_NAME_MAX)
        return fail(a, s, "name '%.*s' is too long (at most %d characters)",
                    (int)n, s, ISA_NAME_MAX - 1);
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

static int word_eq(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* Type suffix text -> isa_type_t, or T_COUNT if it is not a type name. */
static isa_type_t parse_type(const char *s, size_t n)
{
    for (int t = T_B32; t < T_COUNT; t++)
        if (word_eq(s, n, isa_type_name((isa_type_t)t)))
            return (isa_type_t)t;
    return T_COUNT;
}

/* "s32 u32 f32": the allowed types of a mask, in a fixed reading order. */
static void mask_text(uint32_t mask, char *buf, size_t n)
{
    static const isa_type_t order[] = { T_B32, T_S32, T_U32, T_F32, T_U8, T_S8,
                                        T_U16, T_S16, T_PRED, T_F16, T_BF16,
                                        T_TF32, T_E4M3, T_E5M2 };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!(mask & (1u << order[i])))
            continue;
        int k = snprintf(buf + len, n - len, "%s%s", len ? " " : "",
                         isa_type_name(order[i]));
        if (k < 0 || (size_t)k >= n - len)
            break;
        len += (size_t)k;
    }
}

/* ------------------------------------------------------------------ */
/* Growing the program arrays                                          */

static int grow(asm_ctx_t *a, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(*arr, (size_t)ncap * elem);
    if (!q)
        return fail_nomem(a);
    *arr = q;
    *cap = ncap;
    return 0;
}

static int find_param(const isa_program_t *p, const char *name)
{
    for (uint32_t i = 0; i < p->nparams; i++)
        if (strcmp(p->params[i], name) == 0)
            return (int)i;
    return -1;
}

static const isa_symbol_t *find_shared(const isa_program_t *p, const char *name)
{
    for (uint32_t i = 0; i < p->nshared; i++)
        if (strcmp(p->shared[i].name, name) == 0)
            return &p->shared[i];
    return NULL;
}

static int find_label(const isa_program_t *p, const char *name)
{
    for (uint32_t i = 0; i < p->nlabels; i++)
        if (strcmp(p->labels[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Directives                                                          */

/* Read a name after a directive; `what` is the directive for messages. */
static int directive_name(asm_ctx_t *a, const char **ps, const char *what, char *out)
{
    const char *s = skip_ws(*ps);
    if (!is_ident_start(*s)) {
        if (*s == '\0')
            return fail(a, s, "'%s' needs a name", what);
        return fail(a, s, "expected a name after '%s', got '%.*s'", what,
                    (int)word_len(s), s);
    }
    const char *e = s;
    while (is_ident_char(*e))
        e++;
    if (copy_name(a, s, e, out))
        return -1;
    *ps = e;
    return 0;
}

static int expect_end(asm_ctx_t *a, const char *s)
{
    s = skip_ws(s);
    if (*s) {
        size_t n = strlen(s);
        while (n > 0 && is_space(s[n - 1]))
            n--;
        return fail(a, s, "trailing characters '%.*s'", (int)n, s);
    }
    return 0;
}

static int directive(asm_ctx_t *a, const char *s)
{
    const char *d = s + 1, *e = d;
    while (is_ident_char(*e))
        e++;
    size_t n = (size_t)(e - d);
    isa_program_t *p = &a->p;

    if (word_eq(d, n, "kernel")) {
        const char *t = skip_ws(e), *te = t;
        if (a->have_kernel)
            return fail(a, s, "second '.kernel' directive (one kernel per file)");
        while (*te && !is_space(*te))
            te++;
        if (te == t)
            return fail(a, t, "'.kernel' needs a name");
        if (copy_name(a, t, te, p->name))
            return -1;
        a->have_kernel = 1;
        return expect_end(a, te);
    }
    if (word_eq(d, n, "param")) {
        char name[ISA_NAME_MAX];
        const char *t = e;
        const char *at = skip_ws(e);
        if (directive_name(a, &t, ".param", name))
            return -1;
        if (find_param(p, name) >= 0)
            return fail(a, at, "parameter '%s' redeclared", name);
        if (find_shared(p, name))
            return fail(a, at, "'%s' is already declared as a shared array", name);
        if (p->nparams >= ISA_MAX_PARAMS)
            return fail(a, at, "too many parameters (at most %d)", ISA_MAX_PARAMS);
        strcpy(p->params[p->nparams++], name);
        return expect_end(a, t);
    }
    if (word_eq(d, n, "shared")) {
        char name[ISA_NAME_MAX];
        const char *t = e;
        const char *at = skip_ws(e);
        if (directive_name(a, &t, ".shared", name))
            return -1;
        if (find_shared(p, name))
            return fail(a, at, "shared memory array '%s' redeclared", name);
        if (find_param(p, name) >= 0)
            return fail(a, at, "'%s' is already declared as a parameter", name);
        const char *z = skip_ws(t);
        if (!isdigit((unsigned char)*z))
            return fail(a, z, "'.shared %s' needs a size in bytes", name);
        char *ze;
        errno = 0;
        int hex = z[0] == '0' && (z[1] == 'x' || z[1] == 'X');
        unsigned long long size = strtoull(z, &ze, hex ? 16 : 10);
        if (is_ident_char(*ze) || *ze == '.')
            return fail(a, z, "bad size '%.*s'", (int)word_len(z), z);
        if (errno == ERANGE || size == 0 || size > MAX_SHARED_BYTES)
            return fail(a, z, "shared array size must be 1..%u bytes, got '%.*s'",
                        MAX_SHARED_BYTES, (int)(ze - z), z);
        uint32_t off = (p->shared_bytes + SHARED_ALIGN - 1) / SHARED_ALIGN * SHARED_ALIGN;
        if ((uint64_t)off + size > MAX_SHARED_BYTES)
            return fail(a, z, "shared arrays need more than %u bytes in total",
                        MAX_SHARED_BYTES);
        if (grow(a, (void **)&p->shared, &a->shared_cap, p->nshared + 1,
                 sizeof *p->shared))
            return -1;
        isa_symbol_t *sym = &p->shared[p->nshared++];
        memset(sym, 0, sizeof *sym);
        strcpy(sym->name, name);
        sym->value = off;
        sym->size = (uint32_t)size;
        p->shared_bytes = off + (uint32_t)size;
        return expect_end(a, ze);
    }
    return fail(a, s, "unknown directive '.%.*s' (expected .kernel, .param or .shared)",
                (int)n, d);
}

/* ------------------------------------------------------------------ */
/* Operands                                                            */

/* Read "%name" at s into raw (register, predicate or special). */
static int lex_percent(asm_ctx_t *a, const char *s, raw_opd_t *r)
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
                    return fail(a, s, "unknown register '%.*s' (registers are %%r0..%%r%d)",
                                (int)n, s, ISA_NUM_REGS - 1);
                r->kind = RAW_REG;
            } else {
                if (v >= ISA_NUM_PREDS)
                    return fail(a, s, "unknown predicate '%.*s' (predicates are %%p0..%%p%d)",
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
    return fail(a, s, "unknown special register '%.*s'", (int)n, s);
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
    const char *e = p;
    int is_float = 0, is_hex = 0, is_bits = 0;
    if (p[0] == '0' && (p[1] == 'f' || p[1] == 'F') && isxdigit((unsigned char)p[2])) {
        is_bits = 1;
        e = p + 2;
        while (isxdigit((unsigned char)*e))
            e++;
    } else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        is_hex = 1;
        e = p + 2;
        while (isxdigit((unsigned char)*e))
            e++;
    } else {
        int mant = 0;
        while (isdigit((unsigned char)*e)) {
            e++;
            mant = 1;
        }
        if (*e == '.') {
            is_float = 1;
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
                is_float = 1;
                e = x;
                while (isdigit((unsigned char)*e))
                    e++;
            }
        }
        if (!mant)
            e = p;
    }
    size_t n = (size_t)(e - s);
    r->at = s;
    r->len = n;
    if (e == p || is_ident_char(*e) || *e == '.' || (is_bits && (neg || e - p != 10))) {
        const char *w = e;
        while (is_ident_char(*w) || *w == '.')
            w++;
        if (w == s)
            w = s + 1;
        return fail(a, s, "bad number '%.*s'", (int)(w - s), s);
    }
    char tok[128];
    if (n >= sizeof tok)
        return fail(a, s, "number '%.*s' is too long", (int)n, s);
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
            return fail(a, s, "float immediate '%s' is out of the f32 range", tok);
        r->kind = RAW_FLOAT;
        memcpy(&r->bits, &f, sizeof f);
        return 0;
    }
    errno = 0;
    unsigned long long v = strtoull(p, NULL, is_hex ? 16 : 10);
    if (errno == ERANGE || (!neg && v > 0xFFFFFFFFull) || (neg && v > 0x80000000ull))
        return fail(a, s, "immediate %s does not fit 32 bits", tok);
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
        if (lex_percent(a, t, &in))
            return -1;
        if (in.kind != RAW_REG)
            return fail(a, t, "memory base must be a %%r register, got '%.*s'",
                        (int)in.len, t);
        r->mem_base = MB_REG;
        r->index = in.index;
        t += in.len;
    } else if (is_ident_start(*t)) {
        const char *e = t;
        while (is_ident_char(*e))
            e++;
        if (copy_name(a, t, e, r->name))
            return -1;
        r->name_at = t;
        r->mem_base = MB_NAME;
        t = e;
    } else if (starts_number(t)) {
        const char *e;
        if (lex_number(a, t, &in, &e))
            return -1;
        if (in.kind != RAW_INT)
            return fail(a, t, "address '%.*s' must be an integer", (int)in.len, t);
        r->mem_base = MB_INT;
        r->mem_off = in.ival;
        t = e;
    } else {
        return fail(a, t, "expected a register, name or number inside '[ ]'");
    }
    t = skip_ws(t);
    if (r->mem_base != MB_INT && (*t == '+' || *t == '-')) {
        int neg = *t == '-';
        const char *o = skip_ws(t + 1), *e;
        if (!isdigit((unsigned char)*o))
            return fail(a, o, "expected an integer offset after '%c', got '%.*s'",
                        neg ? '-' : '+', (int)word_len(o), o);
        if (lex_number(a, o, &in, &e))
            return -1;
        if (in.kind != RAW_INT)
            return fail(a, o, "address offset '%.*s' must be an integer", (int)in.len, o);
        r->mem_off = neg ? -in.ival : in.ival;
        t = skip_ws(e);
    }
    if (*t != ']')
        return fail(a, t, "expected ']' after memory operand");
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
            return fail(a, t, "expected a %%r register in '{ }', got '%.*s'", vec_item_len(t), t);
        if (lex_percent(a, t, &in))
            return -1;
        if (in.kind != RAW_REG)
            return fail(a, t, "a vector's registers must be %%r registers, got '%.*s'",
                        (int)in.len, t);
        if (r->nvec == 0)
            r->index = in.index;
        else if (in.index != r->index + r->nvec)
            return fail(a, t, "registers in '{ }' must be consecutive ascending (like SASS "
                        "register pairs and quads): expected %%r%d after %%r%d, got '%.*s'",
                        r->index + r->nvec, r->index + r->nvec - 1, (int)in.len, t);
        if (r->nvec == 4)
            return fail(a, t, "a vector has at most 4 registers (.v2 or .v4)");
        r->nvec++;
        t = skip_ws(t + in.len);
        if (*t == ',') {
            t = skip_ws(t + 1);
            continue;
        }
        if (*t == '}')
            break;
        return fail(a, t, "expected ',' or '}' in a register vector, got '%.*s'", vec_item_len(t), t);
    }
    *end = t + 1;
    r->len = (size_t)(*end - s);
    return 0;
}

/* Read one operand at s (already past white space). */
static int lex_operand(asm_ctx_t *a, const char *s, raw_opd_t *r, const char **end)
{
    memset(r, 0, sizeof *r);
    r->at = s;
    if (*s == '{')
        return lex_vec(a, s, r, end);
    if (*s == '%') {
        if (lex_percent(a, s, r))
            return -1;
        *end = s + r->len;
        return 0;
    }
    if (*s == '[')
        return lex_mem(a, s, r, end);
    if (is_ident_start(*s)) {
        const char *e = s;
        while (is_ident_char(*e))
            e++;
        if (copy_name(a, s, e, r->name))
            return -1;
        r->kind = RAW_NAME;
        r->len = (size_t)(e - s);
        *end = e;
        return 0;
    }
    if (starts_number(s))
        return lex_number(a, s, r, end);
    if (*s == ',' || *s == '\0')
        return fail(a, s, "missing operand");
    return fail(a, s, "unexpected '%.*s' where an operand was expected",
                (int)word_len(s), s);
}

/* ------------------------------------------------------------------ */
/* Mnemonics                                                           */

/* Levenshtein distance between two short words (capped at 16 chars). */
static int edit_distance(const char *x, size_t nx, const char *y, size_t ny)
{
    int row[17];
    if (nx > 16 || ny > 16)
        return 99;
    for (size_t j = 0; j <= ny; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= nx; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= ny; j++) {
            int up = row[j];
            int best = diag + (x[i - 1] != y[j - 1]);
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (up + 1 < best)
                best = up + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[ny];
}

/* Base mnemonic of an opcode: "mul.hi" -> "mul", "bar.sync" -> "bar". */
static size_t base_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name);
}

static int unknown_mnemonic(asm_ctx_t *a, const char *s, size_t n)
{
    int best = 99;
    const char *sugg = NULL;
    size_t sugg_len = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        const char *nm = isa_ops[op].name;
        size_t bl = base_len(nm);
        int d = edit_distance(s, n, nm, bl);
        if (d < best) {
            best = d;
            sugg = nm;
            sugg_len = bl;
        }
    }
    if (edit_distance(s, n, "ret", 3) < best) {
        best = edit_distance(s, n, "ret", 3);
        sugg = "ret";
        sugg_len = 3;
    }
    if (sugg && best <= 2 && (size_t)best < n)
        return fail(a, s, "unknown instruction '%.*s' (did you mean '%.*s'?)",
                    (int)n, s, (int)sugg_len, sugg);
    return fail(a, s, "unknown instruction '%.*s'", (int)n, s);
}

typedef struct suffix {
    const char *s;              /* text after the '.'                         */
    size_t n;                   /* its length                                 */
} suffix_t;

/* Everything the mnemonic says about the instruction. */
typedef struct mnem {
    isa_op_t op;
    isa_type_t type, stype;
    isa_cmp_t cmp;
    isa_space_t space;
    isa_atom_op_t aop;
    uint8_t shape[2];           /* cp.async.bulk: rows, bytes/16; wgmma: N    */
    uint8_t multicast;          /* cp.async.bulk.multicast (a 5th operand)    */
    uint8_t vec;                /* ld/st .v2 / .v4: 2 or 4; 0 scalar          */
    char disp[32];              /* name for messages: "add", "ld.param"       */
} mnem_t;

/* Parse the decimal digits of [s, s+n) into *v; 0 if all digits, fits. */
static int parse_small(const char *s, size_t n, unsigned *v)
{
    *v = 0;
    if (n == 0 || n > 6)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        *v = *v * 10u + (unsigned)(s[i] - '0');
    }
    return 0;
}

/* The asynchronous instructions (mbarrier, cp.async.bulk, wgmma). */
static int is_async(isa_op_t op)
{
    return (op >= OP_MBAR_INIT && op <= OP_WGMMA_WAIT) || op == OP_MBAR_ARRIVE_REMOTE ||
           op == OP_BAR_CLUSTER || op == OP_CP_BULK_ST;
}

/* f16 bf16 tf32 e4m3 e5m2: the number formats of numfmt.h. */
static int is_numfmt_type(isa_type_t t)
{
    return t == T_F16 || t == T_BF16 || t == T_TF32 || t == T_E4M3 || t == T_E5M2;
}

static int is_float_type(isa_type_t t)
{
    return t == T_F32 || is_numfmt_type(t);
}

/* Check a type suffix against a mask; `k` is the suffix index to read. */
static int take_type(asm_ctx_t *a, const suffix_t *sf, int nsf, int *k,
                     uint32_t mask, const char *disp, const char *mend,
                     isa_type_t *out)
{
    char allowed[96];
    mask_text(mask, allowed, sizeof allowed);
    if (*k >= nsf)
        return fail(a, mend, "'%s' needs a type suffix (allowed: %s)", disp, allowed);
    isa_type_t t = parse_type(sf[*k].s, sf[*k].n);
    if (t == T_COUNT || !(mask & (1u << t)))
        return fail(a, sf[*k].s - 1, "type '.%.*s' not allowed for '%s' (allowed: %s)",
                    (int)sf[*k].n, sf[*k].s, disp, allowed);
    *out = t;
    (*k)++;
    return 0;
}

/* 2 or 4 if suffix x is ".v2" or ".v4" (a vector load or store), else 0. */
static unsigned vec_suffix(const suffix_t *x)
{
    if (x->n == 2 && x->s[0] == 'v' && (x->s[1] == '2' || x->s[1] == '4'))
        return (unsigned)(x->s[1] - '0');
    return 0;
}

/* Parse "base.suffix.suffix" at [s, e) into *m. */
static int parse_mnemonic(asm_ctx_t *a, const char *s, const char *e, mnem_t *m)
{
    suffix_t sf[MAX_SUFFIXES];
    int nsf = 0;
    const char *b = s;
    while (b < e && *b != '.')
        b++;
    size_t bn = (size_t)(b - s);
    for (const char *q = b; q < e;) {
        const char *st = q + 1, *en = st;
        while (en < e && *en != '.')
            en++;
        if (en == st)
            return fail(a, q, "empty suffix after '.'");
        if (nsf == MAX_SUFFIXES)
            return fail(a, q, "unexpected suffix '.%.*s' on '%.*s'",
                        (int)(en - st), st, (int)bn, s);
        sf[nsf].s = st;
        sf[nsf].n = (size_t)(en - st);
        nsf++;
        q = en;
    }

    memset(m, 0, sizeof *m);
    m->type = m->stype = T_NONE;
    int k = 0, found = 0;
    if (word_eq(s, bn, "ret")) {
        m->op = OP_EXIT;
        found = 1;
    } else if (word_eq(s, bn, "bar")) {
        if (nsf == 0 || !word_eq(sf[0].s, sf[0].n, "sync"))
            return fail(a, nsf ? sf[0].s - 1 : e, "'bar' needs '.sync' (write bar.sync)");
        m->op = OP_BAR;
        k = 1;
        found = 1;
    } else if (word_eq(s, bn, "barrier")) {
        if (nsf == 0 || !word_eq(sf[0].s, sf[0].n, "cluster"))
            return fail(a, nsf ? sf[0].s - 1 : e, "'barrier' needs '.cluster' (write barrier.cluster; "
                        "for the block's barrier write bar.sync)");
        m->op = OP_BAR_CLUSTER;
        k = 1;
        found = 1;
    } else if (word_eq(s, bn, "wmma")) {
        /* wmma.load.{a,b,c}, wmma.mma, wmma.store.d: the name has 2-3 parts */
        const char *at = nsf ? sf[0].s - 1 : e;
        if (nsf >= 1 && word_eq(sf[0].s, sf[0].n, "mma")) {
            m->op = OP_WMMA_MMA;
            k = 1;
        } else if (nsf >= 2 && word_eq(sf[0].s, sf[0].n, "load") && sf[1].n == 1 &&
                   (sf[1].s[0] == 'a' || sf[1].s[0] == 'b' || sf[1].s[0] == 'c')) {
            m->op = sf[1].s[0] == 'a' ? OP_WMMA_LOAD_A : sf[1].s[0] == 'b' ? OP_WMMA_LOAD_B
                                                                         : OP_WMMA_LOAD_C;
            k = 2;
        } else if (nsf >= 2 && word_eq(sf[0].s, sf[0].n, "store") && word_eq(sf[1].s, sf[1].n, "d")) {
            m->op = OP_WMMA_STORE_D;
            k = 2;
        } else {
            return fail(a, at, "'wmma' needs .load.a, .load.b, .load.c, .mma or .store.d");
        }
        found = 1;
    } else if (word_eq(s, bn, "mbarrier")) {
        const char *at = nsf ? sf[0].s - 1 : e;
        if (nsf >= 1 && word_eq(sf[0].s, sf[0].n, "init")) {
            m->op = OP_MBAR_INIT;
            k = 1;
        } else if (nsf >= 2 && word_eq(sf[0].s, sf[0].n, "arrive") &&
                   word_eq(sf[1].s, sf[1].n, "expect_tx")) {
            m->op = OP_MBAR_ARRIVE;
            k = 2;
        } else if (nsf >= 2 && word_eq(sf[0].s, sf[0].n, "arrive") &&
                   word_eq(sf[1].s, sf[1].n, "cluster")) {
            m->op = OP_MBAR_ARRIVE_REMOTE;
            k = 2;
        } else if (nsf >= 2 && word_eq(sf[0].s, sf[0].n, "wait") &&
                   word_eq(sf[1].s, sf[1].n, "parity")) {
            m->op = OP_MBAR_WAIT;
            k = 2;
        } else {
            return fail(a, at, "'mbarrier' needs .init, .arrive.expect_tx, .arrive.cluster or .wait.parity");
        }
        if (k >= nsf || !word_eq(sf[k].s, sf[k].n, "shared"))
            return fail(a, k < nsf ? sf[k].s - 1 : e, "'%s' needs .shared (an mbarrier lives "
                        "in shared memory)", isa_ops[m->op].name);
        k++;
        m->space = SPACE_SHARED;
        found = 1;
    } else if (word_eq(s, bn, "cp")) {
        int load = nsf >= 4 && word_eq(sf[2].s, sf[2].n, "shared") && word_eq(sf[3].s, sf[3].n, "global");
        int store = nsf >= 4 && word_eq(sf[2].s, sf[2].n, "global") && word_eq(sf[3].s, sf[3].n, "shared");
        if (!((load || store) && word_eq(sf[0].s, sf[0].n, "async") && word_eq(sf[1].s, sf[1].n, "bulk")))
            return fail(a, nsf ? sf[0].s - 1 : e, "'cp' needs .async.bulk.shared.global.RxB "
                        "(a bulk copy of R rows of B bytes, e.g. cp.async.bulk.shared.global.64x128) "
                        "or .async.bulk.global.shared.RxB (a bulk store)");
        m->op = load ? OP_CP_BULK : OP_CP_BULK_ST;
        k = 4;
        if (load && k < nsf && word_eq(sf[k].s, sf[k].n, "multicast")) {
            m->multicast = 1;
            k++;
        }
        const char *x = k < nsf ? memchr(sf[k].s, 'x', sf[k].n) : NULL;
        unsigned rows, bytes;
        if (!x || parse_small(sf[k].s, (size_t)(x - sf[k].s), &rows) != 0 ||
            parse_small(x + 1, sf[k].n - (size_t)(x + 1 - sf[k].s), &bytes) != 0)
            return fail(a, k < nsf ? sf[k].s - 1 : e, "'cp.async.bulk' needs a box shape .RxB "
                        "after .%s%s (R rows of B bytes, e.g. .64x128)", load ? "global" : "shared",
                        m->multicast ? ".multicast" : "");
        if (rows < 1 || rows > 255 || bytes < 16 || bytes > 4080 || bytes % 16 != 0)
            return fail(a, sf[k].s - 1, "box .%ux%u: rows must be 1..255 and bytes per row a "
                        "multiple of 16 in 16..4080", rows, bytes);
        m->shape[0] = (uint8_t)rows;
        m->shape[1] = (uint8_t)(bytes / 16);
        k++;
        m->space = SPACE_SHARED;
        found = 1;
    } else if (word_eq(s, bn, "wgmma")) {
        if (nsf >= 1 && word_eq(sf[0].s, sf[0].n, "mma_async")) {
            m->op = OP_WGMMA;
            k = 1;
            unsigned n = 0;
            if (k >= nsf || sf[k].s[0] != 'n' || parse_small(sf[k].s + 1, sf[k].n - 1, &n) != 0)
                return fail(a, k < nsf ? sf[k].s - 1 : e, "'wgmma.mma_async' needs a shape .nN "
                            "(N = 8..128, a multiple of 8), e.g. wgmma.mma_async.n64.f16");
            if (n < 8 || n > 128 || n % 8 != 0)
                return fail(a, sf[k].s - 1, "shape .n%u: N must be 8..128 and a multiple of 8", n);
            m->shape[0] = (uint8_t)n;
            k++;
            m->space = SPACE_SHARED;
        } else if (nsf >= 1 && word_eq(sf[0].s, sf[0].n, "wait")) {
            m->op = OP_WGMMA_WAIT;
            k = 1;
        } else {
            return fail(a, nsf ? sf[0].s - 1 : e, "'wgmma' needs .mma_async or .wait");
        }
        found = 1;
    } else if ((word_eq(s, bn, "ld") || word_eq(s, bn, "st")) && nsf > 0 &&
               word_eq(sf[0].s, sf[0].n, "cluster")) {
        m->op = s[0] == 'l' ? OP_LD_CLUSTER : OP_ST_CLUSTER;
        if (nsf < 2 || !word_eq(sf[1].s, sf[1].n, "shared"))
            return fail(a, nsf > 1 ? sf[1].s - 1 : e, "'%s' needs .shared (it reaches the shared "
                        "memory of a CTA of the cluster)", isa_ops[m->op].name);
        k = 2;
        m->space = SPACE_SHARED;
        found = 1;
    } else if (word_eq(s, bn, "mul") && nsf > 0 && word_eq(sf[0].s, sf[0].n, "hi")) {
        m->op = OP_MULHI;
        k = 1;
        found = 1;
    } else {
        for (int op = 0; op < OP_COUNT; op++) {
            if (word_eq(s, bn, isa_ops[op].name)) {
                m->op = (isa_op_t)op;
                found = 1;
                break;
            }
        }
    }
    if (!found)
        return unknown_mnemonic(a, s, bn);
    snprintf(m->disp, sizeof m->disp, "%s", isa_ops[m->op].name);

    const isa_opinfo_t *info = &isa_ops[m->op];
    switch (m->op) {
    case OP_MUL:
    case OP_MAD:
        if (k < nsf && word_eq(sf[k].s, sf[k].n, "lo"))
            k++;
        break;
    case OP_BRA:
        if (k < nsf && word_eq(sf[k].s, sf[k].n, "uni"))
            k++;
        break;
    case OP_SETP: {
        int c = CMP_COUNT;
        if (k < nsf)
            for (c = 0; c < CMP_COUNT; c++)
                if (word_eq(sf[k].s, sf[k].n, isa_cmp_name((isa_cmp_t)c)))
                    break;
        if (k >= nsf)
            return fail(a, e, "'setp' needs a comparison (.eq .ne .lt .le .gt .ge)");
        if (c == CMP_COUNT)
            return fail(a, sf[k].s - 1,
                        "'setp' needs a comparison (.eq .ne .lt .le .gt .ge), got '.%.*s'",
                        (int)sf[k].n, sf[k].s);
        m->cmp = (isa_cmp_t)c;
        k++;
        break;
    }
    case OP_LD:
    case OP_ST:
    case OP_ATOM:
    case OP_WMMA_LOAD_A:
    case OP_WMMA_LOAD_B:
    case OP_WMMA_LOAD_C:
    case OP_WMMA_STORE_D: {
        int sp = SPACE_COUNT;
        if (k < nsf)
            for (sp = SPACE_GLOBAL; sp < SPACE_COUNT; sp++)
                if (word_eq(sf[k].s, sf[k].n, isa_space_name((isa_space_t)sp)))
                    break;
        if (k >= nsf)
            return fail(a, e, "'%s' needs a state space (.global, .shared or .param)",
                        info->name);
        if (sp == SPACE_COUNT && vec_suffix(&sf[k]))
            return fail(a, sf[k].s - 1, "'.%.*s' goes after the state space (write %s.global.%.*s.f32)",
                        (int)sf[k].n, sf[k].s, info->name, (int)sf[k].n, sf[k].s);
        if (sp == SPACE_COUNT)
            return fail(a, sf[k].s - 1,
                        "'%s' needs a state space (.global, .shared or .param), got '.%.*s'",
                        info->name, (int)sf[k].n, sf[k].s);
        if (sp == SPACE_PARAM && m->op == OP_ST)
            return fail(a, sf[k].s - 1, "cannot store to .param (parameters are read-only)");
        if (sp == SPACE_PARAM && m->op == OP_ATOM)
            return fail(a, sf[k].s - 1, "'atom' works on .global or .shared, not .param");
        if (sp == SPACE_PARAM && m->op != OP_LD && m->op != OP_ST)
            return fail(a, sf[k].s - 1, "'%s' works on .global or .shared, not .param",
                        info->name);
        m->space = (isa_space_t)sp;
        k++;
        if (m->op == OP_LD && sp == SPACE_PARAM)
            snprintf(m->disp, sizeof m->disp, "ld.param");
        unsigned vn = k < nsf ? vec_suffix(&sf[k]) : 0;
        if (!vn && k < nsf && sf[k].n >= 2 && sf[k].s[0] == 'v' && isdigit((unsigned char)sf[k].s[1]))
            return fail(a, sf[k].s - 1, "'.%.*s' is not a vector width (vectors are .v2 and .v4)",
                        (int)sf[k].n, sf[k].s);
        if (vn && m->op != OP_LD && m->op != OP_ST)
            return fail(a, sf[k].s - 1, "'%s' has no vector form (.v2 and .v4 are for ld and st "
                        "on .global and .shared)", info->name);
        if (vn && sp == SPACE_PARAM)
            return fail(a, sf[k].s - 1, "'ld.param' has no vector form (.v2 and .v4 are for "
                        ".global and .shared; load each parameter with its own ld.param)");
        if (vn) {
            m->vec = (uint8_t)vn;
            snprintf(m->disp, sizeof m->disp, "%s.v%u", info->name, vn);
            k++;
        }
        if (m->op == OP_ATOM) {
            int ao = AOP_COUNT;
            if (k < nsf)
                for (ao = AOP_ADD; ao < AOP_COUNT; ao++)
                    if (word_eq(sf[k].s, sf[k].n, isa_aop_name((isa_atom_op_t)ao)))
                        break;
            if (k >= nsf)
                return fail(a, e, "'atom' needs an operation (.add .min .max .exch .cas)");
            if (ao == AOP_COUNT)
                return fail(a, sf[k].s - 1,
                            "'atom' needs an operation (.add .min .max .exch .cas), got '.%.*s'",
                            (int)sf[k].n, sf[k].s);
            m->aop = (isa_atom_op_t)ao;
            snprintf(m->disp, sizeof m->disp, "atom.%s", isa_aop_name(m->aop));
            k++;
        }
        break;
    }
    default:
        break;
    }
    for (int i = k; i < nsf; i++)
        if (vec_suffix(&sf[i]))
            return fail(a, sf[i].s - 1, "'%s' has no vector form '.%.*s' (.v2 and .v4 are for "
                        "ld and st on .global and .shared, right after the state space: "
                        "ld.global.v4.f32)", m->disp, (int)sf[i].n, sf[i].s);

    /* Type suffixes. */
    uint32_t mask = info->types;
    /* the types of one whole register: vector elements and ld.param */
    const uint32_t word_types = (1u << T_B32) | (1u << T_U32) | (1u << T_S32) | (1u << T_F32);
    if (m->vec) {
        mask = word_types;
        isa_type_t t = k < nsf ? parse_type(sf[k].s, sf[k].n) : T_COUNT;
        if (k < nsf && t != T_COUNT && !(mask & (1u << t)))
            return fail(a, sf[k].s - 1, "'.v%u' needs a 32-bit element type (.b32 .u32 .s32 "
                        ".f32: each element is one whole register), got '.%.*s'",
                        (unsigned)m->vec, (int)sf[k].n, sf[k].s);
    }
    if (m->op == OP_LD && m->space == SPACE_PARAM)
        mask = word_types;
    if (m->op == OP_ATOM) {
        if (m->aop == AOP_ADD)
            mask = (1u << T_U32) | (1u << T_S32) | (1u << T_F32);
        else if (m->aop == AOP_MIN || m->aop == AOP_MAX)
            mask = (1u << T_U32) | (1u << T_S32);
        else if (m->aop == AOP_CAS)
            mask = (1u << T_B32) | (1u << T_U32) | (1u << T_S32);
    }
    if (mask != (1u << T_NONE)) {
        if (take_type(a, sf, nsf, &k, mask, m->disp, e, &m->type))
            return -1;
        if (m->op == OP_CVT && take_type(a, sf, nsf, &k, mask, m->disp, e, &m->stype))
            return -1;
    }
    if (k < nsf)
        return fail(a, sf[k].s - 1, "unexpected suffix '.%.*s' on '%s'",
                    (int)sf[k].n, sf[k].s, m->disp);
    if (m->op == OP_CVT && (is_numfmt_type(m->type) || is_numfmt_type(m->stype)) &&
        !(is_float_type(m->type) && is_float_type(m->stype)))
        return fail(a, s, "'cvt.%s.%s': number formats convert only to and from floats "
                    "(go through f32: cvt.f32.%s first)", isa_type_name(m->type),
                    isa_type_name(m->stype), isa_type_name(m->stype));
    return 0;
}

/* The operand roles an instruction expects, and how to show them. */
static int roles_for(const mnem_t *m, opd_role_t *r, const char **sig)
{
    int pred = m->type == T_PRED;
    switch (m->op) {
    case OP_NOP: case OP_BAR: case OP_EXIT:
        *sig = "";
        return 0;
    case OP_MOV: case OP_NOT:
        r[0] = pred ? ROLE_PDST : ROLE_DST;
        r[1] = pred ? ROLE_PSRC : ROLE_SRC;
        *sig = "d, a";
        return 2;
    case OP_ABS: case OP_NEG: case OP_RCP: case OP_SQRT: case OP_RSQRT:
    case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_CVT:
        r[0] = ROLE_DST;
        r[1] = ROLE_SRC;
        *sig = "d, a";
        return 2;
    case OP_MAD: case OP_FMA:
        r[0] = ROLE_DST;
        r[1] = r[2] = r[3] = ROLE_SRC;
        *sig = "d, a, b, c";
        return 4;
    case OP_SETP:
        r[0] = ROLE_PDST;
        r[1] = r[2] = ROLE_SRC;
        *sig = "p, a, b";
        return 3;
    case OP_SELP:
        r[0] = ROLE_DST;
        r[1] = r[2] = ROLE_SRC;
        r[3] = ROLE_PSRC;
        *sig = "d, a, b, p";
        return 4;
    case OP_LD:
        r[0] = m->vec ? ROLE_VEC : ROLE_DST;
        r[1] = ROLE_MEM;
        *sig = m->vec == 4 ? "{d0, d1, d2, d3}, [addr]" : m->vec == 2 ? "{d0, d1}, [addr]" : "d, [addr]";
        return 2;
    case OP_ST:
        r[0] = ROLE_MEM;
        r[1] = m->vec ? ROLE_VEC : ROLE_SRC;
        *sig = m->vec == 4 ? "[addr], {a0, a1, a2, a3}" : m->vec == 2 ? "[addr], {a0, a1}" : "[addr], a";
        return 2;
    case OP_ATOM:
        r[0] = ROLE_DST;
        r[1] = ROLE_MEM;
        r[2] = ROLE_SRC;
        if (m->aop == AOP_CAS) {
            r[3] = ROLE_SRC;
            *sig = "d, [addr], b, c";
            return 4;
        }
        *sig = "d, [addr], b";
        return 3;
    case OP_BRA:
        r[0] = ROLE_LABEL;
        *sig = "LABEL";
        return 1;
    case OP_WMMA_LOAD_A: case OP_WMMA_LOAD_B: case OP_WMMA_LOAD_C:
        r[0] = ROLE_RANGE;
        r[1] = ROLE_MEM;
        r[2] = ROLE_SRC;
        *sig = "d, [addr], stride";
        return 3;
    case OP_WMMA_MMA:
        r[0] = r[1] = r[2] = r[3] = ROLE_RANGE;
        *sig = "d, a, b, c";
        return 4;
    case OP_WMMA_STORE_D:
        r[0] = ROLE_MEM;
        r[1] = ROLE_RANGE;
        r[2] = ROLE_SRC;
        *sig = "[addr], d, stride";
        return 3;
    case OP_MBAR_INIT: case OP_MBAR_ARRIVE: case OP_MBAR_WAIT: case OP_MBAR_ARRIVE_REMOTE:
        r[0] = ROLE_MEM;
        r[1] = ROLE_SRC;
        *sig = m->op == OP_MBAR_INIT ? "[mbar], count" : m->op == OP_MBAR_ARRIVE ? "[mbar], bytes"
             : m->op == OP_MBAR_ARRIVE_REMOTE ? "[mbar], rank" : "[mbar], parity";
        return 2;
    case OP_BAR_CLUSTER:
        *sig = "";
        return 0;
    case OP_LD_CLUSTER:
        r[0] = ROLE_DST;
        r[1] = ROLE_MEM;
        r[2] = ROLE_SRC;
        *sig = "d, [addr], rank";
        return 3;
    case OP_ST_CLUSTER:
        r[0] = ROLE_MEM;
        r[1] = r[2] = ROLE_SRC;
        *sig = "[addr], a, rank";
        return 3;
    case OP_CP_BULK:
        r[0] = ROLE_MEM;
        r[1] = ROLE_MEM;
        r[2] = ROLE_SRC;
        r[3] = ROLE_MEM;
        *sig = m->multicast ? "[dst], [src], pitch, [mbar], ctamask" : "[dst], [src], pitch, [mbar]";
        return 4;
    case OP_CP_BULK_ST:
        r[0] = ROLE_MEM;
        r[1] = ROLE_MEM;
        r[2] = ROLE_SRC;
        *sig = "[dst], [src], pitch";
        return 3;
    case OP_WGMMA:
        r[0] = ROLE_RANGE;
        r[1] = r[2] = ROLE_MEM;
        r[3] = ROLE_SRC;
        *sig = "d, [a], [b], bstride";
        return 4;
    case OP_WGMMA_WAIT:
        r[0] = ROLE_SRC;
        *sig = "N";
        return 1;
    default: /* binary: add sub mul mulhi div rem min max and or xor shl shr */
        r[0] = pred ? ROLE_PDST : ROLE_DST;
        r[1] = r[2] = pred ? ROLE_PSRC : ROLE_SRC;
        *sig = "d, a, b";
        return 3;
    }
}

/* ------------------------------------------------------------------ */
/* Operand checking                                                    */

/* A source value (register, special, immediate, shared symbol). `ctx` is
 * the type the value is read as (cvt: the source type). */
static int check_src(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *r, int pos,
                     isa_type_t ctx, isa_operand_t *o)
{
    switch (r->kind) {
    case RAW_REG:
        o->kind = OPD_REG;
        o->index = (uint8_t)r->index;
        return 0;
    case RAW_SPECIAL:
        o->kind = OPD_SPECIAL;
        o->index = (uint8_t)r->index;
        return 0;
    case RAW_INT:
        o->kind = OPD_IMM;
        if (ctx == T_F32) {
            if (r->hex)
                return fail(a, r->at, "hex immediate '%.*s' in an f32 instruction "
                            "(write 0f%08X for raw bits or a decimal value)",
                            (int)r->len, r->at, (unsigned)(uint32_t)r->ival);
            float f = (float)r->ival;
            memcpy(&o->imm, &f, sizeof f);
        } else {
            o->imm = (uint32_t)r->ival;
        }
        return 0;
    case RAW_FLOAT:
    case RAW_BITS:
        if (ctx != T_F32)
            return fail(a, r->at, "float immediate '%.*s' needs an f32 instruction",
                        (int)r->len, r->at);
        o->kind = OPD_IMM;
        o->imm = r->bits;
        return 0;
    case RAW_NAME: {
        const isa_symbol_t *sym = find_shared(&a->p, r->name);
        if (sym) {
            if (ctx == T_F32)
                return fail(a, r->at, "shared array '%s' is an address; "
                            "use it in an integer instruction", r->name);
            o->kind = OPD_IMM;
            o->imm = sym->value;
            return 0;
        }
        if (find_param(&a->p, r->name) >= 0)
            return fail(a, r->at, "'%s' is a parameter: load it first with "
                        "ld.param.u32 %%rN, [%s]", r->name, r->name);
        return fail(a, r->at, "unknown name '%s' (expected a register, an immediate "
                    "or a shared array)", r->name);
    }
    case RAW_PRED:
        return fail(a, r->at, "operand %d of '%s' must be a %%r register or an "
                    "immediate, got '%.*s'", pos + 1, m->disp, (int)r->len, r->at);
    case RAW_MEM:
        return fail(a, r->at, "operand %d of '%s' cannot be a memory operand '%.*s'",
                    pos + 1, m->disp, (int)r->len, r->at);
    case RAW_VEC:   /* check_operand reports it first */
        break;
    }
    return -1;
}

/* A memory operand; the allowed forms depend on the state space. */
static int check_mem(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *r, int pos,
                     isa_operand_t *o)
{
    if (r->kind != RAW_MEM)
        return fail(a, r->at, "operand %d of '%s' must be a memory address like "
                    "[%%r1+4], got '%.*s'", pos + 1, m->disp, (int)r->len, r->at);
    const isa_program_t *p = &a->p;
    o->kind = OPD_MEM;
    o->index = ISA_NO_REG;
    if (m->space == SPACE_PARAM) {
        if (r->mem_base != MB_NAME || r->mem_off != 0)
            return fail(a, r->at, "'ld.param' needs a parameter name like [n], got '%.*s'",
                        (int)r->len, r->at);
        int i = find_param(p, r->name);
        if (i < 0) {
            char list[512];
            size_t len = 0;
            list[0] = '\0';
            for (uint32_t k = 0; k < p->nparams && len < sizeof list - ISA_NAME_MAX - 3; k++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        k ? ", " : "", p->params[k]);
            if (p->nparams == 0)
                return fail(a, r->name_at, "unknown parameter '%s' (no .param declared)",
                            r->name);
            return fail(a, r->name_at, "unknown parameter '%s' (declared: %s)", r->name, list);
        }
        o->imm = (uint32_t)i * 4u;
        return 0;
    }
    switch (r->mem_base) {
    case MB_REG:
        o->index = (uint8_t)r->index;
        o->imm = (uint32_t)r->mem_off;
        break;
    case MB_INT:
        o->imm = (uint32_t)r->mem_off;
        break;
    case MB_NAME: {
        const isa_symbol_t *sym = find_shared(p, r->name);
        if (sym && m->space == SPACE_SHARED) {
            o->imm = sym->value + (uint32_t)r->mem_off;
            break;
        }
        if (sym)
            return fail(a, r->name_at, "shared array '%s' used in a .%s address",
                        r->name, isa_space_name(m->space));
        if (find_param(p, r->name) >= 0)
            return fail(a, r->name_at, "'%s' is a parameter: load it with ld.param.u32",
                        r->name);
        if (m->space == SPACE_SHARED)
            return fail(a, r->name_at, "unknown shared array '%s'", r->name);
        return fail(a, r->name_at, "unknown name '%s' in a .%s address", r->name,
                    isa_space_name(m->space));
    }
    }
    return 0;
}

static int is_wmma(isa_op_t op)
{
    return op >= OP_WMMA_LOAD_A && op <= OP_WMMA_STORE_D;
}

/* Registers in the range named by operand pos of a wmma instruction (1
 * for any other operand). */
static unsigned range_regs(isa_op_t op, isa_type_t type, int pos)
{
    switch (op) {
    case OP_WMMA_LOAD_A: return pos == 0 ? isa_frag_regs(FRAG_A, type) : 1;
    case OP_WMMA_LOAD_B: return pos == 0 ? isa_frag_regs(FRAG_B, type) : 1;
    case OP_WMMA_LOAD_C: return pos == 0 ? isa_frag_regs(FRAG_C, type) : 1;
    case OP_WMMA_STORE_D: return pos == 1 ? isa_frag_regs(FRAG_C, type) : 1;
    case OP_WMMA_MMA:
        return pos == 1 ? isa_frag_regs(FRAG_A, type) : pos == 2 ? isa_frag_regs(FRAG_B, type)
             : isa_frag_regs(FRAG_C, type);
    default: return 1;
    }
}

/* Check raw operand `pos` against its role and fill *o. */
static int check_operand(asm_ctx_t *a, const mnem_t *m, opd_role_t role,
                         const raw_opd_t *r, int pos, isa_instr_t *in)
{
    isa_operand_t *o = &in->opd[pos];
    memset(o, 0, sizeof *o);
    if (r->kind == RAW_VEC && role != ROLE_VEC) {
        if (m->op == OP_LD || m->op == OP_ST)
            return fail(a, r->at, "a register vector '%.*s' needs a vector %s: write "
                        "%s.%s.v%d.%s", (int)r->len, r->at, m->op == OP_LD ? "load" : "store",
                        isa_ops[m->op].name, isa_space_name(m->space), r->nvec == 4 ? 4 : 2,
                        isa_type_name(m->type));
        return fail(a, r->at, "operand %d of '%s' cannot be a register vector '%.*s' (only "
                    "ld/st .v2 and .v4 take one)", pos + 1, m->disp, (int)r->len, r->at);
    }
    switch (role) {
    case ROLE_DST:
        if (r->kind == RAW_REG) {
            o->kind = OPD_REG;
            o->index = (uint8_t)r->index;
            return 0;
        }
        if (r->kind == RAW_SPECIAL)
            return fail(a, r->at, "cannot write to special register '%.*s'",
                        (int)r->len, r->at);
        return fail(a, r->at, "destination of '%s' must be a %%r register, got '%.*s'",
                    m->disp, (int)r->len, r->at);
    case ROLE_PDST:
        if (r->kind == RAW_PRED) {
            o->kind = OPD_PRED;
            o->index = (uint8_t)r->index;
            return 0;
        }
        return fail(a, r->at, "destination of '%s' must be a predicate %%p0..%%p%d, "
                    "got '%.*s'", m->disp, ISA_NUM_PREDS - 1, (int)r->len, r->at);
    case ROLE_PSRC:
        if (r->kind == RAW_PRED) {
            o->kind = OPD_PRED;
            o->index = (uint8_t)r->index;
            return 0;
        }
        return fail(a, r->at, "operand %d of '%s' must be a predicate %%p0..%%p%d, "
                    "got '%.*s'", pos + 1, m->disp, ISA_NUM_PREDS - 1, (int)r->len, r->at);
    case ROLE_SRC:
        if (is_wmma(m->op) || is_async(m->op) ||   /* stride, count...: integers */
            ((m->op == OP_LD_CLUSTER || m->op == OP_ST_CLUSTER) && pos == 2)) {   /* the rank */
            if ((m->op == OP_LD_CLUSTER || m->op == OP_ST_CLUSTER) && r->kind == RAW_INT &&
                (r->ival < 0 || r->ival >= ISA_MAX_CLUSTER))
                return fail(a, r->at, "CTA rank must be 0..%d (a cluster has at most %d CTAs), got '%.*s'",
                            ISA_MAX_CLUSTER - 1, ISA_MAX_CLUSTER, (int)r->len, r->at);
            return check_src(a, m, r, pos, T_U32, o);
        }
        return check_src(a, m, r, pos, m->op == OP_CVT ? m->stype : m->type, o);
    case ROLE_RANGE: {
        if (r->kind != RAW_REG)
            return fail(a, r->at, "operand %d of '%s' must be a %%r register (the first of "
                        "a fragment's registers), got '%.*s'", pos + 1, m->disp,
                        (int)r->len, r->at);
        unsigned n = m->op == OP_WGMMA ? m->shape[0] / 2u : range_regs(m->op, m->type, pos);
        if ((unsigned)r->index + n > ISA_NUM_REGS)
            return fail(a, r->at, "%s %%r%d..%%r%u of '%s' needs %u registers and "
                        "goes past %%r%d", m->op == OP_WGMMA ? "accumulator" : "fragment",
                        r->index, (unsigned)r->index + n - 1, m->disp, n, ISA_NUM_REGS - 1);
        o->kind = OPD_REG;
        o->index = (uint8_t)r->index;
        return 0;
    }
    case ROLE_VEC:
        if (r->kind != RAW_VEC)
            return fail(a, r->at, "operand %d of '%s' must be %u consecutive registers in "
                        "braces, like %s, got '%.*s'", pos + 1, m->disp, (unsigned)m->vec,
                        m->vec == 4 ? "{%r4, %r5, %r6, %r7}" : "{%r4, %r5}", (int)r->len, r->at);
        if (r->nvec != m->vec)
            return fail(a, r->at, "'.v%u' needs %u registers in '{ }', got %d", (unsigned)m->vec,
                        (unsigned)m->vec, r->nvec);
        o->kind = OPD_REG;
        o->index = (uint8_t)r->index;
        return 0;
    case ROLE_MEM:
        if ((m->op == OP_CP_BULK && pos == 1) || (m->op == OP_CP_BULK_ST && pos == 0)) {   /* global */
            mnem_t g = *m;
            g.space = SPACE_GLOBAL;
            return check_mem(a, &g, r, pos, o);
        }
        return check_mem(a, m, r, pos, o);
    case ROLE_LABEL:
        if (r->kind != RAW_NAME)
            return fail(a, r->at, "'bra' needs a label name, got '%.*s'",
                        (int)r->len, r->at);
        if (grow(a, (void **)&a->fix, &a->fix_cap, a->nfix + 1, sizeof *a->fix))
            return -1;
        asm_fixup_t *f = &a->fix[a->nfix++];
        f->pc = a->p.ncode;
        f->line = a->lineno;
        f->col = (uint32_t)(r->at - a->cur) + 1;
        strcpy(f->name, r->name);
        o->kind = OPD_LABEL;
        return 0;
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Instructions and lines                                              */

/* Operand rules of the asynchronous instructions that the roles do not
 * say: immediates in range, and addresses known at assembly time
 * (no base register) aligned as the instruction needs. */
static int check_async(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *raw, const isa_instr_t *in)
{
    for (int i = 0; i < in->nopd; i++) {
        const isa_operand_t *o = &in->opd[i];
        if (o->kind == OPD_MEM && o->index == ISA_NO_REG) {
            int is_bar = (m->op != OP_CP_BULK && m->op != OP_WGMMA && m->op != OP_CP_BULK_ST) ||
                         (m->op == OP_CP_BULK && i == 3);
            unsigned align = is_bar ? 8u : 16u;
            if (o->imm % align != 0)
                return fail(a, raw[i].at, "operand %d of '%s' must be %u-byte aligned (%s), got "
                            "offset %lu", i + 1, m->disp, align,
                            is_bar ? "an mbarrier is 8 bytes" : "bulk copies and wgmma move 16-byte pieces",
                            (unsigned long)o->imm);
        }
    }
    const isa_operand_t *v = &in->opd[m->op == OP_WGMMA_WAIT ? 0 : m->op == OP_CP_BULK || m->op == OP_CP_BULK_ST ? 2
                                      : m->op == OP_WGMMA ? 3 : 1];
    const raw_opd_t *rv = &raw[m->op == OP_WGMMA_WAIT ? 0 : m->op == OP_CP_BULK || m->op == OP_CP_BULK_ST ? 2
                                 : m->op == OP_WGMMA ? 3 : 1];
    switch (m->op) {
    case OP_WGMMA_WAIT:
        if (v->kind != OPD_IMM || v->imm > 7)
            return fail(a, rv->at, "'wgmma.wait' needs an immediate 0..7 (wgmma.mma_async still "
                        "allowed to run), got '%.*s'", (int)rv->len, rv->at);
        break;
    case OP_MBAR_WAIT:
        if (v->kind == OPD_IMM && v->imm > 1)
            return fail(a, rv->at, "mbarrier parity must be 0 or 1, got '%.*s'", (int)rv->len, rv->at);
        break;
    case OP_MBAR_ARRIVE_REMOTE:
        if (v->kind == OPD_IMM && v->imm >= ISA_MAX_CLUSTER)
            return fail(a, rv->at, "CTA rank must be 0..%d (a cluster has at most %d CTAs), got '%.*s'",
                        ISA_MAX_CLUSTER - 1, ISA_MAX_CLUSTER, (int)rv->len, rv->at);
        break;
    case OP_CP_BULK:
    case OP_CP_BULK_ST:
    case OP_WGMMA:
        if (v->kind == OPD_IMM && v->imm % 16 != 0)
            return fail(a, rv->at, "%s must be a multiple of 16 bytes, got '%.*s'",
                        m->op != OP_WGMMA ? "the global row pitch" : "B's row stride",
                        (int)rv->len, rv->at);
        break;
    default:
        break;
    }
    return 0;
}

static int instruction(asm_ctx_t *a, const char *s)
{
    isa_instr_t in;
    memset(&in, 0, sizeof in);
    in.guard = ISA_NO_REG;
    in.reconv = ISA_NO_PC;

    if (*s == '@') {
        const char *g = s + 1;
        raw_opd_t r;
        memset(&r, 0, sizeof r);
        if (*g == '!') {
            in.guard_neg = 1;
            g++;
        }
        if (*g != '%')
            return fail(a, g, "guard must be a predicate %%p0..%%p%d, got '%.*s'",
                        ISA_NUM_PREDS - 1, (int)word_len(g), g);
        if (lex_percent(a, g, &r))
            return -1;
        if (r.kind != RAW_PRED)
            return fail(a, g, "guard must be a predicate %%p0..%%p%d, got '%.*s'",
                        ISA_NUM_PREDS - 1, (int)r.len, g);
        in.guard = (uint8_t)r.index;
        s = skip_ws(g + r.len);
        if (*s == '\0')
            return fail(a, s, "expected an instruction after the guard");
    }

    if (!is_ident_start(*s))
        return fail(a, s, "expected an instruction, got '%.*s'", (int)word_len(s), s);
    const char *me = s;
    while (is_ident_char(*me) || *me == '.')
        me++;
    mnem_t m;
    if (parse_mnemonic(a, s, me, &m))
        return -1;
    in.op = (uint8_t)m.op;
    in.type = (uint8_t)m.type;
    in.stype = (uint8_t)m.stype;
    in.cmp = (uint8_t)m.cmp;
    in.space = (uint8_t)m.space;
    in.aop = (uint8_t)m.aop;
    in.shape[0] = m.shape[0];
    in.shape[1] = m.shape[1];
    in.vec = m.vec;
    in.line = a->lineno;
    in.col = (uint32_t)(s - a->cur) + 1;

    /* Read the operands as written. */
    raw_opd_t raw[MAX_RAW_OPDS];
    int nraw = 0;
    const char *t = skip_ws(me);
    if (*me && !is_space(*me))
        return fail(a, me, "unexpected '%.*s' after '%.*s'", (int)word_len(me), me,
                    (int)(me - s), s);
    while (*t) {
        raw_opd_t tmp;
        const char *e;
        if (lex_operand(a, t, nraw < MAX_RAW_OPDS ? &raw[nraw] : &tmp, &e))
            return -1;
        nraw++;
        t = skip_ws(e);
        if (*t == ',') {
            t = skip_ws(t + 1);
            if (*t == '\0')
                return fail(a, t, "missing operand");
            continue;
        }
        if (*t != '\0')
            return expect_end(a, t);
    }

    /* Match them against what the instruction expects. */
    opd_role_t roles[ISA_MAX_OPDS];
    const char *sig;
    int nwant = roles_for(&m, roles, &sig);
    if (m.op == OP_BAR) {
        if (nraw > 1)
            return fail(a, s, "'bar.sync' takes at most 1 operand (the barrier, 0), got %d",
                        nraw);
        if (nraw == 1 && (raw[0].kind != RAW_INT || raw[0].ival != 0))
            return fail(a, raw[0].at, "only barrier 0 is supported, got '%.*s'",
                        (int)raw[0].len, raw[0].at);
        nraw = 0;
    }
    if (m.multicast) {   /* the CTA mask: an immediate, kept in in.ctamask */
        if (nraw != nwant + 1)
            return fail(a, s, "'%s.multicast' needs 5 operands (%s), got %d", m.disp, sig, nraw);
        const raw_opd_t *r = &raw[nwant];
        if (r->kind != RAW_INT || r->ival < 1 || r->ival > (1 << ISA_MAX_CLUSTER) - 1)
            return fail(a, r->at, "the multicast CTA mask must be an immediate 1..%d (bit r = CTA "
                        "rank r of the cluster, which has at most %d CTAs), got '%.*s'",
                        (1 << ISA_MAX_CLUSTER) - 1, ISA_MAX_CLUSTER, (int)r->len, r->at);
        in.ctamask = (uint8_t)r->ival;
        nraw = nwant;
    }
    if (nraw != nwant) {
        if (nwant == 0)
            return fail(a, s, "'%s' takes no operands, got %d", m.disp, nraw);
        return fail(a, s, "'%s' needs %d operand%s (%s), got %d", m.disp, nwant,
                    nwant == 1 ? "" : "s", sig, nraw);
    }
    for (int i = 0; i < nwant; i++)
        if (check_operand(a, &m, roles[i], &raw[i], i, &in))
            return -1;
    in.nopd = (uint8_t)nwant;
    if (is_async(m.op) && check_async(a, &m, raw, &in))
        return -1;
    if (m.vec) {   /* an address known now must be aligned to the whole vector */
        int mi = m.op == OP_LD ? 1 : 0;
        unsigned align = 4u * m.vec;
        if (in.opd[mi].index == ISA_NO_REG && in.opd[mi].imm % align != 0)
            return fail(a, raw[mi].at, "a .v%u address must be %u-byte aligned (the whole vector "
                        "is one %u-byte access), got offset %lu", (unsigned)m.vec, align, align,
                        (unsigned long)in.opd[mi].imm);
    }

    /* Register usage for occupancy. */
    if (in.guard != ISA_NO_REG && in.guard + 1u > a->p.npreds)
        a->p.npreds = in.guard + 1u;
    for (int i = 0; i < in.nopd; i++) {
        const isa_operand_t *o = &in.opd[i];
        unsigned len = o->kind != OPD_REG ? 1 : m.op == OP_WGMMA && i == 0 ? m.shape[0] / 2u
                     : m.vec ? isa_opd_regs(&in, i) : range_regs(m.op, m.type, i);
        if ((o->kind == OPD_REG || (o->kind == OPD_MEM && o->index != ISA_NO_REG))
            && o->index + len > a->p.nregs)
            a->p.nregs = o->index + len;
        if (o->kind == OPD_PRED && o->index + 1u > a->p.npreds)
            a->p.npreds = o->index + 1u;
    }

    if (grow(a, (void **)&a->p.code, &a->code_cap, a->p.ncode + 1, sizeof in))
        return -1;
    a->p.code[a->p.ncode++] = in;
    return 0;
}

/* FNV-1a of a label name. */
static uint32_t label_hash_of(const char *name)
{
    uint32_t h = 2166136261u;
    for (; *name; name++)
        h = (h ^ (uint8_t)*name) * 16777619u;
    return h;
}

/* Index of label `name` through the hash table (linear in the number of
 * labels over a whole file, where a scan per label was quadratic: 100k
 * labels took 15 s), or -1. */
static int lookup_label(const asm_ctx_t *a, const char *name)
{
    if (!a->label_hash_cap)
        return -1;
    uint32_t mask = a->label_hash_cap - 1;
    for (uint32_t h = label_hash_of(name) & mask;; h = (h + 1) & mask) {
        uint32_t e = a->label_hash[h];
        if (e == 0)
            return -1;
        if (strcmp(a->p.labels[e - 1].name, name) == 0)
            return (int)(e - 1);
    }
}

static void hash_insert(asm_ctx_t *a, uint32_t i)
{
    uint32_t mask = a->label_hash_cap - 1, h = label_hash_of(a->p.labels[i].name) & mask;
    while (a->label_hash[h])
        h = (h + 1) & mask;
    a->label_hash[h] = i + 1;
}

/* Enter label i (= p.nlabels, about to be counted) into the hash table,
 * growing it to keep it at most half full. */
static int hash_label(asm_ctx_t *a, uint32_t i)
{
    if ((uint64_t)(i + 1) * 2 > a->label_hash_cap) {
        uint32_t ncap = a->label_hash_cap ? a->label_hash_cap * 2 : 64;
        uint32_t *t = calloc(ncap, sizeof *t);
        if (!t)
            return fail_nomem(a);
        free(a->label_hash);
        a->label_hash = t;
        a->label_hash_cap = ncap;
        for (uint32_t j = 0; j < i; j++)
            hash_insert(a, j);
    }
    hash_insert(a, i);
    return 0;
}

static int define_label(asm_ctx_t *a, const char *s, const char *e)
{
    char name[ISA_NAME_MAX];
    if (copy_name(a, s, e, name))
        return -1;
    int prev = lookup_label(a, name);
    if (prev >= 0)
        return fail(a, s, "duplicate label '%s' (first defined at line %u)", name,
                    (unsigned)a->label_line[prev]);
    uint32_t cap = a->label_cap;
    if (grow(a, (void **)&a->p.labels, &a->label_cap, a->p.nlabels + 1,
             sizeof *a->p.labels))
        return -1;
    if (a->label_cap != cap) {
        uint32_t *q = realloc(a->label_line, (size_t)a->label_cap * sizeof *q);
        if (!q)
            return fail_nomem(a);
        a->label_line = q;
    }
    isa_symbol_t *l = &a->p.labels[a->p.nlabels];
    memset(l, 0, sizeof *l);
    strcpy(l->name, name);
    l->value = a->p.ncode;
    a->label_line[a->p.nlabels] = a->lineno;
    if (hash_label(a, a->p.nlabels))
        return -1;
    a->p.nlabels++;
    return 0;
}

/* One line, NUL-terminated, comments already cut off. */
static int assemble_line(asm_ctx_t *a, char *line)
{
    const char *s = skip_ws(line);
    while (is_ident_start(*s)) {
        const char *e = s;
        while (is_ident_char(*e))
            e++;
        const char *t = skip_ws(e);
        if (*t != ':')
            break;
        if (define_label(a, s, e))
            return -1;
        s = skip_ws(t + 1);
    }
    if (*s == '\0')
        return 0;
    if (*s == '.')
        return directive(a, s);
    return instruction(a, s);
}

/* ------------------------------------------------------------------ */
/* Control flow: labels, falling off the end, reconvergence            */

static int resolve_labels(asm_ctx_t *a)
{
    for (uint32_t i = 0; i < a->nfix; i++) {
        const asm_fixup_t *f = &a->fix[i];
        int l = lookup_label(a, f->name);
        if (l < 0)
            return fail_at(a, f->line, f->col, "undefined label '%s'", f->name);
        uint32_t pc = a->p.labels[l].value;
        if (pc >= a->p.ncode)
            return fail_at(a, f->line, f->col, "label '%s' is after the last "
                           "instruction; put an exit after it", f->name);
        a->p.code[f->pc].opd[0].imm = pc;
    }
    return 0;
}

/* Successors of instruction i in the control-flow graph; n = ncode stands
 * for the virtual exit node. Returns how many (0..2). */
static int successors(const isa_program_t *p, uint32_t i, uint32_t out[2])
{
    const isa_instr_t *in = &p->code[i];
    uint32_t n = p->ncode;
    int guarded = in->guard != ISA_NO_REG;
    int k = 0;
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

/* Error if the last instruction is reachable from pc 0 and can fall
 * through past the end of the code (it is not an unguarded exit or bra). */
static int check_fall_off(asm_ctx_t *a, uint8_t *seen, uint32_t *stack)
{
    const isa_program_t *p = &a->p;
    uint32_t n = p->ncode, top = 0;
    memset(seen, 0, n);
    seen[0] = 1;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t i = stack[--top], s[2];
        int k = successors(p, i, s);
        for (int j = 0; j < k; j++) {
            if (s[j] < n && !seen[s[j]]) {
                seen[s[j]] = 1;
                stack[top++] = s[j];
            }
        }
    }
    const isa_instr_t *last = &p->code[n - 1];
    if (!seen[n - 1] || (last->guard == ISA_NO_REG
                         && (last->op == OP_EXIT || last->op == OP_BRA)))
        return 0;
    return fail_at(a, last->line, last->col,
                   "kernel can run past its last instruction; end it with exit");
}

/* Lengauer-Tarjan's EVAL with path compression (the simple version), on
 * DFS numbers; iterative, so that long chains cannot overflow the stack. */
static uint32_t lt_eval(uint32_t v, uint32_t *ancestor, uint32_t *label, const uint32_t *semi,
                        uint32_t *path, uint32_t none)
{
    if (ancestor[v] == none)
        return v;
    uint32_t top = 0, x = v;
    while (ancestor[ancestor[x]] != none) {
        path[top++] = x;
        x = ancestor[x];
    }
    while (top > 0) {   /* from the one nearest the root down to v */
        x = path[--top];
        uint32_t a = ancestor[x];
        if (semi[label[a]] < semi[label[x]])
            label[x] = label[a];
        ancestor[x] = ancestor[a];
    }
    return label[v];
}

/* Immediate post-dominators: Lengauer-Tarjan (simple version, O(E log N))
 * on the reversed CFG, rooted at the virtual exit node n. (The iterative
 * Cooper-Harvey-Kennedy algorithm it replaces walked long ipdom chains
 * once per branch: 80k branches back to one label took 10 s.) Nodes that
 * cannot reach an exit (endless loops) get no ipdom. Every branch's reconv
 * is its ipdom, or ISA_NO_PC when that is the exit. */
static int compute_reconv(asm_ctx_t *a)
{
    isa_program_t *p = &a->p;
    uint32_t n = p->ncode, nn = n + 1;
    const uint32_t UNDEF = ISA_NO_PC;
    uint32_t *pred_start = calloc(nn + 1, sizeof *pred_start);
    uint32_t *pred = malloc((size_t)2 * n * sizeof *pred + sizeof *pred);
    uint32_t *work = malloc((size_t)11 * nn * sizeof *work);
    int rc = -1;
    if (!pred_start || !pred || !work) {
        fail_nomem(a);
        goto done;
    }
    /* node arrays (CFG numbering) and DFS-number arrays */
    uint32_t *dfn = work, *edge = work + nn, *stack = work + 2 * (size_t)nn;
    uint32_t *vert = work + 3 * (size_t)nn, *parent = work + 4 * (size_t)nn, *semi = work + 5 * (size_t)nn;
    uint32_t *idom = work + 6 * (size_t)nn, *ancestor = work + 7 * (size_t)nn, *label = work + 8 * (size_t)nn;
    uint32_t *bhead = work + 9 * (size_t)nn, *bnext = work + 10 * (size_t)nn;
    /* Predecessor lists (CSR): the reversed graph's successors. */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s[2];
        int k = successors(p, i, s);
        for (int j = 0; j < k; j++)
            pred_start[s[j] + 1]++;
    }
    for (uint32_t v = 0; v < nn; v++)
        pred_start[v + 1] += pred_start[v];
    for (uint32_t v = 0; v < nn; v++)
        edge[v] = pred_start[v];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s[2];
        int k = successors(p, i, s);
        for (int j = 0; j < k; j++)
            pred[edge[s[j]]++] = i;
    }
    /* Iterative DFS from the exit over predecessors: preorder numbers. */
    for (uint32_t v = 0; v < nn; v++) {
        dfn[v] = UNDEF;
        edge[v] = pred_start[v];
        ancestor[v] = UNDEF;
        bhead[v] = UNDEF;
    }
    uint32_t top = 0, nd = 0;
    stack[top++] = n;
    dfn[n] = nd;
    vert[nd] = n;
    parent[nd] = UNDEF;
    nd++;
    while (top > 0) {
        uint32_t v = stack[top - 1];
        if (edge[v] < pred_start[v + 1]) {
            uint32_t u = pred[edge[v]++];
            if (dfn[u] == UNDEF) {
                dfn[u] = nd;
                vert[nd] = u;
                parent[nd] = dfn[v];
                nd++;
                stack[top++] = u;
            }
        } else {
            top--;
        }
    }
    for (uint32_t w = 0; w < nd; w++) {
        semi[w] = w;
        label[w] = w;
        idom[w] = 0;
    }
    /* semidominators in reverse preorder; the reversed graph's
     * predecessors of a node are its CFG successors */
    for (uint32_t w = nd; w-- > 1;) {
        uint32_t s[2];
        int cnt = successors(p, vert[w], s);
        for (int j = 0; j < cnt; j++) {
            uint32_t v = dfn[s[j]];
            if (v == UNDEF)
                continue;
            uint32_t u = lt_eval(v, ancestor, label, semi, stack, UNDEF);
            if (semi[u] < semi[w])
                semi[w] = semi[u];
        }
        bnext[w] = bhead[semi[w]];
        bhead[semi[w]] = w;
        ancestor[w] = parent[w];   /* LINK(parent, w) */
        for (uint32_t v = bhead[parent[w]]; v != UNDEF; v = bnext[v]) {
            uint32_t u = lt_eval(v, ancestor, label, semi, stack, UNDEF);
            idom[v] = semi[u] < semi[v] ? u : parent[w];
        }
        bhead[parent[w]] = UNDEF;
    }
    for (uint32_t w = 1; w < nd; w++)
        if (idom[w] != semi[w])
            idom[w] = idom[idom[w]];
    for (uint32_t i = 0; i < n; i++) {
        isa_instr_t *in = &p->code[i];
        in->reconv = ISA_NO_PC;
        if (in->op == OP_BRA && dfn[i] != UNDEF) {
            uint32_t d = vert[idom[dfn[i]]];
            if (d != n)
                in->reconv = d;
        }
    }
    rc = 0;
done:
    free(pred_start);
    free(pred);
    free(work);
    return rc;
}

static int finish(asm_ctx_t *a)
{
    if (a->p.ncode == 0)
        return fail_file(a, SIMT_E_ASM, "no instructions (a kernel needs at least exit)");
    if (resolve_labels(a))
        return -1;
    uint8_t *seen = malloc(a->p.ncode + 1);
    uint32_t *stack = malloc((a->p.ncode + 1) * sizeof *stack);
    int rc = -1;
    if (!seen || !stack)
        fail_nomem(a);
    else
        rc = check_fall_off(a, seen, stack);
    free(seen);
    free(stack);
    if (rc)
        return -1;
    return compute_reconv(a);
}

/* Kernel name from a path: "lessons/kernels/vecadd.s" -> "vecadd". */
static void file_stem(const char *file, char *out)
{
    const char *b = file;
    for (const char *q = file; *q; q++)
        if (*q == '/' || *q == '\\')
            b = q + 1;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b)
        n = (size_t)(dot - b);
    if (n >= ISA_NAME_MAX)
        n = ISA_NAME_MAX - 1;
    if (n == 0) {
        strcpy(out, "kernel");
        return;
    }
    memcpy(out, b, n);
    out[n] = '\0';
}

/* Cut the line at the first `//`, `#` or `;`. */
static void cut_comment(char *line)
{
    for (char *q = line; *q; q++) {
        if (*q == ';' || *q == '#' || (q[0] == '/' && q[1] == '/')) {
            *q = '\0';
            return;
        }
    }
}

int asm_assemble(const char *src, size_t len, const char *file,
                 isa_program_t *out, simt_err_t *err)
{
    asm_ctx_t a;
    memset(&a, 0, sizeof a);
    memset(out, 0, sizeof *out);
    simt_err_clear(err);
    a.src = src ? src : "";
    a.len = src ? len : 0;
    a.file = file ? file : "<input>";
    a.err = err;
    snprintf(a.p.file, sizeof a.p.file, "%s", a.file);
    file_stem(a.file, a.p.name);

    a.text = malloc(a.len + 1);
    if (!a.text) {
        fail_nomem(&a);
        goto fail;
    }
    memcpy(a.text, a.src, a.len);
    a.text[a.len] = '\0';

    char *line = a.text, *end = a.text + a.len;
    a.lineno = 1;
    while (line <= end) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        char *le = nl ? nl : end;
        *le = '\0';
        a.cur = line;
        char *zero = memchr(line, '\0', (size_t)(le - line));
        if (zero) {
            fail(&a, zero, "unexpected NUL byte");
            goto fail;
        }
        cut_comment(line);
        if (assemble_line(&a, line))
            goto fail;
        if (!nl)
            break;
        line = nl + 1;
        a.lineno++;
    }
    if (finish(&a))
        goto fail;

    free(a.text);
    free(a.label_line);
    free(a.label_hash);
    free(a.fix);
    *out = a.p;
    return 0;
fail:
    free(a.text);
    free(a.label_line);
    free(a.label_hash);
    free(a.fix);
    isa_program_free(&a.p);
    memset(out, 0, sizeof *out);
    return -1;
}

int asm_assemble_file(const char *path, isa_program_t *out, simt_err_t *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        if (e == ENOENT)
            return simt_errf(err, SIMT_E_USAGE, "%s: error: file not found (%s)",
                             path, strerror(e));
        return simt_errf(err, SIMT_E_USAGE, "%s: error: cannot open file (%s)",
                         path, strerror(e));
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            char *q = realloc(buf, ncap);
            if (!q) {
                free(buf);
                fclose(f);
                return simt_errf(err, SIMT_E_NOMEM, "%s: error: out of memory", path);
            }
            buf = q;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return simt_errf(err, SIMT_E_USAGE, "%s: error: cannot read file (%s)",
                         path, strerror(e));
    }
    int rc = asm_assemble(buf, len, path, out, err);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Disassembly                                                         */

/* snprintf into a buffer while counting the full length needed. */
typedef struct sbuf {
    char *buf;                  /* destination (may be NULL when n == 0)      */
    size_t n;                   /* its size                                   */
    size_t len;                 /* characters the full text needs             */
} sbuf_t;

static void sb_printf(sbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k;
    if (b->len < b->n)
        k = vsnprintf(b->buf + b->len, b->n - b->len, fmt, ap);
    else
        k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->len += (size_t)k;
}

/* The name the listing uses for branch target `pc`: the first label
 * defined there, else a generated L_<pc> that no real label uses. */
static uint32_t first_label_at(const isa_program_t *p, uint32_t pc);

static void label_for_pc(const isa_program_t *p, uint32_t pc, char *out, size_t n)
{
    if (p) {
        /* assembled programs have their labels sorted by value: a binary
         * search finds the first one at pc (a scan per branch made
         * listings quadratic); anything else falls back to the scan */
        uint32_t f = first_label_at(p, pc);
        if (f < p->nlabels && p->labels[f].value == pc) {
            snprintf(out, n, "%s", p->labels[f].name);
            return;
        }
        for (uint32_t i = 0; i < p->nlabels; i++) {
            if (p->labels[i].value == pc) {
                snprintf(out, n, "%s", p->labels[i].name);
                return;
            }
        }
    }
    snprintf(out, n, "L_%u", (unsigned)pc);
    for (int tries = 0; p && tries < 100 && find_label(p, out) >= 0; tries++) {
        size_t len = strlen(out);
        if (len + 1 < n) {
            out[len] = '_';
            out[len + 1] = '\0';
        }
    }
}

/* An f32 immediate as text that reads back to the same bits. */
static void format_f32(sbuf_t *b, uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    char t[48];
    uint32_t bb = ~bits;
    /* The shortest of 6..9 significant digits that reads back exactly
     * (9 always does for a finite float). */
    for (int digits = 6; digits <= 9 && bb != bits; digits++) {
        snprintf(t, sizeof t, "%.*g", digits, (double)f);
        float back = strtof(t, NULL);
        memcpy(&bb, &back, sizeof bb);
    }
    int letters = strchr(t, 'n') != NULL || strchr(t, 'N') != NULL; /* inf, nan */
    if (letters || bb != bits) {
        sb_printf(b, "0f%08X", (unsigned)bits);
        return;
    }
    if (!strchr(t, '.') && !strchr(t, 'e'))
        sb_printf(b, "%s.0", t);
    else
        sb_printf(b, "%s", t);
}

static void format_imm(sbuf_t *b, uint32_t v, isa_type_t ctx)
{
    switch (ctx) {
    case T_F32:
        format_f32(b, v);
        break;
    case T_S32: case T_S8: case T_S16:
        sb_printf(b, "%ld", (long)(int32_t)v);
        break;
    default:
        sb_printf(b, "%lu", (unsigned long)v);
        break;
    }
}

static void format_mem(sbuf_t *b, const isa_program_t *p, const isa_instr_t *in,
                       const isa_operand_t *o)
{
    if (in->space == SPACE_PARAM && o->index == ISA_NO_REG && o->imm % 4 == 0
        && p && o->imm / 4 < p->nparams) {
        sb_printf(b, "[%s]", p->params[o->imm / 4]);
        return;
    }
    if (o->index != ISA_NO_REG) {
        int32_t off = (int32_t)o->imm;
        if (off > 0)
            sb_printf(b, "[%%r%u+%ld]", (unsigned)o->index, (long)off);
        else if (off < 0)
            sb_printf(b, "[%%r%u-%lu]", (unsigned)o->index,
                      (unsigned long)(0u - o->imm));
        else
            sb_printf(b, "[%%r%u]", (unsigned)o->index);
        return;
    }
    if (in->space == SPACE_SHARED && p) {
        for (uint32_t i = 0; i < p->nshared; i++) {
            const isa_symbol_t *s = &p->shared[i];
            if (o->imm >= s->value && o->imm - s->value < s->size) {
                if (o->imm == s->value)
                    sb_printf(b, "[%s]", s->name);
                else
                    sb_printf(b, "[%s+%lu]", s->name, (unsigned long)(o->imm - s->value));
                return;
            }
        }
    }
    sb_printf(b, "[%lu]", (unsigned long)o->imm);
}

int asm_format_instr(const isa_program_t *p, const isa_instr_t *in,
                     char *buf, size_t n)
{
    sbuf_t b = { buf, n, 0 };
    if (buf && n > 0)
        buf[0] = '\0';
    if (in->guard != ISA_NO_REG)
        sb_printf(&b, "@%s%%p%u ", in->guard_neg ? "!" : "", (unsigned)in->guard);
    isa_op_t op = (isa_op_t)in->op;
    sb_printf(&b, "%s", op < OP_COUNT ? isa_ops[op].name : "?");
    if (op == OP_SETP)
        sb_printf(&b, ".%s", isa_cmp_name((isa_cmp_t)in->cmp));
    if (op == OP_LD || op == OP_ST || op == OP_ATOM ||
        (op >= OP_WMMA_LOAD_A && op <= OP_WMMA_STORE_D && op != OP_WMMA_MMA))
        sb_printf(&b, ".%s", isa_space_name((isa_space_t)in->space));
    if ((op == OP_LD || op == OP_ST) && in->vec)
        sb_printf(&b, ".v%u", (unsigned)in->vec);
    if (op == OP_ATOM)
        sb_printf(&b, ".%s", isa_aop_name((isa_atom_op_t)in->aop));
    if (op == OP_MBAR_INIT || op == OP_MBAR_ARRIVE || op == OP_MBAR_WAIT || op == OP_MBAR_ARRIVE_REMOTE ||
        op == OP_LD_CLUSTER || op == OP_ST_CLUSTER)
        sb_printf(&b, ".shared");
    if (op == OP_CP_BULK)
        sb_printf(&b, ".shared.global%s.%ux%u", in->ctamask ? ".multicast" : "",
                  (unsigned)in->shape[0], 16u * in->shape[1]);
    if (op == OP_CP_BULK_ST)
        sb_printf(&b, ".%ux%u", (unsigned)in->shape[0], 16u * in->shape[1]);
    if (op == OP_WGMMA)
        sb_printf(&b, ".n%u", (unsigned)in->shape[0]);
    if (in->type != T_NONE)
        sb_printf(&b, ".%s", isa_type_name((isa_type_t)in->type));
    if (op == OP_CVT)
        sb_printf(&b, ".%s", isa_type_name((isa_type_t)in->stype));

    isa_type_t ctx = (isa_type_t)(op == OP_CVT ? in->stype : in->type);
    if ((op >= OP_WMMA_LOAD_A && op <= OP_WMMA_STORE_D) || (op >= OP_MBAR_INIT && op <= OP_WGMMA_WAIT) ||
        op == OP_MBAR_ARRIVE_REMOTE || op == OP_CP_BULK_ST)
        ctx = T_U32;                  /* the stride, count, bytes... */
    for (int i = 0; i < in->nopd && i < ISA_MAX_OPDS; i++) {
        const isa_operand_t *o = &in->opd[i];
        sb_printf(&b, "%s", i == 0 ? " " : ", ");
        switch (o->kind) {
        case OPD_REG:
            if ((op == OP_LD || op == OP_ST) && in->vec) {
                for (unsigned k = 0; k < in->vec; k++)
                    sb_printf(&b, "%s%%r%u", k ? ", " : "{", (unsigned)o->index + k);
                sb_printf(&b, "}");
                break;
            }
            sb_printf(&b, "%%r%u", (unsigned)o->index);
            break;
        case OPD_PRED:
            sb_printf(&b, "%%p%u", (unsigned)o->index);
            break;
        case OPD_IMM:
            format_imm(&b, o->imm, (op == OP_LD_CLUSTER || op == OP_ST_CLUSTER) && i == 2 ? T_U32 : ctx);
            break;
        case OPD_SPECIAL:
            sb_printf(&b, "%s", isa_special_name((isa_special_t)o->index));
            break;
        case OPD_MEM:
            if ((op == OP_CP_BULK && i == 1) || (op == OP_CP_BULK_ST && i == 0)) {   /* global */
                isa_instr_t g = *in;
                g.space = SPACE_GLOBAL;
                format_mem(&b, p, &g, o);
            } else {
                format_mem(&b, p, in, o);
            }
            break;
        case OPD_LABEL: {
            char name[ISA_NAME_MAX + 8];
            label_for_pc(p, o->imm, name, sizeof name);
            sb_printf(&b, "%s", name);
            break;
        }
        default:
            sb_printf(&b, "?");
            break;
        }
    }
    if (op == OP_CP_BULK && in->ctamask)
        sb_printf(&b, ", 0x%x", (unsigned)in->ctamask);
    return (int)b.len;
}

/* A growing malloc'd string. */
typedef struct dstr {
    char *s;
    size_t len, cap;
    int oom;                    /* 1 after an allocation failed               */
} dstr_t;

static void ds_printf(dstr_t *d, const char *fmt, ...)
{
    if (d->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
        va_end(ap2);
        return;
    }
    if (d->len + (size_t)k + 1 > d->cap) {
        size_t ncap = d->cap ? d->cap : 1024;
        while (d->len + (size_t)k + 1 > ncap)
            ncap *= 2;
        char *q = realloc(d->s, ncap);
        if (!q) {
            d->oom = 1;
            va_end(ap2);
            return;
        }
        d->s = q;
        d->cap = ncap;
    }
    vsnprintf(d->s + d->len, d->cap - d->len, fmt, ap2);
    va_end(ap2);
    d->len += (size_t)k;
}

/* The first label whose value is >= pc, for labels sorted by value (the
 * assembler defines them in source order, so their values never
 * decrease). */
static uint32_t first_label_at(const isa_program_t *p, uint32_t pc)
{
    uint32_t lo = 0, hi = p->nlabels;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->labels[mid].value < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Print the labels at pc: with `sorted` labels by binary search (linear
 * over a listing, where a scan per pc was quadratic), else by a scan. */
static void ds_labels_at(dstr_t *d, const isa_program_t *p, uint32_t pc,
                         const uint8_t *is_target, int sorted)
{
    int any = 0;
    for (uint32_t i = sorted ? first_label_at(p, pc) : 0; i < p->nlabels; i++) {
        if (sorted && p->labels[i].value != pc)
            break;
        if (p->labels[i].value == pc) {
            ds_printf(d, "%s:\n", p->labels[i].name);
            any = 1;
        }
    }
    if (!any && pc < p->ncode && is_target[pc]) {
        char name[ISA_NAME_MAX + 8];
        label_for_pc(p, pc, name, sizeof name);
        ds_printf(d, "%s:\n", name);
    }
}

char *asm_disassemble(const isa_program_t *p)
{
    dstr_t d = { NULL, 0, 0, 0 };
    uint8_t *is_target = calloc((size_t)p->ncode + 1, 1);
    if (!is_target)
        return NULL;
    for (uint32_t i = 0; i < p->ncode; i++) {
        const isa_instr_t *in = &p->code[i];
        if (in->op == OP_BRA && in->nopd > 0 && in->opd[0].imm < p->ncode)
            is_target[in->opd[0].imm] = 1;
    }
    int sorted = 1;
    for (uint32_t i = 1; i < p->nlabels; i++)
        sorted &= p->labels[i].value >= p->labels[i - 1].value;
    ds_printf(&d, "// %s: disassembled by simtlab\n", p->file[0] ? p->file : p->name);
    ds_printf(&d, ".kernel %s\n", p->name);
    for (uint32_t i = 0; i < p->nparams; i++)
        ds_printf(&d, ".param %s\n", p->params[i]);
    for (uint32_t i = 0; i < p->nshared; i++)
        ds_printf(&d, ".shared %s %lu\n", p->shared[i].name,
                  (unsigned long)p->shared[i].size);
    for (uint32_t pc = 0; pc <= p->ncode; pc++) {
        ds_labels_at(&d, p, pc, is_target, sorted);
        if (pc == p->ncode)
            break;
        char line[512];
        int k = asm_format_instr(p, &p->code[pc], line, sizeof line);
        assert(k >= 0 && (size_t)k < sizeof line); /* names are < 64 chars */
        (void)k;
        ds_printf(&d, "    %s\n", line);
    }
    free(is_target);
    if (d.oom) {
        free(d.s);
        return NULL;
    }
    return d.s;
}
