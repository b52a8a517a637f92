#!/usr/bin/env python3
"""Normalises a racepredict text report for golden files: what differs
between two recordings of the same program, or two machines, is replaced by
a placeholder; everything a developer reads stays.

- absolute paths -> the file's base name (sources, system headers, traces);
- addresses (0x...) -> 0x…, pointer-sized values -> <ptr>;
- event indices ([123], "event 123"), witness step numbers and step counts
  -> N: the recorder's interleaving of thread starts and ends moves them by
  a few events from one recording to the next.

Usage: normalize-report.py [FILE]   (default: standard input)
"""
import re
import sys


def normalize(text):
    out = []
    for line in text.splitlines():
        line = re.sub(r"(?<![\w.])/(?:[^\s:/]+/)+([^\s:/]+)", r"\1", line)
        line = re.sub(r"0x[0-9a-fA-F]+", "0x…", line)
        line = re.sub(r"\b\d{9,}\b", "<ptr>", line)
        line = re.sub(r"\[\d+\]", "[N]", line)
        line = re.sub(r"\bevents? \d+", lambda m: m.group(0).split()[0] + " N",
                      line)
        line = re.sub(r"^(\s*)\d+\. ", r"\1N. ", line)
        line = re.sub(r"^(\s*)… [\d,]+ steps?", r"\1… N steps", line)
        line = re.sub(r"\(([\d,]+) steps?;", "(N steps;", line)
        line = re.sub(r"; \d+ shown,", "; N shown,", line)
        line = re.sub(r"\bstep \d+/\d+", "step N/N", line)
        line = re.sub(r"^\s+(?=N\. |… )", "    ", line)
        out.append(line.rstrip())
    return "\n".join(out) + "\n"


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    sys.stdout.write(normalize(text))


if __name__ == "__main__":
    main()
