/* mem.h - device memory: allocations, copies, bounds and alignment checks.
 *
 * Device addresses are 32-bit. Each allocation gets its own host buffer and
 * a range of device addresses separated from its neighbours by a red zone,
 * so that an access just past the end of one array never lands inside the
 * next: it is reported as out of bounds, naming the nearest allocation.
 * Address 0 is never valid (a null pointer).
 */
#ifndef SIMT_MEM_H
#define SIMT_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define MEM_BASE      0x10000000u /* first device address handed out      */
#define MEM_ALIGN     256u        /* allocation alignment, like cudaMalloc  */
#define MEM_REDZONE   256u        /* unmapped bytes after every allocation  */

typedef struct mem_alloc {
    uint32_t addr;     /* first device address                           */
    uint32_t size;     /* bytes requested                                 */
    uint8_t *data;     /* host copy, size bytes, zero-initialised         */
    char label[32];    /* name shown in reports ("A", "tensor#3")         */
    uint8_t *written;  /* shadow for the kernel checker: bit i of byte
                          i / 8 set once byte i was written by the host
                          or a kernel store (check.h)                   */
} mem_alloc_t;

/* A "size only" reservation: device capacity counted, no address and no
 * host memory behind it (a lesson can fill an 80 GB card with weights it
 * never reads). */
typedef struct mem_resv {
    uint32_t id;       /* handle, > 0                                     */
    uint64_t size;     /* bytes counted against the capacity              */
    char label[32];    /* name shown in out-of-memory reports             */
} mem_resv_t;

typedef struct mem {
    mem_alloc_t *allocs;   /* live allocations sorted by addr            */
    mem_resv_t *resv;      /* live size-only reservations                 */
    uint32_t nresv, resv_cap, next_resv;
    uint32_t nallocs, cap;
    uint32_t next_addr;    /* bump pointer for new address ranges          */
    uint64_t capacity;     /* device capacity in bytes (from the preset)   */
    uint64_t host_limit;   /* most host bytes the simulator may hold       */
    uint64_t used;         /* bytes currently allocated or reserved        */
    uint64_t reserved;     /* of which size-only (no host memory)          */
    uint32_t last;         /* index of the last allocation hit (fast path) */
} mem_t;

/* Start with no allocations. capacity: the modelled GPU's memory size;
 * host_limit: most bytes of real host memory the simulator will use. */
void mem_init(mem_t *m, uint64_t capacity, uint64_t host_limit);
void mem_free_all(mem_t *m);

/* Allocate size bytes (zeroed). Fails with SIMT_E_MEM when the modelled
 * GPU is out of memory (the report names what did not fit, what is free
 * and the largest allocations already there: "out of device memory on a
 * 80.0 GB GPU: 'kv' needs 20.0 GB, 6.0 GB free; already there: 'weights'
 * 74.0 GB") or the host limit would be passed. Sizes are in decimal units
 * (1 GB = 10^9 bytes), as presets and datasheets give them. */
int mem_alloc(mem_t *m, uint64_t size, const char *label, uint32_t *addr,
              simt_err_t *err);

/* Count size bytes against the capacity without memory behind them (a
 * "size only" tensor); *id is the handle for mem_unreserve. Fails with
 * SIMT_E_MEM, the same out-of-memory report as mem_alloc, when it does not
 * fit. Any size up to the capacity (no 4 GB address limit). */
int mem_reserve(mem_t *m, uint64_t size, const char *label, uint32_t *id, simt_err_t *err);
int mem_unreserve(mem_t *m, uint32_t id, simt_err_t *err);

/* Release the allocation starting at addr; any other address is an error. */
int mem_release(mem_t *m, uint32_t addr, simt_err_t *err);

/* Copy between host and device; the whole range must lie in one allocation. */
int mem_write(mem_t *m, uint32_t addr, const void *src, uint64_t n, simt_err_t *err);
int mem_read(mem_t *m, uint32_t addr, void *dst, uint64_t n, simt_err_t *err);

/* Host pointer for [addr, addr+n) if it lies inside one live allocation,
 * else NULL. The executor's fast path. */
uint8_t *mem_ptr(mem_t *m, uint32_t addr, uint32_t n);

/* Mark [addr, addr+n) as written (initialised) for the kernel checker,
 * for host code that fills an allocation through mem_ptr. Bytes outside
 * live allocations are ignored. mem_write marks what it copies. */
void mem_mark_written(mem_t *m, uint32_t addr, uint64_t n);

/* Set the written bits of bytes [off, off+n) of allocation a (in range). */
void mem_set_written(const mem_alloc_t *a, uint32_t off, uint64_t n);

/* Allocation containing addr, or NULL. */
const mem_alloc_t *mem_find(const mem_t *m, uint32_t addr);

/* Describe where addr lies relative to the nearest allocation, e.g.
 * "4 bytes past the end of 'C' (0x10000200, 1024 bytes)". */
void mem_describe(const mem_t *m, uint32_t addr, char *buf, size_t n);

#endif
