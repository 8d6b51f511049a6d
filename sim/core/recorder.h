/* recorder.h - what a run looked like, frame by frame, for the window.
 *
 * A recorder keeps a preallocated ring of frames. A frame is a snapshot
 * of one run at one cycle: every warp slot's status and lanes, the running
 * totals (instructions, FLOPs, blocks), and the bytes each memory level
 * moved since the previous frame, counted by the time they moved (meter.h),
 * so a bandwidth bar made from frames never reads above the level's peak.
 * A CPU run is recorded the same way, its cores as "SMs" of one slot.
 *
 *   rec_t *r = rec_create(gpu_run_sms(run), gpu_run_warp_slots(run), 256, &err);
 *   gpu_run_enable_meters(run, &err);            // bytes by transfer time
 *   gpu_run_add_observer(run, rec_observe_gpu, r, 0, &err);  // block events
 *   ... gpu_run_advance(run, t, 0, &err); rec_capture_gpu(r, run); ...
 *   const rec_frame_t *f = rec_frame(r, rec_total(r) - 1);  // the newest
 *
 * The recorder only reads the run (const getters); results and timing are
 * the same with or without it. No I/O; no allocation after rec_create.
 */
#ifndef SIMT_RECORDER_H
#define SIMT_RECORDER_H

#include <stdint.h>

#include "cpu.h"
#include "err.h"
#include "gpu.h"

/* What a warp slot (or a CPU core) was doing, as the window colours it:
 * gpu_warp_status_t, with "issuing" split by the unit it issued to. */
typedef enum rec_status {
    REC_EMPTY,          /* no warp                                          */
    REC_ISSUE_FP32,     /* issued an FP32 instruction                       */
    REC_ISSUE_TENSOR,   /* issued a Tensor Core instruction                 */
    REC_ISSUE_MEMORY,   /* issued a load or store                           */
    REC_ISSUE_OTHER,    /* issued integer, special-function or branch work  */
    REC_READY,          /* ready, waiting for its scheduler                 */
    REC_WAIT_MEMORY,    /* waiting for a load                               */
    REC_WAIT_DEPENDENCY,/* waiting for an arithmetic result                 */
    REC_WAIT_PIPE,      /* its unit is busy                                 */
    REC_BARRIER,        /* waiting at bar.sync                              */
    REC_DONE,           /* exited, its block still running                  */
    REC_STATUS_COUNT
} rec_status_t;

typedef struct rec_frame {
    uint64_t cycle;                 /* the run's cycle                       */
    uint64_t warp_instrs;           /* running totals ...                    */
    uint64_t thread_instrs;
    uint64_t flops;
    uint64_t blocks_done, blocks_total, blocks_waiting;
    uint64_t stalls[STALL_COUNT];   /* scheduler-cycles so far (GPU)         */
    double bytes[GPU_LEVEL_COUNT];  /* moved since the previous frame        */
    uint64_t interval;              /* cycles since the previous frame       */
    uint32_t by_status[REC_STATUS_COUNT]; /* slots in each status           */
    int done;                       /* the run had finished                  */
    /* CPU runs: what core 0 is on (for the one-core picture) */
    uint32_t core_ctaid[3];         /* its block                             */
    uint32_t core_group;            /* its thread group (a thread on 1 lane) */
    uint32_t core_line;             /* the source line of its next instruction */
    uint32_t groups_per_block;      /* thread groups in a block              */
} rec_frame_t;

typedef struct rec rec_t;

/* A ring of `capacity` frames for a run of `sms` SMs (CPU: cores) of
 * `slots` warp slots each. NULL + err (SIMT_E_USAGE, SIMT_E_NOMEM). */
rec_t *rec_create(uint32_t sms, uint32_t slots, uint32_t capacity, simt_err_t *err);
void rec_free(rec_t *r);
/* Start again (a new run of the same shape): no frames, no blocks done. */
void rec_reset(rec_t *r);

uint32_t rec_sms(const rec_t *r);
uint32_t rec_slots(const rec_t *r);
uint64_t rec_total(const rec_t *r);     /* frames recorded so far            */
uint32_t rec_capacity(const rec_t *r);
/* Frame number i (0 = the first ever); NULL if not recorded yet or
 * already overwritten (older than rec_total - capacity). */
const rec_frame_t *rec_frame(const rec_t *r, uint64_t i);
/* Frame i's per-slot status (rec_status_t) and lane masks (active: lanes
 * on the executing path; live: lanes not exited), sms x slots entries, SM
 * by SM. NULL as for rec_frame. */
const uint8_t *rec_frame_status(const rec_t *r, uint64_t i);
const uint32_t *rec_frame_active(const rec_t *r, uint64_t i);
const uint32_t *rec_frame_live(const rec_t *r, uint64_t i);

/* Take a frame of the run now. */
void rec_capture_gpu(rec_t *r, const gpu_run_t *run);
void rec_capture_cpu(rec_t *r, const cpu_run_t *run);

/* Observers (gpu_observer_fn, cpu_observer_fn) with the recorder as user:
 * count finished blocks, and take a frame at each SAMPLE event. */
int rec_observe_gpu(void *rec, const gpu_run_t *run, const gpu_event_t *ev);
int rec_observe_cpu(void *rec, const cpu_run_t *run, const gpu_event_t *ev);

/* One-word English name of a status ("memory"), for legends and tests. */
const char *rec_status_name(rec_status_t s);

#endif
