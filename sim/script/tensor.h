/* tensor.h - tensors for the Lua binding (internal to sim/script).
 *
 * A tensor is a full userdata (metatable "simt.tensor") holding 1 to 4
 * dimensions of elements of one dtype, stored either on the host (inside
 * the userdata) or in a GPU's device memory (the userdata's first user
 * value then references the GPU userdata so that the GPU outlives it).
 * Elements are row-major: the last index varies fastest.
 */
#ifndef SIMT_TENSOR_H
#define SIMT_TENSOR_H

#include <stdint.h>

#include <lua.h>

#include "gpu.h"

#define TENSOR_MAX_DIMS 4
#define TENSOR_MT "simt.tensor"
#define LGPU_MT "simt.gpu"

/* One element format. The table in tensor.c lists every supported dtype;
 * adding one (f16, bf16, ...) means adding one line with its converters. */
typedef struct tensor_dtype {
    const char *name;                   /* "f32"                             */
    unsigned bytes;                     /* storage size of one element       */
    int is_float;                       /* 1: floating point, 0: integer     */
    double (*load)(const void *p);      /* element -> double (exact)         */
    void (*store)(void *p, double v);   /* double -> element (rounded)       */
} tensor_dtype_t;

/* The GPU userdata (metatable LGPU_MT). */
typedef struct lgpu {
    gpu_t *g;           /* owned; NULL once freed by __gc                  */
    uint32_t ntensors;  /* tensors made so far (for allocation labels)     */
    uint64_t charged;   /* host bytes counted against the sandbox's cap    */
} lgpu_t;

typedef struct tensor {
    int ndim;                          /* 1..TENSOR_MAX_DIMS                 */
    int64_t dims[TENSOR_MAX_DIMS];     /* sizes, ndim used                   */
    int64_t n;                         /* elements = product of dims         */
    const tensor_dtype_t *dt;          /* element format                     */
    lgpu_t *gpu;                       /* device tensor: its GPU; host: NULL */
    uint32_t addr;                     /* device address, 0 if not allocated */
    uint8_t *host;                     /* host tensor: data inside userdata  */
    uint64_t charged;                  /* device tensor: bytes counted against
                                          the sandbox's cap (sandbox.h)      */
    uint32_t resv;                     /* size-only device tensor: its
                                          reservation (mem_reserve), addr 0,
                                          no data; else 0                   */
} tensor_t;

/* Count `bytes` of host memory held for a simulator object (what names it
 * in the message) against the sandbox's memory cap, collecting garbage
 * once if that makes room; raises "script used more than N MB" if not. */
void tensor_charge(lua_State *L, uint64_t bytes, const char *what);

/* dtype by name, or NULL. */
const tensor_dtype_t *tensor_dtype_find(const char *name);

/* Bytes of t's data. */
uint64_t tensor_bytes(const tensor_t *t);

/* Pointer to t's elements (host buffer or device memory); raises a Lua
 * error if the GPU is gone. */
uint8_t *tensor_data(lua_State *L, tensor_t *t);

/* Element i (0-based, flat) as a double / store v into it. */
double tensor_load(lua_State *L, tensor_t *t, int64_t i);

/* Check that arg is a tensor (raises an argument error otherwise). */
tensor_t *tensor_check(lua_State *L, int arg);
tensor_t *tensor_test(lua_State *L, int arg); /* NULL if not a tensor */

/* Push a new zeroed host tensor; raises on bad sizes. */
tensor_t *tensor_new_host(lua_State *L, int ndim, const int64_t *dims,
                          const tensor_dtype_t *dt);

/* Format a shape as "{2, 3}" into buf. */
const char *tensor_shape_str(const tensor_t *t, char *buf, size_t n);

/* Push a temporary userdata with t's elements converted to doubles;
 * returns its data (valid while the userdata is on the stack). */
double *tensor_push_doubles(lua_State *L, tensor_t *t);

/* Register the tensor metatable and push the table of module functions
 * (tensor) into the table at the top of the stack; also registers the GPU
 * method g:tensor via tensor_gpu_new. */
void tensor_register(lua_State *L);

/* g:tensor{...}: the GPU userdata is at index 1, the spec at index 2. */
int tensor_gpu_new(lua_State *L);

/* simt.tensor{...}: the spec at index 1. */
int tensor_host_new(lua_State *L);

/* simt.ref: push the table of reference functions (ref.c). */
void ref_push(lua_State *L);

/* Sum of all elements of t in double (reads device tensors from the GPU). */
double tensor_sum(lua_State *L, tensor_t *t);

#endif
