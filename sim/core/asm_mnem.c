/* asm_mnem.c - the assembler's mnemonics: "ld.global.v4.f32" into mnem_t
 * (opcode, types, space, comparison, atomic operation, shapes). */
#include "asm_int.h"

#include <stdio.h>

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
        return asm_fail(a, s, "unknown instruction '%.*s' (did you mean '%.*s'?)",
                    (int)n, s, (int)sugg_len, sugg);
    return asm_fail(a, s, "unknown instruction '%.*s'", (int)n, s);
}


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
        return asm_fail(a, mend, "'%s' needs a type suffix (allowed: %s)", disp, allowed);
    isa_type_t t = parse_type(sf[*k].s, sf[*k].n);
    if (t == T_COUNT || !(mask & (1u << t)))
        return asm_fail(a, sf[*k].s - 1, "type '.%.*s' not allowed for '%s' (allowed: %s)",
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

/* ------------------------------------------------------------------ */
/* The mnemonic, suffix by suffix                                      */

/* A mnemonic being read: its base, its suffixes and the next one (k). */
typedef struct mparse {
    asm_ctx_t *a;
    const char *s, *e;          /* the mnemonic's text [s, e)                 */
    size_t bn;                  /* length of its base ("ld")                  */
    suffix_t sf[MAX_SUFFIXES];
    int nsf;
    int k;                      /* the next suffix to read                    */
    mnem_t *m;
} mparse_t;

/* Where a message about suffix k points: its '.', or the mnemonic's end. */
static const char *at_sf(const mparse_t *q, int k)
{
    return k < q->nsf ? q->sf[k].s - 1 : q->e;
}

static int sf_is(const mparse_t *q, int k, const char *w)
{
    return k < q->nsf && word_eq(q->sf[k].s, q->sf[k].n, w);
}

/* Opcodes whose mnemonic has several parts, base first: "wmma" "load"
 * "a" is wmma.load.a. `then` is a suffix the form must have next (with
 * why, for the message). A base with forms but none matching is an
 * error (base_errors) unless the base is also a plain mnemonic (ld st mul). */
typedef struct form {
    const char *base;
    const char *parts[2];
    isa_op_t op;
    const char *then, *why;
} form_t;

static const form_t forms[] = {
    { "ret", { NULL, NULL }, OP_EXIT, NULL, NULL },
    { "bar", { "sync", NULL }, OP_BAR, NULL, NULL },
    { "barrier", { "cluster", NULL }, OP_BAR_CLUSTER, NULL, NULL },
    { "mul", { "hi", NULL }, OP_MULHI, NULL, NULL },
    { "wmma", { "mma", NULL }, OP_WMMA_MMA, NULL, NULL },
    { "wmma", { "load", "a" }, OP_WMMA_LOAD_A, NULL, NULL },
    { "wmma", { "load", "b" }, OP_WMMA_LOAD_B, NULL, NULL },
    { "wmma", { "load", "c" }, OP_WMMA_LOAD_C, NULL, NULL },
    { "wmma", { "store", "d" }, OP_WMMA_STORE_D, NULL, NULL },
    { "mbarrier", { "init", NULL }, OP_MBAR_INIT, "shared", "an mbarrier lives in shared memory" },
    { "mbarrier", { "arrive", "expect_tx" }, OP_MBAR_ARRIVE, "shared",
      "an mbarrier lives in shared memory" },
    { "mbarrier", { "arrive", "cluster" }, OP_MBAR_ARRIVE_REMOTE, "shared",
      "an mbarrier lives in shared memory" },
    { "mbarrier", { "wait", "parity" }, OP_MBAR_WAIT, "shared", "an mbarrier lives in shared memory" },
    { "wgmma", { "mma_async", NULL }, OP_WGMMA, NULL, NULL },
    { "wgmma", { "wait", NULL }, OP_WGMMA_WAIT, NULL, NULL },
    { "ld", { "cluster", NULL }, OP_LD_CLUSTER, "shared",
      "it reaches the shared memory of a CTA of the cluster" },
    { "st", { "cluster", NULL }, OP_ST_CLUSTER, "shared",
      "it reaches the shared memory of a CTA of the cluster" },
};

static const struct { const char *base, *msg; } base_errors[] = {
    { "bar", "'bar' needs '.sync' (write bar.sync)" },
    { "barrier", "'barrier' needs '.cluster' (write barrier.cluster; for the block's barrier "
                 "write bar.sync)" },
    { "wmma", "'wmma' needs .load.a, .load.b, .load.c, .mma or .store.d" },
    { "mbarrier", "'mbarrier' needs .init, .arrive.expect_tx, .arrive.cluster or .wait.parity" },
    { "wgmma", "'wgmma' needs .mma_async or .wait" },
};

/* cp.async.bulk.shared.global[.multicast].RxB (a bulk copy) and
 * cp.async.bulk.global.shared.RxB (a bulk store): the box shape. */
static int parse_cp(mparse_t *q)
{
    asm_ctx_t *a = q->a;
    mnem_t *m = q->m;
    int load = q->nsf >= 4 && sf_is(q, 2, "shared") && sf_is(q, 3, "global");
    int store = q->nsf >= 4 && sf_is(q, 2, "global") && sf_is(q, 3, "shared");
    if (!((load || store) && sf_is(q, 0, "async") && sf_is(q, 1, "bulk")))
        return asm_fail(a, at_sf(q, 0), "'cp' needs .async.bulk.shared.global.RxB "
                        "(a bulk copy of R rows of B bytes, e.g. cp.async.bulk.shared.global.64x128) "
                        "or .async.bulk.global.shared.RxB (a bulk store)");
    m->op = load ? OP_CP_BULK : OP_CP_BULK_ST;
    q->k = 4;
    if (load && sf_is(q, q->k, "multicast")) {
        m->multicast = 1;
        q->k++;
    }
    int k = q->k;
    const suffix_t *x = k < q->nsf ? &q->sf[k] : NULL;
    const char *by = x ? memchr(x->s, 'x', x->n) : NULL;
    unsigned rows, bytes;
    if (!by || parse_small(x->s, (size_t)(by - x->s), &rows) != 0 ||
        parse_small(by + 1, x->n - (size_t)(by + 1 - x->s), &bytes) != 0)
        return asm_fail(a, at_sf(q, k), "'cp.async.bulk' needs a box shape .RxB "
                        "after .%s%s (R rows of B bytes, e.g. .64x128)", load ? "global" : "shared",
                        m->multicast ? ".multicast" : "");
    if (rows < 1 || rows > 255 || bytes < 16 || bytes > 4080 || bytes % 16 != 0)
        return asm_fail(a, x->s - 1, "box .%ux%u: rows must be 1..255 and bytes per row a "
                        "multiple of 16 in 16..4080", rows, bytes);
    m->shape[0] = (uint8_t)rows;
    m->shape[1] = (uint8_t)(bytes / 16);
    q->k++;
    return 1;
}

/* The opcode: a form of several parts, cp's own syntax, or a plain
 * mnemonic of the table. Sets m->op and q->k past what it read. */
static int parse_opcode(mparse_t *q)
{
    const char *s = q->s;
    size_t bn = q->bn;
    if (word_eq(s, bn, "cp"))
        return parse_cp(q) < 0 ? -1 : 0;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const form_t *f = &forms[i];
        int n = f->parts[0] ? f->parts[1] ? 2 : 1 : 0;
        if (f->base[0] != s[0] || !word_eq(s, bn, f->base) || (n > 0 && !sf_is(q, 0, f->parts[0])) ||
            (n > 1 && !sf_is(q, 1, f->parts[1])))
            continue;
        q->m->op = f->op;
        q->k = n;
        if (f->then && !sf_is(q, n, f->then))
            return asm_fail(q->a, at_sf(q, n), "'%s' needs .%s (%s)", isa_ops[f->op].name,
                            f->then, f->why);
        q->k += f->then != NULL;
        return 0;
    }
    for (size_t i = 0; i < sizeof base_errors / sizeof base_errors[0]; i++)
        if (word_eq(s, bn, base_errors[i].base))
            return asm_fail(q->a, at_sf(q, 0), "%s", base_errors[i].msg);
    for (int op = 0; op < OP_COUNT; op++) {
        if (word_eq(s, bn, isa_ops[op].name)) {
            q->m->op = (isa_op_t)op;
            return 0;
        }
    }
    return unknown_mnemonic(q->a, s, bn);
}

/* wgmma.mma_async.nN: N = 8..128, a multiple of 8. */
static int parse_wgmma_shape(mparse_t *q)
{
    int k = q->k;
    unsigned n = 0;
    if (k >= q->nsf || q->sf[k].s[0] != 'n' || parse_small(q->sf[k].s + 1, q->sf[k].n - 1, &n) != 0)
        return asm_fail(q->a, at_sf(q, k), "'wgmma.mma_async' needs a shape .nN "
                        "(N = 8..128, a multiple of 8), e.g. wgmma.mma_async.n64.f16");
    if (n < 8 || n > 128 || n % 8 != 0)
        return asm_fail(q->a, q->sf[k].s - 1, "shape .n%u: N must be 8..128 and a multiple of 8", n);
    q->m->shape[0] = (uint8_t)n;
    q->k++;
    return 0;
}

static const char *cmp_name(int c) { return isa_cmp_name((isa_cmp_t)c); }
static const char *aop_name(int o) { return isa_aop_name((isa_atom_op_t)o); }

/* The next suffix, one of name(lo..hi-1) (setp's comparison, atom's
 * operation) into *out; `need` says what is missing. */
static int pick_suffix(mparse_t *q, int lo, int hi, const char *(*name)(int),
                       const char *need, int *out)
{
    int k = q->k;
    if (k >= q->nsf)
        return asm_fail(q->a, q->e, "%s", need);
    for (int v = lo; v < hi; v++) {
        if (sf_is(q, k, name(v))) {
            *out = v;
            q->k++;
            return 0;
        }
    }
    return asm_fail(q->a, q->sf[k].s - 1, "%s, got '.%.*s'", need, (int)q->sf[k].n, q->sf[k].s);
}

/* The state space of an opcode that names it (isa_space_written): one of
 * the table's spaces for it. */
static int parse_space(mparse_t *q)
{
    mnem_t *m = q->m;
    const isa_opinfo_t *info = &isa_ops[m->op];
    int k = q->k, sp = SPACE_COUNT;
    if (k >= q->nsf)
        return asm_fail(q->a, q->e, "'%s' needs a state space (.global, .shared or .param)",
                        info->name);
    const suffix_t *x = &q->sf[k];
    for (sp = SPACE_GLOBAL; sp < SPACE_COUNT; sp++)
        if (word_eq(x->s, x->n, isa_space_name((isa_space_t)sp)))
            break;
    if (sp == SPACE_COUNT && vec_suffix(x))
        return asm_fail(q->a, x->s - 1, "'.%.*s' goes after the state space (write %s.global.%.*s.f32)",
                        (int)x->n, x->s, info->name, (int)x->n, x->s);
    if (sp == SPACE_COUNT)
        return asm_fail(q->a, x->s - 1,
                        "'%s' needs a state space (.global, .shared or .param), got '.%.*s'",
                        info->name, (int)x->n, x->s);
    if (!(info->spaces & (1u << sp)) && m->op == OP_ST)
        return asm_fail(q->a, x->s - 1, "cannot store to .param (parameters are read-only)");
    if (!(info->spaces & (1u << sp)))
        return asm_fail(q->a, x->s - 1, "'%s' works on .global or .shared, not .param",
                        info->name);
    m->space = (isa_space_t)sp;
    q->k++;
    if (m->op == OP_LD && sp == SPACE_PARAM)
        snprintf(m->disp, sizeof m->disp, "ld.param");
    return 0;
}

/* .v2 / .v4 right after the space: ld and st on .global and .shared. */
static int parse_vec(mparse_t *q)
{
    mnem_t *m = q->m;
    int k = q->k;
    const char *name = isa_ops[m->op].name;
    if (k >= q->nsf)
        return 0;
    const suffix_t *x = &q->sf[k];
    unsigned vn = vec_suffix(x);
    if (!vn && x->n >= 2 && x->s[0] == 'v' && isdigit((unsigned char)x->s[1]))
        return asm_fail(q->a, x->s - 1, "'.%.*s' is not a vector width (vectors are .v2 and .v4)",
                        (int)x->n, x->s);
    if (vn && m->op != OP_LD && m->op != OP_ST)
        return asm_fail(q->a, x->s - 1, "'%s' has no vector form (.v2 and .v4 are for ld and st "
                        "on .global and .shared)", name);
    if (vn && m->space == SPACE_PARAM)
        return asm_fail(q->a, x->s - 1, "'ld.param' has no vector form (.v2 and .v4 are for "
                        ".global and .shared; load each parameter with its own ld.param)");
    if (vn) {
        m->vec = (uint8_t)vn;
        snprintf(m->disp, sizeof m->disp, "%s.v%u", name, vn);
        q->k++;
    }
    return 0;
}

/* What comes between the opcode and the type: an optional word (mul.lo,
 * bra.uni), setp's comparison, wgmma's shape, a state space with .vN and
 * atom's operation. A fixed space from the table (mbarrier, cp, wgmma,
 * ld/st.cluster: shared) needs no suffix of its own here. */
static int parse_modifiers(mparse_t *q)
{
    mnem_t *m = q->m;
    unsigned sp = isa_ops[m->op].spaces;
    for (int i = SPACE_GLOBAL; i < SPACE_COUNT && !isa_space_written(m->op); i++)
        if (sp == 1u << i)
            m->space = (isa_space_t)i;
    if ((m->op == OP_MUL || m->op == OP_MAD) && sf_is(q, q->k, "lo"))
        q->k++;
    if (m->op == OP_BRA && sf_is(q, q->k, "uni"))
        q->k++;
    int v = 0;
    if (m->op == OP_SETP) {
        if (pick_suffix(q, 0, CMP_COUNT, cmp_name,
                        "'setp' needs a comparison (.eq .ne .lt .le .gt .ge)", &v))
            return -1;
        m->cmp = (isa_cmp_t)v;
        return 0;
    }
    if (m->op == OP_WGMMA)
        return parse_wgmma_shape(q);
    if (!isa_space_written(m->op))
        return 0;
    if (parse_space(q) || parse_vec(q))
        return -1;
    if (m->op != OP_ATOM)
        return 0;
    if (pick_suffix(q, AOP_ADD, AOP_COUNT, aop_name,
                    "'atom' needs an operation (.add .min .max .exch .cas)", &v))
        return -1;
    m->aop = (isa_atom_op_t)v;
    snprintf(m->disp, sizeof m->disp, "atom.%s", isa_aop_name(m->aop));
    return 0;
}

/* The allowed type suffixes: the table's, narrowed for vectors and
 * ld.param (one whole register) and by atom's operation. */
static int type_mask(mparse_t *q, uint32_t *mask)
{
    const mnem_t *m = q->m;
    const uint32_t word_types = (1u << T_B32) | (1u << T_U32) | (1u << T_S32) | (1u << T_F32);
    int k = q->k;
    *mask = isa_ops[m->op].types;
    if (m->vec) {
        *mask = word_types;
        isa_type_t t = k < q->nsf ? parse_type(q->sf[k].s, q->sf[k].n) : T_COUNT;
        if (k < q->nsf && t != T_COUNT && !(*mask & (1u << t)))
            return asm_fail(q->a, q->sf[k].s - 1, "'.v%u' needs a 32-bit element type (.b32 .u32 .s32 "
                            ".f32: each element is one whole register), got '.%.*s'",
                            (unsigned)m->vec, (int)q->sf[k].n, q->sf[k].s);
    }
    if (m->op == OP_LD && m->space == SPACE_PARAM)
        *mask = word_types;
    if (m->op == OP_ATOM) {
        if (m->aop == AOP_ADD)
            *mask = (1u << T_U32) | (1u << T_S32) | (1u << T_F32);
        else if (m->aop == AOP_MIN || m->aop == AOP_MAX)
            *mask = (1u << T_U32) | (1u << T_S32);
        else if (m->aop == AOP_CAS)
            *mask = (1u << T_B32) | (1u << T_U32) | (1u << T_S32);
    }
    return 0;
}

/* The type suffix (cvt: two), then nothing more. */
static int parse_types(mparse_t *q)
{
    mnem_t *m = q->m;
    for (int i = q->k; i < q->nsf; i++)
        if (vec_suffix(&q->sf[i]))
            return asm_fail(q->a, q->sf[i].s - 1, "'%s' has no vector form '.%.*s' (.v2 and .v4 are for "
                            "ld and st on .global and .shared, right after the state space: "
                            "ld.global.v4.f32)", m->disp, (int)q->sf[i].n, q->sf[i].s);
    uint32_t mask;
    if (type_mask(q, &mask))
        return -1;
    if (mask != (1u << T_NONE)) {
        if (take_type(q->a, q->sf, q->nsf, &q->k, mask, m->disp, q->e, &m->type))
            return -1;
        if (m->op == OP_CVT && take_type(q->a, q->sf, q->nsf, &q->k, mask, m->disp, q->e, &m->stype))
            return -1;
    }
    if (q->k < q->nsf)
        return asm_fail(q->a, q->sf[q->k].s - 1, "unexpected suffix '.%.*s' on '%s'",
                        (int)q->sf[q->k].n, q->sf[q->k].s, m->disp);
    if (m->op == OP_CVT && (is_numfmt_type(m->type) || is_numfmt_type(m->stype)) &&
        !(is_float_type(m->type) && is_float_type(m->stype)))
        return asm_fail(q->a, q->s, "'cvt.%s.%s': number formats convert only to and from floats "
                        "(go through f32: cvt.f32.%s first)", isa_type_name(m->type),
                        isa_type_name(m->stype), isa_type_name(m->stype));
    return 0;
}

/* Split [s, e) into its base and suffixes. */
static int split_suffixes(mparse_t *q)
{
    const char *b = q->s;
    while (b < q->e && *b != '.')
        b++;
    q->bn = (size_t)(b - q->s);
    for (const char *p = b; p < q->e;) {
        const char *st = p + 1, *en = st;
        while (en < q->e && *en != '.')
            en++;
        if (en == st)
            return asm_fail(q->a, p, "empty suffix after '.'");
        if (q->nsf == MAX_SUFFIXES)
            return asm_fail(q->a, p, "unexpected suffix '.%.*s' on '%.*s'",
                            (int)(en - st), st, (int)q->bn, q->s);
        q->sf[q->nsf].s = st;
        q->sf[q->nsf].n = (size_t)(en - st);
        q->nsf++;
        p = en;
    }
    return 0;
}

/* Parse "base.suffix.suffix" at [s, e) into *m. */
int asm_parse_mnemonic(asm_ctx_t *a, const char *s, const char *e, mnem_t *m)
{
    mparse_t q;
    memset(&q, 0, sizeof q);
    q.a = a;
    q.s = s;
    q.e = e;
    q.m = m;
    if (split_suffixes(&q))
        return -1;
    memset(m, 0, sizeof *m);
    m->type = m->stype = T_NONE;
    if (parse_opcode(&q))
        return -1;
    snprintf(m->disp, sizeof m->disp, "%s", isa_ops[m->op].name);
    if (parse_modifiers(&q))
        return -1;
    return parse_types(&q);
}
