#!/usr/bin/env bash
# Property benchmark (issue 6): candidates and solver time per violation
# query of `analyze --property`, on synthetic traces with custom events.
#
#   bench/run_property_bench.sh [BUILD_DIR] [--quick]
#
# The traces (generated below, deterministic) model the file API of
# docs/properties.md: 4 threads each open, read and close files 0..F-1 in a
# random interleaving, with lock-protected reads and writes of shared
# counters and branches in between; the property is the file typestate plus
# region atomicity. Prints one markdown table for bench/RESULTS.md; every
# number comes from the JSON `stats` of `racepredict analyze`, wall time and
# peak RSS from /usr/bin/time.
set -euo pipefail
BUILD=${1:-build}
QUICK=${2:-}
RP=$BUILD/bin/racepredict
[ -x "$RP" ] || { echo "missing $RP: build first (scripts/build.sh)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/file.props" <<'EOF'
property file_protocol(f):
    start closed
    closed -> opened on open(f)
    opened -> opened on read(f)
    opened -> closed on close(f)
property update_atomic:
    atomic upd_begin .. upd_end
EOF

gen() { # gen EVENTS SEED OUT
  python3 - "$@" <<'PY'
import random, sys
n, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rnd = random.Random(seed)
T = 4
lines = [f"t0 fork t{t}" for t in range(1, T + 1)]
prog = {t: [] for t in range(1, T + 1)}
per = n // T
for t in range(1, T + 1):
    ops, f = prog[t], 0
    while len(ops) < per:
        name = f"f{t}_{f}" if rnd.random() < 0.7 else f"f{rnd.randrange(1, T + 1)}_{f}"
        body = [f"ev open {name}", "acq m", "rd c", "wr c", "rel m", "br",
                f"ev read {name}", "ev upd_begin", "rd x", "wr x",
                "ev upd_end", f"ev close {name}"]
        # One source line per operation of the loop body, as in a program.
        ops += [(op, f"@files.c:{10 + i}@worker") for i, op in enumerate(body)]
        f += 1
mem = {"c": 0, "x": 0}
pos = {t: 0 for t in prog}
held = None
while any(pos[t] < len(prog[t]) for t in prog):
    t = rnd.choice([t for t in prog if pos[t] < len(prog[t])])
    op, loc = prog[t][pos[t]]
    if op == "acq m" and held not in (None, t):
        continue
    if op.startswith("acq"):
        held = t
    elif op.startswith("rel"):
        held = None
    if op.startswith("rd "):
        op = f"{op} {mem[op[3:]]}"
    elif op.startswith("wr "):
        mem[op[3:]] += 1
        op = f"{op} {mem[op[3:]]}"
    lines.append(f"t{t} {op} {loc}")
    pos[t] += 1
lines += [f"t0 join t{t}" for t in range(1, T + 1)]
open(out, "w").write("\n".join(lines) + "\n")
PY
}

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB RAM"
echo "commit: $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
# (events, mode): the default reports one violation per property and tuple
# of source lines; --all-pairs decides every candidate.
if [ -n "$QUICK" ]; then
  RUNS="500:default 500:--all-pairs 1000:default"
else
  RUNS="500:default 500:--all-pairs 1000:default 1000:--all-pairs 2000:default 4000:default"
fi
echo "### Property violations (\`analyze --property --timeout-ms 10000\`, file typestate + region atomicity, 4 threads)"
echo
echo "| events | mode | tuples | candidates | observed | solver calls | violations | unknown | property s | ms per solver call | wall s | peak RSS MB |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for run in $RUNS; do
  n=${run%%:*}
  mode=${run#*:}
  [ -f "$TMP/p$n.rpt.txt" ] || gen "$n" 1 "$TMP/p$n.rpt.txt"
  flags=(--timeout-ms 10000)
  [ "$mode" = default ] || flags+=("$mode")
  rc=0
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$RP" analyze "$TMP/p$n.rpt.txt" \
    --property "$TMP/file.props" "${flags[@]}" \
    --format json -o "$TMP/out.json" || rc=$?
  [ "$rc" -le 1 ] || [ "$rc" -eq 4 ] || { echo "analyze exited $rc" >&2; exit 1; }
  read -r wall rss < <(tail -n 1 "$TMP/time")
  python3 - "$TMP/out.json" "$n" "$wall" "$rss" "$mode" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["stats"]["property"]
calls = max(1, p["solver_calls"])
print(f"| {sys.argv[2]} | {sys.argv[5]} | {p['tuples']} | {p['candidates']} | {p['observed']} | "
      f"{p['solver_calls']} | {len(j['violations'])} | {p['unknown']} | "
      f"{p['seconds']:.2f} | {1000 * p['seconds'] / calls:.1f} | {sys.argv[3]} | "
      f"{int(sys.argv[4]) // 1024} |")
PY
done
