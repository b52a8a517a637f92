"""Helpers shared by the `racepredict batch` end-to-end tests."""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw)


def check(cond, msg):
    if not cond:
        print("FAIL:", msg, flush=True)
        sys.exit(1)


def anchors(src):
    """`// @NAME` line anchors of a source file: {NAME: line}."""
    out = {}
    with open(src) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"//\s*@(\w+)\s*$", line)
            if m:
                out[m.group(1)] = n
    return out


def fnv1a(s):
    h = 0xcbf29ce484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001b3) % 2**64
    return f"{h:016x}"


def junit_cases(path):
    """{name: {failures: [{type, message, text}], error, skipped, out,
    properties: [(name, value)]}}."""
    cases = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        err = tc.find("error")
        out = tc.find("system-out")
        cases[tc.get("name")] = {
            "failures": [{"type": f.get("type"), "message": f.get("message"),
                          "text": f.text or ""} for f in tc.findall("failure")],
            "error": err.get("type") if err is not None else None,
            "skipped": tc.find("skipped") is not None,
            "out": out.text if out is not None else "",
            "properties": [(p.get("name"), p.get("value"))
                           for p in tc.findall("properties/property")],
        }
    return cases


def check_sarif_shape(sarif, source_root):
    """Rules, repo-relative URIs, fingerprints and code flows of every
    result; returns the results."""
    run0 = sarif["runs"][0]
    rules = [r["id"] for r in run0["tool"]["driver"]["rules"]]
    check(rules == ["data-race", "lock-order-deadlock", "property-violation",
                   "deadlock"],
          f"rules {rules}")
    check(run0["originalUriBaseIds"]["%SRCROOT%"]["uri"] ==
          "file://" + source_root.rstrip("/") + "/", "originalUriBaseIds")
    for r in run0["results"]:
        check(rules[r["ruleIndex"]] == r["ruleId"], "ruleIndex")
        sig = r["properties"]["signature"]
        check(r["partialFingerprints"]["racepredictSignature/v1"] == fnv1a(sig),
              "partialFingerprints is not the signature's hash")
        locs = r["locations"]
        if r["ruleId"] == "data-race":
            check(len(locs) == 2, "a race needs both accesses as locations")
        for loc in locs + r.get("relatedLocations", []):
            art = loc["physicalLocation"]["artifactLocation"]
            check(art.get("uriBaseId") == "%SRCROOT%" and
                  not art["uri"].startswith(("/", "file:")),
                  f"URI not repo-relative: {art}")
            check(os.path.exists(os.path.join(source_root, art["uri"])),
                  f"{art['uri']} is not a file under the source root")
            check(loc["physicalLocation"]["region"]["startLine"] >= 1, "region")
        flows = r["codeFlows"][0]["threadFlows"]
        ids = [f["id"] for f in flows]
        check(len(ids) == len(set(ids)) and len(ids) >= 2,
              f"thread flows {ids}: one per thread")
        steps = sorted((l["executionOrder"], l) for f in flows for l in f["locations"])
        check([s[0] for s in steps] == list(range(1, len(steps) + 1)),
              "executionOrder is not 1..n")
        essential = [i for i, (_, l) in enumerate(steps) if l["importance"] == "essential"]
        if r["ruleId"] == "data-race":
            check(essential == [len(steps) - 2, len(steps) - 1],
                  "the racing accesses must be the last two, essential")
        else:
            check(len(essential) == len(locs), "blocked requests essential")
        for _, l in steps:
            check(l["location"]["message"]["text"], "a step without its event")
            if l["importance"] == "essential":
                check("physicalLocation" in l["location"],
                      "an essential step without a source location")
    return run0["results"]
