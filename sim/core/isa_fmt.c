/* isa_fmt.c - printing instructions as assembler text (asm_format_instr)
 * and whole listings that assemble back to the same program
 * (asm_disassemble). exec.c and check.c print the faulting instruction
 * with it without depending on the assembler. */
#include "isa_fmt.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_label(const isa_program_t *p, const char *name)
{
    for (uint32_t i = 0; i < p->nlabels; i++)
        if (strcmp(p->labels[i].name, name) == 0)
            return (int)i;
    return -1;
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

/* The mnemonic with its suffixes: "ld.global.v4.f32", "setp.lt.s32". */
static void format_mnemonic(sbuf_t *b, const isa_instr_t *in)
{
    isa_op_t op = (isa_op_t)in->op;
    sb_printf(b, "%s", op < OP_COUNT ? isa_ops[op].name : "?");
    if (op == OP_SETP)
        sb_printf(b, ".%s", isa_cmp_name((isa_cmp_t)in->cmp));
    if (op < OP_COUNT && isa_space_written(op))
        sb_printf(b, ".%s", isa_space_name((isa_space_t)in->space));
    if ((op == OP_LD || op == OP_ST) && in->vec)
        sb_printf(b, ".v%u", (unsigned)in->vec);
    if (op == OP_ATOM)
        sb_printf(b, ".%s", isa_aop_name((isa_atom_op_t)in->aop));
    if (op == OP_MBAR_INIT || op == OP_MBAR_ARRIVE || op == OP_MBAR_WAIT || op == OP_MBAR_ARRIVE_REMOTE ||
        op == OP_LD_CLUSTER || op == OP_ST_CLUSTER)
        sb_printf(b, ".shared");   /* written, though the only space they have */
    if (op == OP_CP_BULK)
        sb_printf(b, ".shared.global%s.%ux%u", in->ctamask ? ".multicast" : "",
                  (unsigned)in->shape[0], 16u * in->shape[1]);
    if (op == OP_CP_BULK_ST)
        sb_printf(b, ".%ux%u", (unsigned)in->shape[0], 16u * in->shape[1]);
    if (op == OP_WGMMA)
        sb_printf(b, ".n%u", (unsigned)in->shape[0]);
    if (in->type != T_NONE)
        sb_printf(b, ".%s", isa_type_name((isa_type_t)in->type));
    if (op == OP_CVT)
        sb_printf(b, ".%s", isa_type_name((isa_type_t)in->stype));
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
    format_mnemonic(&b, in);

    isa_type_t ctx = (isa_type_t)(op == OP_CVT ? in->stype : in->type);
    isa_role_t roles[ISA_MAX_OPDS] = { ROLE_NONE, ROLE_NONE, ROLE_NONE, ROLE_NONE };
    if (op < OP_COUNT)
        isa_instr_roles(in, roles);
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
            format_imm(&b, o->imm, roles[i] == ROLE_USRC ? T_U32 : ctx);   /* a stride, count... */
            break;
        case OPD_SPECIAL:
            sb_printf(&b, "%s", isa_special_name((isa_special_t)o->index));
            break;
        case OPD_MEM:
            if (roles[i] == ROLE_GMEM) {   /* a bulk copy's global side */
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
