//===- report/stack.cpp - Call stacks of events, for every report ---------===//
#include "racepredict/report/report.h"

#include <ostream>

namespace racepredict::report {

std::vector<StackFrame> eventStack(const trace::Trace &t, trace::EventId e) {
  std::vector<StackFrame> out;
  for (trace::SrcId s : t.frames(e)) {
    const trace::SourceLoc &l = t.sources[s];
    if (l.file.empty() && l.function.empty())
      continue;
    out.push_back({l.function.empty() ? "??" : l.function,
                   l.file.empty() ? "<no source location>" : l.str()});
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

void printStack(const trace::Trace &t, trace::EventId e, std::ostream &out,
                const char *indent) {
  auto frames = eventStack(t, e);
  for (size_t i = 0; i < frames.size(); ++i)
    out << indent << "#" << i << " " << frames[i].function << " "
        << frames[i].location << "\n";
}

} // namespace racepredict::report
