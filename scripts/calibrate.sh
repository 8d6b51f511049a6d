#!/usr/bin/env bash
# Reproduce the tables of reference/h200-measured.md on the h200 preset and
# print simulated vs measured side by side (see arch/CALIBRATION.md).
# Usage: scripts/calibrate.sh [--quick] [build-dir]   (default build dir: build)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=""
if [ "${1:-}" = "--quick" ]; then quick="--quick"; shift; fi
build="${1:-build}"
if [ ! -x "$build/simtlab" ]; then
    echo "calibrate.sh: $build/simtlab not found; build first (cmake -S . -B $build && cmake --build $build)" >&2
    exit 1
fi
exec "$build/simtlab" run lessons/lib/calibrate.lua --report $quick
