/* check.h - the kernel checker: what compute-sanitizer's initcheck,
 * racecheck and synccheck do, for simulated kernels.
 *
 * When a launch sets gpu_launch_t.check, gpu.c creates a check_t for it and
 * the executor calls check_access for every lane of every ld/st/atom and
 * check_barrier for every warp that reaches bar.sync. The checker reports:
 *
 *   - reads of uninitialised global memory: each device allocation has one
 *     shadow bit per byte (mem_alloc_t.written), set by host copies
 *     (mem_write, mem_mark_written) and by kernel stores;
 *   - reads of uninitialised shared memory (shadow per block, cleared when
 *     the block starts);
 *   - shared-memory data races: two threads of a block touch the same byte,
 *     at least one of them writing, with no bar.sync between. Atomics never
 *     race with each other and are not tracked for races;
 *   - warps of one block waiting at different bar.sync instructions.
 *
 * Asynchronous instructions (isa.h): a bulk copy's writes to shared memory
 * and wgmma's operand reads are checked like st and ld by the issuing
 * thread; bytes a bulk copy wrote count as initialised, and a later read
 * of them is never reported as a race (the kernel orders it with an
 * mbarrier wait, which the checker does not follow).
 *
 * Barrier epochs: each warp counts the barriers it has reached. A warp can
 * only pass its k-th barrier once every live warp of its block has reached
 * its own k-th, so two accesses are separated by a barrier exactly when the
 * accessing warps' counts differ; equal counts mean "no barrier between".
 *
 * Shared state is kept per byte (exact for 1- and 2-byte accesses) and
 * costs about 28 bytes of host memory per byte of shared memory in use.
 */
#ifndef SIMT_CHECK_H
#define SIMT_CHECK_H

#include <stdint.h>

#include "err.h"
#include "exec.h"
#include "isa.h"
#include "mem.h"

typedef struct check check_t;

/* A checker for one launch: nsm SMs with block_slots resident blocks each,
 * warps_per_block warps per block, the program's shared memory. NULL + err
 * (SIMT_E_NOMEM) if the host is out of memory. */
check_t *check_create(const isa_program_t *p, uint32_t nsm, uint32_t block_slots,
                      uint32_t warps_per_block, simt_err_t *err);

/* Limit the checker's global-store records (made while the kernel runs,
 * one word per 4 bytes of each allocation the launch stores to) to bytes
 * in all; past it the store is reported as SIMT_E_NOMEM. 0: no limit. */
void check_set_budget(check_t *c, uint64_t bytes);

/* The host bytes check_create allocates for the same arguments. */
uint64_t check_host_bytes(const isa_program_t *p, uint32_t nsm, uint32_t block_slots,
                          uint32_t warps_per_block);
void check_free(check_t *c);

/* Check one lane's access of the instruction described by info (its
 * address in info->addrs[lane], already known to be in bounds and
 * aligned) and record it. Returns 0, or -1 with a report in err
 * (SIMT_E_KERNEL) naming kernel, pc, line, block, thread and address. */
int check_access(check_t *c, const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                 uint32_t lane, simt_err_t *err);

/* A multicast bulk copy (isa.h "Clusters") wrote [addr, addr + n) of the
 * shared memory of the block in `slot` of SM `smid` (block index ctaid),
 * another CTA of the writer's cluster: those bytes count as initialised,
 * like a bulk copy's own (never a race: mbarriers order them). Returns 0. */
int check_bulk_remote(check_t *c, uint32_t smid, uint32_t slot, const uint32_t ctaid[3],
                      uint32_t addr, uint32_t n);

/* check_access for every lane in mask, in lane order; stops at the first
 * lane with a finding (-1 and its report; the lanes before it are
 * recorded). The same findings as calling check_access lane by lane. */
int check_access_lanes(check_t *c, const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                       uint32_t mask, simt_err_t *err);

/* Warp w reached bar.sync (all its live lanes). Returns 0, or -1 with a
 * report if another warp of its block waits at a different bar.sync. */
int check_barrier(check_t *c, const exec_ctx_t *x, const warp_t *w, simt_err_t *err);

#endif
