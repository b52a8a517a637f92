//===- property/builtins.h - The `@kind` event classes --------------------===//
//
// Private to src/property: `@acq`, `@rd`, ... (DESIGN.md's mnemonics) and
// the groups `@read`, `@write`, `@access`, `@lock`, `@notify`, `@ev`.
//
#pragma once

#include "racepredict/trace/event.h"

#include <string>
#include <vector>

namespace racepredict::property {

/// The event kinds `@name` matches, or nullptr for an unknown name.
const std::vector<trace::EventKind> *builtinKinds(const std::string &name);

} // namespace racepredict::property
