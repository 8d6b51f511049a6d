/* trace.c - Chrome / Perfetto JSON trace writer (see trace.h). */
#include "trace.h"

#include "json.h"
#include "rates.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_MAX_SMS 1024
#define TRACE_MAX_BLOCK_SLOTS 64

struct trace {
    FILE *f;
    char path[256];
    int first;                 /* no event written yet (comma handling)    */
    double base_us;            /* start of the current launch on the axis  */
    double clock_mhz;          /* of the current launch's GPU              */
    uint32_t named_sms;        /* SM processes already named               */
    uint64_t *block_start;     /* [sm][block slot] cycle, per launch       */
    uint64_t last_cycle;       /* previous sample                          */
    uint64_t last_instrs;      /* warp instructions at the previous sample */
    uint64_t last_dram;        /* DRAM bytes at the previous sample        */
    int named_links;           /* the "Links" process is named             */
};

trace_t *trace_open(const char *path, simt_err_t *err)
{
    trace_t *t = calloc(1, sizeof *t);
    if (t)
        t->block_start = calloc((size_t)TRACE_MAX_SMS * TRACE_MAX_BLOCK_SLOTS, sizeof *t->block_start);
    if (!t || !t->block_start) {
        if (t)
            free(t);
        simt_errf(err, SIMT_E_NOMEM, "host out of memory");
        return NULL;
    }
    t->f = fopen(path, "w");
    if (!t->f) {
        simt_errf(err, SIMT_E_USAGE, "cannot write trace '%s': %s", path, strerror(errno));
        free(t->block_start);
        free(t);
        return NULL;
    }
    snprintf(t->path, sizeof t->path, "%s", path);
    t->first = 1;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", t->f);
    return t;
}

static void sep(trace_t *t)
{
    if (!t->first)
        fputs(",\n", t->f);
    t->first = 0;
}

static double us(const trace_t *t, uint64_t cycle) { return t->base_us + (double)cycle / t->clock_mhz; }

static void name_process(trace_t *t, uint32_t pid, const char *name)
{
    sep(t);
    fprintf(t->f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRIu32 ",\"args\":{\"name\":", pid);
    json_put_string(t->f, name);
    fputs("}}", t->f);
    sep(t);
    fprintf(t->f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%" PRIu32 ",\"args\":{\"sort_index\":%" PRIu32 "}}", pid, pid);
}

static void span(trace_t *t, const char *name, uint32_t pid, uint32_t tid, double start, double end)
{
    sep(t);
    fputs("{\"name\":", t->f);
    json_put_string(t->f, name);
    fprintf(t->f, ",\"ph\":\"X\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":%.4f,\"dur\":%.4f}",
            pid, tid, start, end - start);
}

/* A counter sample of process pid: {"name": NAME, "args": {KEY: v}} at ts. */
static void counter_at(trace_t *t, const char *name, uint32_t pid, double ts, const char *key, double v)
{
    sep(t);
    fputs("{\"name\":", t->f);
    json_put_string(t->f, name);
    fprintf(t->f, ",\"ph\":\"C\",\"pid\":%" PRIu32 ",\"ts\":%.4f,\"args\":{", pid, ts);
    json_put_string(t->f, key);
    fprintf(t->f, ":%.4f}}", v);
}

static void counter(trace_t *t, const char *name, double ts, double v)
{
    counter_at(t, name, 0, ts, "value", v);
}

static void sample(trace_t *t, const gpu_run_t *run, uint64_t cycle)
{
    uint32_t count[WS_DONE + 1] = { 0 };
    uint32_t inflight = 0;
    gpu_warp_view_t wv;
    for (uint32_t s = 0; s < gpu_run_sms(run); s++) {
        for (uint32_t w = 0; w < gpu_run_warp_slots(run); w++)
            if (gpu_run_warp(run, s, w, &wv) == 0 && wv.status <= WS_DONE)
                count[wv.status]++;
        inflight += gpu_run_mem_inflight(run, s);
    }
    const gpu_stats_t *st = gpu_run_stats(run);
    double ts = us(t, cycle);
    uint64_t dc = cycle > t->last_cycle ? cycle - t->last_cycle : 1;
    counter(t, "warps issuing", ts, count[WS_ISSUING]);
    counter(t, "warps ready", ts, count[WS_READY]);
    counter(t, "warps waiting on memory", ts, count[WS_MEMORY]);
    counter(t, "warps waiting on results", ts, count[WS_DEPENDENCY] + count[WS_PIPE]);
    counter(t, "warps at a barrier", ts, count[WS_BARRIER]);
    counter(t, "IPC (warp instructions per cycle)", ts, rate_ratio((double)(st->warp_instrs - t->last_instrs), (double)dc));
    counter(t, "DRAM GB/s", ts, rate_giga_in_cycles((double)(st->dram_bytes - t->last_dram), (double)dc, t->clock_mhz));
    counter(t, "memory requests in flight", ts, inflight);
    t->last_cycle = cycle;
    t->last_instrs = st->warp_instrs;
    t->last_dram = st->dram_bytes;
}

int trace_observe(void *user, const gpu_run_t *run, const gpu_event_t *ev)
{
    trace_t *t = user;
    char name[96];
    const gpu_desc_t *d = gpu_run_desc(run);
    uint32_t nsms = gpu_run_sms(run);
    t->clock_mhz = d->clock_mhz;
    while (t->named_sms < nsms && t->named_sms < TRACE_MAX_SMS) {
        if (t->named_sms == 0)
            name_process(t, 0, "GPU");
        snprintf(name, sizeof name, "SM %" PRIu32, t->named_sms);
        name_process(t, t->named_sms + 1, name);
        t->named_sms++;
    }
    uint32_t pid = ev->sm + 1;
    size_t key = (size_t)(ev->sm % TRACE_MAX_SMS) * TRACE_MAX_BLOCK_SLOTS + ev->block_slot % TRACE_MAX_BLOCK_SLOTS;
    switch (ev->kind) {
    case GPU_EV_BLOCK_START:
        t->block_start[key] = ev->cycle;
        break;
    case GPU_EV_BLOCK_END:
        snprintf(name, sizeof name, "block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", ev->ctaid[0], ev->ctaid[1], ev->ctaid[2]);
        span(t, name, pid, ev->block_slot, us(t, t->block_start[key]), us(t, ev->cycle + 1));
        break;
    case GPU_EV_WARP_END:
        snprintf(name, sizeof name, "warp %" PRIu32 " of block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")",
                 ev->warp_in_block, ev->ctaid[0], ev->ctaid[1], ev->ctaid[2]);
        span(t, name, pid, 1000 + ev->slot, us(t, t->block_start[key]), us(t, ev->cycle + 1));
        break;
    case GPU_EV_SAMPLE:
        sample(t, run, ev->cycle);
        break;
    case GPU_EV_DONE:
        snprintf(name, sizeof name, "kernel %s", gpu_run_program(run)->name);
        span(t, name, 0, 0, t->base_us, us(t, ev->cycle));
        t->base_us = us(t, ev->cycle);
        t->last_cycle = 0;
        t->last_instrs = 0;
        t->last_dram = 0;
        break;
    default:
        break;
    }
    return 0;
}

void trace_link(trace_t *t, const char *link, double t0_us, double t1_us, double gbs)
{
    const uint32_t pid = 100000;   /* after every SM's process */
    if (!t->named_links) {
        name_process(t, pid, "Links");
        t->named_links = 1;
    }
    char name[160];
    snprintf(name, sizeof name, "link %s", link);
    counter_at(t, name, pid, t0_us, "GB/s", gbs);
    counter_at(t, name, pid, t1_us, "GB/s", 0.0);
}

int trace_close(trace_t *t, simt_err_t *err)
{
    int rc = 0;
    fputs("\n]}\n", t->f);
    if (ferror(t->f))
        rc = simt_errf(err, SIMT_E_USAGE, "writing trace '%s' failed", t->path);
    if (fclose(t->f) != 0 && rc == 0)
        rc = simt_errf(err, SIMT_E_USAGE, "writing trace '%s' failed: %s", t->path, strerror(errno));
    free(t->block_start);
    free(t);
    return rc;
}
