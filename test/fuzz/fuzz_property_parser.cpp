//===- test/fuzz/fuzz_property_parser.cpp - libFuzzer: property files -----===//
//
// Any text: the property parser (docs/properties.md) ends in properties
// or `NAME:LINE:COL: message`, never a crash or a hang; what it accepts
// prints (toString) without failing.
//
#include "fuzz_checks.h"

#include "racepredict/property/parser.h"

using namespace racepredict;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto ps = property::parseProperties(text, "fuzz.props");
  if (!ps) {
    fuzz::checkMessage(ps.error().message, "fuzz.props:");
    return 0;
  }
  for (const property::Property &p : *ps)
    for (const property::Pattern &pat : p.patterns)
      fuzz::require(!property::toString(pat).empty(), "a pattern prints");
  return 0;
}
