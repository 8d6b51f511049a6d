/* roofline.c - the roofline chart (see roofline.h).
 *
 * Layout of the area (sizes scale with it; 1280 x 720 is the reference,
 * a projector's resolution): the title and subtitle on top; the plot with
 * a log-log grid (decades darker, 2..9 lighter) and tick labels; the axis
 * labels outside (the y label reading upwards); the legend panel on the
 * right. Inside the plot, back to front: the grid, the ridge line and the
 * memory-bound / compute-bound captions, the memory roofs (slanted,
 * labelled along their slope), the compute roofs (flat, labelled at the
 * right end), the dots with their names.
 *
 * Everything is drawn through an SDL_Renderer: filled rectangles (lines are
 * Bresenham steps of small squares, shapes are horizontal spans) and text
 * textures from text.h, so it works the same on a window and headless.
 */
#include "roofline.h"

#include "png.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <SDL_image.h>

#include "palette.h"

#define RF_PI 3.14159265358979323846
#define RF_MAX_BOXES (ROOFLINE_MAX_POINTS * 2 + ROOFLINE_MAX_ROOFS + ROOFLINE_MAX_BANDWIDTHS * 24 + 8)

/* A rectangle text or a dot occupies (to keep labels apart). */
typedef struct box {
    int x, y, w, h;
} box_t;

/* Drawing state. */
typedef struct rf_ctx {
    SDL_Renderer *r;
    text_t *t;
    const roofline_t *rf;
    double s;                /* scale against 1280 x 720                   */
    int fs_title, fs_sub, fs_label, fs_tick, fs_point, fs_small; /* pixel sizes */
    int px, py, pw, ph;      /* plot area                                  */
    double lx0, lx1, ly0, ly1; /* log10 ranges shown                       */
    box_t boxes[RF_MAX_BOXES]; /* taken places inside the plot             */
    int nboxes;
} rf_ctx_t;

static const SDL_Color ink = { 30, 30, 30, 255 };
static const SDL_Color paper = { 255, 255, 255, 255 };
static const SDL_Color grey_ink = { 70, 70, 70, 255 };
static const SDL_Color roof_col = { 45, 45, 45, 255 };
static const SDL_Color bw_col = { 85, 85, 85, 255 };

/* ---- checks ---------------------------------------------------------------- */

static int positive(double v) { return isfinite(v) && v > 0; }

int roofline_check(const roofline_t *rf, simt_err_t *err)
{
    size_t i;
    int w = rf->width ? rf->width : 1280, h = rf->height ? rf->height : 720;
    if (w < 320 || w > 8000 || h < 240 || h > 8000)
        return simt_errf(err, SIMT_E_USAGE, "roofline: size %dx%d is outside 320x240..8000x8000",
                         w, h);
    if (rf->nroofs < 1 || rf->nroofs > ROOFLINE_MAX_ROOFS || !rf->roofs)
        return simt_errf(err, SIMT_E_USAGE, "roofline: 'roofs' needs 1 to %d compute roofs, got %zu",
                         ROOFLINE_MAX_ROOFS, rf->nroofs);
    if (rf->nbws < 1 || rf->nbws > ROOFLINE_MAX_BANDWIDTHS || !rf->bws)
        return simt_errf(err, SIMT_E_USAGE,
                         "roofline: 'bandwidths' needs 1 to %d memory roofs, got %zu",
                         ROOFLINE_MAX_BANDWIDTHS, rf->nbws);
    if (rf->npoints > ROOFLINE_MAX_POINTS || (rf->npoints && !rf->points))
        return simt_errf(err, SIMT_E_USAGE, "roofline: 'points' holds at most %d runs, got %zu",
                         ROOFLINE_MAX_POINTS, rf->npoints);
    for (i = 0; i < rf->nroofs; i++) {
        if (!rf->roofs[i].name)
            return simt_errf(err, SIMT_E_USAGE, "roofline: roofs[%zu].name is missing", i + 1);
        if (!positive(rf->roofs[i].tflops))
            return simt_errf(err, SIMT_E_USAGE,
                             "roofline: roofs[%zu].tflops ('%s') must be a number > 0, got %g",
                             i + 1, rf->roofs[i].name, rf->roofs[i].tflops);
    }
    for (i = 0; i < rf->nbws; i++) {
        if (!rf->bws[i].name)
            return simt_errf(err, SIMT_E_USAGE, "roofline: bandwidths[%zu].name is missing", i + 1);
        if (!positive(rf->bws[i].tbs))
            return simt_errf(err, SIMT_E_USAGE,
                             "roofline: bandwidths[%zu].tbs ('%s') must be a number > 0, got %g",
                             i + 1, rf->bws[i].name, rf->bws[i].tbs);
    }
    for (i = 0; i < rf->npoints; i++) {
        const roofline_point_t *p = &rf->points[i];
        if (!p->name)
            return simt_errf(err, SIMT_E_USAGE, "roofline: points[%zu].name is missing", i + 1);
        if (!positive(p->intensity))
            return simt_errf(err, SIMT_E_USAGE,
                             "roofline: points[%zu].intensity ('%s') must be a number > 0 (FLOP "
                             "per DRAM byte, on a log axis), got %g",
                             i + 1, p->name, p->intensity);
        if (!positive(p->tflops))
            return simt_errf(err, SIMT_E_USAGE,
                             "roofline: points[%zu].tflops ('%s') must be a number > 0 (on a log "
                             "axis), got %g",
                             i + 1, p->name, p->tflops);
    }
    return 0;
}

double roofline_ridge(const roofline_t *rf)
{
    if (!rf || rf->nroofs < 1 || rf->nbws < 1 || !(rf->bws[0].tbs > 0))
        return 0.0;
    return rf->roofs[0].tflops / rf->bws[0].tbs;
}

/* ---- drawing primitives ------------------------------------------------------ */

static void set_colour(rf_ctx_t *c, SDL_Color col)
{
    SDL_SetRenderDrawColor(c->r, col.r, col.g, col.b, 255);
}

static void fill(rf_ctx_t *c, int x, int y, int w, int h, SDL_Color col)
{
    SDL_Rect rc = { x, y, w, h };
    set_colour(c, col);
    SDL_RenderFillRect(c->r, &rc);
}

/* A line of squares `th` wide from (xa, ya) to (xb, yb) (Bresenham);
 * dash > 0: `dash` steps drawn, then `gap` steps left out. */
static void line(rf_ctx_t *c, int xa, int ya, int xb, int yb, int th, int dash, int gap,
                 SDL_Color col)
{
    int dx = abs(xb - xa), sx = xa < xb ? 1 : -1;
    int dy = -abs(yb - ya), sy = ya < yb ? 1 : -1;
    int e = dx + dy, step = 0, o = th / 2;
    set_colour(c, col);
    for (;;) {
        int e2 = 2 * e;
        if (dash <= 0 || step % (dash + gap) < dash) {
            SDL_Rect rc = { xa - o, ya - o, th, th };
            SDL_RenderFillRect(c->r, &rc);
        }
        step++;
        if (xa == xb && ya == yb)
            break;
        if (e2 >= dy) {
            e += dy;
            xa += sx;
        }
        if (e2 <= dx) {
            e += dx;
            ya += sy;
        }
    }
}

/* A filled marker of radius rad at (x, y): shape 0 circle, 1 square,
 * 2 triangle up, 3 diamond, 4 triangle down. */
static void shape(rf_ctx_t *c, int shape_no, int x, int y, int rad, SDL_Color col)
{
    int dy;
    set_colour(c, col);
    for (dy = -rad; dy <= rad; dy++) {
        int half;
        SDL_Rect rc;
        switch (shape_no % 5) {
        case 0:
            half = (int)floor(sqrt((double)(rad * rad - dy * dy)) + 0.5);
            break;
        case 1:
            half = rad * 85 / 100;
            if (dy < -half || dy > half)
                continue;
            break;
        case 2:
            half = (dy + rad) / 2 + (rad > 6 ? 1 : 0);
            break;
        case 3:
            half = rad - abs(dy);
            break;
        default:
            half = (rad - dy) / 2 + (rad > 6 ? 1 : 0);
            break;
        }
        rc.x = x - half;
        rc.y = y + dy;
        rc.w = 2 * half + 1;
        rc.h = 1;
        SDL_RenderFillRect(c->r, &rc);
    }
}

/* A run's marker: dark outline, then the colour. */
static void marker(rf_ctx_t *c, size_t i, int x, int y, int rad)
{
    SDL_Color col = view_palette[i % (VIEW_PALETTE_N - 1)]; /* no yellow: faint on white */
    SDL_Color edge = { 20, 20, 20, 255 };
    int sh = (int)(i % 5), grow = c->s > 0.8 ? 2 : 1;
    shape(c, sh, x, y, rad + grow + (sh == 2 || sh == 4 ? grow : 0), edge);
    shape(c, sh, x, y, rad, col);
}

/* Text with anchor ax/ay (0 left/top, 1 centre, 2 right/bottom) at (x, y);
 * fills *b with the box it takes (when b is not NULL). */
static int label(rf_ctx_t *c, const char *s, int x, int y, int ax, int ay, int px,
                 text_style_t st, SDL_Color col, box_t *b)
{
    int w = text_width(c->t, s, px, st), h = text_height(c->t, px);
    int lx = x - (ax == 1 ? w / 2 : ax == 2 ? w : 0), ly = y - (ay == 1 ? h / 2 : ay == 2 ? h : 0);
    if (b) /* a label inside the plot: on white, so lines behind it do not cut it */
        fill(c, lx - 3, ly, w + 6, h, paper);
    text_draw(c->t, s, lx, ly, px, st, col);
    if (b) {
        b->x = lx;
        b->y = ly;
        b->w = w;
        b->h = h;
    }
    return w;
}

static int overlaps(const box_t *a, const box_t *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

static void take(rf_ctx_t *c, box_t b)
{
    if (c->nboxes < RF_MAX_BOXES)
        c->boxes[c->nboxes++] = b;
}

static int is_free(const rf_ctx_t *c, const box_t *b)
{
    int i;
    if (b->x < c->px + 2 || b->y < c->py + 2 || b->x + b->w > c->px + c->pw - 2
        || b->y + b->h > c->py + c->ph - 2)
        return 0;
    for (i = 0; i < c->nboxes; i++)
        if (overlaps(b, &c->boxes[i]))
            return 0;
    return 1;
}

/* 66.9, 1070, 4.8, 0.0833: three significant digits, no exponent. */
static void fmt_num(double v, char *buf, size_t n)
{
    if (v >= 100)
        snprintf(buf, n, "%.0f", v);
    else if (v >= 0.001)
        snprintf(buf, n, "%.3g", v);
    else
        snprintf(buf, n, "%.2g", v);
}

/* A decade's tick label: 0.01, 0.1, 1, 10, 100, 1000, 10k ... */
static void decade_label(int k, char *buf, size_t n)
{
    if (k < 0 && k >= -4)
        snprintf(buf, n, "%.*f", -k, pow(10.0, k));
    else if (k >= 0 && k <= 3)
        snprintf(buf, n, "%.0f", pow(10.0, k));
    else if (k >= 4 && k <= 5)
        snprintf(buf, n, "%.0fk", pow(10.0, k - 3));
    else
        snprintf(buf, n, "1e%d", k);
}

/* ---- coordinates ---------------------------------------------------------------- */

static double map_x(const rf_ctx_t *c, double lx)
{
    return c->px + (lx - c->lx0) / (c->lx1 - c->lx0) * (c->pw - 1);
}

static double map_y(const rf_ctx_t *c, double ly)
{
    return c->py + c->ph - 1 - (ly - c->ly0) / (c->ly1 - c->ly0) * (c->ph - 1);
}

/* Clip the segment (x0,y0)-(x1,y1) (log space) to the shown ranges
 * (Liang-Barsky). Returns 0 if nothing is left. */
static int clip(const rf_ctx_t *c, double *x0, double *y0, double *x1, double *y1)
{
    double t0 = 0, t1 = 1, dx = *x1 - *x0, dy = *y1 - *y0;
    double p[4] = { -dx, dx, -dy, dy };
    double q[4] = { *x0 - c->lx0, c->lx1 - *x0, *y0 - c->ly0, c->ly1 - *y0 };
    int i;
    for (i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return 0;
        } else {
            double t = q[i] / p[i];
            if (p[i] < 0) {
                if (t > t1)
                    return 0;
                if (t > t0)
                    t0 = t;
            } else {
                if (t < t0)
                    return 0;
                if (t < t1)
                    t1 = t;
            }
        }
    }
    *x1 = *x0 + t1 * dx;
    *y1 = *y0 + t1 * dy;
    *x0 = *x0 + t0 * dx;
    *y0 = *y0 + t0 * dy;
    return 1;
}

/* A segment between two data points (log space), clipped and drawn. */
static int data_line(rf_ctx_t *c, double x0, double y0, double x1, double y1, int th, int dash,
                     int gap, SDL_Color col)
{
    if (!clip(c, &x0, &y0, &x1, &y1))
        return 0;
    line(c, (int)lround(map_x(c, x0)), (int)lround(map_y(c, y0)), (int)lround(map_x(c, x1)),
         (int)lround(map_y(c, y1)), th, dash, gap, col);
    return 1;
}

/* ---- the ranges ---------------------------------------------------------------- */

static void ranges(rf_ctx_t *c)
{
    const roofline_t *rf = c->rf;
    double pmax = 0, pmin = HUGE_VAL, bmax = 0, bmin = HUGE_VAL;
    double xlo, xhi, ylo, yhi, ridge = roofline_ridge(rf);
    size_t i;
    for (i = 0; i < rf->nroofs; i++) {
        pmax = fmax(pmax, rf->roofs[i].tflops);
        pmin = fmin(pmin, rf->roofs[i].tflops);
    }
    for (i = 0; i < rf->nbws; i++) {
        bmax = fmax(bmax, rf->bws[i].tbs);
        bmin = fmin(bmin, rf->bws[i].tbs);
    }
    /* x: from below the first roof's corner and the ridge to past where the
     * slowest memory roof reaches the highest compute roof */
    xlo = fmin(pmin / bmax, ridge / 8);
    xhi = fmax(pmax / bmin, ridge * 8); /* room on the compute-bound side too */
    for (i = 0; i < rf->npoints; i++) {
        xlo = fmin(xlo, rf->points[i].intensity);
        xhi = fmax(xhi, rf->points[i].intensity);
    }
    c->lx0 = log10(xlo) - 0.35;
    c->lx1 = log10(xhi) + 0.35;
    if (c->lx1 - c->lx0 > 10) /* at most 10 decades: a dot further left sits on the edge */
        c->lx0 = c->lx1 - 10;
    /* y: room above the highest roof for its label; down to the lowest dot
     * or where the slowest memory roof enters, at most 8 decades */
    yhi = pmax;
    ylo = fmin(pmin, bmin * pow(10.0, c->lx0) * 3);
    for (i = 0; i < rf->npoints; i++)
        ylo = fmin(ylo, rf->points[i].tflops);
    c->ly1 = log10(yhi) + 0.4;
    c->ly0 = log10(ylo) - 0.4;
    if (c->ly1 - c->ly0 > 8)
        c->ly0 = c->ly1 - 8;
}

/* ---- the parts ------------------------------------------------------------------ */

static void draw_grid(rf_ctx_t *c)
{
    SDL_Color major = { 205, 205, 205, 255 }, minor = { 236, 236, 236, 255 };
    SDL_Color axis = { 60, 60, 60, 255 };
    int k, m, tick = (int)lround(8 * c->s), last_right = -100000;
    char buf[32];
    /* minor lines first, then decades over them */
    for (k = (int)floor(c->lx0); k <= (int)ceil(c->lx1); k++)
        for (m = 2; m <= 9; m++) {
            double lx = k + log10((double)m);
            if (lx > c->lx0 && lx < c->lx1)
                fill(c, (int)lround(map_x(c, lx)), c->py, 1, c->ph, minor);
        }
    for (k = (int)floor(c->ly0); k <= (int)ceil(c->ly1); k++)
        for (m = 2; m <= 9; m++) {
            double ly = k + log10((double)m);
            if (ly > c->ly0 && ly < c->ly1)
                fill(c, c->px, (int)lround(map_y(c, ly)), c->pw, 1, minor);
        }
    for (k = (int)ceil(c->lx0); k <= (int)floor(c->lx1); k++) {
        int x = (int)lround(map_x(c, k)), w;
        fill(c, x, c->py, 1, c->ph, major);
        fill(c, x, c->py + c->ph, 2, tick, axis);
        decade_label(k, buf, sizeof buf);
        w = text_width(c->t, buf, c->fs_tick, TEXT_SANS);
        if (x - w / 2 > last_right + 8) {
            label(c, buf, x, c->py + c->ph + tick + 4, 1, 0, c->fs_tick, TEXT_SANS, ink, NULL);
            last_right = x + w / 2;
        }
    }
    for (k = (int)ceil(c->ly0); k <= (int)floor(c->ly1); k++) {
        int y = (int)lround(map_y(c, k));
        fill(c, c->px, y, c->pw, 1, major);
        fill(c, c->px - tick, y, tick, 2, axis);
        decade_label(k, buf, sizeof buf);
        label(c, buf, c->px - tick - 6, y, 2, 1, c->fs_tick, TEXT_SANS, ink, NULL);
    }
    fill(c, c->px - 2, c->py, 2, c->ph + 2, axis);
    fill(c, c->px - 2, c->py + c->ph, c->pw + 2, 2, axis);
}

/* The ridge: a dotted line up to the corner, a diamond, its value, and which
 * side is memory bound. */
static void draw_ridge(rf_ctx_t *c)
{
    const roofline_t *rf = c->rf;
    double ridge = roofline_ridge(rf), lr = log10(ridge), lp = log10(rf->roofs[0].tflops);
    int x = (int)lround(map_x(c, lr)), y = (int)lround(map_y(c, lp));
    int bottom = c->py + c->ph - 6, gap = (int)lround(10 * c->s), h = text_height(c->t, c->fs_small);
    char buf[96], num[32];
    box_t b;
    if (lr <= c->lx0 || lr >= c->lx1)
        return;
    line(c, x, y, x, c->py + c->ph - 1, (int)lround(2 * c->s) + 1, (int)lround(5 * c->s) + 1,
         (int)lround(5 * c->s) + 1, ink);
    fmt_num(ridge, num, sizeof num);
    snprintf(buf, sizeof buf, "ridge point: %s FLOP/byte", num);
    if (x + gap + text_width(c->t, buf, c->fs_small, TEXT_BOLD) < c->px + c->pw - 4)
        label(c, buf, x + gap, bottom - h, 0, 2, c->fs_small, TEXT_BOLD, ink, &b);
    else /* no room on the right: left of the line */
        label(c, buf, x - gap, bottom - h, 2, 2, c->fs_small, TEXT_BOLD, ink, &b);
    take(c, b);
    label(c, "\xe2\x86\x90 memory bound", x - gap, bottom, 2, 2, c->fs_small, TEXT_SANS, grey_ink,
          &b);
    take(c, b);
    label(c, "compute bound \xe2\x86\x92", x + gap, bottom, 0, 2, c->fs_small, TEXT_SANS, grey_ink,
          &b);
    take(c, b);
}

/* The ridge point itself, over the roofs: a hollow diamond (not a run). */
static void draw_ridge_mark(rf_ctx_t *c)
{
    const roofline_t *rf = c->rf;
    double lr = log10(roofline_ridge(rf)), lp = log10(rf->roofs[0].tflops);
    int x = (int)lround(map_x(c, lr)), y = (int)lround(map_y(c, lp)), rad = (int)lround(9 * c->s);
    if (lr <= c->lx0 || lr >= c->lx1)
        return;
    shape(c, 3, x, y, rad + 3, ink);
    shape(c, 3, x, y, rad - 1, paper);
}

/* Memory roofs: y = bw x intensity, up to the highest compute roof; the
 * label runs along the line, just above it. */
static void draw_bandwidths(rf_ctx_t *c)
{
    const roofline_t *rf = c->rf;
    double pmax = 0, ppd_x = (c->pw - 1) / (c->lx1 - c->lx0), ppd_y = (c->ph - 1) / (c->ly1 - c->ly0);
    double ang = atan2(ppd_y, ppd_x); /* the lines' angle on screen, up from the x axis */
    size_t i;
    for (i = 0; i < rf->nroofs; i++)
        pmax = fmax(pmax, rf->roofs[i].tflops);
    for (i = 0; i < rf->nbws; i++) {
        double lb = log10(rf->bws[i].tbs), lend = log10(pmax) - lb;
        double x0 = c->lx0, y0 = lb + c->lx0, x1 = lend, y1 = log10(pmax), ly, lx;
        int th = i == 0 ? (int)lround(4 * c->s) + 1 : (int)lround(3 * c->s) + 1;
        int dash = i == 0 ? 0 : (int)lround((i == 1 ? 14 : 5) * c->s) + 1;
        int h = text_height(c->t, c->fs_label), cx, cy;
        char num[32], buf[128];
        if (!data_line(c, x0, y0, x1, y1, th, dash, (int)lround(7 * c->s) + 1,
                       i == 0 ? roof_col : bw_col))
            continue;
        /* the label's centre: on the line where it crosses 40% of the plot's
         * height (parallel lines: the labels sit side by side), raised off it */
        ly = c->ly0 + (c->ly1 - c->ly0) * 0.4;
        lx = ly - lb;
        if (lx < c->lx0 + 0.3 || lx > x1 - 0.2) {
            lx = fmax(c->lx0 + 0.3, fmin(x1 - 0.2, (c->lx0 + x1) / 2));
            ly = lb + lx;
        }
        fmt_num(rf->bws[i].tbs, num, sizeof num);
        snprintf(buf, sizeof buf, "%s %s TB/s", rf->bws[i].name, num);
        cx = (int)lround(map_x(c, lx) - sin(ang) * (h * 0.5 + th + 2));
        cy = (int)lround(map_y(c, ly) - cos(ang) * (h * 0.5 + th + 2));
        text_draw_rotated(c->t, buf, cx, cy, -ang * 180.0 / RF_PI, c->fs_label,
                          i == 0 ? TEXT_BOLD : TEXT_SANS, i == 0 ? ink : grey_ink);
        {   /* the turned label as a chain of squares along it, for the dot labels */
            int tw = text_width(c->t, buf, c->fs_label, TEXT_BOLD), k, nk = tw / h + 1;
            for (k = 0; k < nk; k++) {
                double d = (k + 0.5) * tw / nk - tw / 2.0;
                box_t b = { (int)lround(cx + cos(ang) * d) - h / 2,
                            (int)lround(cy - sin(ang) * d) - h / 2, h, h };
                take(c, b);
            }
        }
    }
}

/* Compute roofs: flat from where the fastest memory roof reaches them to the
 * right edge; the label above the line at the right end. */
static void draw_roofs(rf_ctx_t *c)
{
    const roofline_t *rf = c->rf;
    double bmax = 0;
    size_t i, order[ROOFLINE_MAX_ROOFS], j;
    int last_top = 1 << 30;
    for (i = 0; i < rf->nbws; i++)
        bmax = fmax(bmax, rf->bws[i].tbs);
    for (i = 0; i < rf->nroofs; i++) /* lowest first, for the label spacing */
        order[i] = i;
    for (i = 1; i < rf->nroofs; i++)
        for (j = i; j > 0 && rf->roofs[order[j]].tflops < rf->roofs[order[j - 1]].tflops; j--) {
            size_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (j = 0; j < rf->nroofs; j++) {
        const roofline_roof_t *roof = &rf->roofs[order[j]];
        double lp = log10(roof->tflops);
        int th = (int)lround(4 * c->s) + 1, y = (int)lround(map_y(c, lp));
        int h = text_height(c->t, c->fs_label), ytext;
        char num[32], buf[128];
        box_t b;
        data_line(c, lp - log10(bmax), lp, c->lx1, lp, th, 0, 0, roof_col);
        fmt_num(roof->tflops, num, sizeof num);
        snprintf(buf, sizeof buf, "%s %s TFLOP/s", roof->name, num);
        ytext = y - th / 2 - 2;
        if (ytext > last_top - 1)
            ytext = last_top - 1; /* a roof close above the last: keep both labels readable */
        label(c, buf, c->px + c->pw - 10, ytext, 2, 2, c->fs_label, TEXT_BOLD, ink, &b);
        take(c, b);
        last_top = ytext - h;
    }
}

/* The dots, then their names where there is room (right, left, above,
 * below; the legend has them all). */
static void draw_points(rf_ctx_t *c)
{
    const roofline_t *rf = c->rf;
    int rad = (int)lround(9 * c->s) + 1;
    size_t i;
    int xs[ROOFLINE_MAX_POINTS], ys[ROOFLINE_MAX_POINTS];
    for (i = 0; i < rf->npoints; i++) {
        double lx = log10(rf->points[i].intensity), ly = log10(rf->points[i].tflops);
        box_t b;
        xs[i] = (int)lround(map_x(c, fmax(c->lx0, fmin(c->lx1, lx))));
        ys[i] = (int)lround(map_y(c, fmax(c->ly0, fmin(c->ly1, ly))));
        b.x = xs[i] - rad - 3;
        b.y = ys[i] - rad - 3;
        b.w = b.h = 2 * rad + 7;
        take(c, b);
    }
    for (i = 0; i < rf->npoints; i++)
        marker(c, i, xs[i], ys[i], rad);
    for (i = 0; i < rf->npoints; i++) {
        const char *name = rf->points[i].name;
        int w = text_width(c->t, name, c->fs_point, TEXT_BOLD), h = text_height(c->t, c->fs_point);
        int gap = rad + 6, k;
        box_t cand[6] = {
            { xs[i] + gap, ys[i] - h / 2, w, h },     { xs[i] - gap - w, ys[i] - h / 2, w, h },
            { xs[i] - w / 2, ys[i] - gap - h, w, h }, { xs[i] - w / 2, ys[i] + gap, w, h },
            { xs[i] + gap, ys[i] - gap - h / 2, w, h }, { xs[i] + gap, ys[i] + gap - h / 2, w, h },
        };
        for (k = 0; k < 6; k++)
            if (is_free(c, &cand[k]))
                break;
        if (k == 6)
            continue; /* no room: the legend names it */
        label(c, name, cand[k].x, cand[k].y, 0, 0, c->fs_point, TEXT_BOLD, ink, &cand[k]);
        take(c, cand[k]);
    }
}

/* The legend panel: each run's marker, name and numbers. */
static void draw_legend(rf_ctx_t *c, int x, int y, int w, int h)
{
    const roofline_t *rf = c->rf;
    SDL_Color border = { 170, 170, 170, 255 }, bg = { 250, 250, 250, 255 };
    int pad = (int)lround(12 * c->s), rad = (int)lround(8 * c->s) + 1;
    int lh = text_height(c->t, c->fs_point), sh = text_height(c->t, c->fs_small);
    int row = lh + sh + (int)lround(8 * c->s), yy;
    size_t i;
    if (rf->npoints == 0)
        return;
    if ((int)rf->npoints * row + lh + 2 * pad > h)
        row = lh + (int)lround(4 * c->s); /* crowded: names only */
    fill(c, x, y, w, (int)rf->npoints * row + lh + 2 * pad + 4, border);
    fill(c, x + 1, y + 1, w - 2, (int)rf->npoints * row + lh + 2 * pad + 2, bg);
    label(c, "runs", x + pad, y + pad, 0, 0, c->fs_point, TEXT_BOLD, ink, NULL);
    yy = y + pad + lh + (int)lround(6 * c->s);
    for (i = 0; i < rf->npoints; i++) {
        char a[32], b[32], buf[96];
        marker(c, i, x + pad + rad, yy + lh / 2, rad);
        text_draw(c->t, rf->points[i].name, x + pad + 2 * rad + pad, yy, c->fs_point, TEXT_BOLD,
                  ink);
        if (row > lh + (int)lround(4 * c->s)) {
            fmt_num(rf->points[i].intensity, a, sizeof a);
            fmt_num(rf->points[i].tflops, b, sizeof b);
            snprintf(buf, sizeof buf, "%s FLOP/B, %s TFLOP/s", a, b);
            text_draw(c->t, buf, x + pad + 2 * rad + pad, yy + lh, c->fs_small, TEXT_SANS,
                      grey_ink);
        }
        yy += row;
    }
}

/* The legend's width: the widest name or number line, within 34% of aw. */
static int legend_width(rf_ctx_t *c, int aw)
{
    const roofline_t *rf = c->rf;
    int pad = (int)lround(12 * c->s), rad = (int)lround(8 * c->s) + 1, w = 0;
    size_t i;
    if (rf->npoints == 0)
        return 0;
    for (i = 0; i < rf->npoints; i++) {
        char a[32], b[32], buf[96];
        int nw = text_width(c->t, rf->points[i].name, c->fs_point, TEXT_BOLD);
        fmt_num(rf->points[i].intensity, a, sizeof a);
        fmt_num(rf->points[i].tflops, b, sizeof b);
        snprintf(buf, sizeof buf, "%s FLOP/B, %s TFLOP/s", a, b);
        nw = nw > text_width(c->t, buf, c->fs_small, TEXT_SANS)
                 ? nw
                 : text_width(c->t, buf, c->fs_small, TEXT_SANS);
        if (nw > w)
            w = nw;
    }
    w += 3 * pad + 2 * rad;
    return w > aw * 34 / 100 ? aw * 34 / 100 : w;
}

static int scaled(double s, int base)
{
    int v = (int)lround(base * s);
    return v < 11 ? 11 : v;
}

int roofline_render(const roofline_t *rf, SDL_Renderer *r, text_t *t, const SDL_Rect *area,
                    simt_err_t *err)
{
    rf_ctx_t c;
    SDL_Rect old_clip;
    int had_clip, top, left, lw, ylab_h, tick_w = 0, k, bottom;
    const SDL_Color white = { 255, 255, 255, 255 };
    char buf[32];
    if (!rf || !r || !t || !area)
        return simt_errf(err, SIMT_E_USAGE, "roofline: nothing to draw on");
    if (roofline_check(rf, err))
        return -1;
    if (area->w < 320 || area->h < 240)
        return simt_errf(err, SIMT_E_USAGE, "roofline: area %dx%d is smaller than 320x240",
                         area->w, area->h);
    memset(&c, 0, sizeof c);
    c.r = r;
    c.t = t;
    c.rf = rf;
    c.s = fmin(area->w / 1280.0, area->h / 720.0);
    c.fs_title = scaled(c.s, 30);
    c.fs_sub = scaled(c.s, 19);
    c.fs_label = scaled(c.s, 21);
    c.fs_tick = scaled(c.s, 20);
    c.fs_point = scaled(c.s, 20);
    c.fs_small = scaled(c.s, 18);
    had_clip = SDL_RenderIsClipEnabled(r);
    SDL_RenderGetClipRect(r, &old_clip);
    SDL_RenderSetClipRect(r, area);
    fill(&c, area->x, area->y, area->w, area->h, white);
    /* title and subtitle */
    top = area->y + (int)lround(10 * c.s);
    label(&c, rf->title ? rf->title : "Roofline", area->x + area->w / 2, top, 1, 0, c.fs_title,
          TEXT_BOLD, ink, NULL);
    top += text_height(t, c.fs_title);
    if (rf->subtitle && rf->subtitle[0]) {
        label(&c, rf->subtitle, area->x + area->w / 2, top, 1, 0, c.fs_sub, TEXT_SANS, grey_ink,
              NULL);
        top += text_height(t, c.fs_sub);
    }
    /* the plot: y label and ticks on the left, legend on the right */
    ranges(&c);
    for (k = (int)ceil(c.ly0); k <= (int)floor(c.ly1); k++) {
        int w;
        decade_label(k, buf, sizeof buf);
        w = text_width(t, buf, c.fs_tick, TEXT_SANS);
        if (w > tick_w)
            tick_w = w;
    }
    ylab_h = text_height(t, c.fs_label);
    left = area->x + (int)lround(10 * c.s) + ylab_h + (int)lround(10 * c.s) + tick_w
           + (int)lround(20 * c.s);
    lw = legend_width(&c, area->w);
    bottom = text_height(t, c.fs_tick) + text_height(t, c.fs_label) + (int)lround(26 * c.s);
    c.px = left;
    c.py = top + (int)lround(16 * c.s);
    c.pw = area->x + area->w - c.px - lw - (int)lround((lw ? 36 : 24) * c.s);
    c.ph = area->y + area->h - c.py - bottom;
    draw_grid(&c);
    label(&c, "arithmetic intensity: FLOP per DRAM byte (log scale)", c.px + c.pw / 2,
          area->y + area->h - (int)lround(8 * c.s), 1, 2, c.fs_label, TEXT_SANS, ink, NULL);
    text_draw_rotated(t, "achieved TFLOP/s (log scale)",
                      area->x + (int)lround(10 * c.s) + ylab_h / 2, c.py + c.ph / 2, -90.0,
                      c.fs_label, TEXT_SANS, ink);
    {
        SDL_Rect plot = { c.px, c.py, c.pw, c.ph }, inside;
        SDL_IntersectRect(&plot, area, &inside);
        SDL_RenderSetClipRect(r, &inside); /* lines and labels stay in the plot */
        draw_ridge(&c);
        draw_bandwidths(&c);
        draw_roofs(&c);
        draw_ridge_mark(&c);
        draw_points(&c);
        SDL_RenderSetClipRect(r, area);
    }
    draw_legend(&c, c.px + c.pw + (int)lround(24 * c.s), c.py, lw, c.ph);
    SDL_RenderSetClipRect(r, had_clip ? &old_clip : NULL);
    return 0;
}

int roofline_draw(const roofline_t *rf, SDL_Surface *s, const SDL_Rect *area, simt_err_t *err)
{
    SDL_Renderer *r;
    text_t *t;
    SDL_Rect all;
    int rc;
    if (!s)
        return simt_errf(err, SIMT_E_USAGE, "roofline: no surface to draw on");
    if (roofline_check(rf, err))
        return -1;
    all.x = all.y = 0;
    all.w = s->w;
    all.h = s->h;
    if (!(r = SDL_CreateSoftwareRenderer(s)))
        return simt_errf(err, SIMT_E_USAGE, "roofline: cannot draw on the surface: %s",
                         SDL_GetError());
    if (!(t = text_open(r, err))) {
        SDL_DestroyRenderer(r);
        return -1;
    }
    rc = roofline_render(rf, r, t, area ? area : &all, err);
    SDL_RenderFlush(r);
    text_close(t);
    SDL_DestroyRenderer(r);
    return rc;
}

int roofline_save_png(const roofline_t *rf, const char *path, simt_err_t *err)
{
    if (!path || !path[0])
        return simt_errf(err, SIMT_E_USAGE, "roofline: no file name to write");
    FILE *f = fopen(path, "wb");
    if (!f)
        return simt_errf(err, SIMT_E_USAGE, "roofline: cannot write '%s'", path);
    return roofline_save_png_file(rf, f, path, err);
}

int roofline_save_png_file(const roofline_t *rf, FILE *f, const char *path, simt_err_t *err)
{
    int w = rf->width ? rf->width : 1280, h = rf->height ? rf->height : 720, rc;
    SDL_Surface *s;
    if (roofline_check(rf, err)) {
        fclose(f);
        return -1;
    }
    s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) {
        fclose(f);
        return simt_errf(err, SIMT_E_NOMEM, "roofline: cannot create a %dx%d picture: %s", w, h,
                         SDL_GetError());
    }
    rc = roofline_draw(rf, s, NULL, err);
    if (rc == 0)
        rc = view_png_write(s, f, "roofline", path, err);
    else
        fclose(f);
    SDL_FreeSurface(s);
    return rc;
}
