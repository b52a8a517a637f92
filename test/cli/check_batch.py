#!/usr/bin/env python3
"""`racepredict batch` on recorded text traces (no compiler needed): input
errors name the file and line with exit 2, inconclusive analyses are never
clean (exit 4, JUnit error), broken traces are test errors, the progress
line appears only on a terminal, and `analyze --suppressions` works.

    check_batch.py RACEPREDICT INPUTS_DIR EXAMPLES_DIR WORKDIR
"""
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

RP, INPUTS, EXAMPLES, W = sys.argv[1:5]
FIG1 = os.path.join(EXAMPLES, "huang_fig1.rpt.txt")
CLEAN = os.path.join(INPUTS, "paper", "huang_fig2_case2.rpt.txt")
# A race only the solver finds (the fast path settles fig1's).
SOLVER = os.path.join(INPUTS, "scale", "overwritten_writer.rpt.txt")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def batch(*args, **kw):
    return subprocess.run([RP, "batch", *args], capture_output=True, text=True,
                          timeout=300, **kw)


def expect_error(args, message):
    r = batch(*args)
    check(r.returncode == 2, f"{args}: exit {r.returncode}, want 2")
    check(message in r.stderr, f"{args}: stderr {r.stderr!r} lacks {message!r}")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def traces_dir(name, files):
    d = os.path.join(W, name)
    os.makedirs(d)
    for f in files:
        shutil.copy(f, d)
    return d


def pty_run(args):
    """Runs with stderr (and stdout) on a pseudo-terminal; returns output."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.execv(RP, [RP, *args])
    out = b""
    while True:
        r, _, _ = select.select([fd], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def main():
    shutil.rmtree(W, ignore_errors=True)
    os.makedirs(W)
    good = traces_dir("good", [FIG1, CLEAN])
    empty = os.path.join(W, "empty")
    os.makedirs(empty)

    # --- Usage and input errors: exit 2, the file and line named.
    expect_error([], "give exactly one input: --ctest DIR, --commands FILE or --traces DIR")
    expect_error(["--traces", good, "--ctest", good], "give exactly one input")
    expect_error(["--traces", os.path.join(W, "nope")],
                 f"--traces: '{os.path.join(W, 'nope')}' is not a directory")
    expect_error(["--traces", empty], "--traces: no trace files (*.rptrace, *.rpt.txt, *.std)")
    expect_error(["--ctest", good], "has no CTestTestfile.cmake (not a CTest build directory")
    expect_error(["--traces", good, "-R", "nomatch"], "no tests to run in traces")
    supp = write(os.path.join(W, "bad.supp"), "# ok\nrace:worker\nlock:m\n")
    expect_error(["--traces", good, "--suppressions", supp],
                 f"{supp}:3: unknown suppression type 'lock' (racepredict knows "
                 "race, race_top, deadlock and property, and ignores TSan's "
                 "mutex, thread, signal and called_from_lib)")
    supp2 = write(os.path.join(W, "bad2.supp"), "race:\n")
    expect_error(["--traces", good, "--suppressions", supp2],
                 f"{supp2}:1: empty pattern after 'race:'")
    base = write(os.path.join(W, "bad.baseline"), '{"tool": "racepredict"}')
    expect_error(["--traces", good, "--baseline", base],
                 f"{base}: not a racepredict baseline")
    base2 = write(os.path.join(W, "bad2.baseline"), '{"kind": "baseline",\n "findings": [')
    expect_error(["--traces", good, "--baseline", base2], f"{base2}: not valid JSON")
    cmds = write(os.path.join(W, "bad.cmds"), "# c\n[a] true\n[b true\n")
    expect_error(["--commands", cmds], f"{cmds}:3: '[' without ']' (expected [NAME] COMMAND)")
    cmds2 = write(os.path.join(W, "dup.cmds"), "[a] true\n[a] false\n")
    expect_error(["--commands", cmds2], f"{cmds2}:2: test name 'a' is used twice")
    expect_error(["--traces", good, "--specs", cmds], "give exactly one input")
    expect_error(["--traces", good, "--test-timeout", "-1"], "--test-timeout")

    # --- Findings are exact; a run with suppressions of all of them is clean.
    j = os.path.join(W, "good.json")
    r = batch("--traces", good, "--json", j, "--source-root", EXAMPLES)
    check(r.returncode == 1, f"good: exit {r.returncode}")
    rep = json.load(open(j))
    sigs = {t["name"]: [f["signature"] for f in t["findings"]] for t in rep["tests"]}
    check(sigs == {"huang_fig1.rpt.txt": ["race|fig1.c:3:main|fig1.c:9:worker"],
                   "huang_fig2_case2.rpt.txt": []}, f"signatures {sigs}")
    check(rep["replay"] is False and
          [f["status"] for t in rep["tests"] for f in t["findings"]] == ["predicted"],
          "traces are predicted only")
    check("findings are predicted (witness schedules validated on the traces), "
          "not replayed" in r.stdout, f"summary: {r.stdout}")
    allsupp = write(os.path.join(W, "all.supp"), "race:fig1.c\n")
    r = batch("--traces", good, "--suppressions", allsupp)
    check(r.returncode == 0, f"suppressed: exit {r.returncode}: {r.stdout}")
    check("1 finding: 0 new, 0 known, 1 suppressed" in r.stdout, r.stdout)

    # --- Unknown solver queries: inconclusive, never clean (exit 4).
    x = os.path.join(W, "rlimit.xml")
    j = os.path.join(W, "rlimit.json")
    hard = traces_dir("hard", [SOLVER, CLEAN])
    r = batch("--traces", hard, "--rlimit", "1", "--junit", x, "--json", j)
    check(r.returncode == 4, f"rlimit: exit {r.returncode}, want 4")
    t = {t["name"]: t for t in json.load(open(j))["tests"]}
    ow = t["overwritten_writer.rpt.txt"]
    check(ow["status"] == "inconclusive" and "ended unknown" in ow["reason"],
          f"rlimit overwritten_writer: {ow['status']} {ow.get('reason')}")
    check(t["huang_fig2_case2.rpt.txt"]["status"] == "ok", "clean trace stays ok")
    root = ET.parse(x).getroot()
    check((root.get("tests"), root.get("failures"), root.get("errors")) == ("2", "0", "1"),
          f"rlimit JUnit {root.attrib}")
    err = [tc.find("error") for tc in root.iter("testcase")
           if tc.get("name") == "overwritten_writer.rpt.txt"][0]
    check(err is not None and err.get("type") == "inconclusive", "JUnit error type")

    # --- A broken trace is a test error with analyze's message; the others run.
    bad = traces_dir("bad", [FIG1, os.path.join(INPUTS, "bad", "unknown_op.rpt.txt")])
    j = os.path.join(W, "bad.json")
    r = batch("--traces", bad, "--json", j)
    check(r.returncode == 1, f"bad: exit {r.returncode} (new finding in fig1 wins)")
    t = {t["name"]: t for t in json.load(open(j))["tests"]}
    u = t["unknown_op.rpt.txt"]
    check(u["status"] == "error" and "unknown_op.rpt.txt:3: unknown op 'foo'" in u["reason"],
          f"bad trace: {u['status']}: {u.get('reason')}")

    # --- Commands that cannot run are errors; uninstrumented ones skipped.
    cmds3 = write(os.path.join(W, "run.cmds"),
                  "[missing] /nonexistent/prog\n[plain] true\n")
    j = os.path.join(W, "run.json")
    r = batch("--commands", cmds3, "--json", j)
    check(r.returncode == 4, f"commands: exit {r.returncode}, want 4")
    t = {t["name"]: t for t in json.load(open(j))["tests"]}
    check(t["missing"]["status"] == "error" and t["missing"]["reason"] ==
          "the test failed (exit status 127) before any instrumented process "
          "wrote a trace", f"missing: {t['missing']}")
    check(t["plain"]["status"] == "skipped" and
          t["plain"]["reason"].startswith("no instrumented process ran"),
          f"plain: {t['plain']}")

    # --- Progress: one redrawn line on a terminal, nothing in a log.
    code, out = pty_run(["batch", "--traces", good])
    check(code == 1, f"pty run exit {code}")
    check("\r\x1b[K" in out and "2/2 tests done, 1 finding so far" in out,
          f"no progress line on a terminal: {out!r}")
    code, out = pty_run(["batch", "--traces", good, "--no-progress"])
    check("\r" not in out.replace("\r\n", "\n"), f"--no-progress drew: {out!r}")
    r = batch("--traces", good)
    check("tests done" not in r.stderr and "\r" not in r.stderr, "progress in a log")
    r = batch("--traces", good, "--progress")
    check("2/2 tests done" in r.stderr, "--progress without a terminal")

    # --- analyze --suppressions.
    r = subprocess.run([RP, "analyze", FIG1, "--suppressions", allsupp],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and f"1 finding suppressed by {allsupp}" in r.stderr and
          "0 data races predicted" in r.stdout, f"analyze --suppressions: {r.returncode} {r.stderr}")
    other = write(os.path.join(W, "other.supp"), "race:^nothing$\n")
    r = subprocess.run([RP, "analyze", FIG1, "--suppressions", other, "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and len(json.loads(r.stdout)["races"]) == 1 and
          json.loads(r.stdout)["stats"]["suppressed"] == 0, "non-matching rule")
    r = subprocess.run([RP, "analyze", FIG1, "--suppressions", supp],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and f"{supp}:3: unknown suppression type 'lock'" in r.stderr,
          f"analyze bad suppressions: {r.stderr}")

    if failures:
        return 1
    print("ok: batch inputs, errors, inconclusive runs, progress, analyze --suppressions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
