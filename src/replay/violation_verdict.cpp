//===- replay/violation_verdict.cpp - Did the replay exhibit a violation? -===//
#include "racepredict/replay/violation_verdict.h"

#include "racepredict/property/pattern_check.h"
#include "racepredict/trace/binary_format.h"

#include <map>
#include <sstream>

namespace racepredict::replay {

using trace::Event;
using trace::EventKind;
using trace::NameSpace;

namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/// The inverse of the runtime's percent-encoding (`-` is the empty name).
bool decodeName(const std::string &tok, std::string *out) {
  out->clear();
  if (tok == "-")
    return true;
  for (size_t i = 0; i < tok.size(); ++i) {
    if (tok[i] != '%') {
      *out += tok[i];
      continue;
    }
    if (i + 2 >= tok.size() || hexDigit(tok[i + 1]) < 0 ||
        hexDigit(tok[i + 2]) < 0)
      return false;
    *out += static_cast<char>(hexDigit(tok[i + 1]) * 16 + hexDigit(tok[i + 2]));
    i += 2;
  }
  return true;
}

bool parseHex(const std::string &s, uint64_t *v) {
  if (s.size() < 3 || s[0] != '0' || s[1] != 'x' || s.size() > 18)
    return false;
  *v = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    int d = hexDigit(s[i]);
    if (d < 0)
      return false;
    *v = *v * 16 + static_cast<uint64_t>(d);
  }
  return true;
}

/// Whether a symbol name reads as a number (an address or key), as
/// property::canonical decides.
bool numericName(const std::string &n) {
  std::string c = property::canonical(n);
  return c != n || (!n.empty() && n.find_first_not_of("-0123456789") == n.npos);
}

/// Names the replayed run's objects. Objects are compared by their real
/// address in this run; a recorded symbolic name (a global's name) is kept
/// for the address first seen where the trace has it, so that literals of
/// the property (`@wr(counter)`) still match, while numeric names become
/// the real address, so that a custom argument holding a pointer equals
/// the object it points to, as in the recording.
class ObjectNames {
public:
  std::string name(NameSpace ns, const std::string &recorded, uint64_t addr) {
    auto &byAddr = byAddr_[static_cast<int>(ns)];
    auto it = byAddr.find(addr);
    if (it != byAddr.end())
      return it->second;
    std::string n = trace::hexKey(addr);
    auto &taken = taken_[static_cast<int>(ns)];
    if (!numericName(recorded) && !taken.count(recorded))
      n = recorded;
    taken[n] = addr;
    byAddr[addr] = n;
    return n;
  }

private:
  std::map<uint64_t, std::string> byAddr_[trace::kNumNameSpaces];
  std::map<std::string, uint64_t> taken_[trace::kNumNameSpaces];
};

} // namespace

Expected<std::vector<StepObservation>>
parseObservations(const std::vector<std::string> &lines) {
  std::vector<StepObservation> out;
  for (const std::string &line : lines) {
    std::istringstream in(line);
    StepObservation o;
    std::string obj, ev;
    auto bad = [&](const std::string &why) {
      return Error{"bad observe line '" + line + "': " + why};
    };
    if (!(in >> o.step >> obj) || !parseHex(obj, &o.object))
      return bad("expected STEP 0xOBJECT");
    if (in >> ev) {
      std::string name;
      if (ev != "ev" || !(in >> name) || !decodeName(name, &o.name))
        return bad("expected 'ev NAME'");
      o.custom = true;
      for (std::string a; in >> a;) {
        uint64_t v = 0;
        std::string lit;
        if (a.size() > 1 && a[0] == '#' && parseHex(a.substr(1), &v))
          o.args.push_back(trace::hexKey(v));
        else if (a.size() > 1 && a[0] == '=' && decodeName(a.substr(1), &lit))
          o.args.push_back(lit);
        else
          return bad("argument '" + a + "' is neither #0xHEX nor =NAME");
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

ViolationVerdict judgeViolation(const trace::Trace &t, const Schedule &s,
                                const ViolationTarget &target,
                                const std::vector<StepObservation> &obs) {
  std::map<uint32_t, const StepObservation *> byStep;
  for (const auto &o : obs)
    byStep[o.step] = &o;
  // The replayed witness: the full steps in schedule order, each the
  // recorded event with what the replayed run did instead.
  trace::Trace r;
  r.names = t.names;
  r.sources = t.sources;
  ObjectNames names;
  std::map<EventId, EventId> position; ///< trace event -> replayed index
  for (uint32_t k = 0; k < s.steps.size(); ++k) {
    const ScheduleStep &st = s.steps[k];
    if (st.half)
      continue;
    auto it = byStep.find(k);
    if (it == byStep.end())
      return {Verdict::NotReproduced, "the replayed run did not report step " +
                                          std::to_string(k + 1) + " (" +
                                          st.desc + ")"};
    const StepObservation &o = *it->second;
    Event ev = t.events.at(st.event);
    if (ev.kind == EventKind::Custom) {
      const std::string &want = t.table(NameSpace::Custom).name(ev.obj);
      if (!o.custom || o.name != want)
        return {Verdict::Diverged,
                "step " + std::to_string(k + 1) + " executed " +
                    (o.custom ? "custom event " + o.name
                              : std::string("no custom event")) +
                    " where the witness has " + want + " (" + st.desc + ")"};
      std::vector<trace::SymId> args;
      for (const std::string &a : o.args)
        args.push_back(r.table(NameSpace::Custom).intern(a));
      ev.obj = r.table(NameSpace::Custom).intern(o.name);
      ev.extra = args.empty() ? trace::kNone : r.addArgs(args);
    } else {
      bool has = false;
      NameSpace ns = trace::objNameSpace(ev.kind, &has);
      // Threads keep their names: the schedule identifies them by
      // creation path, so a step's thread is the recorded one.
      if (has && ns != NameSpace::Thread)
        ev.obj = r.table(ns).intern(
            names.name(ns, t.table(ns).name(ev.obj), o.object));
    }
    position[st.event] = static_cast<EventId>(r.events.size());
    r.events.push_back(ev);
  }
  std::vector<EventId> events, schedule;
  for (EventId e : target.events) {
    auto p = position.find(e);
    if (p == position.end())
      return {Verdict::NotReproduced, "violating event " + std::to_string(e) +
                                          " is not a step of the schedule"};
    events.push_back(p->second);
  }
  for (EventId e = 0; e < r.events.size(); ++e)
    schedule.push_back(e);
  property::TraceMatcher m(r);
  if (auto why = property::checkPatternOnSchedule(m, *target.pattern, events,
                                                  schedule))
    return {Verdict::NotReproduced,
            "the replayed run does not exhibit the pattern: " + *why +
                " (events numbered by their position in the replayed "
                "schedule)"};
  // Name the violating events as they happened, with their real arguments.
  std::string what;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event &ev = r.events[events[i]];
    what +=
        (i ? ", then " : "") + r.threadName(ev.thread) + " " +
        (ev.kind == EventKind::Custom ? r.table(NameSpace::Custom).name(ev.obj)
                                      : std::string(trace::opName(ev.kind)));
    if (ev.kind == EventKind::Custom) {
      auto [a, b] = r.args(ev);
      std::string list;
      for (; a != b; ++a)
        list +=
            (list.empty() ? "" : ", ") + r.table(NameSpace::Custom).name(*a);
      what += "(" + list + ")";
    } else if (!r.objName(ev).empty()) {
      what += " " + r.objName(ev);
    }
  }
  const char *how =
      events.size() > 1 ? " executed in this order (" : " executed (";
  return {Verdict::Confirmed, "property violation: " + what + how +
                                  toString(*target.pattern) + ")"};
}

} // namespace racepredict::replay
