//===- report/stack.cpp - Call stacks of events, for every report ---------===//
#include "racepredict/report/report.h"

#include <ostream>

namespace racepredict::report {

std::vector<StackFrame> eventStack(const trace::Trace &t, trace::EventId e) {
  const trace::SourceLoc &src = t.sources[t.events[e].src];
  return {{src.function.empty() ? "??" : src.function,
           src.file.empty() ? "<no source location>" : src.str()}};
}

void printStack(const trace::Trace &t, trace::EventId e, std::ostream &out,
                const char *indent) {
  auto frames = eventStack(t, e);
  for (size_t i = 0; i < frames.size(); ++i)
    out << indent << "#" << i << " " << frames[i].function << " "
        << frames[i].location << "\n";
}

} // namespace racepredict::report
