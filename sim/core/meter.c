/* meter.c - bytes moved by a timed resource, by cycle (see meter.h). */
#include "meter.h"

#include <stdlib.h>

int meter_init(meter_t *m, uint32_t ticks_per_cycle, simt_err_t *err)
{
    m->bucket = calloc(METER_RING_CYCLES, sizeof *m->bucket);
    m->mask = METER_RING_CYCLES - 1;
    m->ticks_per_cycle = ticks_per_cycle ? ticks_per_cycle : 1;
    m->read = 0;
    m->late = 0;
    if (!m->bucket)
        return simt_errf(err, SIMT_E_NOMEM, "host out of memory for a bandwidth meter");
    return 0;
}

void meter_free(meter_t *m)
{
    free(m->bucket);
    m->bucket = NULL;
}

void meter_add(meter_t *m, uint64_t start_tick, uint64_t ticks)
{
    uint64_t T = m->ticks_per_cycle;
    uint64_t t = start_tick, end = start_tick + ticks;
    uint64_t horizon = m->read + m->mask + 1;   /* first cycle the ring cannot hold */
    if (t < m->read * T)   /* cannot happen in time order; keep the bytes anyway */
        t = m->read * T, end = t + ticks;
    while (t < end) {
        uint64_t c = t / T;
        if (c >= horizon) {
            m->late += end - t;
            return;
        }
        uint64_t next = (c + 1) * T;
        uint64_t part = (end < next ? end : next) - t;
        m->bucket[c & m->mask] += (uint32_t)part;
        t += part;
    }
}

uint64_t meter_take(meter_t *m, uint64_t until_cycle)
{
    uint64_t sum = 0;
    if (until_cycle > m->read + m->mask + 1) {   /* a long idle gap: the rest is zero */
        for (uint32_t i = 0; i <= m->mask; i++) {
            sum += m->bucket[i];
            m->bucket[i] = 0;
        }
        m->read = until_cycle;
        return sum;
    }
    for (; m->read < until_cycle; m->read++) {
        uint32_t *b = &m->bucket[m->read & m->mask];
        sum += *b;
        *b = 0;
    }
    return sum;
}
