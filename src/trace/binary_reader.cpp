//===- trace/binary_reader.cpp - Streaming reader of .rptrace files -------===//
//
// Reads versions 1 to 6 of trace/format.h block by block (a block is
// held in memory, the file never is). Every length read from the file is
// bounded by the bytes actually present, so corrupt input cannot make the
// reader allocate more than the file holds, loop, or crash: it ends in a
// sentence naming the file, the byte offset and the events read so far.
//
// Raw keys (addresses in recorded traces, dense ids in converted ones) are
// mapped to provisional per-name-space ids while reading; names are bound at
// the end (binary_resolve.cpp) because a NAMES block may follow the events
// that use its keys, and seqs become event indices only once all blocks are
// read, since blocks of different threads interleave.
//
#include "racepredict/trace/binary_format.h"

#include "binary_codec.h"
#include "binary_raw.h"
#include "racepredict/trace/format.h"

#include <algorithm>
#include <istream>
#include <unordered_map>
#include <vector>

namespace racepredict::trace {
namespace {

using codec::Cursor;
using codec::Status;

/// Payloads are read in steps of this size, so a corrupt length in a stream
/// whose size we do not know costs at most one step of memory beyond the data.
constexpr size_t kReadStep = 1 << 20;
/// Seqs above this are corruption (and keep seq arithmetic overflow-free).
constexpr uint64_t kMaxSeq = uint64_t{1} << 62;
/// The seq after `prev` with the record's delta; false when out of range.
bool nextSeq(uint64_t prev, uint64_t delta, uint64_t *seq) {
  if (delta > kMaxSeq || prev + 1 + delta > kMaxSeq)
    return false;
  *seq = prev + 1 + delta;
  return true;
}

/// Reads fields of one record or entry, remembering the first failure so
/// that the caller checks once per record instead of once per field.
struct Fields {
  Cursor &c;
  Status st = Status::Ok;
  uint64_t v() {
    uint64_t x = 0;
    if (st == Status::Ok)
      st = c.varint(&x);
    return x;
  }
  uint8_t b() {
    uint8_t x = 0;
    if (st == Status::Ok)
      st = c.byte(&x);
    return x;
  }
  std::string s() {
    std::string x;
    if (st == Status::Ok)
      st = c.string(&x);
    return x;
  }
  /// A count of items (minus `bias`) of at least one byte each; more than
  /// the bytes left means the block was cut (or is corrupt): reading them
  /// cannot succeed, and nothing is allocated for them.
  uint64_t count(uint64_t bias) {
    uint64_t n = v();
    if (st == Status::Ok && n > bias && n - bias > c.remaining())
      st = Status::Short;
    return n;
  }
};

bool sane(const std::string &s) {
  for (unsigned char ch : s)
    if (ch < 0x20 || ch == 0x7f)
      return false;
  return true;
}

class BinaryReader {
public:
  BinaryReader(std::istream &in, const std::string &name,
               const ReadOptions &opts)
      : in_(in), name_(name), opts_(opts) {}

  Expected<Trace> read(ReadInfo *info);

private:
  Error fail(uint64_t offset, const std::string &msg) const {
    return Error{name_ + ": byte " + std::to_string(offset) + " (after " +
                 std::to_string(raw_.events.size()) + " events): " + msg};
  }
  size_t readBytes(unsigned char *dst, size_t n) {
    in_.read(reinterpret_cast<char *>(dst), static_cast<std::streamsize>(n));
    size_t got = static_cast<size_t>(in_.gcount());
    offset_ += got;
    return got;
  }
  Expected<bool> header();
  /// Growing the event vectors by doubling copies and page-faults them
  /// again and again; a recorded trace takes 4-10 bytes per event, so size
  /// them once from the bytes left (never more than the file could hold).
  void reserveForFileSize() {
    std::streampos here = in_.tellg();
    if (here == std::streampos(-1))
      return;
    in_.seekg(0, std::ios::end);
    std::streampos end = in_.tellg();
    in_.seekg(here);
    if (end == std::streampos(-1) || end <= here) {
      in_.clear();
      return;
    }
    // Capped: a huge corrupt file must not reserve gigabytes up front.
    size_t estimate =
        std::min<size_t>(static_cast<size_t>(end - here) / 4, size_t{1} << 24);
    raw_.events.reserve(estimate);
    if (raw_.version == 3)
      raw_.seqs.reserve(estimate);
  }
  /// Parses one block; sets raw_.cut when its payload ends before its length.
  Expected<bool> block(uint8_t type, Cursor &c, bool complete);
  Expected<bool> names(Cursor &c, bool complete);
  Expected<bool> sources(Cursor &c, bool complete);
  Expected<bool> inits(Cursor &c, bool complete);
  Expected<bool> globals(Cursor &c, bool complete);
  Expected<bool> events(Cursor &c, bool complete);
  /// One record; returns false (without an error) when it is incomplete.
  Expected<bool> record(Cursor &c, uint64_t threadKey, uint64_t *prevSeq);
  /// A v3 mark record: a ticket that orders the thread's earlier events.
  Expected<bool> markRecord(Fields &f, uint64_t start, uint64_t threadKey,
                            uint64_t *prevSeq);
  /// A v2 stack record: moves the thread's current stack node.
  Expected<bool> stackRecord(Fields &f, uint64_t start, uint64_t threadKey);
  /// A v4 segment record: other threads' events come before the next one.
  Expected<bool> segmentRecord(Fields &f, uint64_t start, uint64_t *prevSeq);

  std::istream &in_;
  const std::string &name_;
  const ReadOptions &opts_;
  uint64_t offset_ = 0;
  RawTrace raw_;
  std::unordered_map<uint64_t, size_t> sourceIndex_; ///< duplicate check
  std::vector<uint64_t> list_; ///< scratch: a record's dependences or args
  uint64_t prevLoc_ = 0;   ///< v2: previous location key of the EVENTS block
  uint64_t prevOrder_ = 0; ///< v3: previous stripe-order field of the block
  /// v3: each thread's events so far (branch dependences count back).
  std::unordered_map<uint64_t, uint64_t> eventsOfThread_;
  /// v2: each thread's current call-stack node (carried across its blocks).
  std::unordered_map<uint64_t, uint32_t> stackOfThread_;
};

Expected<bool> BinaryReader::header() {
  unsigned char h[RP_HEADER_SIZE];
  size_t got = readBytes(h, sizeof(h));
  if (got < sizeof(RP_TRACE_MAGIC) ||
      std::string(reinterpret_cast<char *>(h), sizeof(RP_TRACE_MAGIC)) !=
          std::string(RP_TRACE_MAGIC, sizeof(RP_TRACE_MAGIC)))
    return Error{name_ + ": not a racepredict binary trace (no '" +
                 RP_TRACE_MAGIC + "' magic at byte 0)"};
  if (got < sizeof(h))
    return Error{name_ + ": truncated at byte " + std::to_string(got) +
                 " after 0 events (in the file header)"};
  unsigned version = h[8] | unsigned{h[9]} << 8;
  raw_.version = version;
  if (version < RP_TRACE_MIN_VERSION || version > RP_TRACE_VERSION)
    return Error{name_ + ": binary trace format version " +
                 std::to_string(version) +
                 " is not supported: this racepredict reads versions " +
                 std::to_string(RP_TRACE_MIN_VERSION) + " to " +
                 std::to_string(RP_TRACE_VERSION) +
                 " (use the racepredict that recorded it to convert it to "
                 "text)"};
  if (h[10] != 1)
    return fail(10, "byte order " + std::to_string(h[10]) +
                        " is not supported (1 = little-endian)");
  if (h[11] != 4 && h[11] != 8)
    return fail(11, "pointer width " + std::to_string(h[11]) +
                        " is not supported (4 or 8 bytes)");
  if (uint32_t flags = codec::getU32(h + 12))
    return fail(12, "unknown header flags " + hexKey(flags));
  return true;
}

Expected<Trace> BinaryReader::read(ReadInfo *info) {
  auto h = header();
  if (!h)
    return h.error();
  reserveForFileSize();
  std::vector<unsigned char> buf;
  bool sawEnd = false;
  while (!sawEnd && !raw_.cut) {
    uint64_t start = offset_;
    unsigned char bh[RP_BLOCK_HEADER_SIZE];
    if (readBytes(bh, sizeof(bh)) < sizeof(bh)) {
      raw_.cut = true;
      break;
    }
    uint8_t type = bh[0];
    uint32_t len = codec::getU32(bh + 4);
    if (type < RP_BLOCK_NAMES || type > RP_BLOCK_STOP ||
        (type == RP_BLOCK_GLOBALS && raw_.version < 2))
      return fail(start, "unknown block type " + std::to_string(type));
    if (type == RP_BLOCK_END) {
      if (len != 0)
        return fail(start, "the END block has a payload (" +
                               std::to_string(len) + " bytes)");
      if (in_.peek() != std::char_traits<char>::eof())
        return fail(offset_, "data after the END block");
      sawEnd = true;
      break;
    }
    buf.clear();
    while (buf.size() < len) {
      size_t old = buf.size();
      size_t step = std::min<size_t>(len - old, kReadStep);
      buf.resize(old + step);
      size_t got = readBytes(buf.data() + old, step);
      if (got < step) {
        buf.resize(old + got);
        break;
      }
    }
    bool complete = buf.size() == len;
    Cursor c(buf.data(), buf.data() + buf.size(), start + sizeof(bh));
    auto r = block(type, c, complete);
    if (!r)
      return r.error();
    if (!complete)
      raw_.cut = true;
  }
  if (in_.bad())
    return fail(offset_, "read error");
  std::string cutMsg = name_ + ": truncated at byte " +
                       std::to_string(offset_) + " after " +
                       std::to_string(raw_.events.size()) + " events";
  if (raw_.cut && !opts_.allowTruncated)
    return Error{cutMsg + " (no END block: the recording was cut; pass "
                          "--allow-truncated to use the events before the "
                          "cut)"};
  auto t = resolveRawTrace(raw_, name_);
  if (t && info) {
    info->format = TraceFormat::Binary;
    info->truncated = raw_.cut;
    info->truncation = raw_.cut ? cutMsg : std::string();
  }
  return t;
}

Expected<bool> BinaryReader::block(uint8_t type, Cursor &c, bool complete) {
  switch (type) {
  case RP_BLOCK_NAMES:
    return names(c, complete);
  case RP_BLOCK_SOURCES:
    return sources(c, complete);
  case RP_BLOCK_INIT:
    return inits(c, complete);
  case RP_BLOCK_GLOBALS:
    return globals(c, complete);
  case RP_BLOCK_STOP: {
    uint64_t start = c.offset();
    std::string err = readStopBlock(c, complete, raw_);
    if (!err.empty())
      return fail(start, err);
    return true;
  }
  default:
    return events(c, complete);
  }
}

// The entry parsers below share one shape: an entry that runs out of bytes
// ends the block if the block was cut, and is corruption otherwise.
#define RACEPREDICT_CHECK_ENTRY(f, start, what)                                \
  if ((f).st == Status::Bad)                                                   \
    return fail(start, "malformed number in " what);                           \
  if ((f).st == Status::Short) {                                               \
    if (complete)                                                              \
      return fail(start, what " runs past the end of its block");              \
    return true;                                                               \
  }

Expected<bool> BinaryReader::names(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint8_t ns = f.b();
    uint64_t key = f.v();
    std::string name = f.s();
    RACEPREDICT_CHECK_ENTRY(f, start, "a NAMES entry");
    if (ns >= kNumNameSpaces)
      return fail(start, "unknown name space " + std::to_string(ns));
    if (name.empty() || !sane(name))
      return fail(start, "an empty or unprintable name");
    KeySpace &ks = raw_.keys[ns];
    ks.names[ks.id(key)] = std::move(name);
  }
  return true;
}

Expected<bool> BinaryReader::sources(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint64_t id = f.v();
    SourceLoc loc;
    loc.file = f.s();
    uint64_t line = f.v(), col = f.v();
    loc.function = f.s();
    uint64_t inlinedAt = raw_.version >= 2 ? f.v() : 0;
    RACEPREDICT_CHECK_ENTRY(f, start, "a SOURCES entry");
    if (inlinedAt >= kNone || inlinedAt == id)
      return fail(start, "inlined-at source id " + std::to_string(inlinedAt) +
                             " out of range");
    // A file source id for now; binary_resolve.cpp maps it.
    loc.inlinedAt = static_cast<SrcId>(inlinedAt);
    if (id == 0 || id >= kNone)
      return fail(start, "source id " + std::to_string(id) + " out of range");
    if (line > UINT32_MAX || col > UINT32_MAX)
      return fail(start, "source line or column out of range");
    // An empty file is legal: the runtime writes one for code without
    // debug information.
    if (!sane(loc.file) || !sane(loc.function))
      return fail(start, "an unprintable source file or function name");
    loc.line = static_cast<uint32_t>(line);
    loc.column = static_cast<uint32_t>(col);
    if (!sourceIndex_.emplace(id, raw_.sources.size()).second)
      return fail(start, "source id " + std::to_string(id) + " defined twice");
    raw_.sources.emplace_back(id, std::move(loc));
  }
  return true;
}

Expected<bool> BinaryReader::inits(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint64_t key = f.v();
    int64_t value = codec::unzigzag(f.v());
    RACEPREDICT_CHECK_ENTRY(f, start, "an INIT entry");
    raw_.inits.emplace_back(raw_.keys[int(NameSpace::Location)].id(key), value);
  }
  return true;
}

Expected<bool> BinaryReader::globals(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint64_t addr = f.v(), size = f.v();
    std::string name = f.s();
    RACEPREDICT_CHECK_ENTRY(f, start, "a GLOBALS entry");
    if (name.empty() || !sane(name))
      return fail(start, "an empty or unprintable global name");
    if (size == 0 || addr + size < addr)
      return fail(start, "global '" + name +
                             "' has an empty or wrapping "
                             "address range");
    raw_.globals.push_back({addr, size, std::move(name)});
  }
  return true;
}

Expected<bool> BinaryReader::events(Cursor &c, bool complete) {
  uint64_t start = c.offset();
  Fields f{c};
  uint64_t threadKey = f.v();
  uint64_t firstSeq = f.v();
  uint64_t count = f.v();
  RACEPREDICT_CHECK_ENTRY(f, start, "the EVENTS block header");
  if (firstSeq > kMaxSeq)
    return fail(start,
                "first seq " + std::to_string(firstSeq) + " out of range");
  // Every record takes at least two bytes (kind, seq delta), one in v4.
  if (complete && count > c.remaining() / (raw_.version >= 4 ? 1 : 2))
    return fail(start, "the EVENTS block claims " + std::to_string(count) +
                           " records but holds only " +
                           std::to_string(c.remaining()) + " bytes");
  uint64_t prev = firstSeq - 1; // wraps for 0; the first delta adds it back
  prevLoc_ = 0;
  prevOrder_ = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t recStart = c.offset();
    auto r = record(c, threadKey, &prev);
    if (!r)
      return r;
    if (!*r) {
      if (complete)
        return fail(recStart, "a record runs past the end of its block");
      return true; // the file was cut inside this record
    }
  }
  if (!c.atEnd())
    return fail(c.offset(), std::to_string(c.remaining()) +
                                " stray bytes after the last record of an "
                                "EVENTS block");
  return true;
}

Expected<bool> BinaryReader::record(Cursor &c, uint64_t threadKey,
                                    uint64_t *prevSeq) {
  uint64_t start = c.offset();
  Fields f{c};
  uint8_t code = f.b();
  unsigned kindCode =
      raw_.version >= 2 ? code & RP_KIND_MASK : code & ~RP_HAS_SRC;
  unsigned sizeCode = raw_.version >= 2 ? (code >> RP_SIZE_SHIFT) & 3 : 0;
  if (f.st == Status::Ok && raw_.version >= 2 && code == RP_STACK)
    return stackRecord(f, start, threadKey);
  if (f.st == Status::Ok && raw_.version == 3 && code == RP_MARK)
    return markRecord(f, start, threadKey, prevSeq);
  if (f.st == Status::Ok && raw_.version >= 4 && code == RP_SEGMENT)
    return segmentRecord(f, start, prevSeq);
  // A write with a dependence list (format.h, RP_WRITE_DEPS).
  bool writeDeps = raw_.version >= 2 && kindCode == RP_WRITE_DEPS;
  if (writeDeps)
    kindCode = static_cast<unsigned>(EventKind::Write);
  if (f.st == Status::Ok && kindCode >= kNumEventKinds)
    return fail(start, "unknown event kind " + std::to_string(kindCode));
  Event e{};
  e.kind = static_cast<EventKind>(kindCode);
  // v3 (format.h): accesses carry a stripe-order delta, branches nothing,
  // everything else a seq delta. v4: every seq is implicit (delta 0).
  Order order = raw_.version != 3             ? Order::Ticket
                : isAccess(e.kind)            ? Order::Stripe
                : e.kind == EventKind::Branch ? Order::Free
                                              : Order::Ticket;
  uint64_t delta = order == Order::Free || raw_.version >= 4 ? 0 : f.v();
  // Bit 5 of a timed call's record: its deadline had passed (format.h, v6;
  // convert's v2 layout carries it too: no earlier writer set it).
  if (raw_.version >= 2 && mayPassDeadline(e.kind) &&
      (code & RP_PAST_DEADLINE)) {
    e.flags = kEventPastDeadline;
    sizeCode &= ~1u;
  }
  if (f.st == Status::Ok && sizeCode != 0 && !isAccess(e.kind))
    return fail(start, std::string("a size code on a '") + opName(e.kind) +
                           "' record");
  e.extra = kNone;
  // Raw fields first; keys are interned only once the record is complete
  // and valid, so a cut record leaves no phantom symbol behind.
  uint64_t obj = 0, aux = 0, size = 0, notify = 0, old = 0;
  uint64_t nlist = 0; // dependences + 1 (branch) or arguments (custom)
  list_.clear();
  bool has = false;
  NameSpace ns = objNameSpace(e.kind, &has);
  if (has)
    obj = f.v();
  if (has && raw_.version >= 2 && ns == NameSpace::Location) {
    obj = prevLoc_ + static_cast<uint64_t>(codec::unzigzag(obj));
    if (f.st == Status::Ok)
      prevLoc_ = obj;
  }
  switch (e.kind) {
  case EventKind::Wait:
    aux = f.v();
    notify = f.v();
    break;
  case EventKind::Barrier:
  case EventKind::Alloc:
  case EventKind::Free:
    aux = f.v();
    break;
  case EventKind::SemInit:
    aux = f.v();
    break;
  case EventKind::Send:
  case EventKind::Recv:
    old = f.v(); // the offset
    aux = f.v();
    break;
  case EventKind::Read:
  case EventKind::Write:
  case EventKind::AtomicRead:
  case EventKind::AtomicWrite:
  case EventKind::AtomicRmw:
    size = sizeCode == RP_SIZE_VARINT ? f.v()
           : sizeCode == RP_SIZE_1    ? 1
           : sizeCode == RP_SIZE_4    ? 4
                                      : 8;
    e.value = codec::unzigzag(f.v());
    if (e.kind == EventKind::AtomicRmw)
      old = f.v();
    if (writeDeps) {
      nlist = f.count(0);
      for (uint64_t i = 0; i < nlist && f.st == Status::Ok; ++i)
        list_.push_back(f.v());
    }
    break;
  case EventKind::Branch:
  case EventKind::Custom:
    nlist = f.count(e.kind == EventKind::Branch ? 1 : 0);
    for (uint64_t i = e.kind == EventKind::Branch ? 1 : 0;
         i < nlist && f.st == Status::Ok; ++i)
      list_.push_back(f.v());
    break;
  default:
    break;
  }
  uint64_t src = (code & RP_HAS_SRC) ? f.v() : 0;
  if (f.st == Status::Short)
    return false;
  if (f.st == Status::Bad)
    return fail(start, "malformed number in a record");

  uint64_t seq = 0;
  if (order == Order::Ticket) {
    if (!nextSeq(*prevSeq, delta, &seq))
      return fail(start, "seq out of range");
  } else if (order == Order::Stripe) {
    seq = prevOrder_ + static_cast<uint64_t>(codec::unzigzag(delta));
    if (seq == 0 || seq > kMaxSeq)
      return fail(start,
                  "stripe order " + std::to_string(seq) + " out of range");
  }
  // A branch dependence names an earlier read of the thread: by its seq
  // (v1/v2/v4: seq - d >= 0) or by its 1-based index among the thread's
  // events (v3: self - d >= 1, where self is this event's index).
  uint64_t *threadEvents =
      raw_.version == 3 ? &eventsOfThread_[threadKey] : nullptr;
  uint64_t self = threadEvents ? *threadEvents + 1 : seq;
  uint64_t maxBack = threadEvents ? self - 1 : seq;
  if (size > 255)
    return fail(start, "access size " + std::to_string(size) + " out of range");
  if (e.kind == EventKind::Barrier && (aux < 1 || aux > 1000000))
    return fail(start, "barrier count " + std::to_string(aux) +
                           " out of range (1 to 1000000)");
  if (e.kind == EventKind::SemInit && aux > uint64_t{INT64_MAX})
    return fail(start, "semaphore value out of range");
  if ((e.kind == EventKind::Alloc || e.kind == EventKind::Free ||
       isChannelEvent(e.kind)) &&
      aux > UINT32_MAX)
    return fail(start, "size " + std::to_string(aux) + " out of range");
  if (isChannelEvent(e.kind) && old > uint64_t{INT64_MAX})
    return fail(start, "channel offset out of range");
  // v3 notifies are tickets, checked once the order is known (merge).
  if (e.kind == EventKind::Wait && notify > seq && raw_.version != 3)
    return fail(start, "a wait names a notify that is not before it");
  if (e.kind == EventKind::Branch || writeDeps)
    for (uint64_t d : list_)
      if (d == 0 || d > maxBack)
        return fail(start, std::string("a ") +
                               (writeDeps ? "write" : "branch") +
                               " dependence that is not before it");
  if (src >= kNone || ((code & RP_HAS_SRC) && src == 0))
    return fail(start, "source id " + std::to_string(src) + " out of range");

  e.thread = raw_.keys[int(NameSpace::Thread)].id(threadKey);
  e.size = static_cast<uint8_t>(size);
  e.src = static_cast<SrcId>(src);
  if (has)
    e.obj = raw_.keys[int(ns)].id(obj);
  switch (e.kind) {
  case EventKind::Wait:
    e.aux = raw_.keys[int(NameSpace::Lock)].id(aux);
    e.extra = static_cast<uint32_t>(raw_.notify.size());
    raw_.notify.push_back(notify);
    break;
  case EventKind::SemInit:
    e.value = static_cast<int64_t>(aux);
    break;
  case EventKind::Send:
  case EventKind::Recv:
    e.value = static_cast<int64_t>(old);
    e.aux = static_cast<uint32_t>(aux);
    break;
  case EventKind::Barrier:
  case EventKind::Alloc:
  case EventKind::Free:
    e.aux = static_cast<uint32_t>(aux);
    break;
  case EventKind::AtomicRmw:
    e.extra = static_cast<uint32_t>(raw_.t.rmwOld.size());
    raw_.t.rmwOld.push_back(codec::unzigzag(old));
    break;
  case EventKind::Write:
  case EventKind::Branch:
    // nlist: a branch's ndeps + 1 (0 = plain rule), a write's ndeps.
    if (writeDeps || (e.kind == EventKind::Branch && nlist > 0)) {
      e.extra = static_cast<uint32_t>(raw_.depOff.size() - 1);
      for (uint64_t d : list_)
        raw_.depSeqs.push_back(self - d);
      raw_.depOff.push_back(raw_.depSeqs.size());
    }
    break;
  case EventKind::Custom: {
    std::vector<SymId> args;
    args.reserve(list_.size());
    for (uint64_t k : list_)
      args.push_back(raw_.keys[int(ns)].id(k));
    e.extra = raw_.t.addArgs(args);
    break;
  }
  default:
    break;
  }
  if (order == Order::Ticket)
    *prevSeq = seq;
  else if (order == Order::Stripe)
    prevOrder_ = seq;
  if (threadEvents) {
    ++*threadEvents;
    raw_.order.push_back(static_cast<uint8_t>(order));
  }
  if (!stackOfThread_.empty()) {
    auto it = stackOfThread_.find(threadKey);
    uint32_t node = it == stackOfThread_.end() ? 0 : it->second;
    if (node != 0 && raw_.stacks.size() < raw_.events.size())
      raw_.stacks.resize(raw_.events.size(), 0);
    if (!raw_.stacks.empty() || node != 0)
      raw_.stacks.push_back(node);
  }
  raw_.events.push_back(e);
  if (raw_.version == 3)
    raw_.seqs.push_back(seq);
  else
    raw_.seqRuns.push(seq);
  return true;
}

Expected<bool> BinaryReader::markRecord(Fields &f, uint64_t start,
                                        uint64_t threadKey, uint64_t *prevSeq) {
  uint64_t delta = f.v();
  if (f.st == Status::Short)
    return false;
  if (f.st == Status::Bad)
    return fail(start, "malformed number in a mark record");
  if (!nextSeq(*prevSeq, delta, prevSeq))
    return fail(start, "seq out of range");
  uint32_t thread = raw_.keys[int(NameSpace::Thread)].id(threadKey);
  raw_.marks.push_back(
      {thread, *prevSeq, static_cast<uint32_t>(raw_.events.size())});
  return true;
}

Expected<bool> BinaryReader::segmentRecord(Fields &f, uint64_t start,
                                           uint64_t *prevSeq) {
  uint64_t gap = f.v();
  if (f.st == Status::Short)
    return false;
  if (f.st == Status::Bad)
    return fail(start, "malformed number in a segment record");
  // The next event's seq is prev + 1 + gap: move prev by the gap.
  uint64_t moved = 0;
  if (!nextSeq(*prevSeq, gap, &moved))
    return fail(start, "seq out of range");
  *prevSeq = moved - 1;
  return true;
}

Expected<bool> BinaryReader::stackRecord(Fields &f, uint64_t start,
                                         uint64_t threadKey) {
  uint64_t pops = f.v();
  uint64_t pushes = f.count(0);
  list_.clear();
  for (uint64_t i = 0; i < pushes && f.st == Status::Ok; ++i)
    list_.push_back(f.v());
  if (f.st == Status::Short)
    return false;
  if (f.st == Status::Bad)
    return fail(start, "malformed number in a stack record");
  uint32_t &node = stackOfThread_[threadKey];
  const auto &nodes = raw_.stackNodes;
  for (uint64_t i = 0; i < pops; ++i) {
    if (node == 0)
      return fail(start, "a stack record pops " + std::to_string(pops) +
                             " frames from a shorter call stack");
    node = nodes[node].parent;
  }
  for (uint64_t site : list_) {
    if (site >= kNone) // 0 is legal: a call from unknown code (libc -> main)
      return fail(start, "call-site source id " + std::to_string(site) +
                             " out of range");
    // A file source id for now; binary_resolve.cpp maps it.
    node = raw_.pushStack(node, site);
  }
  return true;
}

#undef RACEPREDICT_CHECK_ENTRY

} // namespace

Expected<Trace> parseBinaryTrace(std::istream &in, const std::string &name,
                                 const ReadOptions &opts, ReadInfo *info) {
  return BinaryReader(in, name, opts).read(info);
}

} // namespace racepredict::trace