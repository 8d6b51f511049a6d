/* dram.c - DRAM channels as timelines (see dram.h). */
#include "dram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int dram_init(dram_t *d, const dram_cfg_t *cfg, simt_err_t *err)
{
    memset(d, 0, sizeof *d);
    if (cfg->channels == 0)
        return simt_errf(err, SIMT_E_USAGE, "dram: channels must be at least 1");
    if (cfg->interleave_bytes == 0 || (cfg->interleave_bytes & (cfg->interleave_bytes - 1)))
        return simt_errf(err, SIMT_E_USAGE, "dram: interleave_bytes (%u) must be a power of two",
                         cfg->interleave_bytes);
    if (cfg->burst_bytes == 0)
        return simt_errf(err, SIMT_E_USAGE, "dram: burst_bytes must be at least 1");
    if (!(cfg->bytes_per_cycle > 0.0) || !isfinite(cfg->bytes_per_cycle))
        return simt_errf(err, SIMT_E_USAGE, "dram: bandwidth must be positive (got %g bytes/cycle)",
                         cfg->bytes_per_cycle);
    if (cfg->ticks_per_cycle == 0)
        return simt_errf(err, SIMT_E_USAGE, "dram: ticks_per_cycle must be at least 1");

    if (cfg->refresh_interval != 0.0 &&
        (!isfinite(cfg->refresh_interval) || !(cfg->refresh_interval > 0.0) ||
         !(cfg->refresh_cycles >= 0.0) || !(cfg->refresh_cycles < cfg->refresh_interval)))
        return simt_errf(err, SIMT_E_USAGE,
                         "dram: a refresh window (%g cycles) must be shorter than the refresh "
                         "interval (%g cycles)", cfg->refresh_cycles, cfg->refresh_interval);

    d->cfg = *cfg;
    if (cfg->refresh_interval > 0.0 && cfg->refresh_cycles > 0.0) {
        d->refi_ticks = (uint64_t)llround(cfg->refresh_interval * cfg->ticks_per_cycle);
        d->rfc_ticks = (uint64_t)llround(cfg->refresh_cycles * cfg->ticks_per_cycle);
    }
    /* One channel moves bytes_per_cycle / channels bytes per cycle. */
    double per_channel = cfg->bytes_per_cycle / cfg->channels;
    double ticks = (double)cfg->burst_bytes * cfg->ticks_per_cycle / per_channel;
    d->burst_ticks = ticks < 1.0 ? 1 : (uint64_t)llround(ticks);
    d->latency_ticks = (uint64_t)cfg->latency * cfg->ticks_per_cycle;
    d->hash_shift = 1;
    while ((1u << d->hash_shift) < cfg->channels && d->hash_shift < 31)
        d->hash_shift++;
    d->free_at = calloc(cfg->channels, sizeof *d->free_at);
    d->busy_ticks = calloc(cfg->channels, sizeof *d->busy_ticks);
    if (!d->free_at || !d->busy_ticks) {
        dram_free(d);
        return simt_errf(err, SIMT_E_NOMEM, "dram: out of host memory");
    }
    return 0;
}

void dram_free(dram_t *d)
{
    free(d->free_at);
    free(d->busy_ticks);
    d->free_at = NULL;
    d->busy_ticks = NULL;
}

void dram_reset(dram_t *d)
{
    memset(d->free_at, 0, d->cfg.channels * sizeof *d->free_at);
    memset(d->busy_ticks, 0, d->cfg.channels * sizeof *d->busy_ticks);
    memset(&d->st, 0, sizeof d->st);
}

uint32_t dram_channel(const dram_t *d, uint64_t addr)
{
    uint64_t block = addr / d->cfg.interleave_bytes;
    uint64_t n = d->cfg.channels;
    if ((n & (n - 1)) == 0) {
        /* Block number XOR-folded with its higher bits: consecutive blocks
         * visit every channel once per round, and a stride of channels (or
         * channels^2) blocks, which plain modulo would send to a single
         * channel, is spread as well. */
        uint32_t b = d->hash_shift;
        uint64_t h = block ^ (block >> b) ^ (block >> (2 * b));
        return (uint32_t)(h % n);
    }
    /* Any other count (192 pseudo-channels): round r = block / n visits
     * every channel once, starting at a rotation hashed from r, so a stride
     * of whole rounds (48 KB on an H200) is spread too. */
    uint64_t r = block / n;
    uint64_t rot = ((r ^ (r >> 7) ^ (r >> 13)) * 2654435761u) % n;
    return (uint32_t)((block + rot) % n);
}

/* Tick >= t at which channel ch may start a transfer: t, or the end of the
 * refresh window t falls in (dram.h "Refresh"). */
static uint64_t after_refresh(const dram_t *d, uint32_t ch, uint64_t t)
{
    uint64_t refi = d->refi_ticks;
    uint64_t off = refi * (2 * (uint64_t)ch + 1) / (2 * (uint64_t)d->cfg.channels);
    uint64_t ph = (t % refi + refi - off) % refi;   /* time since the window opened */
    return ph < d->rfc_ticks ? t + (d->rfc_ticks - ph) : t;
}

double dram_busy_fraction_max(const dram_t *d)
{
    return d->rfc_ticks ? 1.0 - (double)d->rfc_ticks / (double)d->refi_ticks : 1.0;
}

uint64_t dram_access(dram_t *d, uint64_t now, uint64_t addr, uint32_t bytes,
                     int is_write, uint64_t *start)
{
    uint32_t ch = dram_channel(d, addr);
    uint32_t bursts = (bytes + d->cfg.burst_bytes - 1) / d->cfg.burst_bytes;
    uint64_t t = now > d->free_at[ch] ? now : d->free_at[ch];
    uint64_t xfer = (uint64_t)bursts * d->burst_ticks;
    if (d->rfc_ticks) {
        uint64_t r = after_refresh(d, ch, t);
        if (r != t) {
            d->st.refresh_waits++;
            d->st.refresh_ticks += r - t;
            t = r;
        }
    }

    d->free_at[ch] = t + xfer;
    d->busy_ticks[ch] += xfer;
    if (d->meter)
        meter_add(d->meter, t, xfer);
    d->st.requests++;
    d->st.wait_ticks += t - now;
    if (is_write)
        d->st.write_bytes += (uint64_t)bursts * d->cfg.burst_bytes;
    else
        d->st.read_bytes += (uint64_t)bursts * d->cfg.burst_bytes;
    if (start)
        *start = t;
    return t + xfer + d->latency_ticks;
}
