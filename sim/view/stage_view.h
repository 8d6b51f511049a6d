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

/* A chart or a table the lesson shows on the stage (a "board"): beside
 * the runs while they go on, alone in the body once none is running.
 * Every string in both languages ([0] English, [1] Chinese); numbers are
 * formatted by the lesson. A chart's points appear as they are set (NaN:
 * not yet); `now` marks the x being run. */
#define VIEW_BOARD_X 32
#define VIEW_BOARD_SERIES 6
#define VIEW_BOARD_ROWS 20
#define VIEW_BOARD_COLS 8
#define VIEW_BOARD_TEXT 160
#define VIEW_BOARD_CELL 200
enum { VIEW_BOARD_NONE = 0, VIEW_BOARD_CHART = 1, VIEW_BOARD_TABLE = 2, VIEW_BOARD_ROOFLINE = 3 };
typedef struct view_board {
    int kind;
    int alone;                                  /* the whole body, without the runs      */
    char title[2][VIEW_BOARD_TEXT];
    char note[2][2 * VIEW_BOARD_TEXT * 2];      /* the one-sentence conclusion under it */
    /* chart */
    char x_label[2][VIEW_BOARD_TEXT], y_label[2][VIEW_BOARD_TEXT];
    int log_x;
    int n;                                      /* x values                             */
    double x[VIEW_BOARD_X];
    char xtext[VIEW_BOARD_X][16];               /* the x values as the lesson writes them */
    int nseries;
    struct {
        char name[2][VIEW_BOARD_CELL];
        double y[VIEW_BOARD_X];
        int measured;                           /* a real measurement (drawn dashed, squares) */
    } series[VIEW_BOARD_SERIES];
    int now;                                    /* index of the x running now, or -1    */
    /* roofline (log-log): the points are x[i] (FLOP per DRAM byte) and
     * series[0].y[i] (GFLOP/s, NaN: not run yet), n of them, named pname[i];
     * the roofs: rf_peak GFLOP/s flat, rf_bw GB/s slanted; x_label and y_label
     * (empty: the usual ones) and series[0].name (the compute roof's name) */
    double rf_peak, rf_bw;
    char pname[VIEW_BOARD_X][40];
    /* table */
    int ncols, nrows;                           /* rows below the header                */
    char cell[2][VIEW_BOARD_ROWS + 1][VIEW_BOARD_COLS][VIEW_BOARD_CELL]; /* [lang][row][col], row 0: header */
    int numeric[VIEW_BOARD_ROWS + 1][VIEW_BOARD_COLS]; /* right-aligned                 */
} view_board_t;

/* One run as the view shows it. */
typedef struct view_lane {
    int is_cpu;
    const gpu_desc_t *gdesc;       /* GPU lanes                              */
    const cpu_desc_t *cdesc;       /* CPU lanes                              */
    const char *kernel;
    const char *label_en, *label_zh; /* what this run is: "paths = 8" (or NULL) */
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
    double peak_gflops;            /* FP32 peak (GPU: lanes x 2 x clock), or
                                      the Tensor Core peak when peak_tc     */
    int peak_tc;                   /* the kernel multiplies on Tensor Cores  */
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
    const view_board_t *board;     /* a chart or table beside the runs, or NULL  */
    int hold_run;                  /* the run waits for Space before it starts  */
    double auto_left;              /* --auto: seconds until it goes on (<= 0: off) */
    int knobs_off;                 /* the step does not use the knob keys       */
    const char *knobs_en, *knobs_zh; /* the lesson's knobs: "n=128 (16..256) matrix size" */
} view_model_t;

/* Colours, by rec_status_t, of the light or dark theme (Okabe-Ito). */
SDL_Color view_status_color(int status, int dark);

/* Draw the model. Returns 0. */
int view_draw(SDL_Renderer *r, text_t *t, const view_model_t *m);

#endif
