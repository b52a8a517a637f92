#!/usr/bin/env python3
"""End-to-end check of `racepredict analyze --deadlocks` on a text trace.

The trace declares what it expects, in comment lines:
    # expect-deadlock: 3 7      every deadlocking set with --all-pairs: the
    # expect-deadlock: 3 7 10   blocked events of each (one line per set),
    # expect-deadlock: none     or none at all
    # expect-default: 3 7 10    the sets the default report keeps (optional)
    # expect-kind: lock-order   the default findings' kinds, in order
    # expect-reason: ...        a sentence some blocked thread's reason is
The script fails unless the sets are exactly the expected ones (also with
--whole-trace, which decides no query on a slice), the exit
status is 1 (found) or 0 (none), each witness lists an event at most once
and none of the blocked ones, and `check-witness` accepts every witness of
both reports and every --witness-dir deadlock file.
"""
import json
import os
import subprocess
import sys
import tempfile


def analyze(binary, trace, extra, witness_dir=None):
    cmd = [binary, "analyze", "--deadlocks", "--format", "json"] + extra
    if witness_dir:
        cmd += ["--witness-dir", witness_dir]
    p = subprocess.run(cmd + [trace], capture_output=True, text=True,
                       timeout=600)
    if p.returncode not in (0, 1):
        sys.exit(f"{trace}: analyze exited {p.returncode}: {p.stderr}")
    return p.returncode, json.loads(p.stdout), p.stdout


def sets(report):
    return {frozenset(b["event"] for b in d["blocked"])
            for d in report["deadlocks"]}


def show(s):
    return sorted(sorted(x) for x in s)


def main():
    binary, trace = sys.argv[1], sys.argv[2]
    want_all, want_default, kinds, reasons = set(), None, None, []
    saw = False
    with open(trace) as f:
        for line in f:
            words = line.split()
            if line.startswith("# expect-deadlock:"):
                saw = True
                if words[2:] != ["none"]:
                    want_all.add(frozenset(int(w) for w in words[2:]))
            elif line.startswith("# expect-default:"):
                want_default = want_default or set()
                want_default.add(frozenset(int(w) for w in words[2:]))
            elif line.startswith("# expect-kind:"):
                kinds = words[2:]
            elif line.startswith("# expect-reason:"):
                reasons.append(line.split(":", 1)[1].strip())
    if not saw:
        sys.exit(f"{trace}: no '# expect-deadlock:' line")
    errors = []
    status, report, text = analyze(binary, trace, ["--all-pairs"])
    if sets(report) != want_all:
        errors.append(f"--all-pairs sets {show(sets(report))} != expected "
                      f"{show(want_all)}")
    if status != (1 if want_all else 0):
        errors.append(f"exit status {status}")
    for d in report["deadlocks"]:
        w = d["witness"]
        blocked = {b["event"] for b in d["blocked"]}
        if len(set(w)) != len(w) or blocked & set(w):
            errors.append(f"bad witness {w} for {sorted(blocked)}")
    # Slicing changes no verdict: the whole-trace formula finds the same
    # sets (docs/slicing.md, "Deadlock queries").
    _, wreport, wtext = analyze(binary, trace, ["--all-pairs", "--whole-trace"])
    if sets(wreport) != want_all:
        errors.append(f"--whole-trace sets {show(sets(wreport))} != expected "
                      f"{show(want_all)}")
    if wreport["stats"]["deadlock"]["sliced_calls"] != 0:
        errors.append("--whole-trace decided a query on a slice")
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in (("report.json", text), ("whole.json", wtext)):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(body)
            cw = subprocess.run([binary, "check-witness", trace, path],
                                capture_output=True, text=True, timeout=600)
            if cw.returncode != 0:
                errors.append(f"check-witness rejects {name}: " + cw.stdout)
        wdir = os.path.join(tmp, "witnesses")
        _, dreport, _ = analyze(binary, trace, [], wdir)
        if want_default is not None and sets(dreport) != want_default:
            errors.append(f"default sets {show(sets(dreport))} != expected "
                          f"{show(want_default)}")
        if kinds is not None and [d["kind"] for d in
                                  dreport["deadlocks"]] != kinds:
            errors.append(f"kinds {[d['kind'] for d in dreport['deadlocks']]}"
                          f" != expected {kinds}")
        got_reasons = [b["reason"] for d in dreport["deadlocks"]
                       for b in d["blocked"]]
        for r in reasons:
            if r not in got_reasons:
                errors.append(f"no blocked thread's reason is '{r}' "
                              f"(reasons: {got_reasons})")
        files = sorted(os.listdir(wdir)) if os.path.isdir(wdir) else []
        deadlock_files = [f for f in files if f.startswith("deadlock-")]
        if len(deadlock_files) != len(dreport["deadlocks"]):
            errors.append(f"{len(deadlock_files)} deadlock witness files for "
                          f"{len(dreport['deadlocks'])} deadlocks")
        for name in deadlock_files:
            with open(os.path.join(wdir, name)) as f:
                wj = json.load(f)
            if wj.get("kind") != "deadlock" or "steps" not in wj:
                errors.append(f"{name}: not a deadlock witness file")
            cw = subprocess.run([binary, "check-witness", trace,
                                 os.path.join(wdir, name)],
                                capture_output=True, text=True, timeout=600)
            if cw.returncode != 0:
                errors.append(f"check-witness rejects {name}: {cw.stdout}")
    if errors:
        sys.exit(f"{trace}: " + "; ".join(errors))
    print(f"{trace}: {len(want_all)} deadlocking set(s) as expected")


if __name__ == "__main__":
    main()
