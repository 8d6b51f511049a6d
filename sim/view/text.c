/* text.c - fonts and text for the window (see text.h).
 *
 * A string is drawn in three steps:
 *   1. split into runs by script: code points in the CJK ranges (and any
 *      glyph the Latin font lacks but the CJK font has) go to the CJK
 *      font, the rest to the Latin font of the style;
 *   2. each run is rendered with TTF_RenderUTF8_Blended and copied (no
 *      blending, so anti-aliased edges keep their alpha) side by side onto
 *      one transparent surface, every run's baseline at the same height:
 *      the larger ascent of the two fonts;
 *   3. that surface becomes a texture, kept in an LRU cache keyed by
 *      (bytes, px, style, colour); drawing is one SDL_RenderCopy.
 * Fonts are opened on first use per (face, px) and kept in a small table
 * (least recently used closed first when it is full).
 */
#include "text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_ttf.h>

#define TEXT_MAX_FONTS 48        /* open (face, px) pairs                  */
#define TEXT_BUCKETS 1024        /* hash buckets, > 2 x TEXT_CACHE_ENTRIES */
#define TEXT_MAX_SURFACE 16384   /* widest rendered string in pixels       */

/* The faces a style draws with: a Latin one and a CJK one. */
typedef enum { FACE_SANS, FACE_BOLD, FACE_MONO, FACE_CJK, FACE_CJK_BOLD, FACE_CJK_MONO } face_t;

enum { PATH_SANS, PATH_BOLD, PATH_MONO, PATH_CJK, PATH_COUNT };

typedef struct font_slot {
    TTF_Font *font;          /* NULL: slot free                            */
    int face;                /* face_t                                     */
    int px;                  /* pixel size                                 */
    uint64_t used;           /* text_t.clock at last use (LRU)             */
} font_slot_t;

typedef struct cache_entry {
    char *s;                 /* the string's bytes (own copy, not NUL-ended) */
    size_t len;
    uint32_t hash;
    int px, style;
    Uint32 colour;           /* r | g << 8 | b << 16 | a << 24             */
    SDL_Texture *tex;        /* NULL: entry free                           */
    int w, h;
    int chain;               /* next entry in the same bucket, -1: end     */
    int prev, next;          /* LRU list: prev is more recently used       */
} cache_entry_t;

/* A measured width (measure_n), kept: wrapping a lesson's words measures
 * every candidate line at every break, and the stage does it every frame
 * (callgrind, lesson 3 at 1920 x 1080: a third of all host instructions). */
#define TEXT_WIDTHS 2048         /* entries, a power of two                */
#define TEXT_WIDTH_KEY 320       /* longest string kept (bytes)            */
typedef struct width_entry {
    char s[TEXT_WIDTH_KEY];
    uint16_t len;            /* 0: entry free                              */
    int16_t px;
    int8_t style;
    int w;
} width_entry_t;

struct text {
    width_entry_t *widths;                 /* TEXT_WIDTHS measured widths, or NULL */
    SDL_Renderer *r;                       /* the renderer textures belong to */
    char path[PATH_COUNT][1024];           /* font files; "" = not found      */
    int ttf_up;                            /* TTF_Init succeeded              */
    uint64_t clock;                        /* use counter for the font LRU    */
    font_slot_t fonts[TEXT_MAX_FONTS];
    cache_entry_t entries[TEXT_CACHE_ENTRIES];
    int buckets[TEXT_BUCKETS];             /* first entry per bucket, -1: none */
    int lru_head, lru_tail;                /* most / least recently used      */
    size_t count;                          /* entries in use                  */
    size_t pixels;                         /* w x h summed over entries       */
};

/* ---- finding fonts ----------------------------------------------------- */

static int readable(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

const char *text_find_font(const char *name, char *out, size_t n)
{
    static const char *const dirs[] = {
        "assets/fonts",
        "/usr/share/fonts/truetype/dejavu",
        "/usr/share/fonts/truetype/wqy",
        "/usr/share/fonts/TTF",
        "/usr/share/fonts/dejavu",
        "/usr/share/fonts/dejavu-sans-fonts",
        "/usr/share/fonts/dejavu-sans-mono-fonts",
        "/usr/share/fonts/wqy-microhei",
        "/usr/share/fonts/wenquanyi/wqy-microhei",
        "/usr/share/fonts/wqy-zenhei",
        "/usr/share/fonts/truetype",
        "/usr/local/share/fonts",
        "/usr/share/fonts",
    };
    const char *env = getenv("SIMTLAB_FONT_DIR");
    size_t i;
    if (!name || !name[0] || !out || n == 0)
        return NULL;
    if (env && env[0]) {
        snprintf(out, n, "%s/%s", env, name);
        if (readable(out))
            return out;
    }
    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(out, n, "%s/%s", dirs[i], name);
        if (readable(out))
            return out;
    }
    out[0] = '\0';
    return NULL;
}

/* Fill t->path[k] from the caller's choice (NULL: search names, "": none). */
static void pick_font(text_t *t, int k, const char *given, const char *const *names)
{
    char buf[1024];
    t->path[k][0] = '\0';
    if (given) {
        if (given[0] && readable(given))
            snprintf(t->path[k], sizeof t->path[k], "%s", given);
        return;
    }
    for (; *names; names++)
        if (text_find_font(*names, buf, sizeof buf)) {
            snprintf(t->path[k], sizeof t->path[k], "%s", buf);
            return;
        }
}

/* ---- opening fonts ----------------------------------------------------- */

/* Open face at px: the file, the face index in a .ttc, a synthetic style. */
static TTF_Font *open_face(const text_t *t, int face, int px)
{
    const char *file = NULL;
    long index = 0;
    int style = TTF_STYLE_NORMAL;
    TTF_Font *f;
    const char *sans = t->path[PATH_SANS][0] ? t->path[PATH_SANS] : NULL;
    const char *cjk = t->path[PATH_CJK][0] ? t->path[PATH_CJK] : NULL;
    switch (face) {
    case FACE_SANS:
        file = sans ? sans : cjk;
        break;
    case FACE_BOLD:
        if (t->path[PATH_BOLD][0]) {
            file = t->path[PATH_BOLD];
        } else {
            file = sans ? sans : cjk;
            style = TTF_STYLE_BOLD;
        }
        break;
    case FACE_MONO:
        if (t->path[PATH_MONO][0]) {
            file = t->path[PATH_MONO];
        } else if (sans) {
            file = sans;
        } else {
            file = cjk;
            index = 1; /* WenQuanYi Micro Hei Mono */
        }
        break;
    case FACE_CJK:
        file = cjk;
        break;
    case FACE_CJK_BOLD:
        file = cjk;
        style = TTF_STYLE_BOLD;
        break;
    case FACE_CJK_MONO:
        file = cjk;
        index = 1;
        break;
    default:
        return NULL;
    }
    if (!file)
        return NULL;
    f = TTF_OpenFontIndex(file, px, index);
    if (!f && index != 0)
        f = TTF_OpenFontIndex(file, px, 0); /* a .ttc without a second face */
    if (f && style != TTF_STYLE_NORMAL)
        TTF_SetFontStyle(f, style);
    return f;
}

/* The font for face at px, opened on first use; NULL if it cannot be. */
static TTF_Font *get_font(text_t *t, int face, int px)
{
    int i, victim = 0;
    for (i = 0; i < TEXT_MAX_FONTS; i++) {
        font_slot_t *s = &t->fonts[i];
        if (s->font && s->face == face && s->px == px) {
            s->used = ++t->clock;
            return s->font;
        }
    }
    for (i = 0; i < TEXT_MAX_FONTS; i++) { /* a free slot, or the least recently used */
        if (!t->fonts[i].font) {
            victim = i;
            break;
        }
        if (t->fonts[i].used < t->fonts[victim].used)
            victim = i;
    }
    if (t->fonts[victim].font)
        TTF_CloseFont(t->fonts[victim].font);
    t->fonts[victim].font = open_face(t, face, px);
    t->fonts[victim].face = face;
    t->fonts[victim].px = px;
    t->fonts[victim].used = ++t->clock;
    return t->fonts[victim].font;
}

static TTF_Font *latin_font(text_t *t, int px, text_style_t st)
{
    return get_font(t, st == TEXT_BOLD ? FACE_BOLD : st == TEXT_MONO ? FACE_MONO : FACE_SANS, px);
}

static TTF_Font *cjk_font(text_t *t, int px, text_style_t st)
{
    if (!t->path[PATH_CJK][0])
        return NULL;
    return get_font(t, st == TEXT_BOLD ? FACE_CJK_BOLD : st == TEXT_MONO ? FACE_CJK_MONO : FACE_CJK,
                    px);
}

/* ---- UTF-8 and scripts --------------------------------------------------- */

/* The code point at s[*i] (n bytes in all); advances *i. A malformed
 * sequence gives U+FFFD and advances one byte. */
static uint32_t utf8_next(const char *s, size_t n, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = n - *i, need, k;
    uint32_t cp, min;
    if (p[0] < 0x80) {
        *i += 1;
        return p[0];
    }
    if ((p[0] & 0xE0) == 0xC0) {
        need = 1;
        cp = p[0] & 0x1F;
        min = 0x80;
    } else if ((p[0] & 0xF0) == 0xE0) {
        need = 2;
        cp = p[0] & 0x0F;
        min = 0x800;
    } else if ((p[0] & 0xF8) == 0xF0) {
        need = 3;
        cp = p[0] & 0x07;
        min = 0x10000;
    } else {
        *i += 1;
        return 0xFFFD;
    }
    if (left <= need) {
        *i += 1;
        return 0xFFFD;
    }
    for (k = 1; k <= need; k++) {
        if ((p[k] & 0xC0) != 0x80) {
            *i += 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (p[k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *i += 1;
        return 0xFFFD;
    }
    *i += need + 1;
    return cp;
}

static size_t utf8_put(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Code points drawn with the CJK font and breakable between any two:
 * Hangul Jamo, CJK radicals to Yi (punctuation, kana, Bopomofo,
 * ideographs), Hangul syllables, compatibility ideographs and forms,
 * fullwidth forms, the supplementary ideograph planes. */
static int is_cjk(uint32_t cp)
{
    return (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x2E80 && cp <= 0xA4CF)
           || (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF)
           || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFFEF)
           || (cp >= 0x20000 && cp <= 0x3FFFF);
}

/* Closing punctuation: no line may start with it. */
static int no_break_before(uint32_t cp)
{
    static const uint32_t list[] = {
        0xFF0C, 0x3002, 0x3001, 0xFF1B, 0xFF1A, 0xFF1F, 0xFF01, 0xFF09, 0x300D, 0x300F,
        0x3011, 0x3009, 0x300B, 0x3015, 0xFF3D, 0xFF5D, 0x3017, 0x3019, 0x301B, 0xFF0E,
        0x2019, 0x201D, 0x2026, 0x2025, 0x00B7, 0x30FB, 0x30FC, 0x3005, 0x301C, 0xFF5E,
        0x2014, 0xFF05, 0x2030, 0x2103, 0x3063, 0x30C3,
        ',', '.', ';', ':', '?', '!', ')', ']', '}', '%',
    };
    size_t i;
    for (i = 0; i < sizeof list / sizeof list[0]; i++)
        if (list[i] == cp)
            return 1;
    return 0;
}

/* Opening punctuation: no line may end with it. */
static int no_break_after(uint32_t cp)
{
    static const uint32_t list[] = {
        0xFF08, 0x300C, 0x300E, 0x3010, 0x3008, 0x300A, 0x3014, 0xFF3B, 0xFF5B, 0x3016,
        0x3018, 0x301A, 0x2018, 0x201C, 0xFF04, 0x00A3, 0x00A5, '(', '[', '{', '$',
    };
    size_t i;
    for (i = 0; i < sizeof list / sizeof list[0]; i++)
        if (list[i] == cp)
            return 1;
    return 0;
}

static int is_space(uint32_t cp) { return cp == ' ' || cp == '\t'; }

/* Does code point cp go to the CJK font cf (rather than the Latin lf)? */
static int goes_to_cjk(TTF_Font *lf, TTF_Font *cf, uint32_t cp)
{
    if (!cf || cp < 0x80)
        return 0;
    if (is_cjk(cp))
        return TTF_GlyphIsProvided32(cf, cp) || !TTF_GlyphIsProvided32(lf, cp);
    return !TTF_GlyphIsProvided32(lf, cp) && TTF_GlyphIsProvided32(cf, cp);
}

/* The runs of s[0..n): a clean UTF-8 copy in buf (4 n + 1 bytes), each run
 * NUL-terminated, its font in fonts[]; tabs become spaces, other control
 * characters are dropped. Returns the number of runs. */
static size_t split_runs(TTF_Font *lf, TTF_Font *cf, const char *s, size_t n, char *buf,
                         const char **runs, TTF_Font **fonts)
{
    size_t i = 0, o = 0, nr = 0;
    int cur = -1;
    while (i < n) {
        uint32_t cp = utf8_next(s, n, &i);
        int c;
        if (cp == '\t')
            cp = ' ';
        if (cp < 0x20 || cp == 0x7F)
            continue;
        c = goes_to_cjk(lf, cf, cp);
        if (c != cur) {
            if (cur >= 0)
                buf[o++] = '\0';
            runs[nr] = buf + o;
            fonts[nr] = c ? cf : lf;
            nr++;
            cur = c;
        }
        o += utf8_put(buf + o, cp);
    }
    if (cur >= 0)
        buf[o] = '\0';
    return nr;
}

/* ---- metrics ------------------------------------------------------------ */

typedef struct metrics {
    int ascent;              /* top to baseline                            */
    int height;              /* ascent + the larger descent                */
    int skip;                /* line height (the larger line skip)         */
} metrics_t;

static int get_metrics(text_t *t, int px, text_style_t st, metrics_t *m)
{
    TTF_Font *lf = latin_font(t, px, st), *cf = cjk_font(t, px, st);
    int desc;
    if (!lf)
        return -1;
    m->ascent = TTF_FontAscent(lf);
    desc = -TTF_FontDescent(lf);
    m->skip = TTF_FontLineSkip(lf);
    if (cf) {
        if (TTF_FontAscent(cf) > m->ascent)
            m->ascent = TTF_FontAscent(cf);
        if (-TTF_FontDescent(cf) > desc)
            desc = -TTF_FontDescent(cf);
        if (TTF_FontLineSkip(cf) > m->skip)
            m->skip = TTF_FontLineSkip(cf);
    }
    {   /* SDL_ttf 2.20 cuts off what hangs below its font height: at some
         * sizes DejaVu's underscore; make room for it (render_n draws it) */
        int minx, maxx, miny, maxy, adv;
        if (TTF_GlyphMetrics32(lf, '_', &minx, &maxx, &miny, &maxy, &adv) == 0 && -miny > desc)
            desc = -miny;
    }
    m->height = m->ascent + desc;
    if (m->skip < m->height)
        m->skip = m->height;
    return 0;
}

int text_height(text_t *t, int px)
{
    metrics_t m;
    if (!t || px < TEXT_MIN_PX || px > TEXT_MAX_PX || get_metrics(t, px, TEXT_SANS, &m))
        return 0;
    return m.skip;
}

int text_ascent(text_t *t, int px)
{
    metrics_t m;
    if (!t || px < TEXT_MIN_PX || px > TEXT_MAX_PX || get_metrics(t, px, TEXT_SANS, &m))
        return 0;
    return m.ascent;
}

/* Scratch space for split_runs: a stack buffer for short strings. */
typedef struct scratch {
    char small[1024];
    const char *runs_small[128];
    TTF_Font *fonts_small[128];
    char *buf;
    const char **runs;
    TTF_Font **fonts;
} scratch_t;

static int scratch_get(scratch_t *sc, size_t n)
{
    if (4 * n + 1 <= sizeof sc->small && n <= 128) {
        sc->buf = sc->small;
        sc->runs = sc->runs_small;
        sc->fonts = sc->fonts_small;
        return 0;
    }
    sc->buf = malloc(4 * n + 1);
    sc->runs = malloc((n + 1) * sizeof *sc->runs);
    sc->fonts = malloc((n + 1) * sizeof *sc->fonts);
    if (!sc->buf || !sc->runs || !sc->fonts) {
        free(sc->buf);
        free(sc->runs);
        free(sc->fonts);
        return -1;
    }
    return 0;
}

static void scratch_put(scratch_t *sc)
{
    if (sc->buf != sc->small) {
        free(sc->buf);
        free(sc->runs);
        free(sc->fonts);
    }
}

/* Width of s[0..n) in pixels (the sum of its runs' widths). */
static int measure_n(text_t *t, const char *s, size_t n, int px, text_style_t st)
{
    TTF_Font *lf, *cf;
    scratch_t sc;
    size_t nr, k;
    int total = 0;
    if (!t || !s || n == 0 || px < TEXT_MIN_PX || px > TEXT_MAX_PX)
        return 0;
    width_entry_t *we = NULL;
    if (t->widths && n < TEXT_WIDTH_KEY) {   /* measured before: the same bytes, size and style */
        uint32_t h = 2166136261u ^ (uint32_t)px ^ ((uint32_t)st << 9);
        for (size_t i = 0; i < n; i++)
            h = (h ^ (unsigned char)s[i]) * 16777619u;
        we = &t->widths[h & (TEXT_WIDTHS - 1)];
        if (we->len == n && we->px == px && we->style == (int8_t)st && memcmp(we->s, s, n) == 0)
            return we->w;
    }
    if (!(lf = latin_font(t, px, st)))
        return 0;
    cf = cjk_font(t, px, st); /* never closes lf: lf is the most recently used */
    if (scratch_get(&sc, n))
        return 0;
    nr = split_runs(lf, cf, s, n, sc.buf, sc.runs, sc.fonts);
    for (k = 0; k < nr; k++) {
        int w = 0, h = 0;
        if (TTF_SizeUTF8(sc.fonts[k], sc.runs[k], &w, &h) == 0)
            total += w;
    }
    scratch_put(&sc);
    if (we) {
        memcpy(we->s, s, n);
        we->len = (uint16_t)n;
        we->px = (int16_t)px;
        we->style = (int8_t)st;
        we->w = total;
    }
    return total;
}

int text_width(text_t *t, const char *s, int px, text_style_t st)
{
    return s ? measure_n(t, s, strlen(s), px, st) : 0;
}

/* Paint every '_' of run (drawn with font f from x, baseline at y) as the
 * solid bar it is: SDL_ttf 2.20 may have cut it off at the bottom of its
 * own surface. The run is NUL-cut in place for measuring, then restored. */
static void draw_underscores(TTF_Font *f, char *run, SDL_Surface *out, int x, int base,
                             SDL_Color c)
{
    int minx, maxx, miny, maxy, adv;
    char *u;
    if (!strchr(run, '_') || TTF_GlyphMetrics32(f, '_', &minx, &maxx, &miny, &maxy, &adv) != 0)
        return;
    for (u = strchr(run, '_'); u; u = strchr(u + 1, '_')) {
        int pw = 0, ph = 0;
        SDL_Rect bar;
        char keep = *u;
        *u = '\0';
        if (u > run)
            TTF_SizeUTF8(f, run, &pw, &ph);
        *u = keep;
        bar.x = x + pw + minx;
        bar.y = base - maxy;
        bar.w = maxx - minx > 0 ? maxx - minx : 1;
        bar.h = maxy - miny > 0 ? maxy - miny : 1;
        SDL_FillRect(out, &bar, SDL_MapRGBA(out->format, c.r, c.g, c.b, c.a));
    }
}

/* Render s[0..n) onto a new transparent ARGB8888 surface (NULL if empty
 * or on failure); *w is the advance width. */
static SDL_Surface *render_n(text_t *t, const char *s, size_t n, int px, text_style_t st,
                             SDL_Color c, int *w)
{
    TTF_Font *lf, *cf;
    scratch_t sc;
    metrics_t m;
    size_t nr, k;
    int x = 0, total = 0, *adv = NULL;
    SDL_Surface *out = NULL;
    *w = 0;
    if (get_metrics(t, px, st, &m))
        return NULL;
    lf = latin_font(t, px, st);
    cf = cjk_font(t, px, st);
    if (!lf || scratch_get(&sc, n))
        return NULL;
    nr = split_runs(lf, cf, s, n, sc.buf, sc.runs, sc.fonts);
    if (nr == 0 || !(adv = malloc(nr * sizeof *adv)))
        goto done;
    for (k = 0; k < nr; k++) {
        int h = 0;
        adv[k] = 0;
        TTF_SizeUTF8(sc.fonts[k], sc.runs[k], &adv[k], &h);
        total += adv[k];
    }
    *w = total;
    if (total <= 0 || total > TEXT_MAX_SURFACE)
        goto done;
    out = SDL_CreateRGBSurfaceWithFormat(0, total, m.height, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!out)
        goto done;
    SDL_FillRect(out, NULL, SDL_MapRGBA(out->format, c.r, c.g, c.b, 0));
    for (k = 0; k < nr; k++) {
        SDL_Surface *run = TTF_RenderUTF8_Blended(sc.fonts[k], sc.runs[k], c);
        if (run) {
            SDL_Rect dst = { x, m.ascent - TTF_FontAscent(sc.fonts[k]), run->w, run->h };
            SDL_SetSurfaceBlendMode(run, SDL_BLENDMODE_NONE); /* copy, keep the alpha */
            SDL_BlitSurface(run, NULL, out, &dst);
            SDL_FreeSurface(run);
            draw_underscores(sc.fonts[k], (char *)sc.runs[k], out, x, m.ascent, c);
        }
        x += adv[k];
    }
done:
    free(adv);
    scratch_put(&sc);
    return out;
}

/* ---- the texture cache ---------------------------------------------------- */

static uint32_t hash_key(const char *s, size_t n, int px, int st, Uint32 colour)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    h = (h ^ (uint32_t)px) * 16777619u;
    h = (h ^ (uint32_t)st) * 16777619u;
    h = (h ^ colour) * 16777619u;
    return h;
}

static Uint32 pack_colour(SDL_Color c)
{
    return (Uint32)c.r | (Uint32)c.g << 8 | (Uint32)c.b << 16 | (Uint32)c.a << 24;
}

static void lru_unlink(text_t *t, int i)
{
    cache_entry_t *e = &t->entries[i];
    if (e->prev >= 0)
        t->entries[e->prev].next = e->next;
    else
        t->lru_head = e->next;
    if (e->next >= 0)
        t->entries[e->next].prev = e->prev;
    else
        t->lru_tail = e->prev;
    e->prev = e->next = -1;
}

static void lru_push_front(text_t *t, int i)
{
    cache_entry_t *e = &t->entries[i];
    e->prev = -1;
    e->next = t->lru_head;
    if (t->lru_head >= 0)
        t->entries[t->lru_head].prev = i;
    t->lru_head = i;
    if (t->lru_tail < 0)
        t->lru_tail = i;
}

/* Drop entry i: out of its bucket chain and the LRU list, texture freed. */
static void cache_drop(text_t *t, int i)
{
    cache_entry_t *e = &t->entries[i];
    int *link = &t->buckets[e->hash % TEXT_BUCKETS];
    while (*link != i && *link >= 0)
        link = &t->entries[*link].chain;
    if (*link == i)
        *link = e->chain;
    lru_unlink(t, i);
    SDL_DestroyTexture(e->tex);
    free(e->s);
    t->pixels -= (size_t)e->w * (size_t)e->h;
    t->count--;
    memset(e, 0, sizeof *e);
    e->chain = e->prev = e->next = -1;
}

SDL_Texture *text_texture(text_t *t, const char *s, int px, text_style_t st, SDL_Color c, int *w,
                          int *h)
{
    size_t n = s ? strlen(s) : 0;
    uint32_t hash;
    Uint32 colour = pack_colour(c);
    int i, aw = 0, slot;
    size_t need;
    SDL_Surface *surf;
    SDL_Texture *tex;
    cache_entry_t *e;
    if (w)
        *w = 0;
    if (h)
        *h = 0;
    if (!t || n == 0 || px < TEXT_MIN_PX || px > TEXT_MAX_PX)
        return NULL;
    hash = hash_key(s, n, px, (int)st, colour);
    for (i = t->buckets[hash % TEXT_BUCKETS]; i >= 0; i = t->entries[i].chain) {
        e = &t->entries[i];
        if (e->hash == hash && e->len == n && e->px == px && e->style == (int)st
            && e->colour == colour && memcmp(e->s, s, n) == 0) {
            lru_unlink(t, i);
            lru_push_front(t, i);
            if (w)
                *w = e->w;
            if (h)
                *h = e->h;
            return e->tex;
        }
    }
    surf = render_n(t, s, n, px, st, c, &aw);
    if (!surf)
        return NULL;
    need = (size_t)surf->w * (size_t)surf->h;
    while (t->count > 0
           && (t->count >= TEXT_CACHE_ENTRIES || t->pixels + need > TEXT_CACHE_PIXELS))
        cache_drop(t, t->lru_tail);
    tex = SDL_CreateTextureFromSurface(t->r, surf);
    for (slot = 0; slot < TEXT_CACHE_ENTRIES && t->entries[slot].tex; slot++)
        ;
    e = &t->entries[slot]; /* count < TEXT_CACHE_ENTRIES: a free slot exists */
    if (!tex || !(e->s = malloc(n))) {
        if (tex)
            SDL_DestroyTexture(tex);
        SDL_FreeSurface(surf);
        return NULL;
    }
    SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_BLEND);
    memcpy(e->s, s, n);
    e->len = n;
    e->hash = hash;
    e->px = px;
    e->style = (int)st;
    e->colour = colour;
    e->tex = tex;
    e->w = surf->w;
    e->h = surf->h;
    e->chain = t->buckets[hash % TEXT_BUCKETS];
    t->buckets[hash % TEXT_BUCKETS] = slot;
    lru_push_front(t, slot);
    t->count++;
    t->pixels += need;
    SDL_FreeSurface(surf);
    if (w)
        *w = e->w;
    if (h)
        *h = e->h;
    return tex;
}

size_t text_cache_count(const text_t *t) { return t ? t->count : 0; }

/* Draw s[0..n) at (x, y) through the cache; returns its width. */
static int draw_n(text_t *t, const char *s, size_t n, int x, int y, int px, text_style_t st,
                  SDL_Color c)
{
    char small[512], *copy = small;
    SDL_Texture *tex;
    int w = 0, h = 0;
    if (n == 0)
        return 0;
    if (n >= sizeof small && !(copy = malloc(n + 1)))
        return 0;
    memcpy(copy, s, n);
    copy[n] = '\0';
    tex = text_texture(t, copy, px, st, c, &w, &h);
    if (tex) {
        SDL_Rect dst = { x, y, w, h };
        SDL_RenderCopy(t->r, tex, NULL, &dst);
    } else {
        w = measure_n(t, copy, n, px, st);
    }
    if (copy != small)
        free(copy);
    return w;
}

int text_draw(text_t *t, const char *s, int x, int y, int px, text_style_t st, SDL_Color c)
{
    return (t && s) ? draw_n(t, s, strlen(s), x, y, px, st, c) : 0;
}

int text_draw_rotated(text_t *t, const char *s, int cx, int cy, double deg, int px,
                      text_style_t st, SDL_Color c)
{
    int w = 0, h = 0;
    SDL_Texture *tex = t ? text_texture(t, s, px, st, c, &w, &h) : NULL;
    SDL_Rect dst;
    if (!tex)
        return 0;
    dst.x = cx - w / 2;
    dst.y = cy - h / 2;
    dst.w = w;
    dst.h = h;
    /* quarter turns move pixels exactly; other angles sample smoothly */
    SDL_SetTextureScaleMode(tex, fmod(deg, 90.0) == 0.0 ? SDL_ScaleModeNearest
                                                        : SDL_ScaleModeLinear);
    SDL_RenderCopyEx(t->r, tex, NULL, &dst, deg, NULL, SDL_FLIP_NONE);
    SDL_SetTextureScaleMode(tex, SDL_ScaleModeNearest);
    return w;
}

/* ---- wrapping -------------------------------------------------------------- */

typedef void (*line_fn)(void *ctx, const char *s, const text_line_t *line);

/* Is a line break allowed between code points a and b (in that order)? */
static int break_between(uint32_t a, uint32_t b)
{
    if (is_space(b))
        return 0; /* spaces stay with the line before them */
    if (is_space(a))
        return 1;
    if (no_break_before(b) || no_break_after(a))
        return 0;
    return is_cjk(a) || is_cjk(b);
}

/* End of s[start..end) without its trailing spaces. */
static size_t trim_end(const char *s, size_t start, size_t end)
{
    while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t'))
        end--;
    return end;
}

static int fits(text_t *t, const char *s, size_t a, size_t b, int w, int px, text_style_t st,
                int *width)
{
    *width = measure_n(t, s + a, b - a, px, st);
    return w <= 0 || *width <= w;
}

/* Call fn for each line of s wrapped to w; returns the number of lines. */
static size_t wrap_lines(text_t *t, const char *s, int w, int px, text_style_t st, line_fn fn,
                         void *ctx)
{
    size_t n = s ? strlen(s) : 0, pos = 0, lines = 0;
    int soft = 0; /* the line starts after a wrap: skip its leading spaces */
    if (!t || px < TEXT_MIN_PX || px > TEXT_MAX_PX)
        return 0;
    while (pos < n) {
        size_t i, best_end = 0, best_next = 0, end = 0, next = 0;
        int have_best = 0, best_w = 0, width = 0, done = 0, forced = 0;
        uint32_t prev = 0;
        text_line_t line;
        if (soft)
            while (pos < n && (s[pos] == ' ' || s[pos] == '\t'))
                pos++;
        if (pos >= n)
            break;
        for (i = pos;;) {
            size_t at = i;
            uint32_t cp;
            if (at >= n || s[at] == '\n') {
                end = trim_end(s, pos, at);
                if (fits(t, s, pos, end, w, px, st, &width)) {
                    next = at < n ? at + 1 : n;
                    forced = at < n;
                    done = 1;
                }
                break;
            }
            cp = utf8_next(s, n, &i);
            if (at > pos && break_between(prev, cp)) {
                end = trim_end(s, pos, at);
                if (!fits(t, s, pos, end, w, px, st, &width))
                    break;
                have_best = 1;
                best_end = end;
                best_next = at;
                best_w = width;
            }
            prev = cp;
        }
        if (!done) {
            if (have_best) {
                end = best_end;
                next = best_next;
                width = best_w;
            } else { /* one word wider than w: cut it, at least one character */
                size_t j = pos, last = pos;
                int lw = 0;
                while (j < n && s[j] != '\n') {
                    size_t k = j;
                    int cw;
                    utf8_next(s, n, &k);
                    cw = measure_n(t, s + pos, k - pos, px, st);
                    if (cw > w && last > pos)
                        break;
                    last = k;
                    lw = cw;
                    j = k;
                }
                end = next = last;
                width = lw;
            }
            forced = 0;
        }
        line.start = pos;
        line.len = end - pos;
        line.width = width;
        if (fn)
            fn(ctx, s, &line);
        lines++;
        pos = next;
        soft = !forced;
    }
    return lines;
}

typedef struct collect_ctx {
    text_line_t *lines;
    size_t max, n;
} collect_ctx_t;

static void collect_line(void *ctx, const char *s, const text_line_t *line)
{
    collect_ctx_t *c = ctx;
    (void)s;
    if (c->n < c->max)
        c->lines[c->n] = *line;
    c->n++;
}

size_t text_wrap(text_t *t, const char *s, int w, int px, text_style_t st, text_line_t *lines,
                 size_t max)
{
    collect_ctx_t c = { lines, lines ? max : 0, 0 };
    return wrap_lines(t, s, w, px, st, collect_line, &c);
}

typedef struct draw_ctx {
    text_t *t;
    int x, y, px, step;
    text_style_t st;
    SDL_Color c;
    int draw;
} draw_ctx_t;

static void draw_line(void *ctx, const char *s, const text_line_t *line)
{
    draw_ctx_t *d = ctx;
    if (d->draw)
        draw_n(d->t, s + line->start, line->len, d->x, d->y, d->px, d->st, d->c);
    d->y += d->step;
}

int text_draw_wrapped(text_t *t, const char *s, int x, int y, int w, int px, text_style_t st,
                      SDL_Color c, int draw)
{
    draw_ctx_t d;
    size_t lines;
    d.t = t;
    d.x = x;
    d.y = y;
    d.px = px;
    d.st = st;
    d.c = c;
    d.draw = draw;
    d.step = text_height(t, px);
    lines = wrap_lines(t, s, w, px, st, draw_line, &d);
    return (int)lines * d.step;
}

/* ---- opening and closing ---------------------------------------------------- */

text_t *text_open_fonts(SDL_Renderer *r, const text_fonts_t *f, simt_err_t *err)
{
    static const char *const sans[] = { "DejaVuSans.ttf", NULL };
    static const char *const bold[] = { "DejaVuSans-Bold.ttf", NULL };
    static const char *const mono[] = { "DejaVuSansMono.ttf", NULL };
    static const char *const cjk[] = { "wqy-microhei.ttc", "wqy-zenhei.ttc", NULL };
    text_t *t;
    int i;
    if (!r) {
        simt_errf(err, SIMT_E_USAGE, "text: no renderer");
        return NULL;
    }
    if (!(t = calloc(1, sizeof *t))) {
        simt_errf(err, SIMT_E_NOMEM, "text: out of memory");
        return NULL;
    }
    t->r = r;
    t->widths = calloc(TEXT_WIDTHS, sizeof *t->widths);   /* NULL: every width measured again */
    pick_font(t, PATH_SANS, f ? f->sans : NULL, sans);
    pick_font(t, PATH_BOLD, f ? f->bold : NULL, bold);
    pick_font(t, PATH_MONO, f ? f->mono : NULL, mono);
    pick_font(t, PATH_CJK, f ? f->cjk : NULL, cjk);
    for (i = 0; i < TEXT_BUCKETS; i++)
        t->buckets[i] = -1;
    for (i = 0; i < TEXT_CACHE_ENTRIES; i++)
        t->entries[i].chain = t->entries[i].prev = t->entries[i].next = -1;
    t->lru_head = t->lru_tail = -1;
    if (!t->path[PATH_SANS][0] && !t->path[PATH_CJK][0]) {
        simt_errf(err, SIMT_E_USAGE,
                  "text: cannot find a font: DejaVuSans.ttf (install fonts-dejavu-core) or "
                  "wqy-microhei.ttc (fonts-wqy-microhei); searched $SIMTLAB_FONT_DIR, "
                  "assets/fonts and /usr/share/fonts");
        free(t->widths);
        free(t);
        return NULL;
    }
    if (TTF_Init() != 0) {
        simt_errf(err, SIMT_E_USAGE, "text: cannot start SDL_ttf: %s", TTF_GetError());
        free(t->widths);
        free(t);
        return NULL;
    }
    t->ttf_up = 1;
    if (!latin_font(t, 16, TEXT_SANS)) {
        simt_errf(err, SIMT_E_USAGE, "text: cannot open font '%s': %s",
                  t->path[PATH_SANS][0] ? t->path[PATH_SANS] : t->path[PATH_CJK],
                  TTF_GetError());
        text_close(t);
        return NULL;
    }
    if (t->path[PATH_CJK][0] && !cjk_font(t, 16, TEXT_SANS))
        t->path[PATH_CJK][0] = '\0'; /* unreadable: as if missing */
    return t;
}

text_t *text_open(SDL_Renderer *r, simt_err_t *err)
{
    return text_open_fonts(r, NULL, err);
}

void text_close(text_t *t)
{
    int i;
    if (!t)
        return;
    while (t->lru_tail >= 0)
        cache_drop(t, t->lru_tail);
    for (i = 0; i < TEXT_MAX_FONTS; i++)
        if (t->fonts[i].font)
            TTF_CloseFont(t->fonts[i].font);
    if (t->ttf_up)
        TTF_Quit();
    free(t->widths);
    free(t);
}

int text_has_cjk(const text_t *t) { return t && t->path[PATH_CJK][0] != '\0'; }

const char *text_font_path(const text_t *t, int cjk)
{
    if (!t)
        return "";
    if (cjk)
        return t->path[PATH_CJK];
    return t->path[PATH_SANS][0] ? t->path[PATH_SANS] : t->path[PATH_CJK];
}
