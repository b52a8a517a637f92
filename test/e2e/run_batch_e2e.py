#!/usr/bin/env python3
"""End-to-end test of `racepredict batch` over our CTest project
(test/e2e/batch_project): configure it with racepredict-cc, build, run
batch, and check exactly which tests fail with which findings (by the
`// @ANCHOR` lines of the sources) (a custom property's violation too: --property) and which replay verdicts (confirmed;
predicted for the tests that cannot be replayed; the hidden-flag race
diverged, listed as unconfirmed: failing nothing, but its test does not
pass either (outcome unconfirmed, a JUnit <skipped>, exit 4 when nothing
is new)), that a witness file's
"replay it again" command confirms again, the JUnit counts, the SARIF
(schema + GitHub rules with Microsoft's validator, code flows, URIs,
fingerprints, warnings for unconfirmed findings), the JSON, that a second
run with the written baseline reports nothing new, that a baseline written
without replay stays valid, suppressions, --budget, and the --commands
input.

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
    "property_file": [("property", {"property_file.c@R"})],
}
EXPECTED_SUPPRESSED = {
    "race_suppressed": [("race", {"race_suppressed.c@L", "race_suppressed.c@S"})],
}
# Predicted by the analysis, not confirmed by replay: listed, never failed,
# never passed.
EXPECTED_UNCONFIRMED = {
    "race_hidden_flag": [("race", {"race_hidden_flag.c@X1", "race_hidden_flag.c@X2"})],
}
EXPECTED_OUTCOME = {
    "race_counter": "failed", "race_two_vars": "failed", "race_crash": "failed",
    "deadlock_order": "failed", "race_env": "failed", "multi_process": "failed",
    "race_suppressed": "passed", "clean_lock": "passed", "clean_join": "passed",
    "race_hidden_flag": "unconfirmed", "hang": "error", "no_trace": "skipped",
    "disabled": "skipped", "property_file": "failed",
}
# The status of every finding of a test: its replay verdict, or "predicted"
# where the test cannot be replayed (race_crash aborts while recording;
# multi_process is a shell line running two programs).
EXPECTED_STATUS = {
    "race_counter": "confirmed", "race_two_vars": "confirmed",
    "race_suppressed": "confirmed", "deadlock_order": "confirmed",
    "race_env": "confirmed", "race_crash": "predicted",
    "multi_process": "predicted", "race_hidden_flag": "diverged",
    "property_file": "confirmed",
}
# Why a test's findings are predicted only (replay_note), by a fragment.
EXPECTED_NOTE = {
    "race_crash": "the program was killed by signal 6 (Aborted) while recording",
    "multi_process": "the test is a shell command line",
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


def validate(validator, path):
    """SARIF 2.1.0 schema and GitHub ingestion rules (Microsoft's validator)."""
    if not validator:
        print("note: SARIF validator not installed; schema not checked here")
        return
    v = run([validator, "validate", "--rule-kind", "Gh;Sarif", path],
            capture_output=True, text=True, timeout=300)
    errors = [l for l in v.stdout.splitlines() if ": error " in l]
    check(v.returncode == 0 and not errors, f"SARIF validator:\n{v.stdout}{v.stderr}")


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
    work = os.path.join(w, "work")
    # --step-timeout-ms: the hidden-flag replay diverges after 1.5 s.
    common = [rp, "batch", "--ctest", build, "-j2", "--races", "--deadlocks",
              "--property", os.path.join(project, "property_file.props"),
              "--step-timeout-ms", "1500"]
    r = run(common + ["--test-timeout", "6", "--suppressions", supp,
                      "--junit", out["xml"], "--sarif", out["sarif"],
                      "--json", out["json"], "--write-baseline", baseline,
                      "--work-dir", work],
            capture_output=True, text=True, timeout=600)
    print(r.stdout, r.stderr)
    check(r.returncode == 1, f"first run: exit {r.returncode}, want 1 (new findings)")
    check("\r" not in r.stderr, "a progress line was drawn without a terminal")
    report = json.load(open(out["json"]))

    # --- JSON: exactly the expected findings, verdicts, statuses.
    check(report["replay"] is True and
          report["confirmation"].startswith("replay-confirmed"), "replay mode")
    tests = {t["name"]: t for t in report["tests"]}
    check(set(tests) == set(EXPECTED_OUTCOME), f"tests {sorted(tests)}")
    for name, t in tests.items():
        check(t["outcome"] == EXPECTED_OUTCOME[name],
              f"{name}: outcome {t['outcome']}, want {EXPECTED_OUTCOME[name]}")
        for verdict, table in (("new", EXPECTED_NEW),
                               ("suppressed", EXPECTED_SUPPRESSED),
                               ("unconfirmed", EXPECTED_UNCONFIRMED)):
            got = sorted(finding_key(f) for f in t["findings"] if f["verdict"] == verdict)
            want = expected_keys(project, table, name)
            check(got == want, f"{name}: {verdict} findings {got}, want {want}")
        for f in t["findings"]:
            check(f["status"] == EXPECTED_STATUS[name],
                  f"{name}: status {f['status']}, want {EXPECTED_STATUS[name]}")
            check(f["fingerprint"] == fnv1a(f["signature"]), f"{name}: fingerprint")
            check(not re.search(r"0x[0-9a-f]{6,}|#\d", f["signature"]),
                  f"{name}: signature has addresses/events: {f['signature']}")
            if f["status"] == "predicted":
                check("replay" not in f, f"{name}: replay detail without replay")
                continue
            # Replayed: the detail names the witness file, kept in the work
            # directory, and the command that replays it again.
            wf = f["replay"]["witness_file"]
            check(wf.startswith(work) and os.path.exists(wf), f"{name}: witness {wf}")
            check(f["replay"]["reproduce"].endswith(
                f"replay --schedule '{wf}' -- '{os.path.join(build, name)}'"),
                f"{name}: reproduce {f['replay']['reproduce']}")
        replayable = name not in EXPECTED_NOTE and t["status"] == "ok"
        check(t["replayed"] == replayable, f"{name}: replayed {t['replayed']}")
        if name in EXPECTED_NOTE:
            check(EXPECTED_NOTE[name] in t.get("replay_note", ""),
                  f"{name}: replay note {t.get('replay_note')}")
    hidden = tests["race_hidden_flag"]["findings"][0]["replay"]
    check("did not reach this step within 1500 ms" in hidden["message"],
          f"hidden flag: replay message {hidden['message']}")
    check(tests["race_suppressed"]["findings"][0]["suppressed_by"] ==
          f"race:legacy_update ({supp}:2)", "suppressed_by")
    check(tests["race_crash"]["ran"] == "signal 6 (Aborted)",
          f"race_crash ran: {tests['race_crash']['ran']}")
    check(tests["race_env"]["ran"] == "exit status 0", "race_env ran")
    check(tests["hang"]["status"] == "timeout" and
          "--test-timeout 6 s" in tests["hang"]["reason"], f"hang: {tests['hang']}")
    check(tests["no_trace"]["status"] == "skipped" and
          "no instrumented process" in tests["no_trace"]["reason"], "no_trace")
    check(tests["disabled"]["reason"] == "disabled in CTest (DISABLED property)",
          "disabled")
    check(len(tests["multi_process"]["traces"]) == 2, "multi_process: two traces")
    check([(s["rule"], s["hits"]) for s in report["suppressions"]] ==
          [("race:legacy_update", 1), ("deadlock:no_such_function", 0)],
          f"suppressions {report['suppressions']}")
    want_summary = {"tests": 14, "passed": 3, "unconfirmed_tests": 1,
                    "failed": 7, "errors": 1,
                    "skipped": 2, "findings": 10, "new": 8, "known": 0,
                    "suppressed": 1, "unconfirmed": 1, "confirmed": 7,
                    "distinct_new": 7}
    got_summary = {k: report["summary"][k] for k in want_summary}
    check(got_summary == want_summary, f"summary {got_summary}")
    check("UNCONFIRMED race in race_hidden_flag (replay diverged: " in r.stdout,
          "summary line of the unconfirmed race")

    # --- A confirmed witness replays again with the command the report gives.
    cmd = tests["race_counter"]["findings"][0]["replay"]["reproduce"]
    again = run(["sh", "-c", cmd], capture_output=True, text=True, timeout=120)
    check(again.returncode == 1 and "racepredict replay: confirmed" in again.stdout,
          f"replay again: exit {again.returncode}: {again.stdout}{again.stderr}")

    # --- JUnit: counts, one failure per new finding with its witness and
    # verdict; the unconfirmed race as a property and in system-out, its
    # test a skipped case.
    root = ET.parse(out["xml"]).getroot()
    suite = root.find("testsuite")
    for el in (root, suite):
        counts = {k: el.get(k) for k in ("tests", "failures", "errors", "skipped")}
        check(counts == {"tests": "14", "failures": "7", "errors": "1", "skipped": "3"},
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
            text = match[0]["text"]
            # The events that make the finding are marked: a property's
            # one event here, both events of a race or both blocked requests.
            marked = 1 if kind == "property" else 2
            check("Witness schedule" in text and text.count("<==") == marked,
                  f"{name}: witness text")
            status = ("Status: replay confirmed: " if EXPECTED_STATUS[name] == "confirmed"
                      else "Status: predicted (witness validated on the trace; not replayed)")
            check(status in text, f"{name}: status line in\n{text}")
            check(("Replay it again: " in text) == (EXPECTED_STATUS[name] == "confirmed"),
                  f"{name}: replay command")
    check(cases["hang"]["error"] == "timeout", f"hang: {cases['hang']}")
    check(cases["no_trace"]["skipped"] and cases["disabled"]["skipped"], "skips")
    for name in ("race_suppressed", "clean_lock", "clean_join"):
        c = cases[name]
        check(not c["failures"] and not c["error"] and not c["skipped"], f"{name}: {c}")
    c = cases["race_hidden_flag"]
    check(not c["failures"] and not c["error"] and c["skipped"], f"hidden flag: {c}")
    check("suppressed by race:legacy_update" in cases["race_suppressed"]["out"],
          "suppressed finding not listed in system-out")
    check("program: signal 6 (Aborted)" in cases["race_crash"]["out"], "crash info")
    check("not replayed (findings predicted only): the test is a shell command line"
          in cases["multi_process"]["out"], "multi_process: why not replayed")
    hf = cases["race_hidden_flag"]
    check("unconfirmed by replay: Data race on x" in hf["out"] and
          "  replay diverged: " in hf["out"], f"hidden flag system-out: {hf['out']}")
    check([p for p in hf["properties"] if p[0] == "racepredict.unconfirmed.race" and
           p[1].startswith("diverged: Data race on x")], f"properties {hf['properties']}")

    # --- SARIF: schema + GitHub rules, then our shape.
    sarif = json.load(open(out["sarif"]))
    validate(a.validator, out["sarif"])
    results = check_sarif_shape(sarif, project)
    check(len(results) == 8, f"{len(results)} SARIF results, want 7 new + 1 unconfirmed")
    by_sig = {r["properties"]["signature"]: r for r in results}
    counter = [r for s, r in by_sig.items() if "race_counter.c" in s]
    check(len(counter) == 1 and counter[0]["properties"]["tests"] ==
          ["multi_process", "race_counter"], "race_counter result lists both tests")
    # Confirmed in race_counter, predicted in multi_process: the confirmed
    # occurrence represents it.
    check(counter[0]["properties"]["status"] == "confirmed" and
          counter[0]["message"]["text"].endswith("(confirmed by replay)"),
          f"race_counter result {counter[0]['message']}")
    levels = sorted((r["level"], r["properties"]["verdict"]) for r in results)
    check(levels == [("error", "new")] * 7 + [("warning", "unconfirmed")], f"levels {levels}")
    warn = [r for r in results if r["level"] == "warning"][0]
    check("race_hidden_flag.c" in warn["properties"]["signature"] and
          "(unconfirmed: replay diverged: " in warn["message"]["text"] and
          warn["properties"]["status"] == "diverged", f"warning {warn['message']}")
    run0 = sarif["runs"][0]
    check(run0["invocations"][0]["executionSuccessful"] is False and
          any("test hang: timeout" in n["message"]["text"]
              for n in run0["invocations"][0]["toolExecutionNotifications"]),
          "the timed-out test is a tool execution notification")

    # --- Second run with the baseline: nothing new (hang excluded). The
    # unconfirmed race is not in the baseline, and still fails nothing; but
    # a test that is not clean makes the run inconclusive, exit 4.
    second = os.path.join(w, "second")
    r = run(common + ["--baseline", baseline, "-E", "^hang$", "--suppressions", supp,
                      "--junit", second + ".xml", "--sarif", second + ".sarif",
                      "--json", second + ".json"],
            capture_output=True, text=True, timeout=600)
    print(r.stdout, r.stderr)
    check(r.returncode == 4,
          f"second run: exit {r.returncode}, want 4 (nothing new, one unconfirmed)")
    rep2 = json.load(open(second + ".json"))
    check(rep2["summary"]["new"] == 0 and rep2["summary"]["known"] == 8 and
          rep2["summary"]["unconfirmed"] == 1 and rep2["summary"]["failed"] == 0,
          f"second summary {rep2['summary']}")
    root2 = ET.parse(second + ".xml").getroot()
    check(root2.get("failures") == "0" and root2.get("tests") == "13",
          f"second JUnit {root2.attrib}")
    sarif2 = json.load(open(second + ".sarif"))
    states = sorted((r["baselineState"], r["level"]) for r in sarif2["runs"][0]["results"])
    check(states == [("new", "warning")] + [("unchanged", "error")] * 7,
          f"second SARIF baselineState {states}")
    validate(a.validator, second + ".sarif")
    # Without the baseline the same run fails again: the baseline did it.
    r = run(common + ["-R", "^race_counter$"], capture_output=True, text=True, timeout=300)
    check(r.returncode == 1, f"run without baseline: exit {r.returncode}")

    # --- --no-replay: predicted only, every finding counts (the hidden-flag
    # race too); its baseline stays valid for replayed runs (same
    # signatures).
    nr = os.path.join(w, "noreplay")
    only = ["-R", "^(race_counter|race_hidden_flag)$"]
    r = run(common + only + ["--no-replay", "--json", nr + ".json",
                             "--write-baseline", nr + ".baseline"],
            capture_output=True, text=True, timeout=300)
    check(r.returncode == 1, f"--no-replay: exit {r.returncode}")
    rep = json.load(open(nr + ".json"))
    check(rep["replay"] is False and "(--no-replay)" in rep["confirmation"],
          "--no-replay confirmation note")
    for t in rep["tests"]:
        check(not t["replayed"] and t["replay_note"] == "replay is off (--no-replay)" and
              [(f["status"], f["verdict"]) for f in t["findings"]] ==
              [("predicted", "new")], f"--no-replay {t['name']}: {t}")
    r = run(common + only + ["--baseline", nr + ".baseline", "--json", nr + ".2.json"],
            capture_output=True, text=True, timeout=300)
    # Nothing new; the hidden-flag race, unconfirmed, keeps it from clean.
    check(r.returncode == 4, f"replayed run on the --no-replay baseline: exit {r.returncode}")
    got = {t["name"]: [(f["status"], f["verdict"]) for f in t["findings"]]
           for t in json.load(open(nr + ".2.json"))["tests"]}
    check(got == {"race_counter": [("confirmed", "known")],
                  "race_hidden_flag": [("diverged", "unconfirmed")]},
          f"replayed on the old baseline: {got}")

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

    # --- The per-test budget covers the replays: a replay stuck on the hidden
    # flag (10 s step time-out) is stopped at 3 s, a time-out, never clean.
    stuck = os.path.join(w, "stuck.json")
    r = run([rp, "batch", "--ctest", build, "-R", "^race_hidden_flag$",
             "--test-timeout", "3", "--step-timeout-ms", "10000", "--json", stuck],
            capture_output=True, text=True, timeout=300)
    check(r.returncode == 4, f"stuck replay: exit {r.returncode}, want 4")
    st = json.load(open(stuck))["tests"][0]
    check(st["status"] == "timeout" and st["reason"].startswith("replays stopped: ") and
          "--test-timeout 3 s, recording, analysis and replays" in st["reason"] and
          st["ran"] == "exit status 0", f"stuck replay: {st}")

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
    # A plain line is the program itself (replayed); a line with shell
    # syntax may run several programs (predicted only, and says why).
    check(ct["counter"]["replayed"] and ct["clean_lock"]["replayed"] and
          ct["counter"]["findings"][0]["status"] == "confirmed", "commands: replayed")
    check(not ct["env"]["replayed"] and ct["env"]["findings"][0]["status"] == "predicted"
          and ct["env"]["replay_note"].startswith("the test is a shell command line"),
          f"commands: env {ct['env'].get('replay_note')}")
    check(not ct["clean_lock#2"]["replayed"], "commands: redirection is shell syntax")
    print("ok: batch over the CTest project: exact findings and replay verdicts, "
          "JUnit, SARIF, baseline, --no-replay, suppressions, budget, commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
