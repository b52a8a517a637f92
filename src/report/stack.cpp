//===- report/stack.cpp - Call stacks of events, for every report ---------===//
#include "racepredict/report/report.h"

#include "racepredict/report/names.h"

#include <ostream>

namespace racepredict::report {

std::vector<StackFrame> eventStack(const trace::Trace &t, trace::EventId e) {
  std::vector<StackFrame> out;
  for (trace::SrcId s : t.frames(e)) {
    const trace::SourceLoc &l = t.sources[s];
    if (l.file.empty() && l.function.empty())
      continue;
    out.push_back({l.function.empty() ? "??" : functionName(l.function),
                   l.file.empty() ? "<no source location>" : locationText(l)});
  }
  if (out.empty())
    out.push_back({"??", "<no source location>"});
  return out;
}

std::vector<std::string> stackFrames(const trace::Trace &t, trace::EventId e) {
  std::vector<std::string> out;
  if (t.events[e].src == 0 && t.stackOf(e) == 0)
    return out;
  for (const StackFrame &f : eventStack(t, e))
    out.push_back(f.function + " " + f.location);
  return out;
}

namespace {

/// A frame in a system header or library (libstdc++'s std::thread and
/// std::mutex internals): shown once at the top, folded in between.
bool systemFrame(const trace::Trace &t, trace::SrcId s) {
  return t.sources[s].file.rfind("/usr/", 0) == 0;
}

} // namespace

StackFrame summaryFrame(const trace::Trace &t, trace::EventId e) {
  for (trace::SrcId s : t.frames(e)) {
    const trace::SourceLoc &l = t.sources[s];
    if (!l.file.empty() && !systemFrame(t, s))
      return {l.function.empty() ? "??" : functionName(l.function),
              locationText(l)};
  }
  return eventStack(t, e)[0];
}

void printStack(const trace::Trace &t, trace::EventId e, std::ostream &out,
                const char *indent) {
  auto frames = eventStack(t, e);
  // Which frames are system frames, in eventStack's order (frames without
  // a location are not in it).
  std::vector<bool> system;
  for (trace::SrcId s : t.frames(e)) {
    const trace::SourceLoc &l = t.sources[s];
    if (!l.file.empty() || !l.function.empty())
      system.push_back(systemFrame(t, s));
  }
  system.resize(frames.size(), false);
  for (size_t i = 0; i < frames.size(); ++i) {
    // The innermost frame always; a run of two or more system frames
    // below it in one line (--format json lists every frame).
    size_t j = i;
    while (i > 0 && j < frames.size() && system[j])
      ++j;
    if (j - i >= 2) {
      out << indent << "#" << i << "-#" << j - 1 << " … " << j - i
          << " frames in system headers …\n";
      i = j - 1;
      continue;
    }
    out << indent << "#" << i << " " << frames[i].function << " "
        << frames[i].location << "\n";
  }
}

} // namespace racepredict::report
