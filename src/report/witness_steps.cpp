//===- report/witness_steps.cpp - A read witness, checked on the trace ----===//
//
// The one reading of a witness's halves (report/witness_reader.h): its
// "steps" if it has them, else its events with the halves placed by
// analysis::expandWitness plus, for a deadlock, the first half of each
// blocked wait or barrier that expandWitness did not need to place. The
// analyser writes "steps" whenever a half occurs, so what it validated is
// what is checked here; both `check-witness` and `replay` go through this.
//
#include "racepredict/report/witness_reader.h"

#include "racepredict/analysis/model_state.h"

#include <algorithm>

namespace racepredict::report {

using analysis::Step;

namespace {

bool twoHalves(const trace::Trace &t, EventId e) {
  trace::EventKind k = t.events[e].kind;
  return k == trace::EventKind::Wait || k == trace::EventKind::Barrier;
}

/// Every event the witness names is in the trace.
std::optional<std::string> outOfRange(size_t n, const WitnessSpec &w) {
  std::vector<EventId> all = w.witness;
  if (w.steps)
    for (const Step &s : *w.steps)
      all.push_back(s.event);
  for (const WitnessBlock &b : w.blocked)
    all.push_back(b.event);
  all.insert(all.end(), w.violationEvents.begin(), w.violationEvents.end());
  if (w.kind == WitnessKind::Race) {
    all.push_back(w.first);
    all.push_back(w.second);
  }
  for (EventId e : all)
    if (e >= n)
      return "event " + std::to_string(e) + " is not in the trace (" +
             std::to_string(n) +
             " events): is it the witness of another trace?";
  return std::nullopt;
}

/// The steps the witness stands for, before its kind's check.
Expected<std::vector<Step>> scheduleOf(const analysis::TraceIndex &idx,
                                       const WitnessSpec &w, bool pieces) {
  const trace::Trace &t = idx.trace();
  if (w.steps) {
    // One schedule, not two that may disagree.
    std::vector<EventId> events;
    for (const Step &s : *w.steps)
      if (!s.half)
        events.push_back(s.event);
    if (events != w.witness)
      return Error{"\"steps\" and \"witness\" are not the same schedule"};
    for (const Step &s : *w.steps)
      if (s.half && !twoHalves(t, s.event))
        return Error{"step with \"half\" on event " + std::to_string(s.event) +
                     ", which is no wait or barrier"};
    return *w.steps;
  }
  std::vector<EventId> prefix = w.witness;
  if (w.kind == WitnessKind::Race) {
    if (prefix.size() < 2 || prefix[prefix.size() - 2] != w.first ||
        prefix.back() != w.second)
      return Error{"the witness does not end with the racing pair"};
    prefix.resize(prefix.size() - 2);
    // Halves are placed on the recorded locations, which accesses of
    // different sizes do not keep: the analyser writes "steps" when one
    // occurs.
    if (pieces) {
      std::vector<Step> plain;
      for (EventId e : w.witness)
        plain.push_back({e, false});
      return plain;
    }
  }
  auto steps = analysis::expandWitness(idx, prefix);
  if (!steps) {
    // The first step that is invalid whatever the halves.
    std::vector<Step> plain;
    for (EventId e : prefix)
      plain.push_back({e, false});
    auto why = analysis::checkPrefixSchedule(idx, plain);
    return Error{why ? *why
                     : "no placement of wait/barrier halves makes it valid"};
  }
  if (w.kind == WitnessKind::Race) {
    steps->push_back({w.first, false});
    steps->push_back({w.second, false});
  } else if (w.kind == WitnessKind::Deadlock) {
    // A blocked wait or barrier has done its first half; expandWitness
    // has placed it already if a later event needed it.
    analysis::ModelState st(idx);
    for (const Step &s : *steps)
      st.apply(s); // valid: expandWitness checked every step
    for (const WitnessBlock &b : w.blocked)
      if (b.halfDone.value_or(twoHalves(t, b.event)) &&
          !st.firstHalfDone(b.event))
        steps->push_back({b.event, true});
  }
  return *steps;
}

} // namespace

Expected<std::vector<Step>>
witnessSteps(const analysis::TraceIndex &idx, const WitnessSpec &w,
             std::vector<analysis::BlockReason> *reasons,
             const analysis::PieceIndex *pieces) {
  if (auto bad = outOfRange(idx.trace().events.size(), w))
    return Error{*bad};
  for (const WitnessBlock &b : w.blocked)
    if (b.halfDone.value_or(false) && !twoHalves(idx.trace(), b.event))
      return Error{"blocked event " + std::to_string(b.event) +
                   " is no wait or barrier, it has no half to be done"};
  auto steps = scheduleOf(idx, w, pieces != nullptr);
  if (!steps)
    return steps;
  std::optional<std::string> why;
  switch (w.kind) {
  case WitnessKind::Race: {
    if (steps->size() < 2 || !((*steps)[steps->size() - 2] == Step{w.first}) ||
        !(steps->back() == Step{w.second}))
      return Error{"the steps do not end with the racing pair"};
    std::vector<Step> prefix(steps->begin(), steps->end() - 2);
    why = pieces ? analysis::checkRecordedRace(pieces->pieces, pieces->index,
                                               prefix, w.first, w.second)
                 : analysis::checkRaceWitness(idx, prefix, w.first, w.second);
    break;
  }
  case WitnessKind::Deadlock: {
    std::vector<EventId> blocked;
    for (const WitnessBlock &b : w.blocked)
      blocked.push_back(b.event);
    std::vector<analysis::BlockReason> local;
    std::vector<analysis::BlockReason> &rs = reasons ? *reasons : local;
    why = analysis::checkDeadlockWitness(idx, *steps, blocked, &rs);
    // What the file says a thread blocks on must be what the trace
    // semantics says (replay checks exactly that).
    for (size_t i = 0; !why && i < rs.size(); ++i) {
      const WitnessBlock &b = w.blocked[i];
      const analysis::BlockReason &r = rs[i];
      bool lock = r.kind == analysis::BlockKind::Lock;
      if ((b.on && *b.on != r.kind) || (b.on && lock && b.heldSince != r.since))
        return Error{
            "blocked event " + std::to_string(b.event) + " blocks on " +
            analysis::blockKindName(r.kind) +
            (lock ? " (held since event " + std::to_string(r.since) + ")"
                  : std::string()) +
            " after the witness, not as the file says"};
    }
    break;
  }
  case WitnessKind::Violation: {
    // The violating events, in order, the last one ending the schedule.
    size_t pos = 0;
    for (EventId e : w.violationEvents) {
      auto it = std::find(w.witness.begin() + pos, w.witness.end(), e);
      if (it == w.witness.end())
        return Error{"event " + std::to_string(e) +
                     " is not in the witness after the previous step"};
      pos = static_cast<size_t>(it - w.witness.begin()) + 1;
    }
    if (steps->empty() || !(steps->back() == Step{w.violationEvents.back()}))
      return Error{"the steps do not end with the last violating event"};
    why = analysis::checkPrefixSchedule(idx, *steps);
    break;
  }
  }
  if (why)
    return Error{*why};
  return steps;
}

} // namespace racepredict::report
