/* lnode.c - simt.node{...}: GPUs joined by links, collectives on one clock.
 *
 *   local nd = simt.node{gpus = 8, arch = "h200", link = "nvlink"}
 *                       -- other keys are GPU fields, as in simt.gpu{...}
 *   simt.node{gpus = {g1, g2, ...}, link = ..., scale = s}
 *                       -- existing GPUs (several nodes may share them);
 *                          scale (0, 1] multiplies every link's bandwidth
 *                          (a scale model for GPUs cut to a few SMs)
 *   nd.n  nd.link (name, topology, gbps, latency_us, host_gbps,
 *                  pageable_gbps, bridge_gbps, source)
 *   local g = nd:gpu(i)                    -- GPU i (1..n), a simt.gpu
 *   local r = nd:allreduce(ts, {algo = "ring"|"tree"|"ps", after = s})
 *       ts: one f32 tensor per GPU (ts[i] on nd:gpu(i)), all the same size
 *       r.time_s r.algbw_gbs r.busbw_gbs r.start_s r.finish_s r.kernel_s r.steps
 *   nd:reduce_scatter(ts, opts)  nd:all_gather(ts, opts)  nd:broadcast(ts, opts)
 *   nd:copy(src_tensor, dst_tensor [, after])          -> finish (s)
 *   nd:host_copy{gpu = i, bytes = b, to_device = true, pinned = true, after = s}
 *   nd:launch(i, k, {grid =, block =}, args...)   a kernel on GPU i's compute
 *                       stream (not shown on a stage): {time_us, cycles, start_s, finish_s}
 *   nd:busy(i, seconds)  -> when GPU i's compute stream is free again
 *   nd:clock(i) -> compute, comm   nd:now()   nd:sent(i)
 *   nd:links() -> {{name, gbps, bytes, busy_s, peak_gbs, utilisation}, ...}
 *   nd:picture{path = "node.png", title = "...", from = s, to = s}   the GPUs
 *                       and their links, each as thick as it was busy (a PNG;
 *                       sim/view/node_view.h); from/to (a time window) need
 *                       simt.node{..., record = true}
 *
 * Collectives move the data between the GPUs' memories and reduce with
 * lessons/kernels/vecadd_v4.s on the receiving GPU (node.h). With a trace
 * (simtlab run --trace) every link gets a counter track.
 *
 * The GPUs are made by simt.gpu (so the command line's overrides apply)
 * and anchored in the node's user value; every table field is read into C
 * memory before anything that can run Lua.
 */
#include "lnode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "arch.h"
#include "asm.h"
#include "lkernel.h"
#include "llaunch.h"
#include "lsimt.h"
#include "lutil.h"
#include "node.h"
#include "sandbox.h"
#include "tensor.h"
#include "trace.h"
#ifdef SIMT_HAVE_VIEW
#include "node_view.h"
#endif

#define LNODE_MT "simt.node"

#define LNODE_MAX_SEGS 65536   /* recorded link intervals per node (2 MB) */

typedef struct lnode_seg {
    uint32_t r;                          /* the link (resource)           */
    double t0, t1, rate;                 /* [t0, t1) at rate bytes/s      */
} lnode_seg_t;

typedef struct lnode {
    node_t nd;
    int ready;                           /* node_init succeeded           */
    isa_program_t prog;                  /* the reduction kernel          */
    int loaded;
    uint32_t scratch[NODE_MAX_GPUS];     /* one per GPU, scratch_bytes    */
    uint64_t scratch_bytes;
    uint64_t charged;                    /* against the sandbox's cap     */
    trace_t *trace;                      /* during one call, or NULL      */
    double scale;                        /* the links' bandwidth scale    */
    lnode_seg_t *segs;                   /* record = true: every interval
                                            a link carried bytes (for
                                            pictures of a time window)   */
    uint32_t nsegs, lost;                /* recorded; 1: the buffer filled */
} lnode_t;

static int node_gc(lua_State *L)
{
    lnode_t *N = (lnode_t *)luaL_checkudata(L, 1, LNODE_MT);
    if (N->loaded)
        isa_program_free(&N->prog);
    N->loaded = 0;
    N->ready = 0;
    free(N->segs);
    N->segs = NULL;
    if (N->charged) {
        sandbox_charge_bytes(L, -(int64_t)N->charged);
        N->charged = 0;
    }
    return 0;
}

/* The node at arg, with every GPU still the one it was made with. */
static lnode_t *check_node(lua_State *L, int arg)
{
    lnode_t *N = (lnode_t *)luaL_checkudata(L, arg, LNODE_MT);
    if (!N->ready)
        lutil_error(L, "the node is not set up");
    lua_getiuservalue(L, arg, 1);
    for (uint32_t i = 0; i < N->nd.n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        lgpu_t *G = (lgpu_t *)luaL_testudata(L, -1, LGPU_MT);
        if (!G || G->g != N->nd.gpu[i])
            lutil_error(L, "the node's GPU %u has been freed", i + 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return N;
}

static void on_segment(void *user, uint32_t r, double t0, double t1, double rate)
{
    lnode_t *N = (lnode_t *)user;
    if (N->trace)
        trace_link(N->trace, N->nd.net.res[r].name, t0 * 1e6, t1 * 1e6, rate / 1e9);
    if (N->segs && N->nsegs < LNODE_MAX_SEGS)
        N->segs[N->nsegs++] = (lnode_seg_t){r, t0, t1, rate};
    else if (N->segs)
        N->lost = 1;
}

/* Bytes link r moved in [from, to) by the recorded intervals. */
static double seg_bytes(const lnode_t *N, uint32_t r, double from, double to)
{
    double b = 0;
    for (uint32_t k = 0; k < N->nsegs; k++) {
        const lnode_seg_t *g = &N->segs[k];
        double a = g->t0 > from ? g->t0 : from, z = g->t1 < to ? g->t1 : to;
        if (g->r == r && z > a)
            b += g->rate * (z - a);
    }
    return b;
}

/* Attach the run's trace (simtlab run --trace), if any, for one call. */
static void attach_trace(lua_State *L, lnode_t *N)
{
    N->trace = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "simt.trace") == LUA_TLIGHTUSERDATA)
        N->trace = (trace_t *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    N->nd.net.on_segment = on_segment;
    N->nd.net.user = N;
}

static const char *topo_name(node_topo_t t)
{
    switch (t) {
    case NODE_SWITCH: return "switch";
    case NODE_RING: return "ring";
    case NODE_PCIE: return "pcie";
    case NODE_PCIE_HOST: return "pcie-host";
    }
    return "?";
}

/* The list of GPUs on top of the stack (gpus = {g1, g2, ...}): 1 to
 * NODE_MAX_GPUS live GPUs, none twice; returns how many. */
static lua_Integer check_gpu_list(lua_State *L)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n < 1 || n > NODE_MAX_GPUS)
        return lutil_error(L, "simt.node: gpus must list 1..%d GPUs", NODE_MAX_GPUS);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        lgpu_t *G = (lgpu_t *)luaL_testudata(L, -1, LGPU_MT);
        if (!G || !G->g)
            return lutil_error(L, "simt.node: gpus[%d] is not a GPU (simt.gpu{...})", (int)i);
        for (lua_Integer k = 1; k < i; k++) {
            lua_rawgeti(L, -2, k);
            if (lua_rawequal(L, -1, -2))
                return lutil_error(L, "simt.node: gpus[%d] is gpus[%d] again", (int)i, (int)k);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return n;
}

/* The node's own keys of simt.node's table (argument 1): scale (kept in
 * *scale), link (its name into link) and record (returned, 0 or 1). */
static int node_options(lua_State *L, double *scale, char *link, size_t nlink)
{
    int record = 0;
    if (lua_getfield(L, 1, "record") != LUA_TNIL)
        record = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "scale") != LUA_TNIL) {
        *scale = lua_tonumber(L, -1);
        if (!lua_isnumber(L, -1) || !(*scale > 0 && *scale <= 1))
            return lutil_error(L, "simt.node: scale must be a number in (0, 1]");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "link") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) >= nlink)
            return lutil_error(L, "simt.node: link must be one of: %s", node_link_names());
        snprintf(link, nlink, "%s", lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    return record;
}

/* simt.node{gpus = N, link = NAME, arch = ..., GPU fields ...} */
static int l_node(lua_State *L)
{
    char link[32] = "nvlink";
    lua_Integer n = 2;
    double scale = 1;
    int given = 0;   /* 1: gpus is a table of existing GPUs */
    simt_err_t err;
    luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_getfield(L, 1, "gpus") == LUA_TTABLE) {
        given = 1;
        n = check_gpu_list(L);
    } else if (!lua_isnil(L, -1)) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > NODE_MAX_GPUS)
            return lutil_error(L, "simt.node: gpus must be an integer 1..%d or a table of GPUs",
                               NODE_MAX_GPUS);
        n = lua_tointeger(L, -1);
    }
    int list = lua_gettop(L);   /* the gpus value read once (checked above), kept */
    int record = node_options(L, &scale, link, sizeof link);
    /* the GPU's table: every other key, copied (raw) */
    lua_newtable(L);
    int spec = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        if (strcmp(key, "gpus") == 0 || strcmp(key, "link") == 0 || strcmp(key, "scale") == 0
            || strcmp(key, "record") == 0) {
            lua_pop(L, 1);
            continue;
        }
        if (given)
            return lutil_error(L, "simt.node: with a list of GPUs, '%s' has no place (give only gpus, "
                                  "link, scale and record)", key);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, spec);
    }
    if (given) {   /* the list checked above */
        lua_pushvalue(L, list);
        lua_replace(L, spec);
    }
    lnode_t *N = (lnode_t *)lua_newuserdatauv(L, sizeof *N, 1);
    memset(N, 0, sizeof *N);
    luaL_setmetatable(L, LNODE_MT);
    int self = lua_gettop(L);
    lua_createtable(L, (int)n, 0);
    int gpus = lua_gettop(L);
    gpu_t *g[NODE_MAX_GPUS];
    for (lua_Integer i = 1; i <= n && given; i++) {
        lua_rawgeti(L, spec, i);
        g[i - 1] = ((lgpu_t *)luaL_checkudata(L, -1, LGPU_MT))->g;
        lua_rawseti(L, gpus, i);
    }
    for (lua_Integer i = 1; i <= n && !given; i++) {
        if (lua_getfield(L, LUA_REGISTRYINDEX, "simt.module") != LUA_TTABLE
            || lua_getfield(L, -1, "gpu") != LUA_TFUNCTION)
            return lutil_error(L, "simt.node: simt.gpu is missing");
        lua_pushvalue(L, spec);
        lua_call(L, 1, 1);
        lgpu_t *G = (lgpu_t *)luaL_checkudata(L, -1, LGPU_MT);
        g[i - 1] = G->g;
        lua_rawseti(L, gpus, i);
        lua_pop(L, 1);   /* the module */
    }
    lua_pushvalue(L, gpus);
    lua_setiuservalue(L, self, 1);
    char path[1024];
    simt_err_clear(&err);
    if (arch_find_file("lessons/kernels/vecadd_v4.s", path, sizeof path) != 0)
        return lutil_error(L, "simt.node: cannot find lessons/kernels/vecadd_v4.s (the reduction kernel)");
    if (asm_assemble_file(path, &N->prog, &err) != 0)
        return lutil_error(L, "%s", err.msg);
    N->loaded = 1;
    node_link_t lk;
    if (node_link_preset(link, gpu_desc(g[0]), &lk, &err) != 0)
        return lutil_error(L, "simt.node: %s", err.msg);
    lk.gbps *= scale;
    lk.host_gbps *= scale;
    lk.pageable_gbps *= scale;
    lk.bridge_gbps *= scale;
    N->scale = scale;
    if (node_init(&N->nd, g, (uint32_t)n, &lk, &N->prog, &err) != 0)
        return lutil_error(L, "simt.node: %s", err.msg);
    if (record) {
        tensor_charge(L, sizeof *N->segs * LNODE_MAX_SEGS, "a node's record of its links");
        N->charged += sizeof *N->segs * LNODE_MAX_SEGS;
        N->segs = malloc(sizeof *N->segs * LNODE_MAX_SEGS);
        if (!N->segs)
            return lutil_error(L, "simt.node: out of host memory for the record of its links");
    }
    N->ready = 1;
    lua_pushvalue(L, self);
    return 1;
}

/* The tensors ts (a table of n f32 device tensors, ts[i] on GPU i, equal
 * sizes): their addresses into addr; returns the element count. */
static uint32_t node_tensors(lua_State *L, lnode_t *N, int idx, uint32_t *addr)
{
    int64_t count = -1;
    luaL_checktype(L, idx, LUA_TTABLE);
    /* the tensors stay anchored in a table of our own for the whole call,
     * whatever the script's table becomes */
    lua_createtable(L, (int)N->nd.n, 0);
    int anchor = lua_gettop(L);
    for (uint32_t i = 0; i < N->nd.n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, anchor, (lua_Integer)i + 1);
        tensor_t *t = tensor_test(L, -1);
        if (!t || !t->gpu || t->gpu->g != N->nd.gpu[i] || strcmp(t->dt->name, "f32") != 0)
            lutil_error(L, "collective: item %u must be an f32 tensor on nd:gpu(%u)", i + 1, i + 1);
        if (count >= 0 && t->n != count)
            lutil_error(L, "collective: the tensors must be the same size (%lld and %lld elements)",
                        (long long)count, (long long)t->n);
        count = t->n;
        addr[i] = t->addr;
        lua_pop(L, 1);
    }
    if (count <= 0 || count > (int64_t)UINT32_MAX / 4)
        lutil_error(L, "collective: empty or too large tensors");
    return (uint32_t)count;
}

/* Options {algo = ..., after = seconds} at idx (may be absent). */
static double node_opts(lua_State *L, int idx, node_algo_t *algo)
{
    double after = 0;
    if (algo)
        *algo = NODE_RING_ALGO;
    if (lua_isnoneornil(L, idx))
        return 0;
    luaL_checktype(L, idx, LUA_TTABLE);
    if (lua_getfield(L, idx, "after") != LUA_TNIL) {
        if (!lua_isnumber(L, -1) || !(lua_tonumber(L, -1) >= 0))
            lutil_error(L, "collective: after must be a time in seconds >= 0");
        after = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "algo") != LUA_TNIL) {
        const char *a = lua_tostring(L, -1);
        if (!algo || !a)
            lutil_error(L, "collective: algo is for allreduce: ring, tree or ps");
        else if (strcmp(a, "ring") == 0)
            *algo = NODE_RING_ALGO;
        else if (strcmp(a, "tree") == 0)
            *algo = NODE_TREE;
        else if (strcmp(a, "ps") == 0)
            *algo = NODE_PS;
        else
            lutil_error(L, "collective: unknown algo '%s' (ring, tree, ps)", a);
    }
    lua_pop(L, 1);
    return after;
}

static void ensure_scratch(lua_State *L, lnode_t *N, uint64_t bytes)
{
    simt_err_t err;
    if (N->scratch_bytes >= bytes)
        return;
    tensor_charge(L, bytes * N->nd.n, "the node's receive buffers");
    N->charged += bytes * N->nd.n;
    for (uint32_t i = 0; i < N->nd.n; i++) {
        simt_err_clear(&err);
        if (N->scratch_bytes)
            gpu_mfree(N->nd.gpu[i], N->scratch[i], &err);
        if (gpu_malloc(N->nd.gpu[i], bytes, "node receive buffer", &N->scratch[i], &err) != 0) {
            /* the GPUs before i have the new size, the rest none: start over */
            for (uint32_t k = 0; k < i; k++)
                gpu_mfree(N->nd.gpu[k], N->scratch[k], &err);
            N->scratch_bytes = 0;
            lutil_error(L, "collective: no room for a receive buffer on GPU %u: %s", i + 1, err.msg);
        }
    }
    N->scratch_bytes = bytes;
}

static void push_coll(lua_State *L, const node_coll_t *r)
{
    lua_createtable(L, 0, 10);
    lutil_set_num(L, "time_s", r->time_s);
    lutil_set_num(L, "time_us", r->time_s * 1e6);
    lutil_set_num(L, "algbw_gbs", r->algbw_gbs);
    lutil_set_num(L, "busbw_gbs", r->busbw_gbs);
    lutil_set_num(L, "start_s", r->start_s);
    lutil_set_num(L, "finish_s", r->finish_s);
    lutil_set_num(L, "kernel_s", r->kernel_s);
    lutil_set_num(L, "bytes", r->bytes);
    lutil_set_int(L, "steps", r->steps);
}

enum { OP_ALLREDUCE, OP_RS, OP_AG, OP_BCAST };

static int collective(lua_State *L, int op)
{
    lnode_t *N = check_node(L, 1);
    uint32_t addr[NODE_MAX_GPUS];
    node_algo_t algo;
    lua_settop(L, 3);   /* ts, opts (or nil) */
    uint32_t nf = node_tensors(L, N, 2, addr);
    double after = node_opts(L, 3, op == OP_ALLREDUCE ? &algo : NULL);
    if (op == OP_ALLREDUCE || op == OP_RS) {
        uint64_t need = (uint64_t)nf * 4;
        ensure_scratch(L, N, need < 2ull * NODE_SLICE_BYTES ? need : 2ull * NODE_SLICE_BYTES);
    }
    attach_trace(L, N);
    simt_err_t err;
    node_coll_t r;
    int rc;
    simt_err_clear(&err);
    switch (op) {
    case OP_ALLREDUCE: rc = node_allreduce(&N->nd, addr, N->scratch, nf, algo, after, &r, &err); break;
    case OP_RS: rc = node_reduce_scatter(&N->nd, addr, N->scratch, nf, after, &r, &err); break;
    case OP_AG: rc = node_all_gather(&N->nd, addr, nf, after, &r, &err); break;
    default: rc = node_broadcast(&N->nd, addr, nf, after, &r, &err); break;
    }
    N->trace = NULL;
    if (rc != 0)
        return lutil_error(L, "%s", err.msg);
    push_coll(L, &r);
    return 1;
}

static int node_allreduce_l(lua_State *L) { return collective(L, OP_ALLREDUCE); }
static int node_rs_l(lua_State *L) { return collective(L, OP_RS); }
static int node_ag_l(lua_State *L) { return collective(L, OP_AG); }
static int node_bcast_l(lua_State *L) { return collective(L, OP_BCAST); }

/* GPU index argument (1..n) -> 0-based. */
static uint32_t gpu_arg(lua_State *L, lnode_t *N, int arg)
{
    lua_Integer i = luaL_checkinteger(L, arg);
    if (i < 1 || i > (lua_Integer)N->nd.n)
        lutil_argerror(L, arg, "a GPU number 1..%u", N->nd.n);
    return (uint32_t)(i - 1);
}

static int node_gpu_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    uint32_t i = gpu_arg(L, N, 2);
    lua_getiuservalue(L, 1, 1);
    lua_rawgeti(L, -1, (lua_Integer)i + 1);
    return 1;
}

/* nd:launch(i, kernel, {grid =, block =}, args...): run a kernel on GPU i
 * on its compute stream (no stage, no checker: a step of a larger
 * experiment); returns {time_us, cycles, start_s, finish_s}. */
static int node_launch_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    uint32_t i = gpu_arg(L, N, 2);
    const isa_program_t *p = lkernel_check(L, 3);
    luaL_checktype(L, 4, LUA_TTABLE);
    int nargs = lua_gettop(L) - 4;
    if (nargs != (int)p->nparams)
        return lutil_error(L, "nd:launch: kernel '%s' takes %u arguments, got %d", p->name, p->nparams, nargs);
    static const char *const keys[] = { "grid", "block" };
    llaunch_check_keys(L, 4, "nd:launch", keys, 2);
    gpu_launch_t cfg;
    memset(&cfg, 0, sizeof cfg);
    llaunch_dim3(L, 4, "grid", cfg.grid);
    llaunch_dim3(L, 4, "block", cfg.block);
    lua_getiuservalue(L, 1, 1);
    lua_rawgeti(L, -1, (lua_Integer)i + 1);
    const lgpu_t *G = (const lgpu_t *)luaL_checkudata(L, -1, LGPU_MT);
    lua_pop(L, 2);
    uint32_t args[ISA_MAX_PARAMS];
    for (int k = 0; k < nargs; k++)
        args[k] = lkernel_arg_bits(L, G, "g:tensor", p, 5 + k, k);
    simt_err_t err;
    gpu_stats_t st;
    simt_err_clear(&err);
    int rc = gpu_launch(N->nd.gpu[i], p, &cfg, args, (uint32_t)nargs, &st, &err);
    llaunch_charge(L, st.warp_instrs);   /* the watchdog, as g:launch */
    if (rc != 0)
        return lutil_error(L, "%s", err.msg);
    double start = N->nd.t_compute[i];
    node_busy(&N->nd, i, st.time_us * 1e-6);
    lua_createtable(L, 0, 4);
    lutil_set_num(L, "time_us", st.time_us);
    lutil_set_int(L, "cycles", st.cycles);
    lutil_set_num(L, "start_s", start);
    lutil_set_num(L, "finish_s", N->nd.t_compute[i]);
    return 1;
}

static int node_busy_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    uint32_t i = gpu_arg(L, N, 2);
    double s = luaL_checknumber(L, 3);
    if (!(s >= 0) || !isfinite(s))
        return lutil_argerror(L, 3, "seconds >= 0");
    node_busy(&N->nd, i, s);
    lua_pushnumber(L, N->nd.t_compute[i]);
    return 1;
}

static int node_clock_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    uint32_t i = gpu_arg(L, N, 2);
    lua_pushnumber(L, N->nd.t_compute[i]);
    lua_pushnumber(L, N->nd.t_comm[i]);
    return 2;
}

static int node_now_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    lua_pushnumber(L, N->nd.t_end);
    return 1;
}

static int node_sent_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    uint32_t i = gpu_arg(L, N, 2);
    lua_pushnumber(L, N->nd.sent[i]);
    return 1;
}

/* The end of a transfer call: detach the trace, raise its error or push
 * when it finished. */
static int push_finish(lua_State *L, lnode_t *N, int rc, double fin, const simt_err_t *err)
{
    N->trace = NULL;
    if (rc != 0)
        return lutil_error(L, "%s", err->msg);
    lua_pushnumber(L, fin);
    return 1;
}

static int node_copy_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    tensor_t *s = tensor_check(L, 2), *d = tensor_check(L, 3);
    double after = luaL_optnumber(L, 4, 0);
    int si = -1, di = -1;
    for (uint32_t i = 0; i < N->nd.n; i++) {
        if (s->gpu && s->gpu->g == N->nd.gpu[i])
            si = (int)i;
        if (d->gpu && d->gpu->g == N->nd.gpu[i])
            di = (int)i;
    }
    if (si < 0 || di < 0)
        return lutil_error(L, "nd:copy: both tensors must be on the node's GPUs");
    if (tensor_bytes(s) != tensor_bytes(d))
        return lutil_error(L, "nd:copy: the tensors differ in size");
    if (!(after >= 0))
        return lutil_argerror(L, 4, "a time in seconds >= 0");
    attach_trace(L, N);
    simt_err_t err;
    double fin;
    simt_err_clear(&err);
    int rc = node_copy(&N->nd, (uint32_t)si, s->addr, (uint32_t)di, d->addr, (uint32_t)tensor_bytes(s),
                       after, &fin, &err);
    return push_finish(L, N, rc, fin, &err);
}

static int node_host_copy_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "gpu");
    uint32_t i = gpu_arg(L, N, -1);
    lua_getfield(L, 2, "bytes");
    double bytes = lua_tonumber(L, -1);
    if (!(bytes >= 0) || !isfinite(bytes))
        return lutil_error(L, "nd:host_copy: bytes must be a number >= 0");
    lua_getfield(L, 2, "to_device");
    int to_device = lua_isnil(L, -1) ? 1 : lua_toboolean(L, -1);
    lua_getfield(L, 2, "pinned");
    int pinned = lua_isnil(L, -1) ? 1 : lua_toboolean(L, -1);
    lua_getfield(L, 2, "after");
    double after = lua_isnil(L, -1) ? 0 : lua_tonumber(L, -1);
    if (!(after >= 0))
        return lutil_error(L, "nd:host_copy: after must be a time in seconds >= 0");
    lua_pop(L, 5);
    attach_trace(L, N);
    simt_err_t err;
    double fin;
    simt_err_clear(&err);
    int rc = node_host_copy(&N->nd, i, bytes, to_device, pinned, after, &fin, &err);
    return push_finish(L, N, rc, fin, &err);
}

static int node_links_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    double span = N->nd.t_end;
    lua_createtable(L, (int)N->nd.net.nres, 0);
    for (uint32_t r = 0; r < N->nd.net.nres; r++) {
        const link_res_t *res = &N->nd.net.res[r];
        lua_createtable(L, 0, 6);
        lua_pushstring(L, res->name);
        lua_setfield(L, -2, "name");
        lutil_set_num(L, "gbps", res->bytes_per_s / 1e9);
        lutil_set_num(L, "bytes", res->bytes);
        lutil_set_num(L, "busy_s", res->busy_s);
        lutil_set_num(L, "peak_gbs", res->peak_bytes_per_s / 1e9);
        lutil_set_num(L, "utilisation", link_utilisation(&N->nd.net, r, span));
        lua_rawseti(L, -2, (lua_Integer)r + 1);
    }
    return 1;
}

#ifdef SIMT_HAVE_VIEW
/* nd:picture{path = "node.png", title = "..."}: the GPUs and their links,
 * each link as thick as it was busy since the node's clock started
 * (sim/view/node_view.h). */
static int node_picture_l(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    char path[1024], title[160] = "", sub[200];
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_getfield(L, 2, "path") != LUA_TSTRING || lua_rawlen(L, -1) >= sizeof path)
        return lutil_error(L, "nd:picture: path (a .png file) is required");
    snprintf(path, sizeof path, "%s", lua_tostring(L, -1));
    if (lua_getfield(L, 2, "title") == LUA_TSTRING)
        snprintf(title, sizeof title, "%s", lua_tostring(L, -1));
    int win = lua_getfield(L, 2, "from") != LUA_TNIL;
    double from = lua_tonumber(L, -1);
    win |= lua_getfield(L, 2, "to") != LUA_TNIL;
    double to = lua_tonumber(L, -1);
    lua_pop(L, 4);
    const node_t *nd = &N->nd;
    double span = nd->t_end;
    if (!(span > 0))
        return lutil_error(L, "nd:picture: nothing has moved yet (run a collective or a copy first)");
    if (win) {
        if (!N->segs)
            return lutil_error(L, "nd:picture: from/to need a node made with record = true");
        if (N->lost)
            return lutil_error(L, "nd:picture: the node recorded only its first %d link intervals",
                               LNODE_MAX_SEGS);
        if (!(from >= 0 && to > from))
            return lutil_error(L, "nd:picture: from and to must be times with 0 <= from < to");
    } else {
        from = 0;
        to = span;
    }
    node_view_link_t links[2 * NODE_MAX_GPUS];
    int nl = 0;
    for (uint32_t i = 0; i < nd->n; i++) {
        int a, b;
        if (nd->link.topo == NODE_RING) {
            if (nd->n < 2)
                break;
            a = nd->ring_next[i];
            b = nd->ring_prev[(i + 1) % nd->n];
            links[nl] = (node_view_link_t){(int)i, (int)((i + 1) % nd->n), 0, 0};
        } else {
            a = nd->port_out[i];
            b = nd->port_in[i];
            links[nl] = (node_view_link_t){(int)i, -1, 0, 0};
        }
        /* the busier of the two directions */
        double ma = win ? seg_bytes(N, (uint32_t)a, from, to) : nd->net.res[a].bytes;
        double mb = win ? seg_bytes(N, (uint32_t)b, from, to) : nd->net.res[b].bytes;
        links[nl].gbs = (ma > mb ? ma : mb) / (to - from) / 1e9;
        links[nl].cap_gbs = nd->net.res[a].bytes_per_s / 1e9;
        nl++;
    }
    snprintf(sub, sizeof sub, "link %s: %.4g GB/s one way per GPU; average from %.4g to %.4g us",
             nd->link.name, nd->link.gbps, from * 1e6, to * 1e6);
    char hub[96];
    const link_res_t *br = &nd->net.res[nd->bridge];
    double bb = win ? seg_bytes(N, (uint32_t)nd->bridge, from, to) : br->bytes;
    snprintf(hub, sizeof hub, "host memory: bridge %.3g of %.3g GB/s", bb / (to - from) / 1e9,
             br->bytes_per_s / 1e9);
    node_view_t v = {title, sub, gpu_desc(nd->gpu[0])->name,
                     nd->link.topo == NODE_SWITCH ? "NVSwitch" : nd->link.topo == NODE_PCIE ? "PCIe switch"
                     : nd->link.topo == NODE_PCIE_HOST ? hub : NULL,
                     (int)nd->n, links, nl, 0, 0};
    simt_err_t err;
    char shown[1024];
    simt_err_clear(&err);
    FILE *f = sandbox_open_write(L, path, shown, sizeof shown, &err);
    if (!f || node_view_save_png_file(&v, f, shown, &err) != 0)
        return lutil_error(L, "%s%s", f ? "" : "nd:picture: ", err.msg);
    return 0;
}
#else
static int node_picture_l(lua_State *L)
{
    return lutil_error(L, "nd:picture: simtlab was built without SDL2");
}
#endif

static const luaL_Reg node_methods[] = {
    { "gpu", node_gpu_l }, { "allreduce", node_allreduce_l }, { "reduce_scatter", node_rs_l },
    { "all_gather", node_ag_l }, { "broadcast", node_bcast_l }, { "copy", node_copy_l },
    { "host_copy", node_host_copy_l }, { "busy", node_busy_l }, { "clock", node_clock_l },
    { "now", node_now_l }, { "sent", node_sent_l }, { "links", node_links_l },
    { "launch", node_launch_l }, { "picture", node_picture_l }, { NULL, NULL }
};

static int node_index(lua_State *L)
{
    lnode_t *N = check_node(L, 1);
    const char *k;
    if (lutil_index_method(L, &k))
        return 1;
    if (!k)
        return 0;
    if (strcmp(k, "n") == 0) {
        lua_pushinteger(L, N->nd.n);
    } else if (strcmp(k, "link") == 0) {
        const node_link_t *lk = &N->nd.link;
        lua_createtable(L, 0, 8);
        lua_pushstring(L, lk->name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, topo_name(lk->topo));
        lua_setfield(L, -2, "topology");
        lua_pushstring(L, lk->source);
        lua_setfield(L, -2, "source");
        lutil_set_num(L, "gbps", lk->gbps);
        lutil_set_num(L, "latency_us", lk->latency_us);
        lutil_set_num(L, "host_gbps", lk->host_gbps);
        lutil_set_num(L, "pageable_gbps", lk->pageable_gbps);
        lutil_set_num(L, "bridge_gbps", lk->bridge_gbps);
        lutil_set_num(L, "scale", N->scale);
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int node_tostring(lua_State *L)
{
    lnode_t *N = (lnode_t *)luaL_checkudata(L, 1, LNODE_MT);
    if (!N->ready)
        lua_pushstring(L, "node (not set up)");
    else
        lua_pushfstring(L, "node: %d x %s, %s", (int)N->nd.n, gpu_desc(N->nd.gpu[0])->name,
                        N->nd.link.name);
    return 1;
}

void lnode_register(lua_State *L)
{
    lutil_new_class(L, LNODE_MT, node_gc, node_tostring, node_index, node_methods);
    lua_pushcfunction(L, l_node);
    lua_setfield(L, -2, "node");
}
