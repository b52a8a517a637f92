#!/usr/bin/env python3
"""`racepredict batch --slurm` through a real single-node Slurm cluster on
localhost (scripts/slurm-localhost.sh: munged + slurmctld + slurmd): one
array job, one task per chunk, merged into the same JUnit/SARIF/JSON as a
local run of the same batch. Exits 77 (skip) with the reason when Slurm
cannot run on this machine (not root, not installed, daemons refuse).

    run_batch_slurm.py --racepredict RP --slurm-script SCRIPT
                       --traces TRACE... --workdir DIR [--validator V]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batch_checks import check, run  # noqa: E402


def outcome(report):
    return {t["name"]: (t["outcome"], t["status"],
                        sorted((f["signature"], f["verdict"]) for f in t["findings"]))
            for t in report["tests"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--racepredict", required=True)
    ap.add_argument("--slurm-script", required=True)
    ap.add_argument("--traces", nargs="+", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--validator")
    a = ap.parse_args()
    w = a.workdir
    shutil.rmtree(w, ignore_errors=True)
    traces = os.path.join(w, "traces")
    os.makedirs(traces)
    for t in a.traces:
        shutil.copy(t, traces)
    state = os.path.join(w, "cluster")
    start = run([a.slurm_script, "start", state], capture_output=True, text=True,
                timeout=120)
    if start.returncode == 77:
        print(start.stderr.strip())
        print("SKIP: Slurm cannot run here")
        return 77
    check(start.returncode == 0, f"cluster start failed: {start.stdout}{start.stderr}")
    env = dict(os.environ, SLURM_CONF=os.path.join(state, "slurm.conf"))
    try:
        flags = ["--traces", traces, "--races", "--deadlocks", "-j", "1",
                 "--source-root", traces]
        local = os.path.join(w, "local.json")
        r = run([a.racepredict, "batch", *flags, "--json", local],
                capture_output=True, text=True, timeout=300)
        check(r.returncode == 1, f"local run: exit {r.returncode}: {r.stderr}")
        out = {k: os.path.join(w, f"slurm.{k}") for k in ("json", "xml", "sarif")}
        slurm_dir = os.path.join(w, "slurm-work")
        r = run([a.racepredict, "batch", *flags, "--slurm", "--slurm-chunk-size", "2",
                 "--work-dir", slurm_dir, "--json", out["json"], "--junit", out["xml"],
                 "--sarif", out["sarif"]],
                capture_output=True, text=True, timeout=600, env=env)
        print(r.stdout, r.stderr)
        check(r.returncode == 1, f"slurm run: exit {r.returncode}")
        rep_local, rep_slurm = json.load(open(local)), json.load(open(out["json"]))
        n = len(a.traces)
        tasks = (n + 1) // 2
        check(rep_slurm["executor"].startswith("slurm job ") and
              rep_slurm["executor"].endswith(f", {tasks} array tasks"),
              f"executor {rep_slurm['executor']}")
        check(outcome(rep_slurm) == outcome(rep_local),
              f"slurm and local results differ:\n{outcome(rep_slurm)}\n{outcome(rep_local)}")
        check(rep_slurm["summary"]["new"] == rep_local["summary"]["new"] > 0,
              f"summary {rep_slurm['summary']}")
        # Traces: nothing to replay, every finding predicted, and said so.
        for rep in (rep_local, rep_slurm):
            check(rep["replay"] is False and
                  "recorded traces: there is no program to replay" in rep["confirmation"],
                  f"confirmation {rep['confirmation']}")
            for t in rep["tests"]:
                check(not t["replayed"] and t["replay_note"] ==
                      "a recorded trace: there is no program to replay" and
                      all(f["status"] == "predicted" for f in t["findings"]),
                      f"{t['name']}: predicted only")
        # One task per chunk ran, each on its own chunk file.
        job = rep_slurm["executor"].split()[2].rstrip(",")
        for i in range(tasks):
            check(os.path.exists(os.path.join(slurm_dir, f"partial-{i}.json")),
                  f"task {i} wrote no partial result")
            check(os.path.exists(os.path.join(slurm_dir, f"slurm-{job}_{i}.out")),
                  f"no Slurm log of task {i}")
        root = ET.parse(out["xml"]).getroot()
        check(root.get("tests") == str(n) and
              root.get("failures") == str(rep_local["summary"]["failed"]),
              f"JUnit {root.attrib}")
        if a.validator:
            v = run([a.validator, "validate", "--rule-kind", "Gh;Sarif", out["sarif"]],
                    capture_output=True, text=True, timeout=300)
            check(v.returncode == 0 and ": error " not in v.stdout, v.stdout)
        print(f"ok: {n} traces in {tasks} Slurm array tasks (job {job}), "
              "merged results equal the local run")
        return 0
    finally:
        run([a.slurm_script, "stop", state], timeout=120)


if __name__ == "__main__":
    sys.exit(main())
