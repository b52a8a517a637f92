//===- solver/encode/deadlock_slice.cpp - Ownership candidates, sliced ----===//
//
// deadlockQuery's ownership rules (deadlock_query.cpp) over a slice that
// ends every member's thread just before its blocking event. Program order
// and the slice's cap already put each member's blocking event after the
// cut; what remains is that the member's whole prefix ran (its last unit
// is before the cut), the process's exit did not, and the candidate's
// forks and finished holders.
//
#include "racepredict/solver/deadlock_slice.h"

#include "racepredict/analysis/deadlock.h"
#include "racepredict/solver/slice_encoding.h"

namespace racepredict::solver {

using analysis::DeadlockCandidate;
using analysis::eventUnit;
using analysis::kNone;

namespace {

/// The thread's last event: in the cut iff the thread finished.
EventId lastEvent(const analysis::TraceIndex &idx, ThreadId u) {
  const auto &te = idx.threadEvents(u);
  return te.empty() ? kNone : te.back();
}

void encodeOwnership(const analysis::TraceIndex &idx, SliceEncoding &enc,
                     FormulaPool &pool, const PairSlice &s,
                     const DeadlockCandidate &c) {
  const auto &events = idx.trace().events;
  auto ran = [&](EventId e) {
    return enc.inCut(events[e].thread, eventUnit(idx.posInThread(e)));
  };
  // Every member ran its whole prefix. A never-created member has none
  // (endUnit 0): its fork, which its blocked creator has not reached, is
  // capped and so never in the slice.
  for (ThreadId t = 0; t < idx.numThreads(); ++t)
    if (s.endUnit[t] != kNone && s.endUnit[t] > 0)
      enc.require(enc.inCut(t, s.endUnit[t] - 1));
  // The process has not exited: its exit would end every blocked thread.
  EventId exit = analysis::processExitEvent(idx);
  if (exit != kNone)
    enc.require(
        enc.afterCut(events[exit].thread, eventUnit(idx.posInThread(exit))));
  for (EventId f : c.forksDone)
    enc.require(ran(f));
  for (const auto &holders : c.finishedHolders) {
    if (holders.empty())
      continue;
    std::vector<F> any;
    for (ThreadId h : holders) {
      EventId last = lastEvent(idx, h);
      any.push_back(last == kNone ? pool.top() : ran(last));
    }
    enc.require(pool.mkOr(any));
  }
}

} // namespace

PairVerdict solveDeadlockOnSlice(const analysis::Slicer &slicer,
                                 QuerySolver &solver,
                                 const DeadlockCandidate &c,
                                 const PairSolveOptions &opts,
                                 std::vector<analysis::BlockReason> *reasons) {
  const analysis::TraceIndex &idx = slicer.index();
  std::vector<analysis::BlockedAt> blocked;
  std::vector<EventId> sig, alsoNeed(c.forksDone);
  for (const auto &m : c.members) {
    blocked.push_back({m.event, m.unforked});
    sig.push_back(m.event);
  }
  // A holder that must finish needs its whole thread (if it may be in a
  // witness at all; if not, that holder cannot finish).
  for (const auto &holders : c.finishedHolders)
    for (ThreadId h : holders)
      if (EventId last = lastEvent(idx, h); last != kNone)
        alsoNeed.push_back(last);
  analysis::PairSlice slice;
  if (!slicer.sliceBlocked(blocked, alsoNeed, &slice)) {
    PairVerdict v;
    v.status = CheckResult::Unsat; // a member's prefix must follow another
    return v;
  }
  auto query = [&](SliceEncoding &enc, FormulaPool &pool) {
    encodeOwnership(idx, enc, pool, enc.slice(), c);
  };
  auto check = [&](const std::vector<Step> &sigma) {
    return analysis::checkDeadlockWitness(idx, sigma, sig, reasons);
  };
  return solveSlice(slicer, solver, std::move(slice), query, check, opts);
}

} // namespace racepredict::solver
