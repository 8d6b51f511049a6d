#!/usr/bin/env bash
# Run the whole test suite: unit tests (cmocka) and Lua integration tests
# (ctest), first in the normal build, then in an AddressSanitizer +
# UndefinedBehaviorSanitizer build. Usage: scripts/test.sh [--fast]
#   --fast   skip the sanitizer pass
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
echo "== tests (build/)"
(cd build && ctest --output-on-failure -j"$(nproc)")

if [ "${1:-}" != "--fast" ]; then
    echo "== tests under ASan + UBSan (build-asan/)"
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSIMT_SANITIZE=ON >/dev/null
    cmake --build build-asan -j"$(nproc)"
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --output-on-failure -j"$(nproc)")
fi
