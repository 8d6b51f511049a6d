#!/usr/bin/env bash
# Run the whole test suite: unit tests (cmocka) and Lua integration tests
# (ctest), first in the normal build, then in an AddressSanitizer +
# UndefinedBehaviorSanitizer build, then `simtlab demo` and a few Lua tests
# under valgrind, then a short libFuzzer run of every fuzz target
# (FUZZ_SECONDS each, default 30; scripts/fuzz.sh), after building the
# Debian package and running lesson 1 from it (scripts/package.sh). Usage:
#   scripts/test.sh [--fast]
#   --fast   only the normal build's tests (no sanitizers, valgrind, fuzzing)
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

    echo "== valgrind (memory errors and leaks)"
    for args in "show --headless --frames build/valgrind-frames --every 20 lessons/demo.lua 32" \
                "run tests/lua/test_check.lua" "run --unsafe tests/lua/test_api.lua" \
                "run --unsafe tests/lua/test_barrier.lua"; do
        # shellcheck disable=SC2086
        if ! valgrind -q --error-exitcode=1 --leak-check=full build/simtlab $args \
                >build/valgrind.log 2>&1; then
            cat build/valgrind.log
            echo "valgrind: simtlab $args failed"
            exit 1
        fi
        echo "valgrind: simtlab $args clean"
    done

    echo "== the Debian package (scripts/package.sh: build it, run lesson 1 from it)"
    scripts/package.sh

    echo "== fuzz smoke (${FUZZ_SECONDS:-30} s per target, build-fuzz/)"
    for target in fuzz_asm fuzz_arch fuzz_lua fuzz_lua_gc fuzz_exec; do
        mkdir -p build-fuzz
        log="build-fuzz/smoke-$target.log"
        if ! FUZZ_REBUILD=1 scripts/fuzz.sh "$target" "${FUZZ_SECONDS:-30}" >"$log" 2>&1; then
            tail -60 "$log"
            echo "fuzz: $target found a crash (input saved under build-fuzz/artifacts/)"
            exit 1
        fi
        echo "fuzz: $target $(grep -aE '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs, no crash"
        rm -f "$log"
    done
fi
