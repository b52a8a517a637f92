#!/usr/bin/env python3
"""Independent decoder of binary traces (trace/format.h, versions 1 to 7).

Prints the events in the text format of DESIGN.md (with @file:line), ordered
by seq (v1, v2, v4: explicit or implicit) or by a topological order of
program, ticket and stripe order (v3). Locations are raw keys (v4 traces are
not renamed after hidden writes here). The end-to-end tests use it to cross-check the C++ reader and to
inspect traces; it is deliberately separate from src/trace.
"""
import struct
import sys

KINDS = ["begin", "end", "fork", "join", "acq", "rel", "racq", "tryfail",
         "wait", "signal", "broadcast", "barrier", "seminit", "post",
         "semwait", "rd", "wr", "ard", "awr", "armw", "br", "alloc", "free",
         "ev", "send", "recv"]
NFIELDS = {"fork": 1, "join": 1, "acq": 1, "rel": 1, "racq": 1,
           "tryfail": 1, "wait": 3, "signal": 1, "broadcast": 1,
           "barrier": 2, "seminit": 2, "post": 1, "semwait": 1, "rd": 3,
           "wr": 3, "ard": 3, "awr": 3, "armw": 4, "alloc": 2, "free": 2,
           "send": 3, "recv": 3}
ACCESS = ("rd", "wr", "ard", "awr", "armw")
LOCATED = ACCESS + ("alloc", "free")
STACK = 30
MARK = 29
SEGMENT = 28
WRITE_DEPS = 27  # a wr with its value's dependences (any version >= 2)
STRIPE_SHIFT, STRIPE_BITS = 6, 16
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
    if version not in (1, 2, 3, 4, 5, 6, 7):
        raise SystemExit(f"{path}: version {version}, expected 1 to 7")
    pos, events, sources, ended = 16, [], {}, False
    thread_events = {}  # v3: events per thread (branch dependences)
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
            prev_loc = prev_order = 0
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
                if version >= 4 and k == SEGMENT:
                    gap, i = varint(body, i)
                    seq += gap
                    continue
                if version == 3 and k == MARK:
                    d, i = varint(body, i)
                    seq += d + 1
                    events.append((("mark", seq), tid, "mark", [], 0, []))
                    continue
                write_deps = version >= 2 and k & 0x1F == WRITE_DEPS
                kind = "wr" if write_deps else \
                    KINDS[k & (0x1F if version >= 2 else 0x7F)]
                size_code = (k >> 5) & 3 if version >= 2 else 0
                if version >= 4:
                    seq += 1
                    order = ("ticket", seq)
                elif version < 3 or kind not in ACCESS + ("br",):
                    d, i = varint(body, i)
                    seq += d + 1
                    order = ("ticket", seq)
                elif kind == "br":
                    order = ("free",)
                else:
                    d, i = varint(body, i)
                    prev_order += unzig(d)
                    order = ("stripe", prev_order)
                ops = []
                if kind == "br":
                    n, i = varint(body, i)
                    self = thread_events.get(tid, 0) + 1
                    for _ in range(max(n - 1, 0)):
                        dd, i = varint(body, i)
                        ops.append((self if version == 3 else seq) - dd)
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
                    if write_deps:
                        n, i = varint(body, i)
                        deps = []
                        for _ in range(n):
                            dd, i = varint(body, i)
                            deps.append(seq - dd)
                        ops += ["<-"] + deps
                src = 0
                if k & 0x80:
                    src, i = varint(body, i)
                thread_events[tid] = thread_events.get(tid, 0) + 1
                events.append((order, tid, kind, ops, src, list(stack)))
        elif btype == 5:
            ended = True
    if version == 3:
        return merge(events), sources, ended
    events = [(e[0][1],) + e[1:] for e in events]
    events.sort()
    return events, sources, ended


def merge(records):
    """A topological order of program, ticket and stripe order (v3)."""
    threads = {}
    for r in records:
        threads.setdefault(r[1], []).append(r)
    tickets = sorted(r[0][1] for r in records if r[0][0] in ("ticket", "mark"))
    groups = {}  # stripe -> sorted distinct fields with their counts
    for r in records:
        if r[0][0] == "stripe":
            s = (r[3][0] >> STRIPE_SHIFT) & ((1 << STRIPE_BITS) - 1)
            groups.setdefault(s, {}).setdefault(r[0][1], 0)
            groups[s][r[0][1]] += 1
    order = {s: sorted(g.items()) for s, g in groups.items()}
    pos = {s: 0 for s in order}
    left = {s: order[s][0][1] for s in order}
    cursor = {t: 0 for t in threads}
    next_ticket, out, progress = 0, [], True
    index = {}  # (thread, 1-based event index) -> rank
    seen = {t: 0 for t in threads}
    while progress:
        progress = False
        for t, rs in threads.items():
            while cursor[t] < len(rs):
                r = rs[cursor[t]]
                how = r[0][0]
                if how in ("ticket", "mark"):
                    if tickets[next_ticket] != r[0][1]:
                        break
                    next_ticket += 1
                elif how == "stripe":
                    s = (r[3][0] >> STRIPE_SHIFT) & ((1 << STRIPE_BITS) - 1)
                    if order[s][pos[s]][0] != r[0][1]:
                        break
                    left[s] -= 1
                    if left[s] == 0 and pos[s] + 1 < len(order[s]):
                        pos[s] += 1
                        left[s] = order[s][pos[s]][1]
                cursor[t] += 1
                progress = True
                if how != "mark":
                    seen[t] += 1
                    index[(t, seen[t])] = len(out)
                    out.append(r)
    ticket_rank = {r[0][1]: n for n, r in enumerate(out) if r[0][0] == "ticket"}
    events = []
    for n, (_, tid, kind, ops, src, stack) in enumerate(out):
        if kind == "br" and ops:
            ops = ["<-"] + [index.get((tid, d), -1) for d in ops[1:]]
        if kind == "wait" and ops[2]:
            ops = ops[:2] + [ticket_rank.get(ops[2] - 1, -2) + 1]
        events.append((n, tid, kind, ops, src, stack))
    return events


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
