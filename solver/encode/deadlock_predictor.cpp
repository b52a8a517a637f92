//===- solver/encode/deadlock_predictor.cpp - Candidates → queries --------===//
//
// Ownership candidates are decided on their slices (deadlock_slice.h),
// hang candidates (and everything under --whole-trace) on one whole-trace
// formula shared by their queries.
//
#include "racepredict/solver/deadlock_predictor.h"

#include "racepredict/analysis/mhb.h"
#include "racepredict/solver/deadlock_query.h"
#include "racepredict/solver/deadlock_slice.h"
#include "racepredict/solver/order_solver.h"
#include "racepredict/solver/race_encoding.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
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

/// The whole-trace formula of issue 6, built when a candidate first needs
/// it (hang candidates, --whole-trace).
struct WholeTrace {
  FormulaPool pool;
  std::unique_ptr<MaximalEncoding> enc;
  std::unique_ptr<OrderSolver> solver;

  WholeTrace(const analysis::TraceIndex &idx, const DeadlockOptions &opts) {
    enc = std::make_unique<MaximalEncoding>(idx, pool);
    SolverConfig cfg;
    cfg.numOrderVars = enc->numOrderVars();
    cfg.differenceLogicOnly = !pool.hasPb();
    if (!opts.dumpSmt2Dir.empty()) {
      cfg.dumpSmt2Dir = opts.dumpSmt2Dir + "/deadlocks";
      std::filesystem::create_directories(cfg.dumpSmt2Dir);
    }
    solver = makeZ3OrderSolver(cfg);
    for (auto &[label, f] : enc->base())
      solver->addBase(pool, f, label);
  }
};

} // namespace

DeadlockResult predictDeadlocks(const analysis::TraceIndex &idx,
                                const DeadlockOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  DeadlockResult result;
  std::optional<analysis::MustHappenBefore> ownOrder;
  const analysis::MustHappenBefore &mhb =
      opts.order ? *opts.order : ownOrder.emplace(idx);
  analysis::DeadlockCandidateOptions co;
  co.filters = !opts.noFilters;
  co.maxCandidates = opts.maxCandidates;
  co.defaultReport = !opts.allCycles;
  // Candidates are built as they are taken: a group with a deadlock stops
  // its enumeration (skipGroup), so the default report of a loop over the
  // same locks costs its first feasible instance, not every combination.
  analysis::DeadlockCandidateStream cands(idx, mhb, co, &result.stats.search);
  std::unique_ptr<WholeTrace> whole;
  analysis::SliceOptions so;
  so.eager = !opts.lazySlices;
  analysis::Slicer slicer(idx, mhb, so);
  std::unique_ptr<QuerySolver> sliced;
  PairSolveOptions po;
  po.timeoutMs = opts.timeoutMs;
  po.rlimit = opts.rlimit;
  if (opts.budgetSeconds > 0)
    po.deadline =
        start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(opts.budgetSeconds));
  CheckLimits limits{opts.timeoutMs, opts.rlimit};
  std::set<std::vector<EventId>> found; // signatures with a finding
  std::set<uint32_t> groupsDone;
  std::map<std::vector<EventId>, std::pair<uint32_t, std::string>> unknown;
  DecisionCounter progress(opts.onProgress, 0);
  DeadlockCandidate c;
  while (cands.next(c)) {
    ++result.stats.candidates;
    std::vector<EventId> sig = eventsOf(c);
    // One candidate per signature suffices (a never-created and a created
    // variant of a first event are the same deadlock).
    if (found.count(sig))
      continue;
    progress.added(1);
    ++result.stats.solverCalls;
    CheckResult::Status status = CheckResult::Unknown;
    std::string why;
    std::vector<analysis::Step> steps;
    std::vector<analysis::BlockReason> reasons;
    // Past the budget, what is left is listed as undecided, not solved.
    bool decided = std::chrono::steady_clock::now() >= po.deadline;
    if (decided)
      why = "trace budget exhausted";
    // Ownership rules depend on the members' positions only: their slice
    // decides them (deadlock_slice.h). Hangs need every other thread.
    if (!decided && !opts.wholeTrace && c.ownership) {
      if (!sliced) {
        std::string dir;
        if (!opts.dumpSmt2Dir.empty()) {
          dir = opts.dumpSmt2Dir + "/deadlock-slices";
          std::filesystem::create_directories(dir);
        }
        sliced = makeZ3QuerySolver(dir);
      }
      ++result.stats.slicedCalls;
      PairVerdict v = solveDeadlockOnSlice(slicer, *sliced, c, po, &reasons);
      result.stats.sliceUnits += v.sliceUnits;
      result.stats.sliceExpansions += v.expansions;
      status = v.status;
      why = v.reason;
      steps = std::move(v.steps);
      // Unsat for the ownership rules leaves the hang rule of a candidate
      // that has both: the whole-trace query decides the disjunction.
      decided = !(status == CheckResult::Unsat && c.hang);
    }
    if (!decided) {
      if (!whole)
        whole = std::make_unique<WholeTrace>(idx, opts);
      CheckResult r = whole->solver->check(
          whole->pool, deadlockQuery(idx, *whole->enc, whole->pool, c, &mhb),
          limits);
      status = r.status;
      why = r.reason;
      if (r.status == CheckResult::Sat) {
        steps = deadlockPrefix(*whole->enc, r.order);
        if (auto err =
                analysis::checkDeadlockWitness(idx, steps, sig, &reasons)) {
          status = CheckResult::Unknown;
          why = "internal error: witness failed validation: " + *err;
        }
      }
    }
    progress.decided(status == CheckResult::Unknown);
    if (status == CheckResult::Unsat) {
      ++result.stats.unsat;
      continue;
    }
    if (status != CheckResult::Sat) {
      unknown.emplace(sig, std::make_pair(c.group, why));
      continue;
    }
    ++result.stats.sat;
    found.insert(sig);
    groupsDone.insert(c.group);
    if (!opts.allCycles)
      cands.skipGroup(c.group);
    result.deadlocks.push_back(
        makeFinding(std::move(reasons), std::move(steps)));
  }
  // An undecided candidate whose signature (all mode) or group (default)
  // has a finding anyway leaves nothing open.
  for (auto &[sig, u] : unknown)
    if (!found.count(sig) && (opts.allCycles || !groupsDone.count(u.first)))
      result.unknowns.emplace_back(sig, u.second);
  result.stats.unknown = result.unknowns.size();
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
