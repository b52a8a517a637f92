//===- solver/encode/deadlock_predictor.cpp - Lock cycles → queries -------===//
#include "racepredict/solver/deadlock_predictor.h"

#include "racepredict/analysis/mhb.h"
#include "racepredict/solver/order_solver.h"
#include "racepredict/solver/race_encoding.h"

#include <chrono>

namespace racepredict::solver {

using analysis::EventId;
using analysis::kNone;

namespace {

/// deadlock(cycle): every request is after the cut and its program-order
/// predecessor before it, so after the prefix each request is next. Its
/// thread's held section is then open (its release follows the request),
/// so each request is blocked by the next thread's hold, for good.
F deadlockQuery(const analysis::TraceIndex &idx, MaximalEncoding &enc,
                FormulaPool &pool, const analysis::LockCycle &c) {
  std::vector<F> conj;
  for (const auto &r : c.requests) {
    conj.push_back(pool.le(enc.cut(), enc.eventNode(r.request)));
    EventId p = idx.poPrev(r.request);
    if (p == kNone)
      p = idx.forkOf(idx.trace().events[r.request].thread);
    if (p != kNone)
      conj.push_back(pool.lt(enc.eventNode(p), enc.cut()));
  }
  return pool.mkAnd(conj);
}

} // namespace

DeadlockResult predictDeadlocks(const analysis::TraceIndex &idx,
                                const DeadlockOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  DeadlockResult result;
  analysis::MustHappenBefore mhb(idx);
  analysis::LockCycleOptions co;
  co.filters = !opts.noFilters;
  co.maxCycles = opts.maxCycles;
  std::vector<analysis::LockCycle> cycles =
      analysis::findLockCycles(idx, mhb, co, &result.stats.cycles);
  result.stats.candidates = cycles.size();
  if (!cycles.empty()) {
    FormulaPool pool;
    MaximalEncoding enc(idx, pool);
    SolverConfig cfg;
    cfg.numOrderVars = enc.numOrderVars();
    cfg.differenceLogicOnly = !pool.hasPb();
    auto solver = makeZ3OrderSolver(cfg);
    for (auto &[label, f] : enc.base())
      solver->addBase(pool, f, label);
    CheckLimits limits{opts.timeoutMs, opts.rlimit};
    std::vector<char> groupDone;
    for (const auto &c : cycles) {
      if (groupDone.size() <= c.group)
        groupDone.resize(c.group + 1, 0);
      if (groupDone[c.group] && !opts.allCycles)
        continue;
      std::vector<EventId> reqs;
      for (const auto &r : c.requests)
        reqs.push_back(r.request);
      ++result.stats.solverCalls;
      CheckResult r =
          solver->check(pool, deadlockQuery(idx, enc, pool, c), limits);
      if (r.status == CheckResult::Unsat) {
        ++result.stats.unsat;
        continue;
      }
      std::string why = r.reason;
      std::vector<analysis::Step> steps;
      if (r.status == CheckResult::Sat) {
        // witness() appends its two arguments; the requests are after the
        // cut, so they are exactly the two appended steps.
        steps = enc.witness(r.order, reqs[0], reqs[1]);
        steps.resize(steps.size() - 2);
        if (auto err = analysis::checkDeadlockWitness(idx, steps, reqs))
          why = "internal error: witness failed validation: " + *err;
        else
          why.clear();
      }
      if (!why.empty()) {
        ++result.stats.unknown;
        result.unknowns.emplace_back(reqs, why);
        continue;
      }
      ++result.stats.sat;
      groupDone[c.group] = 1;
      DeadlockFinding f{c.requests, {}, steps};
      for (const auto &s : steps)
        if (!s.half)
          f.witness.push_back(s.event);
      result.deadlocks.push_back(std::move(f));
    }
  }
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

} // namespace racepredict::solver
