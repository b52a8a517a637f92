//===- instrument/RepeatedDecisions.h - Decisions already recorded --------===//
//
// A decision on an SSA value that a dominating decision of the same function
// already decided adds no constraint to the maximal causal model: the value
// is computed before the earlier decision, so it depends only on reads
// before it, and whenever those read what they read in the recorded run the
// later decision goes the same way too. Under the plain rule the later
// branch would instead depend on every read between the two (typically the
// load whose address it guards, before the store to the same address), so
// dropping it records one event less and constrains the model less, which
// is still sound (Huang et al., PLDI 2014, section 3: a branch constrains
// only what its condition is computed from).
//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"

#include <utility>

namespace racepredict {

/// For each (site, decided value) of `F`, in order: true when another
/// decision on the same value dominates its site (of two at one site, the
/// later one is the repeat).
llvm::SmallVector<bool, 32> repeatedDecisions(
    llvm::Function &F,
    llvm::ArrayRef<std::pair<llvm::Instruction *, llvm::Value *>> Decisions);

} // namespace racepredict
