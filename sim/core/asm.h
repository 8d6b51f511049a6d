/* asm.h - text assembler and disassembler for the simtlab ISA (isa.h).
 *
 * Errors carry file:line:col, the offending token and what was expected:
 *   matmul.s:12:17: error: unknown register '%r255' (registers are %r0..%r254)
 * Branch reconvergence points (immediate post-dominators) are computed here,
 * once, so the executor only follows isa_instr_t.reconv.
 */
#ifndef SIMT_ASM_H
#define SIMT_ASM_H

#include <stddef.h>

#include "err.h"
#include "isa.h"

/* Assemble len bytes of source text. `file` names the source in messages
 * and in out->file; the kernel name defaults to the file's stem. On
 * success fills *out (caller frees with isa_program_free) and returns 0;
 * on failure returns -1, fills err (code SIMT_E_ASM) and leaves *out empty. */
int asm_assemble(const char *src, size_t len, const char *file,
                 isa_program_t *out, simt_err_t *err);

/* Read and assemble a file. A file that cannot be read is SIMT_E_USAGE. */
int asm_assemble_file(const char *path, isa_program_t *out, simt_err_t *err);

/* Format one instruction as source text (no label, no newline) into buf.
 * Returns the length that the full text needs, like snprintf. */
int asm_format_instr(const isa_program_t *p, const isa_instr_t *in,
                     char *buf, size_t n);

/* A complete listing that asm_assemble turns back into an identical
 * program (same code, params, shared arrays; labels keep their names).
 * Returns a malloc'd string the caller frees, or NULL if out of memory. */
char *asm_disassemble(const isa_program_t *p);

#endif
