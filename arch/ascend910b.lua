-- ascend910b: Huawei Ascend 910B2 64GB (Da Vinci, 2023).
--
-- !!! ESTIMATE: THIS IS NOT A SIMT GPU AND THIS PRESET IS A ROUGH SKETCH !!!
--
-- An Ascend NPU is built from Da Vinci "AI cores": each has one Cube unit
-- (a 16x16x16 matrix engine), vector units working on wide registers, and a
-- scalar unit that drives them, with software-managed buffers instead of
-- caches. There are no warps, no SIMT threads and no hardware scheduler of
-- thousands of threads. simtlab can only pretend: here each AI core is an
-- "SM" whose vector units are drawn as SIMT lanes. Use this preset to
-- compare capacity, bandwidth, power and price - not to predict how a real
-- kernel runs on an Ascend. Huawei publishes no full specification: the
-- figures in [spec] are third-party estimates, and most fields below have
-- no public figure at all ("estimate").
--
-- Peak FP32: [spec] has "?" (no public figure). The model gives
--   24 cores x 128 lanes x 2 FLOP x 1.8 GHz = 11.1 TFLOP/s (estimate: two
--   vector units of 64 FP32 lanes per AI core, from 24 cube + 48 vector
--   cores [spec]).
-- Cube units (not set here; for the tensor-core fields): 16x16x16 FP16 MACs
--   = 8,192 FLOP per clock per core: 24 x 8192 x 1.8 GHz = 354 TF, the top of
--   [spec]'s estimated 280-354 TF FP16.
--
-- Sources:
--   [spec] reference/gpu-specs.md (third-party estimates for this chip)
--   [h200] arch/h200.lua, used to scale latency estimates
return {
  name = "ascend910b",
  vendor_name = "Huawei Ascend 910B2 64GB (estimated, not a SIMT GPU)",

  -- compute organisation
  sms = 24,                     -- [spec] 24 AI (cube) cores
  clock_mhz = 1800,             -- [spec] 1,800 MHz
  schedulers_per_sm = 2,        -- estimate: the 2 vector units of each AI core ([spec] 48 / 24)
  fp32_lanes_per_sm = 128,      -- estimate: [spec] has "?"; 2 x 64 (256-byte vectors)
  int_lanes_per_sm = 128,       -- estimate
  sfu_lanes_per_sm = 16,        -- estimate
  lsu_lanes_per_sm = 32,        -- estimate
  -- Tensor Cores: dense FLOP per clock per SM by input format (FP32 accumulate),
  -- [spec] estimate: one 16x16x16 cube per core = 8192 FLOP/clk; 24 x 8192 x 1.8 GHz = 354 TF, the top of the ~280-354 TF third-party estimates; 0 = no Tensor Core for that format
  tc_flops_per_clk_f16 = 8192,
  tc_flops_per_clk_bf16 = 8192,
  tc_flops_per_clk_tf32 = 0,
  tc_flops_per_clk_fp8 = 0,
  -- 0: warp-level wmma.mma runs at the full rates above (no separate
  -- warpgroup path on this chip; see the h200 preset)
  tc_sync_flops_per_clk_f16 = 0, tc_sync_flops_per_clk_bf16 = 0,
  tc_sync_flops_per_clk_tf32 = 0, tc_sync_flops_per_clk_fp8 = 0,
  lat_tensor = 32,              -- estimate: as h200 (mma latency ~30-35 cycles)
  sched = "lrr",                -- estimate (there is no warp scheduler)

  -- occupancy limits: all estimates (the programming model has no threads)
  max_threads_per_sm = 2048,    -- estimate
  max_blocks_per_sm = 16,       -- estimate
  max_threads_per_block = 1024, -- estimate
  regs_per_sm = 65536,          -- estimate
  max_regs_per_thread = 255,    -- estimate: no public per-thread figure (the AI cores are not
                                --   SIMT); the ISA's 255, as on NVIDIA
  reg_alloc_unit = 256,         -- estimate
  smem_per_sm = 196608,         -- estimate: [spec] "?"; the 192 KB unified buffer per core
  smem_per_block = 196608,      -- estimate
  max_grid = {2147483647, 65535, 65535}, -- estimate
  max_cluster_size = 1,         -- no clusters modelled (no equivalent of Hopper's thread-block clusters)
  wgmma = 0,                    -- no wgmma: that is NVIDIA PTX for sm_90
  lat_cluster = 1,              -- unused (no clusters)

  -- latencies in cycles: all estimates, [h200] scaled by clock (x 1800/1980)
  lat_alu = 4,                  -- estimate
  lat_fma = 4,                  -- estimate
  lat_sfu = 16,                 -- estimate
  lat_branch = 8,               -- estimate: scalar unit drives the vectors
  lat_smem = 29,                -- estimate: [h200] 29
  lat_l1 = 40,                  -- estimate: [h200] 40
  lat_l2 = 264,                 -- estimate: [h200] 290 x 1800/1980
  lat_dram = 609,               -- estimate: [h200] 670 x 1800/1980

  -- memory hierarchy
  smem_banks = 32,              -- estimate
  l1_bytes = 65536,             -- estimate: [spec] "?"
  l1_assoc = 4,                 -- estimate
  l2_bytes = 201326592,         -- [spec] 192 MB L2 (third-party figure)
  l2_assoc = 16,                -- estimate
  line_bytes = 128,             -- estimate
  sector_bytes = 32,            -- estimate
  dram_fetch_bytes = 32,        -- estimate: one request per sector
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 4096,      -- estimate: ~7 TB/s at 1.8 GHz
  dram_gbps = 1600,             -- [spec] ~1,600 GB/s HBM2e (est.)
  dram_channels = 16,           -- the model's 16 channels (not this part's real count)
  dram_efficiency = 0.92,       -- usable fraction, as the h200 measured before refresh was
                                -- modelled (4,410 of 4,800 GB/s)
  dram_trefi_ns = 0,            -- refresh not modelled on this part (folded into
  dram_refresh_ns = 0,          -- dram_efficiency; CALIBRATION.md "DRAM refresh and loaded latency")
  max_mem_inflight = 768,       -- estimate, Little's law: 1,600 GB/s x 609 / 1.8 GHz =
                                -- 541 KB in flight = 22 KB per core = 700 sectors
  mem_bytes = 64000000000,      -- [spec] 64 GB HBM2e

  -- for comparisons (lesson 15); not used by the timing model
  tdp_watts = 400,              -- [spec] ~400 W (estimate)
  power_static_w = 0,           -- no power model (energy = tdp_watts x time in comparisons;
                                --   arch/CALIBRATION.md "Power and sustained clocks")
  price_per_hour = 0,           -- unknown: [spec] lists no cloud price (0 = unknown)
  launch_us = 5,                -- estimate
  -- links (node.h; lesson 14), GB/s one direction:
  nvlink_gbps = 196,            -- [spec] HCCS 392 GB/s per chip both ways (estimate: split evenly)
  pcie_gbps = 26,               -- estimate: PCIe 4 x16
  pageable_gbps = 8,            -- estimate
}
