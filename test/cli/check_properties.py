#!/usr/bin/env python3
"""End-to-end check of `racepredict analyze --property` on a text trace.

    check_properties.py RACEPREDICT TRACE PROPS [--sarif VALIDATOR]

The trace declares what must be found in comment lines:
    # expect-violation: PROPERTY E1 E2 ...   (step events in step order;
                                             one line per instance)
    # expect-violation: none
Runs analyze --all-pairs --format json and fails unless the set of
(property, events) is exactly the expected one, no violation is one the
observed run already shows (each is predicted), every witness ends with its
last step, the exit status is 1 (violations) or 0 (none), `check-witness
--property` accepts the report and every --witness-dir file (which carry
"kind": "violation", the events and the steps with halves), and, with
--sarif, Microsoft's validator accepts the SARIF log, which has one
property-violation result per violation. With a budget too small for any
query (--rlimit 1) the run is inconclusive (exit 4) and lists the undecided
candidates under "unknown".
"""
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, ok=(0, 1)):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr}")
    return p


def main():
    rp, trace, props = sys.argv[1:4]
    validator = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--sarif" \
        else None
    expected, saw = set(), False
    with open(trace) as f:
        for line in f:
            if line.startswith("# expect-violation:"):
                saw = True
                words = line.split()[2:]
                if words != ["none"]:
                    expected.add((words[0], tuple(int(w) for w in words[1:])))
    if not saw:
        sys.exit(f"{trace}: no '# expect-violation:' line")
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        wdir = os.path.join(tmp, "w")
        p = run([rp, "analyze", trace, "--property", props, "--all-pairs",
                 "--format", "json", "--witness-dir", wdir])
        report = json.loads(p.stdout)
        got = {(v["property"], tuple(e["event"] for e in v["events"]))
               for v in report["violations"]}
        if got != expected:
            errors.append(f"violations {sorted(got)} != expected "
                          f"{sorted(expected)}")
        if (p.returncode == 1) != bool(expected):
            errors.append(f"exit status {p.returncode}")
        if report["races"]:
            errors.append("--property alone must not predict races")
        for v in report["violations"]:
            if v["observed"]:
                errors.append(f"{v['property']}: the observed run already "
                              "violates it (the test must predict it)")
            if v["witness"][-1] != v["events"][-1]["event"]:
                errors.append(f"{v['property']}: witness does not end with "
                              "its last step")
        rpath = os.path.join(tmp, "report.json")
        with open(rpath, "w") as f:
            f.write(p.stdout)
        c = run([rp, "check-witness", trace, rpath, "--property", props],
                ok=(0, 1, 2))
        if c.returncode != 0:
            errors.append(f"check-witness rejects the report: {c.stdout}"
                          f"{c.stderr}")
        files = sorted(os.listdir(wdir)) if os.path.isdir(wdir) else []
        want = [f"violation-{i}.json" for i in range(len(report["violations"]))]
        if sorted(files) != sorted(want):
            errors.append(f"witness files {files} != {want}")
        for name in files:
            path = os.path.join(wdir, name)
            with open(path) as f:
                w = json.load(f)
            if w["kind"] != "violation" or not w["steps"] or \
                    [s["event"] for s in w["steps"] if not s["half"]] != \
                    w["witness"]:
                errors.append(f"{name}: malformed witness file")
            c = run([rp, "check-witness", trace, path, "--property", props],
                    ok=(0, 1, 2))
            if c.returncode != 0:
                errors.append(f"check-witness rejects {name}: {c.stdout}")
        if expected:
            # Out of budget: never "no violation" (exit 4), each undecided
            # candidate listed under "unknown" with its property.
            u = run([rp, "analyze", trace, "--property", props, "--all-pairs",
                     "--format", "json", "--rlimit", "1"], ok=(4,))
            ureport = json.loads(u.stdout)
            if ureport["violations"] or not ureport["unknown"] or \
                    any(x["property"] not in {e[0] for e in expected}
                        for x in ureport["unknown"]):
                errors.append("--rlimit 1: expected only unknowns, got "
                              f"{ureport['violations']} / {ureport['unknown']}")
        if validator:
            s = run([rp, "analyze", trace, "--property", props, "--all-pairs",
                     "--format", "sarif"])
            sarif = json.loads(s.stdout)
            spath = os.path.join(tmp, "r.sarif")
            with open(spath, "w") as f:
                f.write(s.stdout)
            v = subprocess.run([validator, "validate", "--rule-kind",
                                "Gh;Sarif", spath], capture_output=True,
                               text=True, timeout=300)
            bad = [l for l in v.stdout.splitlines() if ": error " in l]
            if v.returncode != 0 or bad:
                errors.append(f"SARIF validator: {v.stdout}{v.stderr}")
            results = [r for r in sarif["runs"][0]["results"]
                       if r["ruleId"] == "property-violation"]
            if len(results) != len(report["violations"]):
                errors.append(f"{len(results)} SARIF results for "
                              f"{len(report['violations'])} violations")
    if errors:
        print("\n".join(errors))
        return 1
    print(f"ok: {len(got)} violation(s) {sorted(got)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
