#!/usr/bin/env python3
"""Real-program analysis benchmark (issue 17): updates bench/RESULTS.md.

    bench/run_real_bench.py [--build build] [--base OLD_BUILD] [--quick]
                            [--work DIR] [--only NAME,...] [--limit S]
                            [--base-limit S] [--section NAME]
                            [--out bench/RESULTS.md]

Builds and records, on this machine, with the build's racepredict-cc:
  * pigz (../shared/corpus) compressing deterministic text with 2 and 4
    threads at several sizes, and pigz with zlib compiled in and
    instrumented;
  * our programs in the shapes of the issue: a semaphore barrier, dining
    philosophers, a condition-variable work queue in C++, a collector
    spinning on a try-lock (bench/real/);
and generates the synthetic traces of the issue and of issue 21 item 7
(the random `mixed` shape, `--all-pairs` on `app`, 50,000 nested locks,
20,000 threads, small traces with many deadlock candidates).

Every analysis runs under /usr/bin/time -v with a time limit; its per-stage
figures come from `analyze --format json` stats: load, the must-happen-before
clocks (passes), candidates, how they were decided (fast path, solver sat,
solver unsat, unknown), solver time, wall time and peak memory. With --base,
the same analyses run with an older build too ("before"). The traces (up to
hundreds of MB) stay in the work directory, never in git. The table replaces
the part of RESULTS.md between the real-bench markers.
"""
import argparse
import base64
import datetime
import json
import os
import random
import re
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
MARK = "<!-- real-bench:{} {} (bench/run_real_bench.py rewrites this part) -->"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def timed(cmd, limit, env=None):
    """Runs cmd under /usr/bin/time -v: (exit code or None if killed,
    wall s, peak MB)."""
    tfile = os.path.join(WORK, "time.txt")
    # A session of its own, so that a time-out ends the analysis too, not
    # only /usr/bin/time.
    p = subprocess.Popen(["/usr/bin/time", "-v", "-o", tfile] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=env, start_new_session=True)
    try:
        p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return None, limit, None
    t = open(tfile).read()
    m = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", t)
    wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
              .group(1)) / 1024
    code = re.search(r"Exit status: (\d+)", t)
    return int(code.group(1)) if code else p.returncode, wall, rss


def text_input(path, size, seed=17):
    """Deterministic text (base64 of seeded random bytes), as in the corpus
    README's example."""
    if os.path.exists(path) and os.path.getsize(path) >= size:
        return path
    raw = random.Random(seed).randbytes(size * 3 // 4 + 3)
    with open(path, "wb") as f:
        f.write(base64.encodebytes(raw)[:size])
    return path


def record(name, cmd, stdout=subprocess.DEVNULL, options=""):
    """Records one run of an instrumented program: the trace path.
    `options`: more RACEPREDICT_OPTIONS (name=value:...)."""
    trace = os.path.join(WORK, name + ".rptrace")
    if os.path.exists(trace):
        return trace
    env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}" +
               (":" + options if options else ""))
    subprocess.run(cmd, check=True, env=env, stdout=stdout,
                   stderr=subprocess.DEVNULL)
    return trace


def pigz(build, zlib):
    out = os.path.join(WORK, "pigz-zlib" if zlib else "pigz")
    exe = os.path.join(out, "pigz")
    if not os.path.exists(exe):
        sh([os.path.join(CORPUS, "build-pigz.sh"),
            os.path.join(build, "bin", "racepredict-cc"), out] +
           (["zlib"] if zlib else []))
    return exe


def program(build, src, cxx=False):
    exe = os.path.join(WORK, os.path.splitext(os.path.basename(src))[0])
    if not os.path.exists(exe):
        cc = os.path.join(build, "bin", "racepredict-c++" if cxx else "racepredict-cc")
        sh([cc, "-O2", "-g", src, "-o", exe, "-lpthread"])
    return exe


def gen(build, name, *args):
    trace = os.path.join(WORK, name + ".rptrace")
    if not os.path.exists(trace):
        sh([os.path.join(build, "bin", "racepredict-gen-trace"), *args, trace])
    return trace


def text_trace(name, lines):
    path = os.path.join(WORK, name + ".rpt.txt")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    return path


def nested_locks(n):
    """Issue 21 item 7: one thread holding n nested locks, two writes."""
    lines = ["t0 fork t1"] + [f"t1 acq l{i}" for i in range(n)]
    lines += ["t1 wr x 1 @nest.c:10"] + [f"t1 rel l{i}" for i in reversed(range(n))]
    return lines + ["t0 wr x 2 @nest.c:20", "t0 join t1"]


def many_threads(n):
    """Issue 21 item 7: n threads with one write each."""
    lines = [f"t0 fork t{i}" for i in range(1, n + 1)]
    lines += [f"t{i} wr x {i} @many.c:10" for i in range(1, n + 1)]
    return lines + [f"t0 join t{i}" for i in range(1, n + 1)]


def lock_orders(threads, rounds, locks=4, seed=5):
    """Small traces with many deadlock candidates: each thread nests two
    locks per round, in an order that varies (seeded), with a write."""
    rng = random.Random(seed)
    lines = [f"t0 fork t{i}" for i in range(1, threads + 1)]
    for r in range(rounds):
        for i in range(1, threads + 1):
            a, b = rng.sample(range(locks), 2)
            lines += [f"t{i} acq m{a} @lo.c:{10 + a}", f"t{i} acq m{b} @lo.c:{20 + b}",
                      f"t{i} wr x{i} {r} @lo.c:30", f"t{i} rel m{b} @lo.c:40",
                      f"t{i} rel m{a} @lo.c:41"]
    return lines + [f"t0 join t{i}" for i in range(1, threads + 1)]


def cases(build, quick, want):
    """(name, trace, analyze flags, what it is) for every benchmark `want`
    accepts (by name); only those are built and recorded."""
    real = os.path.join(ROOT, "bench", "real")
    out = []

    def case(name, make, flags=(), kind="ours"):
        if want(name):
            out.append((name, make(), list(flags), kind))

    def pigz_case(name, rec, mb, args, zlib=False):
        case(name, lambda: record(
            rec, [pigz(build, zlib), *args, "-c",
             text_input(os.path.join(WORK, f"in{mb}.txt"), mb * 1000000)]),
             kind="pigz")

    for mb in [5] if quick else [5, 50]:
        pigz_case(f"pigz -p 2, {mb} MB", f"pigz-p2-{mb}mb", mb, ["-p", "2"])
    pigz_case("pigz -p 4 -b 128, 5 MB", "pigz-p4-b128-5mb", 5, ["-p", "4", "-b", "128"])
    if not quick:
        pigz_case("pigz + zlib -p 2, 1 MB", "pigz-zlib-p2-1mb", 1, ["-p", "2"], zlib=True)
    sb = lambda: program(build, os.path.join(real, "sem_barrier.c"))
    for n, r in ((3, 2), (3, 4)):
        case(f"semaphore barrier {n} × {r}",
             lambda: record(f"sem_barrier-{n}-{r}", [sb(), str(n), str(r)]))
    ph = lambda: record("philosophers-5-1000", [
        program(build, os.path.join(real, "philosophers.c")), "5", "1000"])
    case("philosophers 5 × 1000, deadlocks", ph, ["--deadlocks"])
    case("philosophers 5 × 1000, races", ph)
    # A collector polling a table under a lock taken by spinning on
    # pthread_mutex_trylock while a worker holds it; recorded with the
    # default exit grace (the shape of the e2e exit spinners).
    sp = lambda: program(build, os.path.join(real, "trylock_spin.c"))
    for rounds in (50, 100, 300):
        case(f"try-lock spinner, {rounds} rounds",
             lambda: record(f"trylock_spin-{rounds}", [sp(), str(rounds), "100"],
                            options="exit_grace_ms=5"))
    case("C++ work queue 2+2, 300 tasks", lambda: record("cv_queue-2-2-300", [
        program(build, os.path.join(real, "cv_queue.cpp"), cxx=True), "2", "2", "300"]),
         ["--timeout-ms", "10000"])
    for n in [1000] if quick else [1000, 10000]:
        case(f"mixed {n // 1000}K", lambda: gen(
            build, f"mixed-{n}", "--shape", "mixed", "--events", str(n), "--threads",
            "4", "--locations", "200", "--locks", "8"),
             ["--all-pairs", "--timeout-ms", "10000"], "synthetic")
    for n in [10000] if quick else [10000, 30000, 100000, 300000]:
        case(f"app {n // 1000}K", lambda: gen(
            build, f"app-{n}", "--shape", "app", "--events", str(n), "--threads", "4",
            "--locks", "8", "--seed", "1"), ["--all-pairs"], "synthetic")
    for n in (250, 800):
        case(f"mixed {n}", lambda: gen(
            build, f"mixed-{n}", "--shape", "mixed", "--events", str(n), "--threads",
            "4", "--locations", "50", "--locks", "8"), kind="issue 21.7")
    case("50,000 nested locks",
         lambda: text_trace("nested-50000", nested_locks(50000)), kind="issue 21.7")
    case("20,000 threads",
         lambda: text_trace("threads-20000", many_threads(20000)), kind="issue 21.7")
    case("lock orders, 4 threads × 9 rounds",
         lambda: text_trace("lock-orders-4-9", lock_orders(4, 9)), ["--deadlocks"],
         "issue 21.7")
    # Thread churn (issue 17 item 4): test/e2e/programs/churn_lock_order.c
    # creating and joining N pairs of threads. 20,000 pairs in the same
    # order (run_churn.py's recording) is left out (bench/RESULTS.md); in
    # opposite orders they are issue 17's deadlock target.
    churn = os.path.join(ROOT, "test", "e2e", "programs", "churn_lock_order.c")
    for n in (1000, 3000):
        case(f"churn {n} pairs, deadlocks", lambda: record(
            f"churn-{n}", [program(build, churn), str(n), "same"]), ["--deadlocks"])
    for n in (100, 300, 1000, 3000, 20000):
        case(f"churn {n} pairs in opposite orders, deadlocks", lambda: record(
            f"churn-opposite-{n}", [program(build, churn), str(n)]), ["--deadlocks"])
    case("churn 3000 pairs, races",
         lambda: record("churn-3000", [program(build, churn), "3000", "same"]))
    return out


def analyze(rp, trace, flags, limit):
    out = os.path.join(WORK, "report.json")
    if os.path.exists(out):
        os.remove(out)
    code, wall, rss = timed([rp, "analyze", trace, "--format", "json", "-o", out,
                             *flags], limit)
    if code is None:
        return {"killed": True, "wall": wall}
    if code not in (0, 1, 4):
        sys.exit(f"{rp} analyze {trace} {' '.join(flags)} exited {code}")
    rep = json.load(open(out))
    s = rep["stats"]
    r = {"killed": False, "wall": wall, "rss": rss,
         "events": s.get("events") or events_of(rp, trace)[0],
         "load": s.get("load_seconds", 0)}
    if "--deadlocks" in flags:
        d = s["deadlock"]
        r.update(candidates=d["candidates"], fast="—", sat=d["sat"],
                 unsat=d["unsat"], propagated="—", unknown=d["unknown"],
                 solver=d["seconds"],
                 found=len(rep["deadlocks"]), order="—")
    else:
        propagated = s.get("unsat_without_solver", 0)
        r.update(candidates=s["candidates"], fast=s["closure_witnesses"],
                 sat=s["sat"] - s["closure_witnesses"],
                 unsat=s["unsat"] - propagated, propagated=propagated,
                 unknown=s["unknown"], solver=s["solve_seconds"],
                 found=len(rep["races"]),
                 order=f"{s.get('mhb_seconds', 0):.2f} ({s.get('mhb_passes', 1)})")
    return r


def events_of(rp, trace):
    out = sh([rp, "check-trace", trace]).stdout
    m = re.search(r"\((\d+) events, (\d+) threads", out)
    return (int(m.group(1)), int(m.group(2))) if m else ("?", "?")


def row(*cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def main():
    global WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--base", help="an older build to measure 'before'")
    ap.add_argument("--work", default="/tmp/racepredict-real-bench")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", help="comma-separated substrings of case names")
    ap.add_argument("--limit", type=float, default=600, help="seconds per analysis")
    ap.add_argument("--base-limit", type=float,
                    help="seconds per analysis with --base (default: --limit)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    ap.add_argument("--section", default="quick" ,
                    help="the part of --out this run rewrites (its own table)")
    a = ap.parse_args()
    WORK = a.work
    os.makedirs(WORK, exist_ok=True)
    rp = os.path.join(a.build, "bin", "racepredict")
    base = os.path.join(a.base, "bin", "racepredict") if a.base else None
    base_limit = a.base_limit or a.limit
    load0 = os.getloadavg()
    commit = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip()
    begin, end = MARK.format("begin", a.section), MARK.format("end", a.section)
    lines = [
        begin, "", f"### Real programs and hard shapes (issue 17): {a.section}", "",
        "Command: `bench/run_real_bench.py" + (" --base OLD_BUILD" if base else "") +
        ("` (--quick)" if a.quick else "`") + f"; limit {a.limit:.0f} s per analysis "
        + (f"({base_limit:.0f} s before) " if base else "") +
        "(\"> N\": killed at the limit). Machine: 2 cores (AMD EPYC), 23 GB RAM, "
        "Debian 12, RelWithDebInfo, Z3 4.8.12, other engineers' builds sharing the "
        f"cores. Date: {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, commit "
        f"{commit}; load average before {load0[0]:.1f}.", "",
        "Per-stage figures from `analyze --format json`: *order s (passes)*: the "
        "must-happen-before clocks with derived edges; *candidates*: pairs left by "
        "the filters (default report: the nearest per pair of source locations; "
        "deadlocks: candidate sets); then how candidates were decided: *fast* (a "
        "reads-from-preserving witness, no solver), *solver sat*, *propagated* "
        "(unsat by unit propagation, no solver check), *solver unsat*, "
        "*unknown*; *found*: races (or deadlocks) reported; *solver s*; wall time "
        "and peak memory of the whole `analyze` (`/usr/bin/time -v`).", "",
        row("case", "flags", "events", "load s", "order s (passes)", "candidates",
            "fast", "solver sat", "propagated", "solver unsat", "unknown", "found",
            "solver s",
            "wall s", "peak MB") + (" before: wall s | before: unknown |" if base else ""),
        row(*["---", "---"] + ["---:"] * 13) + (" ---: | ---: |" if base else "")]
    want = lambda name: not a.only or any(o in name for o in a.only.split(","))
    for name, trace, flags, _kind in cases(a.build, a.quick, want):
        print(f"{name} {' '.join(flags)} ...", file=sys.stderr, flush=True)
        r = analyze(rp, trace, flags, a.limit)
        cells = [name, "`" + " ".join(flags) + "`" if flags else ""]
        if r["killed"]:
            ev, _ = events_of(rp, trace)
            cells += [ev] + ["—"] * 10 + [f"> {a.limit:.0f}", "—"]
        else:
            cells += [r["events"], f"{r['load']:.2f}", r["order"], r["candidates"],
                      r["fast"], r["sat"], r["propagated"], r["unsat"],
                      r["unknown"], r["found"],
                      f"{r['solver']:.2f}", f"{r['wall']:.2f}", f"{r['rss']:.0f}"]
        line = row(*cells)
        if base:
            b = analyze(base, trace, flags, base_limit)
            line += (f" > {base_limit:.0f} | — |" if b["killed"]
                     else f" {b['wall']:.2f} | {b['unknown']} |")
        lines.append(line)
        print(line, file=sys.stderr, flush=True)
    lines += ["", f"Load average after: {os.getloadavg()[0]:.1f}.", "", end]
    text = open(a.out).read() if os.path.exists(a.out) else ""
    if begin in text and end in text:
        text = text[:text.index(begin)] + "\n".join(lines) + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
