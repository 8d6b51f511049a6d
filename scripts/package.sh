#!/usr/bin/env bash
# Build the Debian package a school's IT installs on every lab machine
# (build-deb/simtlab_VERSION_ARCH.deb: /usr/bin/simtlab, /usr/share/simtlab
# with the presets, lessons, kernels and assets, a desktop entry and an
# icon; it depends on Debian's SDL2, Lua and font packages), then check it:
# unpack it into a scratch folder and run lesson 1 headless from there,
# with the source tree out of simtlab's search path.
# usage: scripts/package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build build-deb -j"$(nproc)" --target simtlab >/dev/null
(cd build-deb && cpack -G DEB >/dev/null)
deb=$(ls -t build-deb/simtlab_*.deb | head -1)
echo "package: $deb"
dpkg-deb -I "$deb" | grep -E "Package|Version|Depends"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
for f in usr/bin/simtlab usr/share/simtlab/lessons/course.lua usr/share/simtlab/arch/h200.lua \
         usr/share/simtlab/lessons/kernels/matmul_tiled16.s usr/share/applications/simtlab.desktop \
         usr/share/icons/hicolor/64x64/apps/simtlab.png; do
    [ -e "$root/$f" ] || { echo "package: $f is missing"; exit 1; }
done
out=$(cd "$root" && SIMTLAB_INSTALLED_ONLY=1 SIMTLAB_HOME="$root/usr/share/simtlab" \
      "$root/usr/bin/simtlab" lesson 1 --headless --screenshot "$root/lesson1.png")
echo "$out" | grep -q "\[holds\] the CPU and the GPU compute the same product" \
    || { echo "$out"; echo "package: lesson 1 did not run from the package"; exit 1; }
[ -s "$root/lesson1.png" ] || { echo "package: no picture"; exit 1; }
echo "package: lesson 1 runs from the unpacked package (claims hold, picture written)"
