/* palette.h - the colours the view draws data with (sim/view): the
 * Okabe-Ito palette, chosen to stay apart for colour-blind readers
 * (Okabe & Ito, "Color Universal Design", 2002), black and yellow last
 * (yellow is faint on white). */
#ifndef SIMT_PALETTE_H
#define SIMT_PALETTE_H

#include <SDL.h>

#define VIEW_PALETTE_N 8

static const SDL_Color view_palette[VIEW_PALETTE_N] = {
    { 0, 114, 178, 255 },   /* blue           */
    { 213, 94, 0, 255 },    /* vermillion     */
    { 0, 158, 115, 255 },   /* bluish green   */
    { 204, 121, 167, 255 }, /* reddish purple */
    { 86, 180, 233, 255 },  /* sky blue       */
    { 230, 159, 0, 255 },   /* orange         */
    { 0, 0, 0, 255 },       /* black          */
    { 240, 228, 66, 255 },  /* yellow         */
};

#endif
