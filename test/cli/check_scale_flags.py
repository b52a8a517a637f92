#!/usr/bin/env python3
"""End-to-end check of the issue-7 analysis flags on Carril's Fig. 5.17.

    check_scale_flags.py RACEPREDICT FIG517_TRACE

* --window: with windows of 8 events the race (which needs the whole worker
  loop moved before main's loop) is lost; one window of 40 events is the
  whole analysis.
* --whole-trace decides the same pairs as the default slices.
* --budget-s with a budget already spent: every candidate is unknown
  (exit 4), never "no race".
* --hb: counted pairs, one pair per source-location pair, and how many of
  those location pairs are predicted.
* -j: the same report for 1 and 2 workers.
* --progress (issue 17): candidates decided / total on one redrawn stderr
  line, the total shrinking when a source-location pair has its race;
  nothing without a terminal unless asked.
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def run(rp, trace, *flags):
    p = subprocess.run([rp, "analyze", trace, "--format", "json", *flags],
                       capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1, 4):
        sys.exit(f"analyze {' '.join(flags)} exited {p.returncode}: {p.stderr}")
    return p.returncode, json.loads(p.stdout)


def pairs(rep):
    return sorted((r["first"]["event"], r["second"]["event"]) for r in rep["races"])


def main():
    rp, fig = sys.argv[1], sys.argv[2]
    errors = []
    want = [(1, 34), (2, 33), (2, 34)]
    rc, rep = run(rp, fig, "--all-pairs")
    if pairs(rep) != want or rc != 1:
        errors.append(f"default: {pairs(rep)} exit {rc}")
    rc, rep = run(rp, fig, "--all-pairs", "--window", "8")
    if pairs(rep) or rc != 0:
        errors.append(f"--window 8: {pairs(rep)} exit {rc} (the race needs the whole loop)")
    _, rep = run(rp, fig, "--all-pairs", "--window", "40")
    if pairs(rep) != want:
        errors.append(f"--window 40: {pairs(rep)}")
    _, rep = run(rp, fig, "--all-pairs", "--whole-trace")
    if pairs(rep) != want:
        errors.append(f"--whole-trace: {pairs(rep)}")
    rc, rep = run(rp, fig, "--all-pairs", "--budget-s", "0.000000001")
    reasons = {u["reason"] for u in rep["unknown"]}
    if rc != 4 or rep["races"] or len(rep["unknown"]) != 3 or \
            reasons != {"trace budget exhausted"}:
        errors.append(f"--budget-s: exit {rc}, {len(rep['unknown'])} unknown {reasons}")
    _, one = run(rp, fig, "-j", "1")
    _, two = run(rp, fig, "-j", "2")
    if one["races"] != two["races"] or len(one["races"]) != 1:
        errors.append("-j 1 and -j 2 differ")
    # --hb on Fig. 5.17: the observed lock hand-off orders everything.
    _, rep = run(rp, fig, "--hb")
    if rep["hb"]["count"] != 0 or rep["hb"]["groups"] != 0:
        errors.append(f"--hb on fig517: {rep['hb']}")
    # --hb on unsynchronised accesses: two racing pairs, one location pair.
    with tempfile.NamedTemporaryFile("w", suffix=".rpt.txt", delete=False) as f:
        f.write("t1 fork t2\nt1 wr x 1 @a.c:1\nt2 rd x 1 @a.c:2\n"
                "t2 rd x 1 @a.c:2\n")
        small = f.name
    try:
        _, rep = run(rp, small, "--hb")
        hb = rep["hb"]
        if (hb["count"], hb["groups"], hb["groups_also_predicted"]) != (2, 1, 1) \
                or len(hb["races"]) != 1:
            errors.append(f"--hb: {hb}")
        _, rep = run(rp, small, "--hb", "--all-pairs")
        if sorted(map(tuple, rep["hb"]["races"])) != [(1, 2), (1, 3)]:
            errors.append(f"--hb --all-pairs: {rep['hb']}")
    finally:
        os.remove(small)
    # A long witness (N = 100): the text report folds t1's loop into one line.
    lines = ["init x 0", "init y 0", "t0 fork t1", "t0 rd x 0 @f.c:21",
             "t0 wr x 1 @f.c:21"]
    y = 0
    for th in ("t0", "t1"):
        for _ in range(100):
            lines += [f"{th} acq m", f"{th} rd y {y}", f"{th} wr y {y + 1}",
                      f"{th} rel m", f"{th} br <-"]
            y += 1
    lines += ["t1 rd x 1 @f.c:14", "t1 wr x 2 @f.c:14"]
    with tempfile.NamedTemporaryFile("w", suffix=".rpt.txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        long_trace = f.name
    try:
        p = subprocess.run([rp, "analyze", long_trace], capture_output=True,
                           text=True, timeout=600)
        out = p.stdout
        # Main's fork and rd x, 497 of the worker's loop events folded, its last
        # three shown (issue 19's condensed witness), then the pair.
        if p.returncode != 1 or "Witness schedule (504 steps" not in out or \
                "… 497 steps of t1 …" not in out or \
                out.count("<== racing access") != 2:
            errors.append("long witness text:\n" + out[:3000])
    finally:
        os.remove(long_trace)
    # --progress: the line ends at every candidate decided; not in a log
    # by default. Default mode: the group's first pair races, the other
    # two are no longer counted.
    def progress(*flags):
        """The progress lines drawn, without their elapsed time."""
        p = subprocess.run([rp, "analyze", fig, "-o", os.devnull, *flags],
                           capture_output=True, timeout=600)
        lines = p.stderr.decode().split("\r\x1b[K")
        return [re.sub(r", \d+:\d\d elapsed$", "", l) for l in lines if l]
    want_lines = [f"racepredict analyze: races: {n}/{t} candidates decided, "
                  "0 unknown" for n, t in ((0, 0), (0, 3), (1, 3), (2, 3), (3, 3))]
    got = progress("--all-pairs", "--progress")
    # (the ticker may redraw a line once more)
    if [l for i, l in enumerate(got) if i == 0 or l != got[i - 1]] != want_lines:
        errors.append(f"--progress --all-pairs: {got}")
    got = progress("--progress")
    if not got or got[-1] != "racepredict analyze: races: 1/1 candidates " \
            "decided, 0 unknown":
        errors.append(f"--progress: {got}")
    got = progress("--progress", "--deadlocks")
    if not got or got[-1] != "racepredict analyze: deadlocks: 0/0 candidates " \
            "decided, 0 unknown":
        errors.append(f"--progress --deadlocks: {got}")
    if progress("--all-pairs"):
        errors.append("progress line without a terminal")
    if errors:
        sys.exit("; ".join(errors))
    print("ok")


if __name__ == "__main__":
    main()
