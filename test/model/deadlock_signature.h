//===- deadlock_signature.h - Deadlock sets as the model tests print them
//--===//
#pragma once

#include "racepredict/analysis/deadlock.h"

#include <set>
#include <string>
#include <vector>

namespace racepredict::testsupport {

/// A deadlock as the set of its blocked events, sorted.
using Signature = std::vector<analysis::EventId>;

/// "{(3,9) (4,10)}".
inline std::string formatSignatures(const std::set<Signature> &s) {
  std::string out = "{";
  for (const auto &sig : s) {
    out += out.size() > 1 ? " (" : "(";
    for (size_t i = 0; i < sig.size(); ++i)
      out += (i ? "," : "") + std::to_string(sig[i]);
    out += ")";
  }
  return out + "}";
}

} // namespace racepredict::testsupport
