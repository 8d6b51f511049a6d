/* stage.c - the classroom stage (see stage.h). */
#define _POSIX_C_SOURCE 200809L   /* mkdir, localtime_r */
#include "stage.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <SDL.h>
#include <SDL_image.h>

#include "arch.h"
#include "rates.h"
#include "recorder.h"
#include "roofline.h"
#include "stage_view.h"
#include "text.h"

#define MAX_EVENTS 32
#define REC_FRAMES 600            /* frames kept for looking back: 10 s at 60 fps */
#define HOST_BUDGET_MS 14.0       /* simulation time per frame in a window        */
#define HEADLESS_DT (1.0 / 30.0)  /* seconds of stage clock per headless frame    */
#define BW_FRAMES 8               /* frames averaged for the bandwidth bars       */
#define LONG_PLAY 12.0            /* seconds of a play before it fast-forwards    */

/* Speeds: simulated microseconds per real second, 1-2-5 steps. */
static const double speeds[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500,
                                 1000, 2000, 5000, 10000, 20000, 50000, 100000 };
#define NSPEEDS ((int)(sizeof speeds / sizeof speeds[0]))
#define DEFAULT_SPEED 10          /* 20 us per second: edu-tiny's 128^3 matmul in ~20 s */

/* One run on the stage, kept (with copies of what the view needs) until
 * the next play, so the picture can stay after the run has ended. */
typedef struct slane {
    int is_cpu;
    gpu_desc_t gd;
    cpu_desc_t cd;
    char kernel[64];
    char label_en[96], label_zh[96];  /* "paths = 8": what this run of a sweep is */
    double clock_mhz;
    double tc_peak_gflops;        /* the kernel's Tensor Core peak, 0: none   */
    rec_t *rec;
    float *out;                   /* a copy of the output values; owned       */
    uint32_t rows, cols;
    uint64_t out_n;
    double vmin, vmax;
    int done, failed;
    double total_us;
    double hist[VIEW_HISTORY];
    int nhist;
    lstage_lane_t *lane;          /* during play only                         */
} slane_t;

struct stage {
    stage_opts_t o;
    int headless;
    int width, height;
    /* drawing: everything goes into `surface` through a software renderer;
     * a window shows the surface as a texture */
    SDL_Surface *surface;
    SDL_Renderer *soft;
    text_t *text;
    SDL_Window *win;
    SDL_Renderer *wr;
    SDL_Texture *wtex;
    lstage_ops_t ops;
    /* state shown */
    int speed;                    /* index into speeds                        */
    int paused, help, detail, dark, zh;
    int waiting;                  /* in op_pause                              */
    double zoom;
    int mouse_x, mouse_y;
    double mouse_moved;           /* real seconds of the last motion          */
    int back;                     /* frames looked back while paused          */
    char *title_en, *title_zh, *step_en, *step_zh, *say_en, *say_zh;
    char status[1200], status_zh[1200];
    double status_until;          /* real seconds                             */
    slane_t lane[LSTAGE_MAX_LANES];
    int nlanes;
    /* the clock */
    double t_us;                  /* simulated time of this play              */
    double ff;                    /* fast-forward factor (1: none)            */
    double play_elapsed;          /* stage-clock seconds of this play         */
    int lagging;
    Uint64 last_tick;
    /* key events for the script */
    const char *events[MAX_EVENTS];
    int nev;
    int quit;
    /* counters */
    unsigned long frames;
    double draw_ms, sim_ms;
    view_model_t model;
    char shot[1024];              /* stage_set_screenshot's copy              */
    SDL_Surface *picture;         /* a chart shown instead of the runs; owned */
    view_board_t board;           /* a chart or table beside the runs         */
    char label_en[96], label_zh[96]; /* the label of the next runs            */
    char knobs_en[400], knobs_zh[400]; /* the lesson's knobs                  */
    int knobs_used;
    int hold_runs;                /* the first run of a step waits for Space  */
    int step_fresh;               /* no run yet in this step                  */
    int hold_run;                 /* waiting before a run                     */
    int skip;                     /* PageDown / PageUp during a run: the runs of
                                   * this step go on unwatched                */
    const char *skip_ev;          /* and then this event ("next" / "prev")    */
    double auto_left;             /* --auto: seconds left in this wait        */
};

/* ---- small things ------------------------------------------------------- */

static char *dup_str(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static double now_s(void)
{
    return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

static void set_status(stage_t *s, const char *msg)
{
    s->status_zh[0] = '\0';
    snprintf(s->status, sizeof s->status, "%s", msg);
    s->status_until = now_s() + 4.0;
}

static void push_event(stage_t *s, const char *ev)
{
    if (s->nev < MAX_EVENTS)
        s->events[s->nev++] = ev;
}

static const char *pop_event(stage_t *s)
{
    if (s->nev == 0)
        return NULL;
    const char *ev = s->events[0];
    memmove(s->events, s->events + 1, (size_t)(s->nev - 1) * sizeof s->events[0]);
    s->nev--;
    return ev;
}

/* ---- settings (window only: headless runs never depend on them) --------- */

static int settings_path(char *out, size_t n)
{
    const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
    if (x && x[0])
        return snprintf(out, n, "%s/simtlab", x) < (int)n ? 0 : -1;
    if (h && h[0])
        return snprintf(out, n, "%s/.config/simtlab", h) < (int)n ? 0 : -1;
    return -1;
}

static void load_settings(stage_t *s, int *lang_set)
{
    char dir[900], path[1024], line[128];
    if (settings_path(dir, sizeof dir) != 0)
        return;
    snprintf(path, sizeof path, "%s/stage.conf", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        int v;
        char word[16];
        if (sscanf(line, "speed=%d", &v) == 1 && v >= 0 && v < NSPEEDS)
            s->speed = v;
        else if (sscanf(line, "dark=%d", &v) == 1)
            s->dark = v != 0;
        else if (sscanf(line, "lang=%15s", word) == 1 && !*lang_set) {
            s->zh = strcmp(word, "zh") == 0;
            *lang_set = 1;
        }
    }
    fclose(f);
}

static void save_settings(const stage_t *s)
{
    char dir[900], path[1024];
    if (settings_path(dir, sizeof dir) != 0)
        return;
    char parent[900];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        mkdir(parent, 0755);   /* ~/.config may not exist yet */
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return;
    snprintf(path, sizeof path, "%s/stage.conf", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "# simtlab's window settings (written when the window closes)\n"
               "speed=%d\ndark=%d\nlang=%s\n", s->speed, s->dark, s->zh ? "zh" : "en");
    fclose(f);
}

/* ---- drawing ------------------------------------------------------------ */

static int make_canvas(stage_t *s, int w, int h, simt_err_t *err)
{
    text_close(s->text);
    s->text = NULL;
    if (s->soft)
        SDL_DestroyRenderer(s->soft);
    s->soft = NULL;
    if (s->surface)
        SDL_FreeSurface(s->surface);
    s->surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s->surface || !(s->soft = SDL_CreateSoftwareRenderer(s->surface)))
        return simt_errf(err, SIMT_E_NOMEM, "stage: cannot make a %d x %d picture: %s", w, h, SDL_GetError());
    if (!(s->text = text_open(s->soft, err)))
        return -1;
    s->width = w;
    s->height = h;
    if (s->wr) {
        if (s->wtex)
            SDL_DestroyTexture(s->wtex);
        s->wtex = SDL_CreateTexture(s->wr, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, w, h);
        if (!s->wtex)
            return simt_errf(err, SIMT_E_NOMEM, "stage: cannot make the window's texture: %s", SDL_GetError());
    }
    return 0;
}

/* GB/s moved by level lv over the last frames of lane l. */
static double recent_gbs(const slane_t *l, int lv, uint64_t upto)
{
    double bytes = 0, cycles = 0;
    for (int k = 0; k < BW_FRAMES && upto >= (uint64_t)k; k++) {
        const rec_frame_t *f = rec_frame(l->rec, upto - (uint64_t)k);
        if (!f)
            break;
        bytes += f->bytes[lv];
        cycles += (double)f->interval;
    }
    return cycles > 0 ? rate_giga_in_cycles(bytes, cycles, l->clock_mhz) : 0.0;
}

static void fill_model(stage_t *s)
{
    view_model_t *m = &s->model;
    memset(m, 0, sizeof *m);
    m->width = s->width;
    m->height = s->height;
    m->zoom = s->zoom;
    m->dark = s->dark;
    m->zh = s->zh;
    m->detail = s->detail;
    m->help = s->help;
    m->paused = s->paused;
    m->lagging = s->lagging;
    m->scrubbing = s->back > 0;
    m->waiting = s->waiting;
    m->speed_us = speeds[s->speed] * (s->ff < 1.0 ? s->ff : 1.0);   /* a paced run: its slower speed */
    m->title_en = s->title_en;
    m->title_zh = s->title_zh;
    m->step_en = s->step_en;
    m->step_zh = s->step_zh;
    m->say_en = s->say_en;
    m->say_zh = s->say_zh;
    m->status = s->status[0] && (s->headless || now_s() < s->status_until) ? s->status : NULL;
    /* a tooltip shows while the mouse moves and for 6 s after, so a pointer
     * left on the picture does not cover it for the rest of the lesson */
    int tip = !s->headless && now_s() - s->mouse_moved < 6.0;
    m->mouse_x = tip ? s->mouse_x : -1;
    m->mouse_y = s->headless ? -1 : s->mouse_y;
    m->focus = -1;
    m->picture = s->picture;
    m->board = s->board.kind != VIEW_BOARD_NONE ? &s->board : NULL;
    m->hold_run = s->hold_run;
    m->auto_left = s->o.auto_s > 0 && (s->waiting || s->hold_run) ? s->auto_left : 0.0;
    m->knobs_en = s->knobs_en[0] ? s->knobs_en : NULL;
    m->knobs_zh = s->knobs_zh[0] ? s->knobs_zh : NULL;
    m->knobs_off = s->knobs_en[0] && !s->knobs_used;
    if (m->status && s->zh && s->status_zh[0])
        m->status = s->status_zh;
    m->nlanes = s->nlanes;
    for (int i = 0; i < s->nlanes; i++) {
        slane_t *l = &s->lane[i];
        view_lane_t *v = &m->lane[i];
        v->is_cpu = l->is_cpu;
        v->gdesc = &l->gd;
        v->cdesc = &l->cd;
        v->kernel = l->kernel;
        v->label_en = l->label_en[0] ? l->label_en : NULL;
        v->label_zh = l->label_zh[0] ? l->label_zh : NULL;
        v->rec = l->rec;
        uint64_t total = rec_total(l->rec);
        uint64_t back = (uint64_t)s->back < total ? (uint64_t)s->back : (total ? total - 1 : 0);
        v->frame = total ? total - 1 - back : 0;
        const rec_frame_t *f = rec_frame(l->rec, v->frame);
        v->done = l->done && back == 0;
        v->failed = l->failed;
        v->time_us = f ? (double)f->cycle / l->clock_mhz : 0.0;
        v->total_us = l->total_us;
        v->fast_forward = !l->done && !l->failed ? s->ff : 1.0;
        v->out = l->out;
        v->rows = l->rows;
        v->cols = l->cols;
        v->out_n = l->out_n;
        v->vmin = l->vmin;
        v->vmax = l->vmax;
        memcpy(v->gflops_hist, l->hist, sizeof v->gflops_hist);
        v->nhist = l->nhist;
        if (!l->is_cpu) {
            /* a Tensor Core kernel is measured against the Tensor Core peak
             * of its format, anything else against the FP32 lanes' */
            v->peak_tc = l->tc_peak_gflops > 0;
            v->peak_gflops = v->peak_tc ? l->tc_peak_gflops
                                        : (double)l->gd.fp32_lanes_per_sm * 2.0 * l->gd.sms * l->gd.clock_mhz / 1e3;
            for (int lv = 0; lv < GPU_LEVEL_COUNT; lv++)
                v->bw_now[lv] = total ? recent_gbs(l, lv, v->frame) : 0.0;
            v->bw_peak[GPU_LEVEL_DRAM] = l->gd.dram_gbps;
            v->bw_peak[GPU_LEVEL_L2] = l->gd.l2_bytes_per_clk * l->gd.clock_mhz / 1e3;
            v->bw_peak[GPU_LEVEL_LSU] = (double)l->gd.line_bytes * l->gd.sms * l->gd.clock_mhz / 1e3;
            if (m->focus < 0)
                m->focus = i;
        } else {
            v->peak_gflops = (double)l->cd.cores * l->cd.simd_width * 2.0 * l->cd.fma_ports * l->cd.clock_mhz / 1e3;
        }
    }
}

static void draw(stage_t *s)
{
    double t0 = now_s();
    fill_model(s);
    view_draw(s->soft, s->text, &s->model);
    SDL_RenderPresent(s->soft);
    if (s->win) {
        SDL_UpdateTexture(s->wtex, NULL, s->surface->pixels, s->surface->pitch);
        SDL_RenderClear(s->wr);
        SDL_RenderCopy(s->wr, s->wtex, NULL, NULL);
        SDL_RenderPresent(s->wr);
    }
    s->frames++;
    s->draw_ms += (now_s() - t0) * 1e3;
    if (s->headless && s->o.frames_dir && s->frames % (unsigned long)(s->o.every > 0 ? s->o.every : 1) == 0) {
        char path[1024];
        snprintf(path, sizeof path, "%s/frame-%06lu.png", s->o.frames_dir, s->frames);
        if (IMG_SavePNG(s->surface, path) != 0)
            fprintf(stderr, "simtlab: cannot write %s: %s\n", path, IMG_GetError());
    }
}

static int save_png(stage_t *s, const char *path, simt_err_t *err)
{
    fill_model(s);
    view_draw(s->soft, s->text, &s->model);
    SDL_RenderPresent(s->soft);
    if (IMG_SavePNG(s->surface, path) != 0)
        return simt_errf(err, SIMT_E_USAGE, "cannot write the screenshot '%s': %s", path, IMG_GetError());
    return 0;
}

static void screenshot(stage_t *s)
{
    char name[64], msg[sizeof ((simt_err_t *)0)->msg + 64];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(name, sizeof name, "simtlab-%Y%m%d-%H%M%S.png", &tm);
    for (int k = 2; k < 100; k++) {   /* two in one second: a number after it */
        FILE *f = fopen(name, "rb");
        if (!f)
            break;
        fclose(f);
        strftime(name, sizeof name, "simtlab-%Y%m%d-%H%M%S", &tm);
        snprintf(name + strlen(name), sizeof name - strlen(name), "-%d.png", k);
    }
    simt_err_t e;
    s->status[0] = '\0';
    if (save_png(s, name, &e) == 0)
        snprintf(msg, sizeof msg, s->zh ? "截图已保存：%s" : "screenshot saved: %s", name);
    else
        snprintf(msg, sizeof msg, "%s", e.msg);
    set_status(s, msg);
    printf("simtlab: %s\n", msg);
}

/* ---- keys --------------------------------------------------------------- */

/* Handle window events; knob keys become script events. Returns 1 when a
 * knob key was pressed (an interruptible play may end). */
static int handle_events(stage_t *s, int *step)
{
    SDL_Event e;
    int knob = 0;
    if (s->headless)
        return 0;
    while (SDL_PollEvent(&e)) {
        if (e.type == SDL_QUIT) {
            s->quit = 1;
        } else if (e.type == SDL_MOUSEMOTION) {
            s->mouse_x = e.motion.x;
            s->mouse_y = e.motion.y;
            s->mouse_moved = now_s();
        } else if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_LEAVE) {
            s->mouse_x = s->mouse_y = -1;
        } else if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
            simt_err_t err;
            int w = e.window.data1 < 640 ? 640 : e.window.data1, h = e.window.data2 < 400 ? 400 : e.window.data2;
            if (make_canvas(s, w, h, &err) != 0) {
                fprintf(stderr, "simtlab: %s\n", err.msg);
                s->quit = 1;
            }
        } else if (e.type == SDL_KEYDOWN) {
            SDL_Keycode k = e.key.keysym.sym;
            if (s->help && k != SDLK_h && k != SDLK_F1 && k != SDLK_q && k != SDLK_ESCAPE) {
                s->help = 0;   /* any key closes the help */
                continue;
            }
            switch (k) {
            case SDLK_SPACE: s->paused = !s->paused; s->back = 0; break;
            case SDLK_RIGHT:
                if (s->back > 0)
                    s->back--;
                else if (s->paused)
                    *step = 1;
                else
                    push_event(s, "next");
                break;
            case SDLK_LEFT:
                if (s->paused)
                    s->back++;
                else
                    push_event(s, "prev");
                break;
            case SDLK_UP: if (s->speed < NSPEEDS - 1) s->speed++; break;
            case SDLK_DOWN: if (s->speed > 0) s->speed--; break;
            case SDLK_LEFTBRACKET: push_event(s, "sms_half"); knob = 1; break;
            case SDLK_RIGHTBRACKET: push_event(s, "sms_double"); knob = 1; break;
            case SDLK_COMMA: push_event(s, "dram_half"); knob = 1; break;
            case SDLK_PERIOD: push_event(s, "dram_double"); knob = 1; break;
            case SDLK_r: push_event(s, "restart"); knob = 1; break;
            case SDLK_PAGEDOWN: s->skip = 1; s->skip_ev = "next"; break;
            case SDLK_PAGEUP: s->skip = 1; s->skip_ev = "prev"; break;
            case SDLK_p: screenshot(s); break;
            case SDLK_l: s->zh = !s->zh; break;
            case SDLK_t: s->dark = !s->dark; break;
            case SDLK_PLUS: case SDLK_EQUALS: case SDLK_KP_PLUS:
                if (s->zoom < 2.0) s->zoom += 0.125;
                break;
            case SDLK_MINUS: case SDLK_KP_MINUS:
                if (s->zoom > 0.625) s->zoom -= 0.125;
                break;
            case SDLK_TAB: s->detail = !s->detail; break;
            case SDLK_h: case SDLK_F1: s->help = !s->help; break;
            case SDLK_q: case SDLK_ESCAPE: s->quit = 1; break;
            default: break;
            }
        }
    }
    return knob;
}

/* ---- the clock and the runs -------------------------------------------- */

static int lane_running(const slane_t *l)
{
    if (!l->lane)
        return 0;
    return l->is_cpu ? cpu_run_status(l->lane->cpu) == CPU_RUN_MORE : gpu_run_status(l->lane->gpu) == GPU_RUN_MORE;
}

static uint64_t lane_cycle(const slane_t *l)
{
    return l->is_cpu ? cpu_run_cycle(l->lane->cpu) : gpu_run_cycle(l->lane->gpu);
}

/* Take a frame of lane l and copy its output. */
static void capture(slane_t *l)
{
    if (l->is_cpu)
        rec_capture_cpu(l->rec, l->lane->cpu);
    else
        rec_capture_gpu(l->rec, l->lane->gpu);
    const rec_frame_t *f = rec_frame(l->rec, rec_total(l->rec) - 1);
    if (l->out && l->lane->out) {
        memcpy(l->out, l->lane->out, l->out_n * sizeof *l->out);
        for (uint64_t k = 0; k < l->out_n; k++) {
            float v = l->out[k];
            if (v != 0.0f && isfinite(v)) {
                if (v < l->vmin)
                    l->vmin = v;
                if (v > l->vmax)
                    l->vmax = v;
            }
        }
    }
    /* averaged over the last BW_FRAMES frames, like the bandwidth bars */
    uint64_t last = rec_total(l->rec) - 1, first = last >= BW_FRAMES ? last - BW_FRAMES : 0;
    const rec_frame_t *f0 = rec_frame(l->rec, first);
    double gflops = l->nhist ? l->hist[l->nhist - 1] : 0.0;
    if (f0 && f->cycle > f0->cycle)
        gflops = rate_giga_in_cycles((double)(f->flops - f0->flops), (double)(f->cycle - f0->cycle), l->clock_mhz);
    if (l->nhist == VIEW_HISTORY) {
        memmove(l->hist, l->hist + 1, (VIEW_HISTORY - 1) * sizeof l->hist[0]);
        l->nhist--;
    }
    l->hist[l->nhist++] = gflops;
    int status = l->is_cpu ? cpu_run_status(l->lane->cpu) : gpu_run_status(l->lane->gpu);
    if (status != 0 && !l->done && !l->failed) {
        l->done = status > 0;
        l->failed = status < 0;
        /* finished: its own count of cycles; stopped: where it stopped */
        uint64_t end = !l->done ? f->cycle
                       : l->is_cpu ? cpu_run_stats(l->lane->cpu)->cycles : gpu_run_stats(l->lane->gpu)->cycles;
        l->total_us = (double)end / l->clock_mhz;
    }
}

/* Advance lane l to cycle `target`; with a deadline (real seconds, 0:
 * none) it may stop short. Returns 1 if it stopped short. */
static int advance(slane_t *l, uint64_t target, double deadline)
{
    simt_err_t e;
    for (;;) {
        int rc = l->is_cpu ? cpu_run_advance(l->lane->cpu, target, deadline > 0 ? 20000 : 0, &e)
                           : gpu_run_advance(l->lane->gpu, target, deadline > 0 ? 2000 : 0, &e);
        if (rc != 0 || lane_cycle(l) >= target)
            return 0;
        if (deadline > 0 && now_s() > deadline)
            return 1;
    }
}

/* Move the clock by dt real seconds and every running lane with it. */
static void tick(stage_t *s, double dt)
{
    double t0 = now_s();
    int gpus_running = 0, cpus_running = 0;
    for (int i = 0; i < s->nlanes; i++) {
        if (lane_running(&s->lane[i]))
            *(s->lane[i].is_cpu ? &cpus_running : &gpus_running) += 1;
    }
    /* Fast-forward, doubling every half second (and said on screen): the
     * CPU once no GPU is left running, so that the class does not wait
     * minutes for what the GPU did in a blink; and any run still going
     * after LONG_PLAY seconds (Up/Down change the speed as well) */
    s->play_elapsed += dt;
    if ((!gpus_running && cpus_running) || s->play_elapsed > LONG_PLAY)
        s->ff *= pow(2.0, dt / 0.5);
    if (s->ff > 1e7)
        s->ff = 1e7;
    double target = s->t_us + speeds[s->speed] * dt * s->ff;
    double deadline = s->headless ? 0.0 : t0 + HOST_BUDGET_MS / 1e3;
    double reached = target;
    int short_ = 0;
    for (int i = 0; i < s->nlanes; i++) {
        slane_t *l = &s->lane[i];
        if (!lane_running(l))
            continue;
        double want = target * l->clock_mhz;
        uint64_t cyc = want >= 9e18 ? UINT64_MAX : (uint64_t)want;
        if (advance(l, cyc, deadline)) {
            short_ = 1;
            double got = (double)lane_cycle(l) / l->clock_mhz;
            if (got < reached)
                reached = got;
        }
    }
    /* a lane that could not keep up holds the clock back, so that every
     * lane stays on one time line (the others wait for it next frame) */
    s->t_us = reached > s->t_us ? reached : s->t_us;
    s->lagging = short_;
    for (int i = 0; i < s->nlanes; i++)
        if (s->lane[i].lane && (lane_running(&s->lane[i]) || !s->lane[i].done))
            capture(&s->lane[i]);
    s->sim_ms += (now_s() - t0) * 1e3;
}

static void pace(stage_t *s)
{
    if (s->headless)
        return;
    Uint64 f = SDL_GetPerformanceFrequency(), now = SDL_GetPerformanceCounter();
    double spent = (double)(now - s->last_tick) / (double)f;
    if (spent < 1.0 / 60.0)
        SDL_Delay((Uint32)((1.0 / 60.0 - spent) * 1000.0));
}

static double frame_dt(stage_t *s)
{
    if (s->headless)
        return HEADLESS_DT;
    Uint64 now = SDL_GetPerformanceCounter();
    double dt = (double)(now - s->last_tick) / (double)SDL_GetPerformanceFrequency();
    s->last_tick = now;
    return dt > 0.1 ? 0.1 : dt;
}

static void free_lanes(stage_t *s)
{
    for (int i = 0; i < s->nlanes; i++) {
        rec_free(s->lane[i].rec);
        free(s->lane[i].out);
    }
    memset(s->lane, 0, sizeof s->lane);
    s->nlanes = 0;
}

/* ---- lstage_ops --------------------------------------------------------- */

static const char *hold_before_run(stage_t *s);

/* the keys that change the GPU of a lesson's step, and R */
static int is_knob_event(const char *ev)
{
    static const char *const knobs[] = { "sms_half", "sms_double", "dram_half", "dram_double", "restart" };
    for (size_t i = 0; ev && i < sizeof knobs / sizeof knobs[0]; i++)
        if (strcmp(ev, knobs[i]) == 0)
            return 1;
    return 0;
}

/* The datasheet (dense) Tensor Core peak in GFLOP/s of the fastest format
 * kernel p multiplies in (wmma.mma or wgmma), or 0 when it has none. */
static double tc_peak_gflops(const gpu_desc_t *d, const isa_program_t *p)
{
    uint32_t best = 0;
    for (uint32_t pc = 0; p && pc < p->ncode; pc++) {
        const isa_instr_t *in = &p->code[pc];
        if (in->op != OP_WMMA_MMA && in->op != OP_WGMMA)
            continue;
        uint32_t r = in->type == T_F16 ? d->tc_flops_per_clk_f16 : in->type == T_BF16 ? d->tc_flops_per_clk_bf16
                   : in->type == T_TF32 ? d->tc_flops_per_clk_tf32 : d->tc_flops_per_clk_fp8;
        if (r > best)
            best = r;
    }
    return (double)best * d->sms * d->clock_mhz / 1e3;
}

static int op_play(void *self, lstage_lane_t *lanes, int n, int interruptible)
{
    stage_t *s = self;
    simt_err_t e;
    free_lanes(s);
    if (s->picture)
        SDL_FreeSurface(s->picture);
    s->picture = NULL;
    s->back = 0;
    s->t_us = 0.0;
    s->ff = 1.0;
    s->play_elapsed = 0.0;
    for (int i = 0; i < n && i < LSTAGE_MAX_LANES; i++)   /* pace: a short run slowed (the header says so) */
        if (lanes[i].pace_us > 0 && lanes[i].pace_us < speeds[s->speed] * s->ff)
            s->ff = lanes[i].pace_us / speeds[s->speed];
    for (int i = 0; i < n && i < LSTAGE_MAX_LANES; i++) {
        slane_t *l = &s->lane[i];
        l->lane = &lanes[i];
        l->is_cpu = lanes[i].cpu != NULL;
        snprintf(l->kernel, sizeof l->kernel, "%s", lanes[i].kernel);
        memcpy(l->label_en, s->label_en, sizeof l->label_en);
        memcpy(l->label_zh, s->label_zh, sizeof l->label_zh);
        if (l->is_cpu) {
            l->cd = *cpu_run_desc(lanes[i].cpu);
            l->clock_mhz = l->cd.clock_mhz;
            l->rec = rec_create(cpu_run_cores(lanes[i].cpu) ? cpu_run_cores(lanes[i].cpu) : 1, 1, REC_FRAMES, &e);
        } else {
            l->gd = *gpu_run_desc(lanes[i].gpu);
            l->clock_mhz = l->gd.clock_mhz;
            l->tc_peak_gflops = tc_peak_gflops(&l->gd, gpu_run_program(lanes[i].gpu));
            /* every SM of the chip and every warp slot it has, used or not */
            l->rec = rec_create(l->gd.sms, l->gd.max_threads_per_sm / 32 ? l->gd.max_threads_per_sm / 32 : 1,
                                REC_FRAMES, &e);
            if (l->rec && (gpu_run_enable_meters(lanes[i].gpu, &e) != 0 ||
                           gpu_run_add_observer(lanes[i].gpu, rec_observe_gpu, l->rec, 0, &e) != 0)) {
                rec_free(l->rec);
                l->rec = NULL;
            }
        }
        if (!l->rec) {   /* cannot watch it: run it to the end unseen */
            fprintf(stderr, "simtlab: stage: %s\n", e.msg);
            advance(l, UINT64_MAX, 0);
            l->lane = NULL;
            continue;
        }
        if (lanes[i].out && lanes[i].out_n) {
            l->out = calloc(lanes[i].out_n, sizeof *l->out);
            l->rows = lanes[i].rows;
            l->cols = lanes[i].cols;
            l->out_n = l->out ? lanes[i].out_n : 0;
            l->vmin = INFINITY;
            l->vmax = -INFINITY;
        }
        s->nlanes++;
    }
    for (int i = 0; i < s->nlanes; i++)
        if (s->lane[i].lane)
            capture(&s->lane[i]);
    int how = LSTAGE_FINISHED;
    /* a step's first run waits for Space, so that its words are read first */
    if (!s->headless && s->hold_runs && s->step_fresh && !s->skip) {
        s->step_fresh = 0;
        const char *ev = hold_before_run(s);
        if (ev && strcmp(ev, "quit") == 0)
            how = LSTAGE_QUIT;
        else if (is_knob_event(ev)) {   /* not started: the step runs again on the changed GPU */
            push_event(s, ev);
            for (int i = 0; i < s->nlanes; i++)
                s->lane[i].lane = NULL;
            return LSTAGE_KNOB;
        }
        for (int i = 0; i < s->nlanes; i++)   /* what the run uses (tests/window/lesson.sh reads it) */
            if (s->lane[i].lane && !s->lane[i].is_cpu)
                printf("simtlab: %s: %s on %s with %u SMs\n",
                       s->skip ? "the run goes on unwatched (PageDown / PageUp)" : "the run starts",
                       s->lane[i].kernel, s->lane[i].gd.name, s->lane[i].gd.sms);
        fflush(stdout);
    }
    s->step_fresh = 0;
    s->last_tick = SDL_GetPerformanceCounter();
    /* headless without frames to write: nobody watches, run to the end */
    int watch = !s->headless || s->o.frames_dir;
    for (; how != LSTAGE_QUIT;) {
        int running = 0;
        for (int i = 0; i < s->nlanes; i++)
            running |= lane_running(&s->lane[i]);
        if (!running)
            break;
        if (!watch) {
            for (int i = 0; i < s->nlanes; i++)
                if (lane_running(&s->lane[i]))
                    advance(&s->lane[i], UINT64_MAX, 0);
            for (int i = 0; i < s->nlanes; i++)
                if (s->lane[i].lane)
                    capture(&s->lane[i]);
            break;
        }
        int step = 0;
        double dt = frame_dt(s);
        if (handle_events(s, &step) && interruptible) {
            how = LSTAGE_INTERRUPTED;
            break;
        }
        if (s->quit) {
            how = LSTAGE_QUIT;
            break;
        }
        if (s->skip) {   /* PageDown / PageUp: the rest of this step unwatched */
            watch = 0;
            continue;
        }
        if (!s->paused)
            tick(s, dt);
        else if (step)
            tick(s, 1.0 / 30.0);
        draw(s);
        pace(s);
    }
    for (int i = 0; i < s->nlanes; i++)
        s->lane[i].lane = NULL;   /* the binding ends the runs; the copies stay */
    if (how != LSTAGE_QUIT && !s->headless)
        draw(s);
    return how;
}

static void op_say(void *self, const char *en, const char *zh)
{
    stage_t *s = self;
    free(s->say_en);
    free(s->say_zh);
    s->say_en = dup_str(en);
    s->say_zh = dup_str(zh);
    const char *shown = s->zh && zh ? zh : en;
    fputs(shown ? shown : "", stdout);
    fputc('\n', stdout);
    fflush(stdout);
    if (!s->headless || s->o.frames_dir)
        draw(s);
}

static void op_title(void *self, const char *en, const char *zh, const char *step_en, const char *step_zh)
{
    stage_t *s = self;
    free(s->title_en);
    free(s->title_zh);
    free(s->step_en);
    free(s->step_zh);
    s->title_en = dup_str(en);
    s->title_zh = dup_str(zh);
    s->step_en = dup_str(step_en);
    s->step_zh = dup_str(step_zh);
    s->board.kind = VIEW_BOARD_NONE;   /* a new step: its own chart, its own runs */
    s->label_en[0] = s->label_zh[0] = '\0';
    s->step_fresh = 1;
    s->skip = 0;
    const char *shown = s->zh && zh ? zh : en;
    const char *step = s->zh && step_zh ? step_zh : step_en;
    printf("== %s%s%s\n", shown ? shown : "", step ? "  " : "", step ? step : "");
    fflush(stdout);
}

static const char *hold(stage_t *s);

/* Before a step's first run: the lanes are on the stage, not started,
 * until Space (or Right, or --auto's time). PageDown / PageUp skip the
 * step's runs (s->skip stays set); Q returns "quit". */
static const char *hold_before_run(stage_t *s)
{
    s->nev = 0;
    s->paused = 0;
    s->hold_run = 1;
    const char *ev = hold(s);
    s->hold_run = 0;
    s->paused = 0;
    s->nev = 0;
    return ev;
}

/* Hold the picture until the user goes on: Space, Right or PageDown give
 * "next"; knob keys and PageUp give their own event; Q gives "quit". */
static const char *op_pause(void *self)
{
    stage_t *s = self;
    if (s->headless)
        return NULL;
    s->nev = 0;   /* keys pressed before the pause were for the run */
    s->paused = 0;
    if (s->skip) {   /* PageDown / PageUp during the step's runs */
        s->skip = 0;
        return s->skip_ev;
    }
    s->waiting = 1;
    const char *r = hold(s);
    s->waiting = 0;
    draw(s);
    return r;
}

static const char *hold(stage_t *s)
{
    const char *ev;
    s->auto_left = s->o.auto_s;
    for (;;) {
        int step = 0;
        double dt = frame_dt(s);
        handle_events(s, &step);
        if (s->quit)
            return "quit";
        if (s->skip) {   /* PageDown / PageUp (before a run: its step's runs are skipped) */
            if (!s->hold_run)
                s->skip = 0;
            return s->skip_ev;
        }
        if (s->o.auto_s > 0 && !s->help && (s->auto_left -= dt) <= 0)
            return "next";
        if (s->paused || step) {   /* Space (or Right) while holding: go on */
            s->paused = 0;
            s->back = 0;
            return "next";
        }
        if ((ev = pop_event(s)) != NULL)
            return ev;
        draw(s);
        pace(s);
    }
}

static const char *op_event(void *self)
{
    stage_t *s = self;
    if (s->quit)
        return "quit";
    return pop_event(s);
}

/* Draw the chart once, at the size of the stage's body, and keep it. */
static int op_roofline(void *self, const struct roofline *rf, simt_err_t *err)
{
    stage_t *s = self;
    roofline_t r = *rf;
    /* the size the view shows it at (stage_view.c: header 52, lesson 150,
     * a margin of 8 around it, at the zoom), so it is drawn 1:1 */
    int lesson = (int)lround(150 * s->zoom) > s->height / 3 ? s->height / 3 : (int)lround(150 * s->zoom);
    r.width = s->width - (int)lround(16 * s->zoom);
    r.height = s->height - (int)lround(52 * s->zoom) - lesson - (int)lround(16 * s->zoom);
    if (r.width < 320 || r.height < 200)
        r.width = 320, r.height = 200;
    SDL_Surface *pic = SDL_CreateRGBSurfaceWithFormat(0, r.width, r.height, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!pic)
        return simt_errf(err, SIMT_E_NOMEM, "stage: no memory for the chart");
    SDL_Rect all = { 0, 0, r.width, r.height };
    if (roofline_draw(&r, pic, &all, err) != 0) {
        SDL_FreeSurface(pic);
        return -1;
    }
    if (s->picture)
        SDL_FreeSurface(s->picture);
    s->picture = pic;
    if (!s->headless)
        draw(s);
    return 0;
}

static void op_board(void *self, const view_board_t *b)
{
    stage_t *s = self;
    if (b)
        s->board = *b;
    else
        s->board.kind = VIEW_BOARD_NONE;
    if (!s->headless || s->o.frames_dir)
        draw(s);
}

static void op_label(void *self, const char *en, const char *zh)
{
    stage_t *s = self;
    snprintf(s->label_en, sizeof s->label_en, "%s", en ? en : "");
    snprintf(s->label_zh, sizeof s->label_zh, "%s", zh ? zh : (en ? en : ""));
}

static void op_status(void *self, const char *en, const char *zh)
{
    stage_t *s = self;
    set_status(s, en ? en : "");
    snprintf(s->status_zh, sizeof s->status_zh, "%s", zh ? zh : "");
    printf("simtlab: %s\n", s->zh && zh ? zh : (en ? en : ""));
    fflush(stdout);
}

static void op_knobs(void *self, const char *en, const char *zh, int used)
{
    stage_t *s = self;
    snprintf(s->knobs_en, sizeof s->knobs_en, "%s", en ? en : "");
    snprintf(s->knobs_zh, sizeof s->knobs_zh, "%s", zh ? zh : (en ? en : ""));
    s->knobs_used = used;
}

static void op_hold_runs(void *self, int on)
{
    stage_t *s = self;
    s->hold_runs = on;
}

static const char *op_lang(void *self)
{
    const stage_t *s = self;
    return s->zh ? "zh" : "en";
}

/* ---- open / close ------------------------------------------------------- */

stage_t *stage_open(const stage_opts_t *o, simt_err_t *err)
{
    stage_t *s = calloc(1, sizeof *s);
    if (!s) {
        simt_errf(err, SIMT_E_NOMEM, "stage: host out of memory");
        return NULL;
    }
    s->o = *o;
    s->speed = DEFAULT_SPEED;
    s->detail = 1;
    s->zoom = 1.0;
    s->ff = 1.0;
    s->mouse_x = s->mouse_y = -1;
    int lang_set = 0;
    if (o->lang) {
        s->zh = strcmp(o->lang, "zh") == 0;
        lang_set = 1;
    }
    int w = o->width > 0 ? o->width : 1280, h = o->height > 0 ? o->height : 720;
    /* SIMTLAB_WINDOW=WxH (e.g. 1024x600, 1920x1080) and SIMTLAB_THEME=dark:
     * to look at a lesson as a classroom would, headless too */
    const char *ws = getenv("SIMTLAB_WINDOW");
    int ew, eh;
    if (ws && sscanf(ws, "%dx%d", &ew, &eh) == 2 && ew >= 640 && eh >= 400 && ew <= 7680 && eh <= 4320) {
        w = ew;
        h = eh;
    }
    const char *theme = getenv("SIMTLAB_THEME");
    s->headless = o->headless;
    if (!s->headless) {
        const char *drv = getenv("SDL_VIDEODRIVER");
        int display = (getenv("DISPLAY") && getenv("DISPLAY")[0]) ||
                      (getenv("WAYLAND_DISPLAY") && getenv("WAYLAND_DISPLAY")[0]) || (drv && drv[0]);
        if (!display || SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
            fprintf(stderr, "simtlab: no display%s%s: drawing off-screen instead (headless)\n",
                    display ? ": " : "", display ? SDL_GetError() : "");
            s->headless = 1;
        } else {
            s->win = SDL_CreateWindow(o->title ? o->title : "simtlab", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                      w, h, SDL_WINDOW_RESIZABLE);   /* window pixels = mouse coordinates */
            if (s->win)
                s->wr = SDL_CreateRenderer(s->win, -1, SDL_RENDERER_PRESENTVSYNC);
            if (s->win && !s->wr)
                s->wr = SDL_CreateRenderer(s->win, -1, SDL_RENDERER_SOFTWARE);
            if (!s->win || !s->wr) {
                fprintf(stderr, "simtlab: cannot open a window (%s): drawing off-screen instead\n", SDL_GetError());
                if (s->wr)
                    SDL_DestroyRenderer(s->wr);
                if (s->win)
                    SDL_DestroyWindow(s->win);
                s->win = NULL;
                s->wr = NULL;
                SDL_QuitSubSystem(SDL_INIT_VIDEO);
                s->headless = 1;
            }
        }
    }
    if (!s->headless) {
        load_settings(s, &lang_set);
        char icon[1024];
        if (arch_find_file("assets/icon.png", icon, sizeof icon) == 0) {
            SDL_Surface *ic = IMG_Load(icon);
            if (ic) {
                SDL_SetWindowIcon(s->win, ic);
                SDL_FreeSurface(ic);
            }
        }
    }
    if (!lang_set)
        s->zh = strcmp(lstage_lang_from_env(), "zh") == 0;
    if (theme && theme[0])
        s->dark = strcmp(theme, "dark") == 0;
    if (make_canvas(s, w, h, err) != 0) {
        simt_err_t e2;
        stage_close(s, &e2);
        return NULL;
    }
    if (!text_has_cjk(s->text))
        fprintf(stderr, "simtlab: warning: no Chinese font found (install fonts-wqy-microhei); Chinese text "
                        "will show as boxes\n");
    s->ops = (lstage_ops_t){ .self = s, .interactive = !s->headless, .play = op_play, .say = op_say, .title = op_title,
                             .pause = op_pause, .event = op_event, .lang = op_lang,
                             .roofline = op_roofline, .board = op_board, .label = op_label,
                             .status = op_status, .knobs = op_knobs, .hold_runs = op_hold_runs };
    s->last_tick = SDL_GetPerformanceCounter();
    if (s->win) {
        SDL_SetWindowMinimumSize(s->win, 640, 400);
        draw(s);
    }
    return s;
}

const lstage_ops_t *stage_ops(stage_t *s) { return &s->ops; }

void stage_set_screenshot(stage_t *s, const char *path)
{
    snprintf(s->shot, sizeof s->shot, "%s", path);
    s->o.screenshot = s->shot;
}
int stage_headless(const stage_t *s) { return s->headless; }

int stage_shown(const stage_t *s)
{
    return s->title_en || s->say_en || s->nlanes || s->picture || s->board.kind != VIEW_BOARD_NONE;
}
unsigned long stage_frames(const stage_t *s) { return s->frames; }

void stage_frame_times(const stage_t *s, double *draw_ms, double *sim_ms)
{
    double n = s->frames ? (double)s->frames : 1.0;
    *draw_ms = s->draw_ms / n;
    *sim_ms = s->sim_ms / n;
}

int stage_close(stage_t *s, simt_err_t *err)
{
    int rc = 0;
    if (!s)
        return 0;
    if (s->o.screenshot && s->soft && stage_shown(s)) {
        s->status[0] = '\0';
        rc = save_png(s, s->o.screenshot, err);
    }
    if (s->win)
        save_settings(s);
    if (getenv("SIMTLAB_FRAME_STATS") && s->frames) {
        double d, m;
        stage_frame_times(s, &d, &m);
        fprintf(stderr, "stage: %lu frames, %.2f ms drawing + %.2f ms simulating per frame\n", s->frames, d, m);
    }
    free_lanes(s);
    if (s->picture)
        SDL_FreeSurface(s->picture);
    text_close(s->text);
    if (s->soft)
        SDL_DestroyRenderer(s->soft);
    if (s->surface)
        SDL_FreeSurface(s->surface);
    if (s->wtex)
        SDL_DestroyTexture(s->wtex);
    if (s->wr)
        SDL_DestroyRenderer(s->wr);
    if (s->win) {
        SDL_DestroyWindow(s->win);
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
    }
    free(s->title_en);
    free(s->title_zh);
    free(s->step_en);
    free(s->step_zh);
    free(s->say_en);
    free(s->say_zh);
    free(s);
    return rc;
}
