/* isa_fmt.h - simtlab instructions as assembler text. The executor and
 * the kernel checker print the faulting instruction with it; the
 * assembler's listings (asm.h) too. The asm_ names are kept from when
 * this lived in the assembler. */
#ifndef SIMT_ISA_FMT_H
#define SIMT_ISA_FMT_H

#include <stddef.h>

#include "isa.h"

/* Format one instruction as source text (no label, no newline) into buf.
 * Returns the length that the full text needs, like snprintf. p (for
 * parameter, shared array and label names) may be NULL. */
int asm_format_instr(const isa_program_t *p, const isa_instr_t *in,
                     char *buf, size_t n);

/* A complete listing that asm_assemble turns back into an identical
 * program (same code, params, shared arrays; labels keep their names).
 * Returns a malloc'd string the caller frees, or NULL if out of memory. */
char *asm_disassemble(const isa_program_t *p);

#endif
