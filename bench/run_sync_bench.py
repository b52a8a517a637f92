#!/usr/bin/env python3
"""Synchronisation of real code (issue 16 item 7): what recording descriptor
hand-offs costs, and what the memory-object and channel indexes cost the
analysis.

    bench/run_sync_bench.py [BUILD_DIR] [--reps N] [--rounds N]

1. bench/record/pipe_pingpong.c (ROUNDS round trips through two pipes, a
   send and a receive per read/write), built plain, with TSan and with
   racepredict-cc: median wall and CPU seconds of --reps runs, as
   run_record_bench.py measures them; and, repeatable on a loaded machine,
   callgrind's user-space instructions per round trip, plain and recorded
   (the system calls themselves are not user-space instructions).
2. `racepredict analyze --candidates-only` under callgrind on recorded
   traces with many heap blocks (bench/record/cxx_containers.cpp) and with
   hand-offs (pipe_pingpong): the share of its instructions spent building
   MemoryObjects and ChannelOrder (inclusive).

Prints markdown (with the date, machine and commit) for bench/RESULTS.md.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_record_bench as rb  # noqa: E402


def callgrind(cmd, env=None):
    """Runs cmd under callgrind; returns (total instructions, the inclusive
    lines of callgrind_annotate as (instructions, "file:function") pairs:
    a function's code inlined from several files has a line per file)."""
    with tempfile.NamedTemporaryFile("r", suffix=".out") as out:
        p = subprocess.run(["valgrind", "--tool=callgrind",
                            f"--callgrind-out-file={out.name}"] + cmd,
                           env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise SystemExit(f"callgrind failed on {cmd}: {p.stderr}")
        total = int(re.search(r"Collected : (\d+)", p.stderr).group(1))
        a = subprocess.run(["callgrind_annotate", "--inclusive=yes",
                            "--threshold=100", "--auto=no", out.name],
                           capture_output=True, text=True, check=True)
    lines = []
    for line in a.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$", line)
        if m and not m.group(2).startswith(("=>", "<")):  # call edges
            lines.append((int(m.group(1).replace(",", "")), m.group(2)))
    return total, lines


def share(lines, total, function):
    """Instructions of `function` and its callees: the lines of `function`
    itself, one per file its code (inlined) comes from; not its lambdas,
    whose cost is in the caller's already."""
    pattern = re.compile(":" + re.escape(function) + r"(\([^{]*\))?(\s\[|$)")
    n = sum(v for v, name in lines if pattern.search(name))
    return n, 100.0 * n / total if total else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(rb.ROOT, "build"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=20000)
    a = ap.parse_args()
    racepredict = os.path.join(a.build, "bin", "racepredict")
    commit = subprocess.run(["git", "-C", rb.ROOT, "rev-parse", "--short",
                             "HEAD"], capture_output=True, text=True).stdout
    print("date:", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print(f"machine: {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at start; commit {commit.strip()}\n")
    with tempfile.TemporaryDirectory(prefix="rp-sync-bench-") as work:
        run(a, racepredict, work)


def run(a, racepredict, work):
    print("### Recording descriptor hand-offs: pipe_pingpong\n")
    bins = rb.compile_all(a.build, "pipe_pingpong.c", work)
    trace = os.path.join(work, "pingpong.rptrace")
    env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}")
    args = [str(a.rounds)]
    plain = rb.measure(bins["plain"], args, a.reps)
    tsan = rb.measure(bins["tsan"], args, a.reps,
                      dict(os.environ, TSAN_OPTIONS="report_bugs=0"))
    rec = rb.measure(bins["racepredict"], args, a.reps, env, trace)
    events = rb.trace_events(racepredict, trace)
    print("| rounds | plain wall s / CPU s | TSan wall s / CPU s | racepredict "
          "wall s / CPU s | racepredict ÷ TSan (CPU) | events |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| {a.rounds} | {plain[0]:.2f} / {plain[1]:.2f} | {tsan[0]:.2f} / "
          f"{tsan[1]:.2f} | {rec[0]:.2f} / {rec[1]:.2f} | "
          f"{rb.ratio(rec[1], tsan[1])} | {events} |\n")
    small = [str(a.rounds // 10)]
    ptotal = callgrind([bins["plain"]] + small)[0]
    smallTrace = os.path.join(work, "pingpong-small.rptrace")
    total = callgrind(
        [bins["racepredict"]] + small,
        dict(os.environ, RACEPREDICT_OPTIONS=f"trace={smallTrace}"))[0]
    rounds = a.rounds // 10
    print("| rounds | user-space instructions / round, plain | recorded |")
    print("| ---: | ---: | ---: |")
    print(f"| {rounds} | {ptotal / rounds:.0f} | {total / rounds:.0f} |\n")

    print("### Analysis: memory objects and channel order in the index\n")
    print("| trace | events | instructions | MemoryObjects | ChannelOrder |")
    print("| --- | ---: | ---: | ---: | ---: |")
    cxx = rb.compile_all(a.build, "cxx_containers.cpp", work,
                         kinds=("racepredict",))
    cxxTrace = os.path.join(work, "cxx.rptrace")
    subprocess.run([cxx["racepredict"], "2", "30000"], check=True,
                   stdout=subprocess.DEVNULL,
                   env=dict(os.environ, RACEPREDICT_OPTIONS=f"trace={cxxTrace}"))
    for name, t in (("cxx_containers 2 30000", cxxTrace),
                    (f"pipe_pingpong {a.rounds}", trace)):
        total, lines = callgrind([racepredict, "analyze", "--candidates-only",
                                  "--format", "json", "-o", os.devnull, t])
        mo = share(lines, total, "racepredict::analysis::MemoryObjects::"
                   "MemoryObjects")
        co = share(lines, total, "racepredict::analysis::ChannelOrder::"
                   "ChannelOrder")
        print(f"| {name} | {rb.trace_events(racepredict, t)} | {total} | "
              f"{mo[1]:.1f}% | {co[1]:.1f}% |")
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
