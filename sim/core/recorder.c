/* recorder.c - frames of a run for the window (see recorder.h). */
#include "recorder.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"

struct rec {
    uint32_t sms, slots, capacity;
    uint64_t total;            /* frames recorded                          */
    uint64_t blocks_done;      /* from BLOCK_END events                    */
    uint64_t last_cycle;       /* cycle of the previous frame              */
    rec_frame_t *frames;       /* capacity frames, a ring; owned           */
    uint8_t *status;           /* capacity x sms x slots; owned            */
    uint32_t *active, *live;   /* capacity x sms x slots; owned            */
};

rec_t *rec_create(uint32_t sms, uint32_t slots, uint32_t capacity, simt_err_t *err)
{
    if (sms == 0 || slots == 0 || capacity == 0 || (uint64_t)sms * slots > (1u << 20)) {
        simt_errf(err, SIMT_E_USAGE, "recorder: %u SMs x %u slots x %u frames is not a shape it can hold",
                  sms, slots, capacity);
        return NULL;
    }
    rec_t *r = calloc(1, sizeof *r);
    size_t n = (size_t)capacity * sms * slots;
    if (r) {
        r->sms = sms;
        r->slots = slots;
        r->capacity = capacity;
        r->frames = calloc(capacity, sizeof *r->frames);
        r->status = calloc(n, 1);
        r->active = calloc(n, sizeof *r->active);
        r->live = calloc(n, sizeof *r->live);
    }
    if (!r || !r->frames || !r->status || !r->active || !r->live) {
        rec_free(r);
        simt_errf(err, SIMT_E_NOMEM, "recorder: host out of memory");
        return NULL;
    }
    return r;
}

void rec_free(rec_t *r)
{
    if (!r)
        return;
    free(r->frames);
    free(r->status);
    free(r->active);
    free(r->live);
    free(r);
}

void rec_reset(rec_t *r)
{
    r->total = 0;
    r->blocks_done = 0;
    r->last_cycle = 0;
}

uint32_t rec_sms(const rec_t *r) { return r->sms; }
uint32_t rec_slots(const rec_t *r) { return r->slots; }
uint64_t rec_total(const rec_t *r) { return r->total; }
uint32_t rec_capacity(const rec_t *r) { return r->capacity; }

static int held(const rec_t *r, uint64_t i)
{
    return i < r->total && i + r->capacity >= r->total;
}

const rec_frame_t *rec_frame(const rec_t *r, uint64_t i)
{
    return held(r, i) ? &r->frames[i % r->capacity] : NULL;
}

static size_t slab(const rec_t *r, uint64_t i)
{
    return (size_t)(i % r->capacity) * r->sms * r->slots;
}

const uint8_t *rec_frame_status(const rec_t *r, uint64_t i)
{
    return held(r, i) ? r->status + slab(r, i) : NULL;
}

const uint32_t *rec_frame_active(const rec_t *r, uint64_t i)
{
    return held(r, i) ? r->active + slab(r, i) : NULL;
}

const uint32_t *rec_frame_live(const rec_t *r, uint64_t i)
{
    return held(r, i) ? r->live + slab(r, i) : NULL;
}

/* The next frame to fill, with the common fields set. */
static rec_frame_t *next_frame(rec_t *r, uint64_t cycle)
{
    rec_frame_t *f = &r->frames[r->total % r->capacity];
    memset(f, 0, sizeof *f);
    f->cycle = cycle;
    f->interval = cycle > r->last_cycle ? cycle - r->last_cycle : 0;
    f->blocks_done = r->blocks_done;
    return f;
}

static uint8_t issue_status(uint8_t unit)
{
    switch (unit) {
    case UNIT_FMA: return REC_ISSUE_FP32;
    case UNIT_TENSOR: return REC_ISSUE_TENSOR;
    case UNIT_LSU: return REC_ISSUE_MEMORY;
    default: return REC_ISSUE_OTHER;
    }
}

static uint8_t gpu_status(const gpu_warp_view_t *v)
{
    switch (v->status) {
    case WS_ISSUING: return issue_status(v->issued_unit);
    case WS_READY: return REC_READY;
    case WS_MEMORY: return REC_WAIT_MEMORY;
    case WS_DEPENDENCY: return REC_WAIT_DEPENDENCY;
    case WS_PIPE: return REC_WAIT_PIPE;
    case WS_BARRIER: return REC_BARRIER;
    case WS_DONE: return REC_DONE;
    default: return REC_EMPTY;
    }
}

void rec_capture_gpu(rec_t *r, const gpu_run_t *run)
{
    uint64_t now = gpu_run_cycle(run);
    const gpu_stats_t *st = gpu_run_stats(run);
    rec_frame_t *f = next_frame(r, now);
    size_t base = slab(r, r->total);
    uint32_t nsm = gpu_run_sms(run), nslots = gpu_run_warp_slots(run);
    f->warp_instrs = st->warp_instrs;
    f->thread_instrs = st->thread_instrs;
    f->flops = st->flops;
    memcpy(f->stalls, st->stalls, sizeof f->stalls);
    f->blocks_waiting = gpu_run_blocks_waiting(run);
    f->done = gpu_run_status(run) == GPU_RUN_DONE;
    f->blocks_total = gpu_run_blocks_total(run);
    for (int lv = 0; lv < GPU_LEVEL_COUNT; lv++)
        f->bytes[lv] = gpu_run_take_bytes(run, (gpu_level_t)lv, f->done ? UINT64_MAX : now);
    for (uint32_t s = 0; s < r->sms; s++) {
        for (uint32_t w = 0; w < r->slots; w++) {
            size_t k = base + (size_t)s * r->slots + w;
            gpu_warp_view_t v;
            if (s < nsm && w < nslots && gpu_run_warp(run, s, w, &v) == 0 && v.status != WS_EMPTY) {
                r->status[k] = gpu_status(&v);
                r->active[k] = v.active;
                r->live[k] = v.live;
            } else {
                r->status[k] = REC_EMPTY;
                r->active[k] = r->live[k] = 0;
            }
            f->by_status[r->status[k]]++;
        }
    }
    r->last_cycle = now;
    r->total++;
}

void rec_capture_cpu(rec_t *r, const cpu_run_t *run)
{
    uint64_t now = cpu_run_cycle(run);
    const cpu_stats_t *st = cpu_run_stats(run);
    rec_frame_t *f = next_frame(r, now);
    size_t base = slab(r, r->total);
    f->warp_instrs = st->instrs;
    f->thread_instrs = st->thread_instrs;
    f->flops = st->flops;
    f->blocks_done = cpu_run_blocks_done(run);
    f->blocks_total = cpu_run_blocks_total(run);
    f->done = cpu_run_status(run) == CPU_RUN_DONE;
    uint32_t width = cpu_run_desc(run)->simd_width;
    f->groups_per_block = cpu_run_groups_per_block(run);
    for (uint32_t s = 0; s < r->sms; s++) {
        for (uint32_t w = 0; w < r->slots; w++) {
            size_t k = base + (size_t)s * r->slots + w;
            cpu_core_view_t v;
            r->status[k] = REC_EMPTY;
            r->active[k] = r->live[k] = 0;
            if (w == 0 && cpu_run_core(run, s, &v) == 0 && v.busy) {
                if (s == 0) {
                    memcpy(f->core_ctaid, v.ctaid, sizeof f->core_ctaid);
                    f->core_group = v.group;
                    f->core_line = v.line;
                }
                r->status[k] = v.unit == UNIT_COUNT ? REC_READY : issue_status(v.unit);
                r->active[k] = r->live[k] = width >= 32 ? 0xFFFFFFFFu : (1u << width) - 1u;
            }
            f->by_status[r->status[k]]++;
        }
    }
    r->last_cycle = now;
    r->total++;
}

int rec_observe_gpu(void *rec, const gpu_run_t *run, const gpu_event_t *ev)
{
    rec_t *r = rec;
    if (ev->kind == GPU_EV_BLOCK_END)
        r->blocks_done++;
    else if (ev->kind == GPU_EV_SAMPLE)
        rec_capture_gpu(r, run);
    return 0;
}

int rec_observe_cpu(void *rec, const cpu_run_t *run, const gpu_event_t *ev)
{
    rec_t *r = rec;
    if (ev->kind == GPU_EV_SAMPLE)
        rec_capture_cpu(r, run);
    return 0;
}

const char *rec_status_name(rec_status_t s)
{
    static const char *const names[REC_STATUS_COUNT] = {
        "empty", "FP32", "Tensor Core", "load/store", "other", "ready", "memory", "dependency",
        "unit busy", "barrier", "done",
    };
    return s < REC_STATUS_COUNT ? names[s] : "?";
}
