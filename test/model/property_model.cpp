//===- test/model/property_model.cpp - Brute-force property violations ----===//
#include "property_model.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace racepredict::testsupport {

using property::Arg;
using property::EventPattern;
using property::Pattern;
using trace::ThreadId;

namespace {

/// docs/properties.md "Matching", by plain name comparison (random traces
/// use no numeric names, so canonicalisation cannot matter).
class RefMatcher {
public:
  explicit RefMatcher(const trace::Trace &t) : t_(t) {}

  std::optional<std::string> arg(EventId e, size_t i, bool builtin) const {
    const trace::Event &ev = t_.events[e];
    if (builtin) {
      bool has = false;
      trace::objNameSpace(ev.kind, &has);
      if (i != 0 || !has)
        return std::nullopt;
      return t_.objName(ev);
    }
    auto [b, end] = t_.args(ev);
    if (b + i >= end)
      return std::nullopt;
    return t_.table(trace::NameSpace::Custom).name(b[i]);
  }

  bool match(const EventPattern &p, EventId e, std::vector<std::string> &vars,
             std::vector<ThreadId> &threads, bool bind) const {
    const trace::Event &ev = t_.events[e];
    if (p.cls == EventPattern::Custom &&
        (ev.kind != trace::EventKind::Custom || t_.objName(ev) != p.name))
      return false;
    if (p.cls == EventPattern::Builtin &&
        std::find(p.kinds.begin(), p.kinds.end(), ev.kind) == p.kinds.end())
      return false;
    std::vector<std::string> v2 = vars;
    std::vector<ThreadId> t2 = threads;
    if (p.thread != trace::kNone) {
      if (t2[p.thread] == trace::kNone) {
        if (!bind || std::find(t2.begin(), t2.end(), ev.thread) != t2.end())
          return false;
        t2[p.thread] = ev.thread;
      } else if (t2[p.thread] != ev.thread) {
        return false;
      }
    }
    for (size_t i = 0; i < p.args.size(); ++i) {
      auto a = arg(e, i, p.cls == EventPattern::Builtin);
      if (!a)
        return false;
      const Arg &pa = p.args[i];
      if (pa.kind == Arg::Literal && pa.text != *a)
        return false;
      if (pa.kind == Arg::Var) {
        if (v2[pa.var].empty())
          v2[pa.var] = bind ? *a : std::string();
        else if (v2[pa.var] != *a)
          return false;
      }
    }
    if (bind) {
      vars = v2;
      threads = t2;
    }
    return true;
  }

private:
  const trace::Trace &t_;
};

/// Follows one tuple: state j = steps seen so far; dead when a step comes
/// out of order or a gap event comes inside its gap.
class TupleMonitor : public ScheduleObserver {
public:
  TupleMonitor(const RefMatcher &m, const Pattern &p,
               const std::vector<EventId> &tuple,
               const std::vector<std::string> &vars,
               const std::vector<ThreadId> &threads)
      : m_(m), p_(p), tuple_(tuple), vars_(vars), threads_(threads) {}
  uint32_t initial() const override { return 0; }
  bool accepting(uint32_t s) const override { return s == tuple_.size(); }
  uint32_t step(uint32_t j, const Step &s) const override {
    if (s.half || j == tuple_.size())
      return j;
    if (s.event == tuple_[j])
      return j + 1;
    if (std::count(tuple_.begin(), tuple_.end(), s.event))
      return kDead;
    for (const EventPattern &item : p_.gaps[j]) {
      auto v = vars_;
      auto t = threads_;
      if (m_.match(item, s.event, v, t, false))
        return kDead;
    }
    return j;
  }

private:
  const RefMatcher &m_;
  const Pattern &p_;
  const std::vector<EventId> &tuple_;
  std::vector<std::string> vars_;
  std::vector<ThreadId> threads_;
};

void tuples(const RefMatcher &m, const Pattern &p, size_t n,
            std::vector<EventId> &cur, std::vector<std::string> &vars,
            std::vector<ThreadId> &threads,
            const std::function<void()> &visit) {
  if (cur.size() == p.steps.size()) {
    visit();
    return;
  }
  for (EventId e = 0; e < n; ++e) {
    if (std::count(cur.begin(), cur.end(), e))
      continue;
    auto v = vars;
    auto t = threads;
    if (!m.match(p.steps[cur.size()], e, v, t, true))
      continue;
    cur.push_back(e);
    std::swap(v, vars);
    std::swap(t, threads);
    tuples(m, p, n, cur, vars, threads, visit);
    std::swap(v, vars);
    std::swap(t, threads);
    cur.pop_back();
  }
}

/// The automaton of a typestate on one object value.
class TypestateMonitor : public ScheduleObserver {
public:
  TypestateMonitor(const RefMatcher &m, const property::TypestateDecl &d,
                   const std::string &object)
      : m_(m), d_(d), object_(object) {
    for (const auto &tr : d.transitions) {
      states_.emplace(tr.from, states_.size());
      if (tr.to != "error")
        states_.emplace(tr.to, states_.size());
    }
    states_.emplace(d.start, states_.size());
  }
  uint32_t initial() const override { return states_.at(d_.start); }
  bool accepting(uint32_t s) const override { return s == kError; }
  uint32_t step(uint32_t q, const Step &s) const override {
    if (s.half || q == kError)
      return q;
    const property::Transition *label = nullptr;
    for (const auto &tr : d_.transitions) {
      std::vector<std::string> v(d_.vars.size());
      v[0] = object_; // the object parameter
      std::vector<ThreadId> t;
      if (m_.match(tr.label, s.event, v, t, false)) {
        label = &tr;
        break;
      }
    }
    if (!label)
      return q; // not an event of this object
    for (const auto &tr : d_.transitions)
      if (states_.at(tr.from) == q &&
          property::toString(tr.label, Pattern{}) ==
              property::toString(label->label, Pattern{}))
        return tr.to == "error" ? kError : states_.at(tr.to);
    return kError; // no transition: implicitly an error
  }

private:
  static constexpr uint32_t kError = 1000000;
  const RefMatcher &m_;
  const property::TypestateDecl &d_;
  std::string object_;
  std::map<std::string, uint32_t> states_;
};

} // namespace

Instances enumerateViolations(const analysis::TraceIndex &idx,
                              const property::Property &prop, bool *truncated) {
  Instances out;
  RefMatcher m(idx.trace());
  *truncated = false;
  for (uint32_t pi = 0; pi < prop.patterns.size(); ++pi) {
    const Pattern &p = prop.patterns[pi];
    std::vector<EventId> cur;
    std::vector<std::string> vars(p.vars.size());
    std::vector<ThreadId> threads(p.threadVars.size(), trace::kNone);
    tuples(m, p, idx.trace().events.size(), cur, vars, threads, [&]() {
      TupleMonitor mon(m, p, cur, vars, threads);
      bool cut = false;
      if (findObservedSchedule(idx, mon, 500000, &cut))
        out.insert({pi, cur});
      *truncated |= cut;
    });
  }
  return out;
}

std::set<std::string> enumerateTypestateErrors(const analysis::TraceIndex &idx,
                                               const property::TypestateDecl &d,
                                               bool *truncated) {
  std::set<std::string> out, objects;
  const auto &custom = idx.trace().table(trace::NameSpace::Custom);
  for (trace::SymId s = 0; s < custom.size(); ++s)
    objects.insert(custom.name(s));
  RefMatcher m(idx.trace());
  *truncated = false;
  for (const std::string &o : objects) {
    TypestateMonitor mon(m, d, o);
    bool cut = false;
    if (findObservedSchedule(idx, mon, 500000, &cut))
      out.insert(o);
    *truncated |= cut;
  }
  return out;
}

} // namespace racepredict::testsupport
