//===- solver/encode/race_predictor.cpp - Candidates → queries → witnesses ===//
#include "racepredict/solver/race_predictor.h"

#include "racepredict/analysis/candidates.h"
#include "racepredict/analysis/closure_witness.h"
#include "racepredict/analysis/mhb.h"
#include "racepredict/solver/order_solver.h"
#include "racepredict/solver/pair_solver.h"
#include "racepredict/solver/race_encoding.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace racepredict::solver {

using analysis::Candidate;

namespace {

/// Candidates are dealt to a fixed number of shards by signature group, and
/// each shard is solved start to finish by one fresh solver. The sequence of
/// queries a solver sees therefore does not depend on -j, and neither do
/// its models: the output is identical for every number of workers.
constexpr size_t kShards = 16;

struct Outcome {
  CheckResult::Status status = CheckResult::Unknown;
  bool skipped = true; ///< not queried: its group already has a race
  bool fast = false;   ///< settled by a closure witness, without the solver
  std::vector<Step> steps;
  std::string reason;
  size_t checks = 0, expansions = 0, units = 0, vars = 0;
};

} // namespace

RaceResult predictRaces(const analysis::TraceIndex &idx,
                        const RaceOptions &opts) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  RaceResult result;
  result.stats.events = idx.trace().events.size();

  analysis::MustHappenBefore mhb(idx);
  analysis::CandidateStats cs;
  std::vector<Candidate> cands =
      analysis::findCandidates(idx, mhb, !opts.noFilters, &cs);
  result.stats.conflictingPairs = cs.conflicting;
  result.stats.filteredMhb = cs.filteredMhb;
  result.stats.filteredLockset = cs.filteredLockset;
  result.stats.candidates = cands.size();
  result.stats.filterSeconds = since(start);

  if (!cands.empty() && !opts.candidatesOnly) {
    std::vector<std::vector<size_t>> shards(kShards);
    for (size_t i = 0; i < cands.size(); ++i)
      shards[cands[i].group % kShards].push_back(i);
    unsigned jobs = std::max(1u, std::min<unsigned>(opts.jobs, kShards));
    // Runs `body(shard)` for every shard on `jobs` threads. Each shard is
    // handled start to finish by one thread, in candidate order, so results
    // never depend on -j.
    auto forEachShard = [&](const std::function<void(size_t)> &body) {
      std::atomic<size_t> next{0};
      auto work = [&]() {
        for (size_t s; (s = next++) < kShards;)
          body(s);
      };
      std::vector<std::thread> workers;
      for (unsigned j = 1; j < jobs; ++j)
        workers.emplace_back(work);
      work();
      for (auto &w : workers)
        w.join();
    };

    std::vector<Outcome> outcomes(cands.size());
    uint32_t numGroups = 0;
    for (const Candidate &c : cands)
      numGroups = std::max(numGroups, c.group + 1);
    // Distinct shards own distinct groups, so workers never share an entry.
    std::vector<char> groupDone(numGroups, 0);
    // Stage 1: observed-order closure witnesses (no solver).
    auto fastStart = Clock::now();
    if (!opts.noFastPath) {
      analysis::ClosureWitnessFinder closure(idx);
      forEachShard([&](size_t s) {
        for (size_t i : shards[s]) {
          uint32_t g = cands[i].group;
          if (groupDone[g] && !opts.allPairs)
            continue;
          if (auto w = closure.find(cands[i].first, cands[i].second)) {
            Outcome &o = outcomes[i];
            o.skipped = false;
            o.fast = true;
            o.status = CheckResult::Sat;
            o.steps = std::move(*w);
            groupDone[g] = 1;
          }
        }
      });
    }
    result.stats.fastSeconds = since(fastStart);

    // Stage 2: the maximal encoding decides everything else, per candidate
    // on its slice (docs/slicing.md) or on the one whole-trace formula.
    auto encodeStart = Clock::now();
    Clock::time_point deadline = Clock::time_point::max();
    if (opts.budgetSeconds > 0)
      deadline = start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(opts.budgetSeconds));
    auto pending = [&](size_t i) {
      return !outcomes[i].fast && (opts.allPairs || !groupDone[cands[i].group]);
    };
    if (opts.wholeTrace) {
      FormulaPool pool;
      MaximalEncoding enc(idx, pool);
      std::vector<F> queries(cands.size());
      for (size_t i = 0; i < cands.size(); ++i)
        if (pending(i))
          queries[i] = enc.raceQuery(cands[i].first, cands[i].second, mhb);
      // The pool is read-only from here on: workers share it.
      SolverConfig cfg;
      cfg.numOrderVars = enc.numOrderVars();
      cfg.differenceLogicOnly = !pool.hasPb();
      cfg.dumpSmt2Dir = opts.dumpSmt2Dir;
      CheckLimits limits{opts.timeoutMs, opts.rlimit};
      result.stats.encodeSeconds = since(encodeStart);
      forEachShard([&](size_t s) {
        std::unique_ptr<OrderSolver> solver;
        for (size_t i : shards[s]) {
          uint32_t g = cands[i].group;
          if (!pending(i))
            continue;
          Outcome &o = outcomes[i];
          o.skipped = false;
          if (Clock::now() >= deadline) {
            o.reason = "trace budget exhausted";
            continue;
          }
          if (!solver) {
            solver = makeZ3OrderSolver(cfg);
            for (auto &[label, f] : enc.base())
              solver->addBase(pool, f, label);
          }
          CheckResult r = solver->check(pool, queries[i], limits);
          o.status = r.status;
          o.reason = r.reason;
          if (r.status != CheckResult::Sat)
            continue;
          o.steps = enc.witness(r.order, cands[i].first, cands[i].second);
          if (auto err = analysis::checkRaceWitness(
                  idx, {o.steps.begin(), o.steps.end() - 2}, cands[i].first,
                  cands[i].second)) {
            // Never trust a model blindly: an invalid witness is our bug.
            o.status = CheckResult::Unknown;
            o.reason = "internal error: witness failed validation: " + *err;
            continue;
          }
          groupDone[g] = 1;
        }
      });
    } else {
      analysis::SliceOptions so;
      so.eager = !opts.lazySlices;
      analysis::Slicer slicer(idx, mhb, so);
      PairSolveOptions po;
      po.timeoutMs = opts.timeoutMs;
      po.rlimit = opts.rlimit;
      po.eagerLocks = opts.eagerLockPairs;
      po.deadline = deadline;
      forEachShard([&](size_t s) {
        // One backend context per shard, so that the queries it sees (and
        // its models) do not depend on -j.
        std::unique_ptr<QuerySolver> solver;
        for (size_t i : shards[s]) {
          uint32_t g = cands[i].group;
          if (!pending(i))
            continue;
          Outcome &o = outcomes[i];
          o.skipped = false;
          if (Clock::now() >= deadline) {
            o.reason = "trace budget exhausted";
            continue;
          }
          if (!solver)
            solver = makeZ3QuerySolver(opts.dumpSmt2Dir);
          PairVerdict v =
              solvePair(slicer, *solver, cands[i].first, cands[i].second, po);
          o.status = v.status;
          o.reason = v.reason;
          o.checks = v.checks;
          o.expansions = v.expansions;
          o.units = v.sliceUnits;
          o.vars = v.orderVars;
          if (v.status == CheckResult::Sat) {
            o.steps = std::move(v.steps);
            groupDone[g] = 1;
          }
        }
      });
    }
    result.stats.solveSeconds = since(encodeStart) - result.stats.encodeSeconds;

    for (size_t i = 0; i < cands.size(); ++i) {
      const Outcome &o = outcomes[i];
      if (o.skipped)
        continue;
      if (o.fast)
        ++result.stats.closureWitnesses;
      else
        ++result.stats.solverCalls;
      result.stats.solverChecks += o.checks;
      result.stats.sliceExpansions += o.expansions;
      result.stats.maxSliceUnits =
          std::max(result.stats.maxSliceUnits, o.units);
      result.stats.maxOrderVars = std::max(result.stats.maxOrderVars, o.vars);
      if (o.status == CheckResult::Sat) {
        ++result.stats.sat;
        RaceFinding f{cands[i].first, cands[i].second, {}, o.steps};
        for (const Step &st : o.steps)
          if (!st.half)
            f.witness.push_back(st.event);
        result.races.push_back(std::move(f));
      } else if (o.status == CheckResult::Unsat) {
        ++result.stats.unsat;
      } else {
        ++result.stats.unknown;
        result.unknowns.push_back({cands[i].first, cands[i].second, o.reason});
      }
    }
  }
  result.stats.seconds = since(start);
  return result;
}

} // namespace racepredict::solver
