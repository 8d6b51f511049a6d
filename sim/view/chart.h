/* chart.h - draw a labelled line chart into a PNG file, headless.
 *
 * The first piece of the view (sim/view): it draws with SDL2 software
 * surfaces only (no window, no video driver: works on a server or in CI),
 * text with SDL2_ttf and the DejaVu Sans font, and saves with SDL2_image.
 * It reads numbers it is given and never touches the simulator.
 *
 *   double x[] = {1, 2, 4, 8}, y[] = {800, 410, 220, 130};
 *   chart_series_t s = { "matmul 256", y };
 *   chart_t c = { "Time vs SMs", "SMs", "time (us)", x, 4, &s, 1, 1, 0, 0, NULL };
 *   chart_save_png(&c, "sweep.png", &err);
 *
 * The same input gives the same PNG bytes on every run.
 */
#ifndef SIMT_CHART_H
#define SIMT_CHART_H

#include <stddef.h>

#include <stdio.h>

#include "err.h"

#define CHART_MAX_SERIES 8

typedef struct chart_series {
    const char *name;        /* legend text ("" or NULL: no legend entry)  */
    const double *y;         /* n values; NaN leaves a gap                  */
} chart_series_t;

typedef struct chart {
    const char *title;       /* drawn above the plot (may be NULL)          */
    const char *x_label;     /* under the x axis, with units                */
    const char *y_label;     /* beside the y axis, rotated                  */
    const double *x;         /* n x values, shared by every series          */
    size_t n;                /* points per series (at least 1)              */
    const chart_series_t *series; /* 1..CHART_MAX_SERIES lines              */
    size_t nseries;
    int log_x;               /* 1: logarithmic x axis (x must be > 0)       */
    int width, height;       /* pixels; 0 = 800 x 500                       */
    const char *font_path;   /* a .ttf file; NULL = chart_find_font         */
} chart_t;

/* Find DejaVuSans.ttf: $SIMTLAB_FONT, then assets/fonts/DejaVuSans.ttf,
 * then the usual system places (fonts-dejavu-core). Returns out, or NULL
 * if none is readable. */
const char *chart_find_font(char *out, size_t n);

/* Draw c and save it as a PNG at path. Returns 0, or -1 with err
 * (SIMT_E_USAGE) for bad input (no points, too many series, a log axis
 * with x <= 0, no finite y), a missing font, or a file that cannot be
 * written. */
int chart_save_png(const chart_t *c, const char *path, simt_err_t *err);

/* The same into the file f opened for writing (closed in every case);
 * path names it in messages. */
int chart_save_png_file(const chart_t *c, FILE *f, const char *path, simt_err_t *err);

#endif
