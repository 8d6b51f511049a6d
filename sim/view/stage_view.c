/* stage_view.c - draw the classroom stage (see stage_view.h).
 *
 * Everything is drawn with SDL_Renderer calls (rectangles, lines, text
 * textures), so the same code draws into a window or, headless, into a
 * software surface. Sizes are given at zoom 1 and scaled by S(). Each
 * element that a student may point at leaves a "hint" (its rectangle and
 * one sentence in both languages); the tooltip under the mouse is drawn
 * last.
 */
#include "stage_view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_HINTS 96
#define BODY 18          /* body text, px at zoom 1 */
#define SMALL 16         /* axis and legend details */
#define HEAD 22          /* titles */

typedef struct hint {
    SDL_Rect r;
    const char *en, *zh;
    char buf[400];       /* en text when it is made up on the fly */
    char bufzh[400];
} hint_t;

typedef struct theme {
    SDL_Color bg, panel, ink, muted, grid, accent, empty, bar_bg;
} theme_t;

typedef struct ctx {
    SDL_Renderer *r;
    text_t *t;
    const view_model_t *m;
    double z;
    theme_t th;
    hint_t hints[MAX_HINTS];
    int nhints;
} ctx_t;

/* Okabe & Ito's colour-blind-safe palette. */
static const SDL_Color OI_BLACK = { 0, 0, 0, 255 }, OI_ORANGE = { 230, 159, 0, 255 },
                       OI_SKY = { 86, 180, 233, 255 }, OI_GREEN = { 0, 158, 115, 255 },
                       OI_YELLOW = { 240, 228, 66, 255 }, OI_BLUE = { 0, 114, 178, 255 },
                       OI_VERMILLION = { 213, 94, 0, 255 }, OI_PURPLE = { 204, 121, 167, 255 };

SDL_Color view_status_color(int status, int dark)
{
    SDL_Color empty = dark ? (SDL_Color){ 52, 56, 62, 255 } : (SDL_Color){ 226, 228, 232, 255 };
    switch (status) {
    case REC_ISSUE_FP32: return OI_GREEN;
    case REC_ISSUE_TENSOR: return OI_PURPLE;
    case REC_ISSUE_MEMORY: return OI_BLUE;
    case REC_ISSUE_OTHER: return OI_SKY;
    case REC_READY: return OI_YELLOW;
    case REC_WAIT_MEMORY: return OI_VERMILLION;
    case REC_WAIT_DEPENDENCY: return OI_ORANGE;
    case REC_WAIT_PIPE: return (SDL_Color){ 245, 205, 140, 255 };
    case REC_BARRIER: return dark ? (SDL_Color){ 200, 200, 200, 255 } : OI_BLACK;
    case REC_DONE: return dark ? (SDL_Color){ 100, 104, 110, 255 } : (SDL_Color){ 170, 172, 176, 255 };
    default: return empty;
    }
}

static const char *const short_en[REC_STATUS_COUNT] = {
    "no warp", "FP32 math", "Tensor Core", "load/store", "integer/branch", "ready",
    "wait: memory", "wait: result", "unit busy", "barrier", "finished",
};
static const char *const short_zh[REC_STATUS_COUNT] = {
    "空槽位", "FP32 运算", "张量核心", "访存", "整数/分支", "就绪",
    "等内存", "等结果", "单元忙", "屏障", "已完成",
};
static const char *const status_en[REC_STATUS_COUNT] = {
    "no warp", "issuing FP32 math", "issuing Tensor Core math", "issuing a load/store",
    "issuing integer/branch", "ready, waiting its turn", "waiting for memory", "waiting for a result",
    "waiting for its unit (e.g. the load/store unit) to be free", "waiting at a barrier", "finished",
};
static const char *const status_zh[REC_STATUS_COUNT] = {
    "空闲槽位", "正在发射 FP32 运算", "正在发射 Tensor Core 运算", "正在发射访存指令",
    "正在发射整数/分支", "就绪，等待调度", "等待内存", "等待计算结果",
    "等待功能单元（例如访存单元）空闲", "在屏障处等待", "已完成",
};

static int S(const ctx_t *c, double v) { return (int)lround(v * c->z); }

static const char *tr(const ctx_t *c, const char *en, const char *zh)
{
    return c->m->zh && zh ? zh : en;
}

static void color(ctx_t *c, SDL_Color k)
{
    SDL_SetRenderDrawColor(c->r, k.r, k.g, k.b, k.a);
}

static void fill(ctx_t *c, int x, int y, int w, int h, SDL_Color k)
{
    SDL_Rect rc = { x, y, w, h };
    color(c, k);
    SDL_RenderFillRect(c->r, &rc);
}

static void frame_rect(ctx_t *c, int x, int y, int w, int h, SDL_Color k)
{
    SDL_Rect rc = { x, y, w, h };
    color(c, k);
    SDL_RenderDrawRect(c->r, &rc);
}

static SDL_Color blend(SDL_Color a, SDL_Color b, double f)
{
    SDL_Color o = { (Uint8)lround(a.r + (b.r - a.r) * f), (Uint8)lround(a.g + (b.g - a.g) * f),
                    (Uint8)lround(a.b + (b.b - a.b) * f), 255 };
    return o;
}

/* Text at zoom-scaled size; returns its width in pixels. */
static int txt(ctx_t *c, const char *s, int x, int y, int px, text_style_t st, SDL_Color k)
{
    return text_draw(c->t, s, x, y, S(c, px), st, k);
}

static int txt_w(ctx_t *c, const char *s, int px, text_style_t st)
{
    return text_width(c->t, s, S(c, px), st);
}

/* Text that must fit in maxw pixels: drawn smaller (down to SMALL) if it
 * is too wide, then cut with an ellipsis. Returns the width drawn. */
static int txt_fit(ctx_t *c, const char *s, int x, int y, int maxw, int px, text_style_t st, SDL_Color k)
{
    int size = px;
    while (size > SMALL && txt_w(c, s, size, st) > maxw)
        size--;
    if (txt_w(c, s, size, st) <= maxw)
        return txt(c, s, x, y + (text_height(c->t, S(c, px)) - text_height(c->t, S(c, size))), size, st, k);
    char buf[512];
    size_t n = strlen(s) < sizeof buf - 4 ? strlen(s) : sizeof buf - 4;
    memcpy(buf, s, n);
    for (;;) {
        while (n > 0 && ((unsigned char)buf[n - 1] & 0xC0) == 0x80)   /* whole UTF-8 characters */
            n--;
        if (n > 0)
            n--;
        memcpy(buf + n, "\xE2\x80\xA6", 4);   /* ... */
        if (n == 0 || txt_w(c, buf, size, st) <= maxw)
            break;
    }
    return txt(c, buf, x, y, size, st, k);
}

/* Word-wrapped text that must fit in a maxw x maxh box: drawn smaller
 * (down to SMALL) until it fits; if it still does not, the lines that fit
 * are drawn and the last one ends with an ellipsis. Returns the height
 * drawn. */
static int txt_wrap_fit(ctx_t *c, const char *s, int x, int y, int maxw, int maxh, int px, text_style_t st,
                        SDL_Color k)
{
    int size = px;
    while (size > SMALL && text_draw_wrapped(c->t, s, x, y, maxw, S(c, size), st, k, 0) > maxh)
        size--;
    if (text_draw_wrapped(c->t, s, x, y, maxw, S(c, size), st, k, 0) <= maxh)
        return text_draw_wrapped(c->t, s, x, y, maxw, S(c, size), st, k, 1);
    text_line_t lines[64];
    size_t n = text_wrap(c->t, s, maxw, S(c, size), st, lines, 64);
    int lh = text_height(c->t, S(c, size));
    size_t fit = maxh / lh > 0 ? (size_t)(maxh / lh) : 1;
    if (fit > n)
        fit = n;
    if (fit > 64)
        fit = 64;
    char buf[512];
    for (size_t i = 0; i < fit; i++) {
        size_t len = lines[i].len < sizeof buf - 4 ? lines[i].len : sizeof buf - 4;
        memcpy(buf, s + lines[i].start, len);
        if (i + 1 < fit) {
            buf[len] = '\0';
            txt(c, buf, x, y + (int)i * lh, size, st, k);
        } else {   /* the last line that fits: cut, with an ellipsis, to say there is more */
            memcpy(buf + len, "\xE2\x80\xA6", 4);
            txt_fit(c, buf, x, y + (int)i * lh, maxw, size, st, k);
        }
    }
    return (int)fit * lh;
}

/* Right-aligned text ending at x. */
static int txt_right(ctx_t *c, const char *s, int x, int y, int px, text_style_t st, SDL_Color k)
{
    int w = txt_w(c, s, px, st);
    txt(c, s, x - w, y, px, st, k);
    return w;
}

static hint_t *hint(ctx_t *c, int x, int y, int w, int h, const char *en, const char *zh)
{
    if (c->nhints >= MAX_HINTS)
        return NULL;
    hint_t *k = &c->hints[c->nhints++];
    k->r = (SDL_Rect){ x, y, w, h };
    k->en = en;
    k->zh = zh;
    k->buf[0] = k->bufzh[0] = '\0';
    return k;
}

/* A hint whose text is formatted now (both languages). */
static void hintf(ctx_t *c, int x, int y, int w, int h, const char *en, const char *zh)
{
    hint_t *k = hint(c, x, y, w, h, NULL, NULL);
    if (!k)
        return;
    snprintf(k->buf, sizeof k->buf, "%s", en);
    snprintf(k->bufzh, sizeof k->bufzh, "%s", zh);
    k->en = k->buf;
    k->zh = k->bufzh;
}

/* "1,234,567" */
static const char *commas(uint64_t v, char *buf, size_t n)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < len && o + 2 < (int)n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

/* A time in the unit that reads best: "812 ns", "403.4 µs", "3.21 ms", "1.5 s". */
static const char *fmt_time(double us, char *buf, size_t n)
{
    if (us < 1.0)
        snprintf(buf, n, "%.0f ns", us * 1e3);
    else if (us < 1e3)
        snprintf(buf, n, "%.1f µs", us);
    else if (us < 1e6)
        snprintf(buf, n, "%.2f ms", us / 1e3);
    else
        snprintf(buf, n, "%.2f s", us / 1e6);
    return buf;
}

/* A rate given in giga-units as "812 GB/s" or "1.25 TB/s" (g and t: the
 * unit's two names, e.g. "GB/s" and "TB/s"). */
static const char *fmt_giga(double v, const char *g, const char *t, char *buf, size_t n)
{
    if (v >= 1000.0)
        snprintf(buf, n, "%.2f %s", v / 1000.0, t);
    else if (v >= 10.0)
        snprintf(buf, n, "%.0f %s", v, g);
    else
        snprintf(buf, n, "%.2f %s", v, g);
    return buf;
}

static const char *fmt_rate(double gb, char *buf, size_t n) { return fmt_giga(gb, "GB/s", "TB/s", buf, n); }
static const char *fmt_flops(double gf, char *buf, size_t n) { return fmt_giga(gf, "GFLOP/s", "TFLOP/s", buf, n); }

/* ---- header ------------------------------------------------------------ */

static void draw_header(ctx_t *c, int h)
{
    const view_model_t *m = c->m;
    char a[64], line[200];
    fill(c, 0, 0, m->width, h, c->th.panel);
    int x = S(c, 16), y = (h - text_height(c->t, S(c, HEAD))) / 2;
    const char *title = tr(c, m->title_en ? m->title_en : "simtlab", m->title_zh);
    /* right: the time scale, the state, the key hint */
    fmt_time(m->speed_us, a, sizeof a);
    if (m->zh)
        snprintf(line, sizeof line, "这里 1 秒 = 模拟的 %s%s%s", a, m->paused ? " · 已暂停" : "",
                 m->scrubbing ? " · 回看中" : "");
    else
        snprintf(line, sizeof line, "1 second here = %s simulated%s%s", a, m->paused ? " · paused" : "",
                 m->scrubbing ? " · replay" : "");
    int right = m->width - S(c, 16);
    int kw = txt_right(c, tr(c, "H: help", "H: 帮助"), right, y + S(c, 3), BODY, TEXT_SANS, c->th.muted);
    int lw = txt_w(c, line, BODY, TEXT_BOLD);
    int room = right - kw - S(c, 24) - x;   /* the title and step get the rest, the time scale what is left */
    int tw = txt_w(c, title, HEAD, TEXT_BOLD), sw = m->step_en ? txt_w(c, tr(c, m->step_en, m->step_zh), BODY, TEXT_SANS) : 0;
    int left_w = tw + (sw ? S(c, 16) + sw : 0);
    if (left_w + S(c, 24) + lw > room)   /* too little room: the time scale gives way first */
        lw = room - left_w - S(c, 24) > S(c, 120) ? room - left_w - S(c, 24) : S(c, 120);
    if (left_w > room - lw - S(c, 24))
        left_w = room - lw - S(c, 24);
    int tmax = sw ? left_w - S(c, 16) - (sw < left_w / 3 ? sw : left_w / 3) : left_w;
    int drawn = txt_fit(c, title, x, y, tmax > tw ? tw : tmax, HEAD, TEXT_BOLD, c->th.ink);
    if (m->step_en && left_w - drawn - S(c, 16) > S(c, 8))
        txt_fit(c, tr(c, m->step_en, m->step_zh), x + drawn + S(c, 16), y + S(c, 3), left_w - drawn - S(c, 16), BODY,
                TEXT_SANS, c->th.muted);
    lw = txt_fit(c, line, right - kw - S(c, 24) - lw, y + S(c, 3), lw, BODY, TEXT_BOLD,
                 m->paused ? OI_VERMILLION : c->th.ink);
    hint(c, right - kw - S(c, 24) - lw, 0, lw, h,
         "The simulator slows time down so you can watch: Up/Down change the speed, Space pauses.",
         "模拟器把时间放慢，让你看清楚：上/下键调速度，空格键暂停。");
    if (m->lagging)
        txt_right(c, tr(c, "this computer cannot simulate that fast: slower than asked",
                        "电脑模拟不了这么快：实际比设定慢"),
                  right, y + S(c, 3) + S(c, 24), SMALL, TEXT_SANS, OI_VERMILLION);
}

/* ---- a lane: one run --------------------------------------------------- */

static const char *lane_name(const view_lane_t *L)
{
    return L->is_cpu ? L->cdesc->name : L->gdesc->name;
}

/* One SM as a box: a row per warp slot, a cell per lane. */
static void draw_sm_lanes(ctx_t *c, const view_lane_t *L, uint32_t sm, int x, int y, int w, int h)
{
    const rec_t *rec = L->rec;
    uint32_t slots = rec_slots(rec);
    const uint8_t *st = rec_frame_status(rec, L->frame);
    const uint32_t *act = rec_frame_active(rec, L->frame);
    const uint32_t *live = rec_frame_live(rec, L->frame);
    char lbl[32];
    fill(c, x, y, w, h, c->th.bar_bg);
    frame_rect(c, x, y, w, h, c->th.grid);
    snprintf(lbl, sizeof lbl, "SM %u", sm);
    int th = text_height(c->t, S(c, SMALL));
    txt(c, lbl, x + S(c, 4), y + S(c, 2), SMALL, TEXT_BOLD, c->th.ink);
    int gy = y + th + S(c, 4), gh = h - th - S(c, 8), gx = x + S(c, 4), gw = w - S(c, 8);
    int rowh = gh / (int)slots;
    int cell = gw / 32;
    if (rowh < 1 || cell < 1)
        return;
    int ch = rowh > 2 ? rowh - 1 : rowh;
    for (uint32_t s = 0; s < slots; s++) {
        size_t k = (size_t)sm * slots + s;
        int status = st ? st[k] : REC_EMPTY;
        SDL_Color on = view_status_color(status, c->m->dark);
        SDL_Color empty = view_status_color(REC_EMPTY, c->m->dark);
        SDL_Color masked = blend(on, c->th.bar_bg, 0.55);
        int cw = cell > 2 ? cell - 1 : cell;
        for (int lane = 0; lane < 32; lane++) {
            uint32_t bit = 1u << lane;
            int lx = gx + lane * cell, ly = gy + (int)s * rowh;
            int live_lane = status != REC_EMPTY && live && (live[k] & bit);
            int active = live_lane && act && (act[k] & bit);
            /* a lane of a warp that is there but has no thread (a partly
             * filled warp) or is switched off: hollow, "lane off" */
            int off = status != REC_EMPTY && status != REC_DONE && !active;
            if (off && cw >= 4 && ch >= 4) {
                /* switched off by divergence: hollow, in the warp's colour */
                fill(c, lx, ly, cw, ch, c->th.bar_bg);
                frame_rect(c, lx, ly, cw, ch, blend(on, OI_BLACK, 0.25));
            } else {
                fill(c, lx, ly, cw, ch, active ? on : live_lane ? masked : empty);
            }
        }
    }
    hintf(c, x, y, w, h,
          "One SM (streaming multiprocessor): each row is a warp slot, each small cell one of its 32 "
          "lanes (threads). Colours say what the warp is doing (legend on the right).",
          "一个 SM（流多处理器）：每一行是一个 warp 槽位，每个小格是它的 32 个线程之一。颜色表示这个 warp "
          "在做什么（图例在右边）。");
}

/* Many SMs: a grid of small squares, each a grid of its warp slots. */
static void draw_sm_grid(ctx_t *c, const view_lane_t *L, int x, int y, int w, int h)
{
    const rec_t *rec = L->rec;
    uint32_t nsm = rec_sms(rec), slots = rec_slots(rec);
    const uint8_t *st = rec_frame_status(rec, L->frame);
    uint32_t sc = 1;   /* columns of slots: the first divisor of slots at or above its square root */
    while (sc * sc < slots)
        sc++;
    while (slots % sc)
        sc++;
    uint32_t sr = slots / sc;
    /* columns of SMs that fill the area best */
    int best_cols = 1, best_px = 0;
    for (uint32_t cols = 1; cols <= nsm; cols++) {
        uint32_t rows = (nsm + cols - 1) / cols;
        int px = w / (int)(cols * (sc + 1));
        int py = h / (int)(rows * (sr + 1));
        int p = px < py ? px : py;
        if (p > best_px) {
            best_px = p;
            best_cols = (int)cols;
        }
    }
    int p = best_px < 1 ? 1 : best_px;
    int box = (int)sc * p, boxh = (int)sr * p, gap = p;
    int cols = best_cols;
    int rows = ((int)nsm + cols - 1) / cols;
    int ox = x + (w - cols * (box + gap)) / 2, oy = y + (h - rows * (boxh + gap)) / 2;
    for (uint32_t sm = 0; sm < nsm; sm++) {
        int bx = ox + (int)(sm % (uint32_t)cols) * (box + gap), by = oy + (int)(sm / (uint32_t)cols) * (boxh + gap);
        for (uint32_t s = 0; s < slots; s++) {
            int status = st ? st[(size_t)sm * slots + s] : REC_EMPTY;
            fill(c, bx + (int)(s % sc) * p, by + (int)(s / sc) * p, p, p, view_status_color(status, c->m->dark));
        }
    }
    char en[400], zh[400];
    snprintf(en, sizeof en, "All %u SMs of the %s; each small square is one SM and each dot in it one of its "
             "%u warp slots, coloured by what that warp is doing.", nsm, L->gdesc->name, slots);
    snprintf(zh, sizeof zh, "%s 的全部 %u 个 SM：每个小方块是一个 SM，里面每个点是它的 %u 个 warp 槽位之一，"
             "颜色表示这个 warp 在做什么。", L->gdesc->name, nsm, slots);
    hintf(c, x, y, w, h, en, zh);
}

static void draw_cpu(ctx_t *c, const view_lane_t *L, int x, int y, int w, int h)
{
    const rec_t *rec = L->rec;
    uint32_t cores = rec_sms(rec);
    const uint8_t *st = rec_frame_status(rec, L->frame);
    uint32_t cols = 1;
    while (cols * cols < cores)
        cols++;
    uint32_t rows = (cores + cols - 1) / cols;
    int cw = w / (int)cols, chh = h / (int)rows;
    int bw = cw, bh = chh;
    if (cores == 1) {   /* one core: a box big enough for its words */
        bw = S(c, 220) < w ? S(c, 220) : w;
        bh = S(c, 130) < h ? S(c, 130) : h;
    } else {
        bw = bh = cw < chh ? cw : chh;
    }
    int ox = x + (w - bw * (int)cols) / 2, oy = y + (h - bh * (int)rows) / 2;
    if (cores == 1)   /* room below for what it is running */
        oy = y + S(c, 4);
    for (uint32_t k = 0; k < cores; k++) {
        int status = st ? st[k * rec_slots(rec)] : REC_EMPTY;
        int bx = ox + (int)(k % cols) * bw, by = oy + (int)(k / cols) * bh;
        fill(c, bx + 2, by + 2, bw - 4, bh - 4, view_status_color(status, c->m->dark));
        frame_rect(c, bx + 2, by + 2, bw - 4, bh - 4, c->th.grid);
        if (cores == 1) {
            SDL_Color box = view_status_color(status, c->m->dark);   /* ink that reads on the box */
            SDL_Color ink = 0.299 * box.r + 0.587 * box.g + 0.114 * box.b < 140 ? (SDL_Color){ 255, 255, 255, 255 }
                                                                                : OI_BLACK;
            txt(c, tr(c, "1 core", "1 个核心"), bx + S(c, 12), by + S(c, 10), HEAD, TEXT_BOLD, ink);
            const char *what = status == REC_EMPTY ? tr(c, "idle", "空闲")
                               : status == REC_ISSUE_FP32 ? tr(c, "FP32 math", "FP32 运算")
                               : status == REC_ISSUE_MEMORY ? tr(c, "load / store", "访存")
                               : tr(c, "integer, branch", "整数、分支");
            txt(c, tr(c, "now:", "正在："), bx + S(c, 12), by + S(c, 44), BODY, TEXT_SANS, ink);
            txt(c, what, bx + S(c, 12), by + S(c, 68), BODY, TEXT_BOLD, ink);
            const rec_frame_t *f = rec_frame(rec, L->frame);
            if (f && status != REC_EMPTY && by + bh + S(c, 8) + 2 * text_height(c->t, S(c, BODY)) <= y + h) {
                char line[160];
                int ly = by + bh + S(c, 6);
                snprintf(line, sizeof line, tr(c, "block (%u, %u), thread %u of %u", "线程块 (%u, %u)，线程 %u / %u"),
                         f->core_ctaid[0], f->core_ctaid[1], f->core_group + 1, f->groups_per_block);
                txt_fit(c, line, x, ly, w, BODY, TEXT_SANS, c->th.ink);
                snprintf(line, sizeof line, tr(c, "kernel line %u", "核函数第 %u 行"), f->core_line);
                txt_fit(c, line, x, ly + text_height(c->t, S(c, BODY)), w, BODY, TEXT_SANS, c->th.muted);
                hint(c, x, ly, w, 2 * text_height(c->t, S(c, BODY)),
                     "The one core runs the threads one after another: this is the one it is running now, "
                     "and the line of the kernel's source it has reached.",
                     "一个核心一个接一个地运行线程：这是它现在运行的线程，以及它执行到核函数源代码的哪一行。");
            }
        }
    }
    char en[400], zh[400];
    if (cores == 1) {
        snprintf(en, sizeof en, "One CPU core: it runs the threads one after another, one instruction at a time "
                 "(the colour is the kind of instruction it runs now).");
        snprintf(zh, sizeof zh, "一个 CPU 核心：它一个接一个地运行线程，一次一条指令（颜色是它现在执行的指令类型）。");
    } else {
        snprintf(en, sizeof en, "%u CPU cores, each running one block of threads at a time.", cores);
        snprintf(zh, sizeof zh, "%u 个 CPU 核心，每个一次运行一个线程块。", cores);
    }
    hintf(c, x, y, w, h, en, zh);
}

/* viridis, 5 stops */
static SDL_Color ramp(double f)
{
    static const SDL_Color stops[5] = { { 68, 1, 84, 255 },    { 59, 82, 139, 255 }, { 33, 145, 140, 255 },
                                        { 94, 201, 98, 255 }, { 253, 231, 37, 255 } };
    if (!(f >= 0.0))
        f = 0.0;
    if (f > 1.0)
        f = 1.0;
    double p = f * 4.0;
    int i = (int)p;
    if (i >= 4)
        return stops[4];
    return blend(stops[i], stops[i + 1], p - i);
}

/* The output as a picture: one pixel block per value; values not yet
 * written (still 0) in the empty colour. */
static void draw_output(ctx_t *c, const view_lane_t *L, int x, int y, int w, int h)
{
    if (!L->out || !L->rows || !L->cols || h < S(c, 24))
        return;
    if (!(L->vmax > L->vmin) && (L->done || isfinite(L->vmin))) {   /* every value the same: a square would say nothing */
        char line[160], v[32];
        snprintf(v, sizeof v, "%g", isfinite(L->vmin) ? L->vmin : 0.0);
        snprintf(line, sizeof line, tr(c, "output: %llu values, all %s%s", "输出：%llu 个数，全是 %s%s"),
                 (unsigned long long)L->out_n, v, L->done ? "" : tr(c, " so far", "（到目前为止）"));
        txt_fit(c, line, x, y, w, BODY, TEXT_SANS, c->th.muted);
        return;
    }
    /* a colour bar on the right says what the colours mean */
    char vlo[32], vhi[32];
    snprintf(vlo, sizeof vlo, "%.3g", isfinite(L->vmin) ? L->vmin : 0.0);
    snprintf(vhi, sizeof vhi, "%.3g", isfinite(L->vmax) ? L->vmax : 0.0);
    int lw = txt_w(c, vlo, SMALL, TEXT_SANS) > txt_w(c, vhi, SMALL, TEXT_SANS) ? txt_w(c, vlo, SMALL, TEXT_SANS)
                                                                                : txt_w(c, vhi, SMALL, TEXT_SANS);
    int barw = S(c, 12), bar_room = barw + S(c, 6) + lw + S(c, 8);
    w -= bar_room;
    int side = w < h ? w : h;
    uint32_t big = L->rows > L->cols ? L->rows : L->cols;
    int pw = (int)((uint64_t)side * L->cols / big), ph = (int)((uint64_t)side * L->rows / big);
    int ox = x + (w - pw) / 2;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, (int)L->cols, (int)L->rows, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s)
        return;
    /* not computed yet: a grey that no colour of the value ramp comes near
     * (the ramp starts dark purple, so the dark theme needs a lighter grey) */
    SDL_Color empty = c->m->dark ? (SDL_Color){ 112, 116, 122, 255 } : view_status_color(REC_EMPTY, 0);
    double span = L->vmax > L->vmin ? L->vmax - L->vmin : 1.0;
    uint64_t written = 0;
    for (uint32_t i = 0; i < L->rows; i++) {
        uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + (size_t)i * s->pitch);
        for (uint32_t j = 0; j < L->cols; j++) {
            uint64_t k = (uint64_t)i * L->cols + j;
            SDL_Color col = empty;
            if (k < L->out_n && L->out[k] != 0.0f) {
                col = ramp((L->out[k] - L->vmin) / span);
                written++;
            }
            row[j] = 0xFF000000u | ((uint32_t)col.r << 16) | ((uint32_t)col.g << 8) | col.b;
        }
    }
    SDL_Texture *tx = SDL_CreateTextureFromSurface(c->r, s);
    SDL_FreeSurface(s);
    if (tx) {
        SDL_Rect dst = { ox, y, pw, ph };
        SDL_RenderCopy(c->r, tx, NULL, &dst);
        SDL_DestroyTexture(tx);
    }
    frame_rect(c, ox - 1, y - 1, pw + 2, ph + 2, c->th.grid);
    if (isfinite(L->vmin) && L->vmax > L->vmin && ph > S(c, 30)) {
        int bx = ox + pw + S(c, 8);
        for (int k = 0; k < ph; k++)
            fill(c, bx, y + k, barw, 1, ramp(1.0 - (double)k / (ph - 1)));
        frame_rect(c, bx - 1, y - 1, barw + 2, ph + 2, c->th.grid);
        int th = text_height(c->t, S(c, SMALL));
        txt(c, vhi, bx + barw + S(c, 6), y, SMALL, TEXT_SANS, c->th.muted);
        txt(c, vlo, bx + barw + S(c, 6), y + ph - th, SMALL, TEXT_SANS, c->th.muted);
        hint(c, bx, y, bar_room, ph, "The colour scale of the result: yellow the largest value, dark purple the smallest.",
             "结果的颜色刻度：黄色最大，深紫色最小。");
    }
    char en[400], zh[400];
    snprintf(en, sizeof en, "The result, %u x %u values, painted as they are written (%.0f%% done). Grey: not "
             "computed yet. The colour is the value (dark = small, yellow = large).",
             L->rows, L->cols, L->out_n ? 100.0 * (double)written / (double)L->out_n : 0.0);
    snprintf(zh, sizeof zh, "计算结果，%u x %u 个数，写入时就画出来（已完成 %.0f%%）。灰色：还没算。颜色表示数值"
             "（深色小，黄色大）。", L->rows, L->cols, L->out_n ? 100.0 * (double)written / (double)L->out_n : 0.0);
    hintf(c, ox, y, pw, ph, en, zh);
}

static void draw_lane(ctx_t *c, const view_lane_t *L, int x, int y, int w, int h)
{
    char a[64], b[64], line[200];
    const rec_frame_t *f = rec_frame(L->rec, L->frame);
    fill(c, x + S(c, 4), y + S(c, 4), w - S(c, 8), h - S(c, 8), c->th.panel);
    int px = x + S(c, 14), py = y + S(c, 10);
    /* name and what it is */
    int inner = w - S(c, 28);
    int nw = txt_fit(c, lane_name(L), px, py, inner / 2, HEAD, TEXT_BOLD, c->th.ink);
    const char *label = tr(c, L->label_en, L->label_zh);
    if (label && label[0]) {   /* what this run of a sweep is: "paths = 8" */
        nw += S(c, 12);
        nw += txt_fit(c, label, px + nw, py, inner - nw, HEAD, TEXT_BOLD, c->th.accent);
    }
    if (L->is_cpu && L->rec && rec_sms(L->rec) < L->cdesc->cores)   /* fewer blocks than cores: say why fewer squares */
        snprintf(line, sizeof line, tr(c, "CPU · %u cores, %u with a block", "CPU · %u 个核心，%u 个分到线程块"),
                 L->cdesc->cores, rec_sms(L->rec));
    else if (L->is_cpu)
        snprintf(line, sizeof line, L->cdesc->cores == 1 ? tr(c, "CPU · 1 core", "CPU · 1 个核心")
                                                         : tr(c, "CPU · %u cores", "CPU · %u 个核心"),
                 L->cdesc->cores);
    else
    {
        char n1[32];
        snprintf(line, sizeof line, tr(c, "GPU · %u SM%s · %s FP32 lanes", "GPU · %u 个 SM%s · %s 条 FP32 通道"),
                 L->gdesc->sms, tr(c, L->gdesc->sms == 1 ? "" : "s", ""), commas((uint64_t)L->gdesc->sms * L->gdesc->fp32_lanes_per_sm, n1, sizeof n1));
    }
    txt_fit(c, line, px + nw + S(c, 12), py + S(c, 3), inner - nw - S(c, 12), BODY, TEXT_SANS, c->th.muted);
    py += text_height(c->t, S(c, HEAD)) + S(c, 2);
    /* its clock */
    double clock = L->is_cpu ? L->cdesc->clock_mhz : L->gdesc->clock_mhz;
    uint64_t cyc = f ? f->cycle : 0;
    /* beside a CPU (a race) the lessons count each side's launch in: say it */
    int beside_cpu = 0;
    for (int i = 0; i < c->m->nlanes; i++)
        beside_cpu |= c->m->lane[i].is_cpu;
    double launch_us = !beside_cpu ? 0 : L->is_cpu ? L->cdesc->launch_us : L->gdesc->launch_us;
    if (L->failed)
        snprintf(line, sizeof line, "%s", tr(c, "stopped with an error", "出错停止"));
    else if (L->done && launch_us > 0)   /* the words add the launch: say it is the kernel's time */
        snprintf(line, sizeof line, tr(c, "kernel done in %s (%s cycles)", "核函数用时 %s（%s 个周期）"),
                 fmt_time(L->total_us, a, sizeof a), commas(cyc, b, sizeof b));
    else if (L->done)
        snprintf(line, sizeof line, tr(c, "done in %s (%s cycles)", "用时 %s（%s 个周期）"),
                 fmt_time(L->total_us, a, sizeof a), commas(cyc, b, sizeof b));
    else
        snprintf(line, sizeof line, tr(c, "running: %s (%s cycles)", "运行中：%s（%s 个周期）"),
                 fmt_time(L->time_us, a, sizeof a), commas(cyc, b, sizeof b));
    int lw = txt_fit(c, line, px, py, inner, BODY, L->done ? TEXT_BOLD : TEXT_SANS, L->done ? OI_GREEN : c->th.ink);
    snprintf(a, sizeof a, "%.0f MHz", clock);
    char en[400], zh[400];
    snprintf(en, sizeof en, "Simulated time on this %s: its cycles divided by its clock (%s). Every device here "
             "moves on the same clock, so you see the true speed difference.", L->is_cpu ? "CPU" : "GPU", a);
    snprintf(zh, sizeof zh, "这台%s上的模拟时间：周期数除以时钟频率（%s）。这里所有设备按同一个时钟前进，"
             "所以你看到的是真实的速度差别。", L->is_cpu ? " CPU " : " GPU ", a);
    hintf(c, px, py, lw, text_height(c->t, S(c, BODY)), en, zh);
    py += text_height(c->t, S(c, BODY)) + S(c, 2);
    if (L->done && !L->failed && launch_us > 0) {   /* the host's cost to start it, as the lessons count it */
        char t2[32];
        hint(c, px, py, inner, text_height(c->t, S(c, BODY)),
             "Before a kernel runs, the host spends this long starting it (measured on a real H200: 3.2 µs). "
             "Beside a CPU, the lessons count it in.",
             "核函数运行之前，主机要花这么长时间启动它（真实 H200 上实测 3.2 微秒）。和 CPU 比较时，课里会把它算进去。");
        snprintf(line, sizeof line, tr(c, "+ %s to launch it = %s in all", "+ 启动 %s = 共 %s"),
                 fmt_time(launch_us, a, sizeof a), fmt_time(L->total_us + launch_us, t2, sizeof t2));
        txt_fit(c, line, px, py, inner, BODY, TEXT_SANS, c->th.muted);
    } else if (L->fast_forward >= 1.5) {   /* not "×1": shown once it reads ×2 */
        hint(c, px, py, inner, text_height(c->t, S(c, BODY)),
             "The clock now runs faster, doubling every half second: the GPU has finished and at its pace "
             "the CPU would take much longer, or the run is simply long. The times shown stay true.",
             "时钟加快了，每半秒翻一倍：GPU 已经算完，按它的速度 CPU 还要很久；或者这次运行本来就很长。显示的时间仍是真实的。");
        snprintf(line, sizeof line, L->is_cpu ? tr(c, "fast-forward ×%.0f (the GPU is done)", "快进 ×%.0f（GPU 已完成）")
                                : tr(c, "fast-forward ×%.0f (a long run)", "快进 ×%.0f（运行时间长）"),
                 L->fast_forward);
        txt_fit(c, line, px, py, inner, BODY, TEXT_BOLD, OI_VERMILLION);
    }
    py += text_height(c->t, S(c, BODY)) + S(c, 4);
    /* the device */
    int dev_h = (h - (py - y)) * 45 / 100;
    if (L->is_cpu) {
        draw_cpu(c, L, px, py, inner, dev_h);
    } else {
        uint32_t nsm = rec_sms(L->rec);
        if (nsm <= 4 && rec_slots(L->rec) <= 32) {
            int gap = S(c, 8), bw = (inner - gap * ((int)nsm - 1)) / (int)nsm;
            for (uint32_t s = 0; s < nsm; s++)
                draw_sm_lanes(c, L, s, px + (int)s * (bw + gap), py, bw, dev_h);
        } else {
            draw_sm_grid(c, L, px, py, inner, dev_h);
        }
    }
    py += dev_h + S(c, 8);
    /* blocks */
    if (f) {
        snprintf(line, sizeof line, tr(c, "blocks: %llu of %llu done", "线程块：%llu / %llu 已完成"),
                 (unsigned long long)f->blocks_done, (unsigned long long)f->blocks_total);
        int bw2 = txt(c, line, px, py, BODY, TEXT_SANS, c->th.ink);
        snprintf(en, sizeof en, "The work is cut into %llu blocks of threads. A GPU runs many blocks at once, one "
                 "per SM slot; a CPU core runs one after another.", (unsigned long long)f->blocks_total);
        snprintf(zh, sizeof zh, "工作被分成 %llu 个线程块。GPU 同时运行很多块，每个 SM 槽位一个；CPU 核心一个接一个地运行。",
                 (unsigned long long)f->blocks_total);
        hintf(c, px, py, bw2, text_height(c->t, S(c, BODY)), en, zh);
        py += text_height(c->t, S(c, BODY)) + S(c, 6);
    }
    int out_h = y + h - S(c, 12) - py;
    draw_output(c, L, px, py, inner, out_h);
}

/* ---- the detail column -------------------------------------------------- */

static int draw_bar(ctx_t *c, int x, int y, int w, const char *label, double now, double peak, SDL_Color k,
                    const char *en, const char *zh)
{
    char a[48], b[48], line[160];
    snprintf(line, sizeof line, "%s  %s / %s", label, fmt_rate(now, a, sizeof a), fmt_rate(peak, b, sizeof b));
    int th = text_height(c->t, S(c, BODY));
    txt_fit(c, line, x, y, w, BODY, TEXT_SANS, c->th.ink);
    int by = y + th + S(c, 1), bh = S(c, 12);
    fill(c, x, by, w, bh, c->th.bar_bg);
    double f = peak > 0 ? now / peak : 0;
    if (f > 1.0)
        f = 1.0;
    fill(c, x, by, (int)lround(w * f), bh, k);
    frame_rect(c, x, by, w, bh, c->th.grid);
    hint(c, x, y, w, th + bh + S(c, 2), en, zh);
    return th + bh + S(c, 8);
}

static void draw_detail(ctx_t *c, const view_lane_t *L, int x, int y, int w, int h)
{
    char a[64], b[64], line[200];
    fill(c, x + S(c, 4), y + S(c, 4), w - S(c, 8), h - S(c, 8), c->th.panel);
    int px = x + S(c, 14), py = y + S(c, 10), iw = w - S(c, 28);
    int th = text_height(c->t, S(c, BODY));
    if (!L) {
        txt(c, tr(c, "(no GPU on the stage)", "（舞台上没有 GPU）"), px, py, BODY, TEXT_SANS, c->th.muted);
        return;
    }
    const rec_frame_t *f = rec_frame(L->rec, L->frame);
    snprintf(line, sizeof line, tr(c, "Inside the %s", "%s 内部"), L->gdesc->name);
    txt_fit(c, line, px, py, iw, HEAD, TEXT_BOLD, c->th.ink);
    py += text_height(c->t, S(c, HEAD)) + S(c, 4);
    /* memory */
    py += draw_bar(c, px, py, iw, "DRAM", L->bw_now[GPU_LEVEL_DRAM], L->bw_peak[GPU_LEVEL_DRAM], OI_VERMILLION,
                   "DRAM (HBM): the GPU's main memory. The bar is the bandwidth in use now against the most it "
                   "can move; a full bar means the kernel waits on memory.",
                   "DRAM（显存，HBM）：GPU 的主内存。条形是现在用掉的带宽和最大带宽之比；满了说明核函数在等内存。");
    py += draw_bar(c, px, py, iw, "L2", L->bw_now[GPU_LEVEL_L2], L->bw_peak[GPU_LEVEL_L2], OI_ORANGE,
                   "L2 cache: shared by all SMs, faster than DRAM. Data read again soon is found here.",
                   "L2 缓存：所有 SM 共用，比显存快。很快又要读的数据在这里就能找到。");
    py += draw_bar(c, px, py, iw, tr(c, "L1 / shared", "L1 / 共享内存"), L->bw_now[GPU_LEVEL_LSU],
                   L->bw_peak[GPU_LEVEL_LSU], OI_BLUE,
                   "L1 and shared memory: inside each SM, the fastest memory. Tiled kernels reuse data here.",
                   "L1 和共享内存：在每个 SM 内部，最快的内存。分块（tiling）的核函数在这里重复使用数据。");
    /* FLOP/s */
    fmt_flops(L->nhist ? L->gflops_hist[L->nhist - 1] : 0, a, sizeof a);
    fmt_flops(L->peak_gflops, b, sizeof b);
    if (L->peak_tc)
        snprintf(line, sizeof line, tr(c, "Tensor Cores  %s / %s", "张量核心  %s / %s"), a, b);
    else
        snprintf(line, sizeof line, tr(c, "math  %s / %s", "计算  %s / %s"), a, b);
    txt_fit(c, line, px, py, iw, BODY, TEXT_SANS, c->th.ink);
    py += th + S(c, 2);
    int ch = S(c, 60);
    fill(c, px, py, iw, ch, c->th.bar_bg);
    frame_rect(c, px, py, iw, ch, c->th.grid);
    if (L->nhist > 1 && L->peak_gflops > 0) {
        color(c, OI_GREEN);
        for (int i = 1; i < L->nhist; i++) {
            double f0 = L->gflops_hist[i - 1] / L->peak_gflops, f1 = L->gflops_hist[i] / L->peak_gflops;
            f0 = f0 > 1 ? 1 : f0;
            f1 = f1 > 1 ? 1 : f1;
            int x0 = px + (i - 1) * iw / VIEW_HISTORY, x1 = px + i * iw / VIEW_HISTORY;
            SDL_RenderDrawLine(c->r, x0, py + ch - 1 - (int)(f0 * (ch - 2)), x1, py + ch - 1 - (int)(f1 * (ch - 2)));
            SDL_RenderDrawLine(c->r, x0, py + ch - 2 - (int)(f0 * (ch - 2)), x1, py + ch - 2 - (int)(f1 * (ch - 2)));
        }
    }
    if (L->peak_tc)
        hint(c, px, py - th, iw, ch + th,
             "Floating-point operations per second, against the Tensor Cores' peak for this kernel's number "
             "format (the top of the box; datasheet, dense): how much of the GPU's matrix arithmetic it uses.",
             "每秒浮点运算次数，和这个核函数所用数值格式的张量核心峰值（方框顶部；官方参数，稠密）相比："
             "核函数用掉了 GPU 多少矩阵计算能力。");
    else
        hint(c, px, py - th, iw, ch + th,
             "Floating-point operations per second, against the FP32 peak (the top of the box): how much of the "
             "GPU's arithmetic the kernel uses.",
             "每秒浮点运算次数，和 FP32 峰值（方框顶部）相比：核函数用掉了 GPU 多少计算能力。");
    py += ch + S(c, 8);
    /* warp states */
    if (f) {
        uint32_t total = 0;
        for (int s = 1; s < REC_STATUS_COUNT; s++)
            total += f->by_status[s];
        uint32_t slots = rec_sms(L->rec) * rec_slots(L->rec);
        snprintf(line, sizeof line, tr(c, "warps: %u in %u slots", "warp：%u 个，共 %u 个槽位"), total, slots);
        txt_fit(c, line, px, py, iw, BODY, TEXT_SANS, c->th.ink);
        hint(c, px, py, iw, th,
             "Warps on the GPU now, against the warp slots of all SMs (occupancy). More warps give the "
             "schedulers something to run while others wait for memory.",
             "现在 GPU 上的 warp 数和所有 SM 的 warp 槽位数之比（占用率）。warp 越多，别的 warp 等内存时调度器就越有事可做。");
        py += th + S(c, 2);
        int bh = S(c, 16), bx = px;
        fill(c, px, py, iw, bh, c->th.bar_bg);
        for (int s = 1; s < REC_STATUS_COUNT && total; s++) {
            int sw = (int)((uint64_t)iw * f->by_status[s] / slots);
            fill(c, bx, py, sw, bh, view_status_color(s, c->m->dark));
            bx += sw;
        }
        frame_rect(c, px, py, iw, bh, c->th.grid);
        py += bh + S(c, 6);
    }
    /* what the warp schedulers did so far: issued, or why not */
    if (f && f->cycle > 0) {
        static const int stall_status[STALL_COUNT] = { REC_WAIT_MEMORY, REC_WAIT_DEPENDENCY, REC_BARRIER,
                                                       REC_WAIT_PIPE, REC_EMPTY };
        static const char *const stall_en[STALL_COUNT] = { "memory", "result", "barrier", "unit", "no warp" };
        static const char *const stall_zh[STALL_COUNT] = { "等内存", "等结果", "等屏障", "等单元", "没有可发射的 warp" };
        double slots = (double)f->cycle * L->gdesc->sms * L->gdesc->schedulers_per_sm;
        double part[STALL_COUNT + 1], known = (double)f->warp_instrs;
        part[STALL_COUNT] = (double)f->warp_instrs;
        for (int k = 0; k < STALL_COUNT; k++) {
            part[k] = (double)f->stalls[k];
            known += part[k];
        }
        /* stalls are added up lazily: what is not counted yet is shown as idle */
        if (known < slots)
            part[STALL_IDLE] += slots - known;
        int worst = 0;
        for (int k = 1; k < STALL_COUNT; k++)
            if (part[k] > part[worst])
                worst = k;
        snprintf(line, sizeof line, tr(c, "schedulers: issue %.0f%% · wait (%s) %.0f%%", "调度器：发射 %.0f%% · %s %.0f%%"),
                 100.0 * part[STALL_COUNT] / slots, c->m->zh ? stall_zh[worst] : stall_en[worst],
                 100.0 * part[worst] / slots);
        if (txt_w(c, line, BODY, TEXT_SANS) > iw && !c->m->zh) {   /* 1280x720 cut "wait (no warp) 5...": the legend's words */
            static const char *const legend_en[STALL_COUNT] = { "wait: memory", "wait: result", "barrier", "unit busy",
                                                                "no warp" };
            snprintf(line, sizeof line, "schedulers: issue %.0f%% · %s %.0f%%", 100.0 * part[STALL_COUNT] / slots,
                     legend_en[worst], 100.0 * part[worst] / slots);
        }
        txt_fit(c, line, px, py, iw, txt_w(c, line, BODY, TEXT_SANS) > iw ? SMALL : BODY, TEXT_SANS, c->th.ink);
        hint(c, px, py, iw, th + S(c, 16),
             "Every cycle each warp scheduler either issues an instruction or waits. The bar splits all "
             "scheduler cycles so far: issuing (green) or waiting, and on what.",
             "每个周期，每个 warp 调度器要么发射一条指令，要么在等。条形把到目前为止所有调度器周期分开：发射（绿色）或等待，以及在等什么。");
        py += th + S(c, 2);
        int bh = S(c, 14), bx = px;
        fill(c, px, py, iw, bh, c->th.bar_bg);
        int bw = (int)lround(iw * part[STALL_COUNT] / slots);
        fill(c, bx, py, bw, bh, OI_GREEN);
        bx += bw;
        for (int k = 0; k < STALL_COUNT; k++) {
            bw = (int)lround(iw * part[k] / slots);
            if (bx + bw > px + iw)
                bw = px + iw - bx;
            fill(c, bx, py, bw, bh, view_status_color(stall_status[k], c->m->dark));
            bx += bw;
        }
        frame_rect(c, px, py, iw, bh, c->th.grid);
        py += bh + S(c, 6);
    }
    /* legend, two columns */
    static const int order[] = { REC_ISSUE_FP32, REC_WAIT_MEMORY, REC_ISSUE_TENSOR, REC_WAIT_DEPENDENCY,
                                 REC_ISSUE_MEMORY, REC_WAIT_PIPE, REC_ISSUE_OTHER, REC_BARRIER,
                                 REC_READY, REC_DONE, REC_EMPTY, -1 };
    int lh = text_height(c->t, S(c, SMALL)) + S(c, 2), sq = S(c, 12), colw = iw / 2;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int s = order[i];
        int lx = px + (int)(i % 2) * colw, ly = py + (int)(i / 2) * lh;
        if (ly + lh > y + h - S(c, 8))
            break;
        SDL_Color k = s < 0 ? c->th.bar_bg : view_status_color(s, c->m->dark);
        fill(c, lx, ly + (lh - sq) / 2, sq, sq, k);
        frame_rect(c, lx, ly + (lh - sq) / 2, sq, sq, s < 0 ? blend(OI_GREEN, OI_BLACK, 0.25) : c->th.grid);
        if (s < 0) {
            txt(c, tr(c, "lane off", "未用的通道"), lx + sq + S(c, 6), ly, SMALL, TEXT_SANS, c->th.ink);
            hint(c, lx, ly, colw, lh,
                 "Hollow cells: lanes switched off. When threads of one warp take different sides of an if, the "
                 "warp runs each side in turn with the other lanes switched off.",
                 "空心格子：被关闭的线程。同一个 warp 的线程走 if 的不同分支时，warp 轮流执行每一边，另一边的线程被关闭。");
        } else {
            txt(c, tr(c, short_en[s], short_zh[s]), lx + sq + S(c, 6), ly, SMALL, TEXT_SANS, c->th.ink);
            hint(c, lx, ly, colw, lh, status_en[s], status_zh[s]);
        }
    }
}

/* ---- the board: a chart or a table the lesson shows -------------------- */

static const SDL_Color board_colors[VIEW_BOARD_SERIES] = {
    { 0, 114, 178, 255 }, { 230, 159, 0, 255 }, { 0, 158, 115, 255 },
    { 213, 94, 0, 255 },  { 204, 121, 167, 255 }, { 86, 180, 233, 255 },
};

/* Series k's colour: the j-th measured series takes the colour of the j-th
 * simulated one (the same quantity, from a real GPU: hollow and dashed). */
static SDL_Color series_color(const ctx_t *c, const view_board_t *b, int k)
{
    int idx = k;
    if (b->series[k].measured) {
        int j = 0, sim = 0;
        for (int i = 0; i < k; i++)
            j += b->series[i].measured;
        for (int i = 0; i < b->nseries; i++)
            if (!b->series[i].measured && sim++ == j) {
                idx = i;
                break;
            }
    }
    return idx == 0 ? c->th.accent : board_colors[idx % VIEW_BOARD_SERIES];
}

/* A step of 1, 2 or 5 x 10^k near span / 5. */
static double nice_step(double span)
{
    if (!(span > 0))
        return 1.0;
    double raw = span / 5.0, p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * p;
}

/* "12", "0.5", "1,250", "2.5k" for tick labels */
static const char *tick_text(double v, char *buf, size_t n)
{
    double a = fabs(v);
    if (a >= 1e6)
        snprintf(buf, n, "%gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, n, "%gk", v / 1e3);
    else
        snprintf(buf, n, "%g", v);
    return buf;
}

/* The board's conclusion at the bottom of its area; returns its height. */
static int board_note(ctx_t *c, const view_board_t *b, int x, int y, int w, int h)
{
    const char *note = b->note[c->m->zh && b->note[1][0] ? 1 : 0];
    if (!note[0])
        return 0;
    int nh = text_draw_wrapped(c->t, note, 0, 0, w, S(c, BODY), TEXT_BOLD, c->th.ink, 0);
    if (nh > h / 3)
        nh = h / 3;
    txt_wrap_fit(c, note, x, y + h - nh, w, nh, BODY, TEXT_BOLD, c->th.ink);
    return nh;
}

static const char *btext(const ctx_t *c, const char (*s)[VIEW_BOARD_TEXT])
{
    return c->m->zh && s[1][0] ? s[1] : s[0];
}

/* The chart in the area from (ix, ty), iw wide, down to bottom. */
static void draw_chart_board(ctx_t *c, const view_board_t *b, int ix, int ty, int iw, int bottom)
{
    char buf[64];
    /* y range: 0 to the largest value (points not there yet leave room) */
    double ymax = 0;
    for (int s = 0; s < b->nseries; s++)
        for (int i = 0; i < b->n; i++)
            if (isfinite(b->series[s].y[i]) && b->series[s].y[i] > ymax)
                ymax = b->series[s].y[i];
    if (!(ymax > 0))
        ymax = 1;
    double step = nice_step(ymax);
    double ytop = ceil(ymax * 1.08 / step) * step;
    int fs = SMALL, th = text_height(c->t, S(c, fs));
    int tick_w = 0;
    for (double v = 0; v <= ytop + step / 2; v += step) {
        int tw = txt_w(c, tick_text(v, buf, sizeof buf), fs, TEXT_SANS);
        if (tw > tick_w)
            tick_w = tw;
    }
    int ylab = th + S(c, 4);
    int px = ix + ylab + tick_w + S(c, 8), pw = ix + iw - px;
    int py = ty + th / 2, ph = bottom - py - 2 * th - S(c, 12);
    if (pw < S(c, 60) || ph < S(c, 40))
        return;
    fill(c, px, py, pw, ph, c->th.bar_bg);
    /* y grid and ticks */
    for (double v = 0; v <= ytop + step / 2; v += step) {
        int gy = py + ph - (int)lround(v / ytop * ph);
        fill(c, px, gy, pw, 1, c->th.grid);
        txt_right(c, tick_text(v, buf, sizeof buf), px - S(c, 6), gy - th / 2, fs, TEXT_SANS, c->th.muted);
    }
    text_draw_rotated(c->t, btext(c, b->y_label), ix + th / 2, py + ph / 2, -90, S(c, fs), TEXT_SANS, c->th.ink);
    /* x positions: log or linear between the first and last x, the ends kept in */
    double x0 = b->n ? b->x[0] : 0, x1 = x0;
    for (int i = 0; i < b->n; i++) {
        if (b->x[i] < x0)
            x0 = b->x[i];
        if (b->x[i] > x1)
            x1 = b->x[i];
    }
    int uselog = b->log_x && x0 > 0;
    double a0 = uselog ? log(x0) : x0, a1 = uselog ? log(x1) : x1;
    int margin = S(c, 24);
    int xs[VIEW_BOARD_X];
    for (int i = 0; i < b->n; i++) {
        double a = uselog ? log(b->x[i]) : b->x[i];
        xs[i] = a1 > a0 ? px + margin + (int)lround((a - a0) / (a1 - a0) * (pw - 2 * margin)) : px + pw / 2;
    }
    /* the x being run now: a band */
    if (b->now >= 0 && b->now < b->n)
        fill(c, xs[b->now] - S(c, 10), py, S(c, 20), ph, blend(c->th.bar_bg, c->th.accent, 0.25));
    int last_right = -100000;
    for (int i = 0; i < b->n; i++) {
        int tw = txt_w(c, b->xtext[i], fs, TEXT_SANS);
        fill(c, xs[i], py + ph, 1, S(c, 5), c->th.muted);
        if (xs[i] - tw / 2 > last_right + S(c, 4)) {
            txt(c, b->xtext[i], xs[i] - tw / 2, py + ph + S(c, 6), fs, TEXT_SANS, c->th.ink);
            last_right = xs[i] + tw / 2;
        }
    }
    txt_fit(c, btext(c, b->x_label), px + (pw - txt_w(c, btext(c, b->x_label), fs, TEXT_SANS)) / 2 > px
                                         ? px + (pw - txt_w(c, btext(c, b->x_label), fs, TEXT_SANS)) / 2 : px,
            py + ph + th + S(c, 8), pw, fs, TEXT_SANS, c->th.ink);
    frame_rect(c, px, py, pw, ph, c->th.grid);
    /* the series: lines between the points there are, a marker on each */
    int mk = S(c, 5);
    for (int s = 0; s < b->nseries; s++) {
        SDL_Color k = series_color(c, b, s);
        int prev = -1;
        for (int i = 0; i < b->n; i++) {
            double v = b->series[s].y[i];
            if (!isfinite(v))
                continue;
            int gx = xs[i], gy = py + ph - (int)lround(v / ytop * ph);
            if (prev >= 0) {
                int qx = xs[prev], qy = py + ph - (int)lround(b->series[s].y[prev] / ytop * ph);
                color(c, k);
                if (b->series[s].measured) {   /* dashed: every other tenth */
                    for (int d = 0; d < 10; d += 2)
                        SDL_RenderDrawLine(c->r, qx + (gx - qx) * d / 10, qy + (gy - qy) * d / 10,
                                           qx + (gx - qx) * (d + 1) / 10, qy + (gy - qy) * (d + 1) / 10);
                } else {
                    for (int o = -1; o <= 1; o++)
                        SDL_RenderDrawLine(c->r, qx, qy + o, gx, gy + o);
                }
            }
            if (b->series[s].measured) {
                frame_rect(c, gx - mk, gy - mk, 2 * mk + 1, 2 * mk + 1, k);
                frame_rect(c, gx - mk + 1, gy - mk + 1, 2 * mk - 1, 2 * mk - 1, k);
            } else {
                fill(c, gx - mk, gy - mk, 2 * mk + 1, 2 * mk + 1, k);
            }
            prev = i;
        }
    }
    /* the first series' values beside its points, when there is room */
    if (b->nseries > 0 && b->n > 0 && pw / b->n > S(c, 44)) {
        for (int i = 0; i < b->n; i++) {
            double v = b->series[0].y[i];
            if (!isfinite(v))
                continue;
            snprintf(buf, sizeof buf, "%.3g", v);
            int gy = py + ph - (int)lround(v / ytop * ph);
            int tw = txt_w(c, buf, fs, TEXT_BOLD);
            int ty = gy - mk - th - S(c, 1);   /* above the point; below it when a measured point is there */
            for (int s = 1; s < b->nseries && ty >= py; s++) {
                double m = b->series[s].y[i];
                int my = isfinite(m) ? py + ph - (int)lround(m / ytop * ph) : -100000;
                if (b->series[s].measured && my + mk >= ty && my - mk <= ty + th)
                    ty = gy + mk + S(c, 2);
            }
            txt(c, buf, xs[i] - tw / 2, ty < py ? gy + mk + S(c, 2) : ty, fs, TEXT_BOLD, c->th.accent);
        }
    }
    /* legend, top left inside the plot, or top right when fewer points are there */
    int lx = px + S(c, 10), ly = py + S(c, 6), lw = 0;
    for (int s = 0; s < b->nseries; s++) {
        const char *name = b->series[s].name[c->m->zh && b->series[s].name[1][0] ? 1 : 0];
        int nw = txt_w(c, name, fs, TEXT_SANS);
        lw = nw > lw ? nw : lw;
    }
    int lbw = lw + S(c, 36), lbh = b->nseries * th + S(c, 6), under[2] = { 0, 0 };
    for (int s = 0; s < b->nseries; s++)
        for (int i = 0; i < b->n; i++) {
            double v = b->series[s].y[i];
            if (!isfinite(v))
                continue;
            int gy = py + ph - (int)lround(v / ytop * ph);
            if (gy + mk < ly - S(c, 3) || gy - mk > ly + lbh)
                continue;
            under[0] += xs[i] + mk >= lx - S(c, 6) && xs[i] - mk <= lx - S(c, 6) + lbw;
            under[1] += xs[i] + mk >= px + pw - S(c, 4) - lbw && xs[i] - mk <= px + pw - S(c, 4);
        }
    if (under[1] < under[0])
        lx = px + pw - S(c, 4) - lbw + S(c, 6);
    if (b->nseries > 0) {
        fill(c, lx - S(c, 6), ly - S(c, 3), lw + S(c, 36), b->nseries * th + S(c, 6), c->th.panel);
        for (int s = 0; s < b->nseries; s++) {
            SDL_Color k = series_color(c, b, s);
            const char *name = b->series[s].name[c->m->zh && b->series[s].name[1][0] ? 1 : 0];
            int yy = ly + s * th;
            if (b->series[s].measured)
                frame_rect(c, lx, yy + th / 2 - mk, 2 * mk + 1, 2 * mk + 1, k);
            else
                fill(c, lx, yy + th / 2 - mk, 2 * mk + 1, 2 * mk + 1, k);
            txt(c, name, lx + S(c, 20), yy, fs, TEXT_SANS, c->th.ink);
        }
    }
    hint(c, px, py, pw, ph,
         "The lesson's experiment as it runs: each point appears when its run finishes. Filled squares: "
         "the simulator; hollow squares and dashes: measured on a real GPU.",
         "课程的实验，边跑边画：每次运行结束，对应的点就出现。实心方块：模拟器；空心方块和虚线：在真实 GPU 上测得。");
}

/* "0.01", "1", "100", "10k" for a decade 10^e */
static const char *decade_text(int e, char *buf, size_t n)
{
    if (e < 0)
        snprintf(buf, n, "%.*f", -e, pow(10.0, e));
    else if (e < 3)
        snprintf(buf, n, "%.0f", pow(10.0, e));
    else if (e < 6)
        snprintf(buf, n, "%.0fk", pow(10.0, e - 3));
    else
        snprintf(buf, n, "%.0fM", pow(10.0, e - 6));
    return buf;
}

/* A thick line (3 px at zoom 1) from (x0, y0) to (x1, y1). */
static void thick_line(ctx_t *c, int x0, int y0, int x1, int y1, SDL_Color k)
{
    color(c, k);
    int o = S(c, 1) > 1 ? S(c, 1) : 1;
    for (int d = -o; d <= o; d++) {
        SDL_RenderDrawLine(c->r, x0, y0 + d, x1, y1 + d);
        SDL_RenderDrawLine(c->r, x0 + d, y0, x1 + d, y1);
    }
}

/* The roofline in the area from (ix, ty), iw wide, down to bottom: log-log,
 * the DRAM roof slanted up to the ridge, the compute roof flat after it,
 * the ridge marked, each run a point (in the order they finished). */
static void draw_roofline_board(ctx_t *c, const view_board_t *b, int ix, int ty, int iw, int bottom)
{
    char buf[160], t1[32];
    double peak = b->rf_peak, bw = b->rf_bw;
    if (!(peak > 0) || !(bw > 0))
        return;
    double ridge = peak / bw, amin = ridge, amax = ridge, gmin = peak;
    for (int i = 0; i < b->n; i++) {
        double a = b->x[i], g = b->series[0].y[i];
        if (!(a > 0) || !(g > 0) || !isfinite(a) || !isfinite(g))
            continue;
        amin = a < amin ? a : amin;
        amax = a > amax ? a : amax;
        gmin = g < gmin ? g : gmin;
    }
    int lx0 = (int)floor(log10(amin)) - (log10(amin) - floor(log10(amin)) < 0.3 ? 1 : 0);
    int lx1 = (int)ceil(log10(amax)) + (ceil(log10(amax)) - log10(amax) < 0.3 ? 1 : 0);
    int ly1 = (int)ceil(log10(peak * 1.6));
    int ly0 = (int)floor(log10(gmin)) - 1;   /* a decade under the slowest point: room for its label */
    if (ly0 > ly1 - 3)
        ly0 = ly1 - 3;
    if (lx1 < lx0 + 2)
        lx1 = lx0 + 2;
    int fs = SMALL, th = text_height(c->t, S(c, fs)), zh = c->m->zh;
    int tick_w = 0;
    for (int e = ly0; e <= ly1; e++) {
        int tw = txt_w(c, decade_text(e, t1, sizeof t1), fs, TEXT_SANS);
        tick_w = tw > tick_w ? tw : tick_w;
    }
    int px = ix + th + S(c, 4) + tick_w + S(c, 8), pw = ix + iw - px - S(c, 8);
    int py = ty + th / 2, ph = bottom - py - 2 * th - S(c, 12);
    if (pw < S(c, 80) || ph < S(c, 60))
        return;
#define RF_X(a) (px + (int)lround((log10(a) - lx0) / (double)(lx1 - lx0) * pw))
#define RF_Y(g) (py + ph - (int)lround((log10(g) - ly0) / (double)(ly1 - ly0) * ph))
    fill(c, px, py, pw, ph, c->th.bar_bg);
    int ridge_x = RF_X(ridge);
    /* the two regions, lightly tinted, named at the bottom */
    fill(c, px, py, ridge_x - px, ph, blend(c->th.bar_bg, board_colors[1], 0.07));
    fill(c, ridge_x, py, px + pw - ridge_x, ph, blend(c->th.bar_bg, board_colors[2], 0.07));
    for (int e = lx0; e <= lx1; e++) {
        int gx = RF_X(pow(10.0, e));
        fill(c, gx, py, 1, ph, c->th.grid);
        decade_text(e, t1, sizeof t1);
        int tw = txt_w(c, t1, fs, TEXT_SANS);
        txt(c, t1, gx - tw / 2, py + ph + S(c, 6), fs, TEXT_SANS, c->th.ink);
    }
    for (int e = ly0; e <= ly1; e++) {
        int gy = RF_Y(pow(10.0, e));
        fill(c, px, gy, pw, 1, c->th.grid);
        txt_right(c, decade_text(e, t1, sizeof t1), px - S(c, 6), gy - th / 2, fs, TEXT_SANS, c->th.muted);
    }
    const char *xl = btext(c, b->x_label)[0] ? btext(c, b->x_label)
                   : tr(c, "FLOP per byte of DRAM traffic (arithmetic intensity, log scale)",
                        "每搬一个字节显存数据做的浮点运算次数（计算强度，对数坐标）");
    const char *yl = btext(c, b->y_label)[0] ? btext(c, b->y_label)
                   : tr(c, "GFLOP/s reached (log scale)", "实际达到的 GFLOP/s（对数坐标）");
    int xlw = txt_w(c, xl, fs, TEXT_SANS);
    txt_fit(c, xl, xlw < pw ? px + (pw - xlw) / 2 : px, py + ph + th + S(c, 8), pw, fs, TEXT_SANS, c->th.ink);
    text_draw_rotated(c->t, yl, ix + th / 2, py + ph / 2, -90, S(c, fs), TEXT_SANS, c->th.ink);
    /* the region names, at the top of each region (above the roofs: no run is there) */
    const char *mem = tr(c, "memory-bound", "受内存限制"), *cmp = tr(c, "compute-bound", "受算力限制");
    int mw = txt_w(c, mem, fs, TEXT_BOLD), cw = txt_w(c, cmp, fs, TEXT_BOLD);
    if (ridge_x - px > mw + S(c, 12))
        txt(c, mem, px + S(c, 8), py + S(c, 6), fs, TEXT_BOLD, blend(c->th.ink, board_colors[1], 0.6));
    if (px + pw - ridge_x > cw + S(c, 12))
        txt(c, cmp, px + pw - cw - S(c, 8), py + S(c, 6), fs, TEXT_BOLD, blend(c->th.ink, board_colors[2], 0.6));
    /* the ridge: dashed, named */
    color(c, c->th.muted);
    for (int yy = py; yy < py + ph; yy += S(c, 10))
        fill(c, ridge_x, yy, S(c, 2) > 1 ? S(c, 2) : 1, S(c, 5), c->th.muted);
    /* the memory roof from the left edge (or where it enters the plot) to the ridge, then the flat roof */
    double a_in = pow(10.0, lx0), g_floor = pow(10.0, ly0);
    if (a_in * bw < g_floor)
        a_in = g_floor / bw;
    thick_line(c, RF_X(a_in), RF_Y(a_in * bw), ridge_x, RF_Y(peak), c->th.ink);
    thick_line(c, ridge_x, RF_Y(peak), px + pw, RF_Y(peak), c->th.ink);
    /* the ridge's name low on its line, above the region names */
    snprintf(buf, sizeof buf, tr(c, "ridge: %.1f FLOP/byte", "屋脊点：每字节 %.1f 次运算"), ridge);
    int rw = txt_w(c, buf, fs, TEXT_BOLD), rx = ridge_x - rw / 2, ry = py + ph - th - S(c, 6);
    rx = rx + rw > px + pw - S(c, 4) ? px + pw - S(c, 4) - rw : rx < px + S(c, 4) ? px + S(c, 4) : rx;
    fill(c, rx - S(c, 3), ry, rw + S(c, 6), th, c->th.panel);
    txt(c, buf, rx, ry, fs, TEXT_BOLD, c->th.ink);
    const char *roof = b->series[0].name[zh && b->series[0].name[1][0] ? 1 : 0];
    snprintf(buf, sizeof buf, tr(c, "%s roof: %.1f TFLOP/s", "%s 屋顶：%.1f TFLOP/s"), roof[0] ? roof : "FP32",
             peak / 1000);
    int fw = txt_w(c, buf, fs, TEXT_BOLD);   /* over the flat roof, from the ridge */
    int fx = ridge_x + S(c, 8) + fw < px + pw ? ridge_x + S(c, 8) : px + pw - fw - S(c, 6);
    txt(c, buf, fx, RF_Y(peak) - th - S(c, 4), fs, TEXT_BOLD, c->th.ink);
    /* the DRAM roof's name above its slope (where no run can be), ending half way to the ridge */
    snprintf(buf, sizeof buf, tr(c, "DRAM roof: %s GB/s x FLOP/byte", "显存屋顶：%s GB/s x 每字节运算次数"),
             tick_text(round(bw), t1, sizeof t1));
    int dw = txt_w(c, buf, fs, TEXT_BOLD), xm = RF_X(sqrt(a_in * ridge));
    xm = xm < px + S(c, 6) + dw ? px + S(c, 6) + dw : xm;
    double a_m = pow(10.0, lx0 + (double)(xm - px) / pw * (lx1 - lx0));
    int dy = RF_Y(fmin(a_m * bw, peak)) - th - S(c, 8);
    txt(c, buf, xm - dw, dy < py + S(c, 4) ? py + S(c, 4) : dy, fs, TEXT_BOLD, c->th.ink);
    /* the points, each with its name and GFLOP/s; labels kept apart */
    int mk = S(c, 6), taken_y[VIEW_BOARD_X], taken_x[VIEW_BOARD_X], ntaken = 0;
    for (int i = 0; i < b->n; i++) {
        double a = b->x[i], g = b->series[0].y[i];
        if (!(a > 0) || !(g > 0) || !isfinite(a) || !isfinite(g))
            continue;
        SDL_Color k = board_colors[(i + 3) % VIEW_BOARD_SERIES];
        int gx = RF_X(a), gy = RF_Y(g);
        fill(c, gx - mk, gy - mk, 2 * mk + 1, 2 * mk + 1, k);
        frame_rect(c, gx - mk, gy - mk, 2 * mk + 1, 2 * mk + 1, c->th.ink);
        long long gi = llround(g);
        if (gi >= 1000)
            snprintf(t1, sizeof t1, "%lld,%03lld", gi / 1000, gi % 1000);
        else
            snprintf(t1, sizeof t1, "%lld", gi);
        snprintf(buf, sizeof buf, "%s  %s GFLOP/s", b->pname[i], t1);
        int lw = txt_w(c, buf, fs, TEXT_BOLD);
        /* right of the point, or (no room there) under it, ending at it: off the roofs */
        int right = gx + mk + S(c, 6) + lw < px + pw;
        int lx = right ? gx + mk + S(c, 6) : gx + mk - lw;
        int ly = right ? gy - th / 2 : gy + mk + S(c, 4);
        lx = lx < px + S(c, 2) ? px + S(c, 2) : lx;
        for (int tries = 0; tries < 8; tries++) {   /* below the labels already there */
            int clash = 0;
            for (int j = 0; j < ntaken; j++)
                if (abs(taken_y[j] - ly) < th && abs(taken_x[j] - lx) < lw)
                    clash = 1;
            if (!clash)
                break;
            ly += th;
        }
        if (ly + th > py + ph)
            ly = py + ph - th;
        fill(c, lx - S(c, 2), ly, lw + S(c, 4), th, blend(c->th.panel, c->th.bar_bg, 0.3));
        txt(c, buf, lx, ly, fs, TEXT_BOLD, blend(c->th.ink, k, 0.35));
        if (ntaken < VIEW_BOARD_X) {
            taken_x[ntaken] = lx;
            taken_y[ntaken++] = ly;
        }
    }
    frame_rect(c, px, py, pw, ph, c->th.grid);
#undef RF_X
#undef RF_Y
    hint(c, px, py, pw, ph,
         "Each run is a point: how many FLOP it does per byte it moves from DRAM (across) and how fast it "
         "computed (up). No point can rise above the roof over it: the slanted DRAM roof left of the ridge, the "
         "flat compute roof right of it.",
         "每次运行是一个点：它每从显存搬一个字节做多少次浮点运算（横轴），算得多快（纵轴）。"
         "没有哪个点能高过头顶的屋顶：屋脊点左边是斜的显存屋顶，右边是平的算力屋顶。");
}

/* The table in the area from (ix, ty), iw wide, down to bottom. */
static void draw_table_board(ctx_t *c, const view_board_t *b, int ix, int ty, int iw, int bottom)
{
    int lang = c->m->zh ? 1 : 0, ncols = b->ncols < VIEW_BOARD_COLS ? b->ncols : VIEW_BOARD_COLS;
    int nrows = b->nrows < VIEW_BOARD_ROWS ? b->nrows : VIEW_BOARD_ROWS;
    int cw[VIEW_BOARD_COLS], gap = S(c, 18);
    /* the largest size (BODY down to 10 px at zoom 1) at which every column fits */
    /* the largest size (HEAD or BODY down to 10 px at zoom 1) at which the
     * table fits; the last column (words) wraps when the others leave it
     * at least half the width */
    int px = b->alone || c->m->nlanes == 0 ? HEAD : BODY, total = 0, wrapw = 0, rows_h = 0;
    int lines[VIEW_BOARD_ROWS + 1];
    for (; px >= 10; px--) {
        total = 0;
        for (int j = 0; j < ncols; j++) {
            cw[j] = 0;
            for (int i = 0; i <= nrows; i++) {
                const char *s = b->cell[lang][i][j][0] ? b->cell[lang][i][j] : b->cell[0][i][j];
                int tw = txt_w(c, s, px, i == 0 ? TEXT_BOLD : TEXT_SANS);
                cw[j] = tw > cw[j] ? tw : cw[j];
            }
            total += cw[j] + (j ? gap : 0);
        }
        wrapw = 0;
        if (total > iw && ncols > 0 && iw - (total - cw[ncols - 1]) >= iw / 2) {
            wrapw = iw - (total - cw[ncols - 1]);
            total = iw;
            cw[ncols - 1] = wrapw;
        }
        int lh = text_height(c->t, S(c, px));
        rows_h = 0;
        for (int i = 0; i <= nrows; i++) {
            const char *s = b->cell[lang][i][ncols - 1][0] ? b->cell[lang][i][ncols - 1] : b->cell[0][i][ncols - 1];
            lines[i] = wrapw ? (int)text_wrap(c->t, s, wrapw, S(c, px), i == 0 ? TEXT_BOLD : TEXT_SANS, NULL, 0) : 1;
            lines[i] = lines[i] < 1 ? 1 : lines[i];
            rows_h += lines[i] * lh + S(c, 6);
        }
        if (total <= iw && ty + rows_h <= bottom)
            break;
    }
    if (px < 10)
        px = 10;
    int lh = text_height(c->t, S(c, px));
    for (int i = 0; i <= nrows; i++) {
        int rh = lines[i] * lh + S(c, 6);
        if (ty + rh > bottom)
            break;
        if (i > 0 && i % 2 == 0)
            fill(c, ix - S(c, 6), ty, total + S(c, 12), rh, c->th.bar_bg);
        int cx = ix;
        for (int j = 0; j < ncols; j++) {
            const char *s = b->cell[lang][i][j][0] ? b->cell[lang][i][j] : b->cell[0][i][j];
            text_style_t st = i == 0 ? TEXT_BOLD : TEXT_SANS;
            if (b->numeric[i][j])
                txt_right(c, s, cx + cw[j], ty + S(c, 3), px, st, c->th.ink);
            else if (wrapw && j == ncols - 1)
                text_draw_wrapped(c->t, s, cx, ty + S(c, 3), wrapw, S(c, px), st, c->th.ink, 1);
            else
                txt(c, s, cx, ty + S(c, 3), px, st, c->th.ink);
            cx += cw[j] + gap;
        }
        if (i == 0)
            fill(c, ix - S(c, 6), ty + rh - 1, total + S(c, 12), S(c, 2) > 1 ? S(c, 2) : 1, c->th.muted);
        ty += rh;
    }
}

static void draw_board(ctx_t *c, const view_board_t *b, int x, int y, int w, int h)
{
    fill(c, x + S(c, 4), y + S(c, 4), w - S(c, 8), h - S(c, 8), c->th.panel);
    x += S(c, 4);
    y += S(c, 4);
    w -= S(c, 8);
    h -= S(c, 8);
    /* the title on top, the conclusion at the bottom, the chart or table between */
    int pad = S(c, 14), ix = x + pad, iw = w - 2 * pad, ty = y + S(c, 10);
    txt_fit(c, btext(c, b->title), ix, ty, iw, HEAD, TEXT_BOLD, c->th.ink);
    ty += text_height(c->t, S(c, HEAD)) + S(c, 6);
    int note_h = board_note(c, b, ix, y, iw, h - S(c, 10));
    int bottom = y + h - S(c, 10) - note_h - (note_h ? S(c, 8) : 0);
    if (b->kind == VIEW_BOARD_CHART)
        draw_chart_board(c, b, ix, ty, iw, bottom);
    else if (b->kind == VIEW_BOARD_ROOFLINE)
        draw_roofline_board(c, b, ix, ty, iw, bottom);
    else
        draw_table_board(c, b, ix, ty + S(c, 2), iw, bottom);
}

/* ---- the lesson panel, help and tooltips -------------------------------- */

/* The lesson panel's height: 150 px (at zoom 1), more when the words need
 * it (room for them at full size above the "go on" box and the knob and
 * key lines), at most a third of the window; the runs get the rest. The
 * same whether or not the lesson waits, so the layout does not jump. */
static int lesson_height(ctx_t *c, int width, int height)
{
    const view_model_t *m = c->m;
    const char *say = tr(c, m->say_en ? m->say_en : "", m->say_zh);
    int ths = text_height(c->t, S(c, SMALL));
    int words = text_draw_wrapped(c->t, say, 0, 0, width - S(c, 32), S(c, BODY), TEXT_SANS, c->th.ink, 0);
    int need = S(c, 10) + words + S(c, 6) + text_height(c->t, S(c, BODY)) + S(c, 8) + 2 * ths + S(c, 10);
    int h = need > S(c, 150) ? need : S(c, 150);
    return h > height / 3 ? height / 3 : h;
}

static void draw_lesson(ctx_t *c, int x, int y, int w, int h)
{
    const view_model_t *m = c->m;
    fill(c, x, y, w, h, c->th.panel);
    fill(c, x, y, w, S(c, 2), c->th.grid);
    int px = x + S(c, 16), py = y + S(c, 10), iw = w - S(c, 32);
    const char *say = tr(c, m->say_en ? m->say_en : "", m->say_zh);
    /* the words stop above the line of knob values (and the "go on" box),
     * smaller if they must: a long lesson text never runs over the keys */
    int knob_y = y + h - 2 * text_height(c->t, S(c, SMALL)) - S(c, 8);
    int gy = knob_y - text_height(c->t, S(c, BODY)) - S(c, 8);   /* the "go on" box, above the knob line */
    int say_h = (m->waiting || m->hold_run ? gy - S(c, 6) : knob_y - S(c, 2)) - py;
    txt_wrap_fit(c, say, px, py, iw, say_h > 0 ? say_h : 1, BODY, TEXT_SANS, c->th.ink);
    if (m->waiting || m->hold_run) {   /* the lesson holds: say how to go on */
        char gobuf[160];
        const char *go = m->hold_run ? tr(c, "Space: start the run  ▶", "空格：开始运行  ▶")
                                     : tr(c, "Space or PageDown: go on  ▶", "空格或 PageDown：继续  ▶");
        if (m->auto_left > 0) {
            snprintf(gobuf, sizeof gobuf, tr(c, "%s  (by itself in %.0f s)", "%s（%.0f 秒后自动继续）"), go,
                     ceil(m->auto_left));
            go = gobuf;
        }
        int gw = txt_w(c, go, BODY, TEXT_BOLD);
        fill(c, x + w - S(c, 16) - gw - S(c, 12), gy - S(c, 4), gw + S(c, 12), text_height(c->t, S(c, BODY)) + S(c, 8),
             OI_BLUE);
        txt(c, go, x + w - S(c, 16) - gw - S(c, 6), gy, BODY, TEXT_BOLD, (SDL_Color){ 255, 255, 255, 255 });
    }
    /* the knobs, on the last line */
    const char *keys = tr(c, "Space pause · Up/Down speed · [ ] SMs · , . memory bandwidth · R restart · "
                             "L 中文 · T theme · Tab details · P screenshot · Q quit",
                          "空格 暂停 · 上/下 速度 · [ ] SM 数 · , . 内存带宽 · R 重来 · L English · T 主题 · "
                          "Tab 详情 · P 截图 · Q 退出");
    int ky = y + h - text_height(c->t, S(c, SMALL)) - S(c, 6);
    int kw = txt(c, keys, px, ky, SMALL, TEXT_SANS, c->th.muted);
    /* the knobs' values now: the first GPU on the stage */
    const view_lane_t *g = NULL;
    for (int i = 0; i < m->nlanes && !g; i++)
        if (!m->lane[i].is_cpu)
            g = &m->lane[i];
    if (g) {
        char knobs[200];
        snprintf(knobs, sizeof knobs, tr(c, "%s: %u SM%s · DRAM %.0f GB/s · %.0f MHz", "%s：%u 个 SM%s · 显存 %.0f GB/s · %.0f MHz"),
                 g->gdesc->name, g->gdesc->sms, tr(c, g->gdesc->sms == 1 ? "" : "s", ""), g->gdesc->dram_gbps, g->gdesc->clock_mhz);
        int room = iw, kyy = ky - text_height(c->t, S(c, SMALL)) - S(c, 2);
        (void)kw;
        {
            int kx = x + w - S(c, 16) - (txt_w(c, knobs, SMALL, TEXT_BOLD) < room ? txt_w(c, knobs, SMALL, TEXT_BOLD) : room);
            txt_fit(c, knobs, kx, kyy, room, SMALL, TEXT_BOLD, c->th.ink);
            hint(c, kx, kyy, room, text_height(c->t, S(c, SMALL)),
                 "The knobs of the GPU on the stage now: [ and ] halve or double its SMs, , and . its memory "
                 "bandwidth (when the lesson lets you).",
                 "舞台上这块 GPU 现在的旋钮：[ 和 ] 让 SM 数减半或加倍，, 和 . 让内存带宽减半或加倍（在课程允许时）。");
        }
    }
    int kline = ky - text_height(c->t, S(c, SMALL)) - S(c, 2);
    if (m->knobs_en || m->knobs_off) {   /* the lesson's own knobs (command line) and whether the keys act */
        char kb[600];
        snprintf(kb, sizeof kb, "%s%s%s", m->knobs_en ? tr(c, m->knobs_en, m->knobs_zh) : "",
                 m->knobs_en && m->knobs_off ? "  ·  " : "",
                 m->knobs_off ? tr(c, "this step does not use [ ] , . R", "这一步不用 [ ] , . R 键") : "");
        int room = g ? iw - txt_w(c, "edu-tiny: 2 SMs · DRAM 32 GB/s · 1000 MHz", SMALL, TEXT_BOLD) - S(c, 24) : iw;
        txt_fit(c, kb, px, kline, room > S(c, 100) ? room : S(c, 100), SMALL, TEXT_SANS, c->th.muted);
        hint(c, px, kline, room, text_height(c->t, S(c, SMALL)),
             "The lesson's knobs: give them on the command line, e.g. simtlab lesson 3 paths=8. The keys [ ] , . "
             "change the GPU of the step on the stage and R runs the step again.",
             "本课的可调参数：在命令行给出，例如 simtlab lesson 3 paths=8。[ ] , . 键改变舞台上这一步的 GPU，R 重新运行这一步。");
    }
}

/* A notice (a screenshot saved, a knob key the step does not use) at the
 * top of the body, where it covers no button. */
static void draw_status(ctx_t *c, int y)
{
    const view_model_t *m = c->m;
    if (!m->status)
        return;
    int w = txt_w(c, m->status, BODY, TEXT_BOLD), pad = S(c, 10);
    if (w > m->width - 4 * pad)
        w = m->width - 4 * pad;
    int x = (m->width - w) / 2;
    fill(c, x - pad, y, w + 2 * pad, text_height(c->t, S(c, BODY)) + S(c, 8), OI_BLUE);
    txt_fit(c, m->status, x, y + S(c, 4), w, BODY, TEXT_BOLD, (SDL_Color){ 255, 255, 255, 255 });
}

static void draw_help(ctx_t *c)
{
    const view_model_t *m = c->m;
    static const char *const en[] = {
        "Space", "pause / go on",         "Right", "one step (when paused)",
        "Left", "look back (when paused)", "Up / Down", "faster / slower",
        "[  ]", "half / double the SMs",   ",  .", "half / double the memory bandwidth",
        "R", "start the run again",        "PageDown / PageUp", "next / previous step",
        "L", "English / 中文",              "T", "light / dark",
        "+  -", "bigger / smaller",        "Tab", "hide / show the details",
        "P", "screenshot (PNG in this folder)", "H, F1", "this help",
        "Q, Esc", "quit",
    };
    static const char *const zh[] = {
        "空格", "暂停 / 继续",               "右方向键", "走一步（暂停时）",
        "左方向键", "往回看（暂停时）",       "上 / 下", "加快 / 放慢",
        "[  ]", "SM 数减半 / 加倍",          ",  .", "内存带宽减半 / 加倍",
        "R", "重新运行",                    "PageDown / PageUp", "下一步 / 上一步",
        "L", "English / 中文",              "T", "浅色 / 深色",
        "+  -", "放大 / 缩小",               "Tab", "隐藏 / 显示详情",
        "P", "截图（PNG 存在当前文件夹）",    "H, F1", "本帮助",
        "Q, Esc", "退出",
    };
    const char *const *k = m->zh ? zh : en;
    int n = (int)(sizeof en / sizeof en[0]) / 2;
    int lh = text_height(c->t, S(c, BODY)) + S(c, 4);
    int kcol = 0, dcol = 0;   /* the keys' column as wide as its widest key */
    for (int i = 0; i < n; i++) {
        int a = txt_w(c, k[2 * i], BODY, TEXT_BOLD), b = txt_w(c, k[2 * i + 1], BODY, TEXT_SANS);
        kcol = a > kcol ? a : kcol;
        dcol = b > dcol ? b : dcol;
    }
    int w = S(c, 20) + kcol + S(c, 24) + dcol + S(c, 20), h = lh * (n + 2) + S(c, 20);
    if (w > m->width)
        w = m->width;
    int x = (m->width - w) / 2, y = (m->height - h) / 2;
    fill(c, x, y, w, h, c->th.bg);
    frame_rect(c, x, y, w, h, c->th.ink);
    txt(c, tr(c, "Keys", "按键"), x + S(c, 20), y + S(c, 12), HEAD, TEXT_BOLD, c->th.ink);
    for (int i = 0; i < n; i++) {
        int ly = y + S(c, 20) + lh * (i + 1);
        txt(c, k[2 * i], x + S(c, 20), ly, BODY, TEXT_BOLD, c->th.ink);
        txt(c, k[2 * i + 1], x + S(c, 20) + kcol + S(c, 24), ly, BODY, TEXT_SANS, c->th.ink);
    }
}

static void draw_tooltip(ctx_t *c)
{
    const view_model_t *m = c->m;
    if (m->mouse_x < 0)
        return;
    for (int i = c->nhints - 1; i >= 0; i--) {
        const hint_t *k = &c->hints[i];
        SDL_Point p = { m->mouse_x, m->mouse_y };
        if (!SDL_PointInRect(&p, &k->r))
            continue;
        const char *s = tr(c, k->en, k->zh);
        int w = S(c, 420), pad = S(c, 10);
        int h = text_draw_wrapped(c->t, s, 0, 0, w - 2 * pad, S(c, BODY), TEXT_SANS, c->th.ink, 0) + 2 * pad;
        int x = m->mouse_x + S(c, 16), y = m->mouse_y + S(c, 16);
        if (x + w > m->width)
            x = m->width - w - 4;
        if (y + h > m->height)
            y = m->mouse_y - h - S(c, 8);
        if (y < 0)
            y = 0;
        fill(c, x, y, w, h, c->th.bg);
        frame_rect(c, x, y, w, h, c->th.ink);
        text_draw_wrapped(c->t, s, x + pad, y + pad, w - 2 * pad, S(c, BODY), TEXT_SANS, c->th.ink, 1);
        return;
    }
}

int view_draw(SDL_Renderer *r, text_t *t, const view_model_t *m)
{
    static ctx_t c;   /* large (hints); one view draws at a time */
    memset(&c, 0, sizeof c);
    c.r = r;
    c.t = t;
    c.m = m;
    /* text grows with the window (1280 x 720 at zoom 1), so that a
     * projector at 1920 x 1080 is readable without pressing + */
    double fit = fmin(m->width / 1280.0, m->height / 720.0);
    fit = fit < 0.8 ? 0.8 : fit > 1.75 ? 1.75 : fit;
    c.z = (m->zoom > 0 ? m->zoom : 1.0) * fit;
    if (m->dark)
        c.th = (theme_t){ { 24, 26, 30, 255 },    { 34, 37, 42, 255 },  { 236, 238, 241, 255 }, { 160, 166, 175, 255 },
                          { 80, 86, 95, 255 },    { 86, 180, 233, 255 }, { 52, 56, 62, 255 },   { 44, 48, 54, 255 } };
    else
        c.th = (theme_t){ { 246, 247, 249, 255 }, { 255, 255, 255, 255 }, { 20, 22, 26, 255 }, { 90, 96, 105, 255 },
                          { 190, 194, 200, 255 }, { 0, 114, 178, 255 },  { 226, 228, 232, 255 }, { 238, 240, 243, 255 } };
    color(&c, c.th.bg);
    SDL_RenderClear(r);
    int head = S(&c, 52);
    int lesson = lesson_height(&c, m->width, m->height);
    int body_y = head, body_h = m->height - head - lesson;
    int detail_w = m->detail ? S(&c, 360) : 0;
    if (detail_w > m->width / 2)
        detail_w = m->width / 2;
    if (m->nlanes == 0)   /* nothing to detail: the body is the board's or the words' */
        detail_w = 0;
    draw_header(&c, head);
    int lanes_w = m->width - detail_w;
    if (m->picture) {   /* a chart instead of the runs: the whole body, its shape kept */
        int pw = m->width - S(&c, 16), ph = body_h - S(&c, 16);
        double k = fmin((double)pw / m->picture->w, (double)ph / m->picture->h);
        SDL_Texture *tx = SDL_CreateTextureFromSurface(r, m->picture);
        if (tx) {
            SDL_Rect dst = { (m->width - (int)(m->picture->w * k)) / 2, body_y + S(&c, 8), (int)(m->picture->w * k),
                             (int)(m->picture->h * k) };
            SDL_RenderCopy(r, tx, NULL, &dst);
            SDL_DestroyTexture(tx);
        }
        draw_lesson(&c, 0, m->height - lesson, m->width, lesson);
        draw_status(&c, body_y + S(&c, 6));
        if (m->help)
            draw_help(&c);
        return 0;
    }
    if (m->board && m->board->kind != VIEW_BOARD_NONE) {   /* the board in place of the detail column */
        int bw = m->nlanes && !m->board->alone ? (int)(m->width * (m->nlanes > 1 ? 0.42 : 0.5)) : m->width;
        if (m->nlanes && !m->board->alone && m->width - bw < S(&c, 300))
            bw = m->width - S(&c, 300);
        detail_w = bw;
        lanes_w = m->width - bw;
        draw_board(&c, m->board, lanes_w, body_y, bw, body_h);
    }
    for (int i = 0; i < m->nlanes && lanes_w > 0; i++) {
        int x0 = lanes_w * i / m->nlanes, x1 = lanes_w * (i + 1) / m->nlanes;
        draw_lane(&c, &m->lane[i], x0, body_y, x1 - x0, body_h);
    }
    if (m->nlanes == 0 && !(m->board && m->board->kind != VIEW_BOARD_NONE)) {
        /* a step that shows no run and no board (its words are the step):
         * say so in the middle of the body instead of an empty run panel */
        const char *what = m->waiting ? tr(&c, "This step runs no kernel: its point is in the words below. "
                                               "Space or PageDown goes on.",
                                           "这一步不运行核函数：要点在下面的文字里。按空格或 PageDown 继续。")
                                      : tr(&c, "No run on the stage yet: read the words below.",
                                           "舞台上还没有运行：请先读下面的文字。");
        int ww = m->width - S(&c, 80);
        int wh = text_draw_wrapped(t, what, 0, 0, ww, S(&c, HEAD), TEXT_SANS, c.th.muted, 0);
        text_draw_wrapped(t, what, S(&c, 40), body_y + (body_h - wh) / 2, ww, S(&c, HEAD), TEXT_SANS, c.th.muted, 1);
    }
    if (detail_w && !(m->board && m->board->kind != VIEW_BOARD_NONE))
        draw_detail(&c, m->focus >= 0 && m->focus < m->nlanes ? &m->lane[m->focus] : NULL, lanes_w, body_y,
                    detail_w, body_h);
    draw_lesson(&c, 0, m->height - lesson, m->width, lesson);
    draw_status(&c, body_y + S(&c, 6));
    if (m->help)
        draw_help(&c);
    else
        draw_tooltip(&c);
    return 0;
}
