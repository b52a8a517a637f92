//===- trace/text_writer.cpp - Text trace writer
//---------------------------===//
//
// The inverse of the reader in text_format.cpp: parsing what this writes
// yields an equal trace (names, sources with their inlined chains, call
// stacks, the recording's stop).
#include "racepredict/trace/text_format.h"

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace racepredict::trace {
namespace {

/// `%XX` escapes in file and function names of `@` tokens: recorded C++
/// names have blanks (`thread<(lambda at a.cpp:11:17), void>`), which the
/// space-separated format could not otherwise carry.
bool needsEscape(unsigned char c, bool file) {
  return c <= ' ' || c == 0x7f || c == '#' || c == '%' || c == '@' ||
         (file && c == ':');
}

std::string escapeSourceName(const std::string &s, bool file) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (needsEscape(c, file)) {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string sourceToken(const Trace &t, SrcId id) {
  if (id == 0 || id >= t.sources.size())
    return " @-";
  const SourceLoc &s = t.sources[id];
  std::string out =
      " @" + escapeSourceName(s.file, true) + ":" + std::to_string(s.line);
  if (s.column || !s.function.empty())
    out += ":" + std::to_string(s.column);
  if (!s.function.empty())
    out += "@" + escapeSourceName(s.function, false);
  return out;
}

/// ` @loc @caller-site ...` for an event: its location (with the frames it
/// was inlined into) and its call stack; "" when it has neither.
std::string sourceSuffix(const Trace &t, EventId i) {
  const Event &e = t.events[i];
  bool hasSrc = e.src != 0 && e.src < t.sources.size();
  if (!hasSrc && t.stackOf(i) == 0)
    return "";
  // The event's own location with its inlined chain, then every call site
  // (unknown ones as `@-`, so the stack depth survives a round trip).
  std::string out;
  auto chain = [&](SrcId s) {
    if (s == 0 || s >= t.sources.size()) {
      out += sourceToken(t, 0);
      return;
    }
    for (size_t n = 0; s != 0 && s < t.sources.size() && n <= t.sources.size();
         ++n, s = t.sources[s].inlinedAt)
      out += sourceToken(t, s);
  };
  chain(e.src);
  for (uint32_t n = t.stackOf(i); n != 0; n = t.stackNodes[n].parent)
    chain(t.stackNodes[n].callSite);
  return out;
}

} // namespace

void writeTextTrace(const Trace &t, std::ostream &out) {
  const auto &locs = t.table(NameSpace::Location);
  std::vector<std::pair<SymId, int64_t>> inits(t.initValues.begin(),
                                               t.initValues.end());
  std::sort(inits.begin(), inits.end());
  for (auto &[l, v] : inits)
    out << "init " << locs.name(l) << " " << v << "\n";
  for (EventId i = 0; i < t.events.size(); ++i) {
    const Event &e = t.events[i];
    out << t.threadName(e.thread) << " " << opName(e.kind);
    std::string obj = t.objName(e);
    if (!obj.empty())
      out << " " << obj;
    switch (e.kind) {
    case EventKind::Read:
    case EventKind::Write:
    case EventKind::AtomicRead:
    case EventKind::AtomicWrite:
      out << " " << e.value;
      if (e.kind == EventKind::Write && t.hasDeps(e)) {
        out << " <-";
        auto [b, en] = t.deps(e);
        for (; b != en; ++b)
          out << " " << *b;
      }
      break;
    case EventKind::AtomicRmw:
      out << " " << e.value << " " << t.rmwReadValue(e);
      break;
    case EventKind::Branch:
      if (t.hasDeps(e)) {
        out << " <-";
        auto [b, en] = t.deps(e);
        for (; b != en; ++b)
          out << " " << *b;
      }
      break;
    case EventKind::Wait:
      out << " " << t.table(NameSpace::Lock).name(e.aux);
      if (e.extra != kNone)
        out << " <- " << e.extra;
      else
        out << " <- none";
      break;
    case EventKind::Barrier:
      out << " " << e.aux;
      break;
    case EventKind::SemInit:
      out << " " << e.value;
      break;
    case EventKind::Alloc:
    case EventKind::Free:
      out << " " << e.aux;
      break;
    case EventKind::Send:
    case EventKind::Recv:
      out << " " << e.value << " " << e.aux;
      break;
    case EventKind::Custom: {
      auto [b, en] = t.args(e);
      for (; b != en; ++b)
        out << " " << t.table(NameSpace::Custom).name(*b);
      break;
    }
    default:
      break;
    }
    if (e.flags & kEventTryAcquire)
      out << " try";
    if (e.flags & kEventPastDeadline)
      out << " late";
    out << sourceSuffix(t, i) << "\n";
  }
  if (t.stop) {
    out << "stop " << stopReasonName(t.stop->reason) << " " << t.stop->value;
    if (!t.stop->text.empty())
      out << " " << t.stop->text;
    out << "\n";
    for (const BlockedThread &b : t.stop->blocked) {
      bool has = false;
      out << "blocked " << t.threadName(b.thread) << " " << opName(b.op) << " "
          << t.table(objNameSpace(b.op, &has)).name(b.object)
          << sourceToken(t, b.loc) << "\n";
    }
  }
}

} // namespace racepredict::trace
