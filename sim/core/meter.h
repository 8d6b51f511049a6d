/* meter.h - bytes moved by a timed resource, by the cycle they moved in.
 *
 * The timing model's resources (DRAM channels, L2 slices, the SMs' load/
 * store data pipes) are timelines: a request is given a busy span
 * [start, start + ticks) when it is made, often in the future. Counting
 * its bytes when the request is made puts them in the wrong interval (a
 * DRAM bar built that way reads 61 GB/s on a 32 GB/s DRAM). A meter
 * instead adds each busy span to the cycles it covers, so the busy ticks
 * of any interval are at most (resources x ticks per cycle x cycles): the
 * bandwidth a meter shows is never above the resource's peak.
 *
 * A meter is a ring of per-cycle buckets. The run loop takes (and clears)
 * the buckets of the cycles that are over, in order; a span that reaches
 * further than the ring into the future is cut short there and the rest
 * counted in `late` (a ring of 2^16 cycles is far longer than any queue
 * the model builds). Allocated once; no allocation per request.
 */
#ifndef SIMT_METER_H
#define SIMT_METER_H

#include <stdint.h>

#include "err.h"

#define METER_RING_CYCLES (1u << 16)

typedef struct meter {
    uint32_t *bucket;          /* busy ticks per cycle, a ring; owned      */
    uint32_t mask;             /* ring length - 1                          */
    uint32_t ticks_per_cycle;  /* the resource's time unit                 */
    uint64_t read;             /* first cycle not yet taken                */
    uint64_t late;             /* ticks beyond the ring's horizon          */
} meter_t;

/* Allocate the ring (all zero, reading from cycle 0). SIMT_E_NOMEM. */
int meter_init(meter_t *m, uint32_t ticks_per_cycle, simt_err_t *err);
void meter_free(meter_t *m);

/* Add the busy span [start_tick, start_tick + ticks). */
void meter_add(meter_t *m, uint64_t start_tick, uint64_t ticks);

/* Busy ticks of cycles [m->read, until_cycle), which are cleared; read
 * moves to until_cycle. 0 if until_cycle <= read. */
uint64_t meter_take(meter_t *m, uint64_t until_cycle);

#endif
