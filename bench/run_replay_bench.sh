#!/usr/bin/env bash
# Replay benchmark (issue 5): how long `racepredict replay` takes to enforce
# witness schedules of growing length (bench/programs/replay_long.c: two
# threads, ITERS lock-protected increments each, then a race whose witness
# holds both loops), next to the same program recorded without replay.
#
#   bench/run_replay_bench.sh [BUILD_DIR] [ITERS...]
#
# Prints one markdown table. The witness comes from `racepredict run
# --witness-dir` (its analysis time is not part of the table; the solver
# dominates it at these sizes, see the analysis tables). "replay s" is the
# wall time of `racepredict replay -q`: reading the trace, validating the
# witness, writing the schedule and running the program under it.
set -euo pipefail
BUILD=${1:-build}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(100 300 1000)
RP=$BUILD/bin/racepredict
CC=$BUILD/bin/racepredict-cc
[ -x "$RP" ] && [ -x "$CC" ] || { echo "build first (scripts/build.sh)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$CC" -O2 "$(dirname "$0")/programs/replay_long.c" -o "$TMP/replay_long"

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB RAM"
echo "commit: $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "| iters | trace events | schedule steps | verdict | record s | replay s | µs per step | replay peak RSS MB |"
echo "|---:|---:|---:|---|---:|---:|---:|---:|"
for n in "${SIZES[@]}"; do
  w=$TMP/w$n
  /usr/bin/time -f "%e" -o "$TMP/rec" env RACEPREDICT_OPTIONS=trace=/dev/null \
    "$TMP/replay_long" "$n" >/dev/null
  rm -rf "$w"
  "$RP" run --witness-dir "$w" -- "$TMP/replay_long" "$n" >/dev/null 2>&1 || true
  f=$(ls "$w"/race-*.json | head -1)
  events=$("$RP" analyze --candidates-only "$w/trace.rptrace" | sed -E 's/racepredict: ([0-9]+) events.*/\1/')
  /usr/bin/time -f "%e %M" -o "$TMP/rep" "$RP" replay -q --schedule "$f" -- \
    "$TMP/replay_long" "$n" >"$TMP/out" 2>/dev/null || true
  verdict=$(sed -nE 's/racepredict replay: ([a-z-]+).*/\1/p' "$TMP/out")
  steps=$(sed -nE 's|.* at step [0-9]+/([0-9]+).*|\1|p' "$TMP/out")
  # GNU time prefixes "Command exited with non-zero status 1" (= confirmed).
  read -r secs kb < <(tail -1 "$TMP/rep")
  us=$(python3 -c "print(round($secs * 1e6 / $steps, 1))")
  echo "| $n | $events | $steps | $verdict | $(cat "$TMP/rec") | $secs | $us | $((kb / 1024)) |"
done
