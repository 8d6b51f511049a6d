/* chart.c - a labelled line chart saved as a PNG (see chart.h).
 *
 * Layout (pixels): the title on top, the plot area in the middle with a
 * light grid at the y ticks, tick labels left of and under the axes, the
 * axis labels outside them (the y label turned a quarter left), and a
 * legend in the plot's top right corner. Everything is drawn on one
 * 32-bit software surface: lines with Bresenham's algorithm two pixels
 * wide, points as filled squares, text blended from SDL2_ttf.
 */
#include "chart.h"

#include "png.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>

#include "palette.h"
#include "text.h"

#define CHART_MAX_TICKS 64

/* Line colours: the Okabe-Ito palette (palette.h), one per series. */
#if CHART_MAX_SERIES > VIEW_PALETTE_N
#error "chart: more series than palette colours"
#endif

/* Drawing state: the surface, fonts and the plot rectangle. */
typedef struct chart_ctx {
    SDL_Surface *s;          /* the picture (ARGB8888)                     */
    TTF_Font *title_font;    /* 20 px                                      */
    TTF_Font *label_font;    /* 15 px axis labels and legend               */
    TTF_Font *tick_font;     /* 13 px tick labels                          */
    TTF_Font *cjk[3];        /* the same sizes in the CJK font (or NULL):
                              * Chinese titles, labels and legends        */
    int px, py, pw, ph;      /* plot area: left, top, width, height        */
    double x0, x1, y0, y1;   /* data range shown (x in log10 if log_x)     */
    int log_x;
} chart_ctx_t;

const char *chart_find_font(char *out, size_t n)
{
    static const char *const places[] = {
        "assets/fonts/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        "/usr/local/share/fonts/DejaVuSans.ttf",
    };
    const char *env = getenv("SIMTLAB_FONT");
    size_t i;
    FILE *f;
    if (env && env[0] && (f = fopen(env, "rb")) != NULL) {
        fclose(f);
        snprintf(out, n, "%s", env);
        return out;
    }
    for (i = 0; i < sizeof places / sizeof places[0]; i++) {
        if ((f = fopen(places[i], "rb")) != NULL) {
            fclose(f);
            snprintf(out, n, "%s", places[i]);
            return out;
        }
    }
    return NULL;
}

static Uint32 rgb(const chart_ctx_t *c, Uint8 r, Uint8 g, Uint8 b)
{
    return SDL_MapRGB(c->s->format, r, g, b);
}

static void fill(chart_ctx_t *c, int x, int y, int w, int h, Uint32 col)
{
    SDL_Rect r = { x, y, w, h };
    SDL_FillRect(c->s, &r, col);
}

/* A line two pixels wide from (xa, ya) to (xb, yb) (Bresenham). */
static void line(chart_ctx_t *c, int xa, int ya, int xb, int yb, Uint32 col)
{
    int dx = abs(xb - xa), sx = xa < xb ? 1 : -1;
    int dy = -abs(yb - ya), sy = ya < yb ? 1 : -1;
    int e = dx + dy;
    for (;;) {
        int e2 = 2 * e; /* both tests use the error before this step */
        fill(c, xa, ya, 2, 2, col);
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

/* The font for str: the CJK font of font's size when str has Chinese (a
 * UTF-8 lead byte of U+3000 and above) and there is one, else font. */
static TTF_Font *pick(const chart_ctx_t *c, TTF_Font *font, const char *str)
{
    int cjk = 0;
    for (const unsigned char *p = (const unsigned char *)str; p && *p && !cjk; p++)
        cjk = *p >= 0xE3 && *p <= 0xEF;
    if (!cjk)
        return font;
    TTF_Font *f = font == c->title_font ? c->cjk[0] : font == c->label_font ? c->cjk[1] : c->cjk[2];
    return f ? f : font;
}

/* Draw text with its anchor at (x, y): ax/ay 0 = left/top, 1 = centre,
 * 2 = right/bottom. rotate: turn a quarter left (for the y label).
 * Returns the drawn width (after turning), 0 for empty text. */
static int text(chart_ctx_t *c, TTF_Font *font, const char *str, int x, int y, int ax, int ay,
                int rotate)
{
    SDL_Color black = { 30, 30, 30, 255 };
    SDL_Surface *t, *r = NULL;
    SDL_Rect dst;
    int w;
    if (!str || !str[0])
        return 0;
    t = TTF_RenderUTF8_Blended(pick(c, font, str), str, black);
    if (!t)
        return 0;
    if (rotate) {
        SDL_Surface *a = SDL_ConvertSurfaceFormat(t, SDL_PIXELFORMAT_ARGB8888, 0);
        if (a)
            r = SDL_CreateRGBSurfaceWithFormat(0, a->h, a->w, 32, SDL_PIXELFORMAT_ARGB8888);
        if (a && r) {
            int i, j;
            SDL_LockSurface(a);
            SDL_LockSurface(r);
            for (j = 0; j < a->h; j++)
                for (i = 0; i < a->w; i++) {
                    const Uint32 *sp = (const Uint32 *)(const void *)((const Uint8 *)a->pixels
                                                                      + j * a->pitch) + i;
                    Uint32 *dp = (Uint32 *)(void *)((Uint8 *)r->pixels
                                                    + (a->w - 1 - i) * r->pitch) + j;
                    *dp = *sp;
                }
            SDL_UnlockSurface(r);
            SDL_UnlockSurface(a);
            SDL_SetSurfaceBlendMode(r, SDL_BLENDMODE_BLEND);
        }
        SDL_FreeSurface(a);
        SDL_FreeSurface(t);
        if (!r)
            return 0;
        t = r;
    }
    dst.w = t->w;
    dst.h = t->h;
    dst.x = x - (ax == 1 ? t->w / 2 : ax == 2 ? t->w : 0);
    dst.y = y - (ay == 1 ? t->h / 2 : ay == 2 ? t->h : 0);
    SDL_BlitSurface(t, NULL, c->s, &dst);
    w = t->w;
    SDL_FreeSurface(t);
    return w;
}

static int label_width(const chart_ctx_t *c, TTF_Font *font, const char *str)
{
    int w = 0, h = 0;
    if (TTF_SizeUTF8(pick(c, font, str), str, &w, &h) != 0)
        return 0;
    return w;
}

/* A "nice" step (1, 2 or 5 x 10^k) giving about `want` intervals. */
static double nice_step(double range, int want)
{
    double raw = range / want, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * mag;
}

/* A tick label: 1500000 -> "1.5M", 250000 -> "250k", 0.25 -> "0.25". */
static void tick_label(double v, double step, char *buf, size_t n)
{
    double a = fabs(step) > fabs(v) ? fabs(step) : fabs(v);
    const char *suffix = "";
    double scale = 1.0;
    int dec;
    if (a >= 1e9) {
        scale = 1e9;
        suffix = "G";
    } else if (a >= 1e6) {
        scale = 1e6;
        suffix = "M";
    } else if (a >= 1e4) {
        scale = 1e3;
        suffix = "k";
    }
    dec = step > 0 ? (int)ceil(-log10(step / scale) - 1e-9) : 0;
    if (dec < 0)
        dec = 0;
    if (dec > 6)
        dec = 6;
    if (fabs(v) < step * 1e-9)
        v = 0.0; /* no "-0" */
    snprintf(buf, n, "%.*f%s", dec, v / scale, suffix);
}

static int map_x(const chart_ctx_t *c, double x)
{
    double v = c->log_x ? log10(x) : x;
    return c->px + (int)lround((v - c->x0) / (c->x1 - c->x0) * (c->pw - 1));
}

static int map_y(const chart_ctx_t *c, double y)
{
    return c->py + c->ph - 1 - (int)lround((y - c->y0) / (c->y1 - c->y0) * (c->ph - 1));
}

/* Check the input; fill the data ranges of ctx. */
static int check_input(const chart_t *ch, chart_ctx_t *c, simt_err_t *err)
{
    double xmin = HUGE_VAL, xmax = -HUGE_VAL, ymin = HUGE_VAL, ymax = -HUGE_VAL;
    size_t i, k;
    if (ch->n < 1 || !ch->x)
        return simt_errf(err, SIMT_E_USAGE, "chart: needs at least one point");
    if (ch->nseries < 1 || ch->nseries > CHART_MAX_SERIES || !ch->series)
        return simt_errf(err, SIMT_E_USAGE, "chart: needs 1 to %d series, got %zu",
                         CHART_MAX_SERIES, ch->nseries);
    for (i = 0; i < ch->n; i++) {
        if (!isfinite(ch->x[i]))
            return simt_errf(err, SIMT_E_USAGE, "chart: x[%zu] is not a finite number", i + 1);
        if (ch->log_x && ch->x[i] <= 0)
            return simt_errf(err, SIMT_E_USAGE,
                             "chart: a logarithmic x axis needs x > 0, x[%zu] = %g", i + 1,
                             ch->x[i]);
        if (ch->x[i] < xmin) xmin = ch->x[i];
        if (ch->x[i] > xmax) xmax = ch->x[i];
        for (k = 0; k < ch->nseries; k++) {
            double y = ch->series[k].y[i];
            if (!isfinite(y))
                continue;
            if (y < ymin) ymin = y;
            if (y > ymax) ymax = y;
        }
    }
    if (ymin > ymax)
        return simt_errf(err, SIMT_E_USAGE, "chart: no finite y value to draw");
    c->log_x = ch->log_x;
    if (ch->log_x) {
        xmin = log10(xmin);
        xmax = log10(xmax);
    }
    if (xmax - xmin < 1e-12) {
        xmin -= 1.0;
        xmax += 1.0;
    }
    c->x0 = xmin - (xmax - xmin) * 0.04;
    c->x1 = xmax + (xmax - xmin) * 0.04;
    /* y from 0 (or the lowest value if negative) to a nice step above the top */
    if (ymin > 0)
        ymin = 0;
    if (ymax - ymin < 1e-12)
        ymax = ymin + 1.0;
    {
        double step = nice_step(ymax - ymin, 5);
        c->y0 = floor(ymin / step) * step;
        c->y1 = ceil(ymax / step) * step;
        if (c->y1 - ymax < step * 0.05)
            c->y1 += step * 0.5; /* room above the highest point */
    }
    return 0;
}

static void draw_axes(chart_ctx_t *c, const chart_t *ch)
{
    Uint32 grid = rgb(c, 225, 225, 225), axis = rgb(c, 60, 60, 60);
    double step = nice_step(c->y1 - c->y0, 5), v;
    char buf[64];
    int i, last_right = -1000000;
    /* y ticks and grid */
    for (i = 0, v = c->y0; v <= c->y1 + step * 1e-6 && i < CHART_MAX_TICKS; i++) {
        int y = map_y(c, v);
        fill(c, c->px, y, c->pw, 1, grid);
        fill(c, c->px - 6, y, 6, 1, axis);
        tick_label(v, step, buf, sizeof buf);
        text(c, c->tick_font, buf, c->px - 10, y, 2, 1, 0);
        v = c->y0 + (i + 1) * step;
    }
    /* x ticks: at the data points on a log axis (sweeps: 1, 2, 4, ...),
     * at nice steps on a linear one; a label that would overlap the last
     * one is left out */
    if (c->log_x) {
        size_t k;
        for (k = 0; k < ch->n; k++) {
            int x = map_x(c, ch->x[k]), w;
            fill(c, x, c->py + c->ph, 1, 6, axis);
            snprintf(buf, sizeof buf, "%g", ch->x[k]);
            w = label_width(c, c->tick_font, buf);
            if (x - w / 2 > last_right + 6) {
                text(c, c->tick_font, buf, x, c->py + c->ph + 9, 1, 0, 0);
                last_right = x + w / 2;
            }
        }
    } else {
        double xs = nice_step(c->x1 - c->x0, 6);
        double start = ceil(c->x0 / xs) * xs;
        for (i = 0, v = start; v <= c->x1 && i < CHART_MAX_TICKS; i++) {
            int x = map_x(c, v), w;
            fill(c, x, c->py + c->ph, 1, 6, axis);
            tick_label(v, xs, buf, sizeof buf);
            w = label_width(c, c->tick_font, buf);
            if (x - w / 2 > last_right + 6) {
                text(c, c->tick_font, buf, x, c->py + c->ph + 9, 1, 0, 0);
                last_right = x + w / 2;
            }
            v = start + (i + 1) * xs;
        }
    }
    /* axes on top of the grid */
    fill(c, c->px - 1, c->py, 2, c->ph + 1, axis);
    fill(c, c->px - 1, c->py + c->ph, c->pw + 1, 2, axis);
}

static void draw_series(chart_ctx_t *c, const chart_t *ch)
{
    size_t k, i;
    for (k = 0; k < ch->nseries; k++) {
        SDL_Color pc = view_palette[k];
        Uint32 col = rgb(c, pc.r, pc.g, pc.b);
        int have_prev = 0, prev_x = 0, prev_y = 0;
        for (i = 0; i < ch->n; i++) {
            double y = ch->series[k].y[i];
            int x, yy;
            if (!isfinite(y)) {
                have_prev = 0;
                continue;
            }
            x = map_x(c, ch->x[i]);
            yy = map_y(c, y);
            if (have_prev)
                line(c, prev_x, prev_y, x, yy, col);
            have_prev = 1;
            prev_x = x;
            prev_y = yy;
        }
        for (i = 0; i < ch->n; i++) { /* points over the lines */
            double y = ch->series[k].y[i];
            if (isfinite(y))
                fill(c, map_x(c, ch->x[i]) - 3, map_y(c, y) - 3, 8, 8, col);
        }
    }
}

static void draw_legend(chart_ctx_t *c, const chart_t *ch)
{
    size_t k, shown = 0;
    int w = 0, row = TTF_FontLineSkip(c->label_font), x, y;
    for (k = 0; k < ch->nseries; k++) {
        const char *name = ch->series[k].name;
        if (name && name[0]) {
            int tw = label_width(c, c->label_font, name);
            if (tw > w)
                w = tw;
            shown++;
        }
    }
    if (!shown)
        return;
    x = c->px + c->pw - w - 44;
    y = c->py + 8;
    fill(c, x - 1, y - 1, w + 38, (int)shown * row + 10, rgb(c, 160, 160, 160));
    fill(c, x, y, w + 36, (int)shown * row + 8, rgb(c, 255, 255, 255));
    y += 4;
    for (k = 0; k < ch->nseries; k++) {
        SDL_Color pc = view_palette[k];
        const char *name = ch->series[k].name;
        if (!name || !name[0])
            continue;
        fill(c, x + 6, y + row / 2 - 1, 20, 3, rgb(c, pc.r, pc.g, pc.b));
        text(c, c->label_font, name, x + 30, y, 0, 0, 0);
        y += row;
    }
}

int chart_save_png(const chart_t *ch, const char *path, simt_err_t *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return simt_errf(err, SIMT_E_USAGE, "chart: cannot write '%s'", path);
    return chart_save_png_file(ch, f, path, err);
}

int chart_save_png_file(const chart_t *ch, FILE *f, const char *path, simt_err_t *err)
{
    chart_ctx_t c;
    char font[1024];
    const char *fpath = ch->font_path;
    int w = ch->width ? ch->width : 800, h = ch->height ? ch->height : 500;
    int rc = -1, ttf_up = 0;
    memset(&c, 0, sizeof c);
    if (w < 200 || w > 8000 || h < 150 || h > 8000) {
        fclose(f);
        return simt_errf(err, SIMT_E_USAGE, "chart: size %dx%d is outside 200x150..8000x8000",
                         w, h);
    }
    if (check_input(ch, &c, err)) {
        fclose(f);
        return -1;
    }
    if (!fpath && !(fpath = chart_find_font(font, sizeof font))) {
        fclose(f);
        return simt_errf(err, SIMT_E_USAGE,
                         "chart: cannot find the font DejaVuSans.ttf (install fonts-dejavu-core, "
                         "or set SIMTLAB_FONT to a .ttf file)");
    }
    if (TTF_Init() != 0) {
        simt_errf(err, SIMT_E_USAGE, "chart: cannot start SDL_ttf: %s", TTF_GetError());
        goto out;
    }
    ttf_up = 1;
    c.title_font = TTF_OpenFont(fpath, 20);
    c.label_font = TTF_OpenFont(fpath, 15);
    c.tick_font = TTF_OpenFont(fpath, 13);
    if (!c.title_font || !c.label_font || !c.tick_font) {
        simt_errf(err, SIMT_E_USAGE, "chart: cannot open font '%s': %s", fpath, TTF_GetError());
        goto out;
    }
    TTF_SetFontHinting(c.tick_font, TTF_HINTING_NORMAL);
    {
        char cjk[1024];
        static const int sizes[3] = { 20, 15, 13 };
        if (text_find_font("wqy-microhei.ttc", cjk, sizeof cjk))
            for (int k = 0; k < 3; k++)
                c.cjk[k] = TTF_OpenFont(cjk, sizes[k]);
    }
    c.s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!c.s) {
        simt_errf(err, SIMT_E_NOMEM, "chart: cannot create a %dx%d picture: %s", w, h,
                  SDL_GetError());
        goto out;
    }
    SDL_FillRect(c.s, NULL, rgb(&c, 255, 255, 255));
    c.px = 96;
    c.py = 56;
    c.pw = w - c.px - 32;
    c.ph = h - c.py - 76;
    draw_axes(&c, ch);
    draw_series(&c, ch);
    draw_legend(&c, ch);
    text(&c, c.title_font, ch->title, w / 2, 16, 1, 0, 0);
    text(&c, c.label_font, ch->x_label, c.px + c.pw / 2, h - 14, 1, 2, 0);
    text(&c, c.label_font, ch->y_label, 14, c.py + c.ph / 2, 0, 1, 1);
    rc = view_png_write(c.s, f, "chart", path, err);
    f = NULL;   /* closed */
    if (rc != 0)
        goto out;
    rc = 0;
out:
    if (f)
        fclose(f);
    if (c.s)
        SDL_FreeSurface(c.s);
    if (c.title_font)
        TTF_CloseFont(c.title_font);
    if (c.label_font)
        TTF_CloseFont(c.label_font);
    if (c.tick_font)
        TTF_CloseFont(c.tick_font);
    for (int k = 0; k < 3; k++)
        if (c.cjk[k])
            TTF_CloseFont(c.cjk[k]);
    if (ttf_up)
        TTF_Quit();
    return rc;
}
