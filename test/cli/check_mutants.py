#!/usr/bin/env python3
"""Issue 21's property through the command line: mutants of our own text
traces (lines dropped, duplicated, swapped, values, threads, objects and ops
replaced; test/model/mutation_test.cpp does the same in-process on random
traces) given to `analyze --races --deadlocks --all-pairs --format json`
exit 0, 1 or 4 with a report whose every witness `check-witness` accepts,
or exit 2 with the position (`FILE:LINE:`); never 3, never a signal.

    check_mutants.py RACEPREDICT INPUTS_DIR WORKDIR [COUNT]
"""
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys

RP, INPUTS, W = sys.argv[1:4]
COUNT = int(sys.argv[4]) if len(sys.argv) > 4 else 60
OPS = ["acq", "rel", "rd", "wr", "fork", "join", "wait", "signal", "br",
       "begin", "end", "semwait", "post", "barrier", "tryfail", "racq"]
NAMES = ["t0", "t1", "t2", "t3", "x", "y", "m", "n", "c", "s", "b"]


def mutate(lines, rnd):
    lines = list(lines)
    for _ in range(rnd.randint(1, 3)):
        if not lines:
            break
        i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        w = lines[i].split()
        k = rnd.randrange(8)
        if k == 0:
            del lines[i]
        elif k == 1:
            lines.insert(j, lines[i])
        elif k == 2 and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif k == 3:
            lines.insert(j, lines.pop(i))
        elif k == 4 and w:
            nums = [p for p in range(1, len(w)) if w[p].lstrip("-").isdigit()]
            if nums:
                w[nums[-1]] = str(rnd.randrange(4))
            lines[i] = " ".join(w)
        elif k == 5 and w:
            w[0] = rnd.choice(NAMES[:4])
            lines[i] = " ".join(w)
        elif k == 6 and len(w) > 2:
            w[rnd.randrange(2, len(w))] = rnd.choice(NAMES)
            lines[i] = " ".join(w)
        elif k == 7 and len(w) > 1:
            w[1] = rnd.choice(OPS)
            lines[i] = " ".join(w)
    return lines


def main():
    shutil.rmtree(W, ignore_errors=True)
    os.makedirs(W)
    bases = sorted(glob.glob(os.path.join(INPUTS, "paper", "*.rpt.txt")) +
                   glob.glob(os.path.join(INPUTS, "deadlock", "*.rpt.txt")))
    rnd = random.Random(21)
    failures, outcomes = [], {}
    for n in range(COUNT):
        base = bases[n % len(bases)]
        with open(base) as f:
            lines = [ln for ln in f.read().splitlines()
                     if ln.strip() and not ln.startswith("#")]
        trace = os.path.join(W, f"mutant{n}.rpt.txt")
        with open(trace, "w") as f:
            f.write("\n".join(mutate(lines, rnd)) + "\n")
        r = subprocess.run([RP, "analyze", "--races", "--deadlocks",
                            "--all-pairs", "--format", "json", trace],
                           capture_output=True, text=True, timeout=300)
        outcomes[r.returncode] = outcomes.get(r.returncode, 0) + 1
        what = f"{trace} (from {os.path.basename(base)})"
        if r.returncode == 2:
            if not re.match(re.escape(f"racepredict: {trace}:") + r"\d+: ",
                            r.stderr):
                failures.append(f"{what}: exit 2 without a position: "
                                f"{r.stderr!r}")
            continue
        if r.returncode not in (0, 1, 4):
            failures.append(f"{what}: exit {r.returncode}: {r.stderr!r}")
            continue
        report = trace + ".json"
        with open(report, "w") as f:
            f.write(r.stdout)
        c = subprocess.run([RP, "check-witness", trace, report],
                           capture_output=True, text=True, timeout=300)
        if c.returncode != 0:
            failures.append(f"{what}: check-witness exit {c.returncode}: "
                            f"{c.stdout}{c.stderr}")
    for f in failures:
        print("FAIL:", f)
    print(f"{COUNT} mutants, exit statuses {sorted(outcomes.items())}")
    # Both outcomes must occur, or the property says little.
    if not failures and (outcomes.get(2, 0) == 0 or
                         outcomes.get(0, 0) + outcomes.get(1, 0) == 0):
        failures.append("mutants were all rejected or all analysed")
        print("FAIL:", failures[-1])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
