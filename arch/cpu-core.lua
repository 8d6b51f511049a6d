-- cpu-core: one CPU core running a kernel's threads one after another,
-- scalar (no SIMD): the classroom "one painter". Modelled on one core of
-- the Xeon (Sapphire Rapids class, Golden Cove cores) that the reference
-- measurements were taken on.
--
-- Sources:
--   [meas]  reference/h200-measured.md  "One sequential CPU core and the host CPU"
--   [uarch] Intel optimisation manual / public microbenchmarks of Golden Cove
--           (general knowledge, not in the repository)
-- "estimate" marks a number with no source in the repository.
--
-- Calibration: the naive matmul kernel (lessons/kernels/matmul_naive.s)
-- runs at ~1.4-1.5 GFLOP/s on this preset ([meas]: naive triple loop on one
-- core, FP32, n = 512: 1.48 GFLOP/s). The loop is bound by the chain of
-- dependent FMAs into the accumulator (lat_fma cycles per iteration), so
-- GFLOP/s = 2 x clock / lat_fma: the clock below is the one that matches.
-- Every field is a cpu_desc_t field (sim/core/cpu.h explains the model).
return {
  kind = "cpu",
  name = "cpu-core",
  vendor_name = "one Xeon core (Sapphire Rapids class), scalar",

  cores = 1,                 -- one painter
  simd_width = 1,            -- scalar: one thread at a time
  clock_mhz = 3000,          -- estimate, calibrated to [meas] 1.48 GFLOP/s (see above);
                             -- Sapphire Rapids all-core turbo is ~3.0 GHz
  issue_width = 6,           -- [uarch] Golden Cove: 6-wide rename/allocate
  rob_size = 512,            -- [uarch] 512-entry reorder buffer
  in_order = 0,              -- real server cores execute out of order
  alu_ports = 5,             -- [uarch] 5 integer ALU ports
  fma_ports = 2,             -- [uarch] 2 FMA ports
  sfu_ports = 1,             -- divide / square root unit
  load_ports = 3,            -- [uarch] 3 loads per cycle
  store_ports = 2,           -- [uarch] 2 stores per cycle
  sfu_interval = 4,          -- [uarch] divss/sqrtss throughput ~1 per 3-6 cycles
  lat_alu = 1,               -- [uarch]
  lat_fma = 4,               -- [uarch] FMA latency 4 cycles
  lat_sfu = 14,              -- [uarch] divss ~11, sqrtss ~12, transcendental calls more: estimate

  line_bytes = 64,           -- [uarch] 64-byte lines
  l1_bytes = 49152,          -- [uarch] 48 KB L1D, 12-way
  l1_assoc = 12,
  lat_l1 = 5,                -- [uarch] 5 cycles load-to-use
  l2_bytes = 2097152,        -- [uarch] 2 MB L2 per core, 16-way
  l2_assoc = 16,
  lat_l2 = 16,               -- [uarch] ~15-16 cycles
  l3_bytes = 31457280,       -- 16 cores [meas] x 1.875 MB [uarch] = 30 MB shared L3
  l3_assoc = 15,
  lat_l3 = 100,              -- estimate: ~33 ns mesh L3 latency on Sapphire Rapids
  lat_dram = 400,            -- estimate: ~130 ns DRAM load-to-use
  dram_gbps = 30,            -- estimate: what ONE core can pull from DRAM (its misses in
                             -- flight / latency), not the socket's ~300 GB/s
  dram_efficiency = 1.0,     -- dram_gbps above is already an achieved figure
  dram_channels = 1,         -- one core sees one stream of 30 GB/s (the socket has 8 DDR5 channels)

  block_overhead = 50,       -- estimate: starting one work-group loop in a CPU runtime
  launch_us = 0.0,           -- a plain function call: no device, no launch
  mem_bytes = 274877906944,  -- 256 GB host memory (estimate; addresses are 32-bit anyway)
  max_threads_per_block = 1024, -- same limit as the GPUs, so the same launches work
  smem_per_block = 262144,   -- "shared memory" is an ordinary buffer on a CPU
  max_regs_per_thread = 255, -- no hardware limit: a CPU runtime keeps a work-item's registers in
                             -- memory (spilling); the ISA's 255, as on NVIDIA

  tdp_watts = 12,            -- estimate: one core's share of a ~200 W 16-core socket
  price_per_hour = 0,        -- unknown (0)
}
