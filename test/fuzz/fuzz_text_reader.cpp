//===- test/fuzz/fuzz_text_reader.cpp - libFuzzer: .rpt.txt reader --------===//
//
// Any text: the text reader ends in a trace or `NAME:LINE: message`, never
// a crash; a trace it returns passes the checks of fuzz_checks.h and reads
// back the same from what the text writer makes of it. The same input goes
// to the RAPID STD importer, the other line-based reader.
//
#include "fuzz_checks.h"

#include "racepredict/trace/std_format.h"
#include "racepredict/trace/text_format.h"

#include <sstream>

using namespace racepredict;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::istringstream std(text);
  auto s = trace::parseStdTrace(std, "fuzz.std");
  if (s)
    fuzz::checkTrace(*s);
  else
    fuzz::checkMessage(s.error().message, "fuzz.std");
  std::istringstream in(text);
  std::vector<uint32_t> lines;
  auto t = trace::parseTextTrace(in, "fuzz.rpt.txt", &lines);
  if (!t) {
    fuzz::checkMessage(t.error().message, "fuzz.rpt.txt:");
    return 0;
  }
  fuzz::require(lines.size() == t->events.size(), "a line per event");
  fuzz::checkTrace(*t);
  // Names the text format cannot spell are refused by `convert`; the rest
  // must round-trip.
  if (!fuzz::textSpellable(*t))
    return 0;
  std::ostringstream out;
  trace::writeTextTrace(*t, out);
  std::istringstream again(out.str());
  auto back = trace::parseTextTrace(again, "again");
  fuzz::require(static_cast<bool>(back),
                "the writer's output does not read back");
  fuzz::requireSameTrace(*t, *back);
  return 0;
}
