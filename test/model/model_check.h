//===- test/model/model_check.h - Predictor vs enumerator on one trace ----===//
//
// Shared by the differential and paper-example tests: runs the SMT
// predictor (all pairs; default pipeline, solver only, solver without the
// cheap filters) and the
// brute-force enumerator on one text trace and reports every disagreement
// with the trace text and both race sets, so a failure is debuggable from
// the log alone.
//
#pragma once

#include "enumerator.h"

#include <set>
#include <string>
#include <utility>

namespace racepredict::testsupport {

using Pairs = std::set<std::pair<uint32_t, uint32_t>>;

struct ModelCheck {
  bool ok = true;
  std::string message; ///< all disagreements (empty when ok)
  Pairs enumerated;    ///< the enumerator's races
  size_t states = 0;
};

/// `reproducible`: the trace's observed order must itself be a complete
/// schedule of the model (true for traces of real executions).
ModelCheck checkAgainstModel(const std::string &text, bool reproducible,
                             bool alsoNoFilters);

std::string formatPairs(const Pairs &p);

} // namespace racepredict::testsupport
