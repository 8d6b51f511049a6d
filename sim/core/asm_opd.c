/* asm_opd.c - the assembler's operand checks: each operand as written
 * (raw_opd_t) against the role the instruction expects there, into
 * isa_operand_t. */
#include "asm_int.h"

#include <stdio.h>


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
                return asm_fail(a, r->at, "hex immediate '%.*s' in an f32 instruction "
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
            return asm_fail(a, r->at, "float immediate '%.*s' needs an f32 instruction",
                        (int)r->len, r->at);
        o->kind = OPD_IMM;
        o->imm = r->bits;
        return 0;
    case RAW_NAME: {
        const isa_symbol_t *sym = asm_find_shared(&a->p, r->name);
        if (sym) {
            if (ctx == T_F32)
                return asm_fail(a, r->at, "shared array '%s' is an address; "
                            "use it in an integer instruction", r->name);
            o->kind = OPD_IMM;
            o->imm = sym->value;
            return 0;
        }
        if (asm_find_param(&a->p, r->name) >= 0)
            return asm_fail(a, r->at, "'%s' is a parameter: load it first with "
                        "ld.param.u32 %%rN, [%s]", r->name, r->name);
        return asm_fail(a, r->at, "unknown name '%s' (expected a register, an immediate "
                    "or a shared array)", r->name);
    }
    case RAW_PRED:
        return asm_fail(a, r->at, "operand %d of '%s' must be a %%r register or an "
                    "immediate, got '%.*s'", pos + 1, m->disp, (int)r->len, r->at);
    case RAW_MEM:
        return asm_fail(a, r->at, "operand %d of '%s' cannot be a memory operand '%.*s'",
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
        return asm_fail(a, r->at, "operand %d of '%s' must be a memory address like "
                    "[%%r1+4], got '%.*s'", pos + 1, m->disp, (int)r->len, r->at);
    const isa_program_t *p = &a->p;
    o->kind = OPD_MEM;
    o->index = ISA_NO_REG;
    if (m->space == SPACE_PARAM) {
        if (r->mem_base != MB_NAME || r->mem_off != 0)
            return asm_fail(a, r->at, "'ld.param' needs a parameter name like [n], got '%.*s'",
                        (int)r->len, r->at);
        int i = asm_find_param(p, r->name);
        if (i < 0) {
            char list[512];
            size_t len = 0;
            list[0] = '\0';
            for (uint32_t k = 0; k < p->nparams && len < sizeof list - ISA_NAME_MAX - 3; k++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        k ? ", " : "", p->params[k]);
            if (p->nparams == 0)
                return asm_fail(a, r->name_at, "unknown parameter '%s' (no .param declared)",
                            r->name);
            return asm_fail(a, r->name_at, "unknown parameter '%s' (declared: %s)", r->name, list);
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
        const isa_symbol_t *sym = asm_find_shared(p, r->name);
        if (sym && m->space == SPACE_SHARED) {
            o->imm = sym->value + (uint32_t)r->mem_off;
            break;
        }
        if (sym)
            return asm_fail(a, r->name_at, "shared array '%s' used in a .%s address",
                        r->name, isa_space_name(m->space));
        if (asm_find_param(p, r->name) >= 0)
            return asm_fail(a, r->name_at, "'%s' is a parameter: load it with ld.param.u32",
                        r->name);
        if (m->space == SPACE_SHARED)
            return asm_fail(a, r->name_at, "unknown shared array '%s'", r->name);
        return asm_fail(a, r->name_at, "unknown name '%s' in a .%s address", r->name,
                    isa_space_name(m->space));
    }
    }
    return 0;
}

/* A register written: %r, or %p for a predicate role. */
static int check_dst(asm_ctx_t *a, const mnem_t *m, isa_role_t role, const raw_opd_t *r,
                     int pos, isa_operand_t *o)
{
    int pred = role == ROLE_PDST || role == ROLE_PSRC;
    if (r->kind == (pred ? RAW_PRED : RAW_REG)) {
        o->kind = pred ? OPD_PRED : OPD_REG;
        o->index = (uint8_t)r->index;
        return 0;
    }
    if (role == ROLE_PSRC)
        return asm_fail(a, r->at, "operand %d of '%s' must be a predicate %%p0..%%p%d, "
                        "got '%.*s'", pos + 1, m->disp, ISA_NUM_PREDS - 1, (int)r->len, r->at);
    if (pred)
        return asm_fail(a, r->at, "destination of '%s' must be a predicate %%p0..%%p%d, "
                        "got '%.*s'", m->disp, ISA_NUM_PREDS - 1, (int)r->len, r->at);
    if (r->kind == RAW_SPECIAL)
        return asm_fail(a, r->at, "cannot write to special register '%.*s'",
                        (int)r->len, r->at);
    return asm_fail(a, r->at, "destination of '%s' must be a %%r register, got '%.*s'",
                    m->disp, (int)r->len, r->at);
}

/* The first register of a wmma fragment or of wgmma's accumulator. */
static int check_frag(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *r, int pos,
                      isa_instr_t *in)
{
    isa_operand_t *o = &in->opd[pos];
    if (r->kind != RAW_REG)
        return asm_fail(a, r->at, "operand %d of '%s' must be a %%r register (the first of "
                        "a fragment's registers), got '%.*s'", pos + 1, m->disp,
                        (int)r->len, r->at);
    o->kind = OPD_REG;
    o->index = (uint8_t)r->index;
    unsigned n = isa_opd_regs(in, pos);
    if ((unsigned)r->index + n > ISA_NUM_REGS)
        return asm_fail(a, r->at, "%s %%r%d..%%r%u of '%s' needs %u registers and "
                        "goes past %%r%d", m->op == OP_WGMMA ? "accumulator" : "fragment",
                        r->index, (unsigned)r->index + n - 1, m->disp, n, ISA_NUM_REGS - 1);
    return 0;
}

/* The {registers} of ld/st .v2/.v4, or a vector where none belongs. */
static int check_vec(asm_ctx_t *a, const mnem_t *m, isa_role_t role, const raw_opd_t *r,
                     int pos, isa_operand_t *o)
{
    if (role != ROLE_VEC && (m->op == OP_LD || m->op == OP_ST))
        return asm_fail(a, r->at, "a register vector '%.*s' needs a vector %s: write "
                        "%s.%s.v%d.%s", (int)r->len, r->at, m->op == OP_LD ? "load" : "store",
                        isa_ops[m->op].name, isa_space_name(m->space), r->nvec == 4 ? 4 : 2,
                        isa_type_name(m->type));
    if (role != ROLE_VEC)
        return asm_fail(a, r->at, "operand %d of '%s' cannot be a register vector '%.*s' (only "
                        "ld/st .v2 and .v4 take one)", pos + 1, m->disp, (int)r->len, r->at);
    if (r->kind != RAW_VEC)
        return asm_fail(a, r->at, "operand %d of '%s' must be %u consecutive registers in "
                        "braces, like %s, got '%.*s'", pos + 1, m->disp, (unsigned)m->vec,
                        m->vec == 4 ? "{%r4, %r5, %r6, %r7}" : "{%r4, %r5}", (int)r->len, r->at);
    if (r->nvec != m->vec)
        return asm_fail(a, r->at, "'.v%u' needs %u registers in '{ }', got %d", (unsigned)m->vec,
                        (unsigned)m->vec, r->nvec);
    o->kind = OPD_REG;
    o->index = (uint8_t)r->index;
    return 0;
}

/* A branch target: the label is resolved after the last line. */
static int check_label(asm_ctx_t *a, const raw_opd_t *r, isa_operand_t *o)
{
    if (r->kind != RAW_NAME)
        return asm_fail(a, r->at, "'bra' needs a label name, got '%.*s'",
                        (int)r->len, r->at);
    if (asm_grow(a, (void **)&a->fix, &a->fix_cap, a->nfix + 1, sizeof *a->fix))
        return -1;
    asm_fixup_t *f = &a->fix[a->nfix++];
    f->pc = a->p.ncode;
    f->line = a->lineno;
    f->col = (uint32_t)(r->at - a->cur) + 1;
    strcpy(f->name, r->name);
    o->kind = OPD_LABEL;
    return 0;
}

/* Check raw operand `pos` against its role and fill in->opd[pos]. */
int asm_check_operand(asm_ctx_t *a, const mnem_t *m, isa_role_t role,
                      const raw_opd_t *r, int pos, isa_instr_t *in)
{
    isa_operand_t *o = &in->opd[pos];
    memset(o, 0, sizeof *o);
    if (r->kind == RAW_VEC || role == ROLE_VEC)
        return check_vec(a, m, role, r, pos, o);
    switch (role) {
    case ROLE_DST:
    case ROLE_PDST:
    case ROLE_PSRC:
        return check_dst(a, m, role, r, pos, o);
    case ROLE_SRC:
        return check_src(a, m, r, pos, m->op == OP_CVT ? m->stype : m->type, o);
    case ROLE_USRC:   /* stride, count, rank...: integers */
        return check_src(a, m, r, pos, T_U32, o);
    case ROLE_FRAG_DST:
    case ROLE_FRAG:
        return check_frag(a, m, r, pos, in);
    case ROLE_MEM:
    case ROLE_MBAR:
        return check_mem(a, m, r, pos, o);
    case ROLE_GMEM: {   /* a bulk copy's global side */
        mnem_t g = *m;
        g.space = SPACE_GLOBAL;
        return check_mem(a, &g, r, pos, o);
    }
    case ROLE_LABEL:
        return check_label(a, r, o);
    default:
        return -1;
    }
}

/* An address known at assembly time (no base register) aligned as the
 * table says: an mbarrier to 8 bytes, bulk copies and wgmma to 16
 * (isa_opinfo_t.mem_align), a vector to its whole size. */
static int check_align(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *raw,
                       const isa_instr_t *in, const isa_role_t *roles)
{
    for (int i = 0; i < in->nopd; i++) {
        const isa_operand_t *o = &in->opd[i];
        if (o->kind != OPD_MEM || o->index != ISA_NO_REG)
            continue;
        int is_bar = roles[i] == ROLE_MBAR;
        unsigned align = is_bar ? 8u : isa_ops[m->op].mem_align;
        if (align && o->imm % align != 0)
            return asm_fail(a, raw[i].at, "operand %d of '%s' must be %u-byte aligned (%s), got "
                            "offset %lu", i + 1, m->disp, align,
                            is_bar ? "an mbarrier is 8 bytes" : "bulk copies and wgmma move 16-byte pieces",
                            (unsigned long)o->imm);
        align = 4u * m->vec;
        if (m->vec && o->imm % align != 0)
            return asm_fail(a, raw[i].at, "a .v%u address must be %u-byte aligned (the whole vector "
                            "is one %u-byte access), got offset %lu", (unsigned)m->vec, align, align,
                            (unsigned long)o->imm);
    }
    return 0;
}

/* Operand rules the roles do not say: addresses aligned (check_align),
 * and the value of the first ROLE_USRC operand (a count, parity, rank,
 * pitch or N) in its range when it is an immediate. */
int asm_check_values(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *raw,
                     const isa_instr_t *in, const isa_role_t *roles)
{
    if (check_align(a, m, raw, in, roles))
        return -1;
    int u = 0;
    while (u < in->nopd && roles[u] != ROLE_USRC)
        u++;
    if (u == in->nopd)
        return 0;
    const isa_operand_t *v = &in->opd[u];
    const raw_opd_t *rv = &raw[u];
    switch (m->op) {
    case OP_WGMMA_WAIT:
        if (v->kind != OPD_IMM || v->imm > 7)
            return asm_fail(a, rv->at, "'wgmma.wait' needs an immediate 0..7 (wgmma.mma_async still "
                        "allowed to run), got '%.*s'", (int)rv->len, rv->at);
        break;
    case OP_MBAR_WAIT:
        if (v->kind == OPD_IMM && v->imm > 1)
            return asm_fail(a, rv->at, "mbarrier parity must be 0 or 1, got '%.*s'", (int)rv->len, rv->at);
        break;
    case OP_MBAR_ARRIVE_REMOTE:
    case OP_LD_CLUSTER:
    case OP_ST_CLUSTER:   /* ld/st.cluster: a written integer only, not a shared symbol */
        if (m->op == OP_MBAR_ARRIVE_REMOTE ? v->kind == OPD_IMM && v->imm >= ISA_MAX_CLUSTER
                                           : rv->kind == RAW_INT && (rv->ival < 0 || rv->ival >= ISA_MAX_CLUSTER))
            return asm_fail(a, rv->at, "CTA rank must be 0..%d (a cluster has at most %d CTAs), got '%.*s'",
                        ISA_MAX_CLUSTER - 1, ISA_MAX_CLUSTER, (int)rv->len, rv->at);
        break;
    case OP_CP_BULK:
    case OP_CP_BULK_ST:
    case OP_WGMMA:
        if (v->kind == OPD_IMM && v->imm % 16 != 0)
            return asm_fail(a, rv->at, "%s must be a multiple of 16 bytes, got '%.*s'",
                        m->op != OP_WGMMA ? "the global row pitch" : "B's row stride",
                        (int)rv->len, rv->at);
        break;
    default:
        break;
    }
    return 0;
}
