/* lstage.c - launches on the stage, simt.race, simt.say / pause / event /
 * lang / title (see lstage.h). */
#include "lstage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lutil.h"
#include "sandbox.h"

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
        if (ops->play(ops->self, lane, 1, 0) == LSTAGE_QUIT) {
            end_lane(lane);
            return quit(L);
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
    if (how == LSTAGE_QUIT) {
        race_gc(L);
        return quit(L);
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

void lstage_register(lua_State *L)
{
    static const luaL_Reg fns[] = {
        { "race", l_race }, { "say", l_say }, { "title", l_title }, { "pause", l_pause },
        { "event", l_event }, { "lang", l_lang }, { "on_stage", l_on_stage }, { NULL, NULL }
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
