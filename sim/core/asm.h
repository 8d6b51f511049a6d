/* asm.h - text assembler and disassembler for the simtlab ISA (isa.h).
 *
 * Errors carry file:line:col, the offending token and what was expected:
 *   matmul.s:12:17: error: unknown register '%r255' (registers are %r0..%r254)
 * Branch reconvergence points (immediate post-dominators, reconv.h) are
 * computed at assembly, once, so the executor only follows
 * isa_instr_t.reconv. Listings (asm_format_instr, asm_disassemble) are
 * printed by isa_fmt.c, declared in isa_fmt.h, which this includes.
 */
#ifndef SIMT_ASM_H
#define SIMT_ASM_H

#include <stddef.h>

#include "err.h"
#include "isa.h"
#include "isa_fmt.h"

/* Assemble len bytes of source text. `file` names the source in messages
 * and in out->file; the kernel name defaults to the file's stem. On
 * success fills *out (caller frees with isa_program_free) and returns 0;
 * on failure returns -1, fills err (code SIMT_E_ASM) and leaves *out empty. */
int asm_assemble(const char *src, size_t len, const char *file,
                 isa_program_t *out, simt_err_t *err);

/* Read and assemble a file. A file that cannot be read is SIMT_E_USAGE. */
int asm_assemble_file(const char *path, isa_program_t *out, simt_err_t *err);

#endif
