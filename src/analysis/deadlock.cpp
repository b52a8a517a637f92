//===- analysis/deadlock.cpp - Deadlock vocabulary and wait-for cycles ----===//
#include "racepredict/analysis/deadlock.h"

#include <algorithm>
#include <set>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

const char *blockKindName(BlockKind k) {
  switch (k) {
  case BlockKind::Lock:
    return "lock";
  case BlockKind::Join:
    return "join";
  case BlockKind::NotCreated:
    return "not-created";
  case BlockKind::Notify:
    return "condition";
  case BlockKind::Semaphore:
    return "semaphore";
  case BlockKind::Barrier:
    return "barrier";
  }
  return "?";
}

bool threadComplete(const TraceIndex &idx, ThreadId t) {
  const auto &te = idx.threadEvents(t);
  const auto &events = idx.trace().events;
  if (!te.empty() && events[te.back()].kind == EventKind::End)
    return true;
  return std::none_of(te.begin(), te.end(), [&](EventId e) {
    return events[e].kind == EventKind::Begin;
  });
}

EventId processExitEvent(const TraceIndex &idx) {
  const auto &events = idx.trace().events;
  if (events.empty() || events.back().kind != EventKind::End)
    return kNone;
  ThreadId t = events.back().thread;
  const auto &te = idx.threadEvents(t);
  bool begun = std::any_of(te.begin(), te.end(), [&](EventId e) {
    return events[e].kind == EventKind::Begin;
  });
  return begun ? static_cast<EventId>(events.size() - 1) : kNone;
}

bool canStayFinished(const TraceIndex &idx, ThreadId t) {
  const auto &te = idx.threadEvents(t);
  EventId exit = processExitEvent(idx);
  return threadComplete(idx, t) &&
         (exit == kNone || te.empty() || te.back() != exit);
}

SymId requestedLock(const Event &ev) {
  return ev.kind == EventKind::Wait ? ev.aux : ev.obj;
}

std::vector<uint32_t>
heldSections(const TraceIndex &idx, ThreadId t, uint32_t pos, bool halfDone,
             const std::vector<uint32_t> *threadSections) {
  std::vector<uint32_t> out;
  const auto &secs = idx.sections();
  std::vector<uint32_t> all;
  if (!threadSections) {
    for (uint32_t s = 0; s < secs.size(); ++s)
      all.push_back(s);
    threadSections = &all;
  }
  for (uint32_t s : *threadSections) {
    const LockSection &ls = secs[s];
    if (ls.thread != t || idx.posInThread(ls.acquire) >= pos)
      continue;
    if (ls.release == kNone) {
      out.push_back(s);
      continue;
    }
    uint32_t rp = idx.posInThread(ls.release);
    // A wait releases at its first half: at the wait, with the half done,
    // the section is closed.
    if (rp > pos || (rp == pos && !(ls.releasedByWait && halfDone)))
      out.push_back(s);
  }
  return out;
}

namespace {

/// The member index that member i waits for, or SIZE_MAX (a root: its wait
/// depends on no member, e.g. a semaphore or an abandoned lock).
size_t waitsFor(const std::vector<BlockReason> &rs, size_t i) {
  const BlockReason &r = rs[i];
  bool edge = (r.kind == BlockKind::Lock && !r.holderFinished) ||
              r.kind == BlockKind::Join || r.kind == BlockKind::NotCreated;
  if (!edge)
    return SIZE_MAX;
  for (size_t j = 0; j < rs.size(); ++j)
    if (rs[j].thread == r.other)
      return j;
  return SIZE_MAX;
}

const char *rootKind(const BlockReason &r) {
  switch (r.kind) {
  case BlockKind::Semaphore:
    return "semaphore";
  case BlockKind::Barrier:
    return "barrier";
  case BlockKind::Notify:
    return "condition";
  case BlockKind::Lock:
    return "abandoned-lock";
  default:
    return "wait";
  }
}

/// Follows wait-for edges from `start`: the cycle it ends in, or empty.
std::vector<size_t> cycleFrom(const std::vector<BlockReason> &rs,
                              size_t start) {
  std::vector<size_t> path;
  size_t at = start;
  while (at != SIZE_MAX) {
    auto it = std::find(path.begin(), path.end(), at);
    if (it != path.end()) {
      std::vector<size_t> cyc(it, path.end());
      std::rotate(cyc.begin(), std::min_element(cyc.begin(), cyc.end()),
                  cyc.end());
      return cyc;
    }
    path.push_back(at);
    at = waitsFor(rs, at);
  }
  return {};
}

} // namespace

std::vector<size_t> waitForCycle(const std::vector<BlockReason> &reasons) {
  std::vector<size_t> best;
  for (size_t i = 0; i < reasons.size(); ++i) {
    auto c = cycleFrom(reasons, i);
    if (!c.empty() && (best.empty() || c < best))
      best = c;
  }
  return best;
}

std::string deadlockKind(const std::vector<BlockReason> &reasons) {
  std::set<std::string> parts;
  for (size_t i = 0; i < reasons.size(); ++i) {
    auto cyc = cycleFrom(reasons, i);
    if (!cyc.empty()) {
      bool locks = std::all_of(cyc.begin(), cyc.end(), [&](size_t m) {
        return reasons[m].kind == BlockKind::Lock;
      });
      parts.insert(locks ? "lock-order" : "wait-cycle");
    } else if (waitsFor(reasons, i) == SIZE_MAX) {
      parts.insert(rootKind(reasons[i]));
    }
  }
  std::string out;
  for (const auto &p : parts)
    out += (out.empty() ? "" : "+") + p;
  return out;
}

} // namespace racepredict::analysis
