/* asm.c - text assembler for the simtlab ISA: the driver (see asm_int.h for
 * the other parts).
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
 *      immediate post-dominator, see reconv.c).
 *
 * The first error stops assembly. Messages look like gcc's:
 *   k.s:3:13: error: unknown register '%r255' (registers are %r0..%r254)
 *   add.s32 %r1, %r255, 2
 *               ^
 * Columns are 1-based byte columns; the caret line copies tabs from the
 * source line so that it lines up in a terminal.
 */
#include "asm_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "reconv.h"

#define MAX_SHARED_BYTES (16u * 1024u * 1024u)
#define SHARED_ALIGN 16u

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

int asm_fail_at(asm_ctx_t *a, uint32_t lineno, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(a, lineno, col, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error at character `at` of the current line. */
int asm_fail(asm_ctx_t *a, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(a, a->lineno, (uint32_t)(at - a->cur) + 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error about the whole file (no line to point at). */
int asm_fail_file(asm_ctx_t *a, int code, const char *fmt, ...)
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

int asm_fail_nomem(asm_ctx_t *a)
{
    return asm_fail_file(a, SIMT_E_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------ */
/* ------------------------------------------------------------------ */
/* Growing the program arrays                                          */

int asm_grow(asm_ctx_t *a, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(*arr, (size_t)ncap * elem);
    if (!q)
        return asm_fail_nomem(a);
    *arr = q;
    *cap = ncap;
    return 0;
}

int asm_find_param(const isa_program_t *p, const char *name)
{
    for (uint32_t i = 0; i < p->nparams; i++)
        if (strcmp(p->params[i], name) == 0)
            return (int)i;
    return -1;
}

const isa_symbol_t *asm_find_shared(const isa_program_t *p, const char *name)
{
    for (uint32_t i = 0; i < p->nshared; i++)
        if (strcmp(p->shared[i].name, name) == 0)
            return &p->shared[i];
    return NULL;
}


/* Copy an identifier [s, e) into out (ISA_NAME_MAX). Fails if too long. */
int asm_copy_name(asm_ctx_t *a, const char *s, const char *e, char *out)
{
    size_t n = (size_t)(e - s);
    if (n >= ISA_NAME_MAX)
        return asm_fail(a, s, "name '%.*s' is too long (at most %d characters)",
                    (int)n, s, ISA_NAME_MAX - 1);
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

/* ------------------------------------------------------------------ */
/* Directives                                                          */

/* Read a name after a directive; `what` is the directive for messages. */
static int directive_name(asm_ctx_t *a, const char **ps, const char *what, char *out)
{
    const char *s = skip_ws(*ps);
    if (!is_ident_start(*s)) {
        if (*s == '\0')
            return asm_fail(a, s, "'%s' needs a name", what);
        return asm_fail(a, s, "expected a name after '%s', got '%.*s'", what,
                    (int)word_len(s), s);
    }
    const char *e = s;
    while (is_ident_char(*e))
        e++;
    if (asm_copy_name(a, s, e, out))
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
        return asm_fail(a, s, "trailing characters '%.*s'", (int)n, s);
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
            return asm_fail(a, s, "second '.kernel' directive (one kernel per file)");
        while (*te && !is_space(*te))
            te++;
        if (te == t)
            return asm_fail(a, t, "'.kernel' needs a name");
        if (asm_copy_name(a, t, te, p->name))
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
        if (asm_find_param(p, name) >= 0)
            return asm_fail(a, at, "parameter '%s' redeclared", name);
        if (asm_find_shared(p, name))
            return asm_fail(a, at, "'%s' is already declared as a shared array", name);
        if (p->nparams >= ISA_MAX_PARAMS)
            return asm_fail(a, at, "too many parameters (at most %d)", ISA_MAX_PARAMS);
        strcpy(p->params[p->nparams++], name);
        return expect_end(a, t);
    }
    if (word_eq(d, n, "shared")) {
        char name[ISA_NAME_MAX];
        const char *t = e;
        const char *at = skip_ws(e);
        if (directive_name(a, &t, ".shared", name))
            return -1;
        if (asm_find_shared(p, name))
            return asm_fail(a, at, "shared memory array '%s' redeclared", name);
        if (asm_find_param(p, name) >= 0)
            return asm_fail(a, at, "'%s' is already declared as a parameter", name);
        const char *z = skip_ws(t);
        if (!isdigit((unsigned char)*z))
            return asm_fail(a, z, "'.shared %s' needs a size in bytes", name);
        char *ze;
        errno = 0;
        int hex = z[0] == '0' && (z[1] == 'x' || z[1] == 'X');
        unsigned long long size = strtoull(z, &ze, hex ? 16 : 10);
        if (is_ident_char(*ze) || *ze == '.')
            return asm_fail(a, z, "bad size '%.*s'", (int)word_len(z), z);
        if (errno == ERANGE || size == 0 || size > MAX_SHARED_BYTES)
            return asm_fail(a, z, "shared array size must be 1..%u bytes, got '%.*s'",
                        MAX_SHARED_BYTES, (int)(ze - z), z);
        uint32_t off = (p->shared_bytes + SHARED_ALIGN - 1) / SHARED_ALIGN * SHARED_ALIGN;
        if ((uint64_t)off + size > MAX_SHARED_BYTES)
            return asm_fail(a, z, "shared arrays need more than %u bytes in total",
                        MAX_SHARED_BYTES);
        if (asm_grow(a, (void **)&p->shared, &a->shared_cap, p->nshared + 1,
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
    return asm_fail(a, s, "unknown directive '.%.*s' (expected .kernel, .param or .shared)",
                (int)n, d);
}

/* ------------------------------------------------------------------ */
/* Instructions and lines                                              */

/* "@%p1 " or "@!%p1 " at s: the guard into *in; *s moves past it. */
static int read_guard(asm_ctx_t *a, const char **ps, isa_instr_t *in)
{
    const char *g = *ps + 1;
    raw_opd_t r;
    memset(&r, 0, sizeof r);
    if (*g == '!') {
        in->guard_neg = 1;
        g++;
    }
    if (*g != '%')
        return asm_fail(a, g, "guard must be a predicate %%p0..%%p%d, got '%.*s'",
                    ISA_NUM_PREDS - 1, (int)word_len(g), g);
    if (asm_lex_percent(a, g, &r))
        return -1;
    if (r.kind != RAW_PRED)
        return asm_fail(a, g, "guard must be a predicate %%p0..%%p%d, got '%.*s'",
                    ISA_NUM_PREDS - 1, (int)r.len, g);
    in->guard = (uint8_t)r.index;
    *ps = skip_ws(g + r.len);
    if (**ps == '\0')
        return asm_fail(a, *ps, "expected an instruction after the guard");
    return 0;
}

/* The operands after the mnemonic (which ends at me), as written; *nraw
 * counts them all, raw[] keeps the first MAX_RAW_OPDS. */
static int read_operands(asm_ctx_t *a, const char *s, const char *me, raw_opd_t *raw, int *nraw)
{
    const char *t = skip_ws(me);
    *nraw = 0;
    if (*me && !is_space(*me))
        return asm_fail(a, me, "unexpected '%.*s' after '%.*s'", (int)word_len(me), me,
                    (int)(me - s), s);
    while (*t) {
        raw_opd_t tmp;
        const char *e;
        if (asm_lex_operand(a, t, *nraw < MAX_RAW_OPDS ? &raw[*nraw] : &tmp, &e))
            return -1;
        (*nraw)++;
        t = skip_ws(e);
        if (*t == ',') {
            t = skip_ws(t + 1);
            if (*t == '\0')
                return asm_fail(a, t, "missing operand");
            continue;
        }
        if (*t != '\0')
            return expect_end(a, t);
    }
    return 0;
}

/* The operand count against the table's roles (isa_instr_roles), with
 * bar.sync's optional 0 and multicast's CTA mask, which are not operands
 * in opd[]. Returns the operands to check, or -1. */
static int count_operands(asm_ctx_t *a, const char *s, const mnem_t *m, isa_instr_t *in,
                          const raw_opd_t *raw, int nraw, isa_role_t *roles)
{
    int nwant = isa_instr_roles(in, roles);
    char sig[96];   /* how the operands are written, for the messages */
    if (m->op == OP_BAR) {
        if (nraw > 1)
            return asm_fail(a, s, "'bar.sync' takes at most 1 operand (the barrier, 0), got %d",
                        nraw);
        if (nraw == 1 && (raw[0].kind != RAW_INT || raw[0].ival != 0))
            return asm_fail(a, raw[0].at, "only barrier 0 is supported, got '%.*s'",
                        (int)raw[0].len, raw[0].at);
        nraw = 0;
    }
    if (m->multicast) {   /* the CTA mask: an immediate, kept in in.ctamask */
        if (nraw != nwant + 1 && isa_signature(in, sig, sizeof sig) >= 0)
            return asm_fail(a, s, "'%s.multicast' needs 5 operands (%s, ctamask), got %d",
                            m->disp, sig, nraw);
        const raw_opd_t *r = &raw[nwant];
        if (r->kind != RAW_INT || r->ival < 1 || r->ival > (1 << ISA_MAX_CLUSTER) - 1)
            return asm_fail(a, r->at, "the multicast CTA mask must be an immediate 1..%d (bit r = CTA "
                        "rank r of the cluster, which has at most %d CTAs), got '%.*s'",
                        (1 << ISA_MAX_CLUSTER) - 1, ISA_MAX_CLUSTER, (int)r->len, r->at);
        in->ctamask = (uint8_t)r->ival;
        nraw = nwant;
    }
    if (nraw != nwant) {
        isa_signature(in, sig, sizeof sig);
        if (nwant == 0)
            return asm_fail(a, s, "'%s' takes no operands, got %d", m->disp, nraw);
        return asm_fail(a, s, "'%s' needs %d operand%s (%s), got %d", m->disp, nwant,
                    nwant == 1 ? "" : "s", sig, nraw);
    }
    return nwant;
}

/* Registers and predicates the instruction names, for occupancy. */
static void count_regs(isa_program_t *p, const isa_instr_t *in)
{
    if (in->guard != ISA_NO_REG && in->guard + 1u > p->npreds)
        p->npreds = in->guard + 1u;
    for (int i = 0; i < in->nopd; i++) {
        const isa_operand_t *o = &in->opd[i];
        unsigned len = isa_opd_regs(in, i);
        if ((o->kind == OPD_REG || (o->kind == OPD_MEM && o->index != ISA_NO_REG))
            && o->index + len > p->nregs)
            p->nregs = o->index + len;
        if (o->kind == OPD_PRED && o->index + 1u > p->npreds)
            p->npreds = o->index + 1u;
    }
}

static int instruction(asm_ctx_t *a, const char *s)
{
    isa_instr_t in;
    memset(&in, 0, sizeof in);
    in.guard = ISA_NO_REG;
    in.reconv = ISA_NO_PC;
    if (*s == '@' && read_guard(a, &s, &in))
        return -1;
    if (!is_ident_start(*s))
        return asm_fail(a, s, "expected an instruction, got '%.*s'", (int)word_len(s), s);
    const char *me = s;
    while (is_ident_char(*me) || *me == '.')
        me++;
    mnem_t m;
    if (asm_parse_mnemonic(a, s, me, &m))
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

    raw_opd_t raw[MAX_RAW_OPDS];
    isa_role_t roles[ISA_MAX_OPDS];
    int nraw, nwant;
    if (read_operands(a, s, me, raw, &nraw) ||
        (nwant = count_operands(a, s, &m, &in, raw, nraw, roles)) < 0)
        return -1;
    for (int i = 0; i < nwant; i++)
        if (asm_check_operand(a, &m, roles[i], &raw[i], i, &in))
            return -1;
    in.nopd = (uint8_t)nwant;
    if (asm_check_values(a, &m, raw, &in, roles))
        return -1;
    count_regs(&a->p, &in);
    if (asm_grow(a, (void **)&a->p.code, &a->code_cap, a->p.ncode + 1, sizeof in))
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
            return asm_fail_nomem(a);
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
    if (asm_copy_name(a, s, e, name))
        return -1;
    int prev = lookup_label(a, name);
    if (prev >= 0)
        return asm_fail(a, s, "duplicate label '%s' (first defined at line %u)", name,
                    (unsigned)a->label_line[prev]);
    uint32_t cap = a->label_cap;
    if (asm_grow(a, (void **)&a->p.labels, &a->label_cap, a->p.nlabels + 1,
             sizeof *a->p.labels))
        return -1;
    if (a->label_cap != cap) {
        uint32_t *q = realloc(a->label_line, (size_t)a->label_cap * sizeof *q);
        if (!q)
            return asm_fail_nomem(a);
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
            return asm_fail_at(a, f->line, f->col, "undefined label '%s'", f->name);
        uint32_t pc = a->p.labels[l].value;
        if (pc >= a->p.ncode)
            return asm_fail_at(a, f->line, f->col, "label '%s' is after the last "
                           "instruction; put an exit after it", f->name);
        a->p.code[f->pc].opd[0].imm = pc;
    }
    return 0;
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
        int k = reconv_successors(p, i, s);
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
    return asm_fail_at(a, last->line, last->col,
                   "kernel can run past its last instruction; end it with exit");
}

static int finish(asm_ctx_t *a)
{
    if (a->p.ncode == 0)
        return asm_fail_file(a, SIMT_E_ASM, "no instructions (a kernel needs at least exit)");
    if (resolve_labels(a))
        return -1;
    uint8_t *seen = malloc(a->p.ncode + 1);
    uint32_t *stack = malloc((a->p.ncode + 1) * sizeof *stack);
    int rc = -1;
    if (!seen || !stack)
        asm_fail_nomem(a);
    else
        rc = check_fall_off(a, seen, stack);
    free(seen);
    free(stack);
    if (rc)
        return -1;
    if (reconv_compute(&a->p))
        return asm_fail_nomem(a);
    return 0;
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
        asm_fail_nomem(&a);
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
            asm_fail(&a, zero, "unexpected NUL byte");
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
