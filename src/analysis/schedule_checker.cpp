//===- analysis/schedule_checker.cpp - Replay schedules on trace semantics ===//
#include "racepredict/analysis/schedule_checker.h"

#include "racepredict/analysis/model_state.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::EventKind;

namespace {

std::string describeStep(const trace::Trace &t, size_t i, const Step &s) {
  std::string out = "step " + std::to_string(i) + " (";
  if (s.half)
    out += "first half of ";
  out += "event " + std::to_string(s.event);
  if (s.event < t.events.size()) {
    const trace::Event &e = t.events[s.event];
    out += ", " + t.threadName(e.thread) + " " + trace::opName(e.kind);
    bool has = false;
    trace::objNameSpace(e.kind, &has);
    if (has)
      out += " " + t.objName(e);
  }
  return out + ")";
}

} // namespace

std::optional<std::string> executeSchedule(ModelState &st,
                                           const TraceIndex &idx,
                                           const std::vector<Step> &sigma) {
  for (size_t i = 0; i < sigma.size(); ++i) {
    if (auto why = st.blocked(sigma[i]))
      return describeStep(idx.trace(), i, sigma[i]) + ": " + *why;
    st.apply(sigma[i]);
  }
  return std::nullopt;
}

std::optional<std::string> checkPrefixSchedule(const TraceIndex &idx,
                                               const std::vector<Step> &sigma) {
  ModelState st(idx);
  return executeSchedule(st, idx, sigma);
}

namespace {

std::optional<std::string> notAPair(const TraceIndex &idx, EventId a,
                                    EventId b) {
  const auto &events = idx.trace().events;
  if (a >= events.size() || b >= events.size())
    return "racing event out of range";
  if (events[a].thread == events[b].thread)
    return "racing events " + std::to_string(a) + " and " + std::to_string(b) +
           " belong to the same thread";
  return std::nullopt;
}

} // namespace

std::optional<std::string> raceEnabledAfter(const ModelState &st,
                                            const TraceIndex &idx, EventId a,
                                            EventId b) {
  if (auto err = notAPair(idx, a, b))
    return err;
  const auto &events = idx.trace().events;
  for (EventId e : {a, b}) {
    trace::ThreadId t = events[e].thread;
    if (st.next(t) != e || st.inFirstHalf(t))
      return "after the schedule, event " + std::to_string(e) +
             " is not the next event of " + idx.trace().threadName(t);
    // Next is not enough: the first event of a forked thread needs its fork.
    if (auto why = st.blocked({e, false}))
      return "after the schedule, event " + std::to_string(e) +
             " is not enabled: " + *why;
  }
  return std::nullopt;
}

std::optional<std::string> checkRaceWitness(const TraceIndex &idx,
                                            const std::vector<Step> &sigma,
                                            EventId a, EventId b) {
  if (auto err = notAPair(idx, a, b))
    return err;
  ModelState st(idx);
  if (auto err = executeSchedule(st, idx, sigma))
    return err;
  return raceEnabledAfter(st, idx, a, b);
}

std::optional<std::vector<Step>> expandWitness(const TraceIndex &idx,
                                               const std::vector<EventId> &w) {
  const auto &events = idx.trace().events;
  ModelState st(idx);
  std::vector<Step> out;
  // First halves not yet executed of threads parked at a wait or barrier:
  // inserting one is always enabled, and we insert it only when the next
  // listed event needs it (the latest point), because releasing a lock early
  // can turn another thread's failed trylock into a success.
  auto pending = [&]() {
    std::vector<Step> p;
    for (trace::ThreadId t = 0; t < idx.numThreads(); ++t) {
      EventId n = st.next(t);
      if (n != kNone && hasTwoHalves(events[n].kind) && !st.inFirstHalf(t))
        p.push_back({n, true});
    }
    return p;
  };
  for (EventId e : w) {
    if (e >= events.size())
      return std::nullopt;
    Step s{e, false};
    if (hasTwoHalves(events[e].kind) && st.next(events[e].thread) == e &&
        !st.inFirstHalf(events[e].thread)) {
      // Its own first half, right before it (unless another needs it first).
      if (!st.blocked({e, true})) {
        out.push_back({e, true});
        st.apply({e, true});
      }
    }
    if (st.blocked(s)) {
      bool fixed = false;
      for (const Step &h : pending()) {
        if (st.halfEnables(h, s)) {
          st.apply(h);
          out.push_back(h);
          fixed = true;
          break;
        }
      }
      if (!fixed)
        for (const Step &h : pending()) {
          st.apply(h);
          out.push_back(h);
        }
      if (st.blocked(s))
        return std::nullopt;
    }
    st.apply(s);
    out.push_back(s);
  }
  return out;
}

} // namespace racepredict::analysis
