-- a100: NVIDIA A100 SXM4 80GB (Ampere, 2020).
--
-- Sources:
--   [spec] reference/gpu-specs.md (datasheet and driver figures)
--   [wp]   NVIDIA Ampere (GA100) whitepaper / CUDA programming guide,
--          compute capability 8.0 (general knowledge, not in the repository)
--   [h200] values measured on a real H200 (reference/h200-measured.md, see
--          arch/h200.lua), reused or scaled where Ampere has no measurement
--          in the repository
--   [paper] Table 3 of "Hardware features of different Nvidia GPU
--           architectures", doi:10.1016/j.ultsonch.2023.106546 (PMC10448217):
--           L2 bandwidth per GPU (a published, derived figure)
--   [dgx]  NVIDIA, "Defining AI Innovation with DGX A100" (developer blog, 2020):
--          a DGX A100 is 8 A100s with "five petaFLOPS of AI performance", i.e.
--          8 x 624 TF FP16 with 2:4 structured sparsity (2 x the dense 312 TF);
--          lesson 9 corrects articles that quote it for one A100
-- "estimate" marks a number without a public figure in the repository.
-- Capacities in GB are 10^9 bytes as in [spec]; cache sizes are binary.
--
-- Check: peak FP32 = 108 SMs x 64 lanes x 2 FLOP x 1.41 GHz = 19.49 TFLOP/s,
-- the datasheet's 19.5 TFLOP/s [spec].
-- Tensor Cores (not set here; for the tensor-core fields), per clock per SM:
--   FP16/BF16 312 TF [spec] / (108 x 1.41 GHz) = 2048, TF32 156 TF = 1024.
return {
  name = "a100",
  vendor_name = "NVIDIA A100 SXM4 80GB",

  -- compute organisation
  sms = 108,                    -- [spec] 108 SMs
  clock_mhz = 1410,             -- [spec] boost clock 1,410 MHz
  schedulers_per_sm = 4,        -- [spec] 4 schedulers per SM
  fp32_lanes_per_sm = 64,       -- [spec] 64 FP32 lanes per SM
  int_lanes_per_sm = 64,        -- [wp] 64 INT32 units per SM
  sfu_lanes_per_sm = 16,        -- [wp] 4 SFUs per sub-partition
  lsu_lanes_per_sm = 32,        -- [wp] 8 LD/ST units per sub-partition
  -- Tensor Cores: dense FLOP per clock per SM by input format (FP32 accumulate),
  -- [spec] 312 TF FP16/BF16, 156 TF TF32 / (108 SMs x 1.41 GHz); no FP8 (Ampere); 0 = no Tensor Core for that format
  tc_flops_per_clk_f16 = 2048,
  tc_flops_per_clk_bf16 = 2048,
  tc_flops_per_clk_tf32 = 1024,
  tc_flops_per_clk_fp8 = 0,
  -- 0: warp-level wmma.mma runs at the full rates above (no separate
  -- warpgroup path on this chip; see the h200 preset)
  tc_sync_flops_per_clk_f16 = 0, tc_sync_flops_per_clk_bf16 = 0,
  tc_sync_flops_per_clk_tf32 = 0, tc_sync_flops_per_clk_fp8 = 0,
  lat_tensor = 32,              -- estimate: as h200 (mma latency ~30-35 cycles)
  sched = "gto",                -- estimate: policy undocumented (as h200)

  -- occupancy limits
  max_threads_per_sm = 2048,    -- [wp] compute capability 8.0
  max_blocks_per_sm = 32,       -- [wp]
  max_threads_per_block = 1024, -- [wp]
  regs_per_sm = 65536,          -- [spec] 256 KB register file
  max_regs_per_thread = 255,    -- [wp] CUDA programming guide, compute capability table: at most
                                --   255 32-bit registers per thread (every capability since 3.5)
  reg_alloc_unit = 256,         -- [wp]
  smem_per_sm = 167936,         -- [spec] up to 164 KB shared memory per SM
  smem_per_block = 166912,      -- [wp] 163 KB per block (164 KB minus 1 KB reserved)
  max_grid = {2147483647, 65535, 65535}, -- [wp] CUDA grid limits
  max_cluster_size = 1,         -- [wp] no thread-block clusters before compute capability 9.0
  wgmma = 0,                    -- [wp] no warpgroup MMA: wgmma.mma_async needs sm_90 (Hopper)
  lat_cluster = 1,              -- unused (no clusters)

  -- latencies in cycles: no Ampere measurement in the repository;
  -- estimates from [h200] scaled by clock for L2 and DRAM (x 1410/1980:
  -- about the same nanoseconds), a slightly faster L1 / shared memory.
  lat_alu = 4,                  -- estimate: equal to FMA
  lat_fma = 4,                  -- estimate: 4 cycles, as [h200] measured
  lat_sfu = 16,                 -- estimate: as h200
  lat_branch = 16,              -- estimate: as the H200 calibration (arch/CALIBRATION.md)
  lat_smem = 23,                -- estimate: a little below [h200] 29
  lat_l1 = 34,                  -- estimate: a little below [h200] 40
  lat_l2 = 207,                 -- estimate: [h200] 290 x 1410/1980
  lat_dram = 477,               -- estimate: [h200] 670 x 1410/1980

  -- memory hierarchy
  smem_banks = 32,              -- [wp] 32 banks of 4 bytes
  l1_bytes = 28672,             -- [spec] 192 KB L1+shared per SM minus 164 KB shared = 28 KB
  l1_assoc = 4,                 -- estimate
  l2_bytes = 41943040,          -- [spec] 40 MB L2
  l2_assoc = 16,                -- estimate
  line_bytes = 128,             -- [wp]
  sector_bytes = 32,            -- [wp]
  dram_fetch_bytes = 64,        -- an L2 miss fetches the aligned 64 B (2 sectors) from DRAM on
                                -- Ampere and Hopper (issue 15; CUDA's cudaLimitMaxL2FetchGranularity
                                -- hint, 0-128 B); arch/CALIBRATION.md "Strided reads"
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 5120,      -- [paper] 7,219 GB/s at 1,410 MHz: Table 3 of
                                -- doi:10.1016/j.ultsonch.2023.106546; agrees with the A100
                                -- whitepaper's "2.3x V100 L2 read bandwidth"
  dram_gbps = 2039,             -- [spec] 2,039 GB/s HBM2e
  dram_channels = 16,           -- the model's 16 channels (not this part's real count)
  dram_efficiency = 0.92,       -- usable fraction, as the h200 measured before refresh was
                                -- modelled (4,410 of 4,800 GB/s)
  dram_trefi_ns = 0,            -- refresh not modelled on this part (folded into
  dram_refresh_ns = 0,          -- dram_efficiency; CALIBRATION.md "DRAM refresh and loaded latency")
  max_mem_inflight = 192,       -- estimate, Little's law: 2,039 GB/s x 477 / 1.41 GHz =
                                -- 690 KB in flight = 6.4 KB per SM = 200 sectors
  mem_bytes = 80000000000,      -- [spec] 80 GB HBM2e

  -- for comparisons (lesson 15); not used by the timing model
  tdp_watts = 400,              -- [spec] 400 W
  power_static_w = 0,           -- no power model (energy = tdp_watts x time in comparisons;
                                --   arch/CALIBRATION.md "Power and sustained clocks")
  price_per_hour = 2.5,         -- [spec] ~$2.50 per GPU-hour (volatile, 2026)
  launch_us = 3.5,              -- estimate: [h200] 3.2 us, one generation older
  -- links (node.h; lesson 14), GB/s one direction:
  nvlink_gbps = 300,            -- [spec] NVLink3: 600 GB/s per GPU both ways
  pcie_gbps = 26,               -- estimate: PCIe 4 x16, half of the H200's measured 55.5 on PCIe 5
  pageable_gbps = 8,            -- estimate: as the H200's measured 7-9 GB/s (a host memcpy limit)
}
