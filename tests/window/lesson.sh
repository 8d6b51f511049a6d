#!/usr/bin/env bash
# lesson.sh SIMTLAB - lesson 5 in a real window under Xvfb, driven with
# xdotool as a teacher would: Space (step 1's words read: go on), '[' on
# step 1 (no GPU there: said on screen), ']' while step 2's first run
# waits for Space (the step is made again on twice the SMs, nothing runs),
# Space (the run starts on 4 SMs), wait for its chart, '[' (the step runs
# again on the lesson's 2 SMs, said on screen), Space to start it, PageDown during the runs (cut short:
# step 3 at once), PageDown (the summary), Space (the lesson closes).
# Checks each of those in what simtlab prints, and that it exits 0.
set -euo pipefail
SIMTLAB=$(realpath "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'kill "$XPID" 2>/dev/null || true; kill "$SPID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
fail() { echo "lesson window: $*"; echo "--- simtlab output:"; cat "$WORK/out.txt" 2>/dev/null || true; exit 1; }
for n in $(seq 141 190); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break; done
export DISPLAY=":$n"
Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
XPID=$!
for _ in $(seq 50); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done
xdotool getdisplaygeometry >/dev/null 2>&1 || fail "Xvfb did not start on $DISPLAY"
export XDG_CONFIG_HOME="$WORK/config"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"   # SDL's X11 backend (see smoke.sh)
(cd "$WORK" && SIMTLAB_HOME="$SRC" timeout 150 "$SIMTLAB" lesson 5 --lang en >"$WORK/out.txt" 2>&1; echo $? >"$WORK/rc") &
SPID=$!
# wait until the output matches $1 (a grep -E pattern) at least $2 times
waitfor() {
  for _ in $(seq 400); do
    [ "$(grep -cE "$1" "$WORK/out.txt" 2>/dev/null || true)" -ge "${2:-1}" ] && return 0
    [ -e "$WORK/rc" ] && break
    sleep 0.1
  done
  fail "never saw '$1' (x${2:-1})"
}
waitfor "Lesson 5: Coalescing  step 1 of 3"
wid=$(timeout 30 xdotool search --sync --name "simtlab" 2>/dev/null | head -1 || true)
[ -n "$wid" ] || fail "no window appeared"
key() { xdotool key --window "$wid" "$1"; sleep "${2:-0.5}"; }
sleep 0.5
key bracketleft
waitfor "this step runs no GPU that the keys"
key space
waitfor "step 2 of 3"
sleep 0.5
key bracketright               # while the first run waits for Space: double the SMs (not a start)
waitfor "step 2 again on a changed GPU: SMs x2"
waitfor "step 2 of 3" 2
grep -q "the run starts" "$WORK/out.txt" && fail "']' before the run started it"
sleep 0.5
key space                      # start the first run: on the changed GPU
waitfor "the run starts: copy_strided on edu-tiny with 4 SMs"
waitfor "32-byte sectors per warp request" 1
key bracketleft
waitfor "step 2 again on a changed GPU: SMs x1,"
waitfor "step 2 of 3" 3
sleep 0.5
key space                      # start the run again ...
waitfor "the run starts: copy_strided on edu-tiny with 2 SMs"
sleep 0.3
key Next                       # ... and cut it short: PageDown
waitfor "step 3 of 3"
key Next 0.8                   # the summary
waitfor "Lesson 5: Coalescing  summary"
key space
for _ in $(seq 100); do [ -e "$WORK/rc" ] && break; sleep 0.1; done
[ -e "$WORK/rc" ] || fail "simtlab did not close after the summary"
[ "$(cat "$WORK/rc")" = 0 ] || fail "simtlab exited $(cat "$WORK/rc")"
# the second (cut short) sweep still printed its table: the step's runs were finished, not dropped
[ "$(grep -c "32-byte sectors per warp request" "$WORK/out.txt")" -ge 2 ] || fail "the cut-short step printed no chart"
echo "lesson window: ok"
