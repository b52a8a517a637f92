#!/usr/bin/env python3
"""End-to-end test driver: compile a program with racepredict-cc/-c++, run
it, check the recorded trace's consistency (racepredict check-trace, plus
this directory's independent decoder), analyse it and compare the predicted
races with the program's expectations, exactly.

Expectations live in the program: a line ending in `// @NAME` is an anchor;
`// expect-race: A B` says the accesses at anchors A and B race (compared
as unordered `file:line` pairs); no expect-race line means no race at all.
`// expect-stack: A f g h` says every reported access at anchor A has the
call stack f (innermost), g, h (function names of the report's frames).
`// expect-location: NAME` says every reported race is on variable NAME.
`// same-without-local-reduction` analyses the trace again with
--no-local-reduction and expects the same racing event pairs, and with
--streaming-load and expects the same report (witnesses included).
`// expect-none-with: OPTS` records the program again with
RACEPREDICT_OPTIONS=OPTS (e.g. branch_deps=all) and expects no race then.
`// record-options: OPTS` adds OPTS to RACEPREDICT_OPTIONS when recording
(e.g. a long exit_grace_ms, so that a loaded machine cannot change what the
trace holds).

A program with `// expect-deadlock:` lines is also analysed with
--deadlocks: each such line is one predicted deadlock of the default report,
`THREAD@ANCHOR ...` naming every blocked thread and the line it blocks at
(`t0@J t1@L`), or `none`. The deadlocks must be exactly these, and
`check-witness` must accept the report's witnesses and every
--witness-dir deadlock file.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rptrace_dump  # noqa: E402
from annotations import Annotations, file_line  # noqa: E402


def short_name(function):
    """A demangled C++ name without template arguments, parameters and
    qualifiers (`WorkQueue::processed() const` -> `WorkQueue::processed`),
    as `expect-stack:` writes it."""
    out, depth = "", 0
    for c in function:
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif depth == 0:
            out += c
    return out.removesuffix(" const").strip()


def check_stacks(report, stacks):
    """Every race side at an anchor with an expected stack has it."""
    seen = set()
    for race in report["races"]:
        for side in (race["first"], race["second"]):
            loc = file_line(side["loc"])
            if loc not in stacks:
                continue
            frames = side.get("stack", [side["function"] + " " + side["loc"]])
            got = [short_name(f.rsplit(" ", 1)[0]) for f in frames]
            if got != stacks[loc]:
                return f"stack at {loc}: expected {stacks[loc]}, got {frames}"
            seen.add(loc)
    missing = set(stacks) - seen
    return f"no reported access at {sorted(missing)}" if missing else None



def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--opt", default="-O0")
    ap.add_argument("--check-only", action="store_true",
                    help="stop after the consistency checks (large traces)")
    ap.add_argument("--record-options", default="",
                    help="more RACEPREDICT_OPTIONS for the recording "
                    "(after the program's record-options)")
    a = ap.parse_args()

    os.makedirs(a.workdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(a.src))[0] + a.opt.replace("-", "_")
    if a.record_options:
        name += "_" + re.sub(r"\W", "_", a.record_options)
    exe = os.path.join(a.workdir, name)
    trace = exe + ".rptrace"
    if os.path.exists(trace):
        os.remove(trace)
    cflags = Annotations(a.src).cflags
    if run([a.cc, a.opt, *cflags, a.src, "-o", exe]).returncode != 0:
        return fail("compilation failed")
    options = f"trace={trace}"
    for m in re.finditer(r"record-options:\s*(\S+)", open(a.src).read()):
        options += ":" + m.group(1)
    if a.record_options:
        options += ":" + a.record_options
    env = dict(os.environ, RACEPREDICT_OPTIONS=options)
    r = run([exe], env=env, timeout=60)
    if r.returncode != 0:
        return fail(f"program exited with {r.returncode}")
    if run([a.racepredict, "check-trace", trace]).returncode != 0:
        return fail("check-trace found the trace inconsistent")
    events, _, ended = rptrace_dump.decode(trace)
    if not ended:
        return fail("the trace has no END block after a clean exit")
    if a.check_only:
        print(f"ok: {len(events)} events, consistent")
        return 0
    ann = Annotations(a.src)
    stacks, want, want_deadlocks = ann.stacks, ann.races, ann.deadlocks
    witness_dir = exe + ".witnesses"
    extra = []
    if want_deadlocks is not None:
        shutil.rmtree(witness_dir, ignore_errors=True)
        extra = ["--races", "--deadlocks", "--witness-dir", witness_dir]
    r = run([a.racepredict, "analyze", "--format", "json", *extra, trace],
            stdout=subprocess.PIPE, text=True, timeout=300)
    if r.returncode not in (0, 1):
        return fail(f"analyze exited with {r.returncode}")
    report = json.loads(r.stdout)
    if report["stats"]["events"] != len(events):
        return fail(f"analyze read {report['stats']['events']} events, the "
                    f"independent decoder {len(events)}")
    got = {tuple(sorted((file_line(x["first"]["loc"]),
                         file_line(x["second"]["loc"]))))
           for x in report["races"]}
    if got != want:
        print("expected races:", sorted(want))
        print("predicted races:", sorted(got))
        for x in report["races"]:
            print("  ", x["first"]["loc"], x["first"]["op"], "<->",
                  x["second"]["loc"], x["second"]["op"], x["location"])
        return fail("predicted races differ from the expectation")
    if want_deadlocks is not None:
        err = check_deadlocks(a, report, r.stdout, want_deadlocks, trace,
                              witness_dir)
        if err:
            return fail(err)
    if (r.returncode == 1) != bool(want or want_deadlocks):
        return fail(f"analyze exit status {r.returncode} does not match")
    if want_deadlocks is None:
        # Races are decided on the reduced trace; only a race's witness
        # needs the whole trace's index (docs/thread_local.md).
        stages = [x["stage"] for x in report["stats"]["stages"]]
        expected = ["load", "validate", "reduce", "races"] + (
            ["index"] if report["races"] else [])
        if stages != expected:
            return fail(f"stats.stages {stages}, expected {expected}")
    problem = check_stacks(report, stacks)
    if problem:
        return fail(problem)
    for m in re.finditer(r"expect-location:\s*(\S+)", open(a.src).read()):
        names = {x["location"] for x in report["races"]}
        if names != {m.group(1)}:
            return fail(f"races on {sorted(names)}, expected {m.group(1)}")
    if "// same-without-local-reduction" in open(a.src).read():
        # The thread-local reduction (docs/thread_local.md) changes no
        # verdict: the same racing events, found on the whole trace.
        r = run([a.racepredict, "analyze", "--format", "json",
                 "--no-local-reduction", trace],
                stdout=subprocess.PIPE, text=True, timeout=300)
        whole = json.loads(r.stdout)
        pairs = lambda rep: sorted((x["first"]["event"], x["second"]["event"])
                                   for x in rep["races"])
        if pairs(whole) != pairs(report):
            return fail(f"races {pairs(report)} with the thread-local "
                        f"reduction, {pairs(whole)} without")
        kept = report["stats"]["local_reduction"]["kept_events"]
        print(f"ok: the same races without the reduction ({kept} of "
              f"{len(events)} events kept)")
        # The reduction computed while loading, a few threads at a time
        # (docs/thread_local.md, "The streaming load"): the same report,
        # witnesses included, from its own stages.
        r = run([a.racepredict, "analyze", "--format", "json",
                 "--streaming-load", trace],
                stdout=subprocess.PIPE, text=True, timeout=300)
        streamed = json.loads(r.stdout)
        for key in ("races", "unknown"):
            if streamed[key] != report[key]:
                return fail(f"--streaming-load: other {key}: "
                            f"{streamed[key]} (whole: {report[key]})")
        if streamed["stats"]["local_reduction"] != \
                report["stats"]["local_reduction"]:
            return fail("--streaming-load: other reduction "
                        f"{streamed['stats']['local_reduction']}")
        if streamed["stats"].get("streaming_load", {}).get("passes", 0) < 3:
            return fail("--streaming-load: no stats.streaming_load")
        stages = [x["stage"] for x in streamed["stats"]["stages"]]
        expected = ["load", "validate", "races"] + (
            ["reload", "index"] if report["races"] else [])
        if stages != expected:
            return fail(f"--streaming-load: stats.stages {stages}, "
                        f"expected {expected}")
        print("ok: the same report with --streaming-load")
    for m in re.finditer(r"expect-none-with:\s*(\S+)", open(a.src).read()):
        other = exe + ".alt.rptrace"
        env = dict(os.environ,
                   RACEPREDICT_OPTIONS=f"trace={other}:{m.group(1)}")
        if run([exe], env=env, timeout=60).returncode != 0:
            return fail(f"program exited non-zero with {m.group(1)}")
        r = run([a.racepredict, "analyze", "--format", "json", other],
                stdout=subprocess.PIPE, text=True, timeout=300)
        alt = json.loads(r.stdout)
        if r.returncode != 0 or alt["races"]:
            return fail(f"with {m.group(1)} expected no race, got exit "
                        f"{r.returncode} and {len(alt['races'])} races")
        print(f"ok: no race with {m.group(1)} ({alt['stats']['events']} "
              "events)")
    print(f"ok: {len(events)} events, races {sorted(got)}")
    return 0


def check_deadlocks(a, report, text, want, trace, witness_dir):
    got = {tuple(sorted((b["thread"], file_line(b["loc"]))
                        for b in d["blocked"]))
           for d in report["deadlocks"]}
    if got != want:
        print("expected deadlocks:", sorted(want))
        print("predicted deadlocks:", sorted(got))
        for d in report["deadlocks"]:
            for b in d["blocked"]:
                print("  ", b["thread"], b["loc"], b["reason"])
        return "predicted deadlocks differ from the expectation"
    with open(trace + ".report.json", "w") as f:
        f.write(text)
    files = [os.path.join(trace + ".report.json")]
    if os.path.isdir(witness_dir):
        files += [os.path.join(witness_dir, n)
                  for n in sorted(os.listdir(witness_dir))
                  if n.startswith("deadlock-")]
    if len(files) != 1 + len(report["deadlocks"]):
        return "not one --witness-dir file per deadlock"
    for f in files:
        if run([a.racepredict, "check-witness", trace, f]).returncode != 0:
            return f"check-witness rejects {f}"
    print(f"deadlocks as expected: {sorted(got)}")
    return None


def fail(msg):
    print("FAIL:", msg)
    return 1


if __name__ == "__main__":
    sys.exit(main())
