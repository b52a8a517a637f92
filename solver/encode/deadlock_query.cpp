//===- solver/encode/deadlock_query.cpp - Deadlock candidate constraints --===//
//
// Over the order variables of MaximalEncoding (a node n is in the prefix iff
// O_n < C). Each constraint family is one function, named after the rule of
// docs/semantics.md it encodes; the candidate generator has already decided
// everything that depends only on the positions.
//
#include "racepredict/solver/deadlock_query.h"

#include "racepredict/analysis/deadlock.h"

#include <algorithm>
#include <tuple>

namespace racepredict::solver {

using analysis::DeadlockCandidate;
using analysis::DeadlockMember;
using analysis::kNone;
using trace::EventKind;

namespace {

/// The first node of thread `t`: the first half of its first event if it
/// has two halves, else the event.
OrderVar firstNode(const TraceIndex &idx, const MaximalEncoding &enc,
                   ThreadId t) {
  EventId e = idx.threadEvents(t).front();
  OrderVar h = enc.halfNode(e);
  return h != kNone ? h : enc.eventNode(e);
}

/// Position: the member's thread has executed exactly the nodes before its
/// blocking event (and the first half of a wait or barrier, which is then
/// blocked at its second half); a thread never created has executed none.
F atBlockingEvent(const TraceIndex &idx, MaximalEncoding &enc,
                  FormulaPool &pool, const DeadlockMember &m) {
  ThreadId t = idx.trace().events[m.event].thread;
  if (m.unforked)
    return pool.le(enc.cut(), firstNode(idx, enc, t));
  std::vector<F> conj{pool.le(enc.cut(), enc.eventNode(m.event))};
  OrderVar half = enc.halfNode(m.event);
  EventId prev = idx.poPrev(m.event);
  if (half != kNone)
    conj.push_back(pool.lt(half, enc.cut()));
  else if (prev != kNone)
    conj.push_back(pool.lt(enc.eventNode(prev), enc.cut()));
  return pool.mkAnd(conj);
}

F finishedThread(const TraceIndex &idx, MaximalEncoding &enc, FormulaPool &pool,
                 ThreadId u) {
  const auto &te = idx.threadEvents(u);
  return te.empty() ? pool.top() : pool.lt(enc.eventNode(te.back()), enc.cut());
}

/// The ownership rules: forks the members need done, and for a member
/// waiting for an abandoned lock, one of its possible holders finished.
F ownershipRules(const TraceIndex &idx, MaximalEncoding &enc, FormulaPool &pool,
                 const DeadlockCandidate &c) {
  if (!c.ownership)
    return pool.bottom();
  std::vector<F> conj;
  for (EventId f : c.forksDone)
    conj.push_back(pool.lt(enc.eventNode(f), enc.cut()));
  for (const auto &holders : c.finishedHolders) {
    if (holders.empty())
      continue;
    std::vector<F> any;
    for (ThreadId h : holders)
      any.push_back(finishedThread(idx, enc, pool, h));
    conj.push_back(pool.mkOr(any));
  }
  return pool.mkAnd(conj);
}

/// The hang rule: every thread outside the set has finished, so no post,
/// arrival or notify beyond what the cut holds can ever come.
F everyoneElseFinished(const TraceIndex &idx, MaximalEncoding &enc,
                       FormulaPool &pool, const DeadlockCandidate &c) {
  if (!c.hang)
    return pool.bottom();
  std::vector<char> member(idx.numThreads(), 0);
  for (const auto &m : c.members)
    member[idx.trace().events[m.event].thread] = 1;
  std::vector<F> conj;
  for (ThreadId u = 0; u < idx.numThreads(); ++u)
    if (!member[u])
      conj.push_back(finishedThread(idx, enc, pool, u));
  return pool.mkAnd(conj);
}

/// Implied facts that speed the solver up (as raceQuery's): per thread,
/// the last event a member's executed prefix must follow is before the
/// cut, and the first event that must follow a member's blocking event is
/// after it.
void mustFacts(const TraceIndex &idx, MaximalEncoding &enc, FormulaPool &pool,
               const analysis::MustHappenBefore &mhb, const DeadlockMember &m,
               std::vector<F> *conj) {
  if (m.unforked)
    return;
  EventId prev = idx.poPrev(m.event);
  for (ThreadId u = 0; u < idx.numThreads(); ++u) {
    const auto &te = idx.threadEvents(u);
    uint32_t past = prev == kNone ? 0 : mhb.entry(prev, u);
    if (past > 0)
      conj->push_back(pool.lt(enc.eventNode(te[past - 1]), enc.cut()));
    EventId next = mhb.firstSuccessorIn(u, m.event);
    if (next != kNone)
      conj->push_back(pool.le(enc.cut(), enc.eventNode(next)));
  }
}

} // namespace

F deadlockQuery(const TraceIndex &idx, MaximalEncoding &enc, FormulaPool &pool,
                const DeadlockCandidate &c,
                const analysis::MustHappenBefore *mhb) {
  std::vector<F> conj;
  for (const auto &m : c.members) {
    // A try-acquire never waits (trace::isTryAcquire): no deadlock has a
    // thread blocked there.
    if (!m.unforked && trace::isTryAcquire(idx.trace().events[m.event]))
      return pool.bottom();
    conj.push_back(atBlockingEvent(idx, enc, pool, m));
    if (mhb)
      mustFacts(idx, enc, pool, *mhb, m, &conj);
  }
  // The process has not exited: its exit would end every blocked thread.
  EventId exit = analysis::processExitEvent(idx);
  if (exit != kNone)
    conj.push_back(pool.le(enc.cut(), enc.eventNode(exit)));
  conj.push_back(pool.mkOr({ownershipRules(idx, enc, pool, c),
                            everyoneElseFinished(idx, enc, pool, c)}));
  return pool.mkAnd(conj);
}

std::vector<Step> deadlockPrefix(const MaximalEncoding &enc,
                                 const std::vector<int64_t> &order) {
  // witness() appends its two arguments after the prefix; with no racing
  // pair they are placeholders to drop.
  std::vector<Step> steps = enc.witness(order, kNone, kNone);
  steps.resize(steps.size() - 2);
  return steps;
}

} // namespace racepredict::solver
