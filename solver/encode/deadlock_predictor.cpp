//===- solver/encode/deadlock_predictor.cpp - Candidates → queries --------===//
#include "racepredict/solver/deadlock_predictor.h"

#include "racepredict/analysis/mhb.h"
#include "racepredict/solver/deadlock_query.h"
#include "racepredict/solver/order_solver.h"
#include "racepredict/solver/race_encoding.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

namespace racepredict::solver {

using analysis::DeadlockCandidate;
using analysis::EventId;

namespace {

std::vector<EventId> eventsOf(const DeadlockCandidate &c) {
  std::vector<EventId> out;
  for (const auto &m : c.members)
    out.push_back(m.event);
  return out;
}

DeadlockFinding makeFinding(std::vector<analysis::BlockReason> reasons,
                            std::vector<analysis::Step> steps) {
  DeadlockFinding f;
  std::sort(reasons.begin(), reasons.end(),
            [](const auto &a, const auto &b) { return a.event < b.event; });
  f.blocked = std::move(reasons);
  f.cycle = analysis::waitForCycle(f.blocked);
  f.kind = analysis::deadlockKind(f.blocked);
  f.steps = std::move(steps);
  for (const auto &s : f.steps)
    if (!s.half)
      f.witness.push_back(s.event);
  return f;
}

/// Default report: a finding whose threads all take part in a larger one
/// at the same events (e.g. the cycle without the thread joining it) adds
/// nothing.
void dropContained(std::vector<DeadlockFinding> &fs) {
  std::vector<std::set<EventId>> sets;
  for (const auto &f : fs) {
    std::set<EventId> s;
    for (const auto &b : f.blocked)
      s.insert(b.event);
    sets.push_back(std::move(s));
  }
  std::vector<DeadlockFinding> keep;
  for (size_t i = 0; i < fs.size(); ++i) {
    bool contained = false;
    for (size_t j = 0; j < fs.size() && !contained; ++j)
      contained = j != i && sets[j].size() > sets[i].size() &&
                  std::includes(sets[j].begin(), sets[j].end(), sets[i].begin(),
                                sets[i].end());
    if (!contained)
      keep.push_back(std::move(fs[i]));
  }
  fs = std::move(keep);
}

} // namespace

DeadlockResult predictDeadlocks(const analysis::TraceIndex &idx,
                                const DeadlockOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  DeadlockResult result;
  analysis::MustHappenBefore mhb(idx);
  analysis::DeadlockCandidateOptions co;
  co.filters = !opts.noFilters;
  co.maxCandidates = opts.maxCandidates;
  std::vector<DeadlockCandidate> cands =
      analysis::findDeadlockCandidates(idx, mhb, co, &result.stats.search);
  result.stats.candidates = cands.size();
  if (!cands.empty()) {
    FormulaPool pool;
    MaximalEncoding enc(idx, pool);
    SolverConfig cfg;
    cfg.numOrderVars = enc.numOrderVars();
    cfg.differenceLogicOnly = !pool.hasPb();
    if (!opts.dumpSmt2Dir.empty()) {
      cfg.dumpSmt2Dir = opts.dumpSmt2Dir + "/deadlocks";
      std::filesystem::create_directories(cfg.dumpSmt2Dir);
    }
    auto solver = makeZ3OrderSolver(cfg);
    for (auto &[label, f] : enc.base())
      solver->addBase(pool, f, label);
    CheckLimits limits{opts.timeoutMs, opts.rlimit};
    std::set<std::vector<EventId>> found; // signatures with a finding
    std::set<uint32_t> groupsDone;
    std::map<std::vector<EventId>, std::pair<uint32_t, std::string>> unknown;
    for (const auto &c : cands) {
      std::vector<EventId> sig = eventsOf(c);
      // One candidate per signature suffices (a never-created and a
      // created variant of a first event are the same deadlock).
      if (found.count(sig))
        continue;
      if (!opts.allCycles && (!c.connected || groupsDone.count(c.group)))
        continue;
      ++result.stats.solverCalls;
      CheckResult r =
          solver->check(pool, deadlockQuery(idx, enc, pool, c, &mhb), limits);
      if (r.status == CheckResult::Unsat) {
        ++result.stats.unsat;
        continue;
      }
      std::string why = r.reason;
      std::vector<analysis::Step> steps;
      std::vector<analysis::BlockReason> reasons;
      if (r.status == CheckResult::Sat) {
        steps = deadlockPrefix(enc, r.order);
        if (auto err =
                analysis::checkDeadlockWitness(idx, steps, sig, &reasons))
          why = "internal error: witness failed validation: " + *err;
        else
          why.clear();
      }
      if (!why.empty()) {
        unknown.emplace(sig, std::make_pair(c.group, why));
        continue;
      }
      ++result.stats.sat;
      found.insert(sig);
      groupsDone.insert(c.group);
      result.deadlocks.push_back(
          makeFinding(std::move(reasons), std::move(steps)));
    }
    // An undecided candidate whose signature (all mode) or group (default)
    // has a finding anyway leaves nothing open.
    for (auto &[sig, u] : unknown)
      if (!found.count(sig) && (opts.allCycles || !groupsDone.count(u.first)))
        result.unknowns.emplace_back(sig, u.second);
    result.stats.unknown = result.unknowns.size();
  }
  if (!opts.allCycles)
    dropContained(result.deadlocks);
  std::sort(result.deadlocks.begin(), result.deadlocks.end(),
            [](const DeadlockFinding &a, const DeadlockFinding &b) {
              std::vector<EventId> x, y;
              for (const auto &r : a.blocked)
                x.push_back(r.event);
              for (const auto &r : b.blocked)
                y.push_back(r.event);
              return x < y;
            });
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

} // namespace racepredict::solver
