#!/usr/bin/env python3
"""Thread churn (docs/recording.md, "Thread churn"): churn_lock_order.c
creates and joins 20,000 pairs of threads under a 1 GiB address-space limit
(RLIMIT_AS). Each thread's recorder state (its 256 KiB buffer included) is
reused once the thread has ended, so the run needs the state of three
threads at a time; before, it needed 40,000 mappings (10 GB of address
space) and failed with `out of memory (mmap failed)`. The trace must be
whole and consistent, with 40,001 threads and every join."""
import argparse
import os
import re
import resource
import subprocess
import sys

PAIRS = 20000


def limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    exe = os.path.join(a.workdir, "churn_lock_order")
    trace = exe + ".rptrace"
    if subprocess.run([a.cc, "-O1", a.src, "-o", exe]).returncode != 0:
        sys.exit("FAIL: compilation failed")
    env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}")
    p = subprocess.run([exe, str(PAIRS), "same"], env=env, timeout=240,
                       preexec_fn=limit_address_space, capture_output=True,
                       text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: exit status {p.returncode}: {p.stderr[-500:]}")
    r = subprocess.run([a.racepredict, "check-trace", trace],
                       capture_output=True, text=True)
    m = re.search(r"consistent \((\d+) events, (\d+) threads\)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"FAIL: check-trace: {r.stdout[-500:]}{r.stderr[-500:]}")
    if int(m.group(2)) != 2 * PAIRS + 1:
        sys.exit(f"FAIL: {m.group(2)} threads, expected {2 * PAIRS + 1}")
    text = trace + ".txt"
    subprocess.run([a.racepredict, "convert", trace, text], check=True)
    joins = sum(1 for line in open(text) if " join " in line)
    os.remove(text)
    if joins != 2 * PAIRS:
        sys.exit(f"FAIL: {joins} joins recorded, expected {2 * PAIRS}")
    print(f"ok: {m.group(1)} events, {m.group(2)} threads, {joins} joins")


if __name__ == "__main__":
    main()
