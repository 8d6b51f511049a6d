#!/usr/bin/env bash
# Simulator speed benchmark: simulated warp instructions and cycles per
# second of host CPU time (median of 3 runs), slowdown versus the real chip,
# and peak resident memory per case. A benchmark, not a test: this machine
# is shared and noisy; compare ratios and medians between runs.
# usage: scripts/bench.sh [CASE...]   (default: all cases)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/simtlab ] || scripts/setup.sh >/dev/null
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(naive512 tiled512 vecadd16m tiny_tiled)
for c in "${cases[@]}"; do
    out=$(/usr/bin/time -f "%M" build/simtlab run scripts/bench.lua "$c" 3 2>/tmp/simtlab-bench-rss.$$)
    rss=$(tail -n 1 /tmp/simtlab-bench-rss.$$)
    echo "$out  peak RSS $((rss / 1024)) MB"
done
rm -f /tmp/simtlab-bench-rss.$$
