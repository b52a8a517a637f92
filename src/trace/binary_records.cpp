//===- trace/binary_records.cpp - EVENTS blocks and their records -------===//
//
// One EVENTS block is one thread's run of records; each record is parsed
// field by field, checked, and only then interned into the raw trace, so
// that a record cut by the end of the file leaves nothing behind.
//
#include "binary_reader.h"

namespace racepredict::trace {

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
    e.flags |= kEventPastDeadline;
    sizeCode &= ~1u;
  }
  // Bit 6: a successful try-acquire (v7; read as bit 5 is).
  if (raw_.version >= 2 && mayBeTryAcquire(e.kind) && (code & RP_TRY_ACQUIRE)) {
    e.flags |= kEventTryAcquire;
    sizeCode &= ~2u;
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

  // A filtered load (trace/record_filter.h): what it leaves out moves the
  // thread's seq on and leaves nothing else behind.
  RecordFilter *filter = opts_.filter;
  if (filter && !filter->keep({seq, threadKey, e.kind, has, obj, size, aux})) {
    *prevSeq = seq;
    return true;
  }
  // Until renameAfterHiddenWrites reads it, an access's aux (unused) holds
  // the name number a filter gives + 1.
  if (filter && filter->givesNames && isAccess(e.kind))
    e.aux = filter->nameNumber(seq) + 1;
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
      // A filter's list replaces the file's (seqs, or none: plain).
      bool plain = false,
           given = filter && filter->dependences(seq, list_, &plain);
      if (plain)
        break;
      e.extra = static_cast<uint32_t>(raw_.depOff.size() - 1);
      for (uint64_t d : list_)
        raw_.depSeqs.push_back(given ? d : self - d);
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
  if (!stackOfThread_.empty() && (!filter || filter->stacks)) {
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

} // namespace racepredict::trace
