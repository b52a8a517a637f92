#!/usr/bin/env python3
"""Scale benchmark (issue 7): writes bench/RESULTS.md.

    bench/run_scale_bench.py [--build build] [--quick] [--out bench/RESULTS.md]

Runs, on this machine, in one go:
  * Carril Fig. 5.17 from the trace generator (precise and plain branch
    dependences) and as a C program recorded with racepredict-cc, N = 10 ...
    100,000;
  * program-like synthetic traces of 1M and 10M events (`--shape app`);
  * the issue-3 random mix, sliced vs the whole-trace formula;
  * RAPID STD import of the 1M-event trace.
For each: events/s, wall seconds and peak memory (/usr/bin/time -v), races
found by racepredict, by `--hb` (a happens-before detector) and by
`--window 10000` (RVPredict-style windows), counted per source-location
pair (the default report), and whether racepredict ⊇ HB. The historical
issue-3 section (bench/history/issue3.md) is appended unchanged.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


class Bench:
    def __init__(self, build, tmp):
        self.rp = os.path.join(build, "bin", "racepredict")
        self.gen = os.path.join(build, "bin", "racepredict-gen-trace")
        self.cc = os.path.join(build, "bin", "racepredict-cc")
        self.tmp = tmp
        for b in (self.rp, self.gen, self.cc):
            if not os.access(b, os.X_OK):
                sys.exit(f"missing {b}: build first (scripts/build.sh)")

    def timed(self, cmd, env=None, ok=(0, 1, 4)):
        """Runs cmd under /usr/bin/time -v: (returncode, wall s, peak MB)."""
        tfile = os.path.join(self.tmp, "time.txt")
        p = subprocess.run(["/usr/bin/time", "-v", "-o", tfile] + cmd,
                           capture_output=True, text=True, env=env)
        if p.returncode not in ok:
            sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
        t = open(tfile).read()
        m = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", t)
        wall = (int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 +
                float(m.group(3)))
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
                  .group(1)) / 1024
        return p.returncode, wall, rss

    def analyze(self, trace, *flags):
        """One analysis: (report JSON, wall s, peak MB)."""
        out = os.path.join(self.tmp, "report.json")
        _, wall, rss = self.timed([self.rp, "analyze", trace, "--format", "json",
                                   "-o", out, *flags])
        return json.load(open(out)), wall, rss

    def compare(self, trace, window=10000):
        """Races per source-location pair: ours, HB, windows; timing of ours."""
        rep, wall, rss = self.analyze(trace)
        hb, hbwall, _ = self.analyze(trace, "--hb")
        win, winwall, _ = self.analyze(trace, "--window", str(window))
        h = hb["hb"]
        return {
            "events": rep["stats"]["events"],
            "ours": len(rep["races"]), "unknown": rep["stats"]["unknown"],
            "hb_pairs": h["count"], "hb_groups": h["groups"],
            "hb_in_ours": h["groups_also_predicted"],
            "window": len(win["races"]), "window_unknown": win["stats"]["unknown"],
            "wall": wall, "rss": rss, "load": rep["stats"]["load_seconds"],
            # events/s over loading and analysing (not process start-up and
            # writing the report; /usr/bin/time has 10 ms resolution)
            "rate": int(rep["stats"]["events"] /
                        max(rep["stats"]["load_seconds"] + rep["stats"]["seconds"], 1e-6)),
            "hb_wall": hbwall, "window_wall": winwall, "stats": rep["stats"],
        }


def row(*cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def superset(r):
    return "yes" if r["hb_in_ours"] == r["hb_groups"] else "**no**"


def fig517_generated(b, sizes, lines):
    lines += ["## Carril Fig. 5.17, trace generator", "",
              "`racepredict-gen-trace --shape fig517 --n N [--deps]`: main: x++, then N × "
              "{lock; y++; unlock}; worker: N × {lock; y++; unlock}, then x++; observed "
              "in that order (main's loop entirely first), so the lock hand-offs order the "
              "two x++ and HB sees nothing. *precise*: the loop branch depends on no read "
              "(`br <-`, a thread-local counter), the race is predictable; *plain*: the "
              "loop branch depends on every earlier read (RVPredict's rule), each worker "
              "iteration needs the y main's loop wrote after its x++, and no sound "
              "predictor can report the race. Races are counted per source-location "
              "pair (the default report); HB ⊆ ours is checked per location pair.", "",
              row("N", "branches", "events", "racepredict", "HB", "`--window 10000`",
                  "HB ⊆ ours", "wall s", "events/s (analysis)", "peak MB"),
              row(*["---:", "---", "---:", "---:", "---:", "---:", "---", "---:", "---:", "---:"])]
    for n in sizes:
        for mode in ("precise", "plain"):
            t = os.path.join(b.tmp, f"fig517-{n}-{mode}.rptrace")
            sh([b.gen, "--shape", "fig517", "--n", str(n)] +
               (["--deps"] if mode == "precise" else []) + [t])
            r = b.compare(t)
            lines.append(row(n, mode, r["events"], r["ours"], r["hb_groups"], r["window"],
                             superset(r), f"{r['wall']:.2f}",
                             r["rate"], f"{r['rss']:.0f}"))
            os.remove(t)
    lines.append("")


def fig517_program(b, sizes, lines):
    src = os.path.join(ROOT, "bench", "programs", "fig517.c")
    lines += ["## Carril Fig. 5.17, C program recorded with racepredict-cc", "",
              "`bench/programs/fig517.c`, `racepredict-cc -O1 -g`; a pipe the recorder "
              "does not see holds the worker back until main's loop is done (the "
              "figure's observed run). *precise*: `-DN=<n>`, a constant loop bound, so "
              "the pass records no branch for the loops. *plain*: the bound comes from "
              "argv through a call and a thread argument, so the pass records a plain "
              "`br` per iteration. \"record s\" is the instrumented run.", "",
              row("N", "branches", "events", "record s", "racepredict", "HB",
                  "`--window 10000`", "HB ⊆ ours", "analyze wall s", "events/s (analysis)",
                  "peak MB"),
              row(*["---:", "---", "---:", "---:", "---:", "---:", "---:", "---", "---:", "---:", "---:"])]
    plain = os.path.join(b.tmp, "fig517-plain")
    sh([b.cc, "-O1", "-g", src, "-o", plain])
    for n in sizes:
        exe = os.path.join(b.tmp, f"fig517-{n}")
        sh([b.cc, "-O1", "-g", f"-DN={n}", src, "-o", exe])
        for mode, cmd in (("precise", [exe]), ("plain", [plain, str(n)])):
            t = os.path.join(b.tmp, f"c-{n}-{mode}.rptrace")
            env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={t}")
            _, rec, _ = b.timed(cmd, env=env, ok=(0,))
            r = b.compare(t)
            lines.append(row(n, mode, r["events"], f"{rec:.2f}", r["ours"], r["hb_groups"],
                             r["window"], superset(r), f"{r['wall']:.2f}",
                             r["rate"], f"{r['rss']:.0f}"))
            os.remove(t)
    lines.append("")


def mix_of(b, trace):
    """Share of synchronisation and branch events, from the text form."""
    txt = os.path.join(b.tmp, "mix.rpt.txt")
    sh([b.rp, "convert", trace, txt])
    sync = {"acq", "rel", "racq", "tryfail", "fork", "join", "wait", "signal",
            "broadcast", "barrier", "seminit", "post", "semwait", "ard", "awr", "armw"}
    n = s = br = 0
    with open(txt) as f:
        for line in f:
            w = line.split()
            if len(w) < 2 or w[0] in ("init", "#"):
                continue
            n += 1
            s += w[1] in sync
            br += w[1] == "br"
    os.remove(txt)
    return 100.0 * s / n, 100.0 * br / n


def app_traces(b, sizes, lines):
    lines += ["## Program-like traces of 1M and 10M events", "",
              "`racepredict-gen-trace --shape app --events N --threads 4 --locks 8`: "
              "tasks on thread-local data, critical sections on lock-protected counters, "
              "and unprotected statistics (`stat[j]++`, a write-only progress field, a "
              "read of a counter without its lock: the races), source locations per "
              "statement, precise branch dependences as the pass records them. "
              "\"wall s\"/\"peak MB\" are the default analysis (load, index, candidates, "
              "fast path, solver); HB and window runs are separate.", "",
              row("events", "sync %", "branch %", "trace MB", "racepredict", "HB pairs",
                  "HB location pairs", "HB ⊆ ours", "`--window 10000`", "unknown",
                  "wall s", "load s", "events/s (analysis)", "peak MB", "`--hb` s",
                  "`--window` s"),
              row(*["---:"] * 7 + ["---"] + ["---:"] * 8)]
    for n in sizes:
        t = os.path.join(b.tmp, f"app-{n}.rptrace")
        sh([b.gen, "--shape", "app", "--events", str(n), "--threads", "4", "--locks", "8",
            "--seed", "1", t])
        syncp, brp = mix_of(b, t)
        r = b.compare(t)
        lines.append(row(r["events"], f"{syncp:.1f}", f"{brp:.1f}",
                         f"{os.path.getsize(t) / 1e6:.1f}", r["ours"], r["hb_pairs"],
                         r["hb_groups"], superset(r), r["window"], r["unknown"],
                         f"{r['wall']:.2f}", f"{r['load']:.2f}",
                         r["rate"], f"{r['rss']:.0f}",
                         f"{r['hb_wall']:.2f}", f"{r['window_wall']:.2f}"))
        if n == sizes[0]:
            std_import(b, t, lines)
        os.remove(t)
    lines.append("")


def std_import(b, trace, pending):
    """RAPID STD text of the trace: `convert --from std` and analysis."""
    txt = os.path.join(b.tmp, "std.rpt.txt")
    std = os.path.join(b.tmp, "trace.std")
    sh([b.rp, "convert", trace, txt])
    ops = {"rd": "r", "wr": "w", "acq": "acq", "rel": "rel", "fork": "fork",
           "join": "join"}
    with open(txt) as f, open(std, "w") as out:
        for line in f:
            w = line.split()
            if len(w) < 2 or w[0] in ("init", "#") or w[1] not in ops:
                continue
            loc = w[-1].split("@")[1] if w[-1].startswith("@") else "0"
            out.write(f"T{w[0][1:]}|{ops[w[1]]}({w[2]})|{loc}\n")
    os.remove(txt)
    conv = os.path.join(b.tmp, "std.rptrace")
    _, cwall, crss = b.timed([b.rp, "convert", "--from", "std", std, conv])
    rep, awall, arss = b.analyze(std)
    n = rep["stats"]["events"]
    b.std_row = row(n, f"{os.path.getsize(std) / 1e6:.1f}", f"{cwall:.2f}",
                    f"{crss:.0f}", f"{awall:.2f}", f"{arss:.0f}", len(rep["races"]))
    os.remove(std)
    os.remove(conv)


def issue3_mix(b, sizes, lines):
    lines += ["## The issue-3 random mix: slices vs the whole-trace formula", "",
              "`--shape mixed --threads 4 --locations 200 --locks 8`, `analyze --all-pairs "
              "--timeout-ms 10000`: a random scheduler, no source locations, plain "
              "branches (every read matters), four values per location. The worst case "
              "for slicing: the causal past of a pair is most of the trace, so slices "
              "are nearly whole traces and lose the shared formula's reuse; the whole "
              "formula, in turn, grows quadratically (5,000 events did not finish in 25 "
              "minutes in issue 3).", "",
              row("events", "mode", "candidates", "races", "closure witnesses",
                  "solver calls", "unknown", "largest slice (units)", "wall s", "peak MB"),
              row(*["---:", "---"] + ["---:"] * 8)]
    for n in sizes:
        t = os.path.join(b.tmp, f"mixed-{n}.rptrace")
        sh([b.gen, "--shape", "mixed", "--events", str(n), "--threads", "4",
            "--locations", "200", "--locks", "8", "--seed", "1", t])
        for mode in ("slices", "--whole-trace"):
            flags = ["--all-pairs", "--timeout-ms", "10000"]
            if mode != "slices":
                flags.append(mode)
            rep, wall, rss = b.analyze(t, *flags)
            s = rep["stats"]
            lines.append(row(n, mode, s["candidates"], s["sat"], s["closure_witnesses"],
                             s["solver_calls"], s["unknown"],
                             s["max_slice_units"] if mode == "slices" else "—",
                             f"{wall:.2f}", f"{rss:.0f}"))
        os.remove(t)
    lines.append("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    ap.add_argument("--quick", action="store_true",
                    help="small sizes only (a smoke test of the script)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rp-scale-")
    try:
        b = Bench(os.path.abspath(a.build), tmp)
        fig = [10, 100, 1000] if a.quick else [10, 100, 1000, 10000, 100000]
        app = [100000] if a.quick else [1000000, 10000000]
        mixed = [500] if a.quick else [1000, 2000]
        cpu = re.search(r"model name\s*: (.*)", open("/proc/cpuinfo").read()).group(1)
        mem = int(re.search(r"MemTotal:\s*(\d+)", open("/proc/meminfo").read()).group(1))
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        load_before = open("/proc/loadavg").read().split()[:3]
        body = []
        fig517_generated(b, fig, body)
        fig517_program(b, fig, body)
        app_traces(b, app, body)
        issue3_mix(b, mixed, body)
        load_after = open("/proc/loadavg").read().split()[:3]
        head = ["# Benchmark results", "",
                "Written by `bench/run_scale_bench.py` (issue 7); rerun it to reproduce. "
                "One run each, all on the machine below, in one go.", "",
                f"* Command: `bench/run_scale_bench.py{' --quick' if a.quick else ''}`",
                f"* Machine: {os.cpu_count()} cores ({cpu}), {mem // 1048576} GB RAM, "
                "Debian 12, RelWithDebInfo build, Z3 4.8.12",
                f"* Date: {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, commit {commit}",
                f"* Load average (1/5/15 min) before: {' '.join(load_before)}, after: "
                f"{' '.join(load_after)} — other builds and tests share these cores, so "
                "wall times are pessimistic.",
                "* Single-threaded analysis (`-j 1`) unless stated. Wall seconds and peak "
                "memory (maximum resident set size) from `/usr/bin/time -v` around the "
                "whole `racepredict analyze` process; events/s = events / (load + "
                "analysis seconds of the report's stats).",
                "* Races are counted as the default report gives them: one per pair of "
                "source locations. \"HB ⊆ ours\": every location pair where the "
                "happens-before detector (`--hb`) finds a race has a predicted race.", ""]
        std = ["## RAPID STD import", "",
               "The first app trace written as RAPID STD text (`T<t>|op(arg)|loc`, "
               "accesses, locks, fork/join; branches and values have no STD form, so "
               "reads are unconstrained), then `convert --from std` and `analyze` on the "
               ".std file.", "",
               row("events", "STD MB", "convert s", "convert peak MB", "analyze s",
                   "analyze peak MB", "races"),
               row(*["---:"] * 7), b.std_row, ""]
        hist = open(os.path.join(ROOT, "bench", "history", "issue3.md")).read()
        with open(a.out, "w") as f:
            f.write("\n".join(head + body + std) + "\n" + hist)
        print(f"wrote {a.out}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
