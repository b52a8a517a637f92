#!/usr/bin/env python3
"""End-to-end test of `racepredict batch` over our CTest project
(test/e2e/batch_project): configure it with racepredict-cc, build, run
batch, and check exactly which tests fail with which findings (by the
`// @ANCHOR` lines of the sources), the JUnit counts, the SARIF (schema +
GitHub rules with Microsoft's validator, code flows, URIs, fingerprints),
the JSON, that a second run with the written baseline reports nothing new,
suppressions, --budget, and the --commands input.

    run_batch_e2e.py --racepredict RP --cc RACEPREDICT_CC --project DIR
                     --testonly DIR --workdir DIR [--validator SARIF_MULTITOOL]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batch_checks import (anchors, check, check_sarif_shape, fnv1a,  # noqa: E402
                          junit_cases, run)

# New findings per test: (kind, {file@ANCHOR, ...}); for a deadlock the
# anchors are both threads' requests and held acquisitions.
EXPECTED_NEW = {
    "race_counter": [("race", {"race_counter.c@W", "race_counter.c@M"})],
    "race_two_vars": [("race", {"race_two_vars.c@W1", "race_two_vars.c@W0"}),
                      ("race", {"race_two_vars.c@H1", "race_two_vars.c@H0"})],
    "race_crash": [("race", {"race_crash.c@C1", "race_crash.c@C0"})],
    "deadlock_order": [("deadlock", {"deadlock_order.c@J1", "deadlock_order.c@A1",
                                     "deadlock_order.c@A0", "deadlock_order.c@J0"})],
    "race_env": [("race", {"race_env.c@E1", "race_env.c@E0"})],
    "multi_process": [("race", {"race_counter.c@W", "race_counter.c@M"})],
}
EXPECTED_SUPPRESSED = {
    "race_suppressed": [("race", {"race_suppressed.c@L", "race_suppressed.c@S"})],
}
EXPECTED_OUTCOME = {
    "race_counter": "failed", "race_two_vars": "failed", "race_crash": "failed",
    "deadlock_order": "failed", "race_env": "failed", "multi_process": "failed",
    "race_suppressed": "passed", "clean_lock": "passed", "clean_join": "passed",
    "hang": "error", "no_trace": "skipped", "disabled": "skipped",
}


def resolve(project, spec):
    """{file@ANCHOR} -> {file:line}."""
    out = set()
    for item in spec:
        f, a = item.split("@")
        out.add(f"{f}:{anchors(os.path.join(project, f))[a]}")
    return out


def finding_key(f):
    return (f["kind"], frozenset(f"{os.path.basename(s['file'])}:{s['line']}"
                                 for s in f["sites"]))


def expected_keys(project, table, name):
    return sorted((k, frozenset(resolve(project, s))) for k, s in table.get(name, []))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--testonly", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--validator")
    a = ap.parse_args()
    rp, project, w = a.racepredict, a.project, a.workdir
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    build = os.path.join(w, "build")
    r = run(["cmake", "-S", project, "-B", build, f"-DCMAKE_C_COMPILER={a.cc}",
             f"-DTESTONLY_DIR={a.testonly}"], capture_output=True, text=True)
    check(r.returncode == 0, f"configure failed: {r.stdout}{r.stderr}")
    r = run(["cmake", "--build", build, "-j2"], capture_output=True, text=True)
    check(r.returncode == 0, f"build failed: {r.stdout}{r.stderr}")

    out = {k: os.path.join(w, f"first.{k}") for k in ("xml", "sarif", "json")}
    baseline = os.path.join(w, "baseline.json")
    supp = os.path.join(project, "suppressions.txt")
    common = [rp, "batch", "--ctest", build, "-j2", "--races", "--deadlocks"]
    r = run(common + ["--test-timeout", "5", "--suppressions", supp,
                      "--junit", out["xml"], "--sarif", out["sarif"],
                      "--json", out["json"], "--write-baseline", baseline],
            capture_output=True, text=True, timeout=600)
    print(r.stdout, r.stderr)
    check(r.returncode == 1, f"first run: exit {r.returncode}, want 1 (new findings)")
    check("\r" not in r.stderr, "a progress line was drawn without a terminal")
    report = json.load(open(out["json"]))

    # --- JSON: exactly the expected findings, verdicts, statuses.
    tests = {t["name"]: t for t in report["tests"]}
    check(set(tests) == set(EXPECTED_OUTCOME), f"tests {sorted(tests)}")
    for name, t in tests.items():
        check(t["outcome"] == EXPECTED_OUTCOME[name],
              f"{name}: outcome {t['outcome']}, want {EXPECTED_OUTCOME[name]}")
        got_new = sorted(finding_key(f) for f in t["findings"] if f["verdict"] == "new")
        check(got_new == expected_keys(project, EXPECTED_NEW, name),
              f"{name}: new findings {got_new}, want "
              f"{expected_keys(project, EXPECTED_NEW, name)}")
        got_sup = sorted(finding_key(f) for f in t["findings"] if f["verdict"] == "suppressed")
        check(got_sup == expected_keys(project, EXPECTED_SUPPRESSED, name),
              f"{name}: suppressed findings {got_sup}")
        for f in t["findings"]:
            check(f["status"] == "predicted", f"{name}: status {f['status']}")
            check(f["fingerprint"] == fnv1a(f["signature"]), f"{name}: fingerprint")
            check(not re.search(r"0x[0-9a-f]{6,}|#\d", f["signature"]),
                  f"{name}: signature has addresses/events: {f['signature']}")
    check(tests["race_suppressed"]["findings"][0]["suppressed_by"] ==
          f"race:legacy_update ({supp}:2)", "suppressed_by")
    check(tests["race_crash"]["ran"] == "signal 6 (Aborted)",
          f"race_crash ran: {tests['race_crash']['ran']}")
    check(tests["hang"]["status"] == "timeout" and
          "--test-timeout 5 s" in tests["hang"]["reason"], f"hang: {tests['hang']}")
    check(tests["no_trace"]["status"] == "skipped" and
          "no instrumented process" in tests["no_trace"]["reason"], "no_trace")
    check(tests["disabled"]["reason"] == "disabled in CTest (DISABLED property)",
          "disabled")
    check(len(tests["multi_process"]["traces"]) == 2, "multi_process: two traces")
    check([(s["rule"], s["hits"]) for s in report["suppressions"]] ==
          [("race:legacy_update", 1), ("deadlock:no_such_function", 0)],
          f"suppressions {report['suppressions']}")
    want_summary = {"tests": 12, "passed": 3, "failed": 6, "errors": 1,
                    "skipped": 2, "findings": 8, "new": 7, "known": 0,
                    "suppressed": 1, "distinct_new": 6}
    got_summary = {k: report["summary"][k] for k in want_summary}
    check(got_summary == want_summary, f"summary {got_summary}")

    # --- JUnit: counts, one failure per new finding with its witness.
    root = ET.parse(out["xml"]).getroot()
    suite = root.find("testsuite")
    for el in (root, suite):
        counts = {k: el.get(k) for k in ("tests", "failures", "errors", "skipped")}
        check(counts == {"tests": "12", "failures": "6", "errors": "1", "skipped": "2"},
              f"JUnit counts {counts}")
    cases = junit_cases(out["xml"])
    for name, want in EXPECTED_NEW.items():
        fails = cases[name]["failures"]
        check(len(fails) == len(want), f"{name}: {len(fails)} JUnit failures")
        for kind, spec in want:
            locs = resolve(project, spec)
            match = [f for f in fails if f["type"] == kind and
                     all(re.search(re.escape(l) + r"\b", f["message"]) for l in locs)]
            check(len(match) == 1, f"{name}: no {kind} failure naming {locs}")
            check("Witness schedule" in match[0]["text"] and
                  match[0]["text"].count("<==") == 2, f"{name}: witness text")
    check(cases["hang"]["error"] == "timeout", f"hang: {cases['hang']}")
    check(cases["no_trace"]["skipped"] and cases["disabled"]["skipped"], "skips")
    for name in ("race_suppressed", "clean_lock", "clean_join"):
        c = cases[name]
        check(not c["failures"] and not c["error"] and not c["skipped"], f"{name}: {c}")
    check("suppressed by race:legacy_update" in cases["race_suppressed"]["out"],
          "suppressed finding not listed in system-out")
    check("program: signal 6 (Aborted)" in cases["race_crash"]["out"], "crash info")

    # --- SARIF: schema + GitHub rules, then our shape.
    sarif = json.load(open(out["sarif"]))
    if a.validator:
        v = run([a.validator, "validate", "--rule-kind", "Gh;Sarif", out["sarif"]],
                capture_output=True, text=True, timeout=300)
        errors = [l for l in v.stdout.splitlines() if ": error " in l]
        check(v.returncode == 0 and not errors, f"SARIF validator:\n{v.stdout}{v.stderr}")
    else:
        print("note: SARIF validator not installed; schema not checked here")
    results = check_sarif_shape(sarif, project)
    check(len(results) == 6, f"{len(results)} SARIF results, want 6 distinct")
    by_sig = {r["properties"]["signature"]: r for r in results}
    counter = [r for s, r in by_sig.items() if "race_counter.c" in s]
    check(len(counter) == 1 and counter[0]["properties"]["tests"] ==
          ["multi_process", "race_counter"], "race_counter result lists both tests")
    run0 = sarif["runs"][0]
    check(run0["invocations"][0]["executionSuccessful"] is False and
          any("test hang: timeout" in n["message"]["text"]
              for n in run0["invocations"][0]["toolExecutionNotifications"]),
          "the timed-out test is a tool execution notification")

    # --- Second run with the baseline: nothing new (hang excluded: a
    # time-out alone would make the run inconclusive, exit 4).
    second = os.path.join(w, "second")
    r = run(common + ["--baseline", baseline, "-E", "^hang$", "--suppressions", supp,
                      "--junit", second + ".xml", "--sarif", second + ".sarif",
                      "--json", second + ".json"],
            capture_output=True, text=True, timeout=600)
    print(r.stdout, r.stderr)
    check(r.returncode == 0, f"second run: exit {r.returncode}, want 0 (nothing new)")
    rep2 = json.load(open(second + ".json"))
    check(rep2["summary"]["new"] == 0 and rep2["summary"]["known"] == 7 and
          rep2["summary"]["failed"] == 0, f"second summary {rep2['summary']}")
    root2 = ET.parse(second + ".xml").getroot()
    check(root2.get("failures") == "0" and root2.get("tests") == "11",
          f"second JUnit {root2.attrib}")
    sarif2 = json.load(open(second + ".sarif"))
    states = {r["baselineState"] for r in sarif2["runs"][0]["results"]}
    check(states == {"unchanged"}, f"second SARIF baselineState {states}")
    if a.validator:
        v = run([a.validator, "validate", "--rule-kind", "Gh;Sarif", second + ".sarif"],
                capture_output=True, text=True, timeout=300)
        check(v.returncode == 0 and ": error " not in v.stdout, v.stdout)
    # Without the baseline the same run fails again: the baseline did it.
    r = run(common + ["-R", "^race_counter$"], capture_output=True, text=True, timeout=300)
    check(r.returncode == 1, f"run without baseline: exit {r.returncode}")

    # --- Whole-run budget: the running test is stopped, the next one is
    # never started; both are time-outs (exit 4), not clean.
    budget = os.path.join(w, "budget.json")
    r = run([rp, "batch", "--ctest", build, "-j1", "-R", "^(hang|no_trace)$",
             "--budget", "2", "--json", budget], capture_output=True, text=True,
            timeout=300)
    check(r.returncode == 4, f"budget run: exit {r.returncode}, want 4")
    bt = {t["name"]: t for t in json.load(open(budget))["tests"]}
    check(bt["hang"]["status"] == "timeout" and "--budget" in bt["hang"]["reason"],
          f"budget hang: {bt['hang']}")
    check(bt["no_trace"]["status"] == "timeout" and
          bt["no_trace"]["reason"].startswith("not started"), f"{bt['no_trace']}")

    # --- --commands input: names, shell lines, working directory.
    cmds = os.path.join(w, "commands.txt")
    with open(cmds, "w") as f:
        f.write(f"# nightly commands\n\n[counter] {build}/race_counter\n"
                f"{build}/clean_lock\n{build}/clean_lock > /dev/null\n"
                f"[env] cd {project}/envdir && BATCH_ENV=racy {build}/race_env\n")
    cj = os.path.join(w, "commands.json")
    r = run([rp, "batch", "--commands", cmds, "-j2", "--json", cj,
             "--junit", cj + ".xml"], capture_output=True, text=True, timeout=300)
    check(r.returncode == 1, f"commands run: exit {r.returncode}")
    ct = {t["name"]: t for t in json.load(open(cj))["tests"]}
    check(list(ct) == ["counter", "clean_lock", "clean_lock#2", "env"], f"{list(ct)}")
    check([finding_key(f) for f in ct["counter"]["findings"]] ==
          expected_keys(project, EXPECTED_NEW, "race_counter"), "commands: counter")
    check([finding_key(f) for f in ct["env"]["findings"]] ==
          expected_keys(project, EXPECTED_NEW, "race_env"), "commands: env")
    check(not ct["clean_lock"]["findings"] and not ct["clean_lock#2"]["findings"],
          "commands: clean")
    print("ok: batch over the CTest project: exact findings, JUnit, SARIF, "
          "baseline, suppressions, budget, commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
