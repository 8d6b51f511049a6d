-- h200: NVIDIA H200 SXM 141GB (Hopper, 2024).
--
-- Sources (repository files):
--   [spec]  reference/gpu-specs.md     datasheet and driver figures
--   [meas]  reference/h200-measured.md measured on a real H200 (calibration)
--   [wp]    NVIDIA Hopper architecture whitepaper (general knowledge, not in
--           the repository)
--   [paper] Table 3 of "Hardware features of different Nvidia GPU
--           architectures", doi:10.1016/j.ultsonch.2023.106546 (PMC10448217):
--           L2 bandwidth per GPU (a published, derived figure)
-- "estimate" marks a number with no trustworthy public source; change it if
-- you find one and say where it came from.
--
-- Check: peak FP32 = 132 SMs x 128 lanes x 2 FLOP x 1.98 GHz = 66.9 TFLOP/s,
-- the datasheet's 67 TFLOP/s [spec]; measured FMA ceiling 60.3 [meas].
return {
  name = "h200",
  vendor_name = "NVIDIA H200 SXM 141GB",

  -- compute organisation
  sms = 132,                    -- [spec] [meas] driver: 132 SMs
  clock_mhz = 1980,             -- [spec] [meas] boost clock 1,980 MHz
  schedulers_per_sm = 4,        -- [spec] 4 schedulers (sub-partitions) per SM
  fp32_lanes_per_sm = 128,      -- [spec] 128 FP32 lanes per SM
  int_lanes_per_sm = 64,        -- [wp] 64 INT32 units per SM
  sfu_lanes_per_sm = 16,        -- [wp] 16 SFUs per SM (4 per sub-partition)
  lsu_lanes_per_sm = 32,        -- [wp] 32 LD/ST units per SM (8 per sub-partition)
  sched = "gto",                -- estimate: NVIDIA does not document its policy;
                                -- greedy-then-oldest is the usual simulator model

  -- Tensor Cores: dense FLOP per clock per SM (FP32 accumulate). [spec]: 989.4 TF FP16
  -- = 132 SMs x 4096 x 1.83 GHz; NVIDIA quotes tensor figures at 1830 MHz, while this
  -- preset runs at 1980 MHz (the FP32 figure's clock), so simulated tensor peaks are
  -- 1980/1830 = 8.2% above the datasheet: FP16/BF16 1070, TF32 535, FP8 2141 TF.
  tc_flops_per_clk_f16 = 4096,  -- [spec] 989.4 TF / (132 x 1.83 GHz)
  tc_flops_per_clk_bf16 = 4096, -- [spec] 989.4 TF
  tc_flops_per_clk_tf32 = 2048, -- [spec] 494.7 TF
  tc_flops_per_clk_fp8 = 8192,  -- [spec] 1978.9 TF (E4M3 and E5M2)
  -- The rate warp-level wmma.mma (CUDA's mma.sync) really gets: on Hopper the
  -- datasheet rate needs the asynchronous warpgroup instruction wgmma, which
  -- our ISA does not have; mma.sync saturates at ~63% of it (FP16 621-626 TF,
  -- BF16 595, TF32 229). Fitted, see arch/CALIBRATION.md "Tensor Cores".
  tc_sync_flops_per_clk_f16 = 2400,  -- [meas] reference/h200-measured.md: FP16 621-626 TF
  tc_sync_flops_per_clk_bf16 = 2400, -- [meas] reference/h200-measured.md: BF16 595 TF (FP16's rate within 3%)
  tc_sync_flops_per_clk_tf32 = 880,  -- [meas] reference/h200-measured.md: TF32 229 TF
  tc_sync_flops_per_clk_fp8 = 4800,  -- estimate: twice FP16's, like the datasheet (not measured)

  -- occupancy limits
  max_threads_per_sm = 2048,    -- [meas] driver: 2,048 threads per SM
  max_blocks_per_sm = 32,       -- [wp] 32 resident blocks per SM (compute capability 9.0)
  max_threads_per_block = 1024, -- [wp] 1,024 threads per block
  regs_per_sm = 65536,          -- [meas] driver: 65,536 registers (= 256 KB [spec])
  max_regs_per_thread = 255,    -- [wp] CUDA programming guide, compute capability table: at most
                                --   255 32-bit registers per thread (every capability since 3.5)
  reg_alloc_unit = 256,         -- [wp] registers are allocated per warp in units of 256
  smem_per_sm = 233472,         -- [spec] [meas] 228 KB shared memory per SM
  smem_per_block = 232448,      -- [wp] 227 KB per block (228 KB minus 1 KB reserved)
  max_grid = {2147483647, 65535, 65535}, -- [wp] CUDA grid limits
  max_cluster_size = 8,         -- [wp] CUDA C++ Programming Guide, "Thread Block Clusters": 8 blocks
                                --   is the portable cluster size on compute capability 9.0
  lat_cluster = 180,            -- estimate: SM-to-SM (distributed shared memory) latency ~180 cycles
                                --   reported by Luo et al., arXiv 2402.13499 (H800); not measured here
  wgmma = 1,                    -- [wp] PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
                                --   wgmma.mma_async requires sm_90 (Hopper)

  -- latencies in cycles from issue to result ready (load-to-use)
  lat_alu = 4,                  -- estimate: integer ALU taken equal to FMA
  lat_fma = 4,                  -- [meas] dependent FP32 FMA 4.4 cycles incl. loop overhead
  lat_sfu = 16,                 -- estimate: typical SFU latency (not measured)
  lat_tensor = 32,              -- estimate: mma.sync latency ~30-35 cycles in public
                                -- Ampere/Hopper microbenchmark papers (not measured here)
  lat_branch = 16,              -- estimate; calibrated: see arch/CALIBRATION.md
                                -- (cycles a warp waits after a branch: fitted to the
                                -- 8-chain FMA curve at 1-4 warps per SM [meas])
  lat_smem = 29,                -- [meas] shared-memory pointer chase 29 cycles
  lat_l1 = 40,                  -- [meas] global load L1 hit 40-46 cycles
  lat_l2 = 286,                 -- [meas] L2 hit, near partition 287 cycles; calibrated: see
                                -- arch/CALIBRATION.md (the slice transfer adds 1 cycle)
                                -- (spread over both partitions: 500-530)
  lat_dram = 662,               -- [meas] DRAM 672 cycles (1 GiB footprint), less the ~8 cycles
                                -- the chase waits for refreshing channels on average (CALIBRATION.md)

  -- memory hierarchy
  smem_banks = 32,              -- [meas] 32 banks of 4 bytes (stride-33 padding removes conflicts)
  l1_bytes = 65536,             -- estimate: L1 and shared memory share 256 KB per SM [spec];
                                -- the L1 share depends on the carve-out. [meas] saw L1 hits
                                -- up to a 64 KB footprint, so 64 KB here.
  l1_assoc = 4,                 -- estimate
  l2_bytes = 62914560,          -- [spec] [meas] driver: 62,914,560 bytes (60 MB)
  l2_assoc = 16,                -- estimate
  line_bytes = 128,             -- [wp] 128-byte cache lines
  sector_bytes = 32,            -- [wp] 32-byte sectors
  dram_fetch_bytes = 64,        -- an L2 miss fetches the aligned 64 B (2 sectors) from DRAM on
                                -- Ampere and Hopper (issue 15; CUDA's cudaLimitMaxL2FetchGranularity
                                -- hint, 0-128 B); arch/CALIBRATION.md "Strided reads"
  l2_partitions = 1,            -- one L2 partition modelled (arch/CALIBRATION.md "Near/far L2 partitions")
  lat_l2_far = 0,               -- unused with one partition
  l2_bytes_per_clk = 5120,      -- [paper] GH100 L2 8,986 GB/s at 1,755 MHz = 5,120 B/clk:
                                -- Table 3 of doi:10.1016/j.ultsonch.2023.106546 (PMC10448217);
                                -- a derived figure, not in our measurements (10.1 TB/s at
                                -- 1.98 GHz). Was an estimate of 3,072 (CALIBRATION.md)
  dram_gbps = 4800,             -- [spec] 4,800 GB/s HBM3e (measured streaming read: 4,410 [meas])
  dram_channels = 192,          -- [spec] pseudo-channels: 6 HBM3e stacks x 16 channels x 2
                                -- (JESD238), 25 GB/s each (32 bits x 6.25 Gb/s)
  dram_efficiency = 1.0,        -- the 8% the streaming read loses is refresh, modelled below
  dram_trefi_ns = 3900,         -- [spec] tREFI 3.9 us (JESD238 HBM3)
  dram_refresh_ns = 235,        -- fitted: the streaming ceiling (4,410 of 4,800 GB/s) sets the
                                -- share of time refresh blocks a channel; arch/CALIBRATION.md
                                -- "DRAM refresh and loaded latency"
  max_mem_inflight = 256,       -- estimate from Little's law with [meas]: 4,410 GB/s x
                                -- 672 cycles / 1.98 GHz = 1.5 MB in flight = 11 KB per SM,
                                -- about 350 sectors of 32 bytes
  mem_bytes = 141000000000,     -- [spec] 141 GB HBM3e

  -- tdp_watts: the power model's limit (below) and, with price and launch cost, for
  -- comparisons (lesson 15); the other two are not used by the timing model
  tdp_watts = 700,              -- [spec] 700 W
  -- power model (sim/core/power.h; sources, fit and checks: arch/CALIBRATION.md
  -- "Power and sustained clocks"). Dynamic energy in pJ at the boost voltage per
  -- counted event; a launch that would draw more than tdp_watts at clock_mhz runs
  -- at the lower clock (DVFS) where it draws tdp_watts: a dense Tensor Core GEMM
  -- at ~1.57 GHz (Hopper reports under GEMM load: 1.5-1.575 GHz, DeepGEMM issue
  -- #120, TileOPs PR #1588), FP32 and memory-bound kernels at 1.98 GHz.
  power_static_w = 100,         -- estimate: leakage + idle draw of board, HBM, I/O
  power_pj_instr = 50,          -- estimate: fetch/decode/schedule/operands per warp instruction
  power_pj_fp32 = 10,           -- estimate: FP32 FMA + 3 register reads + 1 write per lane
                                --   (Horowitz ISSCC 2014 at 45 nm: FP32 mul 3.7 + add 0.9 pJ,
                                --   8 KB SRAM ~10 pJ per 64 bits); an FMA-saturated chip then
                                --   draws 453 W < 700 W: the FMA calibration keeps 1.98 GHz
  power_pj_int = 5,             -- estimate: integer op + register traffic per lane
  power_pj_sfu = 20,            -- estimate: SFU op per lane
  power_pj_tc_f16 = 0.82,       -- fitted (the one fitted number): FP16 library GEMM 737 TF [meas]
                                --   with tc_gemm_cluster_f16 at n = 4096
  power_pj_tc_bf16 = 0.82,      -- rule: = FP16 (the same datapath at the same rate)
  power_pj_tc_tf32 = 1.64,      -- rule: same power per cycle in every format = FP16 x 4096 / 2048
  power_pj_tc_fp8 = 0.41,       -- rule: FP16 x 4096 / 8192
  power_pj_byte_l1 = 1.0,       -- estimate: 256-bit 8 KB SRAM access 50 pJ at 28 nm (figures in
                                --   Table 7 of doi:10.1186/s12859-018-2389-6) scaled to 4 nm
  power_pj_byte_l2 = 5.0,       -- estimate: L2 SRAM + ~10-20 mm of wire (0.2 pJ/bit/mm at 28 nm, ibid.)
  power_pj_byte_dram = 32,      -- 4 pJ/bit: HBM2 ~4 pJ/bit (O'Connor et al., MICRO 2017); HBM3e taken equal
  power_volt_slope = 0.5,       -- estimate: 10% less clock needs ~5% less voltage (V-f curve unpublished)
  power_mhz_min = 990,          -- estimate: the lowest clock the model may set (half of boost)
  price_per_hour = 4.5,         -- [spec] on-demand list price ~$4-5.6 per GPU-hour,
                                -- volatile list price 2026
  launch_us = 3.2,              -- [meas] back-to-back empty kernel launches: 3.2 us each
  -- links (node.h; lesson 14), GB/s one direction:
  nvlink_gbps = 450,            -- [spec] NVLink4: 900 GB/s per GPU both ways (18 links x 50)
  pcie_gbps = 55.5,             -- [meas] host -> device copy, pinned, 1 GiB (PCIe 5 x16)
  pageable_gbps = 8,            -- [meas] host -> device copy, pageable: 7-9 GB/s
}
