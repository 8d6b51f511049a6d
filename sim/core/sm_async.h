/* sm_async.h - inside an SM (not part of sm.h's interface): the
 * asynchronous and cluster machinery of sm_async.c, and the two things of
 * sm.c it uses to tell a warp's scheduler that the warp changed.
 */
#ifndef SIMT_SM_ASYNC_H
#define SIMT_SM_ASYNC_H

#include "sm.h"

/* Timing and barrier state of an asynchronous instruction (isa_opinfo's
 * async: mbarriers, bulk copies, wgmma, cluster loads, stores and
 * barriers) that warp w of block blk, on scheduler sched, has just
 * executed (exec_step computed its values). Returns 1 if w now waits for
 * another warp's arrival or a copy, 0 if not, -1 on a kernel fault
 * (report in err). */
int sm_async_issue(sm_t *sm, sm_launch_t *l, uint32_t sched, warp_t *w, sm_block_t *blk,
                   const isa_instr_t *in, const exec_info_t *info, uint64_t now, simt_err_t *err);

/* A warp of blk has exited: one warp fewer for barrier.cluster, and when
 * the block is done, its peers can no longer reach it. */
void sm_cluster_warp_done(sm_launch_t *l, sm_block_t *blk, uint64_t now);

/* sm.c: recompute when warp w's next instruction has its operands, and
 * give its scheduler the new view of w (after any change of its state,
 * readiness or age). */
void sm_warp_refresh(const sm_launch_t *l, warp_t *w);
void sm_sched_view(sm_t *sm, const warp_t *w);

#endif
