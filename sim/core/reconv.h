/* reconv.h - the control-flow graph of a kernel and the reconvergence
 * points of its branches (the immediate post-dominators), which the
 * assembler stores in isa_instr_t.reconv and the SIMT stack (warp.h)
 * follows. Not specific to the assembler: any isa_program_t will do. */
#ifndef SIMT_RECONV_H
#define SIMT_RECONV_H

#include <stdint.h>

#include "isa.h"

/* Successors of instruction i (0..2 of them, returned); p->ncode stands
 * for the virtual exit node. Branch targets must be resolved. */
int reconv_successors(const isa_program_t *p, uint32_t i, uint32_t out[2]);

/* Set every instruction's reconv: a branch's immediate post-dominator, or
 * ISA_NO_PC when that is the exit (or the branch cannot reach an exit);
 * ISA_NO_PC for every other instruction. Returns 0, or -1 when out of
 * memory (p unchanged then). */
int reconv_compute(isa_program_t *p);

#endif
