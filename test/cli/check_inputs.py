#!/usr/bin/env python3
"""Bad inputs and failed outputs of the command line (issue 21): each case
is one reproducer, checked for its exact exit status and message.

    check_inputs.py RACEPREDICT INPUTS_DIR WORKDIR CASE
"""
import json
import os
import shutil
import subprocess
import sys

RP, INPUTS, W, CASE = sys.argv[1:5]
BAD = os.path.join(INPUTS, "bad")
FIG1 = os.path.join(INPUTS, "paper", "huang_fig2_case1.rpt.txt")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def rp(*args, stdout=subprocess.PIPE):
    r = subprocess.run([RP, *args], stdout=stdout, stderr=subprocess.PIPE,
                       timeout=120)
    out = r.stdout.decode("utf-8") if r.stdout is not None else ""
    return r.returncode, out, r.stderr.decode("utf-8")


def expect(args, rc, message, stdout=subprocess.PIPE):
    got, out, err = rp(*args, stdout=stdout)
    check(got == rc, f"{args}: exit {got}, want {rc}; stderr {err!r}")
    check(message in err, f"{args}: stderr {err!r} lacks {message!r}")
    return out


def bad(name):
    return os.path.join(BAD, name)


def case_empty_traces():
    """Issue 21 item 4: an empty file, a binary header without events, a
    header cut short and a text trace without events are errors for every
    command that reads a trace, never a clean run of 0 events."""
    for name, msg in [
        ("empty.rpbin", "empty.rpbin: empty file (0 bytes): not a trace"),
        ("header_only.rpbin",
         "header_only.rpbin: the recording has no events (the program ended "
         "or was killed before it recorded anything)"),
        ("cut_header.rpbin",
         "cut_header.rpbin: truncated at byte 3 after 0 events (in the file "
         "header)"),
        ("comments_only.rpt.txt",
         "comments_only.rpt.txt: no events (only blank lines, comments or "
         "`init` lines)")]:
        for cmd in (["analyze"], ["analyze", "--deadlocks"], ["check-trace"]):
            expect([*cmd, bad(name)], 2, msg)
        expect(["convert", bad(name), os.path.join(W, "out.rpt.txt")], 2, msg)


def case_open_errors():
    """Item 10: why a trace cannot be opened; a directory is named as one."""
    missing = os.path.join(BAD, "no-such.rptrace")
    for cmd in ("analyze", "check-trace"):
        expect([cmd, missing],
               2, f"cannot open trace '{missing}': No such file or directory")
        expect([cmd, BAD], 2, f"'{BAD}' is a directory, not a trace")
    expect(["analyze", FIG1, "--property", BAD], 2,
           f"'{BAD}' is a directory, not a property file")
    expect(["analyze", FIG1, "--suppressions", missing], 2,
           f"cannot open suppressions file '{missing}': No such file or "
           "directory")


def case_failed_writes():
    """Item 5: a report that cannot be written is exit 2 naming the file
    and the reason, whether it is -o FILE, standard output, a witness
    directory or a converted trace."""
    full = "/dev/full"
    if not os.path.exists(full):
        print("no /dev/full here: skipped")
        sys.exit(77)
    no_space = "No space left on device"
    for fmt in ("text", "json", "sarif"):
        expect(["analyze", FIG1, "--format", fmt, "-o", full], 2,
               f"cannot write report '{full}': {no_space}")
        with open(full, "w") as f:
            expect(["analyze", FIG1, "--format", fmt], 2,
                   f"cannot write to standard output: {no_space}", stdout=f)
    with open(full, "w") as f:
        expect(["check-trace", FIG1], 2,
               f"cannot write to standard output: {no_space}", stdout=f)
    expect(["convert", FIG1, full], 2,
           f"cannot write trace '{full}': {no_space}")
    plain = os.path.join(W, "a-file")
    with open(plain, "w") as f:
        f.write("x")
    expect(["analyze", FIG1, "--witness-dir", os.path.join(plain, "w")], 2,
           f"cannot create witness directory '{plain}/w': Not a directory")
    # Item 6: --dump-smt2 under a file was an internal error (exit 3).
    expect(["analyze", FIG1, "--dump-smt2", os.path.join(plain, "smt")], 2,
           f"cannot create the --dump-smt2 directory '{plain}/smt': Not a "
           "directory")


def case_latin1_names():
    """Item 1: a source file, function and variable named in Latin-1 (byte
    0xE9) are written as `\\xE9` in JSON, SARIF and text, and SARIF's URI
    percent-encodes the byte; the report is whole (exit 1, both races)."""
    trace = bad("latin1_names.rpt.txt")
    rc, out, err = rp("analyze", trace, "--format", "json")
    check(rc == 1, f"json: exit {rc}, stderr {err!r}")
    j = json.loads(out)
    sites = sorted((r["first"]["loc"], r["second"]["loc"],
                    r["second"]["function"], r["location"])
                   for r in j["races"])
    check(sites == [("caf\\xE9.c:24:11", "caf\\xE9.c:11:15",
                     "journal_d\\xE9but", "entr\\xE9es"),
                    ("caf\\xE9.c:24:11", "caf\\xE9.c:11:7",
                     "journal_d\\xE9but", "entr\\xE9es")],
          f"json: races at {sites}")
    rc, out, err = rp("analyze", trace, "--format", "sarif")
    check(rc == 1, f"sarif: exit {rc}, stderr {err!r}")
    uris = set()

    def walk(x):
        if isinstance(x, dict):
            if "uri" in x and not x["uri"].startswith("file:"):
                uris.add(x["uri"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(out))
    check(uris == {"caf%E9.c"}, f"sarif: artifact URIs {uris}")
    rc, out, err = rp("analyze", trace)
    check(rc == 1, f"text: exit {rc}")
    check("#0 journal_d\\xE9but caf\\xE9.c:11:7" in out,
          f"text: no escaped frame in {out!r}")
    wdir = os.path.join(W, "witnesses")
    rc, out, err = rp("analyze", trace, "--witness-dir", wdir)
    with open(os.path.join(wdir, "race-3-6.json"), "rb") as f:
        w = json.loads(f.read().decode("utf-8"))
    check(w["second"]["loc"] == "caf\\xE9.c:11:7",
          f"witness file: loc {w['second']['loc']!r}")


def case_inconsistent():
    """Item 3: `analyze` checks consistency first. A trace that describes no
    run (join before fork, a thread forked twice, a fork cycle) is exit 2
    with its first inconsistency and line, even with --allow-inconsistent
    (it used to give an empty-witness deadlock, an abort in the slicer,
    a race, exit 0); one whose values contradict the observed order is exit
    2 unless --allow-inconsistent, which analyses it (exact race)."""
    no_run = ": the trace describes no run, it cannot be analysed"
    for name, where in [
        ("join_before_fork", "6: event 1: join t2 comes before the child's "
                             "last event 4"),
        ("forked_twice", "6: event 3: fork t2: the thread was already "
                         "forked"),
        ("fork_cycle", "3: event 1: fork t1 comes after the child's first "
                       "event 0")]:
        trace = bad(name + ".rpt.txt")
        for flags in (["--races"], ["--deadlocks"], ["--races", "--deadlocks"],
                      ["--allow-inconsistent", "--races", "--deadlocks"]):
            expect(["analyze", *flags, trace], 2, f"{trace}:{where}{no_run}")
    trace = bad("stale_read.rpt.txt")
    expect(["analyze", trace], 2,
           f"{trace}:10: event 4: rd config read 1 but the last write before "
           "it wrote 2: the trace is not a sequentially consistent run "
           "(`racepredict check-trace` lists every inconsistency; "
           "--allow-inconsistent analyses it anyway)")
    rc, out, err = rp("analyze", "--allow-inconsistent", "--races",
                      "--deadlocks", "--format", "json", trace)
    j = json.loads(out)
    races = [(r["first"]["event"], r["second"]["event"]) for r in j["races"]]
    check(rc == 1 and races == [(4, 8)] and j["deadlocks"] == [],
          f"--allow-inconsistent: exit {rc}, races {races}")
    # Every witness it reports holds on the trace semantics.
    report = os.path.join(W, "stale.json")
    with open(report, "w") as f:
        f.write(out)
    rc, out, err = rp("check-witness", trace, report)
    check(rc == 0, f"check-witness: exit {rc}: {out} {err}")


CASES = {n[len("case_"):]: f for n, f in globals().items()
         if n.startswith("case_")}

if __name__ == "__main__":
    shutil.rmtree(W, ignore_errors=True)
    os.makedirs(W)
    CASES[CASE]()
    if failures:
        sys.exit(1)
    print("ok:", CASE)
