/* test_text.c - fonts and text for the window (sim/view/text.h): line
 * breaking (Latin words, CJK with its punctuation rules, forced breaks, a
 * word wider than the line), widths, drawing CJK on a software renderer,
 * determinism, the texture cache and the font fallbacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<SDL.h>)
#define HAVE_SDL 1
#endif
#endif

#ifdef HAVE_SDL
#include "text.h"

typedef struct fixture {
    SDL_Surface *s;
    SDL_Renderer *r;
    text_t *t;
} fixture_t;

static const SDL_Color ink = { 20, 20, 20, 255 };

static int setup(void **state)
{
    static fixture_t f;
    simt_err_t err;
    f.s = SDL_CreateRGBSurfaceWithFormat(0, 640, 200, 32, SDL_PIXELFORMAT_ARGB8888);
    assert_non_null(f.s);
    f.r = SDL_CreateSoftwareRenderer(f.s);
    assert_non_null(f.r);
    f.t = text_open(f.r, &err);
    if (!f.t)
        fail_msg("text_open: %s", err.msg);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    text_close(f->t);
    SDL_DestroyRenderer(f->r);
    SDL_FreeSurface(f->s);
    return 0;
}

/* Line i of a wrap as a string. */
static const char *line_str(const char *s, const text_line_t *l, char *buf, size_t n)
{
    snprintf(buf, n, "%.*s", (int)l->len, s + l->start);
    return buf;
}

/* Pixels of f->s that differ from white inside rect (x, y, w, h). */
static int inked(fixture_t *f, int x0, int y0, int w, int h)
{
    int x, y, n = 0;
    SDL_RenderFlush(f->r);
    for (y = y0; y < y0 + h; y++)
        for (x = x0; x < x0 + w; x++) {
            Uint32 p = ((Uint32 *)(void *)((Uint8 *)f->s->pixels + y * f->s->pitch))[x];
            if ((p & 0xFFFFFF) != 0xFFFFFF)
                n++;
        }
    return n;
}

static void clear(fixture_t *f)
{
    SDL_SetRenderDrawColor(f->r, 255, 255, 255, 255);
    SDL_RenderClear(f->r);
    SDL_RenderFlush(f->r);
}

static void test_fonts_found(void **state)
{
    fixture_t *f = *state;
    assert_non_null(strstr(text_font_path(f->t, 0), "DejaVuSans.ttf"));
    assert_int_equal(text_has_cjk(f->t), 1);
    assert_non_null(strstr(text_font_path(f->t, 1), "wqy"));
    assert_true(text_height(f->t, 18) >= 18);
    assert_true(text_height(f->t, 36) > text_height(f->t, 18));
    assert_true(text_ascent(f->t, 18) > 0 && text_ascent(f->t, 18) < text_height(f->t, 18));
}

static void test_find_font(void **state)
{
    char buf[1024];
    (void)state;
    /* $SIMTLAB_FONT_DIR first, then the usual places */
    SDL_setenv("SIMTLAB_FONT_DIR", "/usr/share/fonts/truetype/wqy", 1);
    assert_non_null(text_find_font("wqy-microhei.ttc", buf, sizeof buf));
    assert_string_equal(buf, "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc");
    assert_non_null(text_find_font("DejaVuSansMono.ttf", buf, sizeof buf)); /* not there: searched on */
    assert_non_null(strstr(buf, "DejaVuSansMono.ttf"));
    SDL_setenv("SIMTLAB_FONT_DIR", "", 1);
    assert_null(text_find_font("no-such-font.ttf", buf, sizeof buf));
    assert_string_equal(buf, "");
    assert_null(text_find_font(NULL, buf, sizeof buf));
}

static void test_latin_wrap(void **state)
{
    fixture_t *f = *state;
    const char *s = "the quick brown fox jumps over the lazy dog and runs far away";
    int w = text_width(f->t, "the quick brown", 18, TEXT_SANS) + 1;
    text_line_t l[16];
    char buf[128], joined[256] = "";
    size_t n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 16), i;
    assert_true(n >= 4 && n <= 16);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "the quick brown");
    for (i = 0; i < n; i++) {
        const char *ls = line_str(s, &l[i], buf, sizeof buf);
        assert_true(l[i].width <= w);
        assert_int_equal(l[i].width, text_width(f->t, ls, 18, TEXT_SANS));
        assert_true(ls[0] != ' ' && ls[strlen(ls) - 1] != ' ');
        if (i + 1 < n) { /* greedy: the next word would not have fitted */
            char more[160];
            const char *next = s + l[i + 1].start, *sp = strchr(next, ' ');
            snprintf(more, sizeof more, "%s %.*s", ls, sp ? (int)(sp - next) : (int)strlen(next),
                     next);
            assert_true(text_width(f->t, more, 18, TEXT_SANS) > w);
        }
        if (i)
            strcat(joined, " ");
        strcat(joined, ls);
    }
    assert_string_equal(joined, s);
    /* the height is one line height per line; draw = 0 draws nothing */
    clear(f);
    assert_int_equal(text_draw_wrapped(f->t, s, 0, 0, w, 18, TEXT_SANS, ink, 0),
                     (int)n * text_height(f->t, 18));
    assert_int_equal(inked(f, 0, 0, 640, 200), 0);
    assert_int_equal(text_draw_wrapped(f->t, s, 0, 0, w, 18, TEXT_SANS, ink, 1),
                     (int)n * text_height(f->t, 18));
    assert_true(inked(f, 0, 0, w, text_height(f->t, 18)) > 100);
    assert_int_equal(inked(f, w + 1, 0, 640 - w - 1, 200), 0);
}

static void test_forced_breaks(void **state)
{
    fixture_t *f = *state;
    text_line_t l[8];
    char buf[64];
    const char *s = "ab\n\n  cd";
    assert_int_equal(text_wrap(f->t, s, 0, 18, TEXT_SANS, l, 8), 3);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "ab");
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "");
    assert_string_equal(line_str(s, &l[2], buf, sizeof buf), "  cd"); /* kept after '\n' */
    assert_int_equal(text_wrap(f->t, "one line\n", 0, 18, TEXT_SANS, NULL, 0), 1);
    assert_int_equal(text_wrap(f->t, "", 100, 18, TEXT_SANS, NULL, 0), 0);
    assert_int_equal(text_draw_wrapped(f->t, "", 0, 0, 100, 18, TEXT_SANS, ink, 1), 0);
    /* CJK with a forced break */
    s = "线程束\n调度器";
    assert_int_equal(text_wrap(f->t, s, 0, 18, TEXT_SANS, l, 8), 2);
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "调度器");
}

static void test_long_word_cut(void **state)
{
    fixture_t *f = *state;
    const char *s = "supercalifragilistic";
    int w = text_width(f->t, "super", 18, TEXT_SANS) + 1;
    text_line_t l[16];
    char buf[64], joined[64] = "";
    size_t n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 16), i;
    assert_true(n >= 4 && n <= 16);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "super");
    for (i = 0; i < n; i++) {
        assert_true(l[i].len >= 1);
        assert_true(l[i].width <= w);
        strcat(joined, line_str(s, &l[i], buf, sizeof buf));
    }
    assert_string_equal(joined, s);
    /* the long word first moves to its own line, then is cut */
    s = "a supercalifragilistic";
    n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 16);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "a");
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "super");
    /* narrower than one letter: one character per line, never stuck */
    assert_int_equal(text_wrap(f->t, "abc", 1, 18, TEXT_SANS, l, 16), 3);
}

static void test_cjk_wrap_punctuation(void **state)
{
    fixture_t *f = *state;
    text_line_t l[8];
    char buf[64];
    int w;
    size_t n;
    /* between any two ideographs */
    const char *s = "每个流多处理器有四个调度器";
    w = text_width(f->t, "每个流多处", 18, TEXT_SANS) + 1;
    n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 8);
    assert_int_equal(n, 3);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "每个流多处");
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "理器有四个");
    assert_string_equal(line_str(s, &l[2], buf, sizeof buf), "调度器");
    /* not before closing punctuation: the comma takes the last ideograph along */
    s = "一二三四，五六";
    w = text_width(f->t, "一二三四", 18, TEXT_SANS) + 1;
    n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 8);
    assert_int_equal(n, 2);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "一二三");
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "四，五六");
    s = "一二三四。」五";
    n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 8);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "一二三");
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "四。」五");
    /* not after opening punctuation: the bracket goes to the next line */
    s = "一二三（四五）";
    w = text_width(f->t, "一二三（", 18, TEXT_SANS) + 1;
    n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 8);
    assert_int_equal(n, 2);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "一二三");
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "（四五）");
    /* mixed: Latin words stay whole, spaces are not carried to a line start */
    s = "每个 SM 有 4 个 warp 调度器";
    w = text_width(f->t, "每个 SM 有 4 个 wa", 18, TEXT_SANS);
    n = text_wrap(f->t, s, w, 18, TEXT_SANS, l, 8);
    assert_int_equal(n, 2);
    assert_string_equal(line_str(s, &l[0], buf, sizeof buf), "每个 SM 有 4 个");
    assert_string_equal(line_str(s, &l[1], buf, sizeof buf), "warp 调度器");
}

static void test_widths_monotone(void **state)
{
    fixture_t *f = *state;
    const char *s = "Warp 调度器 issues FP32，每周期";
    size_t i = 0, n = strlen(s);
    int prev = 0, px;
    char buf[64];
    while (i < n) {
        size_t k = i + 1;
        int w;
        while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
            k++;
        snprintf(buf, sizeof buf, "%.*s", (int)k, s);
        w = text_width(f->t, buf, 18, TEXT_SANS);
        assert_true(w > prev); /* every character, a space too, has an advance */
        prev = w;
        i = k;
    }
    for (px = 8, prev = 0; px <= 64; px += 4) {
        int w = text_width(f->t, s, px, TEXT_SANS);
        assert_true(w > prev);
        prev = w;
    }
    assert_true(text_width(f->t, "Bold", 18, TEXT_BOLD) > text_width(f->t, "Bold", 18, TEXT_SANS));
    assert_int_equal(text_width(f->t, "", 18, TEXT_SANS), 0);
    assert_int_equal(text_width(f->t, NULL, 18, TEXT_SANS), 0);
    assert_int_equal(text_width(f->t, "x", 1, TEXT_SANS), 0); /* px out of range */
    /* monospace: every character as wide as any other */
    assert_int_equal(text_width(f->t, "l", 18, TEXT_MONO), text_width(f->t, "m", 18, TEXT_MONO));
    assert_int_equal(text_width(f->t, "0O1l", 18, TEXT_MONO),
                     4 * text_width(f->t, "m", 18, TEXT_MONO));
}

static void test_cjk_draws_pixels(void **state)
{
    fixture_t *f = *state;
    int w, h = text_height(f->t, 24), n;
    Uint32 *copy;
    size_t bytes = (size_t)f->s->pitch * (size_t)f->s->h;
    clear(f);
    w = text_draw(f->t, "调度器", 10, 10, 24, TEXT_SANS, ink);
    assert_true(w >= 3 * 20 && w <= 3 * 30); /* three full-width characters */
    n = inked(f, 10, 10, w, h);
    assert_true(n > 150);
    assert_int_equal(inked(f, 0, 0, 640, 10), 0); /* nothing above the box */
    assert_int_equal(inked(f, 10 + w + 2, 0, 640 - w - 12, 200), 0);
    /* the same again on a fresh surface gives the same pixels */
    copy = malloc(bytes);
    assert_non_null(copy);
    memcpy(copy, f->s->pixels, bytes);
    clear(f);
    text_draw(f->t, "调度器", 10, 10, 24, TEXT_SANS, ink);
    SDL_RenderFlush(f->r);
    assert_memory_equal(copy, f->s->pixels, bytes);
    free(copy);
    /* a mixed string shares one baseline: "SM" and "有" sit on the same line */
    clear(f);
    w = text_draw(f->t, "每个 SM 有 4 个 warp 调度器", 0, 50, 18, TEXT_SANS, ink);
    assert_int_equal(w, text_width(f->t, "每个 SM 有 4 个 warp 调度器", 18, TEXT_SANS));
    assert_true(inked(f, 0, 50, w, text_height(f->t, 18)) > 200);
    assert_int_equal(inked(f, 0, 50 + text_height(f->t, 18), 640, 200 - 50 - text_height(f->t, 18)),
                     0);
}

/* SDL_ttf 2.20 cuts DejaVu's underscore off at some sizes (15 px bold):
 * it must show at every size and style. */
static void test_underscore_shows(void **state)
{
    fixture_t *f = *state;
    int px, st;
    for (st = TEXT_SANS; st <= TEXT_MONO; st++)
        for (px = 8; px <= 40; px++) {
            int w, h = text_height(f->t, px), n;
            clear(f);
            w = text_draw(f->t, "_", 0, 0, px, (text_style_t)st, ink);
            n = inked(f, 0, 0, w + 2, h);
            if (n < px / 3)
                fail_msg("'_' at %d px, style %d: %d pixels", px, st, n);
            /* and nothing below the line height */
            assert_int_equal(inked(f, 0, h, 100, 200 - h), 0);
        }
}

static void test_mono_l_1_differ(void **state)
{
    fixture_t *f = *state;
    int i, diff = 0;
    Uint32 a[24 * 30], b[24 * 30];
    const char *glyph[2] = { "l", "1" };
    Uint32 *out[2] = { a, b };
    for (i = 0; i < 2; i++) {
        int y;
        clear(f);
        text_draw(f->t, glyph[i], 0, 0, 24, TEXT_MONO, ink);
        SDL_RenderFlush(f->r);
        for (y = 0; y < 30; y++)
            memcpy(out[i] + y * 24, (Uint8 *)f->s->pixels + y * f->s->pitch, 24 * sizeof(Uint32));
    }
    for (i = 0; i < 24 * 30; i++)
        diff += a[i] != b[i];
    assert_true(diff > 20);
}

static void test_cache(void **state)
{
    fixture_t *f = *state;
    SDL_Color red = { 213, 94, 0, 255 };
    int w1, h1, w2, h2, i;
    SDL_Texture *a = text_texture(f->t, "cached label", 18, TEXT_SANS, ink, &w1, &h1);
    SDL_Texture *b = text_texture(f->t, "cached label", 18, TEXT_SANS, ink, &w2, &h2);
    size_t before;
    char buf[32];
    assert_non_null(a);
    assert_ptr_equal(a, b);
    assert_int_equal(w1, w2);
    assert_int_equal(h1, h2);
    assert_int_equal(w1, text_width(f->t, "cached label", 18, TEXT_SANS));
    before = text_cache_count(f->t);
    /* another colour, size or style is another texture */
    assert_ptr_not_equal(text_texture(f->t, "cached label", 18, TEXT_SANS, red, NULL, NULL), a);
    assert_ptr_not_equal(text_texture(f->t, "cached label", 20, TEXT_SANS, ink, NULL, NULL), a);
    assert_ptr_not_equal(text_texture(f->t, "cached label", 18, TEXT_BOLD, ink, NULL, NULL), a);
    assert_int_equal(text_cache_count(f->t), before + 3);
    /* text_draw goes through the same cache */
    text_draw(f->t, "cached label", 0, 0, 18, TEXT_SANS, ink);
    assert_int_equal(text_cache_count(f->t), before + 3);
    /* bounded: 2 x the limit of distinct strings, the one kept in use survives */
    for (i = 0; i < 2 * TEXT_CACHE_ENTRIES; i++) {
        snprintf(buf, sizeof buf, "label %d", i);
        assert_non_null(text_texture(f->t, buf, 14, TEXT_SANS, ink, NULL, NULL));
        assert_ptr_equal(text_texture(f->t, "cached label", 18, TEXT_SANS, ink, NULL, NULL), a);
        assert_true(text_cache_count(f->t) <= TEXT_CACHE_ENTRIES);
    }
    assert_int_equal(text_cache_count(f->t), TEXT_CACHE_ENTRIES);
    assert_null(text_texture(f->t, "", 18, TEXT_SANS, ink, &w1, &h1));
    assert_int_equal(w1, 0);
}

/* More (style, size) pairs than the font table holds (48): fonts are
 * closed and opened again, and measure the same. */
static void test_many_sizes(void **state)
{
    fixture_t *f = *state;
    const char *s = "SM 调度器 warp";
    int before = text_width(f->t, s, 20, TEXT_SANS), px, st;
    for (st = TEXT_SANS; st <= TEXT_MONO; st++)
        for (px = 8; px <= 60; px++)
            assert_true(text_width(f->t, s, px, (text_style_t)st) > 0);
    assert_int_equal(text_width(f->t, s, 20, TEXT_SANS), before);
    assert_true(text_draw(f->t, s, 0, 0, 20, TEXT_SANS, ink) == before);
}

static void test_fallbacks(void **state)
{
    fixture_t *f = *state;
    simt_err_t err;
    text_fonts_t none = { "", "", "", "" };
    text_fonts_t latin_only = { NULL, "", "", "" };
    text_fonts_t cjk_only = { "", "", "", NULL };
    text_t *t;
    assert_null(text_open_fonts(f->r, &none, &err));
    assert_non_null(strstr(err.msg, "fonts-dejavu-core"));
    assert_null(text_open(NULL, &err));
    /* no CJK font: has_cjk is 0, CJK text still measures and draws (boxes) */
    t = text_open_fonts(f->r, &latin_only, &err);
    assert_non_null(t);
    assert_int_equal(text_has_cjk(t), 0);
    assert_string_equal(text_font_path(t, 1), "");
    assert_true(text_width(t, "调度器", 18, TEXT_SANS) > 0);
    {   /* synthetic bold: as wide, more ink */
        int regular, bold;
        clear(f);
        text_draw(t, "Bold", 0, 0, 18, TEXT_SANS, ink);
        regular = inked(f, 0, 0, 100, 30);
        clear(f);
        text_draw(t, "Bold", 0, 0, 18, TEXT_BOLD, ink);
        bold = inked(f, 0, 0, 100, 30);
        assert_true(bold > regular);
    }
    assert_true(text_draw(t, "调度器 ok", 0, 0, 18, TEXT_MONO, ink) > 0);
    text_close(t);
    /* only the CJK font: its Latin letters serve */
    t = text_open_fonts(f->r, &cjk_only, &err);
    assert_non_null(t);
    assert_int_equal(text_has_cjk(t), 1);
    assert_non_null(strstr(text_font_path(t, 0), "wqy"));
    clear(f);
    assert_true(text_draw(t, "SM 调度器", 0, 0, 18, TEXT_SANS, ink) > 0);
    assert_true(inked(f, 0, 0, 200, 30) > 100);
    text_close(t);
    text_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fonts_found),
        cmocka_unit_test(test_find_font),
        cmocka_unit_test(test_latin_wrap),
        cmocka_unit_test(test_forced_breaks),
        cmocka_unit_test(test_long_word_cut),
        cmocka_unit_test(test_cjk_wrap_punctuation),
        cmocka_unit_test(test_widths_monotone),
        cmocka_unit_test(test_cjk_draws_pixels),
        cmocka_unit_test(test_underscore_shows),
        cmocka_unit_test(test_mono_l_1_differ),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_many_sizes),
        cmocka_unit_test(test_fallbacks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
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
