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

    d->cfg = *cfg;
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
    /* Block number, XOR-folded with its higher bits. Consecutive blocks
     * still visit every channel once per round (when channels is a power
     * of two), and a stride of channels (or channels^2) blocks, which plain
     * modulo would send to a single channel, is spread as well. */
    uint64_t block = addr / d->cfg.interleave_bytes;
    uint32_t b = d->hash_shift;
    uint64_t h = block ^ (block >> b) ^ (block >> (2 * b));
    return (uint32_t)(h % d->cfg.channels);
}

uint64_t dram_access(dram_t *d, uint64_t now, uint64_t addr, uint32_t bytes,
                     int is_write, uint64_t *start)
{
    uint32_t ch = dram_channel(d, addr);
    uint32_t bursts = (bytes + d->cfg.burst_bytes - 1) / d->cfg.burst_bytes;
    uint64_t t = now > d->free_at[ch] ? now : d->free_at[ch];
    uint64_t xfer = (uint64_t)bursts * d->burst_ticks;

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
