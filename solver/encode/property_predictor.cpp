//===- solver/encode/property_predictor.cpp - Candidates → queries → witness =//
#include "racepredict/solver/property_predictor.h"

#include "racepredict/analysis/mhb.h"
#include "racepredict/property/candidates.h"
#include "racepredict/property/pattern_check.h"
#include "racepredict/solver/order_solver.h"
#include "racepredict/solver/property_encoding.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

namespace racepredict::solver {

using analysis::EventId;
using property::Candidate;

namespace {

/// Reports are deduplicated like races: one violation per property and
/// tuple of source locations (events without one stand for themselves).
std::vector<uint64_t> signature(const trace::Trace &t, const Candidate &c) {
  std::vector<uint64_t> sig{c.pattern};
  for (EventId e : c.events) {
    trace::SrcId s = t.events[e].src;
    sig.push_back(s ? s : (uint64_t{1} << 32) + e);
  }
  return sig;
}

std::vector<std::pair<std::string, std::string>>
describeBinding(const property::TraceMatcher &m, const property::Pattern &p,
                const property::Binding &b) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t v = 0; v < p.vars.size(); ++v)
    if (b.vars[v] != analysis::kNone)
      out.emplace_back(p.vars[v], m.canonicalName(b.vars[v]));
  for (size_t v = 0; v < p.threadVars.size(); ++v)
    if (b.threads[v] != analysis::kNone)
      out.emplace_back(p.threadVars[v], m.trace().threadName(b.threads[v]));
  return out;
}

/// The observed order up to the last step, as a witness.
std::vector<Step> observedWitness(const TraceIndex &idx, EventId last) {
  std::vector<EventId> prefix;
  for (EventId e = 0; e <= last; ++e)
    prefix.push_back(e);
  auto steps = analysis::expandWitness(idx, prefix);
  return steps ? *steps : std::vector<Step>{};
}

} // namespace

PropertyResult predictViolations(const TraceIndex &idx,
                                 const std::vector<property::Property> &props,
                                 const PropertyOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  PropertyResult result;
  auto &st = result.stats;
  st.properties = props.size();
  const trace::Trace &t = idx.trace();
  analysis::MustHappenBefore mhb(idx);
  property::TraceMatcher matcher(t);

  // Built lazily: a trace whose properties have no candidate needs no
  // solver at all.
  std::unique_ptr<FormulaPool> pool;
  std::unique_ptr<MaximalEncoding> enc;
  std::unique_ptr<OrderSolver> solver;
  auto ensureSolver = [&]() {
    if (solver)
      return;
    pool = std::make_unique<FormulaPool>();
    enc = std::make_unique<MaximalEncoding>(idx, *pool);
    SolverConfig cfg;
    cfg.numOrderVars = enc->numOrderVars();
    cfg.differenceLogicOnly = !pool->hasPb();
    cfg.dumpSmt2Dir = opts.dumpSmt2Dir;
    solver = makeZ3OrderSolver(cfg);
    for (auto &[label, f] : enc->base())
      solver->addBase(*pool, f, label);
  };
  CheckLimits limits{opts.timeoutMs, opts.rlimit};

  for (uint32_t pi = 0; pi < props.size(); ++pi) {
    const property::Property &prop = props[pi];
    st.patterns += prop.patterns.size();
    std::set<std::string> missing;
    for (const property::Pattern &pat : prop.patterns)
      for (const property::EventPattern &step : pat.steps)
        if (matcher.prepare(step).impossible)
          missing.insert(property::toString(step, pat));
    for (const std::string &m : missing)
      result.warnings.push_back("property '" + prop.name + "': no event of " +
                                "the trace matches " + m);
    property::CandidateOptions co;
    co.filters = !opts.noFilters;
    co.maxCandidates = opts.maxCandidates;
    property::CandidateStats cs;
    std::vector<Candidate> cands =
        property::findCandidates(idx, mhb, matcher, prop, co, &cs);
    st.tuples += cs.tuples;
    st.prunedOrder += cs.prunedOrder;
    st.prunedGap += cs.prunedGap;
    st.candidates += cands.size();
    if (cs.truncated)
      result.unknowns.push_back(
          {pi,
           0,
           {},
           "more than " + std::to_string(opts.maxCandidates) +
               " candidate tuples; the rest were not examined"});
    // One violation per group is reported, and only satisfiable queries
    // end a group: try first the tuples whose events lie closest together
    // in the observed order, the likeliest to be reorderable (and the
    // shortest witnesses). The order is deterministic.
    if (!opts.allInstances) {
      auto span = [](const Candidate &c) {
        auto [lo, hi] = std::minmax_element(c.events.begin(), c.events.end());
        return *hi - *lo;
      };
      std::stable_sort(cands.begin(), cands.end(),
                       [&](const Candidate &a, const Candidate &b) {
                         return span(a) < span(b);
                       });
    }
    std::set<std::vector<uint64_t>> done;
    for (const Candidate &c : cands) {
      auto sig = signature(t, c);
      if (!opts.allInstances && done.count(sig))
        continue;
      const property::Pattern &pat = prop.patterns[c.pattern];
      ViolationFinding f;
      f.property = pi;
      f.pattern = c.pattern;
      f.events = c.events;
      f.binding = describeBinding(matcher, pat, c.binding);
      std::string why;
      if (c.observed) {
        ++st.observed;
        f.observed = true;
        f.steps = observedWitness(idx, c.events.back());
      } else {
        ensureSolver();
        ++st.solverCalls;
        CheckResult r =
            solver->check(*pool, violationQuery(*enc, *pool, c), limits);
        if (r.status == CheckResult::Unsat) {
          ++st.unsat;
          continue;
        }
        if (r.status == CheckResult::Unknown) {
          ++st.unknown;
          result.unknowns.push_back({pi, c.pattern, c.events, r.reason});
          continue;
        }
        ++st.sat;
        f.steps = prefixWitness(*enc, idx, r.order, c.events.back());
      }
      for (const Step &s : f.steps)
        if (!s.half)
          f.witness.push_back(s.event);
      // Never trust a model blindly: the schedule must be feasible and the
      // pattern must occur in it, each checked independently.
      if (auto err = analysis::checkPrefixSchedule(idx, f.steps))
        why = *err;
      else if (auto err2 = property::checkPatternOnSchedule(
                   matcher, pat, c.events, f.witness))
        why = *err2;
      if (!why.empty()) {
        result.unknowns.push_back(
            {pi, c.pattern, c.events,
             "internal error: witness failed validation: " + why});
        continue;
      }
      done.insert(sig);
      result.violations.push_back(std::move(f));
    }
  }
  st.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

} // namespace racepredict::solver
