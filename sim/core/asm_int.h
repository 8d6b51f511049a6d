/* asm_int.h - what the parts of the assembler share (not a public API:
 * asm.h is). The parts, in the order a line goes through them:
 *   asm.c        the driver: lines, labels, directives, one instruction,
 *                errors (file:line:col with a caret), falling off the end
 *   asm_lex.c    operands as written (raw_opd_t): registers, numbers,
 *                [addresses], {vectors}
 *   asm_mnem.c   the mnemonic and its suffixes (mnem_t), walking a table
 *                of instruction families
 *   asm_opd.c    each raw operand checked against its role from the
 *                opcode table (isa.h isa_opinfo_t.opd) into isa_operand_t
 *   reconv.c     branch reconvergence points (not assembler-specific)
 *   isa_fmt.c    printing instructions and whole listings
 */
#ifndef SIMT_ASM_INT_H
#define SIMT_ASM_INT_H

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "asm.h"

#define MAX_RAW_OPDS 8          /* operands read per line before counting only */
#define MAX_SUFFIXES 6          /* ".a.b.c" parts after the mnemonic           */

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

/* ------------------------------------------------------------------ */
/* Small lexical helpers                                               */

static inline int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == '$';
}

static inline int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

static inline const char *skip_ws(const char *s)
{
    while (is_space(*s))
        s++;
    return s;
}

/* Length of the "word" at s, for quoting a bad token in a message. */
static inline size_t word_len(const char *s)
{
    size_t n = 0;
    while (s[n] && !is_space(s[n]) && s[n] != ',')
        n++;
    return n;
}


static inline int word_eq(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* asm.c: errors (each returns -1; only the first error is kept) and the
 * program's arrays and names */
int asm_fail_at(asm_ctx_t *a, uint32_t lineno, uint32_t col, const char *fmt, ...);
int asm_fail(asm_ctx_t *a, const char *at, const char *fmt, ...);  /* at: in the current line */
int asm_fail_file(asm_ctx_t *a, int code, const char *fmt, ...);
int asm_fail_nomem(asm_ctx_t *a);
int asm_copy_name(asm_ctx_t *a, const char *s, const char *e, char *out);
int asm_grow(asm_ctx_t *a, void **arr, uint32_t *cap, uint32_t need, size_t elem);
int asm_find_param(const isa_program_t *p, const char *name);
const isa_symbol_t *asm_find_shared(const isa_program_t *p, const char *name);

/* asm_lex.c: read one operand at s (past white space) / a %name */
int asm_lex_operand(asm_ctx_t *a, const char *s, raw_opd_t *r, const char **end);
int asm_lex_percent(asm_ctx_t *a, const char *s, raw_opd_t *r);

/* asm_mnem.c: parse "base.suffix.suffix" at [s, e) into *m */
int asm_parse_mnemonic(asm_ctx_t *a, const char *s, const char *e, mnem_t *m);

/* asm_opd.c: each operand checked against its role (isa_instr_roles), then
 * what the roles do not say (alignment, immediates in range) */
int asm_check_operand(asm_ctx_t *a, const mnem_t *m, isa_role_t role,
                      const raw_opd_t *r, int pos, isa_instr_t *in);
int asm_check_values(asm_ctx_t *a, const mnem_t *m, const raw_opd_t *raw,
                     const isa_instr_t *in, const isa_role_t *roles);

#endif
