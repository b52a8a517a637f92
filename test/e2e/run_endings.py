#!/usr/bin/env python3
"""Trace integrity under any ending (docs/recording.md, "Buffers, the file,
and shutdown"): runs stress_endings.c hundreds of times, ending the process
by return, exit(), abort(), SIGSEGV, SIGTERM (to any thread, maybe one inside
a hook), SIGINT and SIGTERM at once, or exit() after main's pthread_exit, from main or any worker, after
0 to 30 rounds of work, while the other threads hold, wait for and spin on
locks. Every run must end with its expected status, and check-trace must
accept every trace (which also requires the END block). Every thread's
events must be a prefix of what it did: each write of `counter` (always
under m in the program) is recorded inside one of that thread's critical
sections of m -- a thread that dropped its acquisition as recording stopped
must not have its next accesses recorded. Bounded: 510 runs of a few
milliseconds each (a few seconds in all)."""
import argparse
import os
import subprocess
import sys
import time

STATUS = {"return": {0}, "exit": {7}, "abort": {-6}, "segv": {-11},
          "term": {-15}, "int_term": {-2, -15}, "main_exit": {7}}


def unlocked_counter_writes(racepredict, trace):
    """Writes of `counter` the trace shows outside the writer's critical
    sections of m (the program makes every one under m), as text lines."""
    r = subprocess.run([racepredict, "convert", trace, "-"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return [f"convert failed: {r.stderr.strip()[-300:]}"]
    holding, bad = set(), []
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) < 3:
            continue
        t, op = f[0], f[1]
        if op == "acq" and f[2] == "m":
            holding.add(t)
        elif op == "rel" and f[2] == "m":
            holding.discard(t)
        elif op == "wait" and f[3:4] == ["m"]:
            holding.add(t)  # a wait event is its return: m is held again
        elif op == "wr" and f[2] == "counter" and t not in holding:
            bad.append(line[:120])
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    exe = os.path.join(a.workdir, "stress_endings")
    if subprocess.run([a.cc, "-O1", a.src, "-o", exe]).returncode != 0:
        sys.exit("FAIL: compilation failed")
    env = dict(os.environ)
    runs, failures, batch = 0, [], []
    start = time.monotonic()

    def check_batch():
        if not batch:
            return
        r = subprocess.run([a.racepredict, "check-trace"] + [t for t, _ in batch],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("check-trace: " + (r.stdout + r.stderr)[-2000:])
        for t, name in batch:
            bad = unlocked_counter_writes(a.racepredict, t)
            if bad:
                failures.append(f"{name}: counter written outside m: "
                                + "; ".join(bad[:3]))
            else:
                os.remove(t)
        batch.clear()

    for rep in range(a.repeat):
        for how, status in STATUS.items():
            for who in range(5):
                if how == "main_exit" and who == 0:
                    continue  # main's pthread_exit: a worker must end it
                for rounds in (0, 1, 3, 10, 30):
                    name = f"{how}-{who}-{rounds}-{rep}"
                    trace = os.path.join(a.workdir, name + ".rptrace")
                    env["RACEPREDICT_OPTIONS"] = f"trace={trace}"
                    try:
                        p = subprocess.run([exe, how, str(who), str(rounds)],
                                           env=env, timeout=60,
                                           stderr=subprocess.DEVNULL)
                    except subprocess.TimeoutExpired:
                        failures.append(f"{name}: hung")
                        continue
                    runs += 1
                    if p.returncode not in status:
                        failures.append(f"{name}: status {p.returncode}, "
                                        f"expected {status}")
                    if not os.path.exists(trace):
                        failures.append(f"{name}: no trace")
                        continue
                    batch.append((trace, name))
                    if len(batch) >= 25:
                        check_batch()
    check_batch()
    print(f"{runs} runs, {time.monotonic() - start:.1f} s")
    if failures:
        print("FAIL:\n" + "\n".join(failures[:20]))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
