#!/usr/bin/env bash
# Simulator speed benchmark: simulated warp instructions and cycles per
# second of host CPU time (median of 3 runs), slowdown versus the real chip,
# and peak resident memory per case. A benchmark, not a test: this machine
# is shared and noisy; compare ratios and medians between runs.
# Case tc512 (tc1024: several minutes, for its FP32 baseline) prints Tensor
# Core matmul TFLOP/s per format and the speed-up over FP32 on h200.
# Cases tcasync512 / 1024 / 2048 / 4096 print the asynchronous Tensor Core
# GEMMs (tc_gemm_async: bulk copies + wgmma; tc_gemm_cluster: the same in
# thread-block clusters that multicast shared tiles) per format: TFLOP/s, % of
# peak and datasheet, ratio to the library GEMM, the L2-bandwidth ceiling, and
# the speed-up over tc_matmul_2x2 and FP32 matmul_reg64 (tcasync1024 takes about
# a minute of host time, 2048 several, 4096 about 10 minutes).
# The kernel checker is off except in CASE_check (tiled512_check: its cost).
# Case stage prints the window's frame time: the demo's first race (one CPU
# core against edu-tiny, n = 128) drawn frame by frame off-screen (the
# window adds only the copy to the screen), milliseconds per frame for
# drawing and for simulating (60 frames per second leaves 16.7 ms), and the
# host time of the same race run without a stage, on an unwatched stage and
# watched frame by frame.
# usage: scripts/bench.sh [CASE...]   (default: all cases but tc1024 and
#        tcasync512/2048/4096)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/simtlab ] || scripts/setup.sh >/dev/null
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(naive512 tiled512 tiled512_check vecadd16m tiny_tiled stage tc512 tcasync1024)
for c in "${cases[@]}"; do
    if [ "$c" = stage ]; then
        dir=$(mktemp -d)
        for mode in run "show --headless" "show --headless --frames $dir --every 1000000"; do
            # shellcheck disable=SC2086
            line=$(SIMTLAB_FRAME_STATS=1 build/simtlab $mode scripts/bench_stage.lua 2>&1 | grep -E "bench_stage|frames" | tr '\n' ' ')
            echo "stage  [$mode]  $line" | sed "s#$dir#DIR#"
        done
        rm -rf "$dir"
        continue
    fi
    out=$(/usr/bin/time -f "%M" build/simtlab run scripts/bench.lua "$c" 3 2>/tmp/simtlab-bench-rss.$$)
    rss=$(tail -n 1 /tmp/simtlab-bench-rss.$$)
    echo "$out  peak RSS $((rss / 1024)) MB"
done
rm -f /tmp/simtlab-bench-rss.$$
