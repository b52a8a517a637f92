#!/usr/bin/env python3
"""Deadlock prediction benchmark (issue 6): how the candidate search and the
solver scale with the number of threads that can block together and with
the length of the run.

    bench/run_deadlock_bench.py [BUILD_DIR]

Shapes (text traces with source locations, generated here; every observed
run completes):
  philosophers N   N threads, each nesting fork i then fork i+1 once, one
                   after the other; main joins them (one N-cycle).
  loop K           two threads taking a/b and b/a K times each in a loop
                   (one source location per lock call), plus a semaphore
                   hand-off per iteration; main joins both.
  locks K          the same loop without the semaphore.
  late K           two threads nesting a/b K times each, except that the
                   second thread's last iteration takes b/a: the only
                   inversion is at the end of the run, so each candidate's
                   slice holds the second thread's whole run.
Each shape runs in the default mode (deadlock candidates on per-candidate
slices, docs/slicing.md) and, where it finishes in reasonable time, with
--whole-trace (every candidate on the whole-trace formula, as before
slicing).
Prints one markdown table; every number comes from `analyze --deadlocks
--format json` stats, wall time and peak RSS from /usr/bin/time.
"""
import json
import os
import subprocess
import sys
import tempfile


def philosophers(n):
    lines = [f"t0 fork t{i} @phil.c:30" for i in range(1, n + 1)]
    for i in range(1, n + 1):
        left, right = f"f{i - 1}", f"f{i % n}"
        lines += [f"t{i} acq {left} @phil.c:10", f"t{i} acq {right} @phil.c:11",
                  f"t{i} wr meals{i} 1 @phil.c:12",
                  f"t{i} rel {right} @phil.c:13", f"t{i} rel {left} @phil.c:14"]
    lines += [f"t0 join t{i} @phil.c:32" for i in range(1, n + 1)]
    return lines


def loop(k):
    lines = ["t0 seminit s 0 @loop.c:40", "t0 fork t1 @loop.c:41",
             "t0 fork t2 @loop.c:42"]
    for i in range(k):
        lines += ["t1 acq a @loop.c:10", "t1 acq b @loop.c:11",
                  f"t1 wr x {i} @loop.c:12", "t1 rel b @loop.c:13",
                  "t1 rel a @loop.c:14", "t1 post s @loop.c:15"]
        lines += ["t2 semwait s @loop.c:20", "t2 acq b @loop.c:21",
                  "t2 acq a @loop.c:22", f"t2 wr y {i} @loop.c:23",
                  "t2 rel a @loop.c:24", "t2 rel b @loop.c:25"]
    lines += ["t0 join t1 @loop.c:44", "t0 join t2 @loop.c:45"]
    return lines


def late(k):
    lines = ["t0 fork t1 @late.c:40", "t0 fork t2 @late.c:41"]
    for i in range(k):
        lines += ["t1 acq a @late.c:10", "t1 acq b @late.c:11",
                  f"t1 wr x {i} @late.c:12", "t1 rel b @late.c:13",
                  "t1 rel a @late.c:14"]
    for i in range(k - 1):
        lines += ["t2 acq a @late.c:20", "t2 acq b @late.c:21",
                  f"t2 wr y {i} @late.c:22", "t2 rel b @late.c:23",
                  "t2 rel a @late.c:24"]
    lines += ["t2 acq b @late.c:30", "t2 acq a @late.c:31",
              "t2 wr y -1 @late.c:32", "t2 rel a @late.c:33",
              "t2 rel b @late.c:34"]
    lines += ["t0 join t1 @late.c:44", "t0 join t2 @late.c:45"]
    return lines


def run(rp, path, extra):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tf.name, rp,
                            "analyze", "--deadlocks", "--format", "json",
                            *extra, path],
                           capture_output=True, text=True, timeout=3600)
        if p.returncode not in (0, 1, 4):
            sys.exit(f"analyze failed ({p.returncode}): {p.stderr}")
        wall, rss = tf.read().split()[-2:]
    r = json.loads(p.stdout)
    return r, float(wall), int(rss) // 1024


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    rp = os.path.join(build, "bin", "racepredict")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "?")
    print(f"commit {commit}; {os.cpu_count()} cores, {cpu}")
    print()
    print("| shape | events | mode | candidates | lock cycles | hangs | "
          "solver calls | sliced | slice units | deadlocks | truncated | "
          "wall s | peak RSS MB |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    cases = [("philosophers", n, philosophers(n)) for n in (3, 5, 8, 12)]
    cases += [("loop", k, loop(k)) for k in (5, 20, 50, 200)]
    cases += [("locks", k, [l for l in loop(k) if l.split()[1] not in
                            ("seminit", "post", "semwait")])
              for k in (20, 50, 200, 1000)]
    cases += [("late", k, late(k)) for k in (50, 200, 1000)]
    with tempfile.TemporaryDirectory() as tmp:
        for shape, n, lines in cases:
            path = os.path.join(tmp, f"{shape}{n}.rpt.txt")
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            modes = [("default", [])]
            if shape == "philosophers" and n <= 5 or shape == "loop" and n <= 5:
                modes.append(("all-pairs", ["--all-pairs"]))
            if shape == "late" and n <= 200:
                modes.append(("all-pairs", ["--all-pairs"]))
            # The whole-trace formula, for comparison, where it finishes.
            if n <= 50 or shape == "philosophers":
                modes.append(("whole-trace", ["--whole-trace"]))
            for mode, extra in modes:
                r, wall, rss = run(rp, path, extra)
                s = r["stats"]["deadlock"]
                print(f"| {shape} {n} | {len(lines)} | {mode} | "
                      f"{s['candidates']} | {s['lock_cycles']} | "
                      f"{s['hang_candidates']} | {s['solver_calls']} | "
                      f"{s['sliced_calls']} | {s['slice_units']} | "
                      f"{len(r['deadlocks'])} | {s['search_truncated']} | "
                      f"{wall:.2f} | {rss} |", flush=True)


if __name__ == "__main__":
    main()
