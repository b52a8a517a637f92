#!/usr/bin/env python3
"""Recording limits and endings that are not the program's own
(docs/recording.md, "Recording limits", "Observed deadlocks"):

service_forever.c never ends. `racepredict run` stops the recording at
--record-timeout, at Ctrl-C (SIGINT to the whole process group, as a
terminal sends it) and at SIGTERM to `run` alone (as timeout(1) or a CI job
limit sends it); run directly, the program stops at max_events and at
max_trace_bytes (exit status 124). Each time the trace is whole (check-trace),
its STOP block says why (the report's "recording"), and the race at @S is
predicted (and, under `run`, confirmed by replay).

deadlock_while_recording.c deadlocks in the recorded run: `run` reports the
observed deadlock with each blocked thread, its call, object, location and
the lock's holder, and exits 1; its "ordered" twin reports nothing."""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from annotations import Annotations, file_line  # noqa: E402

FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL:", msg, flush=True)
    return cond


def races(report):
    return {tuple(sorted((file_line(r["first"]["loc"]),
                          file_line(r["second"]["loc"]))))
            for r in report["races"]}


def expect_stop(name, report, stopped, value):
    rec = report.get("recording", {})
    check(rec.get("stopped") == stopped and rec.get("value") == value,
          f"{name}: recording {rec}, expected stopped={stopped} "
          f"value={value}")


def run_interrupted(a, exe, trace, send):
    """`run` on the service, interrupted by `send(proc)` once recording."""
    if os.path.exists(trace):
        os.remove(trace)
    p = subprocess.Popen([a.racepredict, "run", "--format", "json",
                          "--trace-out", trace, "--", exe],
                         stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(trace) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the workers are running by now
    send(p)
    out, _ = p.communicate(timeout=300)
    return p.returncode, json.loads(out) if out.strip() else {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--programs", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    rp = a.racepredict

    svc_src = os.path.join(a.programs, "service_forever.c")
    dl_src = os.path.join(a.programs, "deadlock_while_recording.c")
    svc, dl = (os.path.join(a.workdir, n) for n in ("service", "deadlock"))
    for src, exe in ((svc_src, svc), (dl_src, dl)):
        if subprocess.run([a.cc, "-O1", src, "-o", exe]).returncode != 0:
            sys.exit("FAIL: compilation failed")
    want = Annotations(svc_src).races
    trace = os.path.join(a.workdir, "service.rptrace")

    # --record-timeout: the recording stops after 2 s, the program ends.
    p = subprocess.run([rp, "run", "--record-timeout", "2", "--format",
                        "json", "--", svc], stdout=subprocess.PIPE, text=True,
                       timeout=300)
    report = json.loads(p.stdout)
    check(p.returncode == 1, f"--record-timeout: exit {p.returncode}")
    expect_stop("--record-timeout", report, "max_seconds", 2)
    check(races(report) == want, f"--record-timeout: races {races(report)}")

    # Ctrl-C: SIGINT to the process group (run and the program get it).
    rc, report = run_interrupted(
        a, svc, trace, lambda p: os.killpg(p.pid, signal.SIGINT))
    check(rc == 1, f"SIGINT: exit {rc}")
    expect_stop("SIGINT", report, "signal", 2)
    check(races(report) == want, f"SIGINT: races {races(report)}")
    check(subprocess.run([rp, "check-trace", trace]).returncode == 0,
          "SIGINT: check-trace")

    # SIGTERM to `run` only: it ends the recording with SIGTERM itself.
    rc, report = run_interrupted(
        a, svc, trace, lambda p: os.kill(p.pid, signal.SIGTERM))
    check(rc == 1, f"SIGTERM: exit {rc}")
    expect_stop("SIGTERM", report, "signal", 15)
    check(races(report) == want, f"SIGTERM: races {races(report)}")

    # Run directly: max_events and max_trace_bytes end the program (124).
    for option, stopped, value in (("max_events=20000", "max_events", 20000),
                                   ("max_trace_bytes=300k", "max_trace_bytes",
                                    300 << 10)):
        env = dict(os.environ, RACEPREDICT_OPTIONS=f"trace={trace}:{option}")
        p = subprocess.run([svc], env=env, timeout=120,
                           stderr=subprocess.PIPE, text=True)
        check(p.returncode == 124, f"{option}: exit {p.returncode}")
        check(f"{stopped}={value} reached" in p.stderr,
              f"{option}: stderr {p.stderr!r}")
        c = subprocess.run([rp, "check-trace", trace], capture_output=True,
                           text=True)
        m = re.search(r"consistent \((\d+) events", c.stdout)
        check(c.returncode == 0 and m, f"{option}: check-trace {c.stdout}")
        if stopped == "max_events" and m:
            # Events take seqs 1, 2, ...: the last one is the limit's.
            check(int(m.group(1)) == value, f"{option}: {m.group(1)} events")
        if stopped == "max_trace_bytes":
            # The cap, and at most each live thread's last buffer (256 KiB).
            size = os.path.getsize(trace)
            check(value <= size <= value + 3 * (256 << 10),
                  f"{option}: {size} bytes")
        r = subprocess.run([rp, "analyze", "--format", "json", trace],
                           stdout=subprocess.PIPE, text=True)
        report = json.loads(r.stdout)
        expect_stop(option, report, stopped, value)
        check(races(report) == want, f"{option}: races {races(report)}")

    # A deadlock while recording: observed, reported with its threads.
    ann = Annotations(dl_src)
    env = dict(os.environ, RACEPREDICT_OPTIONS="deadlock_ms=300")
    p = subprocess.run([rp, "run", "--format", "json", "--", dl], env=env,
                       stdout=subprocess.PIPE, text=True, timeout=300)
    check(p.returncode == 1, f"deadlock: exit {p.returncode}")
    report = json.loads(p.stdout)
    expect_stop("deadlock", report, "deadlock", 300)
    blocked = report.get("recording", {}).get("observed_deadlock",
                                               {}).get("blocked", [])
    got = [(b["thread"], b["op"], b["object"], file_line(b["loc"]),
            b.get("held_by")) for b in blocked]
    expected = [("t0", "join", "t1", ann.anchors["J"], None),
                ("t1", "acq", "b", ann.anchors["B1"], ["t2"]),
                ("t2", "acq", "a", ann.anchors["A2"], ["t1"])]
    check(got == expected, f"deadlock: blocked {got}, expected {expected}")
    p = subprocess.run([rp, "run", "--", dl], env=env, stdout=subprocess.PIPE,
                       text=True, timeout=300)
    check("WARNING: racepredict: deadlock (observed: the recorded run hung), "
          "3 threads blocked" in p.stdout, f"deadlock text: {p.stdout}")
    p = subprocess.run([rp, "run", "--format", "json", "--", dl, "ordered"],
                       env=env, stdout=subprocess.PIPE, text=True, timeout=300)
    report = json.loads(p.stdout)
    check(p.returncode == 0 and "recording" not in report,
          f"ordered twin: exit {p.returncode}, {report.get('recording')}")
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
