/* link.c - links as shared pipes (see link.h). */
#include "link.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void link_net_init(link_net_t *n)
{
    memset(n, 0, sizeof *n);
}

int link_net_add(link_net_t *n, const char *name, double bytes_per_s, simt_err_t *err)
{
    if (n->nres >= LINK_MAX_RES)
        return simt_errf(err, SIMT_E_USAGE, "too many links (at most %d)", LINK_MAX_RES);
    if (!(bytes_per_s > 0) || !isfinite(bytes_per_s))
        return simt_errf(err, SIMT_E_USAGE, "link '%s' needs a bandwidth > 0", name);
    link_res_t *r = &n->res[n->nres];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->bytes_per_s = bytes_per_s;
    return (int)n->nres++;
}

static int check_flow(const link_net_t *n, const link_flow_t *f, uint32_t i, simt_err_t *err)
{
    if (f->nhops == 0 || f->nhops > LINK_MAX_HOPS)
        return simt_errf(err, SIMT_E_USAGE, "transfer %u crosses %u links (1..%d)", i, f->nhops,
                         LINK_MAX_HOPS);
    for (uint32_t h = 0; h < f->nhops; h++) {
        if (f->hops[h] >= n->nres)
            return simt_errf(err, SIMT_E_USAGE, "transfer %u: no link %u", i, f->hops[h]);
        for (uint32_t k = 0; k < h; k++)
            if (f->hops[k] == f->hops[h])
                return simt_errf(err, SIMT_E_USAGE, "transfer %u crosses link '%s' twice", i,
                                 n->res[f->hops[h]].name);
    }
    if (!(f->bytes >= 0) || !isfinite(f->bytes) || !(f->start_s >= 0) || !isfinite(f->start_s)
        || !(f->latency_s >= 0) || !isfinite(f->latency_s) || !(f->cap_bytes_per_s >= 0))
        return simt_errf(err, SIMT_E_USAGE, "transfer %u: bytes, start and latency must be >= 0", i);
    return 0;
}

/* Max-min fair rates for the moving flows (active[i] = 1): progressive
 * filling. Every round finds the tightest constraint (a resource's left
 * capacity shared by its unfrozen flows, or a flow's own cap), gives that
 * share to the flows it binds and takes it from their resources. */
static void fair_rates(const link_net_t *n, const link_flow_t *f, uint32_t nf,
                       const uint8_t *active, double *rate)
{
    double left[LINK_MAX_RES];
    uint8_t frozen[256];
    uint32_t users[LINK_MAX_RES];
    uint32_t todo = 0;
    for (uint32_t r = 0; r < n->nres; r++)
        left[r] = n->res[r].bytes_per_s;
    for (uint32_t i = 0; i < nf; i++) {
        rate[i] = 0;
        frozen[i] = !active[i];
        todo += active[i];
    }
    while (todo > 0) {
        memset(users, 0, sizeof users);
        for (uint32_t i = 0; i < nf; i++)
            if (!frozen[i])
                for (uint32_t h = 0; h < f[i].nhops; h++)
                    users[f[i].hops[h]]++;
        double s = INFINITY;
        for (uint32_t r = 0; r < n->nres; r++)
            if (users[r] && left[r] / users[r] < s)
                s = left[r] / users[r];
        for (uint32_t i = 0; i < nf; i++)
            if (!frozen[i] && f[i].cap_bytes_per_s > 0 && f[i].cap_bytes_per_s < s)
                s = f[i].cap_bytes_per_s;
        if (s < 0)
            s = 0;
        double tight = s * (1 + 1e-12);
        for (uint32_t i = 0; i < nf; i++) {
            if (frozen[i])
                continue;
            int binds = f[i].cap_bytes_per_s > 0 && f[i].cap_bytes_per_s <= tight;
            for (uint32_t h = 0; h < f[i].nhops && !binds; h++) {
                uint32_t r = f[i].hops[h];
                binds = left[r] / users[r] <= tight;
            }
            if (!binds)
                continue;
            rate[i] = s;
            frozen[i] = 1;
            todo--;
        }
        /* what is left of each resource after the frozen flows' shares */
        for (uint32_t r = 0; r < n->nres; r++)
            left[r] = n->res[r].bytes_per_s;
        for (uint32_t i = 0; i < nf; i++)
            if (active[i] && frozen[i])
                for (uint32_t h = 0; h < f[i].nhops; h++)
                    left[f[i].hops[h]] -= rate[i];
        for (uint32_t r = 0; r < n->nres; r++)
            if (left[r] < 0)
                left[r] = 0;
    }
}

int link_run(link_net_t *n, link_flow_t *f, uint32_t nf, simt_err_t *err)
{
    if (nf > 256)
        return simt_errf(err, SIMT_E_USAGE, "too many transfers at once (%u, at most 256)", nf);
    uint32_t left = 0;
    for (uint32_t i = 0; i < nf; i++) {
        if (check_flow(n, &f[i], i, err) != 0)
            return -1;
        f[i].remaining = f[i].bytes;
        f[i].finish_s = f[i].start_s + f[i].latency_s;
        if (f[i].bytes > 0)
            left++;
    }
    uint8_t active[256];
    double rate[256];
    double t = INFINITY;
    for (uint32_t i = 0; i < nf; i++)
        if (f[i].remaining > 0 && f[i].start_s + f[i].latency_s < t)
            t = f[i].start_s + f[i].latency_s;
    while (left > 0) {
        double next_start = INFINITY;
        uint32_t moving = 0;
        for (uint32_t i = 0; i < nf; i++) {
            double ready = f[i].start_s + f[i].latency_s;
            active[i] = f[i].remaining > 0 && ready <= t;
            moving += active[i];
            if (f[i].remaining > 0 && ready > t && ready < next_start)
                next_start = ready;
        }
        if (moving == 0) {
            t = next_start;
            continue;
        }
        fair_rates(n, f, nf, active, rate);
        double dt = next_start - t;
        for (uint32_t i = 0; i < nf; i++)
            if (active[i] && rate[i] > 0 && f[i].remaining / rate[i] < dt)
                dt = f[i].remaining / rate[i];
        /* account the interval per resource */
        for (uint32_t r = 0; r < n->nres; r++) {
            double sum = 0;
            for (uint32_t i = 0; i < nf; i++)
                if (active[i])
                    for (uint32_t h = 0; h < f[i].nhops; h++)
                        if (f[i].hops[h] == r)
                            sum += rate[i];
            if (sum <= 0)
                continue;
            link_res_t *res = &n->res[r];
            if (sum > res->bytes_per_s)
                sum = res->bytes_per_s;  /* rounding only: fair_rates keeps it below */
            res->bytes += sum * dt;
            res->busy_s += dt;
            if (sum > res->peak_bytes_per_s)
                res->peak_bytes_per_s = sum;
            if (n->on_segment)
                n->on_segment(n->user, r, t, t + dt, sum);
        }
        for (uint32_t i = 0; i < nf; i++) {
            if (!active[i] || rate[i] <= 0)
                continue;
            double moved = rate[i] * dt;
            if (moved >= f[i].remaining * (1 - 1e-12)) {
                f[i].remaining = 0;
                f[i].finish_s = t + dt;
                left--;
                for (uint32_t h = 0; h < f[i].nhops; h++)
                    if (n->res[f[i].hops[h]].free_at < t + dt)
                        n->res[f[i].hops[h]].free_at = t + dt;
            } else {
                f[i].remaining -= moved;
            }
        }
        t += dt;
    }
    return 0;
}

double link_utilisation(const link_net_t *n, uint32_t r, double span_s)
{
    if (r >= n->nres || !(span_s > 0))
        return 0;
    double u = n->res[r].bytes / (n->res[r].bytes_per_s * span_s);
    return u > 1 ? 1 : u;
}
