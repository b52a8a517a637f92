//===- test/fuzz/fuzz_binary_reader.cpp - libFuzzer: .rptrace reader ------===//
//
// Any bytes: the binary reader ends in a trace or an error naming the file
// and byte, never a crash, a hang or an allocation beyond the input. A
// trace it returns is one every later stage can take: well-formed ids, a
// consistency check that runs to its end, and an exact round trip through
// the binary writer (what `convert` relies on).
//
#include "fuzz_checks.h"

#include "racepredict/trace/binary_format.h"

#include <sstream>

using namespace racepredict;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::istringstream in(
      std::string(reinterpret_cast<const char *>(data), size));
  trace::ReadOptions opts;
  // The last byte picks the mode, so both readings of a cut file are tried.
  opts.allowTruncated = size && (data[size - 1] & 1);
  trace::ReadInfo info;
  auto t = trace::parseBinaryTrace(in, "fuzz.rptrace", opts, &info);
  if (!t) {
    fuzz::checkMessage(t.error().message, "fuzz.rptrace: ");
    return 0;
  }
  fuzz::checkTrace(*t);
  std::ostringstream out;
  trace::writeBinaryTrace(*t, out);
  std::istringstream again(out.str());
  auto back = trace::parseBinaryTrace(again, "again", {}, nullptr);
  fuzz::require(static_cast<bool>(back), "the writer's output does not read "
                                         "back");
  fuzz::requireSameTrace(*t, *back);
  return 0;
}
