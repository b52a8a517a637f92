#!/usr/bin/env python3
"""Golden text reports: compile SRC, `racepredict run --races --deadlocks`
it, normalise the text report (scripts/normalize-report.py: addresses,
event indices, paths) and compare it with golden/STEM.OPT.txt, exactly.
Every finding must fit on a screen: at most 60 lines from its WARNING to
its SUMMARY.

Goldens are written only by scripts/update-golden.sh (it sets
RACEPREDICT_UPDATE_GOLDEN=1 for these tests); review them as a diff.
"""
import argparse
import difflib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from replay_util import compile_prog, fail, run  # noqa: E402

normalize = __import__("normalize-report").normalize

MAX_LINES = 60


def finding_sizes(text):
    """Lines of each finding, WARNING to SUMMARY inclusive."""
    sizes, start = [], None
    for i, line in enumerate(text.splitlines()):
        if line.startswith("WARNING: racepredict:"):
            start = i
        elif line.startswith("SUMMARY: racepredict:") and start is not None:
            sizes.append(i - start + 1)
            start = None
    return sizes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--opt", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(a.src))[0]
    name = f"{stem}{a.opt}"
    exe = compile_prog(a, name)
    out = os.path.join(a.workdir, name + ".report.txt")
    r = run([a.racepredict, "run", "--races", "--deadlocks", "-o", out, "--",
             exe], timeout=300)
    if r.returncode not in (0, 1):
        return fail(f"run exited with {r.returncode}")
    text = normalize(open(out).read())
    sizes = finding_sizes(text)
    if not sizes:
        return fail("no finding in the report")
    if max(sizes) > MAX_LINES:
        return fail(f"a finding takes {max(sizes)} lines (at most {MAX_LINES})")
    golden = os.path.join(HERE, "golden", f"{stem}.{a.opt.lstrip('-')}.txt")
    if os.environ.get("RACEPREDICT_UPDATE_GOLDEN") == "1":
        with open(golden, "w") as f:
            f.write(text)
        print("wrote", golden)
        return 0
    if not os.path.exists(golden):
        return fail(f"no golden file {golden} (scripts/update-golden.sh)")
    want = open(golden).read()
    if text != want:
        sys.stdout.writelines(difflib.unified_diff(
            want.splitlines(True), text.splitlines(True), golden, "report"))
        return fail("the report differs from its golden file")
    print(f"ok: {len(sizes)} finding(s), at most {max(sizes)} lines each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
