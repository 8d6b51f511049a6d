/* lfields.h - the one field-table engine of the Lua binding: a Lua table
 * of named fields -> a C struct, with types, ranges and "unknown key"
 * errors, and back (a struct -> a table of its fields).
 *
 * A description is a list of lfield_t (name, kind, offset, size) that
 * walks a C struct: simt.gpu{...} (arch.c, gpu_desc_t, "GPU field ...")
 * and simt.cpu{...} (lcpu.c, cpu_desc_t, "CPU field ...") both read and
 * write their tables with it, so the two devices accept the same kinds of
 * values and fail with the same messages:
 *
 *   unknown GPU field 'smz' (did you mean 'sms'?)
 *   CPU field 'cores' expects an integer, got string
 *   GPU field 'sms' must be between 0 and 4294967295, got -1
 *
 * The launch options (llaunch.c) use its key check (lfields_unknown_key,
 * lfields_closest) for their own "unknown configuration key" error.
 *
 * Nothing here raises a Lua error: functions return -1 with err filled
 * and leave the stack as they found it.
 */
#ifndef SIMT_LFIELDS_H
#define SIMT_LFIELDS_H

#include <stddef.h>

#include <lua.h>

#include "err.h"

/* How a field is stored and which Lua values it accepts. */
typedef enum lfield_kind {
    LF_STR,    /* char[size]: a string shorter than size                   */
    LF_U32,    /* uint32_t: an integer 0..2^32-1 (integral floats too)     */
    LF_U64,    /* uint64_t: an integer >= 0                                */
    LF_DBL,    /* double: any number                                       */
    LF_FLAG,   /* uint32_t: true/false (1/0) or an integer as LF_U32       */
    LF_ENUM,   /* an enum (int-sized): one of the words `words`, by value  */
    LF_U32X3   /* uint32_t[3]: a table of 3 integers                       */
} lfield_kind_t;

typedef struct lfield {
    const char *name;          /* Lua key = C field name                */
    lfield_kind_t kind;        /* storage and accepted values           */
    size_t offset;             /* offsetof(struct, field)               */
    size_t size;               /* sizeof the field (strings: buffer)    */
    const char *const *words;  /* LF_ENUM: the names of values 0, 1, ...
                                  (NULL-terminated); else NULL          */
} lfield_t;

/* A table of fields: what it describes and its extra keys. */
typedef struct lfields {
    const char *what;          /* "GPU", "CPU": starts every message    */
    const lfield_t *fields;
    size_t n;
    const char *const *skip;   /* keys read by the caller ("arch", "kind");
                                  NULL-terminated, may be NULL          */
    const char *const *alias;  /* pairs short, field ("simd", "simd_width");
                                  NULL-terminated, may be NULL          */
    const char *see;           /* where the names are listed, for an unknown
                                  key with no close name: "simt.gpu{}.desc" */
} lfields_t;

/* Apply the table at stack index idx to the struct at obj: every key must
 * be a field, an alias or a skipped key (else "unknown GPU field 'x' (did
 * you mean 'y'?)", the alphabetically first unknown key, so the message is
 * the same on every run); then fields are set in declaration order (an
 * alias after its field). On failure obj may be partly updated. */
int lfields_apply(lua_State *L, int idx, const lfields_t *t, void *obj, simt_err_t *err);

/* Push a table of every field of the struct at obj. */
void lfields_push(lua_State *L, const lfields_t *t, const void *obj);

/* The first (alphabetically) string key of the table at idx that is none
 * of names[0..n) and none of extra (NULL-terminated, may be NULL), copied
 * to out; else the type name of a non-string key. Returns 0 when every
 * key is known, 1 for an unknown string key, 2 for a non-string key. */
int lfields_unknown_key(lua_State *L, int idx, const char *const *names, size_t n,
                        const char *const *extra, char *out, size_t outn);

/* The candidate closest to word (edit distance under 3 and under its
 * length), or NULL: the "did you mean" of every unknown-name message. */
const char *lfields_closest(const char *word, const char *const *cands, size_t n);

#endif
