"""Helpers shared by the witness-replay end-to-end drivers (run_replay.py,
replay_watchdog.py): running commands, compiling a test program, getting
a witness from `racepredict run`, and the environment that replays it."""
import os
import re
import shlex
import shutil
import subprocess

from annotations import Annotations

DEADLOCK_EXIT = 86  # RP_REPLAY_DEADLOCK_EXIT, include/racepredict/abi/replay.h


def run(cmd, **kw):
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    return subprocess.run(cmd, **kw)


def fail(msg):
    print("FAIL:", msg)
    return 1


def compile_prog(a, name):
    exe = os.path.join(a.workdir, name)
    cflags = Annotations(a.src).cflags  # e.g. -fopenmp
    if run([a.cc, a.opt, *cflags, a.src, "-o", exe]).returncode != 0:
        raise SystemExit(fail("compilation failed"))
    return exe


def witness_of(a, exe, wdir, kind="race"):
    """Records and analyses once; returns the first witness file of kind."""
    shutil.rmtree(wdir, ignore_errors=True)
    r = run([a.racepredict, "run", "--races", "--deadlocks", "--witness-dir",
             wdir, "--report-all", "--", exe], stdout=subprocess.PIPE,
            text=True, timeout=300)
    if r.returncode not in (0, 1, 4):
        raise SystemExit(fail(f"run exited with {r.returncode}"))
    files = sorted(f for f in os.listdir(wdir) if f.startswith(kind + "-"))
    if not files:
        raise SystemExit(fail(f"no {kind} witness in {wdir}"))
    return os.path.join(wdir, files[0])


def debugger_options(a, exe, witness, sched):
    r = run([a.racepredict, "replay", "--schedule", witness, "--schedule-out",
             sched, "--print-env", "--", exe], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(fail(f"replay --print-env exited {r.returncode}: "
                              f"{r.stderr}"))
    m = re.match(r"RACEPREDICT_OPTIONS=(.*)$", r.stdout.strip())
    if not m or "gdb --args" not in r.stderr:
        raise SystemExit(fail(f"--print-env printed {r.stdout!r} {r.stderr!r}"))
    return shlex.split(m.group(1))[0]
