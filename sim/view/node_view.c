/* node_view.c - a node of GPUs and its links as a PNG (see node_view.h). */
#include "node_view.h"

#include "png.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>

#include "chart.h"
#include "palette.h"

#define PI 3.14159265358979323846

typedef struct ctx {
    SDL_Surface *s;
    TTF_Font *big, *small;
} ctx_t;

static Uint32 col(const ctx_t *c, SDL_Color k) { return SDL_MapRGB(c->s->format, k.r, k.g, k.b); }

static void fill(ctx_t *c, int x, int y, int w, int h, Uint32 k)
{
    SDL_Rect r = { x, y, w, h };
    SDL_FillRect(c->s, &r, k);
}

/* A line `width` pixels wide (square pen, Bresenham). */
static void line(ctx_t *c, int xa, int ya, int xb, int yb, int width, Uint32 k)
{
    int dx = abs(xb - xa), sx = xa < xb ? 1 : -1;
    int dy = -abs(yb - ya), sy = ya < yb ? 1 : -1;
    int e = dx + dy;
    for (;;) {
        int e2 = 2 * e;
        fill(c, xa - width / 2, ya - width / 2, width, width, k);
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

/* Text centred on (x, y) (ax 1) or from its left (ax 0). */
static void text(ctx_t *c, TTF_Font *f, const char *str, int x, int y, int ax, SDL_Color k)
{
    if (!str || !str[0])
        return;
    SDL_Surface *t = TTF_RenderUTF8_Blended(f, str, k);
    if (!t)
        return;
    SDL_Rect d = { ax ? x - t->w / 2 : x, y - t->h / 2, t->w, t->h };
    SDL_BlitSurface(t, NULL, c->s, &d);
    SDL_FreeSurface(t);
}

/* Where GPU i (or the hub, i < 0) sits: on an ellipse r wide, r * 5/8
 * high (the picture is wider than high). */
static void place(const node_view_t *v, int i, int cx, int cy, int r, int *x, int *y)
{
    if (i < 0 || v->ngpus == 1) {
        *x = cx;
        *y = i < 0 ? cy : cy - r * 5 / 8;
        return;
    }
    double a = -PI / 2 + 2 * PI * i / v->ngpus;
    *x = cx + (int)lround(r * cos(a));
    *y = cy + (int)lround(r * 5 / 8 * sin(a));
}

static void draw(ctx_t *c, const node_view_t *v, int w, int h)
{
    SDL_Color ink = { 30, 30, 30, 255 }, grey = { 200, 200, 200, 255 }, pale = { 235, 238, 242, 255 };
    SDL_Color busy = view_palette[1], box = view_palette[4];
    int cx = w / 2, cy = h / 2 + 20, r = (w - 220) / 2;
    text(c, c->big, v->title, w / 2, 22, 1, ink);
    text(c, c->small, v->subtitle, w / 2, 50, 1, ink);
    /* links under the boxes: a thin grey line for the link, a thick
     * coloured one for how busy it was */
    for (int k = 0; k < v->nlinks; k++) {
        const node_view_link_t *l = &v->links[k];
        int xa, ya, xb, yb;
        place(v, l->a, cx, cy, r, &xa, &ya);
        place(v, l->b, cx, cy, r, &xb, &yb);
        double u = l->cap_gbs > 0 ? l->gbs / l->cap_gbs : 0;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        line(c, xa, ya, xb, yb, 22, col(c, pale));
        line(c, xa, ya, xb, yb, 2, col(c, grey));
        if (u > 0)
            line(c, xa, ya, xb, yb, 2 + (int)lround(20 * u), col(c, busy));
    }
    /* the labels after every line, on a white patch: on a hub link 60% of
     * the way out to the GPU, on a ring link outside the ring */
    for (int k = 0; k < v->nlinks; k++) {
        const node_view_link_t *l = &v->links[k];
        int xa, ya, xb, yb, lx, ly;
        place(v, l->a, cx, cy, r, &xa, &ya);
        place(v, l->b, cx, cy, r, &xb, &yb);
        if (l->a < 0 || l->b < 0) {
            int hx = l->a < 0 ? xa : xb, hy = l->a < 0 ? ya : yb, gx = l->a < 0 ? xb : xa, gy = l->a < 0 ? yb : ya;
            lx = hx + (int)lround(0.55 * (gx - hx));
            ly = hy + (int)lround(0.55 * (gy - hy));
        } else {
            double mx = (xa + xb) / 2.0 - cx, my = (ya + yb) / 2.0 - cy, d = sqrt(mx * mx + my * my);
            lx = cx + (int)lround(d > 0 ? mx * (d + 30) / d : 0);
            ly = cy + (int)lround(d > 0 ? my * (d + 30) / d : 0);
        }
        double u = l->cap_gbs > 0 ? l->gbs / l->cap_gbs : 0;
        char lab[64];
        snprintf(lab, sizeof lab, "%.3g GB/s (%.0f%%)", l->gbs, 100 * (u > 1 ? 1 : u));
        int tw = 0, th = 0;
        TTF_SizeUTF8(c->small, lab, &tw, &th);
        fill(c, lx - tw / 2 - 3, ly - th / 2 - 1, tw + 6, th + 2, col(c, (SDL_Color){ 255, 255, 255, 255 }));
        text(c, c->small, lab, lx, ly, 1, ink);
    }
    if (v->hub_label) {
        int tw = 0, th = 0;
        TTF_SizeUTF8(c->small, v->hub_label, &tw, &th);
        int bw = tw + 24 > 140 ? tw + 24 : 140;
        fill(c, cx - bw / 2, cy - 24, bw, 48, col(c, ink));
        fill(c, cx - bw / 2 + 2, cy - 22, bw - 4, 44, col(c, grey));
        text(c, c->small, v->hub_label, cx, cy, 1, ink);
    }
    for (int i = 0; i < v->ngpus; i++) {
        int x, y;
        char lab[32];
        place(v, i, cx, cy, r, &x, &y);
        fill(c, x - 46, y - 30, 92, 60, col(c, ink));
        fill(c, x - 44, y - 28, 88, 56, col(c, box));
        snprintf(lab, sizeof lab, "GPU %d", i + 1);
        text(c, c->big, lab, x, y - 10, 1, ink);
        text(c, c->small, v->gpu_label, x, y + 14, 1, ink);
    }
    text(c, c->small, "line thickness: bytes the busier direction moved / (its bandwidth x the time shown)",
         w / 2, h - 20, 1, ink);
}

int node_view_save_png_file(const node_view_t *v, FILE *f, const char *path, simt_err_t *err)
{
    ctx_t c;
    char font[1024];
    int w = v->width ? v->width : 960, h = v->height ? v->height : 640, rc = -1, ttf = 0;
    memset(&c, 0, sizeof c);
    if (v->ngpus < 1 || v->ngpus > NODE_VIEW_MAX_GPUS || v->nlinks < 0 || v->nlinks > 2 * NODE_VIEW_MAX_GPUS
        || w < 400 || h < 300 || w > 4000 || h > 4000) {
        fclose(f);
        return simt_errf(err, SIMT_E_USAGE, "node picture: 1..%d GPUs, 400x300..4000x4000 pixels",
                         NODE_VIEW_MAX_GPUS);
    }
    if (!chart_find_font(font, sizeof font)) {
        fclose(f);
        return simt_errf(err, SIMT_E_USAGE, "node picture: cannot find the font DejaVuSans.ttf");
    }
    if (TTF_Init() != 0) {
        simt_errf(err, SIMT_E_USAGE, "node picture: cannot start SDL_ttf: %s", TTF_GetError());
        goto out;
    }
    ttf = 1;
    c.big = TTF_OpenFont(font, 18);
    c.small = TTF_OpenFont(font, 14);
    c.s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!c.big || !c.small || !c.s) {
        simt_errf(err, SIMT_E_USAGE, "node picture: cannot set up fonts or the picture");
        goto out;
    }
    SDL_FillRect(c.s, NULL, SDL_MapRGB(c.s->format, 255, 255, 255));
    draw(&c, v, w, h);
    rc = view_png_write(c.s, f, "node picture", path, err);
    f = NULL;   /* closed */
    if (rc != 0)
        goto out;
    rc = 0;
out:
    if (f)
        fclose(f);
    if (c.s)
        SDL_FreeSurface(c.s);
    if (c.big)
        TTF_CloseFont(c.big);
    if (c.small)
        TTF_CloseFont(c.small);
    if (ttf)
        TTF_Quit();
    return rc;
}
