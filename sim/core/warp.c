/* warp.c - the SIMT reconvergence stack. */
#include "warp.h"

#include <string.h>

void warp_start(warp_t *w, uint32_t *regs, uint64_t *ready, uint32_t nregs, uint32_t lanes)
{
    uint32_t live = lanes >= WARP_SIZE ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
    w->regs = regs;
    w->reg_ready = ready;
    w->nregs = nregs;
    if (regs && nregs)
        memset(regs, 0, (size_t)nregs * WARP_SIZE * sizeof *regs);
    if (ready && nregs)
        memset(ready, 0, (size_t)nregs * sizeof *ready);
    memset(w->preds, 0, sizeof w->preds);
    w->stack[0] = (warp_entry_t){ .pc = 0, .rpc = ISA_NO_PC, .mask = live };
    w->depth = 1;
    w->live = live;
    w->state = WARP_READY;
    w->next_issue = 0;
    memset(w->pred_ready, 0, sizeof w->pred_ready);
    memset(&w->reg_mem, 0, sizeof w->reg_mem);
    w->issued_at = UINT64_MAX;
}

/* Pop paths that are finished: reached their reconvergence pc (the path
 * below continues from there with the union of lanes) or lost all lanes. */
void warp_reconverge(warp_t *w)
{
    while (w->depth > 0) {
        warp_entry_t *top = &w->stack[w->depth - 1];
        if (top->mask != 0 && top->pc != top->rpc)
            break;
        w->depth--;
    }
}

static void push(warp_t *w, uint32_t pc, uint32_t rpc, uint32_t mask)
{
    w->stack[w->depth++] = (warp_entry_t){ .pc = pc, .rpc = rpc, .mask = mask };
}

int warp_branch(warp_t *w, uint32_t taken, uint32_t target, uint32_t reconv)
{
    warp_entry_t *top = &w->stack[w->depth - 1];
    uint32_t mask = top->mask;
    uint32_t fall = top->pc + 1;
    uint32_t not_taken = mask & ~taken;

    if (target == fall)                          /* both ways lead to pc + 1 */
        taken = mask;
    if (not_taken == 0 || taken == 0 || taken == mask) {  /* uniform: no split */
        warp_advance(w, taken == mask ? target : fall);
        return 0;
    }
    if (w->depth + 2 > WARP_STACK_MAX)
        return -1;
    if (reconv == top->rpc) {
        /* Both paths rejoin where this path already rejoins: the entry
         * below waits there, so split this entry instead of nesting. */
        if (fall == reconv) {            /* not-taken lanes are already there */
            top->pc = target;
            top->mask = taken;
        } else {
            top->pc = fall;
            top->mask = not_taken;
            if (target != reconv)
                push(w, target, reconv, taken);
        }
    } else {
        if (reconv == ISA_NO_PC)
            return -1;  /* cannot happen for assembler-computed reconv */
        /* This entry becomes the waiting point at reconv; the taken path
         * runs first (top of stack), then the not-taken path. */
        top->pc = reconv;
        if (fall != reconv)
            push(w, fall, reconv, not_taken);
        if (target != reconv)
            push(w, target, reconv, taken);
    }
    warp_reconverge(w);
    return 1;
}

void warp_exit_lanes(warp_t *w, uint32_t mask)
{
    w->live &= ~mask;
    for (uint32_t i = 0; i < w->depth; i++)
        w->stack[i].mask &= ~mask;
    warp_reconverge(w);
}
