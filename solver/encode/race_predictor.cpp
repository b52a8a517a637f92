//===- solver/encode/race_predictor.cpp - Candidates → queries → witnesses ===//
//
// Default (one race per signature group): the nearest candidates of each
// group, then, only if none of them races, every candidate of the group
// (analysis/candidate_groups.h), each decided by the closure fast path or
// on its slice (pair_solver.h). --all-pairs and --whole-trace enumerate
// every candidate up front, as issue 3 did.
//
#include "racepredict/solver/race_predictor.h"

#include "racepredict/analysis/candidate_groups.h"
#include "racepredict/analysis/candidates.h"
#include "racepredict/analysis/closure_witness.h"
#include "racepredict/analysis/forced_writers.h"
#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/witness_reuse.h"
#include "racepredict/solver/order_solver.h"
#include "racepredict/solver/pair_solver.h"
#include "racepredict/solver/race_encoding.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace racepredict::solver {

using analysis::Candidate;
using Clock = std::chrono::steady_clock;

namespace {

/// Candidates are dealt to a fixed number of shards by signature group, and
/// each shard is solved start to finish by one backend context. The
/// sequence of queries a context sees therefore does not depend on -j, and
/// neither do its models: the output is identical for every number of
/// workers (unless a time limit cuts it).
constexpr size_t kShards = 16;

/// Witnesses a shard remembers for reuse (--all-pairs): the newest ones;
/// the next candidates in a shard are mostly near the last ones.
constexpr size_t kReusedWitnesses = 8;

const char *const kBudget = "trace budget exhausted";

/// Which stages one call of Decider::decide runs. --all-pairs decides a
/// shard in passes (issue 17, `mixed`): every candidate first by the
/// stages before the formula, then the ones left by a query restricted to
/// the events just before the pair (solveRestricted: only its "race" is an
/// answer), then the rest by the full query. A slow satisfiable query then
/// no longer spends the trace budget that the cheaper verdicts of the
/// candidates after it needed; each verdict is the same.
enum class Pass { All, BeforeFormula, Restricted, Formula };

/// A restricted query's time-out (at most the per-query one): on `mixed`
/// 10K those that are sat take 0.1–1.5 s (bench/RESULTS.md); a longer one
/// would spend the budget the full queries need.
constexpr unsigned kRestrictedTimeoutMs = 2000;

struct Outcome {
  EventId first, second;
  CheckResult::Status status = CheckResult::Unknown;
  bool fast = false;       ///< settled by a closure witness, without the solver
  bool reused = false;     ///< fast: cut from an earlier witness
  bool searched = false;   ///< fast: the greedy schedule on the slice
  bool repaired = false;   ///< searched: after a repair of a stuck run
  bool restricted = false; ///< by the restricted query (Pass::Restricted)
  bool propagated = false; ///< unsat without a solver check
  analysis::WitnessSchedule steps;
  std::string reason;
  size_t checks = 0, expansions = 0, units = 0, vars = 0;
};

/// Everything a worker needs to decide one candidate.
class Decider {
public:
  Decider(const analysis::TraceIndex &idx,
          const analysis::MustHappenBefore &mhb, const RaceOptions &opts,
          Clock::time_point deadline)
      : idx_(idx), mhb_(mhb), opts_(opts), deadline_(deadline) {
    if (!opts.noFastPath && !opts.window) {
      closure_ = std::make_unique<analysis::ClosureWitnessFinder>(
          idx, opts.allPairs ? opts.observedCheckpoints : 0);
      refuter_ = std::make_unique<analysis::ForcedWriterRefuter>(idx);
    }
    po_.timeoutMs = opts.timeoutMs;
    po_.rlimit = opts.rlimit;
    po_.eagerLocks = opts.eagerLockPairs;
    po_.greedy = !opts.noFastPath && !opts.window;
    po_.deadline = deadline;
  }

  /// The whole-trace formula and its queries, built before the workers
  /// start (the pool is then read-only and shared).
  void prepareWholeTrace(const std::vector<Candidate> &cands,
                         const std::vector<char> &wanted) {
    pool_ = std::make_unique<FormulaPool>();
    enc_ = std::make_unique<MaximalEncoding>(idx_, *pool_);
    queries_.assign(cands.size(), 0);
    for (size_t i = 0; i < cands.size(); ++i)
      if (wanted[i])
        queries_[i] = enc_->raceQuery(cands[i].first, cands[i].second, mhb_);
    cfg_.numOrderVars = enc_->numOrderVars();
    cfg_.differenceLogicOnly = !pool_->hasPb();
    cfg_.dumpSmt2Dir = opts_.dumpSmt2Dir;
  }

  /// Per-shard state: one backend context, created on first use.
  struct Shard {
    std::unique_ptr<OrderSolver> whole;
    std::unique_ptr<QuerySolver> sliced;
    std::unique_ptr<analysis::WitnessPool> witnesses; ///< --all-pairs
    size_t restrictedQueries = 0; ///< Pass::Restricted: slices queried
  };

  /// Whether there are stages before the formula (Pass::BeforeFormula).
  bool fastStages() const { return closure_ != nullptr; }

  /// `i`: the candidate's index for the whole-trace queries. A pair that
  /// Pass::BeforeFormula leaves open has reason kFormulaDeferred.
  Outcome decide(Shard &sh, EventId a, EventId b, size_t i,
                 Pass pass = Pass::All) const {
    if (closure_ && opts_.allPairs && !sh.witnesses)
      sh.witnesses =
          std::make_unique<analysis::WitnessPool>(idx_, kReusedWitnesses);
    if (sh.witnesses)
      if (auto w = sh.witnesses->find(a, b)) {
        Outcome o;
        o.first = a;
        o.second = b;
        o.status = CheckResult::Sat;
        o.fast = o.reused = true;
        o.steps = std::move(*w);
        return o;
      }
    Outcome o = decideAlone(sh, a, b, i, pass);
    if (sh.witnesses && o.status == CheckResult::Sat)
      sh.witnesses->add(o.steps);
    return o;
  }

private:
  /// The fast path, then the whole-trace formula or the slice. The formula
  /// pass skips the stages the first pass ran (their answers would repeat).
  Outcome decideAlone(Shard &sh, EventId a, EventId b, size_t i,
                      Pass pass) const {
    Outcome o;
    o.first = a;
    o.second = b;
    if (Clock::now() >= deadline_) {
      o.reason = kBudget;
      return o;
    }
    auto fast = [&](std::optional<analysis::WitnessSchedule> w) {
      if (w) {
        o.status = CheckResult::Sat;
        o.fast = true;
        o.steps = std::move(*w);
      }
      return w.has_value();
    };
    // The formula pass skips these: the first pass ran them. A refuted
    // pair has no witness: the refutation goes before the closure from
    // event 0, whose failure costs the whole prefix.
    bool before = pass == Pass::All || pass == Pass::BeforeFormula;
    if (before && closure_ && fast(closure_->findFromCheckpoint(a, b)))
      return o;
    if (before && refuter_ && refuter_->refutes(a, b)) {
      o.status = CheckResult::Unsat;
      o.propagated = true;
      return o;
    }
    if (before && closure_ && fast(closure_->findFromStart(a, b)))
      return o;
    if (enc_) {
      if (!sh.whole) {
        sh.whole = makeZ3OrderSolver(cfg_);
        for (auto &[label, f] : enc_->base())
          sh.whole->addBase(*pool_, f, label);
      }
      CheckResult r = sh.whole->check(
          *pool_, queries_[i], CheckLimits{opts_.timeoutMs, opts_.rlimit});
      o.status = r.status;
      o.reason = r.reason;
      if (r.status == CheckResult::Sat) {
        std::vector<Step> steps = enc_->witness(r.order, a, b);
        if (auto err = analysis::checkRaceWitness(
                idx_, {steps.begin(), steps.end() - 2}, a, b)) {
          // Never trust a model blindly: an invalid witness is our bug.
          o.status = CheckResult::Unknown;
          o.reason = "internal error: witness failed validation: " + *err;
        }
        o.steps = analysis::WitnessSchedule(std::move(steps));
      }
      return o;
    }
    analysis::SliceOptions so;
    so.eager = !opts_.lazySlices;
    if (opts_.window) {
      so.windowBegin = a / opts_.window * opts_.window;
      so.windowEnd = so.windowBegin + opts_.window;
    }
    analysis::Slicer slicer(idx_, mhb_, so);
    if (!sh.sliced && pass != Pass::BeforeFormula)
      sh.sliced = makeZ3QuerySolver(opts_.dumpSmt2Dir);
    PairSolveOptions po = po_;
    po.greedy &= pass == Pass::All || pass == Pass::BeforeFormula;
    PairVerdict v;
    if (pass == Pass::Restricted) {
      po.timeoutMs = po.timeoutMs ? std::min(po.timeoutMs, kRestrictedTimeoutMs)
                                  : kRestrictedTimeoutMs;
      v = solveRestricted(slicer, *sh.sliced, a, b, opts_.restrictedBack, po);
      sh.restrictedQueries += v.sliceUnits > 0;
    } else {
      v = solvePair(slicer,
                    pass == Pass::BeforeFormula ? nullptr : sh.sliced.get(), a,
                    b, po);
    }
    o.status = v.status;
    o.reason = v.reason;
    o.checks = v.checks;
    o.expansions = v.expansions;
    o.units = v.sliceUnits;
    o.vars = v.orderVars;
    o.propagated = v.propagated;
    o.fast = o.searched = v.searched;
    o.repaired = v.repaired;
    o.restricted = v.restricted;
    if (v.status == CheckResult::Sat)
      o.steps = analysis::WitnessSchedule(std::move(v.steps));
    return o;
  }

  const analysis::TraceIndex &idx_;
  const analysis::MustHappenBefore &mhb_;
  const RaceOptions &opts_;
  Clock::time_point deadline_;
  std::unique_ptr<analysis::ClosureWitnessFinder> closure_;
  std::unique_ptr<analysis::ForcedWriterRefuter> refuter_;
  PairSolveOptions po_;
  std::unique_ptr<FormulaPool> pool_;
  std::unique_ptr<MaximalEncoding> enc_;
  std::vector<F> queries_;
  SolverConfig cfg_;
};

/// Runs `body(shard)` for every shard on `jobs` threads. Each shard is
/// handled start to finish by one thread, in order, so results never
/// depend on -j.
void forEachShard(unsigned jobs, const std::function<void(size_t)> &body) {
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
}

} // namespace

RaceResult predictRaces(const analysis::TraceIndex &idx,
                        const RaceOptions &opts) {
  auto start = Clock::now();
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  RaceResult result;
  result.stats.events = idx.trace().events.size();

  std::optional<analysis::MustHappenBefore> ownOrder;
  const analysis::MustHappenBefore &mhb =
      opts.order ? *opts.order : ownOrder.emplace(idx);
  result.stats.mhbPasses = mhb.stats().passes;
  result.stats.mhbSeconds = mhb.stats().seconds;
  // Grouped (default): nearest candidates per signature group, the rest of
  // a group only when needed. Otherwise every candidate up front.
  bool grouped = !opts.allPairs && !opts.wholeTrace;
  std::vector<Candidate> cands;
  std::vector<analysis::CandidateGroup> groups;
  analysis::CandidateOptions co;
  co.filters = !opts.noFilters;
  co.window = opts.window;
  co.keepPerGroup = std::max<size_t>(1, opts.keepPerGroup);
  if (grouped) {
    analysis::GroupedCandidates gc =
        analysis::findCandidateGroups(idx, mhb, co);
    cands = std::move(gc.pairs);
    groups = std::move(gc.groups);
    result.stats.conflictingPairs = gc.stats.conflicting;
    result.stats.filteredMhb = gc.stats.filteredMhb;
    result.stats.filteredLockset = gc.stats.filteredLockset;
  } else {
    analysis::CandidateStats cs;
    cands = analysis::findCandidates(idx, mhb, !opts.noFilters, &cs);
    if (opts.window)
      cands.erase(std::remove_if(cands.begin(), cands.end(),
                                 [&](const Candidate &c) {
                                   return c.first / opts.window !=
                                          c.second / opts.window;
                                 }),
                  cands.end());
    result.stats.conflictingPairs = cs.conflicting;
    result.stats.filteredMhb = cs.filteredMhb;
    result.stats.filteredLockset = cs.filteredLockset;
  }
  result.stats.candidates = cands.size();
  result.stats.filterSeconds = since(start);
  if (cands.empty() || opts.candidatesOnly) {
    result.stats.seconds = since(start);
    return result;
  }

  uint32_t numGroups = grouped ? static_cast<uint32_t>(groups.size()) : 0;
  for (const Candidate &c : cands)
    numGroups = std::max(numGroups, c.group + 1);
  std::vector<std::vector<size_t>> shards(kShards);
  for (size_t i = 0; i < cands.size(); ++i)
    shards[cands[i].group % kShards].push_back(i);
  unsigned jobs = std::max(1u, std::min<unsigned>(opts.jobs, kShards));

  Clock::time_point deadline = Clock::time_point::max();
  if (opts.budgetSeconds > 0)
    deadline = start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(opts.budgetSeconds));
  auto solveStart = Clock::now();
  Decider decider(idx, mhb, opts, deadline);
  if (opts.wholeTrace)
    decider.prepareWholeTrace(cands, std::vector<char>(cands.size(), 1));
  result.stats.encodeSeconds = since(solveStart);

  DecisionCounter progress(opts.onProgress, cands.size());
  auto decide = [&](Decider::Shard &sh, EventId a, EventId b, size_t i,
                    Pass pass = Pass::All) {
    Outcome o = decider.decide(sh, a, b, i, pass);
    if (o.reason != kFormulaDeferred)
      progress.decided(o.status == CheckResult::Unknown);
    return o;
  };
  bool twoPasses = opts.allPairs && !opts.wholeTrace && decider.fastStages();
  // Phase 2 needs the accesses per signature: built once, on first need.
  std::once_flag sigsOnce;
  std::unique_ptr<analysis::SignatureIndex> sigs;
  std::vector<std::vector<Outcome>> decided(kShards);
  // Two passes: a shard's state (witness pool, solver) lives across both,
  // and every shard ends the first before any starts the second.
  std::vector<Decider::Shard> state(kShards);
  std::vector<std::vector<size_t>> later(kShards); // left for the formula
  forEachShard(jobs, [&](size_t s) {
    Decider::Shard &sh = state[s];
    std::vector<Outcome> &out = decided[s];
    if (!grouped) {
      // Distinct shards own distinct groups: no shared entry.
      std::vector<char> done(numGroups, 0);
      std::vector<size_t> order = shards[s];
      // --all-pairs: the latest pairs first. A witness of a later pair runs
      // the threads past the earlier ones, so it exhibits more of them
      // (WitnessPool).
      if (opts.allPairs)
        std::reverse(order.begin(), order.end());
      for (size_t i : order) {
        if (done[cands[i].group] && !opts.allPairs) {
          progress.skipped(1);
          continue;
        }
        Outcome o = decide(sh, cands[i].first, cands[i].second, i,
                           twoPasses ? Pass::BeforeFormula : Pass::All);
        if (o.reason == kFormulaDeferred) {
          later[s].push_back(i);
          continue;
        }
        done[cands[i].group] |= o.status == CheckResult::Sat;
        out.push_back(std::move(o));
      }
      return;
    }
    // The shard's groups in ascending order, each with its phase-1 pairs.
    std::map<uint32_t, std::vector<size_t>> byGroup;
    for (size_t i : shards[s])
      byGroup[cands[i].group].push_back(i);
    for (auto &[g, mine] : byGroup) {
      std::set<std::pair<EventId, EventId>> tried;
      bool raced = false, budget = false;
      for (size_t k = 0; k < mine.size(); ++k) {
        const Candidate &c = cands[mine[k]];
        tried.insert({c.first, c.second});
        out.push_back(decide(sh, c.first, c.second, mine[k]));
        raced = out.back().status == CheckResult::Sat;
        budget = out.back().reason == kBudget;
        if (raced || budget) {
          progress.skipped(mine.size() - k - 1);
          break;
        }
      }
      // Two events without source locations: their one pair was tried.
      const analysis::CandidateGroup &cg = groups[g];
      if (raced || budget || !((cg.sigA | cg.sigB) >> 63))
        continue;
      std::call_once(sigsOnce, [&]() {
        sigs = std::make_unique<analysis::SignatureIndex>(idx);
      });
      analysis::GroupPairs more(idx, mhb, *sigs, co, groups[g]);
      EventId a, b;
      while (more.next(&a, &b)) {
        if (tried.count({a, b}))
          continue;
        progress.added(1);
        out.push_back(decide(sh, a, b, 0));
        if (out.back().status == CheckResult::Sat ||
            out.back().reason == kBudget)
          break;
      }
    }
  });
  if (opts.restrictedBack > 0)
    forEachShard(jobs, [&](size_t s) {
      std::vector<size_t> left;
      for (size_t i : later[s]) {
        Outcome o = decide(state[s], cands[i].first, cands[i].second, i,
                           Pass::Restricted);
        if (o.reason == kFormulaDeferred)
          left.push_back(i);
        else
          decided[s].push_back(std::move(o));
      }
      later[s].swap(left);
      // One Z3 context per shard alive at a time, as in the formula pass
      // (16 at once: +215 MB on mixed 800).
      state[s].sliced.reset();
    });
  forEachShard(jobs, [&](size_t s) {
    for (size_t i : later[s])
      decided[s].push_back(
          decide(state[s], cands[i].first, cands[i].second, i, Pass::Formula));
    // Its solver context and witnesses; the count stays for the stats.
    state[s] = {nullptr, nullptr, nullptr, state[s].restrictedQueries};
  });
  for (const Decider::Shard &sh : state)
    result.stats.restrictedQueries += sh.restrictedQueries;
  result.stats.solveSeconds = since(solveStart) - result.stats.encodeSeconds;

  std::vector<Outcome> all;
  for (auto &d : decided)
    for (auto &o : d)
      all.push_back(std::move(o));
  std::sort(all.begin(), all.end(), [](const Outcome &x, const Outcome &y) {
    return std::make_pair(x.first, x.second) <
           std::make_pair(y.first, y.second);
  });
  for (Outcome &o : all) {
    result.stats.reusedWitnesses += o.reused;
    result.stats.searchedWitnesses += o.searched;
    result.stats.repairedWitnesses += o.repaired;
    result.stats.restrictedWitnesses += o.restricted;
    if (o.fast)
      ++result.stats.closureWitnesses;
    else if (o.propagated)
      ++result.stats.propagatedUnsat;
    else if (o.reason != kBudget)
      ++result.stats.solverCalls;
    result.stats.solverChecks += o.checks;
    result.stats.sliceExpansions += o.expansions;
    result.stats.maxSliceUnits = std::max(result.stats.maxSliceUnits, o.units);
    result.stats.maxOrderVars = std::max(result.stats.maxOrderVars, o.vars);
    if (o.status == CheckResult::Sat) {
      ++result.stats.sat;
      result.races.push_back({o.first, o.second, std::move(o.steps)});
    } else if (o.status == CheckResult::Unsat) {
      ++result.stats.unsat;
    } else {
      ++result.stats.unknown;
      result.unknowns.push_back({o.first, o.second, o.reason});
    }
  }
  result.stats.seconds = since(start);
  return result;
}

} // namespace racepredict::solver
