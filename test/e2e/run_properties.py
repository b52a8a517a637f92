#!/usr/bin/env python3
"""End-to-end test of custom properties on a use case of Carril 2017 §6.

    run_properties.py --cc CC --racepredict RP --case DIR --workdir W --opt -O0

DIR holds buggy.c, fixed.c, events.spec (the instrumentation spec given to
`racepredict-cc --events`) and properties.props. For each program: compile
with the spec, run (the observed schedule is fixed with testonly.h's pipe,
which the recorder does not see), check-trace, then
`analyze --property --all-pairs --format json --witness-dir`, and compare
the violations, as (property, file:line of each step's event), exactly with
the program's annotations:

    ... // @NAME                       an anchor (its line; also in the
                                       case's own headers)
    // expect-violation: PROP A B C    one violation, anchors in step order
    // expect-replay: diverged         replay cannot enforce the witnesses
                                       (hidden synchronisation): each must
                                       end diverged, never confirmed

fixed.c must have none. Also: the observed run shows no violation at all
(stats.property.observed == 0: every one is predicted), every violation's
witness ends with its last step, and check-witness --property accepts the
report and every violation-<n>.json, which carry the step list with halves.

Then replay confirmation: `run --property` (record, predict, replay) must
report the same violations, every one `"replay": "confirmed"`, and
`replay --schedule violation-<n>.json` must confirm each again (exit 1).
"""
import argparse
import json
import os
import re
import subprocess
import sys


def anchors_in(path, anchors):
    """Anchors of `path` and of the case's own headers it includes."""
    with open(path) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        m = re.search(r"//\s*@(\w+)\s*$", line)
        if m:
            anchors[m.group(1)] = f"{os.path.basename(path)}:{n}"
        m = re.match(r'#include "(\w+\.h)"', line)
        header = m and os.path.join(os.path.dirname(path), m.group(1))
        if header and os.path.exists(header):
            anchors_in(header, anchors)
    return lines


def expected_replay(src):
    """The replay verdict every violation of `src` must get."""
    with open(src) as f:
        m = re.search(r"expect-replay:\s*(\w[\w-]*)", f.read())
    return m.group(1) if m else "confirmed"


def anchors_and_expectations(src):
    anchors = {}
    lines = anchors_in(src, anchors)
    want = set()
    for line in lines:
        m = re.search(r"expect-violation:\s*(\w+)((?:\s+\w+)+)", line)
        if m:
            want.add((m.group(1),
                      tuple(anchors[a] for a in m.group(2).split())))
    return want


def file_line(loc):
    parts = loc.split(":")
    return f"{os.path.basename(parts[0])}:{parts[1]}" if len(parts) > 1 else loc


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw)


def check(a, prog, spec, props, here):
    src = os.path.join(a.case, prog)
    name = os.path.basename(a.case) + "_" + prog[:-2] + a.opt.replace("-", "_")
    exe = os.path.join(a.workdir, name)
    trace = exe + ".rptrace"
    wdir = exe + ".witness"
    if run([a.cc, a.opt, "--events", spec, "-I", here, src, "-o", exe]) \
            .returncode != 0:
        return "compilation failed"
    env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}")
    r = run([exe], env=env, timeout=60)
    if r.returncode != 0:
        return f"{prog} exited with {r.returncode}"
    if run([a.racepredict, "check-trace", trace]).returncode != 0:
        return "check-trace found the trace inconsistent"
    if os.path.isdir(wdir):
        for f in os.listdir(wdir):
            os.remove(os.path.join(wdir, f))
    rpt = exe + ".json"
    r = run([a.racepredict, "analyze", trace, "--property", props,
             "--all-pairs", "--format", "json", "--witness-dir", wdir,
             "-o", rpt], timeout=600)
    if r.returncode not in (0, 1):
        return f"analyze exited with {r.returncode}"
    with open(rpt) as f:
        report = json.load(f)
    got = {(v["property"], tuple(file_line(e["loc"]) for e in v["events"]))
           for v in report["violations"]}
    want = anchors_and_expectations(src)
    if got != want:
        print("expected violations:")
        for w in sorted(want):
            print("  ", w)
        print("predicted violations:")
        for g in sorted(got):
            print("  ", g)
        return f"{prog}: predicted violations differ from the expectation"
    if (r.returncode == 1) != bool(want):
        return f"{prog}: analyze exit status {r.returncode}"
    if report["stats"]["property"]["observed"] != 0:
        return f"{prog}: the observed run itself violates a property"
    for v in report["violations"]:
        if v["witness"][-1] != v["events"][-1]["event"]:
            return f"{prog}: a witness does not end with its last step"
    c = run([a.racepredict, "check-witness", trace, rpt, "--property", props])
    if c.returncode != 0:
        return f"{prog}: check-witness rejects the report"
    files = sorted(os.listdir(wdir)) if os.path.isdir(wdir) else []
    if len(files) != len(report["violations"]):
        return f"{prog}: {len(files)} witness files"
    for f in files:
        path = os.path.join(wdir, f)
        with open(path) as fh:
            w = json.load(fh)
        if w["kind"] != "violation" or not any(s["event"] == w["witness"][-1]
                                               for s in w["steps"]):
            return f"{prog}: {f} is malformed"
        if run([a.racepredict, "check-witness", trace, path, "--property",
                props]).returncode != 0:
            return f"{prog}: check-witness rejects {f}"
    verdict = expected_replay(src)
    err = check_replay(a, prog, exe, props, want, verdict)
    if err:
        return err
    print(f"ok: {prog}: {len(got)} violation(s), each {verdict} by replay")
    return None


def check_replay(a, prog, exe, props, want, verdict):
    """`run --property` records anew, predicts and replays every violation:
    each must get `verdict` (--report-all lists the unconfirmed too), and
    `replay` of each witness file `run` wrote must give it again. Only
    confirmed violations make run and replay exit 1; violations predicted
    but not confirmed make run exit 4 (never a clean 0)."""
    confirmed = verdict == "confirmed"
    # A diverging replay waits for the step that never comes: not 3 s.
    step = [] if confirmed else ["--step-timeout-ms", "800"]
    wdir = exe + ".run"
    if os.path.isdir(wdir):
        for f in os.listdir(wdir):
            os.remove(os.path.join(wdir, f))
    rpt = exe + ".run.json"
    r = run([a.racepredict, "run", "--property", props, "--all-pairs",
             "--report-all", "--format", "json", "--witness-dir", wdir,
             "-o", rpt, *step, "--", exe], timeout=600)
    if r.returncode != (0 if not want else 1 if confirmed else 4):
        return f"{prog}: run exit status {r.returncode}"
    with open(rpt) as f:
        report = json.load(f)
    got = {(v["property"], tuple(file_line(e["loc"]) for e in v["events"]))
           for v in report["violations"]}
    if got != want:
        print("run reported:", sorted(got))
        return f"{prog}: run's violations differ from the expectation"
    for v in report["violations"]:
        if v["replay"] != verdict:
            return (f"{prog}: {v['property']} replayed {v['replay']}, not "
                    f"{verdict}: {v['replay_detail']['message']}")
    stat = verdict.replace("-", "_")
    if report["stats"]["replay"][stat] != len(report["violations"]):
        return f"{prog}: stats.replay.{stat} is wrong"
    files = sorted(f for f in os.listdir(wdir) if f.startswith("violation-"))
    if len(files) != len(report["violations"]):
        return f"{prog}: run wrote {len(files)} violation witness files"
    for f in files:
        r = run([a.racepredict, "replay", "-q", "--schedule",
                 os.path.join(wdir, f), *step, "--", exe], capture_output=True,
                text=True, timeout=120)
        if r.returncode != (1 if confirmed else 4) or \
                not r.stdout.startswith(f"racepredict replay: {verdict}"):
            print(r.stdout, r.stderr)
            return f"{prog}: replay of {f} did not give {verdict} ({r.returncode})"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--opt", default="-O0")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
    spec = os.path.join(a.case, "events.spec")
    props = os.path.join(a.case, "properties.props")
    for prog in ("buggy.c", "fixed.c"):
        err = check(a, prog, spec, props, here)
        if err:
            print("FAIL:", err)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
