/* text.h - fonts and text for the window (sim/view): Latin and Chinese.
 *
 * One text_t per SDL_Renderer (a window's, or a software renderer drawing
 * on an SDL_Surface, headless). It finds the fonts (DejaVu Sans, Sans Bold
 * and Sans Mono for Latin, WenQuanYi Micro Hei for CJK), opens each
 * (style, pixel size) lazily, splits a mixed string such as
 * "每个 SM 有 4 个 warp 调度器" into runs by script, renders every run with
 * its font on one common baseline, and keeps the textures of recently
 * drawn strings in a bounded LRU cache, so a label drawn every frame costs
 * one hash lookup.
 *
 *   simt_err_t err;
 *   text_t *t = text_open(renderer, &err);           -- NULL: err.msg says why
 *   if (!text_has_cjk(t)) fprintf(stderr, "warning: no CJK font ...\n");
 *   int w = text_draw(t, "Warp 调度器", 20, 40, 18, TEXT_SANS, ink);
 *   text_draw_wrapped(t, lesson, x, y, 500, 18, TEXT_SANS, ink, 1);
 *   text_close(t);                                    -- before the renderer
 *
 * Same input, same pixels: rendering uses TTF_RenderUTF8_Blended and plain
 * copies, no time or randomness.
 */
#ifndef SIMT_TEXT_H
#define SIMT_TEXT_H

#include <stddef.h>

#include <SDL.h>

#include "err.h"

typedef enum { TEXT_SANS, TEXT_BOLD, TEXT_MONO } text_style_t;

typedef struct text text_t;

/* Font files to use; NULL means "search" (text_find_font), "" means "none".
 * For text_open_fonts, to pin fonts (golden pictures) or test fallbacks. */
typedef struct text_fonts {
    const char *sans;        /* Latin regular: DejaVuSans.ttf               */
    const char *bold;        /* Latin bold: DejaVuSans-Bold.ttf              */
    const char *mono;        /* Latin monospace: DejaVuSansMono.ttf          */
    const char *cjk;         /* CJK: wqy-microhei.ttc (face 0; mono face 1)  */
} text_fonts_t;

/* One line found by text_wrap: bytes [start, start + len) of the string. */
typedef struct text_line {
    size_t start;            /* byte offset of the line's first character   */
    size_t len;              /* bytes, without the break's spaces or '\n'   */
    int width;               /* pixels                                       */
} text_line_t;

#define TEXT_CACHE_ENTRIES 512          /* textures kept (LRU)              */
#define TEXT_CACHE_PIXELS (8u << 20)    /* and at most 8 M pixels (32 MB)   */
#define TEXT_MIN_PX 4                   /* pixel sizes text_draw accepts    */
#define TEXT_MAX_PX 400

/* Find font file `name` (e.g. "DejaVuSans.ttf"): in $SIMTLAB_FONT_DIR, then
 * assets/fonts/, then the usual system font folders. Returns out, or NULL
 * if none is readable. */
const char *text_find_font(const char *name, char *out, size_t n);

/* Open text drawing for renderer r with the fonts found by searching.
 * Returns NULL with err (SIMT_E_USAGE) if no Latin font is found (neither
 * DejaVu Sans nor the CJK font, whose Latin letters then serve), or if
 * SDL_ttf cannot start. A missing bold or mono face falls back to DejaVu
 * Sans (synthetic bold); a missing CJK font leaves text_has_cjk 0. */
text_t *text_open(SDL_Renderer *r, simt_err_t *err);
/* The same with the font files given (see text_fonts_t). */
text_t *text_open_fonts(SDL_Renderer *r, const text_fonts_t *f, simt_err_t *err);
/* Free the fonts and cached textures (call before destroying r). NULL: no-op. */
void text_close(text_t *t);

/* 1 if a CJK font was found, 0 if not (the caller prints a warning). */
int text_has_cjk(const text_t *t);
/* The Latin regular font file (cjk = 0) or the CJK one (cjk != 0; "" if none). */
const char *text_font_path(const text_t *t, int cjk);

/* Draw UTF-8 s with its top-left at (x, y), px pixel size, colour c; returns
 * the width in pixels (0 for an empty string or a px outside
 * TEXT_MIN_PX..TEXT_MAX_PX). Invalid UTF-8 bytes draw as U+FFFD, tabs as
 * spaces, other control characters not at all; a string wider than 16384
 * pixels is measured but not drawn. */
int text_draw(text_t *t, const char *s, int x, int y, int px, text_style_t st, SDL_Color c);
/* Draw s turned deg degrees clockwise (-90: reading upwards) about its
 * centre, placed at (cx, cy); returns the unturned width. */
int text_draw_rotated(text_t *t, const char *s, int cx, int cy, double deg, int px,
                      text_style_t st, SDL_Color c);
/* The width text_draw would return, without drawing. */
int text_width(text_t *t, const char *s, int px, text_style_t st);
/* Line height in pixels at size px (Latin and CJK fonts together). */
int text_height(text_t *t, int px);
/* Pixels from a line's top to its baseline at size px. */
int text_ascent(text_t *t, int px);

/* Split s into lines at most w pixels wide (w <= 0: no limit, only '\n'):
 * Latin text breaks at spaces (a word wider than w is cut between
 * characters), CJK text between any two characters but not before closing
 * punctuation (，。、；：？！）」』 ...) nor after opening punctuation
 * (（「『 ...); '\n' forces a break. Fills up to max lines (lines may be
 * NULL when max is 0) and returns the number of lines s needs. */
size_t text_wrap(text_t *t, const char *s, int w, int px, text_style_t st, text_line_t *lines,
                 size_t max);
/* Word-wrap s into width w (as text_wrap) with the first line's top-left at
 * (x, y), one text_height per line. Draws when draw != 0; returns the
 * height used in pixels. */
int text_draw_wrapped(text_t *t, const char *s, int x, int y, int w, int px, text_style_t st,
                      SDL_Color c, int draw);

/* The cached texture of s as text_draw draws it (owned by the cache: valid
 * until the next text_draw / text_texture / text_close), and its size.
 * NULL for an empty string or on failure. */
SDL_Texture *text_texture(text_t *t, const char *s, int px, text_style_t st, SDL_Color c,
                          int *w, int *h);
/* Textures in the cache now (at most TEXT_CACHE_ENTRIES). */
size_t text_cache_count(const text_t *t);

#endif
