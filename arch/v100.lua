-- v100: NVIDIA Tesla V100 SXM2 32GB (Volta, 2017).
--
-- Sources:
--   [spec] reference/gpu-specs.md (datasheet and driver figures)
--   [wp]   NVIDIA Volta whitepaper / CUDA programming guide, compute
--          capability 7.0 (general knowledge, not in the repository)
--   [h200] values measured on a real H200 (reference/h200-measured.md, see
--          arch/h200.lua), reused or scaled where Volta has no measurement
--          in the repository
--   [paper] Table 3 of "Hardware features of different Nvidia GPU
--           architectures", doi:10.1016/j.ultsonch.2023.106546 (PMC10448217):
--           L2 bandwidth per GPU (a published, derived figure)
-- "estimate" marks a number without a public figure in the repository.
-- Capacities in GB are 10^9 bytes as in [spec]; cache sizes are binary.
--
-- Check: peak FP32 = 80 SMs x 64 lanes x 2 FLOP x 1.53 GHz = 15.67 TFLOP/s,
-- the datasheet's 15.7 TFLOP/s [spec].
-- Tensor Cores (not set here; for the tensor-core fields):
--   FP16 125 TF [spec] / (80 x 1.53 GHz) = 1024 FLOP per clock per SM.
return {
  name = "v100",
  vendor_name = "NVIDIA Tesla V100 SXM2 32GB",

  -- compute organisation
  sms = 80,                     -- [spec] 80 SMs
  clock_mhz = 1530,             -- [spec] boost clock 1,530 MHz
  schedulers_per_sm = 4,        -- [spec] 4 schedulers per SM
  fp32_lanes_per_sm = 64,       -- [spec] 64 FP32 lanes per SM
  int_lanes_per_sm = 64,        -- [wp] 64 INT32 units per SM
  sfu_lanes_per_sm = 16,        -- [wp] 4 SFUs per sub-partition
  lsu_lanes_per_sm = 32,        -- [wp] 8 LD/ST units per sub-partition
  -- Tensor Cores: dense FLOP per clock per SM by input format (FP32 accumulate),
  -- [spec] 125 TF FP16 / (80 SMs x 1.53 GHz); no BF16, TF32 or FP8 (Volta); 0 = no Tensor Core for that format
  tc_flops_per_clk_f16 = 1024,
  tc_flops_per_clk_bf16 = 0,
  tc_flops_per_clk_tf32 = 0,
  tc_flops_per_clk_fp8 = 0,
  -- 0: warp-level wmma.mma runs at the full rates above (no separate
  -- warpgroup path on this chip; see the h200 preset)
  tc_sync_flops_per_clk_f16 = 0, tc_sync_flops_per_clk_bf16 = 0,
  tc_sync_flops_per_clk_tf32 = 0, tc_sync_flops_per_clk_fp8 = 0,
  lat_tensor = 32,              -- estimate: as h200 (mma latency ~30-35 cycles)
  sched = "gto",                -- estimate: policy undocumented (as h200)

  -- occupancy limits
  max_threads_per_sm = 2048,    -- [wp] compute capability 7.0
  max_blocks_per_sm = 32,       -- [wp]
  max_threads_per_block = 1024, -- [wp]
  regs_per_sm = 65536,          -- [spec] 256 KB register file = 65,536 x 32 bit
  max_regs_per_thread = 255,    -- [wp] CUDA programming guide, compute capability table: at most
                                --   255 32-bit registers per thread (every capability since 3.5)
  reg_alloc_unit = 256,         -- [wp] registers allocated per warp in units of 256
  smem_per_sm = 98304,          -- [spec] up to 96 KB shared memory per SM
  smem_per_block = 98304,       -- [wp] 96 KB per block (opt-in)
  max_grid = {2147483647, 65535, 65535}, -- [wp] CUDA grid limits
  max_cluster_size = 1,         -- [wp] no thread-block clusters before compute capability 9.0
  wgmma = 0,                    -- [wp] no warpgroup MMA: wgmma.mma_async needs sm_90 (Hopper)
  lat_cluster = 1,              -- unused (no clusters)

  -- latencies in cycles from issue to result ready. Volta has no
  -- measurement in the repository: estimates, from [h200] scaled by clock
  -- for L2 and DRAM (about the same nanoseconds: 290 and 670 cycles at
  -- 1.98 GHz -> x 1530/1980), with Volta's smaller, faster L1/shared memory.
  lat_alu = 4,                  -- estimate: equal to FMA
  lat_fma = 4,                  -- estimate: 4 cycles, as [h200] measured
  lat_sfu = 16,                 -- estimate: as h200
  lat_branch = 16,              -- estimate: as the H200 calibration (arch/CALIBRATION.md)
  lat_smem = 20,                -- estimate: a little below [h200] 29 (smaller SM)
  lat_l1 = 30,                  -- estimate: a little below [h200] 40
  lat_l2 = 224,                 -- estimate: [h200] 290 x 1530/1980
  lat_dram = 518,               -- estimate: [h200] 670 x 1530/1980

  -- memory hierarchy
  smem_banks = 32,              -- [wp] 32 banks of 4 bytes
  l1_bytes = 32768,             -- [spec] 128 KB L1+shared per SM minus 96 KB shared = 32 KB
  l1_assoc = 4,                 -- estimate
  l2_bytes = 6291456,           -- [spec] 6 MB L2
  l2_assoc = 16,                -- estimate
  line_bytes = 128,             -- [wp] 128-byte lines
  sector_bytes = 32,            -- [wp] 32-byte sectors
  dram_fetch_bytes = 32,        -- 32 B: Volta's L2 fetches the sectors asked for (Jia et al. 2018, arXiv 1804.06826)
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 2048,      -- [paper] 3,133 GB/s at 1,530 MHz: Table 3 of
                                -- doi:10.1016/j.ultsonch.2023.106546
  dram_gbps = 900,              -- [spec] 900 GB/s HBM2
  dram_channels = 16,           -- the model's 16 channels (not this part's real count)
  dram_efficiency = 0.92,       -- usable fraction, as the h200 measured before refresh was
                                -- modelled (4,410 of 4,800 GB/s)
  dram_trefi_ns = 0,            -- refresh not modelled on this part (folded into
  dram_refresh_ns = 0,          -- dram_efficiency; CALIBRATION.md "DRAM refresh and loaded latency")
  max_mem_inflight = 128,       -- estimate, Little's law: 900 GB/s x 518 cycles / 1.53 GHz
                                -- = 305 KB in flight = 3.8 KB per SM = 119 sectors
  mem_bytes = 32000000000,      -- [spec] 32 GB HBM2

  -- for comparisons (lesson 15); not used by the timing model
  tdp_watts = 300,              -- [spec] 300 W
  power_static_w = 0,           -- no power model (energy = tdp_watts x time in comparisons;
                                --   arch/CALIBRATION.md "Power and sustained clocks")
  price_per_hour = 3.06,        -- estimate: not in [spec]; AWS p3.2xlarge on-demand list
                                -- price (one V100), general knowledge
  launch_us = 4,                -- estimate: [h200] 3.2 us, older driver stack
  -- links (node.h; lesson 14), GB/s one direction:
  nvlink_gbps = 150,            -- [spec] NVLink2: 300 GB/s per GPU both ways
  pcie_gbps = 12,               -- estimate: PCIe 3 x16 (16 GB/s raw), ~75% as copies get
  pageable_gbps = 6,            -- estimate
}
