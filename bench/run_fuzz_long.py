#!/usr/bin/env python3
"""Long libFuzzer runs of the readers (issue 21): each harness of test/fuzz
for SECONDS (default 600) under `nice -n 10`, one after another, from our
seed corpora plus what earlier runs kept in BUILD/fuzz/corpus. Prints a
Markdown table for bench/RESULTS.md (executions, rate, coverage, corpus,
peak RSS, crashes) and exits 1 if any harness crashed, leaked, hung or ran
out of memory (the input is then in BUILD/fuzz/artifacts/).

    bench/run_fuzz_long.py [--build BUILD] [--seconds S] [HARNESS...]
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

HARNESSES = ["binary_reader", "text_reader", "witness_reader",
             "property_parser"]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("harness", nargs="*", default=HARNESSES)
    a = ap.parse_args()
    run = os.path.join(root, "test", "fuzz", "run_fuzzers.sh")
    fuzz_dir = os.path.join(a.build, "fuzz")
    # The build's output goes to stderr: stdout is the table.
    if subprocess.run([run, "build", fuzz_dir],
                      stdout=sys.stderr).returncode != 0:
        sys.exit("building the fuzzers failed")
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short",
                             "HEAD"], capture_output=True, text=True).stdout
    print(f"Command: `bench/run_fuzz_long.py --seconds {a.seconds}` "
          f"(commit {commit.strip()}, {datetime.date.today()}, "
          f"{os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the start)\n")
    print("| harness | seconds | executions | exec/s | coverage (edges) | "
          "features | corpus | peak RSS MB | crashes |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    failed = False
    for h in a.harness:
        p = subprocess.run(["nice", "-n", "10", run, "run", fuzz_dir, h,
                            str(a.seconds)], capture_output=True, text=True)
        log = p.stdout + p.stderr
        with open(os.path.join(fuzz_dir, f"long-{h}.log"), "w") as f:
            f.write(log)

        def stat(name):
            m = re.search(rf"stat::{name}:\s*(\d+)", log)
            return int(m.group(1)) if m else 0
        last = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)/", log)
        cov, ft, corp = last[-1] if last else ("?", "?", "?")
        crashed = p.returncode != 0
        failed |= crashed
        print(f"| {h} | {a.seconds} | {stat('number_of_executed_units')} | "
              f"{stat('average_exec_per_sec')} | {cov} | {ft} | {corp} | "
              f"{stat('peak_rss_mb')} | {1 if crashed else 0} |", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
