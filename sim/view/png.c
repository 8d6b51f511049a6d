/* png.c - a drawn picture into a PNG file (png.h). */
#include "png.h"

#include <SDL_image.h>

int view_png_write(SDL_Surface *s, FILE *f, const char *what, const char *path, simt_err_t *err)
{
    SDL_RWops *rw = SDL_RWFromFP(f, SDL_TRUE);   /* closes f when closed */
    if (!rw) {
        fclose(f);
        return simt_errf(err, SIMT_E_USAGE, "%s: cannot write '%s': %s", what, path, SDL_GetError());
    }
    if (IMG_SavePNG_RW(s, rw, 1) != 0)           /* 1: closes rw, and so f */
        return simt_errf(err, SIMT_E_USAGE, "%s: cannot write '%s': %s", what, path, IMG_GetError());
    return 0;
}
