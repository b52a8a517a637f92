//===- trace/std_format.h - RAPID "STD" trace import ----------------------===//
//
// Lines `T<thread>|<op>(<arg>)|<loc>` with ops r w acq rel fork join begin end
// (the format of the RAPID predictive-analysis benchmarks). STD traces carry
// no values: every access gets the value 0 and every location `init 0`, and
// no branches are emitted, so reads never constrain a reordering; see
// std_format.cpp for the exact import rules.
//
#pragma once

#include "racepredict/support/error.h"
#include "racepredict/trace/trace.h"

#include <iosfwd>
#include <string>

namespace racepredict::trace {

Expected<Trace> parseStdTrace(std::istream &in, const std::string &name);

} // namespace racepredict::trace
