//===- trace/binary_stop.cpp - The STOP block of binary traces ------------===//
//
// trace/format.h: why the recording stopped before the program's own end,
// and the threads blocked at that moment (trace/recording_stop.h). Read
// into a RawTrace with the thread and object keys as provisional ids and
// the file's source ids (binary_resolve.cpp binds them); written from a
// Trace by writeBinaryTrace.
//
#include "binary_codec.h"
#include "binary_raw.h"
#include "racepredict/trace/format.h"

namespace racepredict::trace {

using codec::Status;

std::string readStopBlock(codec::Cursor &c, bool complete, RawTrace &raw) {
  uint64_t reason = 0, value = 0, count = 0;
  RecordingStop s;
  Status st = c.varint(&reason);
  if (st == Status::Ok)
    st = c.varint(&value);
  if (st == Status::Ok)
    st = c.string(&s.text);
  if (st == Status::Ok)
    st = c.varint(&count);
  struct Entry {
    uint64_t key, kind, obj, src;
  };
  std::vector<Entry> entries;
  for (uint64_t i = 0; st == Status::Ok && i < count; ++i) {
    Entry e{};
    for (uint64_t *f : {&e.key, &e.kind, &e.obj, &e.src})
      if (st == Status::Ok)
        st = c.varint(f);
    entries.push_back(e);
  }
  if (st == Status::Bad)
    return "malformed number in the STOP block";
  if (st == Status::Short)
    return complete ? "the STOP block runs past its end" : "";
  if (!c.atEnd())
    return "stray bytes after the STOP block's entries";
  if (!isStopReason(reason))
    return "unknown stop reason " + std::to_string(reason);
  for (char ch : s.text)
    if (static_cast<unsigned char>(ch) < 0x20)
      return "an unprintable text in the STOP block";
  s.reason = static_cast<StopReason>(reason);
  s.value = value;
  for (const Entry &e : entries) {
    if (e.kind >= kNumEventKinds ||
        !isBlockingOp(static_cast<EventKind>(e.kind)))
      return "a blocked thread in a call of kind " + std::to_string(e.kind) +
             ", which cannot block";
    if (e.src >= kNone)
      return "source id " + std::to_string(e.src) + " out of range";
    BlockedThread b;
    b.op = static_cast<EventKind>(e.kind);
    b.thread = raw.keys[int(NameSpace::Thread)].id(e.key);
    bool has = false;
    b.object = raw.keys[int(objNameSpace(b.op, &has))].id(e.obj);
    b.loc = static_cast<SrcId>(e.src); // the file's id: resolved later
    s.blocked.push_back(b);
  }
  raw.t.stop = std::move(s);
  return "";
}

std::string stopBlockPayload(const RecordingStop &s) {
  std::string p;
  codec::putVarint(p, static_cast<uint64_t>(s.reason));
  codec::putVarint(p, s.value);
  codec::putVarint(p, s.text.size());
  p += s.text;
  codec::putVarint(p, s.blocked.size());
  for (const BlockedThread &b : s.blocked) {
    codec::putVarint(p, b.thread);
    codec::putVarint(p, static_cast<uint64_t>(b.op));
    codec::putVarint(p, b.object);
    codec::putVarint(p, b.loc);
  }
  return p;
}

} // namespace racepredict::trace
