//===- property/matcher.cpp - Matching event patterns against trace events ===//
#include "racepredict/property/matcher.h"

#include <algorithm>
#include <charconv>

namespace racepredict::property {

using trace::Event;
using trace::EventKind;
using trace::NameSpace;

std::string canonical(const std::string &name) {
  const char *b = name.data(), *e = b + name.size();
  bool neg = b != e && *b == '-';
  if (neg)
    ++b;
  int base = 10;
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
    base = 16;
    b += 2;
  }
  uint64_t v = 0;
  auto r = std::from_chars(b, e, v, base);
  if (b == e || r.ec != std::errc() || r.ptr != e)
    return name;
  int64_t s = static_cast<int64_t>(v); // 64-bit keys wrap, as recorded
  return std::to_string(neg ? -s : s);
}

TraceMatcher::TraceMatcher(const trace::Trace &t) : t_(t) {
  // Canonical ids per name space symbol, computed once.
  std::vector<std::vector<uint32_t>> canon(trace::kNumNameSpaces);
  for (int ns = 0; ns < trace::kNumNameSpaces; ++ns) {
    const auto &tab = t.names[ns];
    for (trace::SymId s = 0; s < tab.size(); ++s)
      canon[ns].push_back(intern(canonical(tab.name(s))));
  }
  size_t n = t.events.size();
  obj_.assign(n, kNone);
  argOff_.reserve(n + 1);
  argOff_.push_back(0);
  for (EventId e = 0; e < n; ++e) {
    const Event &ev = t.events[e];
    bool has = false;
    NameSpace ns = trace::objNameSpace(ev.kind, &has);
    if (has)
      obj_[e] = canon[static_cast<int>(ns)][ev.obj];
    if (ev.kind == EventKind::Custom)
      for (auto [a, end] = t.args(ev); a != end; ++a)
        args_.push_back(canon[static_cast<int>(NameSpace::Custom)][*a]);
    argOff_.push_back(static_cast<uint32_t>(args_.size()));
  }
}

uint32_t TraceMatcher::intern(const std::string &name) {
  auto [it, fresh] = ids_.emplace(name, static_cast<uint32_t>(strings_.size()));
  if (fresh)
    strings_.push_back(name);
  return it->second;
}

uint32_t TraceMatcher::find(const std::string &name) const {
  auto it = ids_.find(canonical(name));
  return it == ids_.end() ? kNone : it->second;
}

PreparedEvent TraceMatcher::prepare(const EventPattern &p) const {
  PreparedEvent pe;
  pe.p = &p;
  if (p.cls == EventPattern::Custom) {
    pe.name = find(p.name);
    pe.impossible = pe.name == kNone;
  }
  for (const Arg &a : p.args) {
    uint32_t id = kNone;
    if (a.kind == Arg::Literal) {
      id = find(a.text);
      pe.impossible |= id == kNone;
    }
    pe.lits.push_back(id);
  }
  return pe;
}

uint32_t TraceMatcher::argValue(EventId e, size_t i, bool builtin) const {
  if (builtin)
    return i == 0 ? obj_[e] : kNone;
  uint32_t b = argOff_[e], end = argOff_[e + 1];
  return b + i < end ? args_[b + i] : kNone;
}

bool TraceMatcher::matchesStatically(const PreparedEvent &pe, EventId e) const {
  const EventPattern &p = *pe.p;
  if (pe.impossible)
    return false;
  const Event &ev = t_.events[e];
  switch (p.cls) {
  case EventPattern::Any:
    return true;
  case EventPattern::Custom:
    if (ev.kind != EventKind::Custom || obj_[e] != pe.name)
      return false;
    break;
  case EventPattern::Builtin:
    if (std::find(p.kinds.begin(), p.kinds.end(), ev.kind) == p.kinds.end())
      return false;
    break;
  }
  bool builtin = p.cls == EventPattern::Builtin;
  for (size_t i = 0; i < p.args.size(); ++i) {
    uint32_t v = argValue(e, i, builtin);
    if (v == kNone)
      return false;
    if (p.args[i].kind == Arg::Literal && v != pe.lits[i])
      return false;
  }
  return true;
}

bool TraceMatcher::matches(const PreparedEvent &pe, EventId e, Binding &b,
                           bool bind) const {
  if (!matchesStatically(pe, e))
    return false;
  const EventPattern &p = *pe.p;
  ThreadId th = t_.events[e].thread;
  uint32_t tv = p.thread;
  if (tv != kNone) {
    if (b.threads[tv] != kNone) {
      if (b.threads[tv] != th)
        return false;
    } else {
      if (!bind)
        return false; // a gap's thread variable is always bound by a step
      for (ThreadId other : b.threads)
        if (other == th)
          return false; // distinct thread variables, distinct threads
    }
  }
  bool builtin = p.cls == EventPattern::Builtin;
  // Check first, then bind: a failed match leaves `b` unchanged.
  std::vector<std::pair<uint32_t, uint32_t>> fresh;
  for (size_t i = 0; i < p.args.size(); ++i) {
    const Arg &a = p.args[i];
    if (a.kind != Arg::Var)
      continue;
    uint32_t v = argValue(e, i, builtin);
    uint32_t cur = b.vars[a.var];
    for (auto &[var, val] : fresh)
      if (var == a.var)
        cur = val;
    if (cur == kNone) {
      if (bind)
        fresh.emplace_back(a.var, v);
    } else if (cur != v) {
      return false;
    }
  }
  if (bind) {
    for (auto &[var, val] : fresh)
      b.vars[var] = val;
    if (tv != kNone)
      b.threads[tv] = th;
  }
  return true;
}

} // namespace racepredict::property
