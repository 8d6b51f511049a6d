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

/* Parse "base.suffix.suffix" at [s, e) into *m. */
int asm_parse_mnemonic(asm_ctx_t *a, const char *s, const char *e, mnem_t *m)
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
            return asm_fail(a, q, "empty suffix after '.'");
        if (nsf == MAX_SUFFIXES)
            return asm_fail(a, q, "unexpected suffix '.%.*s' on '%.*s'",
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
            return asm_fail(a, nsf ? sf[0].s - 1 : e, "'bar' needs '.sync' (write bar.sync)");
        m->op = OP_BAR;
        k = 1;
        found = 1;
    } else if (word_eq(s, bn, "barrier")) {
        if (nsf == 0 || !word_eq(sf[0].s, sf[0].n, "cluster"))
            return asm_fail(a, nsf ? sf[0].s - 1 : e, "'barrier' needs '.cluster' (write barrier.cluster; "
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
            return asm_fail(a, at, "'wmma' needs .load.a, .load.b, .load.c, .mma or .store.d");
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
            return asm_fail(a, at, "'mbarrier' needs .init, .arrive.expect_tx, .arrive.cluster or .wait.parity");
        }
        if (k >= nsf || !word_eq(sf[k].s, sf[k].n, "shared"))
            return asm_fail(a, k < nsf ? sf[k].s - 1 : e, "'%s' needs .shared (an mbarrier lives "
                        "in shared memory)", isa_ops[m->op].name);
        k++;
        m->space = SPACE_SHARED;
        found = 1;
    } else if (word_eq(s, bn, "cp")) {
        int load = nsf >= 4 && word_eq(sf[2].s, sf[2].n, "shared") && word_eq(sf[3].s, sf[3].n, "global");
        int store = nsf >= 4 && word_eq(sf[2].s, sf[2].n, "global") && word_eq(sf[3].s, sf[3].n, "shared");
        if (!((load || store) && word_eq(sf[0].s, sf[0].n, "async") && word_eq(sf[1].s, sf[1].n, "bulk")))
            return asm_fail(a, nsf ? sf[0].s - 1 : e, "'cp' needs .async.bulk.shared.global.RxB "
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
            return asm_fail(a, k < nsf ? sf[k].s - 1 : e, "'cp.async.bulk' needs a box shape .RxB "
                        "after .%s%s (R rows of B bytes, e.g. .64x128)", load ? "global" : "shared",
                        m->multicast ? ".multicast" : "");
        if (rows < 1 || rows > 255 || bytes < 16 || bytes > 4080 || bytes % 16 != 0)
            return asm_fail(a, sf[k].s - 1, "box .%ux%u: rows must be 1..255 and bytes per row a "
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
                return asm_fail(a, k < nsf ? sf[k].s - 1 : e, "'wgmma.mma_async' needs a shape .nN "
                            "(N = 8..128, a multiple of 8), e.g. wgmma.mma_async.n64.f16");
            if (n < 8 || n > 128 || n % 8 != 0)
                return asm_fail(a, sf[k].s - 1, "shape .n%u: N must be 8..128 and a multiple of 8", n);
            m->shape[0] = (uint8_t)n;
            k++;
            m->space = SPACE_SHARED;
        } else if (nsf >= 1 && word_eq(sf[0].s, sf[0].n, "wait")) {
            m->op = OP_WGMMA_WAIT;
            k = 1;
        } else {
            return asm_fail(a, nsf ? sf[0].s - 1 : e, "'wgmma' needs .mma_async or .wait");
        }
        found = 1;
    } else if ((word_eq(s, bn, "ld") || word_eq(s, bn, "st")) && nsf > 0 &&
               word_eq(sf[0].s, sf[0].n, "cluster")) {
        m->op = s[0] == 'l' ? OP_LD_CLUSTER : OP_ST_CLUSTER;
        if (nsf < 2 || !word_eq(sf[1].s, sf[1].n, "shared"))
            return asm_fail(a, nsf > 1 ? sf[1].s - 1 : e, "'%s' needs .shared (it reaches the shared "
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
            return asm_fail(a, e, "'setp' needs a comparison (.eq .ne .lt .le .gt .ge)");
        if (c == CMP_COUNT)
            return asm_fail(a, sf[k].s - 1,
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
            return asm_fail(a, e, "'%s' needs a state space (.global, .shared or .param)",
                        info->name);
        if (sp == SPACE_COUNT && vec_suffix(&sf[k]))
            return asm_fail(a, sf[k].s - 1, "'.%.*s' goes after the state space (write %s.global.%.*s.f32)",
                        (int)sf[k].n, sf[k].s, info->name, (int)sf[k].n, sf[k].s);
        if (sp == SPACE_COUNT)
            return asm_fail(a, sf[k].s - 1,
                        "'%s' needs a state space (.global, .shared or .param), got '.%.*s'",
                        info->name, (int)sf[k].n, sf[k].s);
        if (sp == SPACE_PARAM && m->op == OP_ST)
            return asm_fail(a, sf[k].s - 1, "cannot store to .param (parameters are read-only)");
        if (sp == SPACE_PARAM && m->op == OP_ATOM)
            return asm_fail(a, sf[k].s - 1, "'atom' works on .global or .shared, not .param");
        if (sp == SPACE_PARAM && m->op != OP_LD && m->op != OP_ST)
            return asm_fail(a, sf[k].s - 1, "'%s' works on .global or .shared, not .param",
                        info->name);
        m->space = (isa_space_t)sp;
        k++;
        if (m->op == OP_LD && sp == SPACE_PARAM)
            snprintf(m->disp, sizeof m->disp, "ld.param");
        unsigned vn = k < nsf ? vec_suffix(&sf[k]) : 0;
        if (!vn && k < nsf && sf[k].n >= 2 && sf[k].s[0] == 'v' && isdigit((unsigned char)sf[k].s[1]))
            return asm_fail(a, sf[k].s - 1, "'.%.*s' is not a vector width (vectors are .v2 and .v4)",
                        (int)sf[k].n, sf[k].s);
        if (vn && m->op != OP_LD && m->op != OP_ST)
            return asm_fail(a, sf[k].s - 1, "'%s' has no vector form (.v2 and .v4 are for ld and st "
                        "on .global and .shared)", info->name);
        if (vn && sp == SPACE_PARAM)
            return asm_fail(a, sf[k].s - 1, "'ld.param' has no vector form (.v2 and .v4 are for "
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
                return asm_fail(a, e, "'atom' needs an operation (.add .min .max .exch .cas)");
            if (ao == AOP_COUNT)
                return asm_fail(a, sf[k].s - 1,
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
            return asm_fail(a, sf[i].s - 1, "'%s' has no vector form '.%.*s' (.v2 and .v4 are for "
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
            return asm_fail(a, sf[k].s - 1, "'.v%u' needs a 32-bit element type (.b32 .u32 .s32 "
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
        return asm_fail(a, sf[k].s - 1, "unexpected suffix '.%.*s' on '%s'",
                    (int)sf[k].n, sf[k].s, m->disp);
    if (m->op == OP_CVT && (is_numfmt_type(m->type) || is_numfmt_type(m->stype)) &&
        !(is_float_type(m->type) && is_float_type(m->stype)))
        return asm_fail(a, s, "'cvt.%s.%s': number formats convert only to and from floats "
                    "(go through f32: cvt.f32.%s first)", isa_type_name(m->type),
                    isa_type_name(m->stype), isa_type_name(m->stype));
    return 0;
}
