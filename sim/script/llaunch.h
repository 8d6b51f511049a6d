/* llaunch.h - the launch options of g:launch and c:launch, read by one
 * parser so that a GPU and a CPU accept the same keys, fail with the same
 * messages and charge the watchdog the same way.
 *
 *   dev:launch(k, {grid =, block =, cluster =, max_cycles =, max_instrs =
 *                  (or max_warp_instrs =), warm_caches =, warm =, check =,
 *                  show =}, args...)
 *
 *   grid, block      a positive integer or {x, y, z} (1 to 3 of them); needed
 *   max_cycles       a positive integer: stop with an error after this many
 *                    cycles (default: the GPU's 2e9; a CPU: no cycle limit)
 *   max_instrs       a positive integer: stop after this many warp (GPU) or
 *                    SIMD (CPU) instructions, the endless-loop watchdog;
 *                    max_warp_instrs is the same key (give one of them)
 *   warm_caches      true or false: keep the caches of the last launch
 *   show             the f32 device tensor a stage paints
 *   cluster, warm    GPU only: thread-block clusters; tensors put into L2
 *   check            true or false: the kernel checker (GPU only, so a CPU
 *                    launch takes check = false and refuses check = true)
 *
 * A misspelled key fails on both devices with the same text, naming the
 * key, the closest key and every key, at the script's file:line:
 *   x.lua:7: launch: unknown configuration key 'grd' (did you mean 'grid'?);
 *   the keys are grid, block, ...
 */
#ifndef SIMT_LLAUNCH_H
#define SIMT_LLAUNCH_H

#include <stdint.h>

#include <lua.h>

#include "err.h"
#include "gpu.h"

struct lgpu;          /* tensor.h */
struct lstage_lane;   /* lstage.h */

#define LLAUNCH_MAX_WARM 64   /* tensors in one launch's warm list */

typedef enum llaunch_device { LLAUNCH_GPU, LLAUNCH_CPU } llaunch_device_t;

/* The options of one launch, as read. */
typedef struct llaunch_opts {
    uint32_t grid[3], block[3];
    uint32_t cluster[3];        /* {0, 0, 0}: no cluster key            */
    uint64_t max_cycles;        /* 0: not given (the device's default)  */
    uint64_t max_instrs;        /* 0: not given (the device's default)  */
    int warm_caches;            /* 0 unless warm_caches = true          */
    int check;                  /* 1 unless check = false               */
    gpu_range_t warm[LLAUNCH_MAX_WARM];  /* the warm tensors, in order  */
    uint32_t nwarm;
} llaunch_opts_t;

/* Read the launch table at stack index idx for a launch on device dev
 * (warm tensors must belong to owner). Raises a Lua error naming the key
 * on any bad key or value. */
void llaunch_read(lua_State *L, int idx, llaunch_device_t dev, const struct lgpu *owner,
                  llaunch_opts_t *o);

/* Raise "WHO: unknown configuration key 'k' (did you mean ...?); the keys
 * are ..." when the table at idx has a key not in keys (the alphabetically
 * first, so it is the same on every run); nothing when all are known. */
void llaunch_check_keys(lua_State *L, int idx, const char *who, const char *const *keys, size_t nkeys);

/* Read field `key` ("grid", "block", "cluster") of the table at idx: a
 * positive integer or a table of 1 to 3; raises a Lua error naming it. */
void llaunch_dim3(lua_State *L, int idx, const char *key, uint32_t out[3]);

/* Set lane->out from launch config table `cfg` (its `show` tensor) or
 * else the last f32 device tensor among the nargs arguments starting at
 * stack index first_arg: what the stage draws as the run's output. */
void llaunch_lane_output(lua_State *L, int cfg, int first_arg, int nargs, struct lstage_lane *lane);

/* Charge the watchdog (sandbox.h) for a run that executed `instrs` warp or
 * SIMD instructions, whether it finished or was stopped (a stopped endless
 * kernel ran up to its limit, and that much was simulated). */
void llaunch_charge(lua_State *L, uint64_t instrs);

#endif
