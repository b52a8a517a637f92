//===- instrument/BranchDeps.cpp - What a control decision depends on -----===//
#include "BranchDeps.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace racepredict {
namespace {
constexpr unsigned kMaxDepth = 24;
} // namespace

void BranchDependences::collect(Value *V, SmallSetVector<LoadInst *, 8> &Deps,
                                bool &Precise) {
  SmallPtrSet<Value *, 16> Seen;
  collect(V, Deps, Precise, Seen, 0);
}

void BranchDependences::collect(Value *V, SmallSetVector<LoadInst *, 8> &Deps,
                                bool &Precise, SmallPtrSetImpl<Value *> &Seen,
                                unsigned Depth) {
  if (!Precise || isa<Constant>(V) || isa<AllocaInst>(V) ||
      !Seen.insert(V).second)
    return;
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    if (ScalarLoads.count(LI)) {
      // Without a phi on the way, the load dominates the decision, so its
      // latest dynamic instance in this thread is the one that flowed here.
      Deps.insert(LI);
      if (Deps.size() > kMaxDeps)
        Precise = false;
      return;
    }
  }
  if (isa<PHINode>(V) || isa<LoadInst>(V)) {
    // A phi may carry a value from an earlier iteration, and a private
    // slot a value stored long ago: the latest instance of a load site is
    // then not necessarily the one that flowed here. Such values are fine
    // only when no read at all flows into them (loop counters, flags set
    // from constants): their choice between constants is made by earlier
    // branches, which are recorded themselves.
    SmallPtrSet<Value *, 16> FreeSeen;
    if (Depth > kMaxDepth || !loadFree(V, FreeSeen, 0))
      Precise = false;
    return;
  }
  if (Depth > kMaxDepth || isa<Argument>(V) || isa<CallBase>(V) ||
      isa<AtomicRMWInst>(V) || isa<AtomicCmpXchgInst>(V) ||
      !isa<Instruction>(V)) {
    // Values from callers, callees or atomics carry reads the pass cannot
    // name: the plain rule (all earlier reads) is the sound fallback.
    Precise = false;
    return;
  }
  for (Value *Op : cast<Instruction>(V)->operands())
    collect(Op, Deps, Precise, Seen, Depth + 1);
}

bool BranchDependences::loadFree(Value *V, SmallPtrSetImpl<Value *> &Seen,
                                 unsigned Depth) {
  if (isa<Constant>(V) || isa<AllocaInst>(V))
    return true;
  // A cycle (a phi feeding itself) adds nothing that the other operands do
  // not: the least fixed point is load-free when they are.
  if (!Seen.insert(V).second)
    return true;
  if (Depth > kMaxDepth || isa<Argument>(V) || isa<CallBase>(V) ||
      isa<AtomicRMWInst>(V) || isa<AtomicCmpXchgInst>(V) ||
      !isa<Instruction>(V))
    return false;
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    if (LI->isAtomic() || LI->isVolatile())
      return false;
    const Value *Obj = getUnderlyingObject(LI->getPointerOperand(), 12);
    if (auto *GV = dyn_cast<GlobalVariable>(Obj))
      return GV->isConstant();
    auto *AI = dyn_cast<AllocaInst>(const_cast<Value *>(Obj));
    if (!AI || IsShared(AI))
      return false;
    return privateSlotLoadFree(AI, Seen, Depth + 1);
  }
  for (Value *Op : cast<Instruction>(V)->operands())
    if (!loadFree(Op, Seen, Depth + 1))
      return false;
  return true;
}

bool BranchDependences::privateSlotLoadFree(AllocaInst *AI,
                                            SmallPtrSetImpl<Value *> &Seen,
                                            unsigned Depth) {
  // Every way the slot's contents can be set must store a load-free value;
  // anything else touching it (a call, memcpy, an unusual use) fails.
  SmallVector<Value *, 8> Work{AI};
  SmallPtrSet<Value *, 8> Visited;
  while (!Work.empty()) {
    Value *P = Work.pop_back_val();
    if (!Visited.insert(P).second)
      continue;
    for (User *U : P->users()) {
      if (isa<LoadInst>(U))
        continue;
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getPointerOperand() != P ||
            !loadFree(SI->getValueOperand(), Seen, Depth + 1))
          return false;
        continue;
      }
      if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U)) {
        Work.push_back(U);
        continue;
      }
      if (auto *II = dyn_cast<IntrinsicInst>(U))
        if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))
          continue;
      return false;
    }
  }
  return true;
}

} // namespace racepredict
