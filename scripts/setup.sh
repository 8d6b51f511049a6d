#!/usr/bin/env bash
# Install simtlab's build dependencies (Debian packages) if missing, then
# configure and build into build/. Safe to run again: it only does what is
# missing. Usage: scripts/setup.sh [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake pkg-config
      libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev
      liblua5.4-dev libcmocka-dev fonts-dejavu-core fonts-wqy-microhei
      valgrind clang libclang-rt-14-dev    # scripts/test.sh: valgrind pass, fuzz smoke
      xvfb xdotool)                        # tests/window/smoke.sh: a real window under Xvfb

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j"$(nproc)"
echo "setup: built build/simtlab"
