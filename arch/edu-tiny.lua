-- edu-tiny: a teaching GPU small and slow enough to watch.
--
-- Not a real product: every number is chosen so that a beginner can follow
-- one kernel warp by warp. Two SMs, each with 4 warp schedulers and 32 FP32
-- lanes (one warp instruction per cycle per SM at best), at most 8 warps
-- (256 threads) per SM, small caches and a slow memory, so that the effects
-- of occupancy, coalescing and caching show up after only a few blocks.
-- Peak FP32: 2 SMs x 32 lanes x 2 FLOP x 1.0 GHz = 128 GFLOP/s.
return {
  name = "edu-tiny",
  vendor_name = "simtlab teaching GPU (2 SMs)",

  -- compute organisation
  sms = 2,
  clock_mhz = 1000,            -- 1 cycle = 1 ns: easy arithmetic
  schedulers_per_sm = 4,       -- like every NVIDIA SM since Maxwell
  fp32_lanes_per_sm = 32,      -- one warp of FMA per cycle per SM
  int_lanes_per_sm = 16,
  sfu_lanes_per_sm = 4,
  lsu_lanes_per_sm = 8,
  sched = "lrr",               -- loose round robin: easy to follow

  -- Tensor Cores (FLOP per clock per SM): FP16 8x the FP32 lanes' 64, like V100
  tc_flops_per_clk_f16 = 512,
  tc_flops_per_clk_bf16 = 512,
  tc_flops_per_clk_tf32 = 256,
  tc_flops_per_clk_fp8 = 1024,
  -- 0: warp-level wmma.mma runs at the full rates above (no separate
  -- warpgroup path on this chip; see the h200 preset)
  tc_sync_flops_per_clk_f16 = 0, tc_sync_flops_per_clk_bf16 = 0,
  tc_sync_flops_per_clk_tf32 = 0, tc_sync_flops_per_clk_fp8 = 0,

  -- occupancy limits: few warps, so they can all be drawn
  max_threads_per_sm = 256,    -- 8 warps
  max_blocks_per_sm = 4,
  max_threads_per_block = 256,
  regs_per_sm = 16384,         -- 64 registers for each of the 256 threads
  max_regs_per_thread = 255,   -- as NVIDIA's (a kernel with more than 64 fits fewer threads)
  reg_alloc_unit = 256,        -- registers per warp are allocated in units of 256
  smem_per_sm = 16384,         -- 16 KB
  smem_per_block = 16384,
  max_grid = {65535, 65535, 65535},
  max_cluster_size = 2,        -- clusters of both SMs, so that lessons can show them
  wgmma = 0,                    -- no warpgroup MMA (wgmma is Hopper's; the async GEMMs need Hopper's shared memory anyway)
  lat_cluster = 100,           -- remote mbarrier arrival / barrier.cluster release (round number)

  -- pipeline latencies in cycles (round numbers, same order as real GPUs)
  lat_alu = 4,
  lat_fma = 4,
  lat_sfu = 16,
  lat_branch = 2,
  lat_tensor = 32,
  lat_smem = 20,
  lat_l1 = 30,
  lat_l2 = 100,
  lat_dram = 300,

  -- memory hierarchy
  smem_banks = 32,             -- 32 banks of 4 bytes, as on NVIDIA GPUs
  l1_bytes = 8192,             -- 8 KB per SM: 64 lines of 128 bytes
  l1_assoc = 4,
  l2_bytes = 131072,           -- 128 KB for the chip
  l2_assoc = 8,
  line_bytes = 128,
  sector_bytes = 32,
  dram_fetch_bytes = 32,        -- a miss fetches just its sector (the simple model lessons teach)
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 64,       -- 64 GB/s at 1 GHz
  dram_gbps = 32,              -- 32 bytes per cycle: one sector per cycle
  dram_channels = 16,           -- 16 channels
  dram_efficiency = 0.92,       -- usable fraction, as the h200 measured before refresh was
                                -- modelled (4,410 of 4,800 GB/s)
  dram_trefi_ns = 0,            -- refresh not modelled on this part (folded into
  dram_refresh_ns = 0,          -- dram_efficiency; CALIBRATION.md "DRAM refresh and loaded latency")
  max_mem_inflight = 16,
  mem_bytes = 256 * 1024 * 1024, -- 256 MB

  -- for comparisons (lesson 15); an imaginary chip
  tdp_watts = 10,
  power_static_w = 0,           -- no power model
  price_per_hour = 0,
  launch_us = 3,
  -- links (node.h; lesson 14), GB/s one direction: a small teaching GPU
  nvlink_gbps = 50,             -- made up, like the rest of edu-tiny: small enough to watch
  pcie_gbps = 16,
  pageable_gbps = 4,
}
