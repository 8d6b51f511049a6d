/* support.h - small helpers shared by the core's cmocka tests
 * (test_exec.c, test_gpu.c, ...): assemble a kernel from text, create a GPU,
 * allocate and fill device buffers, launch, and check message texts.
 *
 * Include after <cmocka.h>. Every helper fails the running test (through
 * cmocka's fail_msg) when a step that the test did not mean to fail fails,
 * so that test bodies only spell out what they check.
 */
#ifndef SIMT_TEST_SUPPORT_H
#define SIMT_TEST_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "gpu.h"

/* Fail the test unless `text` contains `part`; shows both on failure. */
static inline void support_contains(const char *text, const char *part)
{
    if (strstr(text, part) == NULL)
        fail_msg("expected the message to contain \"%s\", got:\n%s", part, text);
}

/* Assemble source text into *p (file name "test.s") or fail the test. */
static inline void support_assemble(const char *src, isa_program_t *p)
{
    simt_err_t e;
    if (asm_assemble(src, strlen(src), "test.s", p, &e) != 0)
        fail_msg("assembly failed:\n%s\n--- source ---\n%s", e.msg, src);
}

/* The description the core tests assume, independent of how the edu-tiny
 * preset is tuned: gpu_desc_default() with these limits pinned. 2 SMs x 4
 * schedulers; 1024 threads, 4 blocks, 32768 registers (allocated per warp
 * in units of 256) and 32 KB shared memory per SM; blocks of up to 1024
 * threads and 32 KB; grids up to (2^31-1, 65535, 65535). */
static inline void support_desc(gpu_desc_t *d)
{
    gpu_desc_default(d);
    d->sms = 2;
    d->schedulers_per_sm = 4;
    d->max_threads_per_sm = 1024;
    d->max_blocks_per_sm = 4;
    d->max_threads_per_block = 1024;
    d->regs_per_sm = 32768;
    d->reg_alloc_unit = 256;
    d->smem_per_sm = 32 * 1024;
    d->smem_per_block = 32 * 1024;
    d->max_grid[0] = 2147483647u;
    d->max_grid[1] = 65535;
    d->max_grid[2] = 65535;
}

/* A GPU from `d`, or from support_desc() when d is NULL. */
static inline gpu_t *support_gpu(const gpu_desc_t *d)
{
    gpu_desc_t def;
    simt_err_t e;
    if (!d) {
        support_desc(&def);
        d = &def;
    }
    gpu_t *g = gpu_create(d, &e);
    if (!g)
        fail_msg("gpu_create failed: %s", e.msg);
    return g;
}

/* cmocka fixtures: a support_gpu(NULL) in *state, freed afterwards. */
static inline int support_setup_gpu(void **state)
{
    *state = support_gpu(NULL);
    return 0;
}

static inline int support_teardown_gpu(void **state)
{
    gpu_free(*state);
    return 0;
}

/* Free device memory at a or fail the test. */
static inline void support_release(gpu_t *g, uint32_t a)
{
    simt_err_t e;
    if (gpu_mfree(g, a, &e) != 0)
        fail_msg("gpu_mfree: %s", e.msg);
}

/* Allocate `bytes` on g named `label`; copy `init` in when not NULL. */
static inline uint32_t support_buffer(gpu_t *g, const char *label, const void *init, uint32_t bytes)
{
    simt_err_t e;
    uint32_t a = 0;
    if (gpu_malloc(g, bytes, label, &a, &e) != 0)
        fail_msg("gpu_malloc(%u) failed: %s", (unsigned)bytes, e.msg);
    if (init && gpu_write(g, a, init, bytes, &e) != 0)
        fail_msg("gpu_write failed: %s", e.msg);
    return a;
}

/* Copy `bytes` from device address a to host, or fail the test. */
static inline void support_read(gpu_t *g, uint32_t a, void *dst, uint32_t bytes)
{
    simt_err_t e;
    if (gpu_read(g, a, dst, bytes, &e) != 0)
        fail_msg("gpu_read failed: %s", e.msg);
}

/* Assemble `src` and launch it on g with the given grid and block shapes
 * and arguments. Returns gpu_launch's result (0, or -1 with err filled);
 * st may be NULL. Use with compound literals:
 *   run_kernel(g, SRC, (uint32_t[3]){2,1,1}, (uint32_t[3]){64,1,1},
 *              (uint32_t[]){a, n}, 2, &st, &err);                      */
static inline int run_kernel(gpu_t *g, const char *src, const uint32_t grid[3], const uint32_t block[3],
                             const uint32_t *args, uint32_t nargs, gpu_stats_t *st, simt_err_t *err)
{
    isa_program_t p;
    gpu_launch_t l;
    memset(&l, 0, sizeof l);
    memcpy(l.grid, grid, sizeof l.grid);
    memcpy(l.block, block, sizeof l.block);
    support_assemble(src, &p);
    int rc = gpu_launch(g, &p, &l, args, nargs, st, err);
    isa_program_free(&p);
    return rc;
}

/* run_kernel that must succeed. */
static inline void run_ok(gpu_t *g, const char *src, const uint32_t grid[3], const uint32_t block[3],
                          const uint32_t *args, uint32_t nargs, gpu_stats_t *st)
{
    simt_err_t e;
    simt_err_clear(&e);
    if (run_kernel(g, src, grid, block, args, nargs, st, &e) != 0)
        fail_msg("launch failed (code %d):\n%s\n--- source ---\n%s", e.code, e.msg, src);
}

/* Float <-> bits, for building inputs and checking outputs exactly. */
static inline uint32_t support_fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static inline float support_bitsf(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

#endif
