#!/usr/bin/env bash
# Run one libFuzzer target for a set time. Usage:
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   scripts/fuzz.sh --merge TARGET     minimise the work corpus into tests/fuzz/corpus/TARGET
# TARGET: fuzz_asm, fuzz_arch, fuzz_lua, fuzz_lua_gc or fuzz_exec (tests/fuzz/*.c).
# Builds build-fuzz/ with clang (-DSIMT_FUZZ=ON) when needed. Inputs found
# while fuzzing go to build-fuzz/corpus/TARGET (not in git); the committed
# corpus tests/fuzz/corpus/TARGET is read as seeds and starts from the
# lessons' kernels (asm), the presets (arch) and the Lua tests (lua).
# A crash is saved as build-fuzz/artifacts/TARGET-crash-* and the script
# exits non-zero; reproduce with build-fuzz/tests/fuzz/TARGET FILE.
set -euo pipefail
cd "$(dirname "$0")/.."

merge=0
if [ "${1:-}" = "--merge" ]; then merge=1; shift; fi
target="${1:?usage: scripts/fuzz.sh TARGET SECONDS | --merge TARGET}"
case "$target" in
    fuzz_asm) maxlen=8192 ;;
    fuzz_arch) maxlen=4096 ;;
    fuzz_lua) maxlen=4096 ;;
    fuzz_lua_gc) maxlen=512 ;;
    fuzz_exec) maxlen=1024 ;;
    *) echo "fuzz.sh: unknown target '$target' (fuzz_asm, fuzz_arch, fuzz_lua, fuzz_lua_gc, fuzz_exec)" >&2; exit 2 ;;
esac

if [ ! -x "build-fuzz/tests/fuzz/$target" ] || [ "${FUZZ_REBUILD:-1}" = 1 ]; then
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMT_FUZZ=ON >/dev/null
    cmake --build build-fuzz -j"$(nproc)" --target "$target" >/dev/null
fi

seeds="tests/fuzz/corpus/$target"
work="build-fuzz/corpus/$target"
mkdir -p "$seeds" "$work" build-fuzz/artifacts
if [ -z "$(ls -A "$seeds")" ]; then   # first run: seed from the repository
    case "$target" in
        fuzz_asm) cp lessons/kernels/*.s "$seeds"/
                  for f in tests/asm/*.s; do cp "$f" "$seeds/asm_$(basename "$f")"; done ;;
        fuzz_arch) cp arch/*.lua "$seeds"/ ;;
        fuzz_lua) cp tests/lua/test_api.lua tests/lua/test_ref.lua tests/lua/test_check.lua "$seeds"/ ;;
        fuzz_exec|fuzz_lua_gc) for i in 1 2 3 4; do head -c 256 /dev/urandom > "$seeds/random$i"; done ;;
    esac
fi

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
if [ "$merge" = 1 ]; then
    tmp="build-fuzz/corpus/$target.merged"
    rm -rf "$tmp" && mkdir -p "$tmp"
    "build-fuzz/tests/fuzz/$target" -merge=1 -max_len="$maxlen" "$tmp" "$seeds" "$work"
    rm -rf "$seeds" && mv "$tmp" "$seeds"
    echo "fuzz.sh: $seeds now holds $(ls "$seeds" | wc -l) inputs"
    exit 0
fi
seconds="${2:?usage: scripts/fuzz.sh TARGET SECONDS}"
shift 2
"build-fuzz/tests/fuzz/$target" "$work" "$seeds" -max_total_time="$seconds" -max_len="$maxlen" \
    -timeout=30 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/artifacts/$target-" "$@"
