/* test_stage.c - the stage (sim/app/stage.c) headless: a race of a CPU
 * core and a GPU gives the same statistics and results as launches
 * without a stage; the frames are the same on every run; the CPU is
 * fast-forwarded once the GPU is done; and a frame in the middle of the
 * race matches its golden picture (tests/golden/stage_race_040.png).
 *
 * After an intended change to the picture, look at the new frame and run
 * SIMT_UPDATE_GOLDEN=1 build/tests/test_stage to replace the golden one. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <SDL.h>
#include <SDL_image.h>
#include <sys/stat.h>

#include "chart.h"
#include "cpu.h"
#include "roofline.h"
#include "stage.h"
#include "stage_view.h"
#include "support.h"

#define N 32
#define FRAMES_DIR "build-test-stage-frames"   /* under the source tree's working directory */
#define GOLDEN "tests/golden/stage_race_040.png"

typedef struct scene {
    gpu_t *g;
    cpu_t *c;
    isa_program_t prog;
    uint32_t ga[4], ca[4];     /* A, B, C, n on each side */
} scene_t;

static void scene_init(scene_t *s)
{
    simt_err_t e;
    float host[N * N];
    for (int i = 0; i < N * N; i++)
        host[i] = (float)((i * 37) % 17) / 8.0f - 1.0f;
    s->g = support_gpu(NULL);
    cpu_desc_t cd;
    cpu_desc_default(&cd);
    s->c = cpu_create(&cd, &e);
    assert_non_null(s->c);
    if (asm_assemble_file("lessons/kernels/matmul_tiled16.s", &s->prog, &e) != 0)
        fail_msg("%s", e.msg);
    const char *names[3] = { "A", "B", "C" };
    for (int side = 0; side < 2; side++) {
        uint32_t *a = side ? s->ca : s->ga;
        for (int k = 0; k < 3; k++)
            a[k] = support_buffer(s->g, names[k], k < 2 ? host : NULL, sizeof host);
        a[3] = N;
    }
}

static void scene_free(scene_t *s)
{
    isa_program_free(&s->prog);
    cpu_free(s->c);
    gpu_free(s->g);
}

static void launch_cfg(uint32_t grid[3], uint32_t block[3])
{
    grid[0] = grid[1] = N / 16;
    grid[2] = 1;
    block[0] = block[1] = 16;
    block[2] = 1;
}

/* what race() labels its runs with (a sweep's "paths = 8"), or NULL */
static const char *race_label_en, *race_label_zh;

/* Race the CPU against the GPU on the stage; stats out. */
static int race_expect = LSTAGE_FINISHED;   /* what play returns (LSTAGE_KNOB: a key before the run) */

static void race(scene_t *s, stage_t *st, gpu_stats_t *gs, cpu_stats_t *cs)
{
    simt_err_t e;
    gpu_launch_t gl;
    cpu_launch_t cl;
    memset(&gl, 0, sizeof gl);
    memset(&cl, 0, sizeof cl);
    launch_cfg(gl.grid, gl.block);
    launch_cfg(cl.grid, cl.block);
    lstage_lane_t lanes[2];
    memset(lanes, 0, sizeof lanes);
    lanes[0].cpu = cpu_run_begin(s->c, gpu_mem(s->g), &s->prog, &cl, s->ca, 4, &e);
    lanes[1].gpu = gpu_run_begin(s->g, &s->prog, &gl, s->ga, 4, &e);
    assert_non_null(lanes[0].cpu);
    assert_non_null(lanes[1].gpu);
    for (int k = 0; k < 2; k++) {
        uint32_t *a = k ? s->ga : s->ca;
        lanes[k].out = mem_ptr(gpu_mem(s->g), a[2], N * N * 4);
        lanes[k].rows = lanes[k].cols = N;
        lanes[k].out_n = N * N;
        snprintf(lanes[k].kernel, sizeof lanes[k].kernel, "matmul_tiled16");
    }
    const lstage_ops_t *ops = stage_ops(st);
    ops->title(ops->self, "test race", "测试比赛", "step 1 of 1", "第 1 步，共 1 步");
    if (ops->label && race_label_en)
        ops->label(ops->self, race_label_en, race_label_zh);
    ops->say(ops->self, "One CPU core against a GPU with 2 SMs, on a 32 x 32 matrix multiply.",
             "一个 CPU 核心对一块有 2 个 SM 的 GPU，计算 32 x 32 的矩阵乘法。");
    if (race_expect == LSTAGE_KNOB) {   /* a knob key before the run: nothing ran */
        assert_int_equal(ops->play(ops->self, lanes, 2, 0), LSTAGE_KNOB);
        assert_int_equal(gpu_run_status(lanes[1].gpu), GPU_RUN_MORE);
        assert_int_equal(cpu_run_status(lanes[0].cpu), CPU_RUN_MORE);
        cpu_run_end(lanes[0].cpu, cs, &e);
        gpu_run_end(lanes[1].gpu, gs, &e);
        return;
    }
    assert_int_equal(ops->play(ops->self, lanes, 2, 0), LSTAGE_FINISHED);
    assert_int_equal(cpu_run_end(lanes[0].cpu, cs, &e), 0);
    assert_int_equal(gpu_run_end(lanes[1].gpu, gs, &e), 0);
}

static stage_t *open_headless(const char *frames, int every, const char *lang)
{
    simt_err_t e;
    stage_opts_t o = { .headless = 1, .frames_dir = frames, .every = every, .lang = lang };
    stage_t *st = stage_open(&o, &e);
    if (!st)
        fail_msg("stage_open: %s", e.msg);
    assert_true(stage_headless(st));
    return st;
}

/* The same statistics and results as without the stage; the CPU is
 * fast-forwarded (without it, its ~420 us at 20 us per second would take
 * 21 s of stage clock: 630 frames). */
static void test_race_same_results(void **state)
{
    (void)state;
    scene_t s;
    simt_err_t e;
    scene_init(&s);
    gpu_stats_t g1, g2;
    cpu_stats_t c1, c2;
    float out1[N * N], out2[N * N], cout1[N * N];
    gpu_launch_t gl;
    cpu_launch_t cl;
    memset(&gl, 0, sizeof gl);
    memset(&cl, 0, sizeof cl);
    launch_cfg(gl.grid, gl.block);
    launch_cfg(cl.grid, cl.block);
    assert_int_equal(gpu_launch(s.g, &s.prog, &gl, s.ga, 4, &g1, &e), 0);
    assert_int_equal(cpu_launch(s.c, gpu_mem(s.g), &s.prog, &cl, s.ca, 4, &c1, &e), 0);
    support_read(s.g, s.ga[2], out1, sizeof out1);
    support_read(s.g, s.ca[2], cout1, sizeof cout1);
    uint8_t zero[N * N * 4] = { 0 };
    assert_int_equal(gpu_write(s.g, s.ga[2], zero, sizeof zero, &e), 0);
    assert_int_equal(gpu_write(s.g, s.ca[2], zero, sizeof zero, &e), 0);

    stage_t *st = open_headless(FRAMES_DIR, 1000000, "en");   /* watch every frame, write none */
    mkdir(FRAMES_DIR, 0755);
    race(&s, st, &g2, &c2);
    unsigned long frames = stage_frames(st);
    assert_memory_equal(&g1, &g2, sizeof g1);
    assert_memory_equal(&c1, &c2, sizeof c1);
    support_read(s.g, s.ga[2], out2, sizeof out2);
    assert_memory_equal(out1, out2, sizeof out1);
    support_read(s.g, s.ca[2], out2, sizeof out2);
    assert_memory_equal(cout1, out2, sizeof out2);
    assert_true(frames > 10);     /* the race was watched frame by frame */
    assert_true(frames < 300);    /* ... and the CPU's part fast-forwarded */
    assert_int_equal(stage_close(st, &e), 0);
    scene_free(&s);
}

/* Fraction of pixels that differ by more than 24 in some channel. */
static double diff_fraction(SDL_Surface *a, SDL_Surface *b)
{
    if (a->w != b->w || a->h != b->h)
        return 1.0;
    SDL_Surface *x = SDL_ConvertSurfaceFormat(a, SDL_PIXELFORMAT_ARGB8888, 0);
    SDL_Surface *y = SDL_ConvertSurfaceFormat(b, SDL_PIXELFORMAT_ARGB8888, 0);
    uint64_t bad = 0;
    for (int r = 0; r < x->h; r++) {
        const uint8_t *p = (const uint8_t *)x->pixels + (size_t)r * x->pitch;
        const uint8_t *q = (const uint8_t *)y->pixels + (size_t)r * y->pitch;
        for (int c = 0; c < x->w * 4; c += 4) {
            int worst = 0;
            for (int k = 0; k < 3; k++) {
                int d = abs((int)p[c + k] - (int)q[c + k]);
                worst = d > worst ? d : worst;
            }
            bad += worst > 24;
        }
    }
    double f = (double)bad / ((double)x->w * x->h);
    SDL_FreeSurface(x);
    SDL_FreeSurface(y);
    return f;
}

/* Frame 40 (in the middle of the race) twice: the same pixels both times,
 * and the golden picture's within a tolerance for text anti-aliasing. The
 * Chinese frame differs from the English one. */
static void test_golden_frame(void **state)
{
    (void)state;
    simt_err_t e;
    gpu_stats_t gs;
    cpu_stats_t cs;
    SDL_Surface *shot[3] = { NULL, NULL, NULL };
    for (int run = 0; run < 3; run++) {
        scene_t s;
        scene_init(&s);
        mkdir(FRAMES_DIR, 0755);
        remove(FRAMES_DIR "/frame-000040.png");
        stage_t *st = open_headless(FRAMES_DIR, 40, run == 2 ? "zh" : "en");
        race(&s, st, &gs, &cs);
        assert_int_equal(stage_close(st, &e), 0);
        shot[run] = IMG_Load(FRAMES_DIR "/frame-000040.png");
        if (!shot[run])
            fail_msg("frame 40 was not written: %s", IMG_GetError());
        assert_int_equal(shot[run]->w, 1280);
        assert_int_equal(shot[run]->h, 720);
        if (run == 0 && getenv("SIMT_UPDATE_GOLDEN"))
            assert_int_equal(IMG_SavePNG(shot[0], GOLDEN), 0);
        scene_free(&s);
    }
    assert_true(diff_fraction(shot[0], shot[1]) == 0.0);   /* deterministic */
    assert_true(diff_fraction(shot[0], shot[2]) > 0.001);  /* the language changed the picture */
    SDL_Surface *golden = IMG_Load(GOLDEN);
    if (!golden)
        fail_msg("no golden frame %s (%s): look at %s/frame-000040.png and run SIMT_UPDATE_GOLDEN=1 "
                 "build/tests/test_stage", GOLDEN, IMG_GetError(), FRAMES_DIR);
    double d = diff_fraction(shot[0], golden);
    if (d > 0.002)
        fail_msg("frame 40 differs from %s in %.2f%% of its pixels (allowed 0.2%%): see %s/frame-000040.png",
                 GOLDEN, 100.0 * d, FRAMES_DIR);
    for (int i = 0; i < 3; i++)
        SDL_FreeSurface(shot[i]);
    SDL_FreeSurface(golden);
}

/* A roofline shown on the stage replaces the runs in the picture; a bad
 * one is refused with a message naming the entry. */
static void test_roofline_on_stage(void **state)
{
    (void)state;
    simt_err_t e;
    scene_t s;
    gpu_stats_t gs;
    cpu_stats_t cs;
    scene_init(&s);
    mkdir(FRAMES_DIR, 0755);
    stage_t *st = open_headless(NULL, 1, "en");
    race(&s, st, &gs, &cs);
    stage_set_screenshot(st, FRAMES_DIR "/before.png");
    assert_int_equal(stage_close(st, &e), 0);
    st = open_headless(NULL, 1, "en");
    race(&s, st, &gs, &cs);
    roofline_roof_t roofs[1] = { { "FP32", 0.128 } };
    roofline_bw_t bws[1] = { { "DRAM", 0.032 } };
    roofline_point_t pts[1] = { { "matmul", 2.0, 0.01 } };
    roofline_t rf = { .title = "test", .roofs = roofs, .nroofs = 1, .bws = bws, .nbws = 1, .points = pts,
                      .npoints = 1 };
    const lstage_ops_t *ops = stage_ops(st);
    assert_int_equal(ops->roofline(ops->self, &rf, &e), 0);
    pts[0].intensity = -1.0;
    assert_int_equal(ops->roofline(ops->self, &rf, &e), -1);
    support_contains(e.msg, "points[1]");
    stage_set_screenshot(st, FRAMES_DIR "/after.png");
    assert_int_equal(stage_close(st, &e), 0);
    SDL_Surface *a = IMG_Load(FRAMES_DIR "/before.png"), *b = IMG_Load(FRAMES_DIR "/after.png");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(diff_fraction(a, b) > 0.05);
    SDL_FreeSurface(a);
    SDL_FreeSurface(b);
    scene_free(&s);
}

/* Compare the picture at path with golden (or write it with
 * SIMT_UPDATE_GOLDEN=1): within 0.2% of the pixels. */
static void check_golden(const char *path, const char *golden)
{
    SDL_Surface *a = IMG_Load(path);
    if (!a)
        fail_msg("%s was not written: %s", path, IMG_GetError());
    if (getenv("SIMT_UPDATE_GOLDEN"))
        assert_int_equal(IMG_SavePNG(a, golden), 0);
    SDL_Surface *g = IMG_Load(golden);
    if (!g)
        fail_msg("no golden picture %s: look at %s and run SIMT_UPDATE_GOLDEN=1 build/tests/test_stage", golden, path);
    double d = diff_fraction(a, g);
    if (d > 0.002)
        fail_msg("%s differs from %s in %.2f%% of its pixels (allowed 0.2%%)", path, golden, 100.0 * d);
    SDL_FreeSurface(a);
    SDL_FreeSurface(g);
}

/* A chart step (a chart filling in beside the runs, the run labelled) and
 * the summary screen that ends a lesson (a table alone), against their
 * golden pictures; the Chinese chart differs from the English one. */
static void test_board_golden(void **state)
{
    (void)state;
    simt_err_t e;
    gpu_stats_t gs;
    cpu_stats_t cs;
    mkdir(FRAMES_DIR, 0755);
    static const char *const shots[3] = { FRAMES_DIR "/chart.png", FRAMES_DIR "/chart_zh.png",
                                          FRAMES_DIR "/summary.png" };
    for (int k = 0; k < 3; k++) {
        scene_t s;
        scene_init(&s);
        stage_t *st = open_headless(NULL, 1, k == 1 ? "zh" : "en");
        const lstage_ops_t *ops = stage_ops(st);
        race_label_en = "paths = 8";
        race_label_zh = "路径数 = 8";
        race(&s, st, &gs, &cs);
        race_label_en = race_label_zh = NULL;
        view_board_t *b = calloc(1, sizeof *b);
        assert_non_null(b);
        if (k < 2) {
            static const double x[6] = { 1, 2, 4, 8, 16, 32 };
            static const double sim[6] = { 1, 1.93, 3.78, 7.49, NAN, NAN }, real[6] = { 1, 1.9, 3.68, 7.28, 14.4, 28.7 };
            b->kind = VIEW_BOARD_CHART;
            snprintf(b->title[0], sizeof b->title[0], "time relative to one path");
            snprintf(b->title[1], sizeof b->title[1], "相对一条路径的时间");
            snprintf(b->x_label[0], sizeof b->x_label[0], "paths P per warp");
            snprintf(b->x_label[1], sizeof b->x_label[1], "每个 warp 的路径数 P");
            snprintf(b->y_label[0], sizeof b->y_label[0], "time (x the time of P = 1)");
            snprintf(b->y_label[1], sizeof b->y_label[1], "时间（P = 1 时的倍数）");
            b->log_x = 1;
            b->n = 6;
            b->now = 4;
            b->nseries = 2;
            for (int i = 0; i < 6; i++) {
                b->x[i] = x[i];
                snprintf(b->xtext[i], sizeof b->xtext[i], "%g", x[i]);
                b->series[0].y[i] = sim[i];
                b->series[1].y[i] = real[i];
            }
            snprintf(b->series[0].name[0], sizeof b->series[0].name[0], "simtlab");
            snprintf(b->series[1].name[0], sizeof b->series[1].name[0], "H200 measured");
            snprintf(b->series[1].name[1], sizeof b->series[1].name[1], "H200 实测");
            b->series[1].measured = 1;
            snprintf(b->note[0], sizeof b->note[0], "A warp runs its paths one after another.");
            snprintf(b->note[1], sizeof b->note[1], "warp 把各条路径一条接一条地跑。");
        } else {
            ops->title(ops->self, "Lesson 3: Divergence", "第 3 课：分支发散", "summary", "小结");
            b->kind = VIEW_BOARD_TABLE;
            b->alone = 1;
            b->ncols = 2;
            b->nrows = 2;
            snprintf(b->title[0], sizeof b->title[0], "What the simulator showed");
            snprintf(b->cell[0][0][1], VIEW_BOARD_CELL, "claim");
            snprintf(b->cell[0][1][0], VIEW_BOARD_CELL, "✓");
            snprintf(b->cell[0][1][1], VIEW_BOARD_CELL, "time is in proportion to the number of paths");
            snprintf(b->cell[0][2][0], VIEW_BOARD_CELL, "✓");
            snprintf(b->cell[0][2][1], VIEW_BOARD_CELL, "with 32 paths almost every lane idles");
            ops->say(ops->self, "Lesson 3 in one sentence: time grows with the number of paths.", NULL);
        }
        ops->board(ops->self, b);
        free(b);   /* the stage keeps its own copy */
        stage_set_screenshot(st, shots[k]);
        assert_int_equal(stage_close(st, &e), 0);
        scene_free(&s);
    }
    check_golden(shots[0], "tests/golden/stage_chart.png");
    check_golden(shots[2], "tests/golden/stage_summary.png");
    SDL_Surface *en = IMG_Load(shots[0]), *zh = IMG_Load(shots[1]);
    assert_true(diff_fraction(en, zh) > 0.001);   /* the chart's words are translated */
    SDL_FreeSurface(en);
    SDL_FreeSurface(zh);
}

/* Lesson 8's roofline as a board: drawn every frame in the chosen
 * language (English and Chinese frames differ), a point that has not run
 * yet (NaN) is not drawn, and one that has is. */
static void test_roofline_board(void **state)
{
    (void)state;
    simt_err_t e;
    mkdir(FRAMES_DIR, 0755);
    static const char *const shots[3] = { FRAMES_DIR "/rf_one.png", FRAMES_DIR "/rf_two.png",
                                          FRAMES_DIR "/rf_two_zh.png" };
    for (int k = 0; k < 3; k++) {
        stage_t *st = open_headless(NULL, 1, k == 2 ? "zh" : "en");
        const lstage_ops_t *ops = stage_ops(st);
        ops->title(ops->self, "Lesson 8: The roofline", "第 8 课：屋顶线", "step 2 of 3", "第 2 步，共 3 步");
        view_board_t *b = calloc(1, sizeof *b);
        assert_non_null(b);
        b->kind = VIEW_BOARD_ROOFLINE;
        b->alone = 1;
        b->rf_peak = 66908;
        b->rf_bw = 4800;
        b->n = 2;
        b->nseries = 1;
        snprintf(b->title[0], sizeof b->title[0], "roofline of the H200 model (FP32)");
        snprintf(b->title[1], sizeof b->title[1], "H200 模型的屋顶线（FP32）");
        snprintf(b->pname[0], sizeof b->pname[0], "vecadd");
        snprintf(b->pname[1], sizeof b->pname[1], "micro_fma8");
        b->x[0] = 0.0833;
        b->series[0].y[0] = 348;
        b->x[1] = 130;
        b->series[0].y[1] = k == 0 ? NAN : 52396;   /* not run yet / run */
        ops->board(ops->self, b);
        free(b);
        stage_set_screenshot(st, shots[k]);
        assert_int_equal(stage_close(st, &e), 0);
    }
    SDL_Surface *one = IMG_Load(shots[0]), *two = IMG_Load(shots[1]), *zh = IMG_Load(shots[2]);
    assert_non_null(one);
    assert_non_null(two);
    assert_non_null(zh);
    assert_true(diff_fraction(one, two) > 0.0005);   /* the second point and its label */
    assert_true(diff_fraction(two, zh) > 0.002);     /* the words are translated */
    SDL_FreeSurface(one);
    SDL_FreeSurface(two);
    SDL_FreeSurface(zh);
}

/* A window (SDL's dummy video driver) whose steps' first runs wait for
 * Space, with key pressed (queued); skips the test when this SDL build has
 * no dummy driver. */
static stage_t *window_with_key(scene_t *s, SDL_Keycode key)
{
    simt_err_t e;
    stage_opts_t o = { .headless = 0, .lang = "en" };
    stage_t *st = stage_open(&o, &e);
    assert_non_null(st);
    if (stage_headless(st)) {   /* no dummy driver in this SDL build */
        stage_close(st, &e);
        scene_free(s);
        skip();
    }
    const lstage_ops_t *ops = stage_ops(st);
    ops->hold_runs(ops->self, 1);
    SDL_Event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = SDL_KEYDOWN;
    ev.key.keysym.sym = key;
    assert_int_equal(SDL_PushEvent(&ev), 1);
    return st;
}

/* PageDown (or PageUp) during a run in a window (SDL's dummy video
 * driver): the step's runs finish unwatched with the same results, and the
 * wait after them returns "next" ("prev") at once. With hold_runs the
 * first run of a step would wait for Space; PageDown skips that too. */
static void test_pagedown_during_run(void **state)
{
    (void)state;
    simt_err_t e;
    mkdir(FRAMES_DIR, 0755);
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("XDG_CONFIG_HOME", FRAMES_DIR "/config", 1);   /* the window's settings, not the user's */
    for (int k = 0; k < 2; k++) {
        scene_t s;
        scene_init(&s);
        gpu_stats_t g1, g2;
        cpu_stats_t c1, c2;
        stage_t *h = open_headless(NULL, 1, "en");
        race(&s, h, &g1, &c1);
        assert_int_equal(stage_close(h, &e), 0);
        stage_t *st = window_with_key(&s, k == 0 ? SDLK_PAGEDOWN : SDLK_PAGEUP);
        const lstage_ops_t *ops = stage_ops(st);
        unsigned long before = stage_frames(st);
        race(&s, st, &g2, &c2);   /* title (a new step), say, play */
        assert_memory_equal(&g1, &g2, sizeof g1);
        assert_memory_equal(&c1, &c2, sizeof c1);
        /* unwatched: a few frames (the say, the last picture), not the
         * hundreds a watched race draws */
        assert_true(stage_frames(st) - before < 10);
        const char *next = ops->pause(ops->self);
        assert_non_null(next);
        assert_string_equal(next, k == 0 ? "next" : "prev");
        assert_int_equal(stage_close(st, &e), 0);
        scene_free(&s);
    }
    unsetenv("SDL_VIDEODRIVER");
}

/* A knob key ('[', ']', ',', '.', R) while a step's first run waits for
 * Space in a window (SDL's dummy video driver): play returns LSTAGE_KNOB
 * with nothing run, and the key is the next event (the lesson runner makes
 * the step again on the changed GPU); the step's next run waits again. */
static void test_knob_before_run(void **state)
{
    (void)state;
    simt_err_t e;
    mkdir(FRAMES_DIR, 0755);
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("XDG_CONFIG_HOME", FRAMES_DIR "/config", 1);
    static const SDL_Keycode keys[3] = { SDLK_LEFTBRACKET, SDLK_PERIOD, SDLK_r };
    static const char *const evs[3] = { "sms_half", "dram_double", "restart" };
    for (int k = 0; k < 3; k++) {
        scene_t s;
        scene_init(&s);
        gpu_stats_t gs;
        cpu_stats_t cs;
        stage_t *st = window_with_key(&s, keys[k]);
        const lstage_ops_t *ops = stage_ops(st);
        race_expect = LSTAGE_KNOB;
        race(&s, st, &gs, &cs);
        race_expect = LSTAGE_FINISHED;
        const char *got = ops->event(ops->self);
        assert_non_null(got);
        assert_string_equal(got, evs[k]);
        assert_null(ops->event(ops->self));
        assert_int_equal(stage_close(st, &e), 0);
        scene_free(&s);
    }
    unsetenv("SDL_VIDEODRIVER");
}

/* The CPU's clock never runs ahead of its cores: advanced in slices
 * towards a far target (a fast-forwarded stage in a window, whose host
 * budget stops each slice early), cpu_run_cycle stays within the run's
 * final cycle count. It once jumped to the target (hundreds of seconds for
 * a 3 ms job) until the slices caught up. */
static void test_fast_forward_clock(void **state)
{
    (void)state;
    simt_err_t e;
    scene_t s;
    scene_init(&s);
    cpu_launch_t cl;
    memset(&cl, 0, sizeof cl);
    uint32_t block[3];
    launch_cfg(cl.grid, block);
    memcpy(cl.block, block, sizeof block);
    cpu_stats_t whole;
    assert_int_equal(cpu_launch(s.c, gpu_mem(s.g), &s.prog, &cl, s.ca, 4, &whole, &e), 0);
    cpu_run_t *r = cpu_run_begin(s.c, gpu_mem(s.g), &s.prog, &cl, s.ca, 4, &e);
    assert_non_null(r);
    uint64_t far = whole.cycles * 1000, highest = 0;
    int slices = 0;
    while (cpu_run_status(r) == CPU_RUN_MORE) {
        cpu_run_advance(r, far, 2000, &e);
        uint64_t now = cpu_run_cycle(r);
        highest = now > highest ? now : highest;
        slices++;
    }
    cpu_stats_t st;
    assert_int_equal(cpu_run_end(r, &st, &e), 0);
    assert_true(slices > 10);
    assert_int_equal(st.cycles, whole.cycles);
    if (highest > whole.cycles)
        fail_msg("the CPU's clock read %llu cycles, beyond the run's %llu", (unsigned long long)highest,
                 (unsigned long long)whole.cycles);
    scene_free(&s);
}

/* A chart PNG (--charts) draws Chinese with the CJK font: two charts whose
 * labels differ in one Chinese character differ in their pixels (drawn as
 * boxes, as DejaVu Sans alone draws them, they would be the same). */
static void test_chart_png_cjk(void **state)
{
    (void)state;
    simt_err_t e;
    mkdir(FRAMES_DIR, 0755);
    double x[3] = { 1, 2, 4 }, y[3] = { 1, 2, 3.5 };
    chart_series_t ser = { "模拟器", y };
    static const char *const titles[2] = { "相对一条路径的时间", "相对一条路径的时刻" };
    static const char *const paths[2] = { FRAMES_DIR "/cjk1.png", FRAMES_DIR "/cjk2.png" };
    for (int k = 0; k < 2; k++) {
        chart_t c = { titles[k], "路径数 P", "时间（倍）", x, 3, &ser, 1, 1, 0, 0, NULL };
        assert_int_equal(chart_save_png(&c, paths[k], &e), 0);
    }
    SDL_Surface *a = IMG_Load(paths[0]), *b = IMG_Load(paths[1]);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(diff_fraction(a, b) > 0.0);
    SDL_FreeSurface(a);
    SDL_FreeSurface(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_race_same_results),
        cmocka_unit_test(test_golden_frame),
        cmocka_unit_test(test_roofline_on_stage),
        cmocka_unit_test(test_board_golden),
        cmocka_unit_test(test_knob_before_run),
        cmocka_unit_test(test_roofline_board),
        cmocka_unit_test(test_pagedown_during_run),
        cmocka_unit_test(test_fast_forward_clock),
        cmocka_unit_test(test_chart_png_cjk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
