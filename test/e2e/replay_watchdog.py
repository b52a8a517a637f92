"""`run_replay.py watchdog`: the deadlock watchdog confirms nothing it did
not see. The schedule of a confirmed deadlock, with one block line changed
(another holder's acquisition, another joined thread, another source line,
a thread left out that is then still alive), replays as not-reproduced with
the reason, never status 86; a witness file claiming another blocking kind
is refused."""
import argparse
import json
import os
import re
import subprocess
import time

from replay_util import (DEADLOCK_EXIT, compile_prog, debugger_options, fail,
                         run, witness_of)


def schedule_lines(a, exe, name):
    """SRC's (first) deadlock witness file and its schedule file's lines."""
    witness = witness_of(a, exe, os.path.join(a.workdir, name + ".witnesses"),
                         "deadlock")
    sched = os.path.join(a.workdir, name + ".rpsched")
    debugger_options(a, exe, witness, sched)
    with open(sched) as f:
        return witness, f.read().splitlines()


def thread_index(lines, name):
    for ln in lines:
        f = ln.split()
        if f[0] == "thread" and f[4] == name:
            return f[1]
    raise SystemExit(fail(f"no thread {name} in the schedule"))


def replace_block(lines, on, field, value):
    """The schedule with field `field` of the `block` line of kind `on` set."""
    out = []
    for ln in lines:
        f = ln.split(" ")
        if f[0] == "block" and f[4] == on:
            f[field] = value(f) if callable(value) else value
            ln = " ".join(f)
        out.append(ln)
    return out


def without_block(lines, on):
    out = [ln for ln in lines if not (ln.startswith("block ") and
                                      ln.split(" ")[4] == on)]
    n = sum(ln.startswith("block ") for ln in out)
    return [re.sub(r" blocks \d+$", f" blocks {n}", ln) for ln in out]


def mode_watchdog(a):
    cases = []
    # The nested monitor: t2 waits for l (t1 took it at its ordinal 1), t1
    # waits on cv, t0 joins t1.
    src = os.path.join(os.path.dirname(a.src), "deadlock_nested_monitor.c")
    exe = compile_prog(argparse.Namespace(**{**vars(a), "src": src}),
                       "wd_monitor")
    witness, lines = schedule_lines(a, exe, "wd_monitor")
    # A witness file that claims another blocking kind than the trace
    # semantics gives is refused before anything runs.
    with open(witness) as f:
        w = json.load(f)
    join = next(b for b in w["blocked"] if b["blocked_on"]["kind"] == "join")
    join["blocked_on"]["kind"] = "semaphore"
    claimed = os.path.join(a.workdir, "wd_claimed.json")
    with open(claimed, "w") as f:
        json.dump(w, f)
    r = run([a.racepredict, "replay", "--schedule", claimed, "--", exe],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    want = (f"blocked event {join['event']} blocks on join after the "
            "witness, not as the file says")
    if r.returncode != 2 or want not in r.stderr:
        return fail(f"a claimed semaphore block: exit {r.returncode}, "
                    f"{r.stderr!r}")
    t1, t2 = thread_index(lines, "t1"), thread_index(lines, "t2")
    m_acq = [ln.split()[2] for ln in lines
             if ln.startswith(f"step {t1} ") and ln.split()[3] == "acq"]
    cases += [
        ("another acquisition of the holder", exe,
         replace_block(lines, "lock", 9, m_acq[-1]),
         "t2 waits for a lock that t1 does not hold since its predicted "
         "acquisition"),
        ("another joined thread", exe, replace_block(lines, "join", 8, t2),
         "t0 joins another thread than t2"),
        ("another source line", exe,
         replace_block(lines, "condition", 5, lambda f: str(int(f[5]) + 1)),
         "t1 is blocked in another call (t1 wait @ "),
    ]
    # The semaphore hand-off without main's block: main, blocked in its
    # join, could still post as far as the watchdog knows.
    src = os.path.join(os.path.dirname(a.src), "deadlock_sem_handoff.c")
    exe = compile_prog(argparse.Namespace(**{**vars(a), "src": src}),
                       "wd_sem")
    _, lines = schedule_lines(a, exe, "wd_sem")
    cases.append(("a waiter for a post left out", exe,
                  without_block(lines, "join"),
                  "t0 is still alive and could still post, arrive or notify"))
    for what, exe, text, want in cases:
        sched = os.path.join(a.workdir, "wd.rpsched")
        result = os.path.join(a.workdir, "wd.result")
        with open(sched, "w") as f:
            f.write("\n".join(text) + "\n")
        if os.path.exists(result):
            os.remove(result)
        env = dict(os.environ, RACEPREDICT_OPTIONS=f"replay={sched}:"
                   f"replay_result={result}:replay_timeout=500")
        # The program really deadlocks: once the verdict is written it
        # hangs (as under `run`, which kills it after a grace period).
        print("+", exe, "#", what, flush=True)
        p = subprocess.Popen([exe], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        for _ in range(300):
            if p.poll() is not None or os.path.exists(result):
                break
            time.sleep(0.1)
        time.sleep(0.3)
        if p.poll() is None:
            p.kill()
        p.wait()
        if p.returncode == DEADLOCK_EXIT:
            return fail(f"{what}: the watchdog confirmed")
        if not os.path.exists(result):
            return fail(f"{what}: no verdict within 30 s")
        with open(result) as f:
            res = dict(ln.split(" ", 1) for ln in f.read().splitlines())
        if res.get("verdict") != "not-reproduced" or \
                want not in res.get("message", ""):
            return fail(f"{what}: {res}, expected not-reproduced: ...{want}")
        print(f"ok: {what}: {res['message']}")
    return 0
