/* exec.h - functional execution of one warp instruction.
 *
 * exec_step runs the instruction at the warp's pc for its active lanes,
 * writes registers and memory, moves the SIMT stack, and reports what the
 * timing model needs to know (lanes, memory addresses, flops; the function
 * unit is the timing model's own per-instruction decode, sm.c).
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

/* The thread-block cluster a block belongs to (isa.h "Clusters"), shared
 * by its CTAs; sm.c keeps it up to date as they start and exit. */
typedef struct exec_cluster {
    uint32_t size;                        /* CTAs in the cluster             */
    uint32_t dim[3];                      /* its shape (%cluster_nctaid)     */
    uint32_t id[3];                       /* its index (%clusterid)          */
    uint8_t *smem[ISA_MAX_CLUSTER];       /* each rank's shared memory; NULL
                                             once that CTA has exited        */
    uint32_t smid[ISA_MAX_CLUSTER];       /* where each rank runs: SM and    */
    uint32_t slot[ISA_MAX_CLUSTER];       /*   block slot (for the checker)  */
    uint32_t ctaid[ISA_MAX_CLUSTER][3];   /* each rank's block index         */
} exec_cluster_t;

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
    const exec_cluster_t *cluster; /* its cluster, NULL: not a cluster launch
                                   (then the block is a cluster of one)    */
    uint32_t cluster_rank;      /* %cluster_ctarank                        */
} exec_ctx_t;

/* What happened, for the timing model and the statistics. (Field order:
 * measured; with mask and flops after the bytes, exec_step took about 5
 * host instructions more per warp instruction to fill it in.) */
typedef struct exec_info {
    uint32_t mask;              /* lanes that executed (guard applied)      */
    uint32_t flops;             /* floating-point operations, fma = 2       */
    uint8_t op;                 /* isa_op_t executed                        */
    uint8_t space;              /* memory space for ld/st/atom              */
    uint8_t is_store;           /* st or atom: writes memory                */
    uint8_t bytes;              /* bytes per lane for memory ops            */
    uint8_t parts;              /* accesses per lane of `bytes` each, at
                                   addrs[l], +bytes, ... (wmma C/D: 2; 1
                                   for everything else)                    */
    uint8_t barrier;            /* warp arrived at bar.sync                 */
    uint8_t diverged;           /* a branch split the warp                  */
    uint8_t remote;             /* ld/st.cluster: some lane reached another
                                   CTA's shared memory                     */
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
