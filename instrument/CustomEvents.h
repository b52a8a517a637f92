//===- instrument/CustomEvents.h - Spec entries become custom-event calls -===//
//
// Runs at PipelineStart, before inlining and optimisation, so that "body F"
// and "call F" still see F's body and call sites when F will be inlined
// later, and global accesses are still the source's. It inserts calls to
// __racepredict_custom(desc, a0..a3, loc) with loc = 0; the instrumentation
// pass (OptimizerLast) fills in the source location id, since only it owns
// the module's location table.
//
#pragma once

#include "Hooks.h"

#include "llvm/IR/PassManager.h"

namespace racepredict {

class CustomEventsPass : public llvm::PassInfoMixin<CustomEventsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Gives every __racepredict_custom call its source location id (the last
/// argument) from the instrumentation pass's location table.
void assignCustomEventLocations(llvm::Module &M, Hooks &H);

} // namespace racepredict
