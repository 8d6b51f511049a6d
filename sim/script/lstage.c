/* lstage.c - launches on the stage, simt.race, simt.say / pause / event /
 * lang / title (see lstage.h). */
#include "lstage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lutil.h"
#include "sandbox.h"
#ifdef SIMT_HAVE_VIEW
#include "stage_view.h"
#endif

#define STAGE_KEY "simt.stage"      /* registry: lstage_ops_t * (light)   */
#define LANG_KEY "simt.lang"        /* registry: "en" / "zh" (no stage)    */
#define RACE_KEY "simt.race"        /* registry: race_t * while collecting */
#define RACE_ANCHOR_KEY "simt.race_anchor" /* registry: its anchor table then */
#define RACE_MAX_ARGS 256           /* values in one race entry            */
#define RACE_MT "simt.race_lanes"

void lstage_attach(lua_State *L, const lstage_ops_t *ops)
{
    if (ops)
        lua_pushlightuserdata(L, (void *)ops);
    else
        lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, STAGE_KEY);
}

const lstage_ops_t *lstage_get(lua_State *L)
{
    const lstage_ops_t *ops = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, STAGE_KEY) == LUA_TLIGHTUSERDATA)
        ops = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return ops;
}

void lstage_set_lang(lua_State *L, const char *lang)
{
    lua_pushstring(L, lang && strcmp(lang, "zh") == 0 ? "zh" : "en");
    lua_setfield(L, LUA_REGISTRYINDEX, LANG_KEY);
}

const char *lstage_lang_from_env(void)
{
    const char *v = getenv("LC_ALL");
    if (!v || !v[0])
        v = getenv("LANG");
    return v && strncmp(v, "zh", 2) == 0 ? "zh" : "en";
}

static const char *current_lang(lua_State *L)
{
    const lstage_ops_t *ops = lstage_get(L);
    if (ops)
        return ops->lang(ops->self);
    const char *l = "en";
    if (lua_getfield(L, LUA_REGISTRYINDEX, LANG_KEY) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "zh") == 0)
        l = "zh";
    lua_pop(L, 1);
    return l;
}

/* Lanes collected by simt.race (a userdata, so that runs left over by an
 * error are ended when it is collected). */
typedef struct race {
    lstage_lane_t lane[LSTAGE_MAX_LANES];
    int n;
} race_t;

static void end_lane(lstage_lane_t *ln)
{
    simt_err_t e;
    if (ln->charged && ln->owner)
        sandbox_charge_bytes(ln->owner, -(int64_t)ln->charged);
    ln->charged = 0;
    if (ln->gpu)
        gpu_run_end(ln->gpu, NULL, &e);
    if (ln->cpu)
        cpu_run_end(ln->cpu, NULL, &e);
    ln->gpu = NULL;
    ln->cpu = NULL;
}

/* simt.race collects launches while RACE_KEY holds its race_t. */
static void race_collect(lua_State *L, race_t *r)
{
    if (r) {
        lua_pushlightuserdata(L, r);
        lua_getiuservalue(L, 2, 1);   /* l_race keeps the race_t at 2 */
    } else {
        lua_pushnil(L);
        lua_pushnil(L);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, RACE_ANCHOR_KEY);
    lua_setfield(L, LUA_REGISTRYINDEX, RACE_KEY);
}

static int race_gc(lua_State *L)
{
    race_t *r = luaL_checkudata(L, 1, RACE_MT);
    for (int i = 0; i < r->n; i++)
        end_lane(&r->lane[i]);
    r->n = 0;
    return 0;
}

/* Run lanes to the end without a stage. */
static void run_all(lstage_lane_t *lanes, int n)
{
    simt_err_t e;
    for (int i = 0; i < n; i++) {
        if (lanes[i].gpu)
            gpu_run_advance(lanes[i].gpu, UINT64_MAX, 0, &e);
        else if (lanes[i].cpu)
            cpu_run_advance(lanes[i].cpu, UINT64_MAX, 0, &e);
    }
}

static int quit(lua_State *L)
{
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, LSTAGE_QUIT_KEY);
    return luaL_error(L, "stopped: the window was closed");
}

/* A knob key before the runs started (LSTAGE_KNOB): raise {simtlab_knob =
 * key}; the lesson runner catches it and runs the step again with the key
 * applied, so the run that then starts uses the changed GPU. */
static int knob_restart(lua_State *L, const lstage_ops_t *ops)
{
    const char *ev = ops->event(ops->self);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, ev ? ev : "restart");
    lua_setfield(L, -2, "simtlab_knob");
    return lua_error(L);
}

int lstage_launch(lua_State *L, lstage_lane_t *lane)
{
    race_t *race = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, RACE_KEY) == LUA_TLIGHTUSERDATA)
        race = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (race) {
        if (race->n >= LSTAGE_MAX_LANES) {
            end_lane(lane);
            return lutil_error(L, "race: at most %d launches race together", LSTAGE_MAX_LANES);
        }
        race->lane[race->n++] = *lane;
        /* every value of the launch call (device, kernel, tensors, the
         * shown tensor) is referenced by the race until the race ends:
         * the entry's launch function may drop them and collect garbage */
        int top = lua_gettop(L);
        if (lua_getfield(L, LUA_REGISTRYINDEX, RACE_ANCHOR_KEY) == LUA_TTABLE) {
            lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
            for (int i = 1; i <= top; i++) {
                lua_pushvalue(L, i);
                lua_rawseti(L, -2, ++n);
            }
        }
        lua_pop(L, 1);
        return 0;
    }
    const lstage_ops_t *ops = lstage_get(L);
    if (ops) {
        int how = ops->play(ops->self, lane, 1, 0);
        if (how == LSTAGE_QUIT || how == LSTAGE_KNOB) {
            end_lane(lane);
            return how == LSTAGE_QUIT ? quit(L) : knob_restart(L, ops);
        }
    } else {
        run_all(lane, 1);
    }
    return lane->finish(L, lane);
}

/* simt.race{{dev, kernel, cfg, args...}, ..., interruptible = true}
 * -> {result1, result2, ..., interrupted = "sms_half" or nil} */
static int l_race(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_Integer n = luaL_len(L, 1);
    if (n < 1 || n > LSTAGE_MAX_LANES)
        return lutil_argerror(L, 1, "a list of 1 to %d launches {device, kernel, config, args...}",
                              LSTAGE_MAX_LANES);
    int interruptible = 0;
    if (lua_getfield(L, 1, "interruptible") != LUA_TNIL)
        interruptible = lua_toboolean(L, -1);
    lua_pop(L, 1);
    race_t *race = lua_newuserdatauv(L, sizeof *race, 1);   /* index 2 */
    memset(race, 0, sizeof *race);
    luaL_setmetatable(L, RACE_MT);
    lua_newtable(L);                 /* what the lanes use (lstage_launch) */
    lua_setiuservalue(L, 2, 1);
    race_collect(L, race);
    for (lua_Integer i = 1; i <= n; i++) {
        int top = lua_gettop(L);
        if (lua_rawgeti(L, 1, i) != LUA_TTABLE) {
            race_collect(L, NULL);
            return lutil_argerror(L, 1, "entry %d must be a table {device, kernel, config, args...}", (int)i);
        }
        int e = lua_gettop(L);
        lua_Integer m = luaL_len(L, e);   /* may run __len: a number, checked */
        if (m < 1 || m > RACE_MAX_ARGS) {
            race_collect(L, NULL);
            return lutil_argerror(L, 1, "entry %d must hold 1 to %d values {device, kernel, config, args...}, "
                                        "its length is %lld", (int)i, RACE_MAX_ARGS, (long long)m);
        }
        luaL_checkstack(L, (int)m + 4, "too many launch arguments");
        lua_rawgeti(L, e, 1);                      /* the device */
        if (lua_getfield(L, -1, "launch") != LUA_TFUNCTION) {
            race_collect(L, NULL);
            return lutil_argerror(L, 1, "entry %d: its first value must be a GPU or a CPU", (int)i);
        }
        lua_insert(L, -2);                         /* launch, device */
        for (lua_Integer j = 2; j <= m; j++)
            lua_rawgeti(L, e, j);
        int before = race->n;
        if (lua_pcall(L, (int)m, 0, 0) != LUA_OK) {
            race_collect(L, NULL);
            if (lua_type(L, -1) == LUA_TSTRING) {   /* say where the race is */
                luaL_where(L, 1);
                const char *at = lua_tostring(L, -1);
                if (at[0] && strncmp(lua_tostring(L, -2), at, strlen(at)) != 0) {
                    lua_pushfstring(L, "%sentry %d: %s", at, (int)i, lua_tostring(L, -2));
                    lua_replace(L, -3);
                }
                lua_pop(L, 1);
            }
            return lua_error(L);                   /* the lanes so far end in race_gc */
        }
        if (race->n != before + 1) {
            race_collect(L, NULL);
            return lutil_argerror(L, 1, "entry %d did not start a launch", (int)i);
        }
        lua_settop(L, top);
    }
    race_collect(L, NULL);

    const lstage_ops_t *ops = lstage_get(L);
    int how = LSTAGE_FINISHED;
    if (ops)
        how = ops->play(ops->self, race->lane, race->n, interruptible);
    else
        run_all(race->lane, race->n);
    if (how == LSTAGE_QUIT || how == LSTAGE_KNOB) {
        race_gc(L);
        return how == LSTAGE_QUIT ? quit(L) : knob_restart(L, ops);
    }
    const char *ev = how == LSTAGE_INTERRUPTED && ops ? ops->event(ops->self) : NULL;
    lua_createtable(L, race->n, 1);
    int out = lua_gettop(L);
    for (int i = 0; i < race->n; i++) {
        if (how == LSTAGE_INTERRUPTED && (race->lane[i].gpu ? gpu_run_status(race->lane[i].gpu) == GPU_RUN_MORE
                                                            : cpu_run_status(race->lane[i].cpu) == CPU_RUN_MORE)) {
            end_lane(&race->lane[i]);   /* not finished: no result */
            continue;
        }
        race->lane[i].finish(L, &race->lane[i]);   /* raises on a kernel fault; race_gc ends the rest */
        lua_rawseti(L, out, i + 1);
    }
    if (ev) {
        lua_pushstring(L, ev);
        lua_setfield(L, out, "interrupted");
    } else if (how == LSTAGE_INTERRUPTED) {
        lua_pushstring(L, "interrupted");
        lua_setfield(L, out, "interrupted");
    }
    return 1;
}

#define STAGE_TEXT_MAX 65536   /* bytes of one text a stage draws */

/* On a stage: count drawing n bytes of text as work, and refuse more
 * than a screen could show (its surfaces would not be charged). */
static void stage_text(lua_State *L, int arg, size_t n)
{
    if (!lstage_get(L))
        return;
    if (n > STAGE_TEXT_MAX)
        lutil_argerror(L, arg, "text of %zu bytes is too long to show (at most %d)", n, STAGE_TEXT_MAX);
    sandbox_charge_work(L, (uint64_t)SANDBOX_TEXT_WORK * n);
}

/* Text argument: a string, or a table {en = ..., zh = ...}. The two
 * fields stay on the stack (pushed) until the caller returns: the table
 * could lose them (an __index of a later read) and a string an __index
 * made is held by nothing else. */
static void text_arg(lua_State *L, int arg, const char **en, const char **zh)
{
    *en = *zh = NULL;
    if (lua_type(L, arg) == LUA_TSTRING) {
        *en = lua_tostring(L, arg);
        stage_text(L, arg, lua_rawlen(L, arg));
        return;
    }
    if (!lua_istable(L, arg))
        lutil_argerror(L, arg, "text must be a string or {en = \"...\", zh = \"...\"}");
    if (lua_getfield(L, arg, "en") == LUA_TSTRING)
        *en = lua_tostring(L, -1);   /* kept alive by this stack slot */
    if (lua_getfield(L, arg, "zh") == LUA_TSTRING)
        *zh = lua_tostring(L, -1);
    stage_text(L, arg, *en ? strlen(*en) : 0);   /* a stage draws the text: about 0.4 s per MB */
    stage_text(L, arg, *zh ? strlen(*zh) : 0);
    if (!*en && !*zh)
        lutil_argerror(L, arg, "text needs en = \"...\" (and zh = \"...\")");
    if (!*en)
        *en = *zh;
}

/* simt.say(text) */
static int l_say(lua_State *L)
{
    const char *en, *zh;
    text_arg(L, 1, &en, &zh);
    const lstage_ops_t *ops = lstage_get(L);
    if (ops) {
        ops->say(ops->self, en, zh);
        return 0;
    }
    const char *s = strcmp(current_lang(L), "zh") == 0 && zh ? zh : en;
    fputs(s, stdout);
    fputc('\n', stdout);
    return 0;
}

/* simt.title(text [, step]): both are a string or {en = ..., zh = ...} */
static int l_title(lua_State *L)
{
    const char *en, *zh, *step_en = NULL, *step_zh = NULL;
    text_arg(L, 1, &en, &zh);
    if (!lua_isnoneornil(L, 2))
        text_arg(L, 2, &step_en, &step_zh);
    const lstage_ops_t *ops = lstage_get(L);
    if (ops) {
        ops->title(ops->self, en, zh, step_en, step_zh);
        return 0;
    }
    int in_zh = strcmp(current_lang(L), "zh") == 0;
    const char *s = in_zh && zh ? zh : en;
    const char *step = in_zh && step_zh ? step_zh : step_en;
    printf("== %s%s%s\n", s, step ? "  " : "", step ? step : "");
    return 0;
}

static int push_event(lua_State *L, const char *ev, int quit_ok)
{
    if (ev && strcmp(ev, "quit") == 0 && quit_ok)
        return quit(L);
    if (ev)
        lua_pushstring(L, ev);
    else
        lua_pushnil(L);
    return 1;
}

/* simt.pause() -> event name or nil (headless) */
static int l_pause(lua_State *L)
{
    const lstage_ops_t *ops = lstage_get(L);
    return push_event(L, ops ? ops->pause(ops->self) : NULL, 1);
}

/* simt.event() -> the next key event or nil */
static int l_event(lua_State *L)
{
    const lstage_ops_t *ops = lstage_get(L);
    return push_event(L, ops ? ops->event(ops->self) : NULL, 1);
}

/* simt.lang() -> "en" or "zh" */
static int l_lang(lua_State *L)
{
    lua_pushstring(L, current_lang(L));
    return 1;
}

/* simt.on_stage() -> "window", "headless" (a stage draws off-screen) or
 * false (no stage: `simtlab run`) */
static int l_on_stage(lua_State *L)
{
    const lstage_ops_t *ops = lstage_get(L);
    if (ops)
        lua_pushstring(L, ops->interactive ? "window" : "headless");
    else
        lua_pushboolean(L, 0);
    return 1;
}

/* ---- simt.board, simt.run_label, simt.status, simt.lesson_knobs,
 * simt.hold_runs: what a lesson shows on the stage besides its runs. Every
 * field is read with raw access (no metamethod runs) and copied into C
 * memory before the stage is called. */

/* Copy the value at stack index idx (a string, or {en = ..., zh = ...})
 * into en and zh (each n bytes; zh empty when there is none). */
static void copy_text(lua_State *L, int idx, char *en, char *zh, size_t n)
{
    en[0] = zh[0] = '\0';
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TSTRING) {
        snprintf(en, n, "%s", lua_tostring(L, idx));
    } else if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_pushvalue(L, idx);
        snprintf(en, n, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
    } else if (lua_type(L, idx) == LUA_TTABLE) {
        lua_pushliteral(L, "en");
        if (lua_rawget(L, idx) == LUA_TSTRING)
            snprintf(en, n, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        lua_pushliteral(L, "zh");
        if (lua_rawget(L, idx) == LUA_TSTRING)
            snprintf(zh, n, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        if (!en[0])
            snprintf(en, n, "%s", zh);
    }
}

/* field key of the table at idx pushed (raw); returns its type */
static int raw_field(lua_State *L, int idx, const char *key)
{
    int t = lua_absindex(L, idx);
    lua_pushstring(L, key);
    return lua_rawget(L, t);
}

#ifdef SIMT_HAVE_VIEW
static void field_text(lua_State *L, int idx, const char *key, char *en, char *zh, size_t n)
{
    raw_field(L, idx, key);
    copy_text(L, -1, en, zh, n);
    lua_pop(L, 1);
}

/* Read a board table (argument 1) into b; raises on a wrong shape. */
static void read_board(lua_State *L, view_board_t *b)
{
    memset(b, 0, sizeof *b);
    b->now = -1;
    char kind[16], unused[16];
    field_text(L, 1, "kind", kind, unused, sizeof kind);
    b->kind = strcmp(kind, "chart") == 0 ? VIEW_BOARD_CHART : strcmp(kind, "table") == 0 ? VIEW_BOARD_TABLE
            : strcmp(kind, "roofline") == 0 ? VIEW_BOARD_ROOFLINE : -1;
    if (b->kind < 0)
        lutil_argerror(L, 1, "kind must be \"chart\", \"table\" or \"roofline\"");
    field_text(L, 1, "title", b->title[0], b->title[1], sizeof b->title[0]);
    raw_field(L, 1, "alone");
    b->alone = lua_toboolean(L, -1);
    lua_pop(L, 1);
    field_text(L, 1, "note", b->note[0], b->note[1], sizeof b->note[0]);
    if (b->kind == VIEW_BOARD_ROOFLINE) {   /* {peak_gflops =, peak_gbs =, roof =, points = {{name =, ai =, gflops =}}} */
        field_text(L, 1, "x_label", b->x_label[0], b->x_label[1], sizeof b->x_label[0]);
        field_text(L, 1, "y_label", b->y_label[0], b->y_label[1], sizeof b->y_label[0]);
        field_text(L, 1, "roof", b->series[0].name[0], b->series[0].name[1], sizeof b->series[0].name[0]);
        raw_field(L, 1, "peak_gflops");
        b->rf_peak = lua_tonumber(L, -1);
        raw_field(L, 1, "peak_gbs");
        b->rf_bw = lua_tonumber(L, -1);
        lua_pop(L, 2);
        if (!(b->rf_peak > 0) || !(b->rf_bw > 0) || !isfinite(b->rf_peak) || !isfinite(b->rf_bw))
            lutil_argerror(L, 1, "a roofline needs peak_gflops and peak_gbs, numbers > 0");
        if (raw_field(L, 1, "points") != LUA_TTABLE)
            lutil_argerror(L, 1, "a roofline needs points = {{name =, ai =, gflops =}, ...}");
        int n = (int)lua_rawlen(L, -1);
        b->n = n < VIEW_BOARD_X ? n : VIEW_BOARD_X;
        b->nseries = 1;
        for (int i = 0; i < b->n; i++) {
            char zh[40];
            if (lua_rawgeti(L, -1, i + 1) != LUA_TTABLE)
                lutil_argerror(L, 1, "points[%d] must be a table {name =, ai =, gflops =}", i + 1);
            field_text(L, -1, "name", b->pname[i], zh, sizeof b->pname[i]);
            raw_field(L, -1, "ai");
            b->x[i] = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
            raw_field(L, -2, "gflops");
            b->series[0].y[i] = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
            lua_pop(L, 3);
        }
        lua_pop(L, 1);
        return;
    }
    if (b->kind == VIEW_BOARD_CHART) {
        field_text(L, 1, "x_label", b->x_label[0], b->x_label[1], sizeof b->x_label[0]);
        field_text(L, 1, "y_label", b->y_label[0], b->y_label[1], sizeof b->y_label[0]);
        raw_field(L, 1, "log_x");
        b->log_x = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (raw_field(L, 1, "now") == LUA_TNUMBER)
            b->now = (int)lua_tointeger(L, -1) - 1;
        lua_pop(L, 1);
        if (raw_field(L, 1, "x") != LUA_TTABLE)
            lutil_argerror(L, 1, "a chart needs x = {numbers}");
        int n = (int)lua_rawlen(L, -1);
        b->n = n < VIEW_BOARD_X ? n : VIEW_BOARD_X;
        for (int i = 0; i < b->n; i++) {
            lua_rawgeti(L, -1, i + 1);
            b->x[i] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        if (raw_field(L, 1, "xtext") == LUA_TTABLE)
            for (int i = 0; i < b->n; i++) {
                char zh[16];
                lua_rawgeti(L, -1, i + 1);
                copy_text(L, -1, b->xtext[i], zh, sizeof b->xtext[i]);
                lua_pop(L, 1);
            }
        else
            for (int i = 0; i < b->n; i++)
                snprintf(b->xtext[i], sizeof b->xtext[i], "%g", b->x[i]);
        lua_pop(L, 1);
        if (raw_field(L, 1, "series") != LUA_TTABLE)
            lutil_argerror(L, 1, "a chart needs series = {{name =, y =}, ...}");
        int ns = (int)lua_rawlen(L, -1);
        b->nseries = ns < VIEW_BOARD_SERIES ? ns : VIEW_BOARD_SERIES;
        for (int k = 0; k < b->nseries; k++) {
            if (lua_rawgeti(L, -1, k + 1) != LUA_TTABLE)
                lutil_argerror(L, 1, "series[%d] must be a table {name =, y =}", k + 1);
            field_text(L, -1, "name", b->series[k].name[0], b->series[k].name[1], sizeof b->series[k].name[0]);
            raw_field(L, -1, "measured");
            b->series[k].measured = lua_toboolean(L, -1);
            lua_pop(L, 1);
            int has_y = raw_field(L, -1, "y") == LUA_TTABLE;
            for (int i = 0; i < b->n; i++) {
                double v = NAN;
                if (has_y && lua_rawgeti(L, -1, i + 1) == LUA_TNUMBER)
                    v = lua_tonumber(L, -1);
                if (has_y)
                    lua_pop(L, 1);
                b->series[k].y[i] = v;
            }
            lua_pop(L, 2);
        }
        lua_pop(L, 1);
        return;
    }
    if (raw_field(L, 1, "columns") != LUA_TTABLE)
        lutil_argerror(L, 1, "a table needs columns = {...}");
    int nc = (int)lua_rawlen(L, -1);
    b->ncols = nc < VIEW_BOARD_COLS ? nc : VIEW_BOARD_COLS;
    for (int j = 0; j < b->ncols; j++) {
        lua_rawgeti(L, -1, j + 1);
        copy_text(L, -1, b->cell[0][0][j], b->cell[1][0][j], VIEW_BOARD_CELL);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (raw_field(L, 1, "rows") != LUA_TTABLE)
        lutil_argerror(L, 1, "a table needs rows = {{...}, ...}");
    int nr = (int)lua_rawlen(L, -1);
    b->nrows = nr < VIEW_BOARD_ROWS ? nr : VIEW_BOARD_ROWS;
    for (int i = 1; i <= b->nrows; i++) {
        if (lua_rawgeti(L, -1, i) == LUA_TTABLE)
            for (int j = 0; j < b->ncols; j++) {
                int t = lua_rawgeti(L, -1, j + 1);
                b->numeric[i][j] = t == LUA_TNUMBER;
                copy_text(L, -1, b->cell[0][i][j], b->cell[1][i][j], VIEW_BOARD_CELL);
                lua_pop(L, 1);
            }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (raw_field(L, 1, "numeric") == LUA_TTABLE)   /* columns to right-align (numbers written as text) */
        for (int j = 0; j < b->ncols; j++) {
            lua_rawgeti(L, -1, j + 1);
            if (lua_toboolean(L, -1))
                for (int i = 1; i <= b->nrows; i++)
                    b->numeric[i][j] = 1;
            lua_pop(L, 1);
        }
    lua_pop(L, 1);
}
#endif

/* simt.board(t or nil): a chart or table on the stage (nothing without
 * one). t = {kind = "chart", title =, note =, x_label =, y_label =, x =,
 * xtext =, series = {{name =, y =, measured =}}, log_x =, now =} or
 * {kind = "table", title =, note =, columns =, rows =, numeric =}; texts
 * are strings or {en =, zh =}. Returns true when a stage shows it. */
static int l_board(lua_State *L)
{
    const lstage_ops_t *ops = lstage_get(L);
    if (!lua_isnoneornil(L, 1))
        luaL_checktype(L, 1, LUA_TTABLE);
#ifdef SIMT_HAVE_VIEW
    if (ops && ops->board) {
        if (lua_isnoneornil(L, 1)) {
            ops->board(ops->self, NULL);
        } else {
            view_board_t *b = lua_newuserdatauv(L, sizeof *b, 0);   /* collected with the call */
            read_board(L, b);
            ops->board(ops->self, b);
        }
        lua_pushboolean(L, 1);
        return 1;
    }
#endif
    (void)ops;
    lua_pushboolean(L, 0);
    return 1;
}

/* argument arg as en / zh (nil: both empty) */
static void arg_text(lua_State *L, int arg, char *en, char *zh, size_t n)
{
    if (!lua_isnoneornil(L, arg) && !lua_isstring(L, arg) && !lua_istable(L, arg))
        lutil_argerror(L, arg, "text must be a string or {en = \"...\", zh = \"...\"}");
    copy_text(L, arg, en, zh, n);
}

/* simt.run_label(text or nil): what the next runs are ("paths = 8") */
static int l_run_label(lua_State *L)
{
    char en[96], zh[96];
    arg_text(L, 1, en, zh, sizeof en);
    const lstage_ops_t *ops = lstage_get(L);
    if (ops && ops->label)
        ops->label(ops->self, en[0] ? en : NULL, zh[0] ? zh : NULL);
    return 0;
}

/* simt.status(text): a short notice (printed without a stage) */
static int l_status(lua_State *L)
{
    char en[400], zh[400];
    arg_text(L, 1, en, zh, sizeof en);
    const lstage_ops_t *ops = lstage_get(L);
    if (ops && ops->status) {
        ops->status(ops->self, en, zh[0] ? zh : NULL);
        return 0;
    }
    printf("%s\n", strcmp(current_lang(L), "zh") == 0 && zh[0] ? zh : en);
    return 0;
}

/* simt.lesson_knobs(text or nil, used): the lesson's knobs on the stage,
 * and whether the step now showing uses the knob keys */
static int l_lesson_knobs(lua_State *L)
{
    char en[400], zh[400];
    arg_text(L, 1, en, zh, sizeof en);
    int used = lua_toboolean(L, 2);
    const lstage_ops_t *ops = lstage_get(L);
    if (ops && ops->knobs)
        ops->knobs(ops->self, en[0] ? en : NULL, zh[0] ? zh : NULL, used);
    return 0;
}

/* simt.hold_runs(on): a step's first run waits for Space in a window */
static int l_hold_runs(lua_State *L)
{
    const lstage_ops_t *ops = lstage_get(L);
    if (ops && ops->hold_runs)
        ops->hold_runs(ops->self, lua_toboolean(L, 1));
    return 0;
}

void lstage_register(lua_State *L)
{
    static const luaL_Reg fns[] = {
        { "race", l_race }, { "say", l_say }, { "title", l_title }, { "pause", l_pause },
        { "event", l_event }, { "lang", l_lang }, { "on_stage", l_on_stage }, { "board", l_board },
        { "run_label", l_run_label }, { "status", l_status }, { "lesson_knobs", l_lesson_knobs },
        { "hold_runs", l_hold_runs }, { NULL, NULL }
    };
    if (luaL_newmetatable(L, RACE_MT)) {
        lua_pushcfunction(L, race_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    luaL_setfuncs(L, fns, 0);
}
