#!/usr/bin/env python3
"""End-to-end tests of witness replay: `racepredict run` and `replay`.

Modes:
  run       compile SRC, `racepredict run --races --deadlocks --format json
            --report-all`, and compare exactly: the predicted races
            (`// expect-race: A B`), deadlocks (`// expect-deadlock: t1@A t2@B`, the
            request lines) and each one's replay verdict (`// expect-replay:
            V`, default confirmed); the exit status (1 if something was
            confirmed, 4 if findings were predicted but none confirmed,
            else 0); the summary line (on stderr with --format json, the
            text report's last line); stacks (`// expect-stack:`); the
            text report shows exactly the confirmed ones. Locations are
            the innermost frame in SRC (a std::mutex is locked in
            libstdc++'s headers). With --repeat N every confirmed finding
            is replayed N times from its witness file (confirmed each
            time). A confirmed deadlock is replayed once more with the printed
            RACEPREDICT_OPTIONS (as under gdb) to check that the watchdog
            ended the process with its own status, and with `racepredict
            replay --schedule` from its witness file (exit 1, confirmed).
  repeat    replay the race witness of SRC N times: confirmed every time.
  crash     a program killed by a signal while recording: exit 2, a clear
            message, and the trace is kept.
  gdb       replay the race witness of SRC under `gdb -batch` with the
            environment `replay --print-env` prints (skipped without gdb).
  errors    bad schedule files (also deadlock block lines) and witnesses
            (also an unknown blocking kind) are rejected with file, line
            and exit status 2.
  address   the replayed run reads another address than the recorded one
            (the environment changes an index): not-reproduced, never
            confirmed on the strength of the trace's location names.
  watchdog  the deadlock watchdog confirms nothing it did not see: the
            schedule of a confirmed deadlock, with one block line changed
            (another holder's acquisition, another joined thread, another
            source line, a thread left out that is then still alive),
            replays as not-reproduced with the reason, never status 86; a
            witness file claiming another blocking kind is refused.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from annotations import Annotations, file_line  # noqa: E402
from run_e2e import check_stacks  # noqa: E402

from replay_util import (DEADLOCK_EXIT, compile_prog, debugger_options, fail,  # noqa: E402
                         run, witness_of)
from replay_watchdog import mode_watchdog  # noqa: E402


def annotations(src):
    """Races, deadlocks (empty set if none), the deadlock kinds and the
    expected replay verdict (annotations.py)."""
    a = Annotations(src)
    return a.races, a.deadlocks or set(), a.kinds, a.verdict


# What the watchdog says it saw, per blocked thread and kind
# (runtime/replay/deadlock_watch.cpp).
SEEN = {"lock": "on a lock", "join": "joining", "semaphore": "with no post left",
        "barrier": "with no thread left to arrive",
        "condition": "with no notify left", "not-created": "was never created"}


def check_confirmation(d):
    """The confirmation names every blocked thread with what the watchdog
    checked for its kind."""
    msg = d["replay_detail"]["message"]
    # One clause per thread; the step descriptions it quotes may hold "; ".
    clauses = dict(re.findall(
        r"(?:^deadlock: |; )(t\d+) ((?:is blocked in|waits in|was never "
        r"created).*?)(?=; t\d+ (?:is blocked in|waits in|was never created)"
        r"|; no other thread is alive$|$)", msg))
    for b in d["blocked"]:
        want = SEEN[b["blocked_on"]["kind"]]
        if b["blocked_on"]["kind"] == "join":
            want += " " + b["blocked_on"]["thread"]
        if want not in clauses.get(b["thread"], ""):
            return f"the confirmation {msg!r} does not say {b['thread']} " \
                   f"{want!r}"
    if len(clauses) != len(d["blocked"]):
        return f"the confirmation {msg!r} names other threads"
    return None


def program_line(ev, src):
    """`file:line` of a reported event in the test program itself: its own
    location, else the innermost frame of its stack in SRC (a std::mutex
    is locked in libstdc++'s gthr-default.h, called from the program)."""
    base = os.path.basename(src)
    for loc in [ev["loc"]] + [f.rsplit(" ", 1)[-1] for f in ev.get("stack", [])]:
        if os.path.basename(loc.split(":")[0]) == base:
            return file_line(loc)
    return file_line(ev["loc"])


def blocked_at(b, src):
    """(thread, file:line) of a blocked thread; a thread that is never
    created has no event of its own: where its creator would create it."""
    ev = b["blocked_on"]["fork"] if b["blocked_on"]["kind"] == "not-created" \
        else b
    return (b["thread"], program_line(ev, src))


def check_unconfirmed(a, x, wdir):
    """A diverged finding names the recorded event the run did not reach,
    with a stack frame in the program; an unconfirmed witness is still
    valid on the trace (`check-witness`)."""
    detail = x["replay_detail"]
    if x["replay"] == "diverged":
        before = detail.get("diverged_before")
        if not before or not before["thread"] or \
                program_line({"loc": "", "stack": before["stack"]}, a.src) == "":
            return f"diverged without the event and program line: {detail}"
    if x["replay"] != "confirmed":
        r = run([a.racepredict, "check-witness",
                 os.path.join(wdir, "trace.rptrace"), detail["witness_file"]],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or "1 of 1 witness valid" not in r.stdout:
            return f"check-witness of an unconfirmed witness: {r.stdout}"
    return None


def repeat_replays(a, exe, findings, times):
    """Replays each confirmed finding's witness `times` times with
    `racepredict replay`: confirmed (exit 1) every time, no retries."""
    for x in findings:
        if x["replay"] != "confirmed":
            continue
        witness = x["replay_detail"]["witness_file"]
        for i in range(times):
            r = run([a.racepredict, "replay", "-q", "--schedule", witness,
                     "--", exe], stdout=subprocess.PIPE, text=True, timeout=120)
            if r.returncode != 1 or not re.search(
                    r"^racepredict replay: confirmed", r.stdout, re.M):
                print(r.stdout)
                return fail(f"replay {i + 1} of {times} of {witness} exited "
                            f"{r.returncode}, not confirmed")
    return None



def mode_run(a):
    name = os.path.splitext(os.path.basename(a.src))[0] + a.opt.replace("-", "_")
    exe = compile_prog(a, name)
    want_races, want_deadlocks, want_kinds, want_verdict = annotations(a.src)
    wdir = os.path.join(a.workdir, name + ".witnesses")
    shutil.rmtree(wdir, ignore_errors=True)
    cmd = [a.racepredict, "run", "--races", "--deadlocks", "--report-all",
           "--step-timeout-ms", "1000", "-j", "2", "--witness-dir", wdir]
    r = run(cmd + ["--format", "json", "--", exe], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, timeout=300)
    print(r.stderr)
    if r.returncode not in (0, 1, 4):
        return fail(f"run exited with {r.returncode}")
    rep = json.loads(r.stdout)
    # The pipeline's figures, as `analyze` reports them on the same trace
    # (run keeps it in the witness directory).
    an = json.loads(run([a.racepredict, "analyze", "--races", "--deadlocks",
                         "--format", "json", os.path.join(wdir, "trace.rptrace")],
                        stdout=subprocess.PIPE, text=True, timeout=300).stdout)
    stages = lambda rep: [x["stage"] for x in rep["stats"]["stages"]]
    if stages(rep) != stages(an) or (rep["stats"].get("local_reduction") !=
                                     an["stats"].get("local_reduction")):
        return fail(f"run's stats.stages {stages(rep)} and local_reduction "
                    f"{rep['stats'].get('local_reduction')}, analyze's "
                    f"{stages(an)} and {an['stats'].get('local_reduction')}")
    got_races = {tuple(sorted((program_line(x["first"], a.src),
                               program_line(x["second"], a.src)))): x["replay"]
                 for x in rep["races"]}
    got_deadlocks = {tuple(sorted(blocked_at(b, a.src) for b in d["blocked"])):
                     d["replay"] for d in rep["deadlocks"]}
    print("races:", got_races, "deadlocks:", got_deadlocks)
    if set(got_races) != want_races:
        return fail(f"races {sorted(got_races)} != expected {sorted(want_races)}")
    if set(got_deadlocks) != want_deadlocks:
        return fail(f"deadlocks {sorted(got_deadlocks)} != expected "
                    f"{sorted(want_deadlocks)}")
    kinds = sorted(d["kind"] for d in rep["deadlocks"])
    if want_kinds is not None and kinds != sorted(want_kinds):
        return fail(f"deadlock kinds {kinds} != expected {sorted(want_kinds)}")
    verdicts = list(got_races.values()) + list(got_deadlocks.values())
    if any(v != want_verdict for v in verdicts):
        return fail(f"replay verdicts {verdicts}, expected all {want_verdict}")
    for x in rep["races"] + rep["deadlocks"]:
        if not x["replay_detail"]["message"]:
            return fail("a replay verdict without its reason")
        err = check_unconfirmed(a, x, wdir)
        if err:
            return fail(err)
    for d in rep["deadlocks"]:
        if d["replay"] == "confirmed":
            err = check_confirmation(d)
            if err:
                return fail(err)
    confirmed = verdicts.count("confirmed")
    # 1: something confirmed; 4: predicted, nothing confirmed; 0: nothing.
    want_exit = 1 if confirmed else 4 if verdicts else 0
    if r.returncode != want_exit:
        return fail(f"exit status {r.returncode} with {confirmed} of "
                    f"{len(verdicts)} confirmed, expected {want_exit}")
    err = check_stacks(rep, Annotations(a.src).stacks)
    if err:
        return fail(err)
    if rep["stats"]["replay"]["confirmed"] != confirmed:
        return fail("stats.replay.confirmed is wrong")
    # The summary says how many were predicted, confirmed, diverged and not
    # reproduced: on stderr with --format json, as the text report's last
    # line.
    n = len(verdicts)
    summary = (f"racepredict run: {confirmed} of {n} predicted finding"
               f"{'' if n == 1 else 's'} confirmed by replay "
               f"({verdicts.count('diverged')} diverged, "
               f"{verdicts.count('not-reproduced')} not reproduced")
    if summary not in r.stderr:
        return fail(f"no summary {summary!r} on stderr")
    # The default text report: exactly the confirmed findings.
    t = run(cmd[:1] + ["run", "--races", "--deadlocks", "--step-timeout-ms",
                     "1000", "--", exe],
            stdout=subprocess.PIPE, text=True, timeout=300)
    shown = t.stdout.count("confirmed by replay)")
    if shown != confirmed or t.stdout.count("WARNING: racepredict") != shown:
        print(t.stdout)
        return fail(f"text report shows {shown} findings, {confirmed} confirmed")
    if t.returncode != want_exit or summary not in t.stdout.splitlines()[-1]:
        return fail(f"text run: exit {t.returncode}, last line "
                    f"{t.stdout.splitlines()[-1]!r}")
    if confirmed and ("Witness schedule" not in t.stdout
                      or "SUMMARY: racepredict:" not in t.stdout):
        return fail("text report lacks the witness or summary")
    # Every confirmed deadlock replays again from its witness file; with
    # --repeat N every confirmed finding does, N times.
    err = repeat_replays(a, exe, rep["races"] + rep["deadlocks"], a.repeat) \
        if a.repeat else repeat_replays(a, exe, rep["deadlocks"], 1)
    if err:
        return err
    for d in rep["deadlocks"]:
        if d["replay"] != "confirmed":
            continue
        witness = d["replay_detail"]["witness_file"]
        opts = debugger_options(a, exe, witness,
                                os.path.join(a.workdir, name + ".dl.rpsched"))
        result = os.path.join(a.workdir, name + ".dl.result")
        if os.path.exists(result):
            os.remove(result)
        env = dict(os.environ, RACEPREDICT_OPTIONS=opts +
                   f":replay_result={result}")
        p = run([exe], env=env, timeout=60)
        if p.returncode != DEADLOCK_EXIT:
            return fail(f"deadlock replay exited {p.returncode}, not the "
                        f"watchdog's {DEADLOCK_EXIT}")
        with open(result) as f:
            if not f.readline().startswith("verdict confirmed"):
                return fail("the deadlock result file is not confirmed")
    print(f"ok: {len(verdicts)} findings, verdicts {verdicts}")
    return 0


def mode_repeat(a):
    exe = compile_prog(a, "repeat" + a.opt.replace("-", "_"))
    witness = witness_of(a, exe, os.path.join(a.workdir, "repeat.witnesses"))
    for i in range(a.times):
        r = run([a.racepredict, "replay", "-q", "--schedule", witness, "--",
                 exe], stdout=subprocess.PIPE, text=True, timeout=60)
        if r.returncode != 1 or "racepredict replay: confirmed" not in r.stdout:
            print(r.stdout)
            return fail(f"replay {i + 1} of {a.times} did not confirm")
    print(f"ok: confirmed {a.times} times out of {a.times}")
    return 0


def mode_crash(a):
    exe = compile_prog(a, "crash")
    trace = os.path.join(a.workdir, "crash.rptrace")
    if os.path.exists(trace):
        os.remove(trace)
    r = run([a.racepredict, "run", "--trace-out", trace, "--", exe],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=60)
    print(r.stderr)
    if r.returncode != 2:
        return fail(f"run exited with {r.returncode}, expected 2")
    if "killed by signal 11" not in r.stderr or trace not in r.stderr:
        return fail("the message does not name the signal and the trace")
    if not os.path.exists(trace):
        return fail("the trace of the crashed recording was not kept")
    if run([a.racepredict, "check-trace", trace]).returncode != 0:
        return fail("the kept trace is not consistent")
    print("ok")
    return 0


def mode_gdb(a):
    gdb = shutil.which("gdb")
    if not gdb:
        print("gdb not installed: skipped")
        return 77
    exe = compile_prog(a, "gdb" + a.opt.replace("-", "_"))
    witness = witness_of(a, exe, os.path.join(a.workdir, "gdb.witnesses"))
    opts = debugger_options(a, exe, witness,
                            os.path.join(a.workdir, "gdb.rpsched"))
    r = run([gdb, "-nx", "-batch", "-ex", "run", "--args", exe],
            env=dict(os.environ, RACEPREDICT_OPTIONS=opts),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=120)
    print(r.stdout)
    if "racepredict replay: confirmed" not in r.stdout:
        return fail("no confirmation under gdb")
    if not re.search(r"racepredict replay: \[1/\d+\]", r.stdout):
        return fail("the steps were not printed under gdb")
    print("ok")
    return 0


def mode_errors(a):
    exe = compile_prog(a, "errors")
    bad = os.path.join(a.workdir, "bad.rpsched")
    with open(bad, "w") as f:
        f.write("RPSCHED 1\nkind race\nthreads 1 steps 2 wakes 0 requests 0\n"
                "thread 0 - 0 t0\nstep 0 0 begin 0 0 0 0 - -\n"
                "step 0 1 jump 0 0 3 1 f.c -\n")
    r = run([exe], env=dict(os.environ, RACEPREDICT_OPTIONS=f"replay={bad}"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=30)
    want = f"racepredict: replay schedule '{bad}' line 6: unknown event kind 'jump'"
    if r.returncode != 2 or want not in r.stderr:
        return fail(f"bad schedule: exit {r.returncode}, stderr {r.stderr!r}")
    # A witness of another trace: rejected before running anything.
    witness = witness_of(a, exe, os.path.join(a.workdir, "errors.witnesses"))
    with open(witness) as f:
        w = json.load(f)
    w["witness"] = [999999]
    w["steps"] = [{"event": 999999, "half": False}]
    other = os.path.join(a.workdir, "other.json")
    with open(other, "w") as f:
        json.dump(w, f)
    r = run([a.racepredict, "replay", "--schedule", other, "--", exe],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 2 or "event 999999 is not in the trace" not in r.stderr:
        return fail(f"foreign witness: exit {r.returncode}, {r.stderr!r}")
    # A deadlock witness whose thread blocks on something unknown.
    w["kind"] = "deadlock"
    w["blocked"] = [{"event": 3, "blocked_on": {"kind": "livelock"}}]
    with open(other, "w") as f:
        json.dump(w, f)
    r = run([a.racepredict, "replay", "--schedule", other, "--", exe],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    want = (f"{other}: blocked[0].blocked_on.kind: unknown blocking kind "
            "'livelock'")
    if r.returncode != 2 or want not in r.stderr:
        return fail(f"unknown blocking kind: exit {r.returncode}, {r.stderr!r}")
    # A version 2 schedule with a malformed block line.
    with open(bad, "w") as f:
        f.write("RPSCHED 2\nkind deadlock\nthreads 1 steps 1 wakes 0 blocks 1\n"
                "thread 0 - 0 t0\nstep 0 0 begin 0 0 0 0 - -\n"
                "block 0 1 semwait semaphore 3 1 f.c - - - -\nend\n")
    r = run([exe], env=dict(os.environ, RACEPREDICT_OPTIONS=f"replay={bad}"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=30)
    want = (f"racepredict: replay schedule '{bad}' line 6: this blocking kind "
            "needs a step on its object")
    if r.returncode != 2 or want not in r.stderr:
        return fail(f"bad block line: exit {r.returncode}, {r.stderr!r}")
    r = run([a.racepredict, "run", "--", os.path.join(a.workdir, "nothing")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 2 or "cannot execute" not in r.stderr:
        return fail(f"missing program: exit {r.returncode}, {r.stderr!r}")
    print("ok")
    return 0


def mode_address(a):
    exe = compile_prog(a, "address" + a.opt.replace("-", "_"))
    env = {k: v for k, v in os.environ.items() if k != "RP_TEST_INDEX"}
    wdir = os.path.join(a.workdir, "address.witnesses")
    shutil.rmtree(wdir, ignore_errors=True)
    r = run([a.racepredict, "run", "--witness-dir", wdir, "--", exe],
            stdout=subprocess.PIPE, text=True, env=env, timeout=300)
    if r.returncode != 1:
        return fail(f"the unchanged replay did not confirm (exit {r.returncode})")
    witness = os.path.join(wdir, sorted(f for f in os.listdir(wdir)
                                        if f.startswith("race-"))[0])
    r = run([a.racepredict, "replay", "-q", "--schedule", witness, "--", exe],
            stdout=subprocess.PIPE, text=True, timeout=60,
            env=dict(env, RP_TEST_INDEX="1"))
    print(r.stdout)
    if r.returncode != 4 or "racepredict replay: not-reproduced" not in r.stdout \
            or "touched different memory" not in r.stdout:
        return fail("a read of another address was not refused")
    print("ok")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["run", "repeat", "crash", "gdb", "errors",
                                     "address", "watchdog"])
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--opt", default="-O0")
    ap.add_argument("--times", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=0,
                    help="run: replay every confirmed finding N times")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    # `// record-options: OPTS` (as run_e2e.py's): for the recording and
    # every replay, which must record the same events.
    extra = re.findall(r"record-options:\s*(\S+)", open(a.src).read())
    if extra:
        opts = [os.environ.get("RACEPREDICT_OPTIONS", "")] + extra
        os.environ["RACEPREDICT_OPTIONS"] = ":".join(o for o in opts if o)
    return {"run": mode_run, "repeat": mode_repeat, "crash": mode_crash,
            "gdb": mode_gdb, "errors": mode_errors,
            "address": mode_address, "watchdog": mode_watchdog}[a.mode](a)


if __name__ == "__main__":
    sys.exit(main())
