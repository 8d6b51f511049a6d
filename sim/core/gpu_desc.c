/* gpu_desc.c - a GPU's description (gpu.h's gpu_desc_t): the default
 * (edu-tiny's values) and the checks of every field's range that every
 * preset and every --set passes before a GPU is made.
 */
#include "gpu.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sm.h"   /* SM_MAX_SCHEDULERS, SM_MAX_WARPS_PER_SCHED: limits of the SM's arrays */

/* The same values as arch/edu-tiny.lua (tests/unit/test_arch.c checks it). */
void gpu_desc_default(gpu_desc_t *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "edu-tiny");
    snprintf(d->vendor_name, sizeof d->vendor_name, "simtlab teaching GPU (2 SMs)");
    d->sms = 2;
    d->clock_mhz = 1000.0;
    d->schedulers_per_sm = 4;
    d->fp32_lanes_per_sm = 32;
    d->int_lanes_per_sm = 16;
    d->sfu_lanes_per_sm = 4;
    d->lsu_lanes_per_sm = 8;
    d->sched = SCHED_LRR;
    d->tc_flops_per_clk_f16 = 512;
    d->tc_flops_per_clk_bf16 = 512;
    d->tc_flops_per_clk_tf32 = 256;
    d->tc_flops_per_clk_fp8 = 1024;
    d->tc_sync_flops_per_clk_f16 = 0;   /* 0: wmma.mma at the rates above */
    d->tc_sync_flops_per_clk_bf16 = 0;
    d->tc_sync_flops_per_clk_tf32 = 0;
    d->tc_sync_flops_per_clk_fp8 = 0;
    d->max_threads_per_sm = 256;
    d->max_blocks_per_sm = 4;
    d->max_threads_per_block = 256;
    d->regs_per_sm = 16384;
    d->max_regs_per_thread = 255;
    d->reg_alloc_unit = 256;
    d->smem_per_sm = 16 * 1024;
    d->smem_per_block = 16 * 1024;
    d->max_grid[0] = 65535;
    d->max_grid[1] = 65535;
    d->max_grid[2] = 65535;
    d->max_cluster_size = 2;
    d->lat_cluster = 100;
    d->wgmma = 0;
    d->lat_alu = 4;
    d->lat_fma = 4;
    d->lat_sfu = 16;
    d->lat_branch = 2;
    d->lat_tensor = 32;
    d->lat_smem = 20;
    d->lat_l1 = 30;
    d->lat_l2 = 100;
    d->lat_dram = 300;
    d->smem_banks = 32;
    d->l1_bytes = 8 * 1024;
    d->l1_assoc = 4;
    d->l2_bytes = 128 * 1024;
    d->l2_assoc = 8;
    d->line_bytes = 128;
    d->sector_bytes = 32;
    d->dram_fetch_bytes = 32;   /* = sector_bytes (0 also means that) */
    d->l2_partitions = 1;
    d->lat_l2_far = 0;          /* unused with one partition */
    d->l2_bytes_per_clk = 64.0;
    d->dram_gbps = 32.0;
    d->dram_channels = 16;
    d->dram_efficiency = 0.92;
    d->dram_trefi_ns = 0.0;     /* refresh not modelled */
    d->dram_refresh_ns = 0.0;
    d->max_mem_inflight = 16;
    d->mem_bytes = 256ull << 20;
    d->tdp_watts = 10.0;
    d->price_per_hour = 0.0;
    d->launch_us = 3.0;
    d->nvlink_gbps = 50.0;
    d->pcie_gbps = 16.0;
    d->pageable_gbps = 4.0;
}

/* Range checks naming the field (err.h). */
static int check_u(const char *field, uint64_t v, uint64_t lo, uint64_t hi, simt_err_t *err)
{
    return simt_check_u("GPU", field, v, lo, hi, err);
}

static int check_f(const char *field, double v, double lo, double hi, simt_err_t *err)
{
    return simt_check_f("GPU", field, v, lo, hi, err);
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* A flat list of range checks, one per field, then the few that relate
 * two fields: long, but each line is one field's limit. */
int gpu_desc_validate(const gpu_desc_t *d, simt_err_t *err)
{
    if (check_u("sms", d->sms, 1, 1024, err) ||
        check_f("clock_mhz", d->clock_mhz, 1.0, 10000.0, err) ||
        check_u("schedulers_per_sm", d->schedulers_per_sm, 1, SM_MAX_SCHEDULERS, err) ||
        check_u("fp32_lanes_per_sm", d->fp32_lanes_per_sm, 1, 1024, err) ||
        check_u("int_lanes_per_sm", d->int_lanes_per_sm, 1, 1024, err) ||
        check_u("sfu_lanes_per_sm", d->sfu_lanes_per_sm, 1, 1024, err) ||
        check_u("lsu_lanes_per_sm", d->lsu_lanes_per_sm, 1, 1024, err) ||
        check_u("sched", d->sched, SCHED_LRR, SCHED_GTO, err) ||
        check_u("sched_reference", d->sched_reference, 0, 1, err) ||
        check_u("tc_flops_per_clk_f16", d->tc_flops_per_clk_f16, 0, 1u << 20, err) ||
        check_u("tc_flops_per_clk_bf16", d->tc_flops_per_clk_bf16, 0, 1u << 20, err) ||
        check_u("tc_flops_per_clk_tf32", d->tc_flops_per_clk_tf32, 0, 1u << 20, err) ||
        check_u("tc_flops_per_clk_fp8", d->tc_flops_per_clk_fp8, 0, 1u << 20, err) ||
        check_u("tc_sync_flops_per_clk_f16", d->tc_sync_flops_per_clk_f16, 0, 1u << 20, err) ||
        check_u("tc_sync_flops_per_clk_bf16", d->tc_sync_flops_per_clk_bf16, 0, 1u << 20, err) ||
        check_u("tc_sync_flops_per_clk_tf32", d->tc_sync_flops_per_clk_tf32, 0, 1u << 20, err) ||
        check_u("tc_sync_flops_per_clk_fp8", d->tc_sync_flops_per_clk_fp8, 0, 1u << 20, err) ||
        check_u("lat_tensor", d->lat_tensor, 1, 10000, err) ||
        check_u("max_threads_per_sm", d->max_threads_per_sm, 32, 65536, err) ||
        check_u("max_blocks_per_sm", d->max_blocks_per_sm, 1, 1024, err) ||
        check_u("max_threads_per_block", d->max_threads_per_block, 1, 4096, err) ||
        check_u("regs_per_sm", d->regs_per_sm, 1024, 1u << 24, err) ||
        check_u("max_regs_per_thread", d->max_regs_per_thread, 1, ISA_NUM_REGS, err) ||
        check_u("reg_alloc_unit", d->reg_alloc_unit, 1, 4096, err) ||
        check_u("smem_per_sm", d->smem_per_sm, 0, 1u << 24, err) ||
        check_u("smem_per_block", d->smem_per_block, 0, d->smem_per_sm, err) ||
        check_u("max_grid[1]", d->max_grid[0], 1, 0xFFFFFFFFu, err) ||
        check_u("max_grid[2]", d->max_grid[1], 1, 0xFFFFFFFFu, err) ||
        check_u("max_grid[3]", d->max_grid[2], 1, 0xFFFFFFFFu, err) ||
        check_u("max_cluster_size", d->max_cluster_size, 1, GPU_MAX_CLUSTER, err) ||
        check_u("lat_cluster", d->lat_cluster, 1, 10000, err) ||
        check_u("wgmma", d->wgmma, 0, 1, err) ||
        check_u("lat_alu", d->lat_alu, 1, 10000, err) ||
        check_u("lat_fma", d->lat_fma, 1, 10000, err) ||
        check_u("lat_sfu", d->lat_sfu, 1, 10000, err) ||
        check_u("lat_branch", d->lat_branch, 1, 10000, err) ||
        check_u("lat_smem", d->lat_smem, 1, 10000, err) ||
        check_u("lat_l1", d->lat_l1, 1, 100000, err) ||
        check_u("lat_l2", d->lat_l2, d->lat_l1, 100000, err) ||
        check_u("lat_dram", d->lat_dram, d->lat_l2, 100000, err) ||
        check_u("smem_banks", d->smem_banks, 1, 64, err) ||
        check_u("l1_assoc", d->l1_assoc, 1, 64, err) ||
        check_u("l2_assoc", d->l2_assoc, 1, 64, err) ||
        check_u("l1_bytes", d->l1_bytes, 1024, 1u << 24, err) ||
        check_u("l2_bytes", d->l2_bytes, 1024, 1u << 30, err) ||
        check_u("line_bytes", d->line_bytes, 32, 1024, err) ||
        check_u("sector_bytes", d->sector_bytes, 4, d->line_bytes, err) ||
        check_u("l2_partitions", d->l2_partitions, 1, 2, err) ||
        check_u("lat_l2_far", d->lat_l2_far, 0, 100000, err) ||
        (d->dram_fetch_bytes &&
         check_u("dram_fetch_bytes", d->dram_fetch_bytes, d->sector_bytes, d->line_bytes, err)) ||
        check_f("l2_bytes_per_clk", d->l2_bytes_per_clk, 1.0, 1e6, err) ||
        check_f("dram_gbps", d->dram_gbps, 0.1, 1e6, err) ||
        check_u("dram_channels", d->dram_channels, 1, 4096, err) ||
        check_f("dram_efficiency", d->dram_efficiency, 0.01, 1.0, err) ||
        check_f("dram_trefi_ns", d->dram_trefi_ns, 0.0, 1e9, err) ||
        check_f("dram_refresh_ns", d->dram_refresh_ns, 0.0, 1e9, err) ||
        check_u("max_mem_inflight", d->max_mem_inflight, 1, 65536, err) ||
        check_u("mem_bytes", d->mem_bytes, 4096, 1ull << 50, err) ||
        check_f("tdp_watts", d->tdp_watts, 0.0, 1e6, err) ||
        check_f("price_per_hour", d->price_per_hour, 0.0, 1e6, err) ||
        check_f("launch_us", d->launch_us, 0.0, 1e6, err) ||
        check_f("nvlink_gbps", d->nvlink_gbps, 0.0, 1e5, err) ||
        check_f("pcie_gbps", d->pcie_gbps, 0.0, 1e5, err) ||
        check_f("pageable_gbps", d->pageable_gbps, 0.0, 1e5, err) ||
        check_f("power_static_w", d->power_static_w, 0.0, 1e6, err) ||
        check_f("power_pj_instr", d->power_pj_instr, 0.0, 1e6, err) ||
        check_f("power_pj_fp32", d->power_pj_fp32, 0.0, 1e6, err) ||
        check_f("power_pj_int", d->power_pj_int, 0.0, 1e6, err) ||
        check_f("power_pj_sfu", d->power_pj_sfu, 0.0, 1e6, err) ||
        check_f("power_pj_tc_f16", d->power_pj_tc_f16, 0.0, 1e6, err) ||
        check_f("power_pj_tc_bf16", d->power_pj_tc_bf16, 0.0, 1e6, err) ||
        check_f("power_pj_tc_tf32", d->power_pj_tc_tf32, 0.0, 1e6, err) ||
        check_f("power_pj_tc_fp8", d->power_pj_tc_fp8, 0.0, 1e6, err) ||
        check_f("power_pj_byte_l1", d->power_pj_byte_l1, 0.0, 1e6, err) ||
        check_f("power_pj_byte_l2", d->power_pj_byte_l2, 0.0, 1e6, err) ||
        check_f("power_pj_byte_dram", d->power_pj_byte_dram, 0.0, 1e6, err) ||
        check_f("power_volt_slope", d->power_volt_slope, 0.0, 1.0, err) ||
        check_f("power_mhz_min", d->power_mhz_min, 0.0, d->clock_mhz, err))
        return -1;
    if (d->max_threads_per_sm > 32u * SM_MAX_WARPS_PER_SCHED * d->schedulers_per_sm)
        return simt_errf(err, SIMT_E_USAGE, "GPU field 'max_threads_per_sm' (%" PRIu32 ") would give each of the %"
                         PRIu32 " schedulers more than %d warps (%" PRIu32 " threads at most; raise "
                         "schedulers_per_sm or lower max_threads_per_sm)", d->max_threads_per_sm,
                         d->schedulers_per_sm, SM_MAX_WARPS_PER_SCHED, 32u * SM_MAX_WARPS_PER_SCHED * d->schedulers_per_sm);
    if (!is_pow2(d->line_bytes) || !is_pow2(d->sector_bytes))
        return simt_errf(err, SIMT_E_USAGE, "GPU fields 'line_bytes' (%" PRIu32 ") and 'sector_bytes' (%" PRIu32
                         ") must be powers of two", d->line_bytes, d->sector_bytes);
    if (d->dram_fetch_bytes && !is_pow2(d->dram_fetch_bytes))
        return simt_errf(err, SIMT_E_USAGE, "GPU field 'dram_fetch_bytes' (%" PRIu32 ") must be a power of two "
                         "(or 0: the sector size)", d->dram_fetch_bytes);
    if (d->dram_trefi_ns > 0.0 && !(d->dram_refresh_ns < d->dram_trefi_ns))
        return simt_errf(err, SIMT_E_USAGE, "GPU field 'dram_refresh_ns' (%g) must be shorter than "
                         "'dram_trefi_ns' (%g), the time between two refreshes", d->dram_refresh_ns,
                         d->dram_trefi_ns);
    if (d->l1_bytes % (d->line_bytes * d->l1_assoc) || d->l2_bytes % (d->line_bytes * d->l2_assoc))
        return simt_errf(err, SIMT_E_USAGE, "GPU cache sizes must be multiples of line_bytes x assoc "
                         "(l1_bytes %" PRIu32 ", l2_bytes %" PRIu32 ")", d->l1_bytes, d->l2_bytes);
    return 0;
}
