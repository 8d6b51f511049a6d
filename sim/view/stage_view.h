/* stage_view.h - draw the classroom stage: one picture of every run on it.
 *
 * The stage (sim/app/stage.c) owns the runs and the clock; each frame it
 * fills a view_model_t (what to show: const frames of the recorder, the
 * runs' descriptions, the painted outputs, the lesson text) and calls
 * view_draw. The view only reads: it never changes a run.
 *
 * Layout at 1280 x 720 and zoom 1 (every size is multiplied by the zoom):
 *   +--------------------------------------------------------------+
 *   | title, step                     time scale, speed, keys hint |
 *   +------------------+------------------+------------+-----------+
 *   | lane 1 (CPU)     | lane 2 (GPU)     |   detail: memory bars,  |
 *   |  device picture  |  SMs, warps,     |   FLOP/s against peak,  |
 *   |  output painted  |  lanes; output   |   warp states, stalls,  |
 *   |                  |                  |   blocks, occupancy     |
 *   +------------------+------------------+------------------------+
 *   | the lesson's words (English or Chinese)          knob keys   |
 *   +--------------------------------------------------------------+
 * Tab hides the detail column; H shows the help overlay; hovering any
 * SM, bar or number shows one sentence about it.
 */
#ifndef SIMT_STAGE_VIEW_H
#define SIMT_STAGE_VIEW_H

#include <stdint.h>

#include <SDL.h>

#include "cpu.h"
#include "gpu.h"
#include "recorder.h"
#include "text.h"

#define VIEW_MAX_LANES 4
#define VIEW_HISTORY 240      /* FLOP/s points kept for the line chart */

/* One run as the view shows it. */
typedef struct view_lane {
    int is_cpu;
    const gpu_desc_t *gdesc;       /* GPU lanes                              */
    const cpu_desc_t *cdesc;       /* CPU lanes                              */
    const char *kernel;
    const rec_t *rec;              /* its frames                             */
    uint64_t frame;                /* the frame to show (rec_frame index)    */
    int done, failed;              /* finished / stopped with an error       */
    double time_us;                /* simulated time shown                   */
    double total_us;               /* final time once done (else 0)          */
    double fast_forward;           /* > 1: this lane is shown sped up        */
    const float *out;              /* output values to paint, or NULL        */
    uint32_t rows, cols;
    uint64_t out_n;
    double vmin, vmax;             /* colour scale of the output             */
    double gflops_hist[VIEW_HISTORY]; /* achieved GFLOP/s per frame, oldest first */
    int nhist;
    double peak_gflops;            /* FP32 peak (GPU: lanes x 2 x clock)     */
    double bw_now[GPU_LEVEL_COUNT];/* GB/s over the last frames              */
    double bw_peak[GPU_LEVEL_COUNT];
} view_lane_t;

typedef struct view_model {
    int width, height;             /* pixels                                 */
    double zoom;                   /* 1 = body text 18 px                    */
    int dark;                      /* theme                                  */
    int zh;                        /* language: 0 English, 1 Chinese         */
    int detail;                    /* show the detail column                 */
    int help;                      /* show the help overlay                  */
    int paused;
    int lagging;                   /* the host cannot keep up with the speed */
    int scrubbing;                 /* showing older frames (Left key)        */
    int waiting;                   /* the lesson waits for the user to go on */
    double speed_us;               /* simulated microseconds per real second */
    const char *title_en, *title_zh, *step_en, *step_zh; /* step: "step 2 of 4" */
    const char *say_en, *say_zh;   /* the lesson's words                     */
    const char *status;            /* a short line: "screenshot saved: ..."  */
    int mouse_x, mouse_y;          /* for tooltips (-1: none)                */
    int nlanes;
    view_lane_t lane[VIEW_MAX_LANES];
    int focus;                     /* the lane the detail column shows (-1)  */
    SDL_Surface *picture;          /* a chart shown instead of the runs, or NULL */
} view_model_t;

/* Colours, by rec_status_t, of the light or dark theme (Okabe-Ito). */
SDL_Color view_status_color(int status, int dark);

/* Draw the model. Returns 0. */
int view_draw(SDL_Renderer *r, text_t *t, const view_model_t *m);

#endif
