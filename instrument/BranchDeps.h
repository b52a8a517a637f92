//===- instrument/BranchDeps.h - What a control decision depends on -------===//
//
// The precise dependences of a branch (issue 9, docs/dependences.md): the
// read instances whose values flow into its condition through SSA. A
// dependence is an instrumented load (its latest instance) or a phi that
// carries the value of exactly one read instance (a loop-carried reload,
// say), named at run time by a parallel phi of read seqs. A decision that
// reaches a value of unknown provenance (a call's result, an atomic, a
// private slot or phi fed by several reads) cannot name its reads and falls
// back to RVPredict's plain rule. A function argument or a call's result is
// fixed by the reads before the call: the pass records one plain branch at
// function entry or right after the call for such decisions, which stay
// precise.
//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"

namespace racepredict {

class BranchDependences {
public:
  static constexpr unsigned kMaxDeps = 8;
  /// The seq a dependence carries when no read flowed into it on the path
  /// taken (a phi's read-free incoming value): the runtime skips it.
  static constexpr uint64_t kNoRead = ~uint64_t{0};

  /// `scalarLoads`: the loads that get a hook (and a seq); `isShared`:
  /// whether a pointer may reach memory other threads see.
  BranchDependences(const llvm::SmallPtrSetImpl<llvm::LoadInst *> &ScalarLoads,
                    llvm::function_ref<bool(llvm::Value *)> IsShared)
      : ScalarLoads(ScalarLoads), IsShared(IsShared) {}

  /// What a decision depends on.
  struct Dependences {
    /// Loads and one-read phis/selects: the read instances, named by seq.
    llvm::SmallSetVector<llvm::Value *, 8> Reads;
    /// Arguments and call results: fixed by every read before the call,
    /// for which a plain branch at function entry / right after the call
    /// stands (the pass records it).
    llvm::SmallSetVector<llvm::Value *, 4> Anchors;
    /// Cleared when the reads cannot be named: the plain rule applies.
    bool Precise = true;
  };
  void collect(llvm::Value *V, Dependences &D);

  /// The i64 seq of the read instance a dependence from collect() carries,
  /// building the parallel phis of seqs it needs; `LoadSeq` gives a load's
  /// seq (the pass's read of __racepredict_read_seq after its hook).
  llvm::Value *
  seqOf(llvm::Value *Dep,
        llvm::function_ref<llvm::Value *(llvm::LoadInst *)> LoadSeq);

  /// A call whose result no reordering of the model changes.
  static bool resultFixedBySyncEvent(const llvm::CallInst &CI);

private:
  /// How many read instances a phi's value can carry.
  enum class Carry { ReadFree, Cycle, OneRead, Bad };
  void collect(llvm::Value *V, Dependences &D,
               llvm::SmallPtrSetImpl<llvm::Value *> &Seen, unsigned Depth);
  Carry carried(llvm::Value *V, llvm::SmallPtrSetImpl<llvm::Value *> &Open,
                unsigned Depth);
  /// True when `V` is computed from constants, addresses and private values
  /// that are themselves such, without any read of shared memory.
  bool loadFree(llvm::Value *V, llvm::SmallPtrSetImpl<llvm::Value *> &Seen,
                unsigned Depth);
  bool privateSlotLoadFree(llvm::AllocaInst *AI,
                           llvm::SmallPtrSetImpl<llvm::Value *> &Seen,
                           unsigned Depth);
  bool isLoadFree(llvm::Value *V) {
    llvm::SmallPtrSet<llvm::Value *, 16> Seen;
    return loadFree(V, Seen, 0);
  }

  const llvm::SmallPtrSetImpl<llvm::LoadInst *> &ScalarLoads;
  llvm::function_ref<bool(llvm::Value *)> IsShared;
  llvm::DenseMap<llvm::PHINode *, llvm::PHINode *> SeqPhis;
  llvm::DenseMap<llvm::SelectInst *, llvm::SelectInst *> SeqSelects;
  unsigned Visits = 0; ///< carried() steps of the current walk
};

} // namespace racepredict
