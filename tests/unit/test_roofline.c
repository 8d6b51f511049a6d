/* test_roofline.c - the roofline chart (sim/view/roofline.h): input checks
 * that name the bad entry, the ridge point, drawing into a rectangle of a
 * surface (and nowhere else), the same pixels on every run, the PNG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<SDL.h>)
#define HAVE_SDL 1
#endif
#endif

#ifdef HAVE_SDL
#include "roofline.h"

#if defined(__SANITIZE_ADDRESS__)
#define RF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RF_ASAN 1
#endif
#endif
#ifndef RF_ASAN
#define RF_ASAN 0
#endif

static const roofline_roof_t roofs[] = { { "FP32", 66.9 }, { "Tensor FP16", 1070.5 },
                                         { "Tensor FP8", 2141.1 } };
static const roofline_bw_t bws[] = { { "DRAM", 4.8 }, { "L2", 10.14 }, { "shared", 33.45 } };
static const roofline_point_t pts[] = { { "vecadd", 1.0 / 12, 0.37 },
                                        { "matmul_naive 64", 64.0 / 6, 0.023 },
                                        { "matmul_tiled32 256", 256.0 / 6, 1.69 },
                                        { "每个 SM 的 GEMM", 256.0, 202.7 } };

static roofline_t chart(void)
{
    roofline_t rf;
    memset(&rf, 0, sizeof rf);
    rf.title = "Roofline: h200";
    rf.subtitle = "test";
    rf.roofs = roofs;
    rf.nroofs = 3;
    rf.bws = bws;
    rf.nbws = 3;
    rf.points = pts;
    rf.npoints = 4;
    return rf;
}

static void expect_error(const roofline_t *rf, const char *part)
{
    simt_err_t err;
    memset(&err, 0, sizeof err);
    assert_int_equal(roofline_check(rf, &err), -1);
    assert_int_equal(err.code, SIMT_E_USAGE);
    if (!strstr(err.msg, part))
        fail_msg("expected \"%s\" in: %s", part, err.msg);
}

static void test_check(void **state)
{
    roofline_t rf = chart();
    roofline_roof_t bad_roof[] = { { "FP32", 66.9 }, { "Tensor", -1 } };
    roofline_bw_t bad_bw[] = { { "DRAM", NAN } };
    roofline_point_t bad_pt[] = { { "a", 1, 1 }, { "b", 0, 1 }, { "c", 1, 0 } };
    simt_err_t err;
    (void)state;
    assert_int_equal(roofline_check(&rf, &err), 0);
    rf.nroofs = 0;
    expect_error(&rf, "'roofs' needs 1 to 8");
    rf = chart();
    rf.roofs = bad_roof;
    rf.nroofs = 2;
    expect_error(&rf, "roofs[2].tflops ('Tensor') must be a number > 0, got -1");
    rf = chart();
    rf.bws = bad_bw;
    rf.nbws = 1;
    expect_error(&rf, "bandwidths[1].tbs ('DRAM')");
    rf = chart();
    rf.points = bad_pt;
    rf.npoints = 2;
    expect_error(&rf, "points[2].intensity ('b') must be a number > 0");
    bad_pt[1].intensity = 1;
    rf.npoints = 3;
    expect_error(&rf, "points[3].tflops ('c')");
    rf = chart();
    rf.npoints = ROOFLINE_MAX_POINTS + 1;
    expect_error(&rf, "at most 16 runs");
    rf = chart();
    rf.width = 100;
    expect_error(&rf, "size 100x720 is outside");
    rf = chart();
    rf.npoints = 0; /* roofs alone are a chart */
    assert_int_equal(roofline_check(&rf, &err), 0);
}

static void test_ridge(void **state)
{
    roofline_t rf = chart();
    (void)state;
    assert_true(fabs(roofline_ridge(&rf) - 66.9 / 4.8) < 1e-12);
    rf.nroofs = 0;
    assert_true(roofline_ridge(&rf) == 0.0);
}

/* Pixels of s inside (x, y, w, h) that are not colour bg. */
static long count_not(SDL_Surface *s, Uint32 bg, int x0, int y0, int w, int h)
{
    long n = 0;
    int x, y;
    for (y = y0; y < y0 + h; y++)
        for (x = x0; x < x0 + w; x++)
            n += ((Uint32 *)(void *)((Uint8 *)s->pixels + y * s->pitch))[x] != bg;
    return n;
}

static void test_draw_in_rect(void **state)
{
    roofline_t rf = chart();
    SDL_Surface *a = SDL_CreateRGBSurfaceWithFormat(0, 1000, 700, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Surface *b = SDL_CreateRGBSurfaceWithFormat(0, 1000, 700, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Rect area = { 100, 80, 800, 450 };
    Uint32 blue;
    simt_err_t err;
    long inside;
    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    blue = SDL_MapRGB(a->format, 10, 20, 200);
    SDL_FillRect(a, NULL, blue);
    SDL_FillRect(b, NULL, blue);
    if (roofline_draw(&rf, a, &area, &err) != 0)
        fail_msg("roofline_draw: %s", err.msg);
    /* the rectangle is painted (white paper, lines, text), nothing outside */
    inside = count_not(a, blue, area.x, area.y, area.w, area.h);
    assert_int_equal(inside, (long)area.w * area.h);
    assert_int_equal(count_not(a, blue, 0, 0, 1000, area.y), 0);
    assert_int_equal(count_not(a, blue, 0, area.y + area.h, 1000, 700 - area.y - area.h), 0);
    assert_int_equal(count_not(a, blue, 0, 0, area.x, 700), 0);
    assert_int_equal(count_not(a, blue, area.x + area.w, 0, 1000 - area.x - area.w, 700), 0);
    /* dark ink: lines and text, a real share of the area but not most of it */
    {
        long dark = 0;
        int x, y;
        for (y = area.y; y < area.y + area.h; y++)
            for (x = area.x; x < area.x + area.w; x++) {
                Uint32 p = ((Uint32 *)(void *)((Uint8 *)a->pixels + y * a->pitch))[x];
                dark += ((p >> 16) & 0xFF) < 128 && ((p >> 8) & 0xFF) < 128 && (p & 0xFF) < 128;
            }
        assert_true(dark > (long)area.w * area.h / 100);
        assert_true(dark < (long)area.w * area.h / 4);
    }
    /* the same input, the same pixels */
    assert_int_equal(roofline_draw(&rf, b, &area, &err), 0);
    assert_memory_equal(a->pixels, b->pixels, (size_t)a->pitch * a->h);
    /* a different input, different pixels */
    rf.npoints = 3;
    assert_int_equal(roofline_draw(&rf, b, &area, &err), 0);
    assert_true(memcmp(a->pixels, b->pixels, (size_t)a->pitch * a->h) != 0);
    /* extreme values still draw (clamped to the edges of 10 and 8 decades) */
    {
        roofline_point_t far[] = { { "tiny", 1e-200, 1e-200 }, { "huge", 1e200, 1e-3 } };
        rf.points = far;
        rf.npoints = 2;
        assert_int_equal(roofline_draw(&rf, b, &area, &err), 0);
        rf.points = pts;
    }
    /* too small an area is refused */
    area.w = 200;
    assert_int_equal(roofline_draw(&rf, b, &area, &err), -1);
    assert_non_null(strstr(err.msg, "smaller than 320x240"));
    assert_int_equal(roofline_draw(&rf, NULL, NULL, &err), -1);
    SDL_FreeSurface(a);
    SDL_FreeSurface(b);
}

static void test_png(void **state)
{
    roofline_t rf = chart();
    const char *tmp = getenv("TMPDIR");
    char path[1024];
    simt_err_t err;
    unsigned char head[24];
    FILE *f;
    long size;
    (void)state;
    snprintf(path, sizeof path, "%s/test_roofline_%ld.png", tmp && tmp[0] ? tmp : "/tmp",
             (long)SDL_GetTicks());
    rf.width = 960;
    rf.height = 540;
    if (roofline_save_png(&rf, path, &err) != 0)
        fail_msg("roofline_save_png: %s", err.msg);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
    if (!getenv("SIMT_KEEP_PNG"))
        remove(path);
    assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
    /* IHDR: width and height, big-endian */
    assert_int_equal((head[16] << 24) | (head[17] << 16) | (head[18] << 8) | head[19], 960);
    assert_int_equal((head[20] << 24) | (head[21] << 16) | (head[22] << 8) | head[23], 540);
    assert_true(size > 20000);
    assert_int_equal(roofline_save_png(&rf, "/nonexistent-dir/x.png", &err), -1);
    assert_non_null(strstr(err.msg, "cannot write '/nonexistent-dir/x.png'"));
    assert_int_equal(roofline_save_png(&rf, "", &err), -1);
}

/* A window's renderer (SDL's offscreen video driver, often OpenGL through
 * EGL): the chart and text draw there too. Skipped where there is none. */
static void test_window_renderer(void **state)
{
    roofline_t rf = chart();
    SDL_Window *w;
    SDL_Renderer *r;
    SDL_Surface *s;
    text_t *t;
    simt_err_t err;
    SDL_Rect area = { 40, 30, 640, 400 };
    Uint32 navy;
    long inside, outside;
    (void)state;
#if RF_ASAN
    skip(); /* SDL's video drivers (EGL, mesa) leak what LeakSanitizer reports */
#endif
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        skip();
    w = SDL_CreateWindow("test_roofline", 0, 0, 720, 480, SDL_WINDOW_HIDDEN);
    r = w ? SDL_CreateRenderer(w, -1, 0) : NULL;
    if (!r) {
        if (w)
            SDL_DestroyWindow(w);
        SDL_Quit();
        skip();
    }
    t = text_open(r, &err);
    assert_non_null(t);
    SDL_SetRenderDrawColor(r, 0, 0, 80, 255);
    SDL_RenderClear(r);
    if (roofline_render(&rf, r, t, &area, &err) != 0)
        fail_msg("roofline_render: %s", err.msg);
    assert_true(text_draw(t, "调度器 outside", 0, 450, 20, TEXT_BOLD,
                          (SDL_Color){ 255, 255, 255, 255 }) > 0);
    s = SDL_CreateRGBSurfaceWithFormat(0, 720, 480, 32, SDL_PIXELFORMAT_ARGB8888);
    assert_non_null(s);
    assert_int_equal(SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch), 0);
    navy = SDL_MapRGB(s->format, 0, 0, 80);
    inside = count_not(s, navy, area.x, area.y, area.w, area.h);
    outside = count_not(s, navy, 0, 0, 720, area.y) + count_not(s, navy, 0, 0, area.x, 440);
    assert_int_equal(inside, (long)area.w * area.h);
    assert_int_equal(outside, 0);
    assert_true(count_not(s, navy, 0, 440, 720, 40) > 100); /* the text under it */
    SDL_FreeSurface(s);
    text_close(t);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(w);
    SDL_Quit();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_ridge),
        cmocka_unit_test(test_draw_in_rect),
        cmocka_unit_test(test_png),
        cmocka_unit_test(test_window_renderer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built without SDL2: nothing to test */

static void test_no_sdl(void **state)
{
    (void)state;
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_no_sdl) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
