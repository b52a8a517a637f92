#!/usr/bin/env python3
"""`racepredict analyze --format sarif` is valid SARIF 2.1.0 and says what
the JSON report says.

    check_sarif.py RACEPREDICT VALIDATOR TRACE [analyze flags...]

Runs Microsoft's validator (schema + GitHub ingestion rules; warnings are
allowed, errors are not), then checks: one result per race/deadlock of the
JSON report, each race's code flow has one thread flow per thread of its
witness, steps numbered 1..n in witness order, and exactly the racing
accesses marked essential; each deadlock under its rule (lock-order or
general), its blocked events essential and one related location each.
"""
import json
import subprocess
import sys
import tempfile


def analyze(rp, trace, fmt, flags):
    p = subprocess.run([rp, "analyze", trace, "--format", fmt, *flags],
                       capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):
        sys.exit(f"analyze exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def main():
    rp, validator, trace, *flags = sys.argv[1:]
    sarif = analyze(rp, trace, "sarif", flags)
    report = analyze(rp, trace, "json", flags)
    with tempfile.NamedTemporaryFile("w", suffix=".sarif") as f:
        json.dump(sarif, f)
        f.flush()
        v = subprocess.run([validator, "validate", "--rule-kind", "Gh;Sarif",
                            f.name], capture_output=True, text=True, timeout=300)
    errors = [l for l in v.stdout.splitlines() if ": error " in l]
    if v.returncode != 0 or errors:
        sys.exit(f"validator rc={v.returncode}:\n{v.stdout}{v.stderr}")
    results = sarif["runs"][0]["results"]
    races = [r for r in results if r["ruleId"] == "data-race"]
    deadlocks = [r for r in results
                 if r["ruleId"] in ("lock-order-deadlock", "deadlock")]
    problems = []
    if len(races) != len(report["races"]):
        problems.append(f"{len(races)} race results, JSON has {len(report['races'])}")
    if len(deadlocks) != len(report["deadlocks"]):
        problems.append(f"{len(deadlocks)} deadlock results, JSON has {len(report['deadlocks'])}")
    for res, race in zip(races, report["races"]):
        w = race["witness"]
        flows = res["codeFlows"][0]["threadFlows"]
        steps = sorted((loc["executionOrder"], loc) for fl in flows
                       for loc in fl["locations"])
        if [s[0] for s in steps] != list(range(1, len(w) + 1)):
            problems.append(f"execution order of {w} is not 1..{len(w)}")
        essential = [i for i, (_, loc) in enumerate(steps)
                     if loc["importance"] == "essential"]
        if essential != [len(w) - 2, len(w) - 1]:
            problems.append(f"essential steps {essential} are not the racing pair")
        threads = {fl["id"] for fl in flows}
        if len(threads) != len(flows):
            problems.append("two thread flows for one thread")
    for res, d in zip(deadlocks, report["deadlocks"]):
        want = "lock-order-deadlock" if d["kind"] == "lock-order" else "deadlock"
        if res["ruleId"] != want:
            problems.append(f"{d['kind']} deadlock reported as {res['ruleId']}")
        flows = res["codeFlows"][0]["threadFlows"]
        steps = sorted((loc["executionOrder"], loc) for fl in flows
                       for loc in fl["locations"])
        n, k = len(d["witness"]), len(d["blocked"])
        essential = [i for i, (_, loc) in enumerate(steps)
                     if loc["importance"] == "essential"]
        if essential != list(range(n, n + k)):
            problems.append(f"essential steps {essential} are not the "
                            f"{k} blocked events after the witness")
        if len(res["relatedLocations"]) != k:
            problems.append("not one related location per blocked thread")
    if problems:
        sys.exit(f"{trace}: " + "; ".join(problems))
    print(f"{trace}: {len(races)} race(s), {len(deadlocks)} deadlock(s), valid SARIF")


if __name__ == "__main__":
    main()
