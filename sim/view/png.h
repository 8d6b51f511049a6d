/* png.h - a drawn picture into a PNG file, for the pictures sim/view writes
 * off-screen (charts, the roofline, a node of GPUs). */
#ifndef SIMT_VIEW_PNG_H
#define SIMT_VIEW_PNG_H

#include <stdio.h>

#include <SDL.h>

#include "err.h"

/* Write s as a PNG to the open file f (opened from path), and close f in
 * every case. `what` names the picture in errors ("chart: cannot write
 * 'x.png': ..."). Returns 0, or -1 with err set. */
int view_png_write(SDL_Surface *s, FILE *f, const char *what, const char *path, simt_err_t *err);

#endif
