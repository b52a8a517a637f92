//===- property/compile_typestate.cpp - Typestates to sequence patterns ---===//
//
// A typestate over a parametric object (a file, a connection, a resource)
// is violated when the events of one object drive it into `error`. Order
// variables cannot run an automaton over an unknown interleaving directly,
// so we restrict to automata whose state is a function of the last
// state-changing event: every event is either a *setter* (all its non-error
// transitions reach one state T) or an *observer* (all its non-error
// transitions are self-loops). Then the state before an event x is T(s) for
// the last setter s of the object before x (the start state if none), and
// "x is an error in state q" becomes "s; [no setter] x" for each setter s
// with T(s) = q. Sound: if such a pattern occurs, the run of the automaton
// is in q before x (or already failed earlier). Complete: at the first
// error, the last setter before it is such an s.
//
#include "racepredict/property/parser.h"

#include <algorithm>
#include <map>
#include <set>

namespace racepredict::property {

namespace {

/// Two labels that can match one event would make the automaton
/// nondeterministic.
bool mayOverlap(const EventPattern &a, const EventPattern &b) {
  if (a.cls != b.cls)
    return false;
  if (a.cls == EventPattern::Custom && a.name != b.name)
    return false;
  if (a.cls == EventPattern::Builtin) {
    bool common = false;
    for (auto k : a.kinds)
      common |= std::count(b.kinds.begin(), b.kinds.end(), k) > 0;
    if (!common)
      return false;
  }
  for (size_t i = 0; i < std::min(a.args.size(), b.args.size()); ++i)
    if (a.args[i].kind == Arg::Literal && b.args[i].kind == Arg::Literal &&
        a.args[i].text != b.args[i].text)
      return false;
  return true;
}

} // namespace

Expected<std::vector<Pattern>> compileTypestate(const TypestateDecl &d,
                                                const std::string &where) {
  auto fail = [&](const std::string &msg) { return Error{where + ": " + msg}; };
  Pattern proto;
  proto.vars = d.vars;
  // Labels by their text; transitions per (state, label).
  std::vector<EventPattern> labels;
  std::vector<std::string> keys;
  std::set<std::string> states{d.start};
  std::map<std::pair<std::string, size_t>, std::string> delta;
  for (const Transition &t : d.transitions) {
    if (t.label.cls == EventPattern::Any)
      return fail("'*' cannot label a transition (it would match every "
                  "event)");
    std::string key = toString(t.label, proto);
    size_t l = std::find(keys.begin(), keys.end(), key) - keys.begin();
    if (l == keys.size()) {
      for (size_t o = 0; o < labels.size(); ++o)
        if (mayOverlap(labels[o], t.label))
          return fail("events " + keys[o] + " and " + key +
                      " can match the same event; give them distinct names "
                      "or literal arguments");
      keys.push_back(key);
      labels.push_back(t.label);
    }
    if (t.from == "error")
      return fail("line " + std::to_string(t.line) +
                  ": no transition can leave 'error'");
    states.insert(t.from);
    if (t.to != "error")
      states.insert(t.to);
    auto [it, fresh] = delta.emplace(std::make_pair(t.from, l), t.to);
    if (!fresh && it->second != t.to)
      return fail("line " + std::to_string(t.line) + ": " + key + " in state " +
                  t.from + " leads to both " + it->second + " and " + t.to);
  }
  // Classify each label: setter with target T, or observer.
  std::vector<std::string> target(labels.size());
  std::vector<char> setter(labels.size(), 0);
  for (size_t l = 0; l < labels.size(); ++l) {
    std::set<std::string> targets;
    bool selfLoopsOnly = true;
    for (const auto &[k, to] : delta)
      if (k.second == l && to != "error") {
        targets.insert(to);
        selfLoopsOnly &= to == k.first;
      }
    if (selfLoopsOnly)
      continue;
    if (targets.size() > 1)
      return fail(keys[l] + " leads to different states (" + *targets.begin() +
                  ", " + *std::next(targets.begin()) +
                  "); only typestates whose every event either keeps the "
                  "state or always leads to the same state are supported");
    setter[l] = 1;
    target[l] = *targets.begin();
  }
  std::vector<EventPattern> setters;
  for (size_t l = 0; l < labels.size(); ++l)
    if (setter[l])
      setters.push_back(labels[l]);

  std::vector<Pattern> out;
  for (const std::string &q : states)
    for (size_t x = 0; x < labels.size(); ++x) {
      auto it = delta.find({q, x});
      if (it != delta.end() && it->second != "error")
        continue;
      if (q == d.start) {
        Pattern p = proto;
        p.steps = {labels[x]};
        p.gaps = {setters};
        p.origin = "typestate: " + keys[x] + " in start state " + q;
        out.push_back(std::move(p));
      }
      for (size_t s = 0; s < labels.size(); ++s)
        if (setter[s] && target[s] == q) {
          Pattern p = proto;
          p.steps = {labels[s], labels[x]};
          p.gaps = {{}, setters};
          p.origin = "typestate: " + keys[x] + " in state " + q + " (after " +
                     keys[s] + ")";
          out.push_back(std::move(p));
        }
    }
  return out;
}

} // namespace racepredict::property
