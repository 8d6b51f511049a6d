-- mi300x: AMD Instinct MI300X 192GB (CDNA 3, 2023).
--
-- An AMD GPU in NVIDIA's clothes. simtlab's model is NVIDIA-shaped; the
-- mapping and its simplifications:
--   * a Compute Unit (CU) is an "SM": 304 CUs, 4 SIMD16 units each (-> 4
--     schedulers);
--   * AMD runs wavefronts of 64 threads, simtlab warps of 32: a kernel here
--     behaves as if compiled for wave32 (occupancy counts threads, so the
--     thread limits below are AMD's);
--   * the LDS (64 KB per CU) is the shared memory;
--   * the 256 MB Infinity Cache (a memory-side cache behind the L2) is not
--     modelled: DRAM-bound kernels will look slower than on the real chip.
--
-- Peak FP32: the datasheet gives 163.4 TF "packed" and 81.7 TF non-packed
-- [spec]. Packed FP32 (v_pk_fma_f32) does two independent FMAs in one
-- instruction per lane; simtlab's ISA has no packed FP32 instruction, so a
-- kernel's fma.f32 runs at the non-packed rate. This preset uses 64 lanes:
--   304 CUs x 64 lanes x 2 FLOP x 2.1 GHz = 81.7 TFLOP/s [spec, non-packed].
-- (128 lanes would give 163.4 TF, a rate no simtlab kernel could use.)
-- Matrix cores (not set here; for the tensor-core fields), per clock per CU:
--   FP16/BF16 1307.4 TF [spec] / (304 x 2.1 GHz) = 2048, TF32 653.7 TF = 1024,
--   FP8 2614.9 TF = 4096.
--
-- Sources:
--   [spec] reference/gpu-specs.md (datasheet figures)
--   [wp]   AMD CDNA 3 white paper / ROCm documentation (general knowledge,
--          not in the repository)
--   [h200] arch/h200.lua (measured on a real H200), used to scale estimates
-- "estimate" marks a number without a public figure in the repository: the
-- latencies are all estimates (no MI300X measurement in the repository).
-- Capacities in GB are 10^9 bytes as in [spec]; cache sizes are binary.
return {
  name = "mi300x",
  vendor_name = "AMD Instinct MI300X 192GB",

  -- compute organisation
  sms = 304,                    -- [spec] 304 CUs
  clock_mhz = 2100,             -- [spec] peak engine clock 2,100 MHz
  schedulers_per_sm = 4,        -- [spec] 4 SIMD16 units per CU
  fp32_lanes_per_sm = 64,       -- [spec] 64 FP32 lanes per CU, non-packed (see above)
  int_lanes_per_sm = 64,        -- [wp] the SIMDs do INT32 at the FP32 rate
  sfu_lanes_per_sm = 16,        -- estimate: transcendentals at a quarter rate
  lsu_lanes_per_sm = 16,        -- estimate: 16 addresses per clock (64 B/clk L1 per CU)
  -- Tensor Cores: dense FLOP per clock per SM by input format (FP32 accumulate),
  -- [spec] 1307.4 TF FP16/BF16, 653.7 TF TF32, 2614.9 TF FP8 / (304 CUs x 2.1 GHz); 0 = no Tensor Core for that format
  tc_flops_per_clk_f16 = 2048,
  tc_flops_per_clk_bf16 = 2048,
  tc_flops_per_clk_tf32 = 1024,
  tc_flops_per_clk_fp8 = 4096,
  -- 0: warp-level wmma.mma runs at the full rates above (no separate
  -- warpgroup path on this chip; see the h200 preset)
  tc_sync_flops_per_clk_f16 = 0, tc_sync_flops_per_clk_bf16 = 0,
  tc_sync_flops_per_clk_tf32 = 0, tc_sync_flops_per_clk_fp8 = 0,
  lat_tensor = 32,              -- estimate: as h200 (mma latency ~30-35 cycles)
  sched = "lrr",                -- estimate: AMD documents round-robin wave issue per SIMD

  -- occupancy limits
  max_threads_per_sm = 2048,    -- [wp] 8 waves of 64 per SIMD x 4 SIMDs
  max_blocks_per_sm = 32,       -- estimate: ROCm allows up to 32 workgroups per CU
  max_threads_per_block = 1024, -- [wp] HIP: 1,024 work-items per workgroup
  regs_per_sm = 131072,         -- [spec] 512 KB vector registers per CU = 131,072 x 32 bit
  max_regs_per_thread = 255,    -- [wp] ROCm documentation (CDNA 3): up to 512 VGPRs per lane of a wave
                                --   (256 architectural + 256 accumulation); the simulator's ISA
                                --   has 255 (%r0..%r254), so 255 is the limit here
  reg_alloc_unit = 512,         -- estimate: VGPRs allocated in blocks of 8 per lane (x 64)
  smem_per_sm = 65536,          -- [spec] 64 KB LDS per CU
  smem_per_block = 65536,       -- [wp] a workgroup may use the whole LDS
  max_grid = {2147483647, 65535, 65535}, -- estimate: HIP grid limits (as CUDA)
  max_cluster_size = 1,         -- no clusters: CDNA3 has no co-scheduled workgroup groups like Hopper's
  wgmma = 0,                    -- no wgmma: that is NVIDIA PTX for sm_90 (CDNA 3 has its own MFMA instructions)
  lat_cluster = 1,              -- unused (no clusters)

  -- latencies in cycles: estimates (no measurement in the repository).
  -- AMD's LDS and vector L1 are slower than NVIDIA's (public
  -- microbenchmarks put the L1 near 120 cycles); L2 and HBM from [h200]
  -- scaled by clock (x 2100/1980) plus the longer trip across chiplets.
  lat_alu = 4,                  -- estimate: 4-cycle issue of a wave on a SIMD16
  lat_fma = 4,                  -- estimate
  lat_sfu = 16,                 -- estimate
  lat_branch = 8,               -- estimate: scalar-unit branch
  lat_smem = 64,                -- estimate: LDS
  lat_l1 = 120,                 -- estimate: vector L1
  lat_l2 = 330,                 -- estimate: [h200] 290 x 2100/1980 + chiplet hop
  lat_dram = 850,               -- estimate: [h200] 670 x 2100/1980 + Infinity Fabric

  -- memory hierarchy
  smem_banks = 32,              -- [wp] 32 LDS banks of 4 bytes
  l1_bytes = 32768,             -- [wp] 32 KB vector L1 per CU
  l1_assoc = 4,                 -- estimate
  l2_bytes = 33554432,          -- [spec] 32 MB L2 (4 MB per XCD x 8)
  l2_assoc = 16,                -- [wp] 16-way
  line_bytes = 128,             -- [wp] 128-byte L2 lines
  sector_bytes = 32,            -- estimate: 32-byte requests, as NVIDIA
  dram_fetch_bytes = 32,        -- estimate: one request per sector
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 16384,     -- [wp] 2 KB per clock per XCD x 8 XCDs
  dram_gbps = 5300,             -- [spec] 5,300 GB/s HBM3
  dram_channels = 16,           -- the model's 16 channels (not this part's real count)
  dram_efficiency = 0.92,       -- usable fraction, as the h200 measured before refresh was
                                -- modelled (4,410 of 4,800 GB/s)
  dram_trefi_ns = 0,            -- refresh not modelled on this part (folded into
  dram_refresh_ns = 0,          -- dram_efficiency; CALIBRATION.md "DRAM refresh and loaded latency")
  max_mem_inflight = 192,       -- estimate, Little's law: 5,300 GB/s x 850 / 2.1 GHz =
                                -- 2.1 MB in flight = 7 KB per CU = 220 sectors
  mem_bytes = 192000000000,     -- [spec] 192 GB HBM3

  -- for comparisons (lesson 15); not used by the timing model
  tdp_watts = 750,              -- [spec] 750 W
  power_static_w = 0,           -- no power model (energy = tdp_watts x time in comparisons;
                                --   arch/CALIBRATION.md "Power and sustained clocks")
  price_per_hour = 1.8,         -- [spec] ~$1.7-1.9 per GPU-hour (volatile, 2026)
  launch_us = 5,                -- estimate: ROCm launches a little slower than CUDA
  -- links (node.h; lesson 14), GB/s one direction:
  nvlink_gbps = 448,            -- [spec] Infinity Fabric ~896 GB/s per GPU both ways (7 links),
                                -- used as the "nvlink" of this GPU (a full mesh, not a switch)
  pcie_gbps = 55.5,             -- estimate: PCIe 5 x16 as the H200's measured copy
  pageable_gbps = 8,            -- estimate
}
