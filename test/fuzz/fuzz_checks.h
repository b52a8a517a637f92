//===- test/fuzz/fuzz_checks.h - What every fuzzed reader must guarantee --===//
//
// A harness aborts (libFuzzer reports a crash with the input) when a
// reader's result breaks what the rest of racepredict takes for granted:
// an error is one non-empty sentence naming the input; a trace's ids are
// in range for every table, and the consistency check runs to its end on
// it; a written trace reads back the same.
//
#pragma once

#include "racepredict/trace/text_format.h"
#include "racepredict/trace/validate.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace racepredict::fuzz {

inline void require(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

/// An error message: one line, starting with the input's name.
inline void checkMessage(const std::string &msg, const std::string &prefix) {
  require(!msg.empty(), "an empty error message");
  require(msg.compare(0, prefix.size(), prefix) == 0,
          "an error message that does not name the input");
  require(msg.find('\n') == std::string::npos, "a multi-line error message");
}

/// Every id of every event is in range, every accessor works, and the
/// consistency check (and its message for each inconsistency) runs through.
inline void checkTrace(const trace::Trace &t) {
  using trace::EventKind;
  size_t nt = t.numThreads();
  for (trace::EventId i = 0; i < t.events.size(); ++i) {
    const trace::Event &e = t.events[i];
    require(e.thread < nt, "an event of an unknown thread");
    require(e.src < t.sources.size(), "a source id out of range");
    bool has = false;
    trace::NameSpace ns = trace::objNameSpace(e.kind, &has);
    if (has)
      require(e.obj < t.table(ns).size(), "an object id out of range");
    if (e.kind == EventKind::Wait) {
      require(e.aux < t.table(trace::NameSpace::Lock).size(),
              "a wait's lock out of range");
      require(e.extra == trace::kNone || e.extra < i,
              "a wait matched to a later event");
    }
    if (e.kind == EventKind::AtomicRmw)
      require(e.extra < t.rmwOld.size(), "an rmw without its read value");
    if (e.kind == EventKind::Branch && t.hasDeps(e)) {
      auto [b, end] = t.deps(e);
      for (; b != end; ++b)
        require(*b < i, "a branch depending on a later event");
    }
    if (e.kind == EventKind::Custom) {
      auto [b, end] = t.args(e);
      for (; b != end; ++b)
        require(*b < t.table(trace::NameSpace::Custom).size(),
                "a custom argument out of range");
    }
    (void)t.objName(e);
    (void)t.frames(i);
  }
  for (const trace::StackNode &n : t.stackNodes)
    require(n.callSite < t.sources.size(), "a call site out of range");
  for (const trace::SourceLoc &s : t.sources)
    require(s.inlinedAt < t.sources.size(), "an inlined-at out of range");
  std::vector<uint32_t> noLines;
  for (const trace::Violation &v : trace::validateTrace(t, 1000))
    require(!trace::violationText(t, v, "f", noLines).empty(),
            "an empty inconsistency");
}

/// Names the text format can write as they are (`convert` refuses the
/// others: a blank, '#', a control character, a thread named "init").
inline bool textSpellable(const trace::Trace &t) {
  for (int ns = 0; ns < trace::kNumNameSpaces; ++ns)
    for (trace::SymId id = 0; id < t.names[ns].size(); ++id) {
      const std::string &n = t.names[ns].name(id);
      if (n.empty() || n[0] == '@' || (ns == 0 && n == "init"))
        return false;
      for (unsigned char c : n)
        if (c <= ' ' || c == '#' || c == 0x7f)
          return false;
    }
  for (size_t i = 1; i < t.sources.size(); ++i)
    if (t.sources[i].file.empty())
      return false;
  return true;
}

/// The same events, names, values and locations: the text form of both.
inline void requireSameTrace(const trace::Trace &a, const trace::Trace &b) {
  std::ostringstream ta, tb;
  trace::writeTextTrace(a, ta);
  trace::writeTextTrace(b, tb);
  require(ta.str() == tb.str(), "a written trace reads back differently");
}

} // namespace racepredict::fuzz
