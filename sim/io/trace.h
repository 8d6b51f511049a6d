/* trace.h - write launches as a Chrome / Perfetto trace (JSON).
 *
 * A sink outside the core (sim/io): an observer of a launch (gpu.h: block
 * and warp events, counter samples), so the core itself does no I/O.
 *
 * Open a trace, pass trace_observe as a launch's observer (with the trace
 * as its user pointer and a sample period), and close it at the end. Open
 * the file in https://ui.perfetto.dev or chrome://tracing:
 *   - process "GPU": one span per kernel launch;
 *   - process "SM n": one thread per block slot with a span per block, and
 *     one thread per warp slot with a span per warp (start to exit);
 *   - counter tracks sampled every N cycles: warps issuing / waiting on
 *     memory / waiting on results / at barriers, IPC, DRAM GB/s, memory
 *     requests in flight.
 * Several launches in one trace follow each other on the time axis.
 * Time stamps are simulated microseconds at the GPU's clock.
 */
#ifndef SIMT_TRACE_H
#define SIMT_TRACE_H

#include "err.h"
#include "gpu.h"

typedef struct trace trace_t;

/* Create the file; NULL + err (SIMT_E_USAGE, with the path) on failure. */
trace_t *trace_open(const char *path, simt_err_t *err);

/* The observer: gpu_launch_t.observe = trace_observe, observe_user = t. */
int trace_observe(void *t, const gpu_run_t *run, const gpu_event_t *ev);

/* One interval of a link (node.h) at a constant rate: a counter track per
 * link named "link NAME" (GB/s) in process "Links", time in simulated
 * microseconds on the node's clock (from 0 at the node's start). */
void trace_link(trace_t *t, const char *link, double t0_us, double t1_us, double gbs);

/* Finish the JSON and close the file; frees t. Returns 0, or -1 with err
 * if writing failed (disk full). */
int trace_close(trace_t *t, simt_err_t *err);

#endif
