#!/usr/bin/env python3
"""End-to-end check of `racepredict analyze` on a text trace.

The trace declares what must be found in `# expect:` comment lines:
    # expect: race 2 9        (one line per racing event pair, --all-pairs)
    # expect: none            (no race at all)
    # expect-dedup: N         (number of races reported without --all-pairs)
The script runs the analyser with --all-pairs and JSON output, and fails
unless the set of racing pairs is exactly the expected one, every witness
ends with its racing pair and lists each event at most once, and the exit
status is 1 (races) or 0 (none). It also checks the output is identical
with -j 1 and -j 3, that the SMT encoding alone (--no-fast-path) finds the
same pairs, and that `racepredict check-witness` accepts every witness.
"""
import json
import os
import tempfile
import subprocess
import sys


def run(binary, trace, *extra):
    p = subprocess.run([binary, "analyze", trace, "--format", "json", *extra],
                       capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):
        sys.exit(f"{trace}: analyze exited {p.returncode}: {p.stderr}")
    return p.returncode, json.loads(p.stdout)


def main():
    binary, trace = sys.argv[1], sys.argv[2]
    expected, dedup = set(), None
    saw_expect = False
    with open(trace) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# expect:"):
                saw_expect = True
                words = line.split()[2:]
                if words[0] == "race":
                    expected.add((int(words[1]), int(words[2])))
                elif words[0] != "none":
                    sys.exit(f"{trace}: bad expect line: {line}")
            elif line.startswith("# expect-dedup:"):
                dedup = int(line.split()[2])
    if not saw_expect:
        sys.exit(f"{trace}: no '# expect:' line")
    rc, report = run(binary, trace, "--all-pairs")
    got = {(r["first"]["event"], r["second"]["event"]) for r in report["races"]}
    errors = []
    if got != expected:
        errors.append(f"races {sorted(got)} != expected {sorted(expected)}")
    if rc != (1 if expected else 0):
        errors.append(f"exit status {rc}")
    if report["stats"]["unknown"] != 0:
        errors.append("unknown queries: " + json.dumps(report["unknown"]))
    for r in report["races"]:
        w = r["witness"]
        pair = [r["first"]["event"], r["second"]["event"]]
        if w[-2:] != pair or len(set(w)) != len(w):
            errors.append(f"bad witness {w} for {pair}")
    _, report3 = run(binary, trace, "--all-pairs", "-j", "3")
    if report3["races"] != report["races"]:
        errors.append("output differs between -j 1 and -j 3")
    # The encoding alone (no closure fast path) must decide the same pairs.
    _, slow = run(binary, trace, "--all-pairs", "--no-fast-path")
    got_slow = {(r["first"]["event"], r["second"]["event"]) for r in slow["races"]}
    if got_slow != got:
        errors.append(f"--no-fast-path races {sorted(got_slow)} != {sorted(got)}")
    # Every witness, re-validated by the independent schedule checker from
    # the JSON report alone.
    for rep, name in ((report, "report"), (slow, "no-fast-path report")):
        with tempfile.NamedTemporaryFile("w", suffix=".json",
                                         delete=False) as f:
            json.dump(rep, f)
            path = f.name
        try:
            p = subprocess.run([binary, "check-witness", trace, path],
                               capture_output=True, text=True, timeout=600)
        finally:
            os.remove(path)
        if p.returncode != 0:
            errors.append(f"check-witness on the {name}: {p.stdout}{p.stderr}")
    if dedup is not None:
        _, rd = run(binary, trace)
        if len(rd["races"]) != dedup:
            errors.append(f"{len(rd['races'])} deduplicated races, expected {dedup}")
    if errors:
        sys.exit(f"{trace}: " + "; ".join(errors))
    print(f"{trace}: {len(got)} race(s) as expected")


if __name__ == "__main__":
    main()
