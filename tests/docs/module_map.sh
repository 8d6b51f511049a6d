#!/usr/bin/env bash
# The README's module map (its "Layout" block) names every source file under
# sim/ by its stem ("sched" for sim/core/sched.c and sched.h), and names no
# module that is not there. Run by ctest (docs.module_map) from the repo root.
set -euo pipefail
cd "$(dirname "$0")/../.."
map=$(awk '/^## Layout/{on=1; next} on && /^## /{exit} on' README.md)
[ -n "$map" ] || { echo "README.md has no '## Layout' section"; exit 1; }
fail=0
for f in $(find sim -name '*.c' -o -name '*.h' | sort); do
    stem=$(basename "$f"); stem=${stem%.*}
    if ! grep -qwF -- "$stem" <<<"$map"; then
        echo "README.md's module map does not name $f ('$stem')"
        fail=1
    fi
done
# the other way: a "sim/DIR/" line and the words listed under it must exist
dir=""
while IFS= read -r line; do
    case "$line" in
        sim/*/*) dir=$(awk '{print $1}' <<<"$line"); continue ;;
        sim/*)   dir=""; continue ;;
        [a-z]*)  dir=""; continue ;;
    esac
    [ -n "$dir" ] || continue
    # an indented line under sim/DIR/: the words before two spaces are modules
    mods=$(sed -E 's/^  ([a-z_0-9. ]+[a-z_0-9.h])  .*/\1/;t;d' <<<"$line")
    for m in $mods; do
        m=${m%.h}
        if ! ls "$dir$m".[ch] >/dev/null 2>&1; then
            echo "README.md's module map names '$m' under $dir, which has no $m.c or $m.h"
            fail=1
        fi
    done
done <<<"$map"
[ $fail = 0 ] && echo "module map: every file under sim/ is named, every named module exists"
exit $fail
