#!/usr/bin/env bash
# Analysis benchmark (issue 3): events/s through load + filters, and solver
# time per candidate, on synthetic traces from racepredict-gen-trace.
#
#   bench/run_analysis_bench.sh [BUILD_DIR] [--quick]
#
# Prints one markdown table (append it to bench/RESULTS.md with the date and
# machine line it prints first). Every number comes from the JSON `stats` of
# `racepredict analyze`, wall time and peak RSS from /usr/bin/time.
set -euo pipefail
BUILD=${1:-build}
QUICK=${2:-}
RP=$BUILD/bin/racepredict
GEN=$BUILD/bin/racepredict-gen-trace
for b in "$RP" "$GEN"; do
  [ -x "$b" ] || { echo "missing $b: build first (scripts/build.sh)" >&2; exit 2; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB RAM"
echo "commit: $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo

# run NAME ARGS... : runs analyze with --format json, prints the stats JSON
# plus wall seconds and peak RSS (KB) on one line.
run() {
  local out=$TMP/out.json
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$RP" analyze --format json -o "$out" "$@" || [ $? -le 1 ]
  read -r wall rss < <(tail -n 1 "$TMP/time")
  python3 - "$out" "$wall" "$rss" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
s["wall"] = float(sys.argv[2]); s["rss_kb"] = int(sys.argv[3])
print(json.dumps(s))
PY
}

field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, d))" "$1" "$2"; }

if [ -n "$QUICK" ]; then SIZES="10000 100000"; SOLVE="1000 2000"; else SIZES="10000 100000 1000000"; SOLVE="1000 2000 3000"; fi

echo "### Load + filters (\`analyze --candidates-only --all-pairs\`, mixed shape, 4 threads, events/50 locations, 8 locks, binary trace)"
echo
echo "| events | trace bytes | conflicting pairs | candidates | wall s | load s | filter s | events/s (wall) | peak RSS MB |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $SIZES; do
  "$GEN" --shape mixed --events "$n" --threads 4 --locations $((n / 50)) --locks 8 --seed 1 "$TMP/m$n.rptrace"
  s=$(run --candidates-only --all-pairs "$TMP/m$n.rptrace")
  echo "| $n | $(stat -c %s "$TMP/m$n.rptrace") | $(field "$s" conflicting_pairs) | $(field "$s" candidates) | $(field "$s" wall) | $(field "$s" 'round(load_seconds,3)') | $(field "$s" 'round(filter_seconds,3)') | $(field "$s" 'int(events/wall)') | $(field "$s" 'rss_kb//1024') |"
done
echo
echo "### Solver time per candidate (\`analyze --all-pairs\`, mixed shape, 4 threads, 200 locations, 8 locks)"
echo
echo "| events | mode | candidates | races | closure witnesses | solver calls | unknown | closure s | encode s | solve s | ms per solver call | wall s |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $SOLVE; do
  "$GEN" --shape mixed --events "$n" --threads 4 --locations 200 --locks 8 --seed 1 "$TMP/s$n.rptrace"
  for mode in default --no-fast-path; do
    flags=(--all-pairs --timeout-ms 10000)
    [ "$mode" = default ] || flags+=("$mode")
    s=$(run "${flags[@]}" "$TMP/s$n.rptrace")
    echo "| $n | $mode | $(field "$s" candidates) | $(field "$s" sat) | $(field "$s" closure_witnesses) | $(field "$s" solver_calls) | $(field "$s" unknown) | $(field "$s" 'round(closure_seconds,3)') | $(field "$s" 'round(encode_seconds,3)') | $(field "$s" 'round(solve_seconds,3)') | $(field "$s" 'round(1000*solve_seconds/max(1,solver_calls),2)') | $(field "$s" wall) |"
  done
done
