//===- instrument/events_check_main.cpp - Check an --events spec ----------===//
//
// `racepredict-events-check SPEC`: exit 0 if the spec parses, else print
// "FILE:LINE: message" and exit 2. The wrappers run it before clang so that
// a bad spec is reported once, as a usage error, not per translation unit.
//
#include "EventSpec.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: racepredict-events-check SPEC\n");
    return 2;
  }
  racepredict::SpecParseResult r = racepredict::parseEventSpecFile(argv[1]);
  if (!r.ok) {
    std::fprintf(stderr, "racepredict-cc: %s\n", r.error.c_str());
    return 2;
  }
  return 0;
}
