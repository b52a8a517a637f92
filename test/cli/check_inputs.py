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
                       "event 0"),
        ("notify_before_wait", "18: event 9: wait c is matched to notify 6, "
                               "which precedes the waiting thread's previous "
                               "event")]:
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


def case_witness_halves():
    """Item 2: one reading of wait halves. In deadlock 4 8 11 of
    wait_half_needed.rpt.txt the blocked wait's release half is needed by
    another thread's acquisition; a report that lists events only (no
    "steps", as reports had) used to be rejected by check-witness ("first
    half already executed"). Both forms are valid, in a report and in a
    --witness-dir file."""
    trace = os.path.join(INPUTS, "deadlock", "wait_half_needed.rpt.txt")
    wdir = os.path.join(W, "w")
    rc, out, err = rp("analyze", "--deadlocks", "--all-pairs", "--format",
                      "json", "--witness-dir", wdir, trace)
    j = json.loads(out)
    steps = {tuple(b["event"] for b in d["blocked"]): d.get("steps")
             for d in j["deadlocks"]}
    check(steps[(4, 8, 11)] and {"event": 8, "half": True} in
          steps[(4, 8, 11)], f"the report has no steps with 8's half: {steps}")
    for d in j["deadlocks"]:
        d.pop("steps", None)
    events_only = os.path.join(W, "events_only.json")
    with open(events_only, "w") as f:
        json.dump(j, f)
    rc, out, err = rp("check-witness", trace, events_only)
    check(rc == 0 and "3 of 3 witnesses valid" in out,
          f"events-only report: exit {rc}: {out}{err}")
    with open(os.path.join(wdir, "deadlock-4-8-11.json")) as f:
        w = json.load(f)
    del w["steps"]
    file_only = os.path.join(W, "deadlock-events-only.json")
    with open(file_only, "w") as f:
        json.dump(w, f)
    rc, out, err = rp("check-witness", trace, file_only)
    check(rc == 0, f"events-only witness file: exit {rc}: {out}{err}")


def case_witness_schema():
    """Item 8 (and item 6's report whose races are not a list): one schema,
    read strictly by check-witness and replay alike. 2^64, -1 and a string
    are no event index, an unknown kind is refused, "steps" and "witness"
    must be one schedule; each is exit 2 naming the field (exit 1 for a
    well-formed witness that does not hold), and replay refuses the same
    files with the same reason before running anything."""
    trace = os.path.join(INPUTS, "paper", "huang_fig2_case1.rpt.txt")
    wdir = os.path.join(W, "w")
    rp("analyze", trace, "--witness-dir", wdir)
    name = sorted(os.listdir(wdir))[0]
    with open(os.path.join(wdir, name)) as f:
        good = json.load(f)

    def variant(tag, change):
        w = json.loads(json.dumps(good))
        change(w)
        path = os.path.join(W, tag + ".json")
        with open(path, "w") as f:
            f.write(json.dumps(w).replace('"BIG"', "18446744073709551616"))
        return path

    def set_witness0(value):
        return lambda w: w["witness"].__setitem__(0, value)
    for tag, change, msg in [
            ("big", set_witness0("BIG"),
             "witness[0]: 1.8446744073709552e+19 is not an event index"),
            ("negative", set_witness0(-1), "witness[0]: -1 is not an event "
                                           "index"),
            ("uint32max", set_witness0(4294967295),
             "witness[0]: 4294967295 is not an event index"),
            ("text", set_witness0("3"), 'witness[0]: "3" is not an event '
                                        "index"),
            ("bogus", lambda w: w.__setitem__("kind", "bogus"),
             'not a racepredict report or witness file (unknown witness '
             'kind "bogus")'),
            ("no_second", lambda w: w.pop("second"), "second: missing"),
            ("half_type", lambda w: w["steps"][0].__setitem__("half", 1),
             "steps[0].half: expected true or false, got 1")]:
        path = variant(tag, change)
        for cmd in (["check-witness", trace, path],
                    ["replay", "--trace", trace, "--schedule", path, "--",
                     "/bin/true"]):
            expect(cmd, 2, f"{path}: {msg}")
    # Well-formed, but "steps" and "witness" disagree: invalid (exit 1)
    # for check-witness, refused by replay, for the same reason.
    path = variant("two_schedules",
                   lambda w: w["witness"].insert(0, w["witness"][0]))
    rc, out, err = rp("check-witness", trace, path)
    why = '"steps" and "witness" are not the same schedule'
    check(rc == 1 and f"invalid witness: {why}" in out,
          f"two schedules: exit {rc}: {out}{err}")
    expect(["replay", "--trace", trace, "--schedule", path, "--",
            "/bin/true"], 2, why)
    report = os.path.join(W, "races_not_a_list.json")
    with open(report, "w") as f:
        json.dump({"tool": "racepredict", "races": 5}, f)
    expect(["check-witness", trace, report], 2,
           f"{report}: 'races' is not a list (the number 5)")


def case_tsan_suppressions():
    """Item 10: a TSan suppression file is accepted: race_top applies to the
    accesses' own frames (both races of latin1_names.rpt.txt are in
    journal_d\xe9but), the kinds racepredict never reports are ignored with
    a warning naming the line; an unknown type is still an error."""
    supp = bad("tsan.supp")
    rc, out, err = rp("analyze", bad("latin1_names.rpt.txt"), "--suppressions",
                      supp)
    check(rc == 0, f"exit {rc}, want 0 (both races suppressed): {err}")
    for line, rule, why in [
            (4, "called_from_lib:libgio-2.0.so",
             "calls from libraries not built with racepredict-cc are never "
             "recorded"),
            (5, "thread:worker_pool_start", "racepredict reports no thread "
                                            "leaks"),
            (6, "mutex:^legacy_", "racepredict reports no mutex misuse"),
            (7, "signal:on_sigterm", "racepredict reports no signal-unsafe "
                                     "calls")]:
        want = f"{supp}:{line}: warning: '{rule}' ignored: {why}"
        check(want in err, f"stderr lacks {want!r}: {err!r}")
    check(f"2 findings suppressed by {supp}" in err, f"stderr: {err!r}")
    typo = os.path.join(W, "typo.supp")
    with open(typo, "w") as f:
        f.write("race:x\nrce:y\n")
    expect(["analyze", FIG1, "--suppressions", typo], 2,
           f"{typo}:2: unknown suppression type 'rce'")


def case_out_of_memory():
    """Item 6: running out of memory is said as such (what it was doing, on
    which trace, the peak and the limit) with exit 4 (inconclusive), in
    seconds, never exit 3 or a crash: every --all-pairs race of a
    300,000-event trace without synchronisation (millions of racing pairs,
    each with a witness) under a 150 MB address-space limit."""
    import random
    import resource
    rnd = random.Random(1)
    trace = os.path.join(W, "counters.rpt.txt")
    values = {}
    with open(trace, "w") as f:
        f.write("t0 begin\nt0 fork t1\nt0 fork t2\nt1 begin\nt2 begin\n")
        for _ in range(300000):
            t, loc = rnd.choice("12"), f"slot{rnd.randrange(1000)}"
            if rnd.random() < 0.5:
                values[loc] = rnd.randrange(5)
                f.write(f"t{t} wr {loc} {values[loc]}\n")
            else:
                f.write(f"t{t} rd {loc} {values.setdefault(loc, 0)}\n")
        f.write("t1 end\nt2 end\nt0 join t1\nt0 join t2\nt0 end\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (150 << 20, 150 << 20))
    r = subprocess.run([RP, "analyze", "--all-pairs", trace],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=300, preexec_fn=limit)
    err = r.stderr.decode()
    want = (f" {trace} (300010 events, 3 threads) (peak resident ")
    check(r.returncode == 4 and err.startswith("racepredict: out of memory "
                                               "while ") and want in err and
          "the limit is 150 MB" in err, f"exit {r.returncode}, stderr {err!r}")


CASES = {n[len("case_"):]: f for n, f in globals().items()
         if n.startswith("case_")}

if __name__ == "__main__":
    shutil.rmtree(W, ignore_errors=True)
    os.makedirs(W)
    CASES[CASE]()
    if failures:
        sys.exit(1)
    print("ok:", CASE)
