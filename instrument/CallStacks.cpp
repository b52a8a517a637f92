//===- instrument/CallStacks.cpp - Shadow call stacks
//----------------------===//
#include "CallStacks.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/EscapeEnumerator.h"

using namespace llvm;

namespace racepredict {
namespace {

GlobalVariable *callSiteSlot(Module &M, Type *I32) {
  if (GlobalVariable *GV = M.getNamedGlobal("__racepredict_callsite"))
    return GV;
  // Initial-exec: the slot lives in the executable's static TLS block (the
  // runtime is linked into the executable), so access is one mov.
  return new GlobalVariable(M, I32, false, GlobalValue::ExternalLinkage,
                            nullptr, "__racepredict_callsite", nullptr,
                            GlobalValue::InitialExecTLSModel);
}

/// Calls whose callee is certainly not instrumented code that would read
/// the slot: intrinsics, inline asm and our own hooks.
bool needsCallSite(const CallBase &CB) {
  if (isa<IntrinsicInst>(CB) || CB.isInlineAsm())
    return false;
  if (const Function *Callee = CB.getCalledFunction()) {
    StringRef N = Callee->getName();
    return !N.startswith("__racepredict") && !N.startswith("llvm.");
  }
  return true;
}

} // namespace

void instrumentCallStacks(Function &F, Hooks &H) {
  GlobalVariable *Slot = callSiteSlot(H.M, H.I32);
  SmallVector<CallBase *, 16> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (needsCallSite(*CB))
        Calls.push_back(CB);
  for (CallBase *CB : Calls) {
    IRBuilder<> IRB(CB);
    IRB.CreateStore(H.loc(IRB, *CB), Slot);
  }
  IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
  Entry.CreateCall(H.get("func_enter"), {});
  // Returns, and (HandleExceptions) every call that may unwind gets a
  // cleanup that pops the frame before resuming: a C++ exception leaves
  // the shadow stack balanced.
  EscapeEnumerator EE(F, "racepredict_cleanup", /*HandleExceptions=*/true);
  while (IRBuilder<> *AtExit = EE.Next())
    AtExit->CreateCall(H.get("func_exit"), {});
}

} // namespace racepredict
