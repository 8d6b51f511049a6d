/* warp.h - one warp: 32 lanes that share a program counter.
 *
 * SIMT in one paragraph: the 32 threads of a warp execute one instruction
 * at a time together. When a branch sends some lanes one way and the rest
 * another, the warp runs one path with the other lanes masked off, then the
 * other path, and the lanes join again at the branch's reconvergence point
 * (its immediate post-dominator, computed by the assembler). The stack below
 * remembers the paths still to run: each entry is "run these lanes from pc
 * until you reach rpc". The top entry is what the warp executes now.
 */
#ifndef SIMT_WARP_H
#define SIMT_WARP_H

#include <stdint.h>

#include "bits.h"
#include "isa.h"

#define WARP_SIZE      32
#define WARP_STACK_MAX 72   /* deep enough for 32 lane splits plus nesting */

typedef struct warp_entry {
    uint32_t pc;    /* next instruction for these lanes                  */
    uint32_t rpc;   /* reconvergence pc: pop when pc reaches it          */
    uint32_t mask;  /* lanes on this path (bit i = lane i)               */
} warp_entry_t;

typedef enum warp_state {
    WARP_FREE,      /* slot unused                                       */
    WARP_READY,     /* has work; may issue when its operands are ready   */
    WARP_BARRIER,   /* waiting at bar.sync for the rest of its block     */
    WARP_DONE       /* every lane has exited                             */
} warp_state_t;

typedef struct warp {
    /* Field order: what every issue touches comes first, so that it
     * shares a few cache lines (the simulator keeps thousands of warps). */
    uint32_t *regs;             /* nregs x 32 values: regs[r * 32 + lane]   */
    uint64_t *reg_ready;        /* nregs entries: cycle each register's
                                   pending write arrives (the scoreboard;
                                   owned by the caller like regs, so that a
                                   warp costs host memory by the kernel's
                                   registers, not by ISA_NUM_REGS)          */
    uint32_t nregs;             /* registers per thread for this kernel     */
    uint32_t depth;             /* entries in use; 0 when done              */
    uint32_t live;              /* lanes that exist and have not exited     */
    uint8_t state;              /* warp_state_t                             */
    uint8_t dep_why;            /* gpu_stall_t while waiting for dep_ready  */
    uint8_t unit;               /* isa_unit_t of the next instruction       */
    uint32_t slot;              /* warp slot in the SM (= %warpid)          */
    uint32_t block_slot;        /* block slot in the SM it belongs to       */
    uint32_t warp_in_block;     /* 0 for threads 0..31 of the block, ...    */
    uint32_t issued_pc;         /* pc of its last issue (for the window; in
                                   what was padding before age)            */
    uint64_t age;               /* dispatch order, for greedy-then-oldest   */
    /* timing state, owned by sm.c */
    uint64_t next_issue;        /* earliest cycle the next issue may happen */
    uint64_t dep_ready;         /* cycle the next instruction's operands are
                                   ready (cached: changes only when this
                                   warp issues or leaves a barrier)         */
    uint64_t issued_at;         /* cycle of its last issue (UINT64_MAX: none) */
    isa_regset_t reg_mem;       /* r set: r's pending write is a load
                                   (warp_reg_mem, warp_set_reg_mem)         */
    uint32_t preds[ISA_NUM_PREDS]; /* predicate p as a 32-bit lane mask     */
    uint64_t pred_ready[ISA_NUM_PREDS]; /* cycle each predicate is written  */
    warp_entry_t stack[WARP_STACK_MAX]; /* SIMT reconvergence stack         */
} warp_t;

/* Number of lanes set in a mask. */
static inline uint32_t warp_popcount(uint32_t v)
{
    if (v == 0xFFFFFFFFu)   /* the usual case: a full warp */
        return 32;
    return bits_popcount32(v);
}

/* Whether register r's pending write comes from memory (a load), for the
 * stall reason; and setting it when r's write is scheduled. */
static inline int warp_reg_mem(const warp_t *w, uint32_t r)
{
    return isa_regset_has(&w->reg_mem, r);
}

static inline void warp_set_reg_mem(warp_t *w, uint32_t r, int from_mem)
{
    isa_regset_put(&w->reg_mem, r, from_mem);
}

/* Begin a warp with `lanes` threads (1..32) at pc 0; regs must hold
 * nregs * 32 values and ready nregs (the scoreboard); both are zeroed. */
void warp_start(warp_t *w, uint32_t *regs, uint64_t *ready, uint32_t nregs, uint32_t lanes);

/* The executing path: its pc and its lanes (0 when done). */
static inline uint32_t warp_pc(const warp_t *w) { return w->depth ? w->stack[w->depth - 1].pc : ISA_NO_PC; }
static inline uint32_t warp_mask(const warp_t *w) { return w->depth ? w->stack[w->depth - 1].mask : 0; }

/* Pop paths that are finished (warp.c); warp_advance's slow path. */
void warp_reconverge(warp_t *w);

/* Move the executing path to next_pc and pop paths that have reached
 * their reconvergence point. Inline: nearly every instruction ends here,
 * and usually the path just moves on (it has lanes, and next_pc is not
 * where it rejoins another path). */
static inline void warp_advance(warp_t *w, uint32_t next_pc)
{
    warp_entry_t *top = &w->stack[w->depth - 1];
    top->pc = next_pc;
    if (next_pc == top->rpc || top->mask == 0)
        warp_reconverge(w);
}

/* A branch at pc: lanes in `taken` (a subset of the executing lanes) jump
 * to target, the others fall through to pc + 1; reconv is the branch's
 * reconvergence pc. Returns 1 if the warp split, 0 if all lanes went one
 * way, -1 if the stack would overflow (a bug report, not a crash). */
int warp_branch(warp_t *w, uint32_t taken, uint32_t target, uint32_t reconv);

/* Lanes in `mask` exit: they leave every path. */
void warp_exit_lanes(warp_t *w, uint32_t mask);

#endif
