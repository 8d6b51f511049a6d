-- h100: NVIDIA H100 SXM5 80GB (Hopper, 2022).
--
-- The same SM as the H200 (arch/h200.lua): the differences are the memory
-- (80 GB HBM3 at 3,350 GB/s instead of 141 GB HBM3e at 4,800 GB/s) and a
-- 50 MB L2. The SM's latencies are the H200's measured ones (same chip
-- generation, same clock).
--
-- Sources:
--   [spec] reference/gpu-specs.md (datasheet and driver figures)
--   [wp]   NVIDIA Hopper whitepaper / CUDA programming guide, compute
--          capability 9.0 (general knowledge, not in the repository)
--   [h200] arch/h200.lua, measured on a real H200 (reference/h200-measured.md)
--   [paper] Table 3 of "Hardware features of different Nvidia GPU
--           architectures", doi:10.1016/j.ultsonch.2023.106546 (PMC10448217):
--           L2 bandwidth per GPU (a published, derived figure)
-- "estimate" marks a number without a public figure in the repository.
-- Capacities in GB are 10^9 bytes as in [spec]; cache sizes are binary.
--
-- Check: peak FP32 = 132 SMs x 128 lanes x 2 FLOP x 1.98 GHz = 66.9 TFLOP/s,
-- the datasheet's 67 TFLOP/s [spec].
-- Tensor Cores (not set here; for the tensor-core fields), per clock per SM
-- at the 1830 MHz tensor clock [spec]: FP16/BF16 4096, TF32 2048, FP8 8192.
return {
  name = "h100",
  vendor_name = "NVIDIA H100 SXM5 80GB",

  -- compute organisation
  sms = 132,                    -- [spec] 132 SMs
  clock_mhz = 1980,             -- [spec] boost clock 1,980 MHz
  schedulers_per_sm = 4,        -- [spec] 4 schedulers per SM
  fp32_lanes_per_sm = 128,      -- [spec] 128 FP32 lanes per SM
  int_lanes_per_sm = 64,        -- [wp] 64 INT32 units per SM
  sfu_lanes_per_sm = 16,        -- [wp] 4 SFUs per sub-partition
  lsu_lanes_per_sm = 32,        -- [wp] 8 LD/ST units per sub-partition
  -- Tensor Cores: dense FLOP per clock per SM by input format (FP32 accumulate),
  -- [spec] 989.4 TF FP16/BF16, 494.7 TF TF32, 1978.9 TF FP8 / (132 SMs x 1.83 GHz, the clock NVIDIA's tensor figures use); 0 = no Tensor Core for that format
  tc_flops_per_clk_f16 = 4096,
  tc_flops_per_clk_bf16 = 4096,
  tc_flops_per_clk_tf32 = 2048,
  tc_flops_per_clk_fp8 = 8192,
  -- The rate warp-level wmma.mma (CUDA's mma.sync) really gets: on Hopper the
  -- datasheet rate needs the asynchronous warpgroup instruction wgmma, which
  -- our ISA does not have; mma.sync saturates at ~63% of it (FP16 621-626 TF,
  -- BF16 595, TF32 229). Fitted, see arch/CALIBRATION.md "Tensor Cores".
  tc_sync_flops_per_clk_f16 = 2400,  -- as h200 (same SM; not measured on an H100): FP16 621-626 TF
  tc_sync_flops_per_clk_bf16 = 2400, -- as h200 (same SM; not measured on an H100): BF16 595 TF (FP16's rate within 3%)
  tc_sync_flops_per_clk_tf32 = 880,  -- as h200 (same SM; not measured on an H100): TF32 229 TF
  tc_sync_flops_per_clk_fp8 = 4800,  -- estimate: twice FP16's, like the datasheet (not measured)
  lat_tensor = 32,              -- estimate: as h200 (mma latency ~30-35 cycles)
  sched = "gto",                -- estimate: policy undocumented (as h200)

  -- occupancy limits
  max_threads_per_sm = 2048,    -- [wp] compute capability 9.0 (as [h200])
  max_blocks_per_sm = 32,       -- [wp]
  max_threads_per_block = 1024, -- [wp]
  regs_per_sm = 65536,          -- [spec] 256 KB register file
  max_regs_per_thread = 255,    -- [wp] CUDA programming guide, compute capability table: at most
                                --   255 32-bit registers per thread (every capability since 3.5)
  reg_alloc_unit = 256,         -- [wp]
  smem_per_sm = 233472,         -- [spec] up to 228 KB shared memory per SM
  smem_per_block = 232448,      -- [wp] 227 KB per block
  max_grid = {2147483647, 65535, 65535}, -- [wp] CUDA grid limits
  max_cluster_size = 8,         -- [wp] CUDA C++ Programming Guide, "Thread Block Clusters": 8 blocks
                                --   is the portable cluster size on compute capability 9.0
  lat_cluster = 180,            -- estimate: SM-to-SM (distributed shared memory) latency ~180 cycles
                                --   reported by Luo et al., arXiv 2402.13499 (H800); not measured here
  wgmma = 1,                    -- [wp] PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
                                --   wgmma.mma_async requires sm_90 (Hopper)

  -- latencies in cycles: the H200's (same SM, same clock), including its
  -- calibrated lat_branch (arch/CALIBRATION.md).
  lat_alu = 4,                  -- estimate: equal to FMA (as h200)
  lat_fma = 4,                  -- [h200] measured 4.4 cycles incl. loop overhead
  lat_sfu = 16,                 -- estimate: as h200
  lat_branch = 16,              -- estimate: as the H200 calibration (arch/CALIBRATION.md)
  lat_smem = 29,                -- [h200] measured 29 cycles
  lat_l1 = 40,                  -- [h200] measured 40-46 cycles
  lat_l2 = 290,                 -- [h200] measured 287 cycles (near partition)
  lat_dram = 662,               -- [h200] as h200 (672 measured, less its refresh wait); HBM3 vs HBM3e: estimate, same

  -- memory hierarchy
  smem_banks = 32,              -- [wp] 32 banks of 4 bytes
  l1_bytes = 65536,             -- estimate: as h200 (carve-out dependent, 256 KB L1+shared [spec])
  l1_assoc = 4,                 -- estimate
  l2_bytes = 52428800,          -- [spec] 50 MB L2
  l2_assoc = 16,                -- estimate
  line_bytes = 128,             -- [wp]
  sector_bytes = 32,            -- [wp]
  dram_fetch_bytes = 64,        -- an L2 miss fetches the aligned 64 B (2 sectors) from DRAM on
                                -- Ampere and Hopper (issue 15; CUDA's cudaLimitMaxL2FetchGranularity
                                -- hint, 0-128 B); arch/CALIBRATION.md "Strided reads"
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 5120,      -- [paper] as h200 (the same GH100 L2)
  dram_gbps = 3350,             -- [spec] 3,350 GB/s HBM3
  dram_channels = 160,          -- [spec] pseudo-channels: 5 active HBM3 stacks x 16 channels x 2
                                -- (JESD238), ~21 GB/s each
  dram_efficiency = 1.0,        -- as h200: refresh (below) is the loss
  dram_trefi_ns = 3900,         -- [spec] tREFI 3.9 us (JESD238 HBM3)
  dram_refresh_ns = 235,        -- as h200 (not measured on this part)
  max_mem_inflight = 256,       -- estimate: as h200 (Little's law: 3,350 GB/s x 670 /
                                -- 1.98 GHz = 1.1 MB in flight = 8.6 KB per SM = 268 sectors)
  mem_bytes = 80000000000,      -- [spec] 80 GB HBM3

  -- tdp_watts: the power model's limit (below) and, with price and launch cost, for
  -- comparisons (lesson 15); the other two are not used by the timing model
  tdp_watts = 700,              -- [spec] 700 W
  -- power model: the H200's (arch/h200.lua; same GH100 die, same 700 W
  -- limit, same clocks), see arch/CALIBRATION.md "Power and sustained
  -- clocks". Not fitted on an H100.
  power_static_w = 100,         -- as h200 (estimate)
  power_pj_instr = 50,          -- as h200 (estimate)
  power_pj_fp32 = 10,           -- as h200 (estimate)
  power_pj_int = 5,             -- as h200 (estimate)
  power_pj_sfu = 20,            -- as h200 (estimate)
  power_pj_tc_f16 = 0.82,       -- as h200 (fitted there)
  power_pj_tc_bf16 = 0.82,      -- as h200 (rule: = FP16)
  power_pj_tc_tf32 = 1.64,      -- as h200 (rule: 2 x FP16)
  power_pj_tc_fp8 = 0.41,       -- as h200 (rule: FP16 / 2)
  power_pj_byte_l1 = 1.0,       -- as h200 (estimate)
  power_pj_byte_l2 = 5.0,       -- as h200 (estimate)
  power_pj_byte_dram = 32,      -- as h200: HBM3 and HBM3e taken at the same energy per bit
  power_volt_slope = 0.5,       -- as h200 (estimate)
  power_mhz_min = 990,          -- as h200 (estimate)
  price_per_hour = 3.9,         -- [spec] ~$3.8-4.0 per GPU-hour (volatile, 2026)
  launch_us = 3.2,              -- [h200] measured 3.2 us (same driver stack)
  -- links (node.h; lesson 14), GB/s one direction:
  nvlink_gbps = 450,            -- [spec] NVLink4: 900 GB/s per GPU both ways
  pcie_gbps = 55.5,             -- [h200] measured pinned copy on PCIe 5 x16 (same host link)
  pageable_gbps = 8,            -- [h200] measured pageable copy 7-9 GB/s
}
