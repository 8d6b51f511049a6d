#!/usr/bin/env bash
# Make the README's pictures (docs/images/), drawn off-screen:
#   race.png      the demo's first race, 10 s into it (frame 300 of the
#                 headless stage: one CPU core against edu-tiny, n = 128)
#   roofline.png  the roofline of the h200 model with the shipped kernels
#                 as dots (lessons/lib/roofline.lua)
# usage: scripts/figures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/simtlab ] || scripts/setup.sh >/dev/null
mkdir -p docs/images
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/simtlab show --headless --lang en --frames "$tmp" --every 300 lessons/demo.lua >/dev/null
cp "$tmp/frame-000300.png" docs/images/race.png
echo "figures: docs/images/race.png"
build/simtlab run --unsafe scripts/figures_roofline.lua docs/images/roofline.png
echo "figures: docs/images/roofline.png"
