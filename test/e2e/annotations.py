"""Expectations written in the end-to-end test programs (shared by
run_e2e.py and run_replay.py).

A line ending in `// @NAME` is an anchor (`file:line`). Then:
  `// expect-race: A B`            the accesses at A and B race
  `// expect-deadlock: T@A U@B`    one deadlock: thread T blocked at A, U at B
                                   (`none`: the program declares no deadlock)
  `// expect-stack: A f g h`       the report's stack at A is f, g, h
  `// expect-kind: K`              a deadlock's kind
  `// expect-replay: V`            the replay verdict (default confirmed)
  `// cflags: FLAGS`               extra compiler flags (e.g. -fopenmp)
"""
import os
import re


def file_line(loc):
    """`dir/a.c:12:5` -> `a.c:12`."""
    parts = loc.split(":")
    return f"{os.path.basename(parts[0])}:{parts[1]}" if len(parts) > 1 else loc


class Annotations:
    def __init__(self, src):
        base = os.path.basename(src)
        with open(src) as f:
            self.lines = f.read().splitlines()
        self.anchors = {}
        for n, line in enumerate(self.lines, 1):
            m = re.search(r"//\s*@(\w+)\s*$", line)
            if m:
                self.anchors[m.group(1)] = f"{base}:{n}"
        self.races = set()
        self.deadlocks = None  # None: no expect-deadlock line at all
        self.stacks = {}
        self.kinds = None
        self.verdict = "confirmed"
        self.cflags = []
        for line in self.lines:
            m = re.search(r"//\s*cflags:\s*(.*)$", line)
            if m:
                self.cflags += m.group(1).split()
            m = re.search(r"expect-race:\s*(\w+)\s+(\w+)", line)
            if m:
                self.races.add(tuple(sorted((self.anchors[m.group(1)],
                                             self.anchors[m.group(2)]))))
            m = re.search(r"expect-deadlock:\s*(.*)$", line)
            if m:
                self.deadlocks = self.deadlocks or set()
                words = m.group(1).split()
                if words != ["none"]:
                    self.deadlocks.add(tuple(sorted(
                        (w.split("@")[0], self.anchors[w.split("@")[1]])
                        for w in words)))
            m = re.search(r"expect-stack:\s*(\w+)\s+(.*)$", line)
            if m:
                self.stacks[self.anchors[m.group(1)]] = m.group(2).split()
            m = re.search(r"expect-kind:\s*([\w-]+)", line)
            if m:
                self.kinds = (self.kinds or []) + [m.group(1)]
            m = re.search(r"expect-replay:\s*([\w-]+)", line)
            if m:
                self.verdict = m.group(1)
