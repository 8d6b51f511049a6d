-- t4: NVIDIA T4 16GB (Turing, 2018), a 70 W inference card.
--
-- Sources:
--   [spec] reference/gpu-specs.md (datasheet and driver figures)
--   [wp]   NVIDIA Turing whitepaper / CUDA programming guide, compute
--          capability 7.5 (general knowledge, not in the repository)
--   [h200] values measured on a real H200 (reference/h200-measured.md, see
--          arch/h200.lua), reused or scaled where Turing has no measurement
--          in the repository
-- "estimate" marks a number without a public figure in the repository.
-- Capacities in GB are 10^9 bytes as in [spec]; cache sizes are binary.
--
-- Check: peak FP32 = 40 SMs x 64 lanes x 2 FLOP x 1.59 GHz = 8.14 TFLOP/s,
-- the datasheet's 8.1 TFLOP/s [spec] (0.5% apart). The T4 rarely holds its
-- boost clock inside 70 W; the model runs at boost.
-- Tensor Cores (not set here; for the tensor-core fields):
--   FP16 65 TF [spec] / (40 x 1.59 GHz) = 1024 FLOP per clock per SM.
return {
  name = "t4",
  vendor_name = "NVIDIA T4 16GB",

  -- compute organisation
  sms = 40,                     -- [spec] 40 SMs
  clock_mhz = 1590,             -- [spec] boost clock 1,590 MHz
  schedulers_per_sm = 4,        -- [spec] 4 schedulers per SM
  fp32_lanes_per_sm = 64,       -- [spec] 64 FP32 lanes per SM
  int_lanes_per_sm = 64,        -- [wp] 64 INT32 units per SM
  sfu_lanes_per_sm = 16,        -- [wp] 4 SFUs per sub-partition
  lsu_lanes_per_sm = 16,        -- [wp] 4 LD/ST units per sub-partition
  -- Tensor Cores: dense FLOP per clock per SM by input format (FP32 accumulate),
  -- [spec] 65 TF FP16 / (40 SMs x 1.59 GHz); no BF16, TF32 or FP8 (Turing; INT8 not modelled); 0 = no Tensor Core for that format
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
  max_threads_per_sm = 1024,    -- [wp] compute capability 7.5: 32 warps per SM
  max_blocks_per_sm = 16,       -- [wp]
  max_threads_per_block = 1024, -- [wp]
  regs_per_sm = 65536,          -- [spec] 256 KB register file
  max_regs_per_thread = 255,    -- [wp] CUDA programming guide, compute capability table: at most
                                --   255 32-bit registers per thread (every capability since 3.5)
  reg_alloc_unit = 256,         -- [wp]
  smem_per_sm = 65536,          -- [spec] up to 64 KB shared memory per SM
  smem_per_block = 65536,       -- [wp] 64 KB per block (opt-in)
  max_grid = {2147483647, 65535, 65535}, -- [wp] CUDA grid limits
  max_cluster_size = 1,         -- [wp] no thread-block clusters before compute capability 9.0
  wgmma = 0,                    -- [wp] no warpgroup MMA: wgmma.mma_async needs sm_90 (Hopper)
  lat_cluster = 1,              -- unused (no clusters)

  -- latencies in cycles: no Turing measurement in the repository;
  -- estimates from [h200] scaled by clock for L2 and DRAM (x 1590/1980), and
  -- a longer DRAM wait for GDDR6 than HBM (+10%, estimate).
  lat_alu = 4,                  -- estimate: equal to FMA
  lat_fma = 4,                  -- estimate: 4 cycles, as [h200] measured
  lat_sfu = 16,                 -- estimate: as h200
  lat_branch = 16,              -- estimate: as the H200 calibration (arch/CALIBRATION.md)
  lat_smem = 20,                -- estimate: a little below [h200] 29
  lat_l1 = 32,                  -- estimate: a little below [h200] 40
  lat_l2 = 233,                 -- estimate: [h200] 290 x 1590/1980
  lat_dram = 592,               -- estimate: [h200] 670 x 1590/1980 x 1.1 (GDDR6)

  -- memory hierarchy
  smem_banks = 32,              -- [wp] 32 banks of 4 bytes
  l1_bytes = 32768,             -- [spec] 96 KB L1+shared per SM minus 64 KB shared = 32 KB
  l1_assoc = 4,                 -- estimate
  l2_bytes = 4194304,           -- [spec] 4 MB L2
  l2_assoc = 16,                -- estimate
  line_bytes = 128,             -- [wp]
  sector_bytes = 32,            -- [wp]
  dram_fetch_bytes = 32,        -- 32 B: sector fetches, as Volta (Jia et al. 2019, arXiv 1903.07486, Turing)
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 512,       -- estimate: about 2.5 x DRAM bandwidth
  dram_gbps = 320,              -- [spec] 320 GB/s GDDR6
  dram_channels = 16,           -- the model's 16 channels (not this part's real count)
  dram_efficiency = 0.92,       -- usable fraction, as the h200 measured before refresh was
                                -- modelled (4,410 of 4,800 GB/s)
  dram_trefi_ns = 0,            -- refresh not modelled on this part (folded into
  dram_refresh_ns = 0,          -- dram_efficiency; CALIBRATION.md "DRAM refresh and loaded latency")
  max_mem_inflight = 64,        -- estimate, Little's law: 320 GB/s x 592 / 1.59 GHz =
                                -- 119 KB in flight = 3 KB per SM = 93 sectors
  mem_bytes = 16000000000,      -- [spec] 16 GB GDDR6

  -- for comparisons (lesson 15); not used by the timing model
  tdp_watts = 70,               -- [spec] 70 W
  power_static_w = 0,           -- no power model (energy = tdp_watts x time in comparisons;
                                --   arch/CALIBRATION.md "Power and sustained clocks")
  price_per_hour = 0.59,        -- [spec] ~$0.59 per GPU-hour (volatile, 2026)
  launch_us = 4,                -- estimate: [h200] 3.2 us, older card, PCIe3
  -- links (node.h; lesson 14), GB/s one direction: no NVLink, PCIe 3 x16
  nvlink_gbps = 0,              -- [spec] PCIe3 only
  pcie_gbps = 12,               -- estimate: PCIe 3 x16 (16 GB/s raw), ~75% as copies get
  pageable_gbps = 6,            -- estimate
}
