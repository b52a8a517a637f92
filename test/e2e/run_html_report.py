#!/usr/bin/env python3
"""The HTML report in headless Chromium (issue 19): compile a C++ program
with three races, write its page three ways (`run --format html`,
`report REPORT.json --html`, `report TRACE --html`), load each in
Chromium and check the rendered DOM: the script ran without an error, the
findings list has every finding, the first finding's two racing steps are
the highlighted steps and are the report's racing events, the race edge is
drawn, `#finding=K&expand` switches finding and unfolds every folded run.
A screenshot of the page is taken. Exits 77 (skipped) where Chromium is
not installed (scripts/install-chromium.sh installs it).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_util import compile_prog, fail, run  # noqa: E402

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-quic", "--no-first-run",
                  "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--window-size=1400,900"]


class Dom(HTMLParser):
    """What the test asserts on: body attributes, finding items, step rows
    (role, event), fold rows and edge kinds."""

    def __init__(self):
        super().__init__()
        self.body, self.items, self.steps, self.folds, self.edges = \
            {}, 0, [], 0, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "") or ""
        if tag == "body":
            self.body = a
        elif tag == "li" and "data-index" in a:
            self.items += 1
        elif tag == "tr" and "step" in cls.split():
            role = [c for c in cls.split() if c.startswith("role-")]
            self.steps.append((role[0][5:] if role else "", int(a["data-event"])))
        elif tag == "tr" and "fold" in cls.split():
            self.folds += 1
        elif tag == "path" and "data-kind" in a:
            self.edges.append(a["data-kind"])


def render(chromium, page, profile, fragment="", screenshot=None):
    url = "file://" + os.path.abspath(page) + fragment
    shutil.rmtree(profile, ignore_errors=True)
    flags = CHROMIUM_FLAGS + [f"--user-data-dir={profile}"]
    if screenshot:
        run([chromium] + flags + [f"--screenshot={screenshot}", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    p = run([chromium] + flags + ["--enable-logging=stderr", "--v=0",
                                  "--dump-dom", url],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=120)
    dom = Dom()
    dom.feed(p.stdout)
    errors = [line for line in p.stderr.splitlines()
              if "CONSOLE" in line or "Uncaught" in line]
    return dom, errors


def check_page(chromium, page, profile, races, nfindings):
    """The checks on one page; returns an error or None."""
    dom, console = render(chromium, page, profile)
    if console:
        return f"{page}: console messages: {console}"
    if dom.body.get("data-rendered") != "ok" or "data-js-error" in dom.body:
        return f"{page}: not rendered: {dom.body}"
    if dom.items != nfindings:
        return f"{page}: {dom.items} findings listed, expected {nfindings}"
    hot = sorted(e for role, e in dom.steps if role == "essential")
    want = sorted([races[0]["first"]["event"], races[0]["second"]["event"]])
    if hot != want:
        return f"{page}: highlighted steps {hot}, expected the racing {want}"
    if "race" not in dom.edges:
        return f"{page}: no race edge drawn ({dom.edges})"
    if dom.folds == 0:
        return f"{page}: nothing folded in a witness of global constructors"
    last = nfindings - 1
    dom2, console = render(chromium, page, profile, f"#finding={last}&expand")
    hot = sorted(e for role, e in dom2.steps if role == "essential")
    want = sorted([races[last]["first"]["event"],
                   races[last]["second"]["event"]])
    if console or dom2.body.get("data-finding") != str(last) or \
            dom2.folds != 0 or hot != want or \
            len(dom2.steps) != races[last]["witness_length"]:
        return (f"{page}#finding={last}&expand: finding "
                f"{dom2.body.get('data-finding')}, {dom2.folds} folds, "
                f"{len(dom2.steps)} steps (want "
                f"{races[last]['witness_length']}), highlighted {hot} "
                f"(want {want}), console {console}")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--opt", default="-O0")
    a = ap.parse_args()
    chromium = shutil.which("chromium")
    if not chromium:
        print("SKIP: chromium is not installed (scripts/install-chromium.sh)")
        return 77
    os.makedirs(a.workdir, exist_ok=True)
    exe = compile_prog(a, "html_prog")
    w = a.workdir
    trace, rep = os.path.join(w, "prog.rptrace"), os.path.join(w, "run.json")
    pages = {"run": os.path.join(w, "run.html"),
             "json": os.path.join(w, "from_json.html"),
             "trace": os.path.join(w, "from_trace.html")}
    if run([a.racepredict, "run", "--trace-out", trace, "--format", "json",
            "-o", rep, "--", exe], timeout=300).returncode != 1:
        return fail("run --format json did not find the races")
    if run([a.racepredict, "run", "--format", "html", "-o", pages["run"],
            "--", exe], timeout=300).returncode != 1:
        return fail("run --format html did not find the races")
    for name, inp in (("json", rep), ("trace", trace)):
        if run([a.racepredict, "report", inp, "--html", pages[name]],
               timeout=300).returncode != 1:
            return fail(f"report {inp} exited without findings")
    races = json.load(open(rep))["races"]
    for r in races:
        r["witness_length"] = len(r["witness"])
    for name, page in pages.items():
        # A page of another recording (run --format html records anew):
        # its own events, from its own analysis of the same program.
        if name == "run":
            continue
        err = check_page(chromium, page, os.path.join(w, "profile"), races,
                         len(races))
        if err:
            return fail(err)
    dom, console = render(chromium, pages["run"], os.path.join(w, "profile"))
    if console or dom.body.get("data-rendered") != "ok" or \
            dom.items != len(races) or \
            sum(1 for role, _ in dom.steps if role == "essential") != 2:
        return fail(f"run --format html: {dom.body} {dom.items} findings, "
                    f"console {console}")
    shot = os.path.join(w, "html_report.png")
    render(chromium, pages["json"], os.path.join(w, "profile"),
           screenshot=shot)
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        return fail("no screenshot")
    print(f"ok: {len(races)} findings on three pages; screenshot {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
