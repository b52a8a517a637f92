//===- instrument/RacePredictPass.h - The racepredict instrumentation pass ===//
#pragma once

#include "llvm/IR/PassManager.h"

namespace racepredict {

/// Rewrites shared memory accesses, atomics, control-flow decisions and
/// pthread/heap calls into calls of the recording runtime (abi/hooks.def),
/// and registers the module's location table from a constructor.
struct RacePredictPass : llvm::PassInfoMixin<RacePredictPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  /// Run at -O0 too (the new pass manager skips optional passes there).
  static bool isRequired() { return true; }
};

} // namespace racepredict
