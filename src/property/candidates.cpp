//===- property/candidates.cpp - Event tuples that may violate a pattern --===//
//
// A depth-first join over the steps: each step's events come from a static
// list (name, kind and literal arguments), bucketed by thread and by first
// argument so that a step whose thread or first variable is already bound
// scans only its bucket. Must-happen-before prunes a tuple as soon as two
// steps are ordered backwards, and a gap as soon as all the variables it
// mentions are bound and some matching event must lie inside it; complete
// tuples also when an event forbidden by several consecutive gaps must lie
// somewhere inside their union.
//
#include "racepredict/property/candidates.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace racepredict::property {

namespace {

/// The events an event pattern can match, with buckets.
struct EventList {
  std::vector<EventId> all;
  std::unordered_map<ThreadId, std::vector<EventId>> byThread;
  std::unordered_map<uint32_t, std::vector<EventId>> byArg0;
};

class Finder {
public:
  Finder(const analysis::TraceIndex &idx, const analysis::MustHappenBefore &mhb,
         const TraceMatcher &m, const CandidateOptions &opts,
         CandidateStats *stats, std::vector<Candidate> *out)
      : idx_(idx), mhb_(mhb), m_(m), opts_(opts), stats_(stats), out_(out) {}

  void run(const Pattern &p, uint32_t index) {
    p_ = &p;
    index_ = index;
    steps_.clear();
    stepLists_.clear();
    gapItems_.assign(p.gaps.size(), {});
    gapLists_.assign(p.gaps.size(), {});
    for (const EventPattern &s : p.steps) {
      steps_.push_back(m_.prepare(s));
      stepLists_.push_back(list(steps_.back()));
    }
    for (size_t g = 0; g < p.gaps.size(); ++g)
      for (const EventPattern &item : p.gaps[g]) {
        gapItems_[g].push_back(m_.prepare(item));
        gapLists_[g].push_back(list(gapItems_[g].back()));
      }
    computeReadiness();
    b_ = Binding::empty(p);
    chosen_.clear();
    dfs(0);
  }

private:
  EventList list(const PreparedEvent &pe) const {
    EventList l;
    const auto &events = idx_.trace().events;
    bool builtin = pe.p->cls == EventPattern::Builtin;
    for (EventId e = 0; e < events.size(); ++e)
      if (m_.matchesStatically(pe, e)) {
        l.all.push_back(e);
        l.byThread[events[e].thread].push_back(e);
        uint32_t a0 = m_.argValue(e, 0, builtin);
        if (a0 != kNone)
          l.byArg0[a0].push_back(e);
      }
    return l;
  }

  /// The smallest list that holds every event `pe` can match under b_.
  const std::vector<EventId> &bucket(const PreparedEvent &pe,
                                     const EventList &l) const {
    static const std::vector<EventId> kEmpty;
    const std::vector<EventId> *best = &l.all;
    const EventPattern &p = *pe.p;
    if (p.thread != kNone && b_.threads[p.thread] != kNone) {
      auto it = l.byThread.find(b_.threads[p.thread]);
      best = it == l.byThread.end() ? &kEmpty : &it->second;
    }
    if (!p.args.empty() && p.args[0].kind == Arg::Var &&
        b_.vars[p.args[0].var] != kNone) {
      auto it = l.byArg0.find(b_.vars[p.args[0].var]);
      const std::vector<EventId> *byArg =
          it == l.byArg0.end() ? &kEmpty : &it->second;
      if (byArg->size() < best->size())
        best = byArg;
    }
    return *best;
  }

  /// ready_[g]: the step after which every variable gap g mentions that
  /// some step binds is bound (and both of its ends are chosen).
  void computeReadiness() {
    const Pattern &p = *p_;
    std::vector<size_t> varStep(p.vars.size(), SIZE_MAX),
        threadStep(p.threadVars.size(), SIZE_MAX);
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const EventPattern &s = p.steps[i];
      if (s.thread != kNone)
        threadStep[s.thread] = std::min(threadStep[s.thread], i);
      for (const Arg &a : s.args)
        if (a.kind == Arg::Var)
          varStep[a.var] = std::min(varStep[a.var], i);
    }
    ready_.assign(p.gaps.size(), 0);
    for (size_t g = 0; g < p.gaps.size(); ++g) {
      size_t r = g;
      for (const EventPattern &item : p.gaps[g]) {
        if (item.thread != kNone)
          r = std::max(r, threadStep[item.thread]);
        for (const Arg &a : item.args)
          if (a.kind == Arg::Var && varStep[a.var] != SIZE_MAX)
            r = std::max(r, varStep[a.var]);
      }
      ready_[g] = r;
    }
  }

  bool isChosen(EventId e) const {
    return std::find(chosen_.begin(), chosen_.end(), e) != chosen_.end();
  }

  /// Calls fn(s) for every event s (not a step) that matches an item of
  /// gap g under the current binding.
  template <typename Fn> void forEachGapEvent(size_t g, Fn fn) const {
    for (size_t k = 0; k < gapItems_[g].size(); ++k)
      for (EventId s : bucket(gapItems_[g][k], gapLists_[g][k])) {
        Binding probe = b_;
        if (!isChosen(s) && m_.matches(gapItems_[g][k], s, probe, false))
          fn(s);
      }
  }

  /// Must-happen-before puts s strictly between steps a-1 and b (after the
  /// schedule's start for a = 0).
  bool certainlyBetween(EventId s, size_t a, size_t b) const {
    return (a == 0 || mhb_.ordered(chosen_[a - 1], s)) &&
           mhb_.ordered(s, chosen_[b]);
  }

  /// Whether some event of gap g must lie inside it (during the search).
  bool gapCertainlyHit(size_t g) const {
    bool hit = false;
    forEachGapEvent(g, [&](EventId s) { hit |= certainlyBetween(s, g, g); });
    return hit;
  }

  /// Completes a tuple: collects every gap's events, prunes the tuple if
  /// an event that consecutive gaps g..h all forbid must lie between steps
  /// g-1 and h (say an END of the region between two accesses of it), and
  /// keeps for the encoding only the events whose side is not fixed.
  void finish() {
    ++stats_->tuples;
    size_t ngaps = p_->gaps.size();
    std::map<EventId, std::vector<char>> forbidden; // event -> gaps
    bool observedHit = false;
    for (size_t g = 0; g < ngaps; ++g)
      forEachGapEvent(g, [&](EventId s) {
        auto &gs = forbidden[s];
        gs.resize(ngaps, 0);
        gs[g] = 1;
        if ((g == 0 || chosen_[g - 1] < s) && s < chosen_[g])
          observedHit = true;
      });
    Candidate c;
    c.pattern = index_;
    c.events = chosen_;
    c.binding = b_;
    c.gapEvents.resize(ngaps);
    for (const auto &[s, gs] : forbidden) {
      for (size_t a = 0; opts_.filters && a < ngaps; ++a) {
        if (!gs[a])
          continue;
        size_t b = a;
        while (b + 1 < ngaps && gs[b + 1])
          ++b;
        if (certainlyBetween(s, a, b)) {
          ++stats_->prunedGap;
          return;
        }
        a = b;
      }
      for (size_t g = 0; g < ngaps; ++g) {
        if (!gs[g])
          continue;
        bool fixed = false;
        for (size_t j = 0; opts_.filters && j < ngaps; ++j)
          fixed |=
              j < g ? mhb_.ordered(s, chosen_[j]) : mhb_.ordered(chosen_[j], s);
        if (!fixed)
          c.gapEvents[g].push_back(s); // ascending: the map is ordered
      }
    }
    c.observed =
        !observedHit && std::is_sorted(c.events.begin(), c.events.end());
    out_->push_back(std::move(c));
    if (++found_ >= opts_.maxCandidates)
      stats_->truncated = true;
  }

  void dfs(size_t i) {
    if (stats_->truncated)
      return;
    if (i == p_->steps.size()) {
      finish();
      return;
    }
    for (EventId e : bucket(steps_[i], stepLists_[i])) {
      if (isChosen(e))
        continue;
      bool backwards = false;
      if (opts_.filters)
        for (EventId prev : chosen_)
          backwards |= mhb_.ordered(e, prev);
      if (backwards) {
        ++stats_->prunedOrder;
        continue;
      }
      Binding saved = b_;
      if (!m_.matches(steps_[i], e, b_, true))
        continue;
      chosen_.push_back(e);
      bool pruned = false;
      if (opts_.filters && i + 1 < p_->steps.size())
        for (size_t g = 0; g <= i && !pruned; ++g)
          if (ready_[g] == i && gapCertainlyHit(g)) {
            ++stats_->prunedGap;
            pruned = true;
          }
      if (!pruned)
        dfs(i + 1);
      chosen_.pop_back();
      b_ = saved;
      if (stats_->truncated)
        return;
    }
  }

  const analysis::TraceIndex &idx_;
  const analysis::MustHappenBefore &mhb_;
  const TraceMatcher &m_;
  const CandidateOptions &opts_;
  CandidateStats *stats_;
  std::vector<Candidate> *out_;
  size_t found_ = 0;

  const Pattern *p_ = nullptr;
  uint32_t index_ = 0;
  std::vector<PreparedEvent> steps_;
  std::vector<EventList> stepLists_;
  std::vector<std::vector<PreparedEvent>> gapItems_;
  std::vector<std::vector<EventList>> gapLists_;
  std::vector<size_t> ready_;
  Binding b_;
  std::vector<EventId> chosen_;
};

} // namespace

std::vector<Candidate> findCandidates(const analysis::TraceIndex &idx,
                                      const analysis::MustHappenBefore &mhb,
                                      const TraceMatcher &m,
                                      const Property &prop,
                                      const CandidateOptions &opts,
                                      CandidateStats *stats) {
  std::vector<Candidate> out;
  CandidateStats local;
  if (!stats)
    stats = &local;
  Finder f(idx, mhb, m, opts, stats, &out);
  for (uint32_t i = 0; i < prop.patterns.size() && !stats->truncated; ++i)
    f.run(prop.patterns[i], i);
  return out;
}

} // namespace racepredict::property
