//===- trace/finish_trace.cpp - What both trace readers establish --------===//
//
// After parsing, the text reader and the binary resolver
// (binary_resolve.cpp) give a trace the same invariants: every thread an
// event names exists, each rmw has its read value, and each wait names the
// notify that woke it (the last one not consumed by an earlier wait).
//
//===----------------------------------------------------------------------===//
#include "racepredict/trace/text_format.h"

#include <string>
#include <unordered_map>

namespace racepredict::trace {

Expected<bool> finishTrace(Trace &t, const std::string &name) {
  // Observed value of each location, to default the read value of an rmw.
  std::unordered_map<SymId, int64_t> current(t.initValues.begin(),
                                             t.initValues.end());
  // Latest notify per cond that can still wake a wait.
  struct Pending {
    EventId ev = kNone;
    bool consumed = false;
  };
  std::unordered_map<SymId, Pending> pending;
  for (EventId i = 0; i < t.events.size(); ++i) {
    Event &e = t.events[i];
    if (e.thread >= t.numThreads() ||
        ((e.kind == EventKind::Fork || e.kind == EventKind::Join) &&
         e.obj >= t.numThreads()))
      return Error{name + ": event " + std::to_string(i) +
                   " names an undefined thread"};
    switch (e.kind) {
    case EventKind::Read:
    case EventKind::AtomicRead:
      current.emplace(e.obj, e.value); // first-read rule
      break;
    case EventKind::Write:
    case EventKind::AtomicWrite:
      current[e.obj] = e.value;
      break;
    case EventKind::AtomicRmw:
      if (e.extra == kNone) {
        auto it = current.find(e.obj);
        if (it == current.end())
          return Error{name + ": event " + std::to_string(i) +
                       ": 'armw' on a location with no known value needs "
                       "its read value (`armw LOC NEW OLD`)"};
        e.extra = static_cast<uint32_t>(t.rmwOld.size());
        t.rmwOld.push_back(it->second);
      }
      current[e.obj] = e.value;
      break;
    case EventKind::Signal:
    case EventKind::Broadcast:
      pending[e.obj] = Pending{i, false};
      break;
    case EventKind::Wait:
      if (e.flags & kEventExplicitMatch) {
        e.flags &= ~kEventExplicitMatch;
        break;
      }
      e.extra = kNone;
      if (auto it = pending.find(e.obj); it != pending.end() &&
                                         it->second.ev != kNone &&
                                         !it->second.consumed) {
        e.extra = it->second.ev;
        if (t.events[it->second.ev].kind == EventKind::Signal)
          it->second.consumed = true;
      }
      break;
    default:
      break;
    }
  }
  return true;
}

} // namespace racepredict::trace
