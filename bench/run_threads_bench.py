#!/usr/bin/env python3
"""Thread benchmarks of the recorder (issue 16): the schedule and churn.

    bench/run_threads_bench.py [BUILD_DIR] [--compare OLD_BUILD] [--reps N]

Schedule: bench/record/unjoined_threads.c, whose threads are never joined
(detached request threads; a worker pool main never stops). For each shape,
the share of created threads that did their first write before the process
ended: natively (the program counts at exit) and recorded (threads whose
write is in the trace), the mean over --reps runs; --compare adds the share
recorded by another build (an older commit's).

Churn: test/e2e/programs/churn_lock_order.c, 20,000 create/join pairs ("same":
no run can deadlock), built plain, with TSan (report_bugs=0) and with
racepredict-cc: median wall and CPU seconds of --reps runs, peak RSS.

Prints markdown tables (with date, machine and commit) for bench/RESULTS.md.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_record_bench import CLANG, ROOT, measure, ratio  # noqa: E402

SCHEDULE = [("dispatch", 4), ("dispatch", 16), ("dispatch", 64),
            ("pool", 4), ("pool", 16), ("pool", 64)]
CHURN_PAIRS = "20000"


def build(cc, src, out, extra=()):
    subprocess.run([cc, "-O2", "-g", *extra, src, "-o", out], check=True)
    return out


def recorded_share(build_dir, binary, argv, n, reps, tmp):
    """Mean share of the n threads whose write of started[i] was recorded."""
    racepredict = os.path.join(build_dir, "bin", "racepredict")
    trace, text = os.path.join(tmp, "t.rptrace"), os.path.join(tmp, "t.txt")
    shares = []
    for _ in range(reps):
        env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}")
        subprocess.run([binary] + argv, env=env, check=True,
                       stderr=subprocess.DEVNULL)
        subprocess.run([racepredict, "convert", trace, text], check=True)
        threads = set()
        for line in open(text):
            m = re.match(r"(t\d+) wr started(\+\d+)? ", line)
            if m:
                threads.add(m.group(1))
        shares.append(len(threads) / n)
    return statistics.mean(shares)


def native_share(binary, argv, n, reps):
    shares = []
    for _ in range(reps):
        p = subprocess.run([binary] + argv, capture_output=True, text=True,
                           check=True)
        shares.append(int(re.search(r"started (\d+)", p.stderr).group(1)) / n)
    return statistics.mean(shares)


def schedule_table(a, tmp):
    src = os.path.join(ROOT, "bench", "record", "unjoined_threads.c")
    plain = build(CLANG, src, os.path.join(tmp, "plain"), ["-pthread"])
    builds = [("this build", a.build)] + (
        [("--compare build", a.compare)] if a.compare else [])
    bins = [build(os.path.join(b, "bin", "racepredict-cc"), src,
                  os.path.join(tmp, f"rp{i}")) for i, (_, b) in
            enumerate(builds)]
    print(f"| shape | threads | native | "
          + " | ".join(f"recorded ({name})" for name, _ in builds) + " |")
    print("|---|---:|---:|" + "---:|" * len(builds))
    for mode, n in SCHEDULE:
        argv = [mode, str(n)]
        row = [f"{native_share(plain, argv, n, a.reps):.2f}"]
        for (_, b), binary in zip(builds, bins):
            row.append(f"{recorded_share(b, binary, argv, n, a.reps, tmp):.2f}")
        print(f"| {mode} | {n} | " + " | ".join(row) + " |", flush=True)


def churn_table(a, tmp):
    src = os.path.join(ROOT, "test", "e2e", "programs", "churn_lock_order.c")
    plain = build(CLANG, src, os.path.join(tmp, "c.plain"), ["-pthread"])
    tsan = build(CLANG, src, os.path.join(tmp, "c.tsan"),
                 ["-fsanitize=thread"])
    rp = build(os.path.join(a.build, "bin", "racepredict-cc"), src,
               os.path.join(tmp, "c.rp"))
    argv = [CHURN_PAIRS, "same"]
    trace = os.path.join(tmp, "c.rptrace")
    p = measure(plain, argv, a.reps)
    t = measure(tsan, argv, a.reps,
                dict(os.environ, TSAN_OPTIONS="report_bugs=0"))
    r = measure(rp, argv, a.reps,
                dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}"), trace)
    print("| program | args | plain s (cpu) | TSan s (cpu) | racepredict s "
          "(cpu) | racepredict ÷ TSan, cpu (wall) | peak MB plain / TSan / "
          "racepredict | trace MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    print(f"| churn_lock_order.c | {' '.join(argv)} | {p[0]:.2f} ({p[1]:.2f}) "
          f"| {t[0]:.2f} ({t[1]:.2f}) | {r[0]:.2f} ({r[1]:.2f}) | "
          f"{ratio(r[1], t[1])} ({ratio(r[0], t[0])}) | {p[2]:.0f} / "
          f"{t[2]:.0f} / {r[2]:.0f} | {os.path.getsize(trace) / 1e6:.1f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--compare", metavar="OLD_BUILD")
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                             "HEAD"], capture_output=True, text=True).stdout
    print("date:", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print(f"machine: {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at start")
    print("commit:", commit.strip())
    print()
    with tempfile.TemporaryDirectory() as tmp:
        schedule_table(a, tmp)
        print()
        churn_table(a, tmp)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
