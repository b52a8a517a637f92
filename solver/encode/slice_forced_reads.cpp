//===- solver/encode/slice_forced_reads.cpp - No writer for a needed read -===//
//
// Unit propagation on the sliced formula of a race, done on the slice's data
// (docs/slicing.md, "Unsatisfiable by propagation", "Before the formula").
// Every witness runs the events of each thread up to what a or b must follow
// (forced_); a branch among them needs K_r of the reads it depends on (its
// precise dependences, or without them every read of the chain A_i below
// readMatter), and K_r implies conc(r), a disjunction of one literal per option
// and an escape. A needed read with no option and no escape makes the formula
// false.
//
// The formula route (impossibleReadForced after the encoding) and the data
// route (noWriterForForcedRead before it) decide the same candidates: both
// take the options from optionWriters and the escape from the slicer. On
// real traces the slices of such candidates hold most of the trace (pigz:
// 166K events, millions of formula nodes), so the data route saves
// building a formula that propagation refutes.
//
#include "racepredict/solver/slice_encoding.h"

#include <algorithm>

namespace racepredict::solver {

using analysis::eventUnit;
using trace::EventKind;

SliceEncoding::ForcedNeeds SliceEncoding::forcedNeeds() const {
  const trace::Trace &t = idx_.trace();
  ForcedNeeds n;
  n.chainBelow.assign(idx_.numThreads(), 0);
  for (ThreadId th = 0; th < idx_.numThreads(); ++th) {
    const auto &te = idx_.threadEvents(th);
    for (uint32_t q = s_.frozen[th] / 2; q < forced_[th]; ++q) {
      const trace::Event &y = t.events[te[q]];
      if (y.kind != EventKind::Branch ||
          status(th, eventUnit(q)) != Status::Free)
        continue;
      if (!t.hasDeps(y)) {
        // The chain at q holds K_r of every read below min(q, readMatter).
        n.chainBelow[th] = std::min(q, s_.readMatter[th]);
        continue;
      }
      auto [d, end] = t.deps(y);
      for (; d != end; ++d)
        if (t.events[*d].thread == th && idx_.posInThread(*d) < q)
          n.deps.insert(*d);
    }
  }
  return n;
}

bool SliceEncoding::ForcedNeeds::needs(const analysis::TraceIndex &idx,
                                       EventId r) const {
  ThreadId th = idx.trace().events[r].thread;
  return idx.posInThread(r) < chainBelow[th] || deps.count(r);
}

bool SliceEncoding::impossibleReadForced() const {
  if (refutedEarly_)
    return true;
  if (forced_.empty() || impossible_.empty())
    return false; // not a race query, or every read has an option
  ForcedNeeds n = forcedNeeds();
  for (EventId r : impossible_)
    if (n.needs(idx_, r))
      return true;
  return false;
}

bool SliceEncoding::noWriterForForcedRead() const {
  if (forced_.empty())
    return false;
  const trace::Trace &t = idx_.trace();
  ForcedNeeds n = forcedNeeds();
  for (ThreadId th = 0; th < idx_.numThreads(); ++th) {
    const auto &te = idx_.threadEvents(th);
    // The reads with a K_r (encodeControlFlow) that a forced branch needs.
    uint32_t end = std::min(chainEnd(th), forced_[th]);
    for (uint32_t p = s_.frozen[th] / 2; p < end; ++p) {
      EventId r = te[p];
      if (!trace::readsValue(t.events[r].kind) || !n.needs(idx_, r) ||
          !s_.matters(idx_, r))
        continue;
      if (optionWriters(r, 1).writers.empty() &&
          slicer_.outsideFeeders(s_, r).empty())
        return true;
    }
  }
  return false;
}

} // namespace racepredict::solver
