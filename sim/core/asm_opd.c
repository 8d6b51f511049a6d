/* asm_opd.c - the assembler's operand checks: each operand as written
 * (raw_opd_t) against the role the instruction expects there, into
 * isa_operand_t. */
#include "asm_int.h"

#include <stdio.h>


/* The operand roles an instruction expects, and how to show them. */
int asm_roles_for(const mnem_t *m, opd_role_t *r, const char **sig)
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

/* The asynchronous instructions (mbarrier, cp.async.bulk, wgmma). */
static int is_async(isa_op_t op)
{
    return (op >= OP_MBAR_INIT && op <= OP_WGMMA_WAIT) || op == OP_MBAR_ARRIVE_REMOTE ||
           op == OP_BAR_CLUSTER || op == OP_CP_BULK_ST;
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
int asm_check_operand(asm_ctx_t *a, const mnem_t *m, opd_role_t role,
                         const raw_opd_t *r, int pos, isa_instr_t *in)
{
    isa_operand_t *o = &in->opd[pos];
    memset(o, 0, sizeof *o);
    if (r->kind == RAW_VEC && role != ROLE_VEC) {
        if (m->op == OP_LD || m->op == OP_ST)
            return asm_fail(a, r->at, "a register vector '%.*s' needs a vector %s: write "
                        "%s.%s.v%d.%s", (int)r->len, r->at, m->op == OP_LD ? "load" : "store",
                        isa_ops[m->op].name, isa_space_name(m->space), r->nvec == 4 ? 4 : 2,
                        isa_type_name(m->type));
        return asm_fail(a, r->at, "operand %d of '%s' cannot be a register vector '%.*s' (only "
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
            return asm_fail(a, r->at, "cannot write to special register '%.*s'",
                        (int)r->len, r->at);
        return asm_fail(a, r->at, "destination of '%s' must be a %%r register, got '%.*s'",
                    m->disp, (int)r->len, r->at);
    case ROLE_PDST:
        if (r->kind == RAW_PRED) {
            o->kind = OPD_PRED;
            o->index = (uint8_t)r->index;
            return 0;
        }
        return asm_fail(a, r->at, "destination of '%s' must be a predicate %%p0..%%p%d, "
                    "got '%.*s'", m->disp, ISA_NUM_PREDS - 1, (int)r->len, r->at);
    case ROLE_PSRC:
        if (r->kind == RAW_PRED) {
            o->kind = OPD_PRED;
            o->index = (uint8_t)r->index;
            return 0;
        }
        return asm_fail(a, r->at, "operand %d of '%s' must be a predicate %%p0..%%p%d, "
                    "got '%.*s'", pos + 1, m->disp, ISA_NUM_PREDS - 1, (int)r->len, r->at);
    case ROLE_SRC:
        if (is_wmma(m->op) || is_async(m->op) ||   /* stride, count...: integers */
            ((m->op == OP_LD_CLUSTER || m->op == OP_ST_CLUSTER) && pos == 2)) {   /* the rank */
            if ((m->op == OP_LD_CLUSTER || m->op == OP_ST_CLUSTER) && r->kind == RAW_INT &&
                (r->ival < 0 || r->ival >= ISA_MAX_CLUSTER))
                return asm_fail(a, r->at, "CTA rank must be 0..%d (a cluster has at most %d CTAs), got '%.*s'",
                            ISA_MAX_CLUSTER - 1, ISA_MAX_CLUSTER, (int)r->len, r->at);
            return check_src(a, m, r, pos, T_U32, o);
        }
        return check_src(a, m, r, pos, m->op == OP_CVT ? m->stype : m->type, o);
    case ROLE_RANGE: {
        if (r->kind != RAW_REG)
            return asm_fail(a, r->at, "operand %d of '%s' must be a %%r register (the first of "
                        "a fragment's registers), got '%.*s'", pos + 1, m->disp,
                        (int)r->len, r->at);
        unsigned n = m->op == OP_WGMMA ? m->shape[0] / 2u : range_regs(m->op, m->type, pos);
        if ((unsigned)r->index + n > ISA_NUM_REGS)
            return asm_fail(a, r->at, "%s %%r%d..%%r%u of '%s' needs %u registers and "
                        "goes past %%r%d", m->op == OP_WGMMA ? "accumulator" : "fragment",
                        r->index, (unsigned)r->index + n - 1, m->disp, n, ISA_NUM_REGS - 1);
        o->kind = OPD_REG;
        o->index = (uint8_t)r->index;
        return 0;
    }
    case ROLE_VEC:
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
    case ROLE_MEM:
        if ((m->op == OP_CP_BULK && pos == 1) || (m->op == OP_CP_BULK_ST && pos == 0)) {   /* global */
            mnem_t g = *m;
            g.space = SPACE_GLOBAL;
            return check_mem(a, &g, r, pos, o);
        }
        return check_mem(a, m, r, pos, o);
    case ROLE_LABEL:
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
    return -1;
}

/* ------------------------------------------------------------------ */
/* Instructions and lines                                              */

/* Operand rules of the asynchronous instructions that the roles do not
 * say: immediates in range, and addresses known at assembly time
 * (no base register) aligned as the instruction needs. */
int asm_check_async(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *raw, const isa_instr_t *in)
{
    if (!is_async(m->op))
        return 0;
    for (int i = 0; i < in->nopd; i++) {
        const isa_operand_t *o = &in->opd[i];
        if (o->kind == OPD_MEM && o->index == ISA_NO_REG) {
            int is_bar = (m->op != OP_CP_BULK && m->op != OP_WGMMA && m->op != OP_CP_BULK_ST) ||
                         (m->op == OP_CP_BULK && i == 3);
            unsigned align = is_bar ? 8u : 16u;
            if (o->imm % align != 0)
                return asm_fail(a, raw[i].at, "operand %d of '%s' must be %u-byte aligned (%s), got "
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
            return asm_fail(a, rv->at, "'wgmma.wait' needs an immediate 0..7 (wgmma.mma_async still "
                        "allowed to run), got '%.*s'", (int)rv->len, rv->at);
        break;
    case OP_MBAR_WAIT:
        if (v->kind == OPD_IMM && v->imm > 1)
            return asm_fail(a, rv->at, "mbarrier parity must be 0 or 1, got '%.*s'", (int)rv->len, rv->at);
        break;
    case OP_MBAR_ARRIVE_REMOTE:
        if (v->kind == OPD_IMM && v->imm >= ISA_MAX_CLUSTER)
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
