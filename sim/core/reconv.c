/* reconv.c - where the lanes of a divergent branch meet again: the
 * immediate post-dominator of each branch (Lengauer-Tarjan on the
 * reversed control-flow graph), stored in isa_instr_t.reconv so that the
 * executor only follows it (warp.h's reconvergence stack). */
#include "reconv.h"

#include <stdlib.h>
#include <string.h>

/* Successors of instruction i in the control-flow graph; n = ncode stands
 * for the virtual exit node. Returns how many (0..2). */
int reconv_successors(const isa_program_t *p, uint32_t i, uint32_t out[2])
{
    const isa_instr_t *in = &p->code[i];
    uint32_t n = p->ncode;
    int guarded = in->guard != ISA_NO_REG;
    int k = 0;
    if (in->op == OP_EXIT) {
        out[k++] = n;
        if (guarded)
            out[k++] = i + 1 < n ? i + 1 : n;
    } else if (in->op == OP_BRA) {
        out[k++] = in->opd[0].imm;
        if (guarded && i + 1 != in->opd[0].imm)
            out[k++] = i + 1 < n ? i + 1 : n;
    } else {
        out[k++] = i + 1 < n ? i + 1 : n;
    }
    return k;
}

static uint32_t lt_eval(uint32_t v, uint32_t *ancestor, uint32_t *label, const uint32_t *semi,
                        uint32_t *path, uint32_t none)
{
    if (ancestor[v] == none)
        return v;
    uint32_t top = 0, x = v;
    while (ancestor[ancestor[x]] != none) {
        path[top++] = x;
        x = ancestor[x];
    }
    while (top > 0) {   /* from the one nearest the root down to v */
        x = path[--top];
        uint32_t a = ancestor[x];
        if (semi[label[a]] < semi[label[x]])
            label[x] = label[a];
        ancestor[x] = ancestor[a];
    }
    return label[v];
}

/* Immediate post-dominators: Lengauer-Tarjan (simple version, O(E log N))
 * on the reversed CFG, rooted at the virtual exit node n. (The iterative
 * Cooper-Harvey-Kennedy algorithm it replaces walked long ipdom chains
 * once per branch: 80k branches back to one label took 10 s.) Nodes that
 * cannot reach an exit (endless loops) get no ipdom. Every branch's reconv
 * is its ipdom, or ISA_NO_PC when that is the exit.
 * One long function on purpose: the algorithm's four steps (predecessor
 * lists, DFS, semidominators, idoms) share eleven arrays of one block. */
int reconv_compute(isa_program_t *p)
{
    uint32_t n = p->ncode, nn = n + 1;
    const uint32_t UNDEF = ISA_NO_PC;
    uint32_t *pred_start = calloc(nn + 1, sizeof *pred_start);
    uint32_t *pred = malloc((size_t)2 * n * sizeof *pred + sizeof *pred);
    uint32_t *work = malloc((size_t)11 * nn * sizeof *work);
    int rc = -1;
    if (!pred_start || !pred || !work) {
        goto done;
    }
    /* node arrays (CFG numbering) and DFS-number arrays */
    uint32_t *dfn = work, *edge = work + nn, *stack = work + 2 * (size_t)nn;
    uint32_t *vert = work + 3 * (size_t)nn, *parent = work + 4 * (size_t)nn, *semi = work + 5 * (size_t)nn;
    uint32_t *idom = work + 6 * (size_t)nn, *ancestor = work + 7 * (size_t)nn, *label = work + 8 * (size_t)nn;
    uint32_t *bhead = work + 9 * (size_t)nn, *bnext = work + 10 * (size_t)nn;
    /* Predecessor lists (CSR): the reversed graph's successors. */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s[2];
        int k = reconv_successors(p, i, s);
        for (int j = 0; j < k; j++)
            pred_start[s[j] + 1]++;
    }
    for (uint32_t v = 0; v < nn; v++)
        pred_start[v + 1] += pred_start[v];
    for (uint32_t v = 0; v < nn; v++)
        edge[v] = pred_start[v];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s[2];
        int k = reconv_successors(p, i, s);
        for (int j = 0; j < k; j++)
            pred[edge[s[j]]++] = i;
    }
    /* Iterative DFS from the exit over predecessors: preorder numbers. */
    for (uint32_t v = 0; v < nn; v++) {
        dfn[v] = UNDEF;
        edge[v] = pred_start[v];
        ancestor[v] = UNDEF;
        bhead[v] = UNDEF;
    }
    uint32_t top = 0, nd = 0;
    stack[top++] = n;
    dfn[n] = nd;
    vert[nd] = n;
    parent[nd] = UNDEF;
    nd++;
    while (top > 0) {
        uint32_t v = stack[top - 1];
        if (edge[v] < pred_start[v + 1]) {
            uint32_t u = pred[edge[v]++];
            if (dfn[u] == UNDEF) {
                dfn[u] = nd;
                vert[nd] = u;
                parent[nd] = dfn[v];
                nd++;
                stack[top++] = u;
            }
        } else {
            top--;
        }
    }
    for (uint32_t w = 0; w < nd; w++) {
        semi[w] = w;
        label[w] = w;
        idom[w] = 0;
    }
    /* semidominators in reverse preorder; the reversed graph's
     * predecessors of a node are its CFG successors */
    for (uint32_t w = nd; w-- > 1;) {
        uint32_t s[2];
        int cnt = reconv_successors(p, vert[w], s);
        for (int j = 0; j < cnt; j++) {
            uint32_t v = dfn[s[j]];
            if (v == UNDEF)
                continue;
            uint32_t u = lt_eval(v, ancestor, label, semi, stack, UNDEF);
            if (semi[u] < semi[w])
                semi[w] = semi[u];
        }
        bnext[w] = bhead[semi[w]];
        bhead[semi[w]] = w;
        ancestor[w] = parent[w];   /* LINK(parent, w) */
        for (uint32_t v = bhead[parent[w]]; v != UNDEF; v = bnext[v]) {
            uint32_t u = lt_eval(v, ancestor, label, semi, stack, UNDEF);
            idom[v] = semi[u] < semi[v] ? u : parent[w];
        }
        bhead[parent[w]] = UNDEF;
    }
    for (uint32_t w = 1; w < nd; w++)
        if (idom[w] != semi[w])
            idom[w] = idom[idom[w]];
    for (uint32_t i = 0; i < n; i++) {
        isa_instr_t *in = &p->code[i];
        in->reconv = ISA_NO_PC;
        if (in->op == OP_BRA && dfn[i] != UNDEF) {
            uint32_t d = vert[idom[dfn[i]]];
            if (d != n)
                in->reconv = d;
        }
    }
    rc = 0;
done:
    free(pred_start);
    free(pred);
    free(work);
    return rc;
}
