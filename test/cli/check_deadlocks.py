#!/usr/bin/env python3
"""End-to-end check of `racepredict analyze --deadlocks` on a text trace.

The trace declares its expected lock cycles:
    # expect-deadlock: 3 7     (the request events of one cycle, any order)
    # expect-deadlock: none
The script runs `analyze --deadlocks --all-pairs --format json` and fails
unless the set of cycles is exactly the expected one, each witness lists an
event at most once and none of the blocked requests, and the exit status is
1 (found) or 0 (none).
"""
import json
import subprocess
import sys


def main():
    binary, trace = sys.argv[1], sys.argv[2]
    expected, saw = set(), False
    with open(trace) as f:
        for line in f:
            if line.startswith("# expect-deadlock:"):
                saw = True
                words = line.split()[2:]
                if words != ["none"]:
                    expected.add(frozenset(int(w) for w in words))
    if not saw:
        sys.exit(f"{trace}: no '# expect-deadlock:' line")
    p = subprocess.run([binary, "analyze", "--deadlocks", "--all-pairs",
                        "--format", "json", trace],
                       capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):
        sys.exit(f"{trace}: analyze exited {p.returncode}: {p.stderr}")
    report = json.loads(p.stdout)
    got = {frozenset(c["event"] for c in d["cycle"]) for d in report["deadlocks"]}
    errors = []
    if got != expected:
        errors.append(f"cycles {sorted(map(sorted, got))} != expected "
                      f"{sorted(map(sorted, expected))}")
    if p.returncode != (1 if expected else 0):
        errors.append(f"exit status {p.returncode}")
    for d in report["deadlocks"]:
        w = d["witness"]
        reqs = {c["event"] for c in d["cycle"]}
        if len(set(w)) != len(w) or reqs & set(w):
            errors.append(f"bad witness {w} for cycle {sorted(reqs)}")
    if errors:
        sys.exit(f"{trace}: " + "; ".join(errors))
    print(f"{trace}: {len(got)} deadlock(s) as expected")


if __name__ == "__main__":
    main()
