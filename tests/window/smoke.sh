#!/usr/bin/env bash
# smoke.sh SIMTLAB - a real window under Xvfb, driven with xdotool:
#   P (screenshot while racing), Space (pause), Right (one step), P
#   (screenshot while paused), Space (go on), Up x5 (faster), '[' (halve
#   the SMs: the script races again on 1 SM), Q (quit). It waits for what
#   the script prints rather than for fixed times where it can, so a busy
#   machine slows it down but does not fail it.
# Checks: the window opened, both screenshots were written and differ, the
# script saw '[' and raced on 1 SM, and simtlab exited 0 after Q.
set -euo pipefail
SIMTLAB=$(realpath "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'kill "$XPID" 2>/dev/null || true; kill "$SPID" 2>/dev/null || true; rm -rf "$WORK"' EXIT

fail() { echo "smoke: $*"; echo "--- simtlab output:"; cat "$WORK/out.txt" 2>/dev/null || true; exit 1; }

# a free display number
for n in $(seq 90 140); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break; done
export DISPLAY=":$n"
Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
XPID=$!
for _ in $(seq 50); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done
xdotool getdisplaygeometry >/dev/null 2>&1 || fail "Xvfb did not start on $DISPLAY"

export XDG_CONFIG_HOME="$WORK/config"   # do not touch the user's remembered settings
# Under AddressSanitizer (build-asan), SDL's X11 video backend leaves a
# libdbus buffer and two driver blocks allocated at exit, outside our code:
# keep ASan's memory-error checks, drop its leak report for this one test
# (our own leaks are covered by the headless tests and valgrind).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
(cd "$WORK" && SIMTLAB_HOME="$SRC" timeout 120 "$SIMTLAB" show "$SRC/tests/window/knobs.lua" >"$WORK/out.txt" 2>&1; echo $? >"$WORK/rc") &
SPID=$!

# the script prints "stage: window" once the window is open
for _ in $(seq 300); do grep -q "stage: window" "$WORK/out.txt" 2>/dev/null && break; sleep 0.1; done
grep -q "stage: window" "$WORK/out.txt" || fail "the script did not start in a window"
wid=$(timeout 30 xdotool search --sync --name "simtlab" 2>/dev/null | head -1 || true)
[ -n "$wid" ] || fail "no window appeared"
key() { xdotool key --window "$wid" "$1"; sleep "${2:-0.4}"; }
count_png() { find "$WORK" -maxdepth 1 -name 'simtlab-*.png' | wc -l; }

sleep 0.8
key p 0.8
[ "$(count_png)" -ge 1 ] || fail "P wrote no screenshot"
key space 0.5
key Right 0.3
key p 0.8
[ "$(count_png)" -ge 2 ] || fail "the second P wrote no screenshot"
mapfile -t shots < <(find "$WORK" -maxdepth 1 -name 'simtlab-*.png' | sort)
cmp -s "${shots[0]}" "${shots[1]}" && fail "the two screenshots are the same picture"
key space 0.3
for _ in 1 2 3 4 5; do key Up 0.1; done   # faster (the settings live in $WORK): the race ends soon
for _ in $(seq 300); do grep -q "race done: sms 2" "$WORK/out.txt" && break; sleep 0.2; done
grep -q "race done: sms 2" "$WORK/out.txt" || fail "the first race did not finish"
key bracketleft 0.5
for _ in $(seq 300); do grep -q "race done: sms 1" "$WORK/out.txt" && break; sleep 0.2; done
grep -q "event sms_half" "$WORK/out.txt" || fail "'[' did not reach the script"
grep -q "race done: sms 1" "$WORK/out.txt" || fail "the script did not race again on 1 SM"
key q 0.5
for _ in $(seq 50); do [ -e "$WORK/rc" ] && break; sleep 0.1; done
[ -e "$WORK/rc" ] || fail "simtlab did not quit after Q"
[ "$(cat "$WORK/rc")" = 0 ] || fail "simtlab exited with $(cat "$WORK/rc") after Q"
grep -q "stage: window" "$WORK/out.txt" || fail "the script did not run in a window"
echo "smoke: window, P, Space, Right, [, Q all work (screenshots ${shots[0]##*/} ${shots[1]##*/})"
