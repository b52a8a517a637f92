//===- instrument/BranchDeps.h - What a control decision depends on -------===//
//
// The precise dependences of a branch (issue 9, docs/dependences.md): the
// instrumented loads whose values flow into its condition through SSA. A
// decision that reaches a load of unknown provenance (a call's result, a
// function argument, an atomic, a private slot or phi fed by reads) cannot
// name its reads and falls back to RVPredict's plain rule.
//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"

namespace racepredict {

class BranchDependences {
public:
  static constexpr unsigned kMaxDeps = 8;

  /// `scalarLoads`: the loads that get a hook (and a ticket); `isShared`:
  /// whether a pointer may reach memory other threads see.
  BranchDependences(const llvm::SmallPtrSetImpl<llvm::LoadInst *> &ScalarLoads,
                    llvm::function_ref<bool(llvm::Value *)> IsShared)
      : ScalarLoads(ScalarLoads), IsShared(IsShared) {}

  /// Adds the loads `V` depends on to `Deps`; clears `Precise` when they
  /// cannot be named exactly (then the plain rule applies).
  void collect(llvm::Value *V, llvm::SmallSetVector<llvm::LoadInst *, 8> &Deps,
               bool &Precise);

private:
  void collect(llvm::Value *V, llvm::SmallSetVector<llvm::LoadInst *, 8> &Deps,
               bool &Precise, llvm::SmallPtrSetImpl<llvm::Value *> &Seen,
               unsigned Depth);
  /// True when `V` is computed from constants, addresses and private values
  /// that are themselves such, without any read of shared memory.
  bool loadFree(llvm::Value *V, llvm::SmallPtrSetImpl<llvm::Value *> &Seen,
                unsigned Depth);
  bool privateSlotLoadFree(llvm::AllocaInst *AI,
                           llvm::SmallPtrSetImpl<llvm::Value *> &Seen,
                           unsigned Depth);

  const llvm::SmallPtrSetImpl<llvm::LoadInst *> &ScalarLoads;
  llvm::function_ref<bool(llvm::Value *)> IsShared;
};

} // namespace racepredict
