-- l4: NVIDIA L4 24GB (Ada Lovelace, 2023), a 72 W inference card.
--
-- Sources:
--   [spec] reference/gpu-specs.md (datasheet and driver figures)
--   [wp]   NVIDIA Ada (AD104) whitepaper / CUDA programming guide, compute
--          capability 8.9 (general knowledge, not in the repository)
--   [h200] values measured on a real H200 (reference/h200-measured.md, see
--          arch/h200.lua), reused or scaled where Ada has no measurement in
--          the repository
-- "estimate" marks a number without a public figure in the repository.
-- Capacities in GB are 10^9 bytes as in [spec]; cache sizes are binary.
--
-- Check: peak FP32 = 58 SMs x 128 lanes x 2 FLOP x 2.04 GHz = 30.29 TFLOP/s,
-- the datasheet's 30.3 TFLOP/s [spec]. (Inside 72 W the L4 seldom holds its
-- boost clock; the model runs at boost.)
-- Tensor Cores (not set here; for the tensor-core fields), per clock per SM:
--   FP16/BF16 121 TF [spec] / (58 x 2.04 GHz) = 1024, TF32 60 TF = 512 (507),
--   FP8 242.5 TF = 2048.
return {
  name = "l4",
  vendor_name = "NVIDIA L4 24GB",

  -- compute organisation
  sms = 58,                     -- [spec] 58 SMs
  clock_mhz = 2040,             -- [spec] boost clock 2,040 MHz
  schedulers_per_sm = 4,        -- [spec] 4 schedulers per SM
  fp32_lanes_per_sm = 128,      -- [spec] 128 FP32 lanes per SM
  int_lanes_per_sm = 64,        -- [wp] half of the lanes also do INT32
  sfu_lanes_per_sm = 16,        -- [wp] 4 SFUs per sub-partition
  lsu_lanes_per_sm = 16,        -- [wp] 4 LD/ST units per sub-partition
  -- Tensor Cores: dense FLOP per clock per SM by input format (FP32 accumulate),
  -- [spec] 121 TF FP16/BF16, 60 TF TF32, 242.5 TF FP8 / (58 SMs x 2.04 GHz); 0 = no Tensor Core for that format
  tc_flops_per_clk_f16 = 1024,
  tc_flops_per_clk_bf16 = 1024,
  tc_flops_per_clk_tf32 = 512,
  tc_flops_per_clk_fp8 = 2048,
  -- 0: warp-level wmma.mma runs at the full rates above (no separate
  -- warpgroup path on this chip; see the h200 preset)
  tc_sync_flops_per_clk_f16 = 0, tc_sync_flops_per_clk_bf16 = 0,
  tc_sync_flops_per_clk_tf32 = 0, tc_sync_flops_per_clk_fp8 = 0,
  lat_tensor = 32,              -- estimate: as h200 (mma latency ~30-35 cycles)
  sched = "gto",                -- estimate: policy undocumented (as h200)

  -- occupancy limits
  max_threads_per_sm = 1536,    -- [wp] compute capability 8.9: 48 warps per SM
  max_blocks_per_sm = 24,       -- [wp]
  max_threads_per_block = 1024, -- [wp]
  regs_per_sm = 65536,          -- [spec] 256 KB register file
  max_regs_per_thread = 255,    -- [wp] CUDA programming guide, compute capability table: at most
                                --   255 32-bit registers per thread (every capability since 3.5)
  reg_alloc_unit = 256,         -- [wp]
  smem_per_sm = 102400,         -- [spec] up to 100 KB shared memory per SM
  smem_per_block = 101376,      -- [wp] 99 KB per block
  max_grid = {2147483647, 65535, 65535}, -- [wp] CUDA grid limits
  max_cluster_size = 1,         -- [wp] no thread-block clusters before compute capability 9.0 (L4 is 8.9)
  wgmma = 0,                    -- [wp] no warpgroup MMA: wgmma.mma_async needs sm_90 (Hopper)
  lat_cluster = 1,              -- unused (no clusters)

  -- latencies in cycles: no Ada measurement in the repository; estimates
  -- from [h200] scaled by clock for L2 and DRAM (x 2040/1980), DRAM +10% for
  -- GDDR6 (estimate).
  lat_alu = 4,                  -- estimate: equal to FMA
  lat_fma = 4,                  -- estimate: 4 cycles, as [h200] measured
  lat_sfu = 16,                 -- estimate: as h200
  lat_branch = 16,              -- estimate: as the H200 calibration (arch/CALIBRATION.md)
  lat_smem = 23,                -- estimate: a little below [h200] 29
  lat_l1 = 34,                  -- estimate: a little below [h200] 40
  lat_l2 = 299,                 -- estimate: [h200] 290 x 2040/1980
  lat_dram = 759,               -- estimate: [h200] 670 x 2040/1980 x 1.1 (GDDR6)

  -- memory hierarchy
  smem_banks = 32,              -- [wp] 32 banks of 4 bytes
  l1_bytes = 28672,             -- [spec] 128 KB L1+shared per SM minus 100 KB shared = 28 KB
  l1_assoc = 4,                 -- estimate
  l2_bytes = 50331648,          -- [spec] 48 MB L2
  l2_assoc = 16,                -- estimate
  line_bytes = 128,             -- [wp]
  sector_bytes = 32,            -- [wp]
  dram_fetch_bytes = 32,        -- estimate: sector fetches (Ada not sourced; see CALIBRATION.md)
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 1024,      -- estimate: ~2 TB/s at 2.04 GHz (large L2, narrow DRAM)
  dram_gbps = 300,              -- [spec] 300 GB/s GDDR6
  dram_channels = 16,           -- the model's 16 channels (not this part's real count)
  dram_efficiency = 0.92,       -- usable fraction, as the h200 measured before refresh was
                                -- modelled (4,410 of 4,800 GB/s)
  dram_trefi_ns = 0,            -- refresh not modelled on this part (folded into
  dram_refresh_ns = 0,          -- dram_efficiency; CALIBRATION.md "DRAM refresh and loaded latency")
  max_mem_inflight = 64,        -- estimate, Little's law: 300 GB/s x 759 / 2.04 GHz =
                                -- 112 KB in flight = 1.9 KB per SM = 60 sectors
  mem_bytes = 24000000000,      -- [spec] 24 GB GDDR6

  -- for comparisons (lesson 15); not used by the timing model
  tdp_watts = 72,               -- [spec] 72 W
  power_static_w = 0,           -- no power model (energy = tdp_watts x time in comparisons;
                                --   arch/CALIBRATION.md "Power and sustained clocks")
  price_per_hour = 0.8,         -- [spec] ~$0.80 per GPU-hour (volatile, 2026)
  launch_us = 3.2,              -- estimate: as [h200]
  -- links (node.h; lesson 14), GB/s one direction: no NVLink, PCIe 4 x16
  nvlink_gbps = 0,              -- [spec] PCIe4 only
  pcie_gbps = 26,               -- estimate: half of the H200's measured 55.5 on PCIe 5
  pageable_gbps = 8,            -- estimate: as the H200's measured 7-9 GB/s
}
