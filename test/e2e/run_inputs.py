#!/usr/bin/env python3
"""End-to-end tests of issue 21 (bad inputs) on recorded programs.

Modes:
  latin1   a program whose source file is named in Latin-1 (the byte 0xE9,
           `compteur_caf\\xE9.c`, with Latin-1 comments on the racing lines):
           `run --format json|sarif|text` exits 1 with the confirmed race at
           both anchors, the file written `\\xE9` (a percent-encoded URI in
           SARIF); `replay` prints its steps so too; `batch` keeps the test's confirmed race in its JSON,
           JUnit and SARIF, and a baseline it writes recognises the race
           the next night (0 new).

    run_inputs.py MODE --cc RACEPREDICT_CC --racepredict RP --src PROG.c
                  --workdir DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=300, **kw)


def anchors(src):
    """`// @NAME` lines of a Latin-1 source: NAME -> line number."""
    with open(src, "rb") as f:
        lines = f.read().decode("latin-1").splitlines()
    return {m.group(1): n for n, line in enumerate(lines, 1)
            for m in [re.search(r"//\s*@(\w+)\s*$", line)] if m}


def latin1(a):
    os.makedirs(a.workdir)
    name = b"compteur_caf\xe9.c"
    src = os.path.join(os.fsencode(a.workdir), name)
    shutil.copy(a.src, src)
    shutil.copy(os.path.join(os.path.dirname(a.src), "testonly.h"), a.workdir)
    exe = os.path.join(a.workdir, "compteur")
    r = run([a.cc, "-g", "-O1", src, "-o", exe])
    if r.returncode != 0:
        raise SystemExit(f"compilation failed: {r.stderr.decode()}")
    lines = anchors(a.src)
    shown = "compteur_caf\\xE9.c"
    want = {f"{shown}:{lines['A']}", f"{shown}:{lines['B']}"}

    def at(loc):
        """`/dir/f.c:12:5` -> `f.c:12`."""
        parts = loc.rsplit(":", 2)
        return f"{os.path.basename(parts[0])}:{parts[1]}"

    r = run([a.racepredict, "run", "--format", "json", "--", exe])
    check(r.returncode == 1, f"run json: exit {r.returncode}: "
                             f"{r.stderr.decode(errors='replace')}")
    j = json.loads(r.stdout.decode("utf-8"))
    got = [({at(x["first"]["loc"]), at(x["second"]["loc"])}, x.get("replay"))
           for x in j["races"]]
    check(got == [(want, "confirmed")], f"run json: races {got}")

    r = run([a.racepredict, "run", "--format", "sarif", "--", exe])
    check(r.returncode == 1, f"run sarif: exit {r.returncode}")
    uris = set(re.findall(r'"uri": "([^"]*compteur[^"]*)"',
                          r.stdout.decode("utf-8")))
    check(uris and all(u.endswith("compteur_caf%E9.c") for u in uris),
          f"run sarif: URIs {uris}")

    wdir = os.path.join(a.workdir, "witnesses")
    r = run([a.racepredict, "run", "--witness-dir", wdir, "--", exe])
    check(r.returncode == 1, f"run text: exit {r.returncode}")
    text = r.stdout.decode("utf-8")  # must be UTF-8
    check(f"compteur_caf\\xE9.c:{lines['B']}" in text and
          "/* compt\\xE9 sans verrou */" in text,
          f"run text: no escaped file or source line in {text!r}")

    # replay prints every step with its source line, as UTF-8 too (the
    # step lines: the runtime's own verdict line names files as they are).
    witness = os.path.join(wdir, next(f for f in sorted(os.listdir(wdir))
                                      if f.startswith("race-")))
    r = run([a.racepredict, "replay", "--schedule", witness, "--", exe])
    steps = [ln.decode("utf-8") for ln in r.stderr.splitlines()
             if ln.startswith(b"racepredict replay: [")]
    check(r.returncode == 1 and
          any("/* compt\\xE9 sans verrou */" in ln for ln in steps),
          f"replay: exit {r.returncode}, steps {steps!r}")

    cmds = os.path.join(a.workdir, "tests.txt")
    with open(cmds, "w") as f:
        f.write("[compteur] ./compteur\n")
    out = {k: os.path.join(a.workdir, "batch." + k)
           for k in ("json", "xml", "sarif", "baseline")}
    r = run([a.racepredict, "batch", "--commands", cmds, "--json",
             out["json"], "--junit", out["xml"], "--sarif", out["sarif"],
             "--write-baseline", out["baseline"]])
    check(r.returncode == 1, f"batch: exit {r.returncode}: "
                             f"{r.stderr.decode(errors='replace')}")
    with open(out["json"], encoding="utf-8") as f:
        tests = json.load(f)["tests"]
    found = [(f["kind"], f["status"], {at(s["loc"]) for s in f["sites"]})
             for t in tests for f in t["findings"]]
    check(found == [("race", "confirmed", want)], f"batch json: {found}")
    failures_xml = ET.parse(out["xml"]).getroot().iter("failure")
    check(len(list(failures_xml)) == 1, "batch junit: not one failure")
    with open(out["sarif"], encoding="utf-8") as f:
        sarif = f.read()
    check("compteur_caf%E9.c" in sarif, "batch sarif: no %E9 URI")
    r = run([a.racepredict, "batch", "--commands", cmds, "--baseline",
             out["baseline"]])
    check(r.returncode == 0 and b"0 new, 1 known" in r.stdout,
          f"batch --baseline: exit {r.returncode}, {r.stdout!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["latin1"])
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    a.workdir = os.path.join(a.workdir, a.mode)
    shutil.rmtree(a.workdir, ignore_errors=True)
    globals()[a.mode](a)
    if failures:
        sys.exit(1)
    print("ok:", a.mode)


if __name__ == "__main__":
    main()
