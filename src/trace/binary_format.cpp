//===- trace/binary_format.cpp - Binary trace writer and format sniffing --===//
//
// The writer of the version-2 layout of trace/format.h (the runtime writes
// version 3); the reader lives in
// binary_reader.cpp (bytes) and binary_resolve.cpp (whole-trace checks),
// the varint codec in binary_codec.h. The writer mimics the recording runtime:
// every thread fills its own buffer and a buffer is flushed as one EVENTS
// block. To keep blocks bounded and the file nearly ordered (a cut file then
// loses only the last window), the buffers of all threads are flushed together
// every kWindow events. Within a block, seq gaps encode the other threads'
// events, so an interleaving costs ~1 byte per event instead of a block header
// per context switch (what "one block per run of consecutive events" would
// cost).
//
#include "racepredict/trace/binary_format.h"

#include "binary_codec.h"
#include "binary_raw.h"
#include "racepredict/trace/format.h"

#include <algorithm>
#include <cstring>
#include <istream>
#include <ostream>
#include <unordered_map>
#include <vector>

namespace racepredict::trace {
namespace {

using codec::putVarint;
using codec::zigzag;

/// Records per EVENTS block at most (the runtime's buffer size).
constexpr size_t kWindow = 4096;
// convert writes the version-2 layout: it knows the global order, and a
// seq per record is what v1/v2 readers (and tests outside this repo) read.
// The v4 layout (the recorder's) is for tests of what only v4 has (the
// streaming load, hidden-write renaming).
/// NAMES/SOURCES/INIT blocks are split at about this many payload bytes.
constexpr size_t kMetaBlockBytes = 64 * 1024;

class BlockWriter {
public:
  explicit BlockWriter(std::ostream &out) : out_(out) {}

  void header(unsigned version) {
    std::string h(RP_TRACE_MAGIC, sizeof(RP_TRACE_MAGIC)); // with its NUL
    codec::putU16(h, static_cast<uint16_t>(version));
    h.push_back(1); // little-endian
    h.push_back(static_cast<char>(sizeof(void *)));
    codec::putU32(h, 0); // flags
    out_.write(h.data(), static_cast<std::streamsize>(h.size()));
  }

  void block(rp_block_type type, const std::string &payload) {
    std::string h;
    h.push_back(static_cast<char>(type));
    h.append(3, '\0');
    codec::putU32(h, static_cast<uint32_t>(payload.size()));
    out_.write(h.data(), static_cast<std::streamsize>(h.size()));
    out_.write(payload.data(), static_cast<std::streamsize>(payload.size()));
  }

  /// Flushes `payload` as a `type` block once it is big enough (or `force`).
  void maybeFlush(rp_block_type type, std::string &payload, bool force) {
    if (payload.size() >= kMetaBlockBytes || (force && !payload.empty())) {
      block(type, payload);
      payload.clear();
    }
  }

private:
  std::ostream &out_;
};

void writeNames(const Trace &t, BlockWriter &w) {
  // Keys are the dense SymIds, written in id order: a reader interning names
  // in file order then reproduces the same ids (and the same text output).
  std::string p;
  for (int ns = 0; ns < kNumNameSpaces; ++ns) {
    const SymbolTable &tab = t.names[ns];
    for (SymId id = 0; id < tab.size(); ++id) {
      p.push_back(static_cast<char>(ns));
      putVarint(p, id);
      std::string_view name = tab.view(id);
      putVarint(p, name.size());
      p += name;
      w.maybeFlush(RP_BLOCK_NAMES, p, false);
    }
  }
  w.maybeFlush(RP_BLOCK_NAMES, p, true);
}

void writeSources(const Trace &t, BlockWriter &w) {
  std::string p;
  for (SrcId id = 1; id < t.sources.size(); ++id) {
    const SourceLoc &s = t.sources[id];
    putVarint(p, id);
    putVarint(p, s.file.size());
    p += s.file;
    putVarint(p, s.line);
    putVarint(p, s.column);
    putVarint(p, s.function.size());
    p += s.function;
    putVarint(p, s.inlinedAt);
    w.maybeFlush(RP_BLOCK_SOURCES, p, false);
  }
  w.maybeFlush(RP_BLOCK_SOURCES, p, true);
}

void writeInits(const Trace &t, BlockWriter &w) {
  std::vector<std::pair<SymId, int64_t>> inits(t.initValues.begin(),
                                               t.initValues.end());
  std::sort(inits.begin(), inits.end()); // deterministic output
  std::string p;
  for (auto &[loc, v] : inits) {
    putVarint(p, loc);
    putVarint(p, zigzag(v));
    w.maybeFlush(RP_BLOCK_INIT, p, false);
  }
  w.maybeFlush(RP_BLOCK_INIT, p, true);
}

unsigned sizeCode(const Event &e) {
  if (!isAccess(e.kind))
    return 0;
  switch (e.size) {
  case 1:
    return RP_SIZE_1;
  case 4:
    return RP_SIZE_4;
  case 8:
    return RP_SIZE_8;
  default:
    return RP_SIZE_VARINT;
  }
}

/// Appends `ndeps + bias, (i - dep)*` of a branch's (bias 1: 0 is the plain
/// rule) or write's (bias 0) dependence list.
void putDeps(const Trace &t, const Event &e, EventId i, unsigned bias,
             std::string &p) {
  auto [b, end] = t.deps(e);
  putVarint(p, static_cast<uint64_t>(end - b) + bias);
  for (; b != end; ++b)
    putVarint(p, i - *b);
}

/// Appends the record of event `i` (its seq is `i`; `prev` is the previous
/// seq in the block, `*prevLoc` the previous location key of the block).
void putRecord(const Trace &t, EventId i, uint64_t prev, uint64_t *prevLoc,
               bool v4, std::string &p) {
  const Event &e = t.events[i];
  bool hasSrc = e.src != 0 && e.src < t.sources.size();
  unsigned size = sizeCode(e);
  // A write with a dependence list has its own code (format.h).
  unsigned code = t.hasDeps(e) && e.kind == EventKind::Write
                      ? RP_WRITE_DEPS
                      : static_cast<unsigned>(e.kind);
  if (e.flags & kEventPastDeadline)
    code |= RP_PAST_DEADLINE;
  if (e.flags & kEventTryAcquire)
    code |= RP_TRY_ACQUIRE;
  p.push_back(static_cast<char>(code | size << RP_SIZE_SHIFT |
                                (hasSrc ? RP_HAS_SRC : 0)));
  if (!v4) // v4: a segment record before it says the gap
    putVarint(p, i - prev - 1);
  // Locations are deltas from the block's previous one (v2).
  auto putLoc = [&](uint64_t key) {
    putVarint(p, zigzag(static_cast<int64_t>(key - *prevLoc)));
    *prevLoc = key;
  };
  switch (e.kind) {
  case EventKind::Begin:
  case EventKind::End:
    break;
  case EventKind::Fork:
  case EventKind::Join:
  case EventKind::Acquire:
  case EventKind::Release:
  case EventKind::RAcquire:
  case EventKind::TryFail:
  case EventKind::Signal:
  case EventKind::Broadcast:
  case EventKind::SemPost:
  case EventKind::SemWait:
    putVarint(p, e.obj);
    break;
  case EventKind::Wait:
    putVarint(p, e.obj);
    putVarint(p, e.aux);
    putVarint(p, e.extra == kNone ? 0 : uint64_t{e.extra} + 1);
    break;
  case EventKind::Barrier:
    putVarint(p, e.obj);
    putVarint(p, e.aux);
    break;
  case EventKind::Alloc:
  case EventKind::Free:
    putLoc(e.obj);
    putVarint(p, e.aux);
    break;
  case EventKind::SemInit:
    putVarint(p, e.obj);
    putVarint(p, static_cast<uint64_t>(e.value));
    break;
  case EventKind::Send:
  case EventKind::Recv:
    putVarint(p, e.obj);
    putVarint(p, static_cast<uint64_t>(e.value));
    putVarint(p, e.aux);
    break;
  case EventKind::Read:
  case EventKind::Write:
  case EventKind::AtomicRead:
  case EventKind::AtomicWrite:
    putLoc(e.obj);
    if (size == RP_SIZE_VARINT)
      putVarint(p, e.size);
    putVarint(p, zigzag(e.value));
    if (code == RP_WRITE_DEPS)
      putDeps(t, e, i, 0, p);
    break;
  case EventKind::AtomicRmw:
    RACEPREDICT_ASSERT(e.extra < t.rmwOld.size(),
                       "writing an rmw without its read value (finishTrace?)");
    putLoc(e.obj);
    if (size == RP_SIZE_VARINT)
      putVarint(p, e.size);
    putVarint(p, zigzag(e.value));
    putVarint(p, zigzag(t.rmwReadValue(e)));
    break;
  case EventKind::Branch:
    if (!t.hasDeps(e)) {
      putVarint(p, 0);
      break;
    }
    putDeps(t, e, i, 1, p); // ndeps + 1 (0 = plain rule)
    break;
  case EventKind::Custom: {
    auto [b, end] = t.args(e);
    putVarint(p, e.obj);
    putVarint(p, static_cast<uint64_t>(end - b));
    for (; b != end; ++b)
      putVarint(p, *b);
    break;
  }
  }
  if (hasSrc)
    putVarint(p, e.src);
}

/// The call sites of a stack node, outermost first.
std::vector<SrcId> stackPath(const Trace &t, uint32_t node) {
  std::vector<SrcId> path;
  for (; node != 0; node = t.stackNodes[node].parent)
    path.push_back(t.stackNodes[node].callSite);
  std::reverse(path.begin(), path.end());
  return path;
}

/// Appends a stack record moving a thread from stack `from` to `to`.
void putStackRecord(const Trace &t, uint32_t from, uint32_t to,
                    std::string &p) {
  std::vector<SrcId> a = stackPath(t, from), b = stackPath(t, to);
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common])
    ++common;
  p.push_back(static_cast<char>(RP_STACK));
  putVarint(p, a.size() - common);
  putVarint(p, b.size() - common);
  for (size_t k = common; k < b.size(); ++k)
    putVarint(p, b[k]);
}

void writeEvents(const Trace &t, BlockWriter &w, bool v4) {
  std::vector<std::vector<EventId>> byThread;
  // Each thread's call stack as the reader knows it (carried across blocks).
  std::unordered_map<ThreadId, uint32_t> stackOfThread;
  std::vector<ThreadId> order; // threads in order of their first event
  std::unordered_map<ThreadId, size_t> slot;
  std::string p;
  for (size_t start = 0; start < t.events.size(); start += kWindow) {
    size_t end = std::min(t.events.size(), start + kWindow);
    for (size_t i = start; i < end; ++i) {
      auto [it, fresh] = slot.emplace(t.events[i].thread, order.size());
      if (fresh) {
        order.push_back(t.events[i].thread);
        byThread.emplace_back();
      }
      byThread[it->second].push_back(static_cast<EventId>(i));
    }
    for (size_t s = 0; s < order.size(); ++s) {
      const std::vector<EventId> &evs = byThread[s];
      std::string recs;
      uint64_t prev = uint64_t{evs.front()} - 1, prevLoc = 0;
      size_t count = 0;
      uint32_t &stack = stackOfThread[order[s]];
      for (EventId i : evs) {
        if (t.stackOf(i) != stack) {
          putStackRecord(t, stack, t.stackOf(i), recs);
          stack = t.stackOf(i);
          ++count;
        }
        if (v4 && i - prev - 1 > 0) {
          recs.push_back(static_cast<char>(RP_SEGMENT));
          putVarint(recs, i - prev - 1);
          ++count;
        }
        putRecord(t, i, prev, &prevLoc, v4, recs);
        prev = i;
        ++count;
      }
      p.clear();
      putVarint(p, order[s]);
      putVarint(p, evs.front());
      putVarint(p, count);
      p += recs;
      w.block(RP_BLOCK_EVENTS, p);
    }
    byThread.clear();
    order.clear();
    slot.clear();
  }
}

} // namespace

void writeBinaryTrace(const Trace &t, std::ostream &out, unsigned version) {
  RACEPREDICT_ASSERT(version == 2 || version == 4,
                     "the binary writer writes the v2 and v4 layouts");
  BlockWriter w(out);
  w.header(version);
  writeNames(t, w);
  writeSources(t, w);
  writeInits(t, w);
  writeEvents(t, w, version == 4);
  if (t.stop)
    w.block(RP_BLOCK_STOP, stopBlockPayload(*t.stop));
  w.block(RP_BLOCK_END, std::string());
}

bool looksLikeBinaryTrace(std::istream &in) {
  char magic[sizeof(RP_TRACE_MAGIC)] = {};
  std::streampos pos = in.tellg();
  in.read(magic, sizeof(magic));
  bool yes = in.gcount() == static_cast<std::streamsize>(sizeof(magic)) &&
             std::memcmp(magic, RP_TRACE_MAGIC, sizeof(magic)) == 0;
  in.clear();
  in.seekg(pos);
  return yes;
}

std::optional<unsigned> binaryTraceVersion(std::istream &in) {
  if (!looksLikeBinaryTrace(in))
    return std::nullopt;
  // After the magic and its NUL: the version, a little-endian u16.
  unsigned char v[2] = {};
  std::streampos pos = in.tellg();
  in.seekg(pos + std::streamoff(sizeof(RP_TRACE_MAGIC)));
  in.read(reinterpret_cast<char *>(v), sizeof(v));
  bool got = in.gcount() == static_cast<std::streamsize>(sizeof(v));
  in.clear();
  in.seekg(pos);
  if (!got)
    return std::nullopt;
  return v[0] | unsigned{v[1]} << 8;
}

} // namespace racepredict::trace
