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

#include "cpu.h"
#include "roofline.h"
#include "stage.h"
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

/* Race the CPU against the GPU on the stage; stats out. */
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
    ops->say(ops->self, "One CPU core against a GPU with 2 SMs, on a 32 x 32 matrix multiply.",
             "一个 CPU 核心对一块有 2 个 SM 的 GPU，计算 32 x 32 的矩阵乘法。");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_race_same_results),
        cmocka_unit_test(test_golden_frame),
        cmocka_unit_test(test_roofline_on_stage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
