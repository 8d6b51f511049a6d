/* check.c - the kernel checker (see check.h for what it reports and why
 * per-warp barrier counts are the right notion of "no barrier between").
 *
 * State per resident block slot of each SM: one cell per byte of shared
 * memory (last writer, the readers since the last barrier) and each warp's
 * barrier count. A slot is reset lazily: the first access or barrier of a
 * block whose index differs from the slot's last block clears it, which is
 * exactly when the simulator has placed a new block there.
 */
#include "check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa_fmt.h"

#define NO_TID 0xFFFFu
/* w_epoch of bytes a bulk copy (cp.async.bulk) wrote: initialised, and
 * never "the same epoch" as a later reader's, because the reader is
 * ordered after the copy by an mbarrier wait, which this checker does not
 * track (it does check the copy's own write against earlier accesses). */
#define BULK_EPOCH 0xFFFFFFFFu

/* What the checker remembers about one byte of shared memory. Epochs are
 * a warp's barrier count + 1, so 0 means "never". */
typedef struct check_cell {
    uint32_t w_epoch;   /* epoch of the last write; 0: never written       */
    uint32_t r_epoch;   /* epoch of the reads below; 0: none                */
    uint32_t w_pc;      /* pc of the last write                             */
    uint32_t r_pc;      /* pc of the first read in r_epoch                  */
    uint32_t r2_pc;     /* pc of r2_tid's read                              */
    uint16_t w_tid;     /* thread (linear id in the block) of the last write */
    uint16_t r_tid;     /* first thread that read in r_epoch                */
    uint16_t r2_tid;    /* another thread that read in r_epoch, or NO_TID   */
} check_cell_t;

/* One resident block slot. */
typedef struct check_block {
    uint8_t used;           /* has held a block in this launch              */
    uint32_t ctaid[3];      /* the block it holds                           */
    uint32_t *bars;         /* per warp of the block: barriers reached      */
    uint32_t bar_count;     /* count of the latest barrier a warp reached   */
    uint32_t bar_pc;        /* where that warp waits                        */
    uint32_t bar_warp;      /* which warp (in the block)                    */
    check_cell_t *cells;    /* one per byte of shared memory                */
} check_block_t;

struct check {
    const isa_program_t *prog;  /* the kernel                               */
    uint32_t nsm, slots;        /* SMs x block slots per SM                 */
    uint32_t warps_per_block;
    uint32_t smem_bytes;        /* shared bytes per block                   */
    check_block_t *blocks;      /* nsm * slots                              */
    uint32_t *bars;             /* storage for every block's bars           */
    check_cell_t *cells;        /* storage for every block's cells          */
    const mem_alloc_t *last;    /* allocation of the last global access     */
    /* global write-write races: per allocation written in this launch, one
     * word per 4 bytes saying who stored it (gwriter), made on its first
     * store; at most budget bytes in all (0: no limit) */
    struct gshadow *gs;
    uint32_t ngs, capgs, gs_last;
    uint64_t gs_bytes, budget;
};

typedef struct gshadow {
    uint32_t addr, size;        /* the allocation (by address: stable)       */
    uint32_t *who;              /* per 4-byte word: gwriter(), 0: not stored  */
} gshadow_t;

uint64_t check_host_bytes(const isa_program_t *p, uint32_t nsm, uint32_t block_slots,
                          uint32_t warps_per_block)
{
    uint64_t nblocks = (uint64_t)nsm * block_slots;
    return sizeof(check_t) + (nblocks ? nblocks : 1) * sizeof(check_block_t)
           + (nblocks * warps_per_block + 1) * sizeof(uint32_t)
           + (nblocks * p->shared_bytes + 1) * sizeof(check_cell_t);
}

check_t *check_create(const isa_program_t *p, uint32_t nsm, uint32_t block_slots,
                      uint32_t warps_per_block, simt_err_t *err)
{
    size_t nblocks = (size_t)nsm * block_slots;
    check_t *c = calloc(1, sizeof *c);
    if (!c)
        goto nomem;
    c->prog = p;
    c->nsm = nsm;
    c->slots = block_slots;
    c->warps_per_block = warps_per_block;
    c->smem_bytes = p->shared_bytes;
    c->blocks = calloc(nblocks ? nblocks : 1, sizeof *c->blocks);
    c->bars = calloc(nblocks * warps_per_block + 1, sizeof *c->bars);
    c->cells = calloc(nblocks * c->smem_bytes + 1, sizeof *c->cells);
    if (!c->blocks || !c->bars || !c->cells)
        goto nomem;
    for (size_t b = 0; b < nblocks; b++) {
        c->blocks[b].bars = c->bars + b * warps_per_block;
        c->blocks[b].cells = c->cells + b * c->smem_bytes;
    }
    return c;
nomem:
    check_free(c);
    simt_errf(err, SIMT_E_NOMEM, "host out of memory for the kernel checker "
              "(launch with check=false to run without it)");
    return NULL;
}

void check_set_budget(check_t *c, uint64_t bytes)
{
    c->budget = bytes;
}

void check_free(check_t *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->ngs; i++)
        free(c->gs[i].who);
    free(c->gs);
    free(c->blocks);
    free(c->bars);
    free(c->cells);
    free(c);
}

/* The state of the block in `slot` of SM smid, cleared if a new block (another ctaid) now holds it. */
static inline check_block_t *block_at(check_t *c, uint32_t smid, uint32_t slot, const uint32_t ctaid[3])
{
    check_block_t *b = &c->blocks[(size_t)smid * c->slots + slot];
    if (!b->used || b->ctaid[0] != ctaid[0] || b->ctaid[1] != ctaid[1] || b->ctaid[2] != ctaid[2]) {
        b->used = 1;
        memcpy(b->ctaid, ctaid, sizeof b->ctaid);
        memset(b->bars, 0, c->warps_per_block * sizeof *b->bars);
        memset(b->cells, 0, (size_t)c->smem_bytes * sizeof *b->cells);
        b->bar_count = 0;
    }
    return b;
}

static inline check_block_t *block_of(check_t *c, const exec_ctx_t *x, const warp_t *w)
{
    return block_at(c, x->smid, w->block_slot, x->ctaid);
}

/* ---- reports ----------------------------------------------------------------- */

/* "pc 7 (file.s:12: ld.shared.f32 %r3, [%r2])" */
static void where_pc(const isa_program_t *p, uint32_t pc, char *buf, size_t n)
{
    char text[128];
    asm_format_instr(p, &p->code[pc], text, sizeof text);
    snprintf(buf, n, "pc %" PRIu32 " (%s:%" PRIu32 ": %s)", pc, p->file, p->code[pc].line, text);
}

/* Thread `tid` (linear index in the block) named like exec_thread_name. */
static void thread_name(const exec_ctx_t *x, uint32_t tid, char *buf, size_t n)
{
    snprintf(buf, n, "block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 "), thread (%" PRIu32 ",%" PRIu32 ",%" PRIu32
             ") [warp %" PRIu32 " of the block, lane %" PRIu32 "]",
             x->ctaid[0], x->ctaid[1], x->ctaid[2], tid % x->ntid[0], tid / x->ntid[0] % x->ntid[1],
             tid / (x->ntid[0] * x->ntid[1]), tid / WARP_SIZE, tid % WARP_SIZE);
}

/* The report every finding shares, in the format of exec.c's faults:
 * what, kernel, pc and source line; then the thread; then the detail. */
static int report(const check_t *c, const exec_ctx_t *x, const warp_t *w, uint32_t lane,
                  simt_err_t *err, const char *what, const char *detail)
{
    char at[448], who[160];
    where_pc(c->prog, warp_pc(w), at, sizeof at);
    thread_name(x, w->warp_in_block * WARP_SIZE + lane, who, sizeof who);
    return simt_errf(err, SIMT_E_KERNEL, "%s in kernel '%s' at %s\n  %s\n  %s",
                     what, c->prog->name, at, who, detail);
}

/* Where in shared memory an offset lies, by the kernel's .shared arrays. */
static void describe_shared(const isa_program_t *p, uint32_t addr, char *buf, size_t n)
{
    for (uint32_t i = 0; i < p->nshared; i++) {
        const isa_symbol_t *s = &p->shared[i];
        if (addr >= s->value && addr - s->value < s->size) {
            snprintf(buf, n, "byte %" PRIu32 " of shared array '%s' (%" PRIu32 " bytes)",
                     addr - s->value, s->name, s->size);
            return;
        }
    }
    snprintf(buf, n, "byte %" PRIu32 " of the block's shared memory", addr);
}

/* ---- global memory: initialisation and write-write races ------------------------ */

/* Who stores: thread in the block + 1 (11 bits), the block's linear index
 * (low 14 bits) and the warp's barrier count (low 7 bits). Two stores race
 * when different threads made them and either different blocks (nothing
 * orders blocks but atomics) or the same block with no bar.sync between.
 * (Aliases of the cut bits can only hide a race, except for counts 128
 * barriers apart in one block.) */
static uint32_t gwriter(check_t *c, const exec_ctx_t *x, const warp_t *w, uint32_t lane)
{
    uint64_t blk = x->ctaid[0] + (uint64_t)x->nctaid[0] * (x->ctaid[1] + (uint64_t)x->nctaid[1] * x->ctaid[2]);
    uint32_t tid = w->warp_in_block * WARP_SIZE + lane;
    uint32_t bar = block_of(c, x, w)->bars[w->warp_in_block];
    return ((tid & 0x3ffu) + 1) << 21 | (uint32_t)(blk & 0x3fffu) << 7 | (bar & 0x7fu);
}

/* The shadow of allocation a, made on its first store in this launch;
 * NULL + err when it does not fit in the budget or the host. */
static uint32_t *gshadow_of(check_t *c, const mem_alloc_t *a, simt_err_t *err)
{
    if (c->gs_last < c->ngs && c->gs[c->gs_last].addr == a->addr)
        return c->gs[c->gs_last].who;
    for (uint32_t i = 0; i < c->ngs; i++)
        if (c->gs[i].addr == a->addr) {
            c->gs_last = i;
            return c->gs[i].who;
        }
    uint64_t bytes = ((uint64_t)a->size + 3) / 4 * sizeof(uint32_t);
    if (c->budget && c->gs_bytes + bytes > c->budget) {
        simt_errf(err, SIMT_E_NOMEM, "the kernel checker's record of stores to '%s' (%" PRIu64 " MB) does not "
                  "fit in the memory left (launch with check = false, or raise --max-memory)",
                  a->label, (bytes + (1u << 20) - 1) >> 20);
        return NULL;
    }
    if (c->ngs == c->capgs) {
        uint32_t cap = c->capgs ? 2 * c->capgs : 8;
        gshadow_t *g = realloc(c->gs, cap * sizeof *g);
        if (!g)
            goto nomem;
        c->gs = g;
        c->capgs = cap;
    }
    uint32_t *who = calloc(bytes ? bytes / sizeof *who : 1, sizeof *who);
    if (!who)
        goto nomem;
    c->gs[c->ngs] = (gshadow_t){ a->addr, a->size, who };
    c->gs_last = c->ngs++;
    c->gs_bytes += bytes;
    return who;
nomem:
    simt_errf(err, SIMT_E_NOMEM, "host out of memory for the kernel checker (launch with check = false)");
    return NULL;
}

static void thread_name(const exec_ctx_t *x, uint32_t tid, char *buf, size_t n);
static int report(const check_t *c, const exec_ctx_t *x, const warp_t *w, uint32_t lane,
                  simt_err_t *err, const char *what, const char *detail);

/* A store of n bytes (a multiple of 4, word-aligned) at offset off of
 * allocation a: a global write-write race if another thread stored any of
 * its words in this launch with nothing ordering the two (check.h). */
static int check_global_store(check_t *c, const exec_ctx_t *x, const warp_t *w, const mem_alloc_t *a,
                              uint32_t lane, uint32_t off, uint32_t n, simt_err_t *err)
{
    uint32_t *who = gshadow_of(c, a, err);
    if (!who)
        return -1;
    uint32_t me = gwriter(c, x, w, lane);
    for (uint32_t k = 0; k < n / 4; k++) {
        uint32_t *cell = &who[off / 4 + k], old = *cell;
        if (old != 0 && (old >> 7) != (me >> 7)                  /* another thread          */
            && ((old >> 7 & 0x3fffu) != (me >> 7 & 0x3fffu)   /* of another block, or    */
                || (old & 0x7fu) == (me & 0x7fu))) {          /* no bar.sync between      */
            char where[200], detail[600];
            uint32_t addr = a->addr + off + 4 * k;
            mem_describe(x->mem, addr, where, sizeof where);
            int same = (old >> 7 & 0x3fffu) == (me >> 7 & 0x3fffu);
            snprintf(detail, sizeof detail, "address 0x%08" PRIx32 ": %s, which thread %" PRIu32 " of %s "
                     "already stored in this launch%s: each element must be written by one thread (or "
                     "with atomics)", addr, where, (old >> 21) - 1, same ? "this block" : "another block",
                     same ? " with no bar.sync between" : "");
            return report(c, x, w, lane, err, "global-memory data race (write after write)", detail);
        }
        *cell = me;
    }
    return 0;
}

static int check_global(check_t *c, const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                        uint32_t lane, simt_err_t *err)
{
    uint32_t addr = info->addrs[lane], n = info->bytes;
    const mem_alloc_t *a = c->last;
    if (!a || addr < a->addr || addr - a->addr >= a->size) {
        a = mem_find(x->mem, addr);
        c->last = a;
    }
    if (!a)   /* exec.c checked the bounds: cannot happen */
        return 0;
    uint32_t off = addr - a->addr;
    if (info->op != OP_ST) {   /* ld and atom read */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t o = off + i;
            if (!(a->written[o / 8] >> (o % 8) & 1u)) {
                char where[200], detail[320];
                mem_describe(x->mem, addr + i, where, sizeof where);
                snprintf(detail, sizeof detail, "address 0x%08" PRIx32 ": %s, which no host copy "
                         "or kernel store has written", addr + i, where);
                return report(c, x, w, lane, err, info->op == OP_LD
                              ? "read of uninitialised global memory"
                              : "atomic on uninitialised global memory", detail);
            }
        }
    }
    if (info->op == OP_ST && n >= 4 && off % 4 == 0 && check_global_store(c, x, w, a, lane, off, n, err) != 0)
        return -1;
    if (info->op != OP_LD)
        mem_set_written(a, off, n);
    return 0;
}

/* ---- shared memory: initialisation and races ----------------------------------- */

static int race(check_t *c, const exec_ctx_t *x, const warp_t *w, uint32_t lane, uint32_t addr,
                const char *kind, const char *earlier, uint32_t tid, uint32_t pc, simt_err_t *err)
{
    char where[160], who[160], at[448], what[96], detail[1000];
    describe_shared(c->prog, addr, where, sizeof where);
    thread_name(x, tid, who, sizeof who);
    where_pc(c->prog, pc, at, sizeof at);
    snprintf(what, sizeof what, "shared-memory data race (%s)", kind);
    snprintf(detail, sizeof detail, "address 0x%08" PRIx32 ": %s\n  %s by %s\n    at %s,\n"
             "  with no bar.sync between the two accesses", addr, where, earlier, who, at);
    return report(c, x, w, lane, err, what, detail);
}

/* The first byte of [addr, addr + n) that no thread of the block has
 * written (reads need initialised bytes): reported as uninitialised. */
static int uninit_shared(check_t *c, const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                         uint32_t lane, uint32_t addr, simt_err_t *err)
{
    char where[160], detail[260];
    describe_shared(c->prog, addr, where, sizeof where);
    snprintf(detail, sizeof detail, "address 0x%08" PRIx32 ": %s, which no thread of "
             "this block has written", addr, where);
    return report(c, x, w, lane, err, info->op == OP_LD
                  ? "read of uninitialised shared memory"
                  : "atomic on uninitialised shared memory", detail);
}

/* One lane's access to the bytes [addr, addr + info->bytes) of block b's
 * shared memory, byte by byte: a load must find each byte written and not
 * written by another thread since the last barrier, and joins its readers;
 * a store or bulk copy must not follow another thread's write or read
 * since the last barrier; an atomic reads (initialised) and writes,
 * without race checks. */
static inline int check_shared_lane(check_t *c, check_block_t *b, const exec_ctx_t *x, const warp_t *w,
                             const exec_info_t *info, uint32_t lane, uint32_t epoch, uint32_t pc,
                             simt_err_t *err)
{
    uint32_t addr = info->addrs[lane], n = info->bytes;
    uint32_t tid = w->warp_in_block * WARP_SIZE + lane;
    check_cell_t *cell = &b->cells[addr];
    if (info->op == OP_LD) {
        for (uint32_t i = 0; i < n; i++, cell++) {
            uint32_t we = cell->w_epoch;
            if (we == 0)
                return uninit_shared(c, x, w, info, lane, addr + i, err);
            if (we == epoch && cell->w_tid != tid)
                return race(c, x, w, lane, addr + i, "read after write", "written",
                            cell->w_tid, cell->w_pc, err);
            if (cell->r_epoch != epoch) {
                cell->r_epoch = epoch;
                cell->r_tid = (uint16_t)tid;
                cell->r_pc = pc;
                cell->r2_tid = NO_TID;
            } else if (tid != cell->r_tid && cell->r2_tid == NO_TID) {
                cell->r2_tid = (uint16_t)tid;
                cell->r2_pc = pc;
            }
        }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++, cell++) {
        if (info->op == OP_ST || info->op == OP_CP_BULK) {
            if (cell->w_epoch == epoch && cell->w_tid != tid)
                return race(c, x, w, lane, addr + i, "write after write", "written",
                            cell->w_tid, cell->w_pc, err);
            if (cell->r_epoch == epoch && cell->r_tid != tid)
                return race(c, x, w, lane, addr + i, "write after read", "read",
                            cell->r_tid, cell->r_pc, err);
            if (cell->r_epoch == epoch && cell->r2_tid != NO_TID && cell->r2_tid != tid)
                return race(c, x, w, lane, addr + i, "write after read", "read",
                            cell->r2_tid, cell->r2_pc, err);
        } else if (cell->w_epoch == 0) {   /* atom reads first */
            return uninit_shared(c, x, w, info, lane, addr + i, err);
        }
        /* st, bulk copy and atom: the byte now holds this thread's value */
        cell->w_epoch = info->op == OP_CP_BULK ? BULK_EPOCH : epoch;
        cell->w_tid = (uint16_t)tid;
        cell->w_pc = pc;
    }
    return 0;
}

int check_bulk_remote(check_t *c, uint32_t smid, uint32_t slot, const uint32_t ctaid[3],
                      uint32_t addr, uint32_t n)
{
    check_block_t *b = block_at(c, smid, slot, ctaid);
    for (check_cell_t *cell = &b->cells[addr]; n > 0; n--, cell++) {
        cell->w_epoch = BULK_EPOCH;
        cell->w_tid = NO_TID;
        cell->w_pc = 0;
    }
    return 0;
}

static int check_shared(check_t *c, const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                        uint32_t lane, simt_err_t *err)
{
    check_block_t *b = block_of(c, x, w);
    uint32_t epoch = b->bars[w->warp_in_block] + 1;
    return check_shared_lane(c, b, x, w, info, lane, epoch, warp_pc(w), err);
}

int check_access(check_t *c, const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                 uint32_t lane, simt_err_t *err)
{
    if (info->space == SPACE_SHARED)
        return check_shared(c, x, w, info, lane, err);
    if (info->space == SPACE_GLOBAL)
        return check_global(c, x, w, info, lane, err);
    return 0;
}

int check_access_lanes(check_t *c, const exec_ctx_t *x, const warp_t *w, const exec_info_t *info,
                       uint32_t mask, simt_err_t *err)
{
    if (info->space == SPACE_SHARED) {
        /* what check_shared looks up, once for the whole warp */
        check_block_t *b = block_of(c, x, w);
        uint32_t epoch = b->bars[w->warp_in_block] + 1, pc = warp_pc(w);
        for (uint32_t lane = 0; lane < WARP_SIZE; lane++)
            if (mask >> lane & 1u && check_shared_lane(c, b, x, w, info, lane, epoch, pc, err) != 0)
                return -1;
        return 0;
    }
    for (uint32_t lane = 0; lane < WARP_SIZE; lane++)
        if (mask >> lane & 1u && check_access(c, x, w, info, lane, err) != 0)
            return -1;
    return 0;
}

int check_barrier(check_t *c, const exec_ctx_t *x, const warp_t *w, simt_err_t *err)
{
    check_block_t *b = block_of(c, x, w);
    uint32_t count = ++b->bars[w->warp_in_block];
    uint32_t pc = warp_pc(w);
    if (b->bar_count != count) {   /* the first warp at this barrier */
        b->bar_count = count;
        b->bar_pc = pc;
        b->bar_warp = w->warp_in_block;
        return 0;
    }
    if (b->bar_pc == pc)
        return 0;
    char at[448], detail[700];
    where_pc(c->prog, b->bar_pc, at, sizeof at);
    snprintf(detail, sizeof detail, "warp %" PRIu32 " of the block waits at a different bar.sync, %s: "
             "every thread of a block must reach the same barrier", b->bar_warp, at);
    uint32_t lane = 0;
    while (lane < WARP_SIZE - 1 && !(w->live >> lane & 1u))
        lane++;
    return report(c, x, w, lane, err, "warps of a block wait at different barriers", detail);
}
