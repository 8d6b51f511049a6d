/* roofline.h - a roofline chart: achieved FLOP/s against arithmetic
 * intensity, log-log, with the GPU's roofs (sim/view).
 *
 * x = arithmetic intensity (FLOP per DRAM byte), y = achieved TFLOP/s.
 * Each compute roof (one per precision: "FP32", "Tensor FP16", ...) is a
 * flat line; each memory roof (one per level: DRAM, L2, shared) is a
 * slanted line y = bandwidth x intensity up to where it meets the highest
 * compute roof. The ridge point of the first memory roof (DRAM) and the
 * first compute roof (FP32), intensity = FLOP/s / bytes/s, is marked: a
 * kernel left of it is memory bound, right of it compute bound. Every run
 * is a dot in an Okabe-Ito colour and its own marker shape, labelled on
 * the chart and in a legend with its numbers.
 *
 *   roofline_roof_t roofs[] = { { "FP32", 66.9 }, { "Tensor FP16", 1070 } };
 *   roofline_bw_t bws[] = { { "DRAM", 4.8 }, { "L2", 10.1 } };
 *   roofline_point_t pts[] = { { "matmul_naive", 0.5, 2.1 } };
 *   roofline_t rf = { "Roofline: h200", NULL, roofs, 2, bws, 2, pts, 1, 0, 0 };
 *   roofline_save_png(&rf, "roofline.png", &err);
 *
 * Drawing reads only the numbers given; the same input gives the same
 * pixels (and PNG bytes) on every run.
 */
#ifndef SIMT_ROOFLINE_H
#define SIMT_ROOFLINE_H

#include <stddef.h>

#include <stdio.h>

#include <SDL.h>

#include "err.h"
#include "text.h"

#define ROOFLINE_MAX_ROOFS 8
#define ROOFLINE_MAX_BANDWIDTHS 8
#define ROOFLINE_MAX_POINTS 16

typedef struct roofline_roof {
    const char *name;        /* "FP32", "Tensor FP16"                      */
    double tflops;           /* peak, TFLOP/s (> 0)                        */
} roofline_roof_t;

typedef struct roofline_bw {
    const char *name;        /* "DRAM", "L2", "shared"                     */
    double tbs;              /* bandwidth, TB/s (1e12 bytes/s, > 0)        */
} roofline_bw_t;

typedef struct roofline_point {
    const char *name;        /* legend and dot label ("matmul_naive 256")  */
    double intensity;        /* FLOP per DRAM byte (> 0)                   */
    double tflops;           /* achieved TFLOP/s (> 0)                     */
} roofline_point_t;

typedef struct roofline {
    const char *title;       /* drawn on top (NULL: "Roofline")            */
    const char *subtitle;    /* one line under it (NULL: none)             */
    const roofline_roof_t *roofs;  /* 1..ROOFLINE_MAX_ROOFS; roofs[0] makes the ridge */
    size_t nroofs;
    const roofline_bw_t *bws;      /* 1..ROOFLINE_MAX_BANDWIDTHS; bws[0] makes the ridge */
    size_t nbws;
    const roofline_point_t *points; /* 0..ROOFLINE_MAX_POINTS runs         */
    size_t npoints;
    int width, height;       /* PNG pixels; 0 = 1280 x 720                 */
} roofline_t;

/* Check rf: counts, names present, every number finite and > 0, the size
 * within 320x240..8000x8000. Returns 0, or -1 with err (SIMT_E_USAGE)
 * naming the bad entry 1-based, as a script wrote it ("points[2]"). */
int roofline_check(const roofline_t *rf, simt_err_t *err);

/* The ridge point: roofs[0].tflops / bws[0].tbs, in FLOP per byte. */
double roofline_ridge(const roofline_t *rf);

/* Draw rf into the rectangle area of renderer r (clipped to it), text
 * through t (opened on r). For the window. Returns 0, or -1 with err. */
int roofline_render(const roofline_t *rf, SDL_Renderer *r, text_t *t, const SDL_Rect *area,
                    simt_err_t *err);

/* Draw rf into the rectangle area of surface s (NULL: all of it) with a
 * software renderer. Returns 0, or -1 with err (bad input, no font). */
int roofline_draw(const roofline_t *rf, SDL_Surface *s, const SDL_Rect *area, simt_err_t *err);

/* Draw rf (rf->width x rf->height) and save it as a PNG at path. Returns
 * 0, or -1 with err (bad input, no font, a file that cannot be written). */
int roofline_save_png(const roofline_t *rf, const char *path, simt_err_t *err);
/* The same into f, which it closes (the sandbox opens the file: lroofline.c);
 * path only names it in messages. */
int roofline_save_png_file(const roofline_t *rf, FILE *f, const char *path, simt_err_t *err);

#endif
