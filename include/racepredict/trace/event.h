//===- trace/event.h - The event model of DESIGN.md ----------------------===//
//
// One trace event = one completed operation by one thread. Events are POD
// records of 32 bytes so that a 10M-event trace stays in a few hundred MB.
//
#pragma once

#include <cstdint>
#include <limits>

namespace racepredict::trace {

using EventId = uint32_t;  ///< index in file order (0, 1, 2, ...)
using ThreadId = uint32_t; ///< dense index into Trace::threads
using SymId = uint32_t;    ///< dense index into one of the Trace name tables
using SrcId = uint32_t;    ///< index into Trace::sources; 0 = no location

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

enum class EventKind : uint8_t {
  Begin,
  End,
  Fork,     ///< obj = child thread
  Join,     ///< obj = child thread
  Acquire,  ///< obj = lock (mutex, spinlock, rwlock write mode)
  Release,  ///< obj = lock (either mode)
  RAcquire, ///< obj = lock (rwlock read mode)
  TryFail,  ///< obj = lock; failed trylock/timedlock
  Wait,     ///< obj = cond, aux = lock, extra = matched notify or kNone
  Signal,   ///< obj = cond
  Broadcast,
  Barrier, ///< obj = barrier, aux = count (arrivals per generation)
  SemInit, ///< obj = sem, value = initial count
  SemPost, ///< obj = sem
  SemWait, ///< obj = sem
  Read,    ///< obj = location, value, size
  Write,   ///< extra = index into Trace::depLists (its value's reads) or kNone
  AtomicRead,
  AtomicWrite,
  AtomicRmw, ///< value = written value, extra = index into Trace::rmwOld
  Branch,    ///< extra = index into Trace::depLists, or kNone = plain rule
  Alloc,     ///< obj = location, aux = size
  Free,      ///< obj = location, aux = size
  Custom,    ///< obj = name (custom namespace), extra = index into argLists
  /// Bytes [value, value + aux) put into / taken from channel `obj` (a pipe,
  /// a socket's direction, a file): docs/semantics.md, Channels.
  Send,
  Recv,
};
inline constexpr int kNumEventKinds = static_cast<int>(EventKind::Recv) + 1;

struct Event {
  ThreadId thread;
  EventKind kind;
  uint8_t size;   ///< access size in bytes; 0 = unknown (text traces)
  uint16_t flags; ///< kEventPastDeadline, kEventTryAcquire; others reserved
  uint32_t obj;
  uint32_t aux;
  SrcId src;
  uint32_t extra;
  int64_t value;
};
static_assert(sizeof(Event) == 32, "Event must stay 32 bytes (memory budget)");

/// Event flag: a timed call (wait, lock, semaphore wait) that returned after
/// its deadline had passed; the clock is read by callers (libstdc++'s
/// wait_for decides cv_status::timeout by now() >= deadline), so replay
/// returns from it only once the deadline has passed (docs/replay.md).
inline constexpr uint16_t kEventPastDeadline = 2;
/// The kinds a timed call records (what may carry kEventPastDeadline).
inline bool mayPassDeadline(EventKind k) {
  return k == EventKind::Wait || k == EventKind::Acquire ||
         k == EventKind::RAcquire || k == EventKind::TryFail ||
         k == EventKind::SemWait;
}
/// Event flag: an acquisition made by a try-lock (or sem_trywait) that
/// succeeded. It orders like an acquire, but the thread never waited
/// there: had the lock been taken the call would have failed, so it is
/// never the blocked request of a deadlock (docs/semantics.md, Deadlocks).
/// libstdc++'s std::lock takes all but one of its mutexes this way.
inline constexpr uint16_t kEventTryAcquire = 4;
/// The kinds a try-acquire records (what may carry kEventTryAcquire).
inline bool mayBeTryAcquire(EventKind k) {
  return k == EventKind::Acquire || k == EventKind::RAcquire ||
         k == EventKind::SemWait;
}
inline bool isTryAcquire(const Event &e) {
  return (e.flags & kEventTryAcquire) != 0;
}

/// The name spaces of the symbols an event refers to.
enum class NameSpace : uint8_t {
  Thread,
  Location,
  Lock,
  Cond,
  Barrier,
  Sem,
  Custom,
  Channel
};
inline constexpr int kNumNameSpaces = 8;

inline bool isAccess(EventKind k) {
  return k == EventKind::Read || k == EventKind::Write ||
         k == EventKind::AtomicRead || k == EventKind::AtomicWrite ||
         k == EventKind::AtomicRmw;
}
/// Reads for the maximal model: their value matters to control flow.
inline bool readsValue(EventKind k) {
  return k == EventKind::Read || k == EventKind::AtomicRead ||
         k == EventKind::AtomicRmw;
}
/// Writes for the maximal model: they change the value of a location.
inline bool writesValue(EventKind k) {
  return k == EventKind::Write || k == EventKind::AtomicWrite ||
         k == EventKind::AtomicRmw;
}
inline bool isAtomic(EventKind k) {
  return k == EventKind::AtomicRead || k == EventKind::AtomicWrite ||
         k == EventKind::AtomicRmw;
}
/// Waits (release, then return) and barrier waits (arrival, then
/// departure) are two steps of their thread in a schedule.
inline bool hasTwoHalves(EventKind k) {
  return k == EventKind::Wait || k == EventKind::Barrier;
}
inline bool isNotify(EventKind k) {
  return k == EventKind::Signal || k == EventKind::Broadcast;
}
inline bool isChannelEvent(EventKind k) {
  return k == EventKind::Send || k == EventKind::Recv;
}
/// Which name space an event's `obj` field lives in (kNumNameSpaces = none).
NameSpace objNameSpace(EventKind k, bool *hasObj);

/// Text-format mnemonic of a kind (`rd`, `acq`, ...), as in DESIGN.md.
const char *opName(EventKind k);

} // namespace racepredict::trace
