#!/usr/bin/env python3
"""fork, exec and spawned programs while recording (docs/recording.md, "fork
and exec"; issue 21.9): fork_exec.c with RACEPREDICT_OPTIONS=trace=T.

fork:  T holds the parent's race (@P P), T's stem + .<child pid>.rptrace the
       child's (@C C), both whole (END) and consistent.
exec:  T holds the race of main and the worker before the exec (@M W) and a
       STOP block naming the new program and <stem>.exec.rptrace, which
       holds the new image's race (@A A).
spawn: system() starts the program again; it finds T taken and records
       into <stem>.<pid>.rptrace (@A A); T keeps the parent's race (@P P)."""
import argparse
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from annotations import Annotations, file_line  # noqa: E402

FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL:", msg, flush=True)


def analyse(rp, trace):
    """(races as file:line pairs, the report's "recording")."""
    if subprocess.run([rp, "check-trace", trace]).returncode != 0:
        check(False, f"check-trace rejects {trace}")
        return set(), None
    r = subprocess.run([rp, "analyze", "--format", "json", trace],
                       stdout=subprocess.PIPE, text=True)
    j = json.loads(r.stdout)
    return ({tuple(sorted((file_line(x["first"]["loc"]),
                           file_line(x["second"]["loc"]))))
             for x in j["races"]}, j.get("recording"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    exe = os.path.join(a.workdir, "fork_exec")
    if subprocess.run([a.cc, "-O1", a.src, "-o", exe]).returncode != 0:
        sys.exit("FAIL: compilation failed")
    anchors = Annotations(a.src).anchors
    pair = lambda x, y: {tuple(sorted((anchors[x], anchors[y])))}  # noqa
    stem = os.path.join(a.workdir, "fe")
    trace = stem + ".rptrace"

    def record(mode):
        for old in glob.glob(stem + ".*rptrace"):
            os.remove(old)
        env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}")
        return subprocess.run([exe, mode], env=env, stdout=subprocess.PIPE,
                              text=True, timeout=120)

    p = record("fork")
    check(p.returncode == 0, f"fork: exit {p.returncode}")
    child = f"{stem}.{p.stdout.strip()}.rptrace"
    races, rec = analyse(a.racepredict, trace)
    check(races == pair("P", "P") and rec is None, f"fork parent: {races} {rec}")
    races, rec = analyse(a.racepredict, child)
    check(races == pair("C", "C") and rec is None, f"fork child: {races} {rec}")

    p = record("exec")
    check(p.returncode == 0, f"exec: exit {p.returncode}")
    races, rec = analyse(a.racepredict, trace)
    check(races == pair("M", "W"), f"exec, before: races {races}")
    check(rec is not None and rec["stopped"] == "exec" and
          rec["text"] == f"{exe} -> {stem}.exec.rptrace",
          f"exec, before: recording {rec}")
    races, rec = analyse(a.racepredict, stem + ".exec.rptrace")
    check(races == pair("A", "A") and rec is None, f"exec, after: {races}")

    p = record("spawn")
    check(p.returncode == 0, f"spawn: exit {p.returncode}")
    races, _ = analyse(a.racepredict, trace)
    check(races == pair("P", "P"), f"spawn, parent: races {races}")
    others = [t for t in glob.glob(stem + ".*.rptrace")]
    check(len(others) == 1, f"spawn: traces {others}")
    if others:
        races, _ = analyse(a.racepredict, others[0])
        check(races == pair("A", "A"), f"spawned: races {races}")
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
