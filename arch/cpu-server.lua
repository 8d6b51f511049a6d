-- cpu-server: AMD EPYC 9554 (Zen 4, 64 cores, 2022), the fair multicore
-- CPU: thread blocks spread over 64 cores, each running 16 threads at once
-- in one AVX-512 instruction.
--
-- Sources:
--   [spec]  reference/gpu-specs.md  EPYC 9554 rows (cores, FMA/clk, clocks,
--           caches, DDR5-4800 x12 = 460.8 GB/s, 360 W)
--   [uarch] AMD Zen 4 optimisation guide / public microbenchmarks
--           (general knowledge, not in the repository)
-- "estimate" marks a number with no source in the repository.
--
-- Check: peak FP32 = 64 cores x 16 FMA/clk x 2 FLOP x 3.75 GHz = 7.68 TFLOP/s
-- ([spec] 7.68 all-core). Here one 16-lane FMA per cycle per core: Zen 4
-- has two 256-bit FMA pipes (8 FP32 lanes each) and runs a 512-bit
-- (16-lane) FMA on both together, so 16 FMA = 32 FLOP per cycle per core,
-- whether the code is AVX2 (2 x 8 lanes) or AVX-512 (1 x 16 lanes). Every
-- FP32 add/mul/fma holds the one FMA port for a cycle (cpu_time.c), so 7.68 TF
-- is the most the model can reach (a pure-FMA loop gets within a few %).
-- Every field is a cpu_desc_t field (sim/core/cpu.h explains the model).
return {
  kind = "cpu",
  name = "cpu-server",
  vendor_name = "AMD EPYC 9554 (Zen 4, 64 cores, AVX-512)",

  cores = 64,                -- [spec] 64 cores
  simd_width = 16,           -- [spec] 16 FP32 FMA/clk/core: AVX-512, 16 lanes per instruction
  clock_mhz = 3750,          -- [spec] 3,750 MHz all-core boost (3,100 base)
  issue_width = 6,           -- [uarch] 6 macro-ops dispatched per cycle
  rob_size = 320,            -- [uarch] 320-entry reorder buffer
  in_order = 0,              -- out of order
  alu_ports = 4,             -- [uarch] 4 integer ALUs
  fma_ports = 1,             -- [uarch] 2 x 256-bit FMA pipes = one 512-bit FMA per cycle
  sfu_ports = 1,
  load_ports = 1,            -- [uarch] 2 x 256-bit loads per cycle = one 512-bit load
  store_ports = 1,           -- [uarch] 1 x 256-bit store per cycle: a 512-bit store holds it
                             -- 2 cycles (cpu_time.c: 32-byte store data path)
  sfu_interval = 6,          -- [uarch] 512-bit divide throughput ~1 per 5-6 cycles
  lat_alu = 1,               -- [uarch]
  lat_fma = 4,               -- [uarch] FMA latency 4 cycles
  lat_sfu = 14,              -- [uarch] vdivps ~11 cycles; estimate for the rest

  line_bytes = 64,           -- [uarch]
  l1_bytes = 32768,          -- [spec] 32 KB L1D per core, 8-way
  l1_assoc = 8,
  lat_l1 = 7,                -- [uarch] 7-8 cycles load-to-use into vector registers
  l2_bytes = 1048576,        -- [spec] 1 MB L2 per core, 8-way
  l2_assoc = 8,
  lat_l2 = 14,               -- [uarch] ~14 cycles
  l3_bytes = 33554432,       -- [spec] 256 MB L3 = 8 x 32 MB, one 32 MB slice per 8-core CCD;
                             -- the model has one 32 MB L3 shared by all cores (cpu.h)
  l3_assoc = 16,
  lat_l3 = 50,               -- [uarch] ~50 cycles
  lat_dram = 450,            -- estimate: ~120 ns DRAM load-to-use
  dram_gbps = 460.8,         -- [spec] DDR5-4800 x 12 channels
  dram_efficiency = 0.8,     -- estimate: STREAM on Genoa reaches ~360-370 GB/s
  dram_channels = 12,        -- [spec] 12 channels

  block_overhead = 100,      -- estimate: starting one work-group loop in a CPU runtime
  launch_us = 2.0,           -- estimate: waking 64 worker threads and joining them
                             -- (OpenMP fork/join on many cores costs ~1-3 us)
  mem_bytes = 274877906944,  -- 256 GB (estimate; addresses are 32-bit anyway)
  max_threads_per_block = 1024, -- same limit as the GPUs, so the same launches work
  smem_per_block = 262144,   -- "shared memory" is an ordinary buffer on a CPU
  max_regs_per_thread = 255, -- no hardware limit: a CPU runtime keeps a work-item's registers in
                             -- memory (spilling); the ISA's 255, as on NVIDIA

  tdp_watts = 360,           -- [spec] 360 W
  price_per_hour = 0,        -- unknown (0)
}
