/* stage.h - the classroom stage: the window's frame loop (or its headless
 * twin), which moves every run on it forward on one clock.
 *
 * The stage owns the clock and the picture, never the simulation's
 * results: it advances runs that the Lua binding began (lstage.h) and
 * draws their recorder frames with sim/view. Each frame:
 *   1. keys and mouse (Space pause, Up/Down speed, [ ] SMs, ...);
 *   2. the clock moves: t += speed x dt (simulated microseconds), and each
 *      run advances to t x its own clock (cycles), so a CPU and a GPU move
 *      on one time line and the speed difference on screen is the true
 *      one; within a host-time budget (a slow host shows "slower than
 *      asked" rather than freezing);
 *   3. a recorder frame per run, then the view draws and the frame is
 *      shown (window) or saved (headless, --frames).
 * When every GPU run has finished and a CPU run is still going, the clock
 * fast-forwards, doubling every half second, and the screen says so.
 *
 * Headless (no display, or --headless): the same drawing into an SDL
 * software surface, at a fixed 30 frames per simulated-clock second, with
 * no host budget, so the frames and the final PNG are the same on every
 * run.
 */
#ifndef SIMT_STAGE_H
#define SIMT_STAGE_H

#include "err.h"
#include "lstage.h"

typedef struct stage_opts {
    int headless;              /* 1: draw off-screen only                       */
    const char *screenshot;    /* write the last frame here at close (PNG)      */
    const char *frames_dir;    /* write frames here (headless: every `every`th) */
    int every;                 /* 0 = 1                                         */
    const char *lang;          /* "en", "zh" or NULL (remembered, else LANG)    */
    int width, height;         /* 0: 1280 x 720                                 */
    const char *title;         /* window title                                  */
    double auto_s;             /* > 0: every wait goes on by itself after this
                                * many seconds (--auto, for a projector)        */
} stage_opts_t;

typedef struct stage stage_t;

/* Open the stage: a window if there is a display and !o->headless, else
 * off-screen (with a note on stderr when a display was wanted but none
 * could be opened). NULL + err if even the off-screen stage cannot start
 * (no font, out of memory). */
stage_t *stage_open(const stage_opts_t *o, simt_err_t *err);

/* Write the last frame to path (PNG) at close (copied). */
void stage_set_screenshot(stage_t *s, const char *path);

/* The functions the Lua binding calls (lstage_attach). */
const lstage_ops_t *stage_ops(stage_t *s);

int stage_headless(const stage_t *s);

/* 1 once anything was shown (a title, words, a run or a chart); a stage
 * that showed nothing (the script stopped at once) writes no screenshot. */
int stage_shown(const stage_t *s);

/* Frames drawn so far (for tests and the bench). */
unsigned long stage_frames(const stage_t *s);

/* Mean host time per frame in milliseconds, drawing and simulation apart. */
void stage_frame_times(const stage_t *s, double *draw_ms, double *sim_ms);

/* Write the screenshot (if asked for), remember the settings (window),
 * close the window and free everything. Returns 0, or -1 with err if the
 * screenshot could not be written. */
int stage_close(stage_t *s, simt_err_t *err);

#endif
