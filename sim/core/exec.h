/* exec.h - functional execution of one warp instruction.
 *
 * exec_step runs the instruction at the warp's pc for its active lanes,
 * writes registers and memory, moves the SIMT stack, and reports what the
 * timing model needs to know (function unit, lanes, memory addresses).
 * It knows nothing about cycles except %clock: timing lives in sm.c.
 */
#ifndef SIMT_EXEC_H
#define SIMT_EXEC_H

#include <stdint.h>

#include "err.h"
#include "isa.h"
#include "mem.h"
#include "warp.h"

struct check;   /* the kernel checker (check.h) */

/* What a warp instruction sees of the world: its block and kernel. */
typedef struct exec_ctx {
    const isa_program_t *prog;  /* the kernel                              */
    mem_t *mem;                 /* device (global) memory                  */
    uint8_t *smem;              /* this block's shared memory              */
    uint32_t smem_bytes;        /* its size                                */
    const uint32_t *params;     /* kernel arguments (prog->nparams)        */
    uint32_t ctaid[3];          /* this block's index in the grid          */
    uint32_t nctaid[3];         /* grid shape                              */
    uint32_t ntid[3];           /* block shape                             */
    uint32_t smid;              /* SM running the block                    */
    uint64_t clock;             /* current cycle, for %clock               */
    struct check *check;        /* kernel checker, or NULL when off        */
} exec_ctx_t;

/* What happened, for the timing model and the statistics. */
typedef struct exec_info {
    uint8_t op;                 /* isa_op_t executed                        */
    uint8_t unit;               /* isa_unit_t, resolved by type (ALU/FMA)   */
    uint8_t space;              /* memory space for ld/st/atom              */
    uint8_t is_store;           /* st or atom: writes memory                */
    uint8_t bytes;              /* bytes per lane for memory ops            */
    uint8_t parts;              /* accesses per lane of `bytes` each, at
                                   addrs[l], +bytes, ... (wmma C/D: 2; 1
                                   for everything else)                    */
    uint8_t barrier;            /* warp arrived at bar.sync                 */
    uint8_t diverged;           /* a branch split the warp                  */
    uint32_t mask;              /* lanes that executed (guard applied)      */
    uint32_t flops;             /* floating-point operations, fma = 2       */
    uint32_t addrs[32];         /* per-lane byte addresses (lanes in mask)  */
} exec_info_t;

/* Execute one instruction of warp w. Returns 0, or -1 with a report in err
 * (SIMT_E_MEM for a bad access, SIMT_E_KERNEL for a divergent barrier or a
 * reconvergence-stack overflow) naming kernel, pc, line, block, thread and
 * address. On failure, lanes before the faulting one may have written. */
int exec_step(const exec_ctx_t *x, warp_t *w, exec_info_t *info, simt_err_t *err);

/* One element of format type (f16 bf16 tf32 e4m3 e5m2, the register bit
 * pattern), decoded exactly to f32 as wgmma does; equals numfmt_decode. */
float exec_decode_fast(uint8_t type, uint32_t v);

/* Describe thread `lane` of warp w as "block (bx,by,bz), thread (tx,ty,tz)". */
void exec_thread_name(const exec_ctx_t *x, const warp_t *w, uint32_t lane, char *buf, size_t n);

#endif
