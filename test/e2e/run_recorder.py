#!/usr/bin/env python3
"""Recorder behaviour: default trace name <prog>.<pid>.rptrace, the events=
filter, and a complete (END-terminated, consistent) trace after return,
exit() from a thread, abort(), a fatal signal, and a thread that jumped out
of a recording hook (recording stops with a warning; the program finishes)."""
import argparse
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rptrace_dump  # noqa: E402


def check(cond, msg):
    if not cond:
        print("FAIL:", msg)
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    exe = os.path.join(a.workdir, "recorder_modes")
    check(subprocess.run([a.cc, "-O1", a.src, "-o", exe]).returncode == 0,
          "compilation failed")
    for old in glob.glob(os.path.join(a.workdir, "recorder_modes.*.rptrace")):
        os.remove(old)

    env = dict(os.environ)
    env.pop("RACEPREDICT_OPTIONS", None)
    p = subprocess.Popen([exe], cwd=a.workdir, env=env)
    check(p.wait() == 0, "program failed")
    default = os.path.join(a.workdir, f"recorder_modes.{p.pid}.rptrace")
    check(os.path.exists(default), f"no default trace {default}")

    expected_status = {"return": 0, "exit": 3, "abort": -6, "segv": -11}
    for mode, status in expected_status.items():
        trace = os.path.join(a.workdir, f"mode-{mode}.rptrace")
        env["RACEPREDICT_OPTIONS"] = f"trace={trace}"
        p = subprocess.run([exe, mode], env=env)
        check(p.returncode == status,
              f"{mode}: exit status {p.returncode}, expected {status}")
        events, _, ended = rptrace_dump.decode(trace)
        check(ended, f"{mode}: no END block")
        kinds = [e[2] for e in events]
        check("acq" in kinds and "wr" in kinds, f"{mode}: events missing")
        r = subprocess.run([a.racepredict, "check-trace", trace])
        check(r.returncode == 0, f"{mode}: inconsistent trace")

    # A thread left inside a hook (SIGSEGV handler siglongjmp'd out of the
    # faulting load) keeps the token: the recorder must give up, not hang.
    trace = os.path.join(a.workdir, "mode-longjmp.rptrace")
    env["RACEPREDICT_OPTIONS"] = f"trace={trace}:stuck_hook_ms=200"
    p = subprocess.run([exe, "longjmp"], env=env, timeout=60,
                       capture_output=True, text=True)
    check(p.returncode == 0, f"longjmp: exit status {p.returncode}")
    check("has stayed inside a recording hook for 200 ms" in p.stderr,
          f"longjmp: no warning on stderr: {p.stderr!r}")
    events, _, ended = rptrace_dump.decode(trace)
    check(ended, "longjmp: no END block")
    check("acq" in [e[2] for e in events], "longjmp: events missing")
    r = subprocess.run([a.racepredict, "check-trace", trace])
    check(r.returncode == 0, "longjmp: inconsistent trace")

    trace = os.path.join(a.workdir, "sync-only.rptrace")
    env["RACEPREDICT_OPTIONS"] = f"trace={trace}:events=sync"
    check(subprocess.run([exe], env=env).returncode == 0, "events=sync run")
    kinds = {e[2] for e in rptrace_dump.decode(trace)[0]}
    check(not kinds & {"rd", "wr", "br", "alloc", "free"},
          f"events=sync recorded {sorted(kinds)}")
    check({"acq", "rel", "fork", "join", "begin", "end"} <= kinds,
          f"events=sync lost sync events: {sorted(kinds)}")
    print("ok")


if __name__ == "__main__":
    main()
