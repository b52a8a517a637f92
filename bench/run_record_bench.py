#!/usr/bin/env python3
"""Recording benchmark (issue 4): slowdown and peak memory of a program built
with racepredict-cc against the same program uninstrumented and built with
clang -fsanitize=thread, side by side in one run, plus the trace's bytes per
event.

    bench/run_record_bench.py [BUILD_DIR] [--quick] [--reps N]
    bench/run_record_bench.py [BUILD_DIR] --instructions [--compare OLD_BUILD]

Prints a markdown table (with the date, machine and commit first) to paste
into bench/RESULTS.md. Wall and CPU (user+sys) seconds are the median of
--reps runs; peak RSS is the largest seen. CPU seconds are less sensitive to
other load on the machine than wall seconds.

--instructions counts the user-space instructions of the recorded runs
instead (valgrind --tool=callgrind, one run each at the quick sizes), per
recorded event: repeatable to the instruction on any machine load, unlike
seconds on a shared VM. TSan cannot run under valgrind, so this compares
racepredict builds only: --compare OLD_BUILD adds the same count for another
build directory (an older commit's) beside it.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLANG = "/usr/lib/llvm-14/bin/clang"

# (program, arguments, full size, quick size)
CASES = [
    ("shared_counters.c", ["1"], "10000000", "200000"),
    ("shared_counters.c", ["2"], "10000000", "200000"),
    ("work_queue.c", ["2"], "200000", "20000"),
    ("cxx_containers.cpp", ["2"], "1000000", "30000"),
    ("private_work.c", ["2"], "20000", "500"),
    ("status_strings.c", ["2"], "200000", "5000"),
]


def run_timed(cmd, env=None):
    """Runs cmd under /usr/bin/time (its child starts small, so the peak RSS
    is the program's own); returns (wall s, cpu s, peak RSS MB, status)."""
    with tempfile.NamedTemporaryFile("r") as out:
        start = time.monotonic()
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", out.name]
                           + cmd, env=env, stdout=subprocess.DEVNULL)
        wall = time.monotonic() - start
        user, system, rss = out.read().split()[-3:]
    return wall, float(user) + float(system), int(rss) / 1024.0, p.returncode


def compile_all(build, src, out, kinds=("plain", "tsan", "racepredict")):
    cxx = src.endswith(".cpp")
    clang = CLANG + ("++" if cxx else "")
    rp_cc = os.path.join(build, "bin", "racepredict-c++" if cxx else
                         "racepredict-cc")
    path = os.path.join(HERE, "record", src)
    stem = os.path.join(out, os.path.splitext(src)[0])
    builds = {
        "plain": [clang, "-O2", "-g", "-pthread", path, "-o", stem + ".plain"],
        "tsan": [clang, "-O2", "-g", "-fsanitize=thread", path, "-o",
                 stem + ".tsan"],
        "racepredict": [rp_cc, "-O2", path, "-o", stem + ".rp"],
    }
    for kind in kinds:
        subprocess.run(builds[kind], check=True)
    return {k: builds[k][-1] for k in kinds}


def measure(binary, args, reps, env=None, output=None):
    """Median wall and CPU seconds and peak RSS of `reps` runs. `output`
    (the trace) is removed before each run, outside the timing: a recording
    writes a new file (`<prog>.<pid>.rptrace` by default), and truncating
    the previous run's hundreds of megabytes of page cache in open() would
    otherwise be charged to the run (0.05 s of shared_counters' 0.2 s)."""
    runs = []
    for _ in range(reps):
        if output and os.path.exists(output):
            os.remove(output)
        runs.append(run_timed([binary] + args, env))
    for r in runs:
        if r[3] != 0:
            raise SystemExit(f"{binary} exited with {r[3]}")
    return (statistics.median(r[0] for r in runs),
            statistics.median(r[1] for r in runs), max(r[2] for r in runs))


def ratio(a, b):
    # /usr/bin/time reports CPU time in 10 ms steps.
    return f"{a / b:.1f}x" if b >= 0.01 else "n/a"


def trace_events(racepredict, trace):
    r = subprocess.run([racepredict, "check-trace", trace],
                       capture_output=True, text=True)
    m = re.search(r"consistent \((\d+) events", r.stdout)
    if r.returncode != 0 or not m:
        raise SystemExit(f"check-trace failed on {trace}: {r.stdout}{r.stderr}")
    return int(m.group(1))


def instructions(binary, argv, trace):
    """User-space instructions of one recorded run (callgrind's total)."""
    with tempfile.NamedTemporaryFile("r") as out:
        env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}")
        p = subprocess.run(["valgrind", "--tool=callgrind",
                            f"--callgrind-out-file={out.name}", binary]
                           + argv, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        m = re.search(r"Collected : (\d+)", p.stderr)
        if p.returncode != 0 or not m:
            raise SystemExit(f"callgrind failed on {binary}: {p.stderr}")
        return int(m.group(1))


def instruction_table(a, racepredict):
    builds = [("this build", a.build)]
    if a.compare:
        builds.insert(0, ("--compare build", a.compare))
    print("| program | args | events | "
          + " | ".join(f"instructions/event ({name})" for name, _ in builds)
          + (" | change |" if a.compare else ""))
    print("|---|---|---:|" + "---:|" * len(builds)
          + ("---:|" if a.compare else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for src, args, _, quick in CASES:
            argv = args + [quick]
            per_event = []
            for i, (_, build) in enumerate(builds):
                out = os.path.join(tmp, str(i))
                os.makedirs(out, exist_ok=True)
                binary = compile_all(build, src, out,
                                     ("racepredict",))["racepredict"]
                trace = os.path.join(out, "t.rptrace")
                count = instructions(binary, argv, trace)
                # Each build's own events: an older pass may record others.
                events = trace_events(racepredict, trace)
                per_event.append(count / events)
            row = " | ".join(f"{c:.0f}" for c in per_event)
            growth = per_event[-1] / per_event[0] - 1.0
            change = f" {100.0 * growth:+.0f}% |" if a.compare else ""
            print(f"| {src} | {' '.join(argv)} | {events} | {row} |{change}",
                  flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--compare", metavar="OLD_BUILD")
    a = ap.parse_args()
    racepredict = os.path.join(a.build, "bin", "racepredict")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                             "HEAD"], capture_output=True, text=True).stdout
    print("date:", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read())
    print(f"machine: {os.cpu_count()} cores, {cpu.group(1) if cpu else '?'}, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    print("commit:", commit.strip())
    print()
    if a.instructions:
        return instruction_table(a, racepredict)
    print("| program | args | plain s (cpu) | TSan s (cpu) | racepredict s (cpu)"
          " | slowdown TSan / racepredict (cpu) | racepredict ÷ TSan, cpu "
          "(wall) | peak MB plain / TSan / racepredict | events | trace MB | "
          "bytes/event |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for src, args, full, quick in CASES:
            bins = compile_all(a.build, src, tmp)
            argv = args + [quick if a.quick else full]
            plain = measure(bins["plain"], argv, a.reps)
            tsan = measure(bins["tsan"], argv, a.reps,
                           dict(os.environ, TSAN_OPTIONS="report_bugs=0"))
            trace = os.path.join(tmp, "t.rptrace")
            env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}")
            rp = measure(bins["racepredict"], argv, a.reps, env, trace)
            events = trace_events(racepredict, trace)
            size = os.path.getsize(trace)
            print(f"| {src} | {' '.join(argv)} | {plain[0]:.2f} "
                  f"({plain[1]:.2f}) | {tsan[0]:.2f} ({tsan[1]:.2f}) | "
                  f"{rp[0]:.2f} ({rp[1]:.2f}) | "
                  f"{ratio(tsan[1], plain[1])} / {ratio(rp[1], plain[1])} | "
                  f"{ratio(rp[1], tsan[1])} ({ratio(rp[0], tsan[0])}) | "
                  f"{plain[2]:.0f} / {tsan[2]:.0f} / {rp[2]:.0f} | {events} | "
                  f"{size / 1e6:.1f} | {size / events:.1f} |", flush=True)
            os.remove(trace)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    sys.exit(main())
