/* fuzz_exec.c - libFuzzer target: kernel execution on random programs and
 * launches.
 *
 * The input bytes choose a launch (grid, block, preset tweaks, checker on
 * or off) and then, instruction by instruction, a program built from
 * templates that always assemble: arithmetic in every type, comparisons,
 * conversions, special registers, guarded and divergent branches (forward
 * and backward, so loops happen; max_warp_instrs bounds them), global and
 * shared loads, stores and atomics at addresses that are usually inside
 * the buffers and sometimes not, barriers (sometimes in divergent code)
 * and exits, and the asynchronous instructions (mbarriers, bulk copies,
 * wgmma, wgmma.wait) and the cluster ones (remote mbarrier arrivals,
 * multicast copies, barrier.cluster; the launch is sometimes a cluster
 * launch) and bulk stores with operands that are sometimes wrong. The program
 * runs on a tiny GPU. Kernel faults and timeouts
 * are expected results; crashes, ASan and UBSan reports are bugs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUF_BYTES 4096u
#define MAX_INSTRS 64

/* A cursor over the input: each take() returns the next byte (0 at the end). */
typedef struct bytes {
    const uint8_t *p;
    size_t n, i;
} bytes_t;

static uint32_t take(bytes_t *b) { return b->i < b->n ? b->p[b->i++] : 0; }

/* Append printf-style text to buf (silently truncated at cap). */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (*len < cap) {
        int k = vsnprintf(buf + *len, cap - *len, fmt, ap);
        if (k > 0)
            *len += (size_t)k < cap - *len ? (size_t)k : cap - *len - 1;
    }
    va_end(ap);
}

static const char *const TYPES[] = { "u32", "s32", "f32", "b32" };
static const char *const ARITH[] = { "add", "sub", "mul", "mul.lo", "min", "max", "div", "rem", "and", "or", "xor",
                                     "shl", "shr", "mul.hi" };
static const char *const FLOAT1[] = { "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "abs", "neg" };
static const char *const SPECIAL[] = { "%tid.x", "%tid.y", "%ntid.x", "%ctaid.x", "%nctaid.x", "%laneid",
                                       "%warpid", "%smid", "%clock", "%cluster_ctarank", "%cluster_nctarank",
                                       "%clusterid.x", "%cluster_nctaid.x" };
static const char *const CMPS[] = { "eq", "ne", "lt", "le", "gt", "ge" };
static const char *const MEMT[] = { "u32", "f32", "s32", "u8", "s8", "u16", "s16" };
static const char *const AOPS[] = { "add.u32", "add.f32", "min.s32", "max.u32", "exch.b32" };

/* An operand: a register (%r0..%r7) or a small immediate. */
static void operand(bytes_t *b, char *out, size_t n, int is_float)
{
    uint32_t c = take(b);
    if (c < 192)
        snprintf(out, n, "%%r%u", c % 8);
    else if (is_float)
        snprintf(out, n, "%d.5", (int)(c % 16) - 8);
    else
        snprintf(out, n, "%d", (int)(c % 64) - 16);
}

/* An address for a memory access: usually inside the buffer (global:
 * %r8 holds its base; shared: offsets from 0), sometimes anywhere. */
static void address(bytes_t *b, char *prog, size_t cap, size_t *len, int shared, int bytes, uint32_t smem)
{
    uint32_t c = take(b), r = take(b) % 8;
    uint32_t limit = shared ? smem : BUF_BYTES;
    if (c < 224) {   /* in bounds, aligned: base + (r & (limit - 1)) rounded down */
        put(prog, cap, len, "    and.b32 %%r9, %%r%u, %u;\n", r, (limit - 1) & ~(uint32_t)(bytes - 1));
        if (!shared)
            put(prog, cap, len, "    add.u32 %%r9, %%r9, %%r8;\n");
    } else {         /* raw register value: out of bounds or misaligned, usually */
        put(prog, cap, len, "    mov.u32 %%r9, %%r%u;\n", r);
    }
}

static int type_bytes(const char *t) { return t[1] == '8' ? 1 : t[1] == '1' ? 2 : 4; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bytes_t b = { data, size, 0 };
    static char prog[16384];
    size_t len = 0, cap = sizeof prog;
    uint32_t grid = 1 + take(&b) % 4, block = 1 + take(&b) % 96, grid_y = 1 + take(&b) % 2;
    uint32_t cfg = take(&b);
    uint32_t smem = 64u << (take(&b) % 5);           /* 64 ... 1024 bytes */
    uint32_t ninstr = 1 + take(&b) % MAX_INSTRS;
    uint32_t cluster = 1 + take(&b) % 3;             /* 1: none; 3: refused (edu-tiny: 2 at most) */

    put(prog, cap, &len, ".kernel fuzz\n.param buf\n.param n\n.shared s %u\n", smem);
    put(prog, cap, &len, "    ld.param.u32 %%r8, [buf];\n    mov.u32 %%r0, %%tid.x;\n"
                         "    mov.u32 %%r1, %%ctaid.x;\n    mov.u32 %%r2, %%laneid;\n");
    for (uint32_t i = 0; i < ninstr; i++) {
        char a[16], c[16], d[16];
        uint32_t kind = take(&b) % 20, t = take(&b);
        const char *ty = TYPES[t % 4];
        int fl = ty[0] == 'f';
        char guard[16] = "";
        if (take(&b) % 4 == 0)
            snprintf(guard, sizeof guard, "@%s%%p%u ", t & 64 ? "!" : "", t % 4);
        put(prog, cap, &len, "L%u:\n", i);
        switch (kind) {
        case 0: case 1: case 2: {
            const char *op = ARITH[take(&b) % 14];
            int bitop = !strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor");
            int shift = !strcmp(op, "shl") || !strcmp(op, "shr");
            int intonly = bitop || shift || !strcmp(op, "rem") || strchr(op, '.') != NULL;
            if (bitop)
                ty = "b32";
            else if (shift)
                ty = op[2] == 'l' ? "b32" : (t & 32) ? "s32" : "u32";
            else if ((intonly || ty[0] == 'b') && ty[0] != 's')
                ty = "u32";
            fl = ty[0] == 'f';
            operand(&b, a, sizeof a, fl);
            operand(&b, c, sizeof c, fl);
            put(prog, cap, &len, "    %s%s.%s %%r%u, %s, %s;\n", guard, op, ty, take(&b) % 8, a, c);
            break;
        }
        case 3:
            operand(&b, a, sizeof a, 1);
            operand(&b, c, sizeof c, 1);
            operand(&b, d, sizeof d, 1);
            put(prog, cap, &len, "    %s%s.f32 %%r%u, %s, %s, %s;\n", guard, t & 1 ? "fma" : "mad",
                take(&b) % 8, a, c, d);
            break;
        case 4:
            operand(&b, a, sizeof a, 1);
            put(prog, cap, &len, "    %s%s.f32 %%r%u, %s;\n", guard, FLOAT1[take(&b) % 9], take(&b) % 8, a);
            break;
        case 5:
            operand(&b, a, sizeof a, fl);
            operand(&b, c, sizeof c, fl);
            if (ty[0] == 'b')
                ty = "u32";
            put(prog, cap, &len, "    %ssetp.%s.%s %%p%u, %s, %s;\n", guard, CMPS[take(&b) % 6], ty,
                take(&b) % 4, a, c);
            break;
        case 6:
            put(prog, cap, &len, "    %smov.u32 %%r%u, %s;\n", guard, take(&b) % 8, SPECIAL[take(&b) % 13]);
            break;
        case 7: {
            static const char *const CVT[] = { "cvt.f32.s32", "cvt.s32.f32", "cvt.u32.f32", "cvt.u8.u32",
                                               "cvt.s16.s32", "cvt.f32.u32" };
            put(prog, cap, &len, "    %s%s %%r%u, %%r%u;\n", guard, CVT[take(&b) % 6], take(&b) % 8, take(&b) % 8);
            break;
        }
        case 8: case 9: {   /* load */
            int sh = kind == 9;
            const char *mt = MEMT[take(&b) % 7];
            address(&b, prog, cap, &len, sh, type_bytes(mt), smem);
            put(prog, cap, &len, "    %sld.%s.%s %%r%u, [%%r9];\n", guard, sh ? "shared" : "global", mt, take(&b) % 8);
            break;
        }
        case 10: case 11: { /* store */
            int sh = kind == 11;
            const char *mt = MEMT[take(&b) % 7];
            address(&b, prog, cap, &len, sh, type_bytes(mt), smem);
            put(prog, cap, &len, "    %sst.%s.%s [%%r9], %%r%u;\n", guard, sh ? "shared" : "global", mt, take(&b) % 8);
            break;
        }
        case 12: {          /* atomic */
            int sh = t & 1;
            address(&b, prog, cap, &len, sh, 4, smem);
            if (t & 2)
                put(prog, cap, &len, "    %satom.%s.cas.b32 %%r%u, [%%r9], %%r%u, %%r%u;\n", guard,
                    sh ? "shared" : "global", take(&b) % 8, take(&b) % 8, take(&b) % 8);
            else
                put(prog, cap, &len, "    %satom.%s.%s %%r%u, [%%r9], %%r%u;\n", guard, sh ? "shared" : "global",
                    AOPS[take(&b) % 5], take(&b) % 8, take(&b) % 8);
            break;
        }
        case 13:            /* branch anywhere (backward: a loop) */
            put(prog, cap, &len, "    %sbra L%u;\n", guard, take(&b) % ninstr);
            break;
        case 14:
            put(prog, cap, &len, "    %sbar.sync;\n", guard);
            break;
        case 16: {          /* mbarrier: init, arrive, wait (parity from a register: 0..7) */
            static const char *const MB[] = { "init", "arrive.expect_tx", "wait.parity" };
            uint32_t off = (take(&b) % 8) * 8;   /* aligned (the assembler rejects the rest) */
            if (t & 128)   /* through a register: any value, so sometimes misaligned or outside */
                put(prog, cap, &len, "    %smbarrier.%s.shared [%%r%u], %s;\n", guard, MB[take(&b) % 3],
                    take(&b) % 8, t & 32 ? "%r3" : t & 16 ? "1" : "0");
            else
                put(prog, cap, &len, "    %smbarrier.%s.shared [%u], %s;\n", guard, MB[take(&b) % 3],
                    off % smem, t & 32 ? "%r3" : t & 16 ? "1" : "0");
            break;
        }
        case 17: {          /* bulk copy: rows x 16 or 32 bytes, source usually in the buffer */
            uint32_t rows = 1 + take(&b) % 4, rb = 16u << (t & 1);
            put(prog, cap, &len, "    and.b32 %%r9, %%r%u, %u;\n    add.u32 %%r9, %%r9, %%r8;\n",
                take(&b) % 8, (t & 64) ? 0xFFFFFFF0u : (BUF_BYTES / 2 - 1) & ~15u);
            put(prog, cap, &len, "    %scp.async.bulk.shared.global.%ux%u [%u], [%%r9], %s, [%u];\n", guard,
                rows, rb, (take(&b) % 4) * 16, t & 2 ? "%r4" : "32", (take(&b) % 8) * 8);
            break;
        }
        case 18:            /* wgmma (A needs 512 bytes: out of bounds unless smem is 1 KB) or a wait */
            if (t & 1)
                put(prog, cap, &len, "    %swgmma.wait %u;\n", guard, take(&b) % 8);
            else
                put(prog, cap, &len, "    %swgmma.mma_async.n%u.%s %%r%u, [%u], [%u], %s;\n", guard,
                    8u << (take(&b) % 2), (t & 2) ? "f16" : "e4m3", 16 + take(&b) % 8,
                    (take(&b) % 4) * 16, (take(&b) % 4) * 16, t & 4 ? "%r5" : "16");
            break;
        case 19: {          /* clusters: remote arrive (rank 0..2), multicast (mask 1..4), barrier.cluster */
            uint32_t off = (take(&b) % 8) * 8;
            if (t % 3 == 0)
                put(prog, cap, &len, "    %smbarrier.arrive.cluster.shared [%u], %s;\n", guard, off % smem,
                    t & 4 ? "%r3" : t & 8 ? "1" : "0");
            else if (t % 3 == 1)
                put(prog, cap, &len, "    %scp.async.bulk.shared.global.multicast.%ux16 [%u], [%%r8], 32, [%u], %u;\n",
                    guard, 1 + take(&b) % 2, (take(&b) % 4) * 16, off % smem, 1 + take(&b) % 4);
            else if (t & 16)
                put(prog, cap, &len, "    %sbarrier.cluster;\n", guard);
            else if (t & 32)   /* distributed shared memory: rank 0..2 from a register or an immediate */
                put(prog, cap, &len, (t & 1) ? "    %sld.cluster.shared.u32 %%r%u, [%u], %s;\n"
                                             : "    %sst.cluster.shared.u32 [%u], %%r%u, %s;\n", guard,
                    (t & 1) ? take(&b) % 8 : (take(&b) % 16) * 4 % smem,
                    (t & 1) ? (take(&b) % 16) * 4 % smem : take(&b) % 8, t & 8 ? "%r3" : t & 4 ? "1" : "0");
            else   /* a bulk store from shared memory, destination usually in the buffer */
                put(prog, cap, &len, "    and.b32 %%r9, %%r%u, %u;\n    add.u32 %%r9, %%r9, %%r8;\n"
                    "    %scp.async.bulk.global.shared.%ux16 [%%r9], [%u], %s;\n",
                    take(&b) % 8, (t & 64) ? 0xFFFFFFF0u : (BUF_BYTES / 2 - 1) & ~15u, guard,
                    1 + take(&b) % 3, (take(&b) % 4) * 16, t & 2 ? "%r4" : "32");
            break;
        }
        default:
            put(prog, cap, &len, "    %sexit;\n", guard);
            break;
        }
    }
    put(prog, cap, &len, "    exit;\n");

    isa_program_t p;
    simt_err_t err;
    if (asm_assemble(prog, len, "fuzz.s", &p, &err) != 0) {
        if (getenv("FUZZ_EXEC_SHOW"))
            fprintf(stderr, "%s\n%s\n", err.msg, prog);
        return 0;   /* a template bug, not a finding: the corpus reveals the rate */
    }
    gpu_desc_t d;
    gpu_desc_default(&d);
    d.sms = 1 + cfg % 2;
    d.sched = (cfg >> 1) & 1 ? SCHED_GTO : SCHED_LRR;
    d.max_mem_inflight = 1 + (cfg >> 2) % 8;
    d.mem_bytes = 1u << 20;
    d.wgmma = 1;   /* the generator emits wgmma: a GPU that has it */
    gpu_t *g = gpu_create(&d, &err);
    if (!g) {
        isa_program_free(&p);
        return 0;
    }
    uint32_t buf = 0, words[BUF_BYTES / 4];
    for (uint32_t i = 0; i < BUF_BYTES / 4; i++)
        words[i] = i * 2654435761u;
    if (gpu_malloc(g, BUF_BYTES, "buf", &buf, &err) == 0 && ((cfg >> 5) & 1 || gpu_write(g, buf, words, BUF_BYTES, &err) == 0)) {
        gpu_launch_t l;
        memset(&l, 0, sizeof l);
        l.grid[0] = grid;
        l.grid[1] = grid_y;
        l.cluster[1] = cluster;
        if (cluster > 1 && grid_y == 2)
            l.grid[1] = cluster;   /* a multiple of the cluster (grid_y 1: refused) */
        l.block[0] = block;
        l.max_cycles = 200000;
        l.max_warp_instrs = 20000;
        l.check = (cfg >> 6) & 1;
        l.warm_caches = (cfg >> 7) & 1;
        uint32_t args[2] = { buf, BUF_BYTES / 4 };
        gpu_stats_t st;
        gpu_launch(g, &p, &l, args, 2, &st, &err);
        gpu_launch(g, &p, &l, args, 2, &st, &err);   /* again: warm caches, reused memory */
    }
    gpu_free(g);
    isa_program_free(&p);
    return 0;
}
