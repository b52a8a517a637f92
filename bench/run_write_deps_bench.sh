#!/usr/bin/env bash
# Write dependences (issue 20) on pigz (the shared corpus, /work/shared/corpus
# or $RP_CORPUS; `pigz -p 2 -c` on 5 MB of text, -O2): how many writes name
# their value's reads, what the lists cost in trace bytes, and what they
# change in the analysis.
#
# The analysis is compared on one recording: the trace as recorded, and the
# same trace with every write's list cut off (RVPredict's rule for every
# write, the interleaving unchanged). The bytes the lists cost are counted
# exactly from that trace (per listed write: the count varint and one
# seq-distance varint per read); bytes/event of a second recording made with
# RACEPREDICT_OPTIONS=write_deps=all are shown for comparison (another run:
# its interleaving differs).
#
#   bench/run_write_deps_bench.sh [BUILD_DIR]
set -euo pipefail
BUILD=$(realpath "${1:-build}")
RP=$BUILD/bin/racepredict
CC=$BUILD/bin/racepredict-cc
CORPUS=${RP_CORPUS:-/work/shared/corpus}
[ -x "$RP" ] && [ -x "$CC" ] || { echo "build first" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$CORPUS/build-pigz.sh" "$CC" "$TMP/bin" > /dev/null
head -c 3750000 /dev/urandom | base64 > "$TMP/in.txt"
RACEPREDICT_OPTIONS="trace=$TMP/listed.rptrace" \
  "$TMP/bin/pigz" -p 2 -c "$TMP/in.txt" > /dev/null
RACEPREDICT_OPTIONS="trace=$TMP/plain.rptrace:write_deps=all" \
  "$TMP/bin/pigz" -p 2 -c "$TMP/in.txt" > /dev/null
"$RP" convert "$TMP/listed.rptrace" "$TMP/listed.rpt.txt"
"$RP" convert "$TMP/plain.rptrace" "$TMP/plain.rpt.txt"

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB RAM"
echo "commit: $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
python3 - "$RP" "$TMP" <<'PY'
import json, os, re, subprocess, sys, time
rp, tmp = sys.argv[1], sys.argv[2]

def varint_len(v):
    n = 1
    while v >= 128:
        v >>= 7
        n += 1
    return n

def stats(text):
    events = writes = listed = constant = extra = 0
    for line in open(text):
        if not line.strip() or line.startswith(("#", "init ")):
            continue
        f = line.split()
        if f[1] == "wr":
            writes += 1
            if "<-" in f:
                deps = [int(x) for x in f[f.index("<-") + 1:] if x.isdigit()]
                listed += 1
                constant += not deps
                extra += 1 + sum(varint_len(events - d) for d in deps)
        events += 1
    return events, writes, listed, constant, extra

def strip(src, dst):
    with open(dst, "w") as out:
        for line in open(src):
            if re.match(r"^\S+ wr ", line):
                line = re.sub(r" <-( \d+)*", "", line)
            out.write(line)

def analyze(trace):
    t0 = time.time()
    r = subprocess.run([rp, "analyze", "-j", "1", "--format", "json", trace],
                       capture_output=True, text=True)
    report = json.loads(r.stdout)
    return report, time.time() - t0

ev, wr, listed, const, extra = stats(f"{tmp}/listed.rpt.txt")
size = os.path.getsize(f"{tmp}/listed.rptrace")
pev = stats(f"{tmp}/plain.rpt.txt")[0]
psize = os.path.getsize(f"{tmp}/plain.rptrace")
print("| recording | events | writes | with a list | of which constants | trace bytes | bytes the lists take | bytes/event |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
print(f"| default (lists) | {ev} | {wr} | {listed} | {const} | {size} | {extra} ({100 * extra / size:.1f}%) | {size / ev:.2f} |")
print(f"| write_deps=all (another run) | {pev} | {stats(f'{tmp}/plain.rpt.txt')[1]} | 0 | 0 | {psize} | 0 | {psize / pev:.2f} |")
print()
strip(f"{tmp}/listed.rpt.txt", f"{tmp}/stripped.rpt.txt")
print("| same trace | races (default report) | all pairs | candidates | closure witnesses | solver calls | unknown | analyze wall s |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for name, trace in (("with the lists", f"{tmp}/listed.rpt.txt"),
                    ("lists cut off (plain rule)", f"{tmp}/stripped.rpt.txt")):
    rep, secs = analyze(trace)
    s = rep["stats"]
    allp = subprocess.run([rp, "analyze", "-j", "1", "--all-pairs", "--format", "json", trace],
                          capture_output=True, text=True)
    npairs = len(json.loads(allp.stdout)["races"])
    print(f"| {name} | {len(rep['races'])} | {npairs} | {s['candidates']} | {s['closure_witnesses']} | "
          f"{s['solver_calls']} | {s['unknown']} | {secs:.2f} |")
PY
