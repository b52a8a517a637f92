//===- instrument/DecisionCalls.cpp - The runtime calls of a decision -----===//
#include "DecisionCalls.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace racepredict {
namespace {

/// A new block, entered when `Cond` holds (rarely), before `Site`; returns
/// its terminator (insert the call before it).
Instruction *unlikelyBlockBefore(Value *Cond, Instruction *Site) {
  MDNode *Weights = MDBuilder(Site->getContext()).createBranchWeights(1, 100);
  return SplitBlockAndInsertIfThen(Cond, Site, /*Unreachable=*/false, Weights);
}

} // namespace

void emitPlainDecision(Hooks &H, Instruction *Site,
                       const Instruction *LocatedAt) {
  IRBuilder<> IRB(Site);
  IRB.CreateCall(H.get("branch"), {H.loc(IRB, LocatedAt ? *LocatedAt : *Site)});
}

void emitPrivateDecision(Hooks &H, Instruction *Site) {
  IRBuilder<> IRB(Site);
  Type *I8 = IRB.getInt8Ty();
  Constant *Flag = H.M.getOrInsertGlobal("__racepredict_plain_branches", I8);
  Value *On = IRB.CreateICmpNE(IRB.CreateLoad(I8, Flag, "rp.plain"),
                               ConstantInt::get(I8, 0));
  IRBuilder<> Call(unlikelyBlockBefore(On, Site));
  Call.CreateCall(H.get("branch_private"), {H.loc(Call, *Site)});
}

void emitPreciseDecision(Hooks &H, Instruction *Site, ArrayRef<Value *> Seqs,
                         AllocaInst *DepArray) {
  Function &F = *Site->getFunction();
  // This site's seqs at its last call in this invocation (0: none yet).
  auto *CacheTy = ArrayType::get(H.I64, Seqs.size());
  IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
  AllocaInst *Cache = Entry.CreateAlloca(CacheTy, nullptr, "rp.lastdeps");
  Entry.CreateStore(ConstantAggregateZero::get(CacheTy), Cache);

  IRBuilder<> IRB(Site);
  Value *Same = nullptr;
  for (unsigned I = 0; I < Seqs.size(); ++I) {
    Value *Slot = IRB.CreateConstInBoundsGEP2_32(CacheTy, Cache, 0, I);
    Value *Last = IRB.CreateLoad(H.I64, Slot, "rp.last");
    // A 0 seq (an unrecorded read) is never the same: the runtime must see
    // it to fall back to the plain rule.
    Value *Eq = IRB.CreateAnd(IRB.CreateICmpEQ(Seqs[I], Last),
                              IRB.CreateICmpNE(Seqs[I], IRB.getInt64(0)));
    Same = Same ? IRB.CreateAnd(Same, Eq) : Eq;
  }
  IRBuilder<> Call(unlikelyBlockBefore(IRB.CreateNot(Same), Site));
  for (unsigned I = 0; I < Seqs.size(); ++I) {
    Call.CreateStore(Seqs[I],
                     Call.CreateConstInBoundsGEP2_32(CacheTy, Cache, 0, I));
    Call.CreateStore(
        Seqs[I], Call.CreateConstInBoundsGEP2_32(DepArray->getAllocatedType(),
                                                 DepArray, 0, I));
  }
  Call.CreateCall(H.get("branch_deps"),
                  {H.loc(Call, *Site), Call.CreatePointerCast(DepArray, H.I8P),
                   ConstantInt::get(H.I32, Seqs.size())});
}

} // namespace racepredict
