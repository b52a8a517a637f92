#!/usr/bin/env python3
"""Independent decoder of binary traces (trace/format.h, versions 1 and 2).

Prints the events in the text format of DESIGN.md (with @file:line), ordered
by ticket. The end-to-end tests use it to cross-check the C++ reader and to
inspect traces; it is deliberately separate from src/trace.
"""
import struct
import sys

KINDS = ["begin", "end", "fork", "join", "acq", "rel", "racq", "tryfail",
         "wait", "signal", "broadcast", "barrier", "seminit", "post",
         "semwait", "rd", "wr", "ard", "awr", "armw", "br", "alloc", "free",
         "ev"]
NFIELDS = {"fork": 1, "join": 1, "acq": 1, "rel": 1, "racq": 1,
           "tryfail": 1, "wait": 3, "signal": 1, "broadcast": 1,
           "barrier": 2, "seminit": 2, "post": 1, "semwait": 1, "rd": 3,
           "wr": 3, "ard": 3, "awr": 3, "armw": 4, "alloc": 2, "free": 2}
ACCESS = ("rd", "wr", "ard", "awr", "armw")
LOCATED = ACCESS + ("alloc", "free")
STACK = 30
SIZE_CODES = {1: 1, 2: 4, 3: 8}


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def unzig(v):
    return (v >> 1) ^ -(v & 1)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"RPTRACE\0":
        raise SystemExit(f"{path}: not a binary trace")
    version, = struct.unpack_from("<H", data, 8)
    if version not in (1, 2):
        raise SystemExit(f"{path}: version {version}, expected 1 or 2")
    pos, events, sources, ended = 16, [], {}, False
    stacks = {}  # thread -> list of call-site ids (v2 stack records)
    while pos + 8 <= len(data):
        btype = data[pos]
        length, = struct.unpack_from("<I", data, pos + 4)
        body = data[pos + 8:pos + 8 + length]
        if len(body) < length:
            break  # cut
        pos += 8 + length
        i = 0
        if btype == 2:  # SOURCES
            while i < len(body):
                sid, i = varint(body, i)
                n, i = varint(body, i)
                f = body[i:i + n].decode()
                i += n
                line, i = varint(body, i)
                col, i = varint(body, i)
                n, i = varint(body, i)
                fn = body[i:i + n].decode()
                i += n
                at = 0
                if version >= 2:
                    at, i = varint(body, i)
                sources[sid] = (f, line, col, fn, at)
        elif btype == 3:  # EVENTS
            tid, i = varint(body, i)
            seq, i = varint(body, i)
            count, i = varint(body, i)
            seq -= 1
            prev_loc = 0
            stack = stacks.setdefault(tid, [])
            for _ in range(count):
                k = body[i]
                i += 1
                if version >= 2 and k == STACK:
                    pops, i = varint(body, i)
                    pushes, i = varint(body, i)
                    del stack[len(stack) - pops:]
                    for _ in range(pushes):
                        site, i = varint(body, i)
                        stack.append(site)
                    continue
                kind = KINDS[k & (0x1F if version >= 2 else 0x7F)]
                size_code = (k >> 5) & 3 if version >= 2 else 0
                d, i = varint(body, i)
                seq += d + 1
                ops = []
                if kind == "br":
                    n, i = varint(body, i)
                    for _ in range(max(n - 1, 0)):
                        dd, i = varint(body, i)
                        ops.append(seq - dd)
                    ops = (["<-"] + ops) if n else []
                elif kind == "ev":
                    name, i = varint(body, i)
                    n, i = varint(body, i)
                    ops = [name]
                    for _ in range(n):
                        a, i = varint(body, i)
                        ops.append(a)
                else:
                    for j in range(NFIELDS.get(kind, 0)):
                        if j == 1 and kind in ACCESS and size_code:
                            ops.append(SIZE_CODES[size_code])
                            continue
                        v, i = varint(body, i)
                        if j == 0 and version >= 2 and kind in LOCATED:
                            v = prev_loc + unzig(v)
                            prev_loc = v
                        ops.append(v)
                    if kind in ("rd", "wr", "ard", "awr"):
                        ops[2] = unzig(ops[2])
                    if kind == "armw":
                        ops[2], ops[3] = unzig(ops[2]), unzig(ops[3])
                src = 0
                if k & 0x80:
                    src, i = varint(body, i)
                events.append((seq, tid, kind, ops, src, list(stack)))
        elif btype == 5:
            ended = True
    events.sort()
    return events, sources, ended


def main():
    events, sources, ended = decode(sys.argv[1])
    index = {e[0]: n for n, e in enumerate(events)}
    for n, (seq, tid, kind, ops, src, stack) in enumerate(events):
        if kind == "br" and ops:
            ops = ["<-"] + [index.get(s, "?%d" % s) for s in ops[1:]]
        if kind in ("wait",) and ops[2]:
            ops[2] = "notify=%s" % index.get(ops[2] - 1, "?")
        text = " ".join(hex(o) if isinstance(o, int) and o > 0xFFFF else str(o)
                        for o in ops)
        loc = ""
        if src in sources:
            f, line, col, fn, _ = sources[src]
            loc = f" @{f}:{line}:{col} ({fn})"
        for site in reversed(stack):
            if site in sources:
                f, line, col, fn, _ = sources[site]
                loc += f" <{f}:{line} ({fn})"
        print(f"{n:5d} t{tid} {kind} {text}{loc}")
    if not ended:
        print("# no END block (truncated)")


if __name__ == "__main__":
    main()
