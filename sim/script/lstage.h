/* lstage.h - how the Lua binding shows launches on a stage (the window).
 *
 * sim/script knows nothing about SDL: the program that opens a stage
 * (sim/main.c with sim/app/stage.c) hands the binding this table of
 * functions with lstage_attach. Then:
 *   - g:launch and c:launch start a run (gpu_run_begin / cpu_run_begin),
 *     play it on the stage until it finishes, and return the same result
 *     table as without a stage (the stage only watches: same cycles, same
 *     results);
 *   - simt.race{...} plays several launches together on one clock;
 *   - simt.say, simt.pause, simt.event, simt.lang talk to the stage.
 * Without a stage, launches run at once, race runs its launches one after
 * another, say prints, pause returns at once and event returns nil.
 */
#ifndef SIMT_LSTAGE_H
#define SIMT_LSTAGE_H

#include <stdint.h>

#include <lua.h>

#include "cpu.h"
#include "err.h"
#include "gpu.h"

struct roofline;   /* sim/view/roofline.h */
struct view_board; /* sim/view/stage_view.h */

#define LSTAGE_MAX_LANES 4
/* registry key set to true when the user closed the window (the error
 * that ends the script is then not a failure: main exits 0) */
#define LSTAGE_QUIT_KEY "simt.quit"

typedef struct lstage_lane lstage_lane_t;
/* End the lane's run (and set its run pointer to NULL) and push its
 * result table; raises the run's error instead if it failed. Returns 1. */
typedef int (*lstage_finish_fn)(lua_State *L, lstage_lane_t *lane);

/* One launch on the stage (a "lane"): exactly one of gpu, cpu is set. */
struct lstage_lane {
    gpu_run_t *gpu;
    cpu_run_t *cpu;
    char device[64];             /* "edu-tiny", "cpu-core"                  */
    char kernel[64];             /* the kernel's name                       */
    /* the output to paint as it is written (optional: out == NULL) */
    const uint8_t *out;          /* rows x cols f32 values, row-major       */
    uint32_t rows, cols;         /* its picture's shape                     */
    uint64_t out_n;              /* values (rows x cols, or fewer for a vector) */
    double pace_us;              /* launch option pace: at most this many simulated
                                    µs per second on the stage (0: its speed) */
    /* how the binding finishes it */
    lstage_finish_fn finish;
    const gpu_desc_t *gdesc;     /* GPU lanes: for the result table         */
    gpu_launch_t gcfg;           /* GPU lanes: for the --stats log          */
    const cpu_desc_t *cdesc;     /* CPU lanes                               */
    uint64_t charged;            /* host bytes of the run's state counted against
                                    owner's memory cap, given back when it ends */
    lua_State *owner;
};

/* What play returns. */
enum {
    LSTAGE_FINISHED = 0,         /* every run finished (or failed)          */
    LSTAGE_INTERRUPTED = 1,      /* a knob key: the script may re-run       */
    LSTAGE_QUIT = 2,             /* the user closed the window (Q, Esc)     */
    LSTAGE_KNOB = 3              /* a knob key (or R) before the runs started:
                                    nothing ran; ops->event gives the key and
                                    the launch raises {simtlab_knob = key} so
                                    that the lesson runner re-runs the step
                                    on the changed GPU                       */
};

typedef struct lstage_ops {
    void *self;
    int interactive;             /* a window someone can press keys in      */
    /* Play the lanes' runs together until each has finished or failed;
     * interruptible: knob keys end the play early (LSTAGE_INTERRUPTED)
     * when interruptible != 0. The runs are not ended (the caller does). */
    int (*play)(void *self, lstage_lane_t *lanes, int n, int interruptible);
    /* The lesson text, in both languages (zh may be NULL: en is shown). */
    void (*say)(void *self, const char *en, const char *zh);
    /* Title and step shown at the top ("Lesson 1: ...", "step 2 of 5"). */
    void (*title)(void *self, const char *en, const char *zh, const char *step_en, const char *step_zh);
    /* Hold the picture until the user goes on (Space, Right, PageDown)
     * or presses a knob key; returns the event name ("next", "sms_half",
     * ...), or NULL when there is nobody to wait for (headless). */
    const char *(*pause)(void *self);
    /* The next queued key event (as pause) or NULL; does not wait. */
    const char *(*event)(void *self);
    /* "en" or "zh", as chosen now (L toggles it). */
    const char *(*lang)(void *self);
    /* Show a roofline chart (sim/view/roofline.h; its strings are only
     * borrowed for the call) in place of the runs until the next play.
     * Returns 0, or -1 with err. */
    int (*roofline)(void *self, const struct roofline *rf, simt_err_t *err);
    /* Show a chart or a table beside the runs (copied; NULL: none) until
     * the next step's title. */
    void (*board)(void *self, const struct view_board *b);
    /* What the next runs are, shown on them ("paths = 8"; NULL: nothing). */
    void (*label)(void *self, const char *en, const char *zh);
    /* A short notice on the screen for a few seconds. */
    void (*status)(void *self, const char *en, const char *zh);
    /* The lesson's knobs as one line (NULL: none), and whether the step
     * now showing uses the knob keys ([ ] , . R). */
    void (*knobs)(void *self, const char *en, const char *zh, int used);
    /* on != 0: the first run of each step waits for Space (so its text is
     * read first); PageDown / PageUp during a run cut it short. */
    void (*hold_runs)(void *self, int on);
} lstage_ops_t;

/* Give L's binding a stage (ops is not copied: it must outlive L), or
 * take it away (NULL). */
void lstage_attach(lua_State *L, const lstage_ops_t *ops);
/* The stage, or NULL. */
const lstage_ops_t *lstage_get(lua_State *L);
/* The language for text when there is no stage: "en" or "zh" (set by
 * --lang, else from LANG / LC_ALL). */
void lstage_set_lang(lua_State *L, const char *lang);
/* "zh" when LC_ALL (or else LANG) starts with zh, otherwise "en". */
const char *lstage_lang_from_env(void);

/* Called by g:launch and c:launch with a lane whose run has begun: plays
 * it on the stage if there is one (else runs it to the end), finishes it
 * and returns 1 (the result table is pushed). Inside simt.race the lane
 * is only collected (returns 0). Raises on failure, ending the run. */
int lstage_launch(lua_State *L, lstage_lane_t *lane);

/* Register simt.say, simt.pause, simt.event, simt.lang and simt.race in
 * the table at the top of the stack. */
void lstage_register(lua_State *L);

#endif
