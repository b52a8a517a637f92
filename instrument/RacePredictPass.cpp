//===- instrument/RacePredictPass.cpp - Instrument one module -------------===//
//
// Per function: (1) collect the accesses to instrument (escaping memory
// only), the control-flow decisions and the pthread/heap calls; (2) compute
// the precise dependences of each decision (BranchDeps.h: the instrumented
// loads that feed it through SSA, without calls, and phis that carry one
// read); (3) rewrite. Loads that feed a decision also read
// __racepredict_read_seq right after their hook, so the branch can name
// exactly the dynamic reads it depends on.
//
#include "RacePredictPass.h"

#include "BranchDeps.h"
#include "CallStacks.h"
#include "CustomEvents.h"
#include "DecisionCalls.h"
#include "FormatCalls.h"
#include "Hooks.h"
#include "RepeatedDecisions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::opt<bool> ClAddrDeps(
    "racepredict-address-branches", cl::init(true), cl::Hidden,
    cl::desc("Record a branch before accesses whose address is computed "
             "from earlier reads (RVPredict's address dependences)"));
static cl::opt<bool> ClWriteDeps(
    "racepredict-write-deps", cl::init(true), cl::Hidden,
    cl::desc("Record for each plain store the reads its value depends on "
             "(issue 20); off: every write depends on all earlier reads"));
static cl::opt<bool> ClDropRepeated(
    "racepredict-drop-repeated-decisions", cl::init(true), cl::Hidden,
    cl::desc("Record no decision on a value that a dominating decision "
             "already decided (RepeatedDecisions.h)"));

namespace racepredict {
namespace {

const char *const kIntercepts[] = {
#define INTERCEPT(name) #name,
#define REWRITE(name) #name,
#include "racepredict/abi/hooks.def"
};

constexpr unsigned kMaxDeps = BranchDependences::kMaxDeps;

/// A decision to record: a branch site and what its condition depends on.
struct Decision {
  Decision(Instruction *S, Value *C) : Site(S), Cond(C) {}
  Instruction *Site;
  Value *Cond;
  /// Loads and one-read phis (BranchDeps.h), filled before any rewriting.
  SmallVector<Value *, kMaxDeps> Deps;
  bool Precise = true;
};

class FunctionInstrumenter {
public:
  FunctionInstrumenter(Function &F, Hooks &H, const StringSet<> &Intercepts)
      : F(F), H(H), DL(F.getParent()->getDataLayout()), Intercepts(Intercepts) {
  }
  bool run();

private:
  bool isShared(Value *Ptr);
  bool isScalar(Type *T) const;
  void emitDecision(const Decision &D);
  void emitAnchorBranches(ArrayRef<Value *> Anchors);
  void rewriteLoad(LoadInst *LI);
  void rewriteStore(StoreInst *SI);
  void rewriteRmw(AtomicRMWInst *RI);
  void rewriteCas(AtomicCmpXchgInst *CI);
  void rewriteMemIntrinsic(MemIntrinsic *MI);
  void rewriteCall(CallInst *CI);
  void addObjectDecisions(CallInst &CI, SmallVectorImpl<Decision> &Out);
  Value *toInt(IRBuilder<> &IRB, Value *V, unsigned Bytes);
  Value *fromInt(IRBuilder<> &IRB, Value *V, Type *T);
  AllocaInst *entryAlloca(Type *T);

  Function &F;
  Hooks &H;
  const DataLayout &DL;
  const StringSet<> &Intercepts;
  DenseMap<const AllocaInst *, bool> Escapes;
  /// Instrumented scalar loads (the only ones a decision can depend on).
  SmallPtrSet<LoadInst *, 32> ScalarLoads;
  /// The seq value of each dependence some decision or store needs.
  DenseMap<Value *, Value *> Seqs;
  /// Plain scalar stores whose value depends only on these reads (loads
  /// and one-read phis, BranchDeps.h; empty: a constant or private value).
  DenseMap<StoreInst *, SmallVector<Value *, kMaxDeps>> StoreDeps;
  AllocaInst *DepArray = nullptr;
  AllocaInst *depArray() {
    if (!DepArray)
      DepArray = entryAlloca(ArrayType::get(H.I64, kMaxDeps));
    return DepArray;
  }
};

bool FunctionInstrumenter::isShared(Value *Ptr) {
  if (Ptr->getType()->getPointerAddressSpace() != 0)
    return false;
  const Value *Obj = getUnderlyingObject(Ptr, 12);
  if (auto *GV = dyn_cast<GlobalVariable>(Obj)) {
    // Constants never change; llvm.* and our own globals are not program
    // memory.
    if (GV->isConstant() || GV->getName().startswith("llvm.") ||
        GV->getName().startswith("__racepredict"))
      return false;
    // Thread-local variables cannot be shared (unless their address is
    // passed on, which the pointer would then not show).
    return !GV->isThreadLocal();
  }
  if (auto *AI = dyn_cast<AllocaInst>(Obj)) {
    auto It = Escapes.find(AI);
    if (It != Escapes.end())
      return It->second;
    bool E = PointerMayBeCaptured(AI, /*ReturnCaptures=*/true,
                                  /*StoreCaptures=*/true);
    Escapes[AI] = E;
    return E;
  }
  return true;
}

bool FunctionInstrumenter::isScalar(Type *T) const {
  if (!T->isSized() || T->isAggregateType())
    return false;
  uint64_t Bytes = DL.getTypeStoreSize(T);
  if (Bytes != 1 && Bytes != 2 && Bytes != 4 && Bytes != 8)
    return false;
  if (T->isIntegerTy())
    return T->getIntegerBitWidth() == 1 || T->getIntegerBitWidth() == Bytes * 8;
  if (T->isPointerTy())
    return DL.getTypeSizeInBits(T) == Bytes * 8;
  // float, double, half and small vectors: bit-cast to an integer.
  return (T->isFloatingPointTy() || T->isVectorTy()) &&
         DL.getTypeSizeInBits(T) == Bytes * 8 && !T->isX86_FP80Ty();
}

AllocaInst *FunctionInstrumenter::entryAlloca(Type *T) {
  IRBuilder<> IRB(&*F.getEntryBlock().getFirstInsertionPt());
  return IRB.CreateAlloca(T, nullptr, "rp.tmp");
}

void FunctionInstrumenter::emitDecision(const Decision &D) {
  if (D.Precise && D.Deps.empty()) {
    // Decided by constants and private values alone: no event, unless the
    // run asks for RVPredict's conservative rule (branch_deps=all).
    emitPrivateDecision(H, D.Site);
    return;
  }
  if (!D.Precise) {
    emitPlainDecision(H, D.Site);
    return;
  }
  SmallVector<Value *, kMaxDeps> DepSeqs;
  for (Value *Dep : D.Deps)
    DepSeqs.push_back(Seqs.lookup(Dep));
  emitPreciseDecision(H, D.Site, DepSeqs, depArray());
}

void FunctionInstrumenter::emitAnchorBranches(ArrayRef<Value *> Anchors) {
  bool Entry = false;
  for (Value *A : Anchors) {
    if (isa<Argument>(A)) {
      Entry = true;
      continue;
    }
    auto *CI = cast<CallInst>(A);
    emitPlainDecision(H, CI->getNextNode(), CI);
  }
  if (!Entry)
    return;
  BasicBlock &EntryBB = F.getEntryBlock();
  Instruction *At = &*EntryBB.getFirstInsertionPt();
  // The location of the function's first statement.
  Instruction *Located = At;
  for (Instruction &I : EntryBB)
    if (I.getDebugLoc()) {
      Located = &I;
      break;
    }
  emitPlainDecision(H, At, Located);
}

Value *FunctionInstrumenter::toInt(IRBuilder<> &IRB, Value *V, unsigned Bytes) {
  Type *IT = IRB.getIntNTy(Bytes * 8);
  Type *T = V->getType();
  if (T == IT)
    return V;
  if (T->isIntegerTy())
    return IRB.CreateZExt(V, IT); // i1
  if (T->isPointerTy())
    return IRB.CreatePtrToInt(V, IT);
  return IRB.CreateBitCast(V, IT);
}

Value *FunctionInstrumenter::fromInt(IRBuilder<> &IRB, Value *V, Type *T) {
  if (V->getType() == T)
    return V;
  if (T->isIntegerTy())
    return IRB.CreateTrunc(V, T);
  if (T->isPointerTy())
    return IRB.CreateIntToPtr(V, T);
  return IRB.CreateBitCast(V, T);
}

void FunctionInstrumenter::rewriteLoad(LoadInst *LI) {
  IRBuilder<> IRB(LI);
  Type *T = LI->getType();
  Value *Loc = H.loc(IRB, *LI);
  Value *Ptr = IRB.CreatePointerCast(LI->getPointerOperand(), H.I8P);
  Value *V;
  if (isScalar(T)) {
    unsigned Bytes = DL.getTypeStoreSize(T);
    std::string Name =
        (LI->isAtomic() ? "atomic_load" : "load") + std::to_string(Bytes);
    V = fromInt(IRB, IRB.CreateCall(H.get(Name), {Ptr, Loc}), T);
  } else {
    AllocaInst *Tmp = entryAlloca(T);
    IRB.CreateCall(H.get("load_range"),
                   {Ptr, IRB.CreatePointerCast(Tmp, H.I8P),
                    ConstantInt::get(H.I64, DL.getTypeStoreSize(T)), Loc});
    V = IRB.CreateLoad(T, Tmp);
  }
  V->takeName(LI);
  LI->replaceAllUsesWith(V);
  LI->eraseFromParent();
}

void FunctionInstrumenter::rewriteStore(StoreInst *SI) {
  IRBuilder<> IRB(SI);
  Value *Val = SI->getValueOperand();
  Type *T = Val->getType();
  Value *Loc = H.loc(IRB, *SI);
  Value *Ptr = IRB.CreatePointerCast(SI->getPointerOperand(), H.I8P);
  auto Deps = StoreDeps.find(SI);
  if (isScalar(T) && Deps != StoreDeps.end()) {
    // store_depsN(addr, value, loc, seqs, n): its value's reads (issue 20).
    unsigned Bytes = DL.getTypeStoreSize(T);
    AllocaInst *Arr = depArray();
    for (unsigned I = 0; I < Deps->second.size(); ++I)
      IRB.CreateStore(
          Seqs.lookup(Deps->second[I]),
          IRB.CreateConstInBoundsGEP2_32(Arr->getAllocatedType(), Arr, 0, I));
    IRB.CreateCall(H.get("store_deps" + std::to_string(Bytes)),
                   {Ptr, toInt(IRB, Val, Bytes), Loc,
                    IRB.CreatePointerCast(Arr, H.I8P),
                    ConstantInt::get(H.I32, Deps->second.size())});
  } else if (isScalar(T)) {
    unsigned Bytes = DL.getTypeStoreSize(T);
    std::string Name =
        (SI->isAtomic() ? "atomic_store" : "store") + std::to_string(Bytes);
    IRB.CreateCall(H.get(Name), {Ptr, toInt(IRB, Val, Bytes), Loc});
  } else {
    AllocaInst *Tmp = entryAlloca(T);
    IRB.CreateStore(Val, Tmp);
    IRB.CreateCall(H.get("store_range"),
                   {Ptr, IRB.CreatePointerCast(Tmp, H.I8P),
                    ConstantInt::get(H.I64, DL.getTypeStoreSize(T)), Loc});
  }
  SI->eraseFromParent();
}

void FunctionInstrumenter::rewriteRmw(AtomicRMWInst *RI) {
  IRBuilder<> IRB(RI);
  Type *T = RI->getType();
  unsigned Bytes = DL.getTypeStoreSize(T);
  Value *Loc = H.loc(IRB, *RI);
  Value *Ptr = IRB.CreatePointerCast(RI->getPointerOperand(), H.I8P);
  // hooks.def's RP_RMW_* follow AtomicRMWInst::BinOp's order.
  Value *Op = ConstantInt::get(H.I32, RI->getOperation());
  Value *Old =
      IRB.CreateCall(H.get("atomic_rmw" + std::to_string(Bytes)),
                     {Ptr, toInt(IRB, RI->getValOperand(), Bytes), Op, Loc});
  Value *V = fromInt(IRB, Old, T);
  V->takeName(RI);
  RI->replaceAllUsesWith(V);
  RI->eraseFromParent();
}

void FunctionInstrumenter::rewriteCas(AtomicCmpXchgInst *CI) {
  IRBuilder<> IRB(CI);
  Type *T = CI->getCompareOperand()->getType();
  unsigned Bytes = DL.getTypeStoreSize(T);
  Value *Loc = H.loc(IRB, *CI);
  Value *Ptr = IRB.CreatePointerCast(CI->getPointerOperand(), H.I8P);
  Value *Exp = toInt(IRB, CI->getCompareOperand(), Bytes);
  Value *Old = IRB.CreateCall(
      H.get("atomic_cas" + std::to_string(Bytes)),
      {Ptr, Exp, toInt(IRB, CI->getNewValOperand(), Bytes), Loc});
  Value *Ok = IRB.CreateICmpEQ(Old, Exp);
  Value *R = UndefValue::get(CI->getType());
  R = IRB.CreateInsertValue(R, fromInt(IRB, Old, T), 0);
  R = IRB.CreateInsertValue(R, Ok, 1);
  CI->replaceAllUsesWith(R);
  CI->eraseFromParent();
}

void FunctionInstrumenter::rewriteMemIntrinsic(MemIntrinsic *MI) {
  IRBuilder<> IRB(MI);
  Value *Loc = H.loc(IRB, *MI);
  Value *Dst = IRB.CreatePointerCast(MI->getRawDest(), H.I8P);
  Value *Len = IRB.CreateZExtOrTrunc(MI->getLength(), H.I64);
  if (auto *MS = dyn_cast<MemSetInst>(MI)) {
    IRB.CreateCall(H.get("memset"), {Dst, MS->getValue(), Len, Loc});
  } else {
    auto *MT = cast<MemTransferInst>(MI);
    Value *Src = IRB.CreatePointerCast(MT->getRawSource(), H.I8P);
    IRB.CreateCall(H.get(isa<MemMoveInst>(MT) ? "memmove" : "memcpy"),
                   {Dst, Src, Len, Loc});
  }
  MI->eraseFromParent();
}

void FunctionInstrumenter::rewriteCall(CallInst *CI) {
  Function *Callee = CI->getCalledFunction();
  FunctionType *FT = Callee->getFunctionType();
  SmallVector<Type *, 6> Params(FT->param_begin(), FT->param_end());
  Params.push_back(H.I32);
  FunctionCallee Hook = F.getParent()->getOrInsertFunction(
      ("__racepredict_" + Callee->getName()).str(),
      FunctionType::get(FT->getReturnType(), Params, false));
  IRBuilder<> IRB(CI);
  SmallVector<Value *, 6> Args(CI->arg_begin(), CI->arg_end());
  Args.push_back(H.loc(IRB, *CI));
  CallInst *New = IRB.CreateCall(Hook, Args);
  if (CI->doesNotReturn())
    New->setDoesNotReturn();
  New->takeName(CI);
  CI->replaceAllUsesWith(New);
  CI->eraseFromParent();
}

bool FunctionInstrumenter::run() {
  SmallVector<Instruction *, 64> Accesses;
  SmallVector<Decision, 32> Decisions;
  SmallVector<CallInst *, 8> Calls;
  SmallVector<CallInst *, 4> FormatCalls;
  SmallVector<AllocaInst *, 8> StackObjects;
  for (Instruction &I : instructions(F)) {
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      bool Scalar = isScalar(LI->getType());
      if ((Scalar || !LI->isAtomic()) && isShared(LI->getPointerOperand())) {
        Accesses.push_back(LI);
        if (Scalar)
          ScalarLoads.insert(LI);
      }
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if ((isScalar(SI->getValueOperand()->getType()) || !SI->isAtomic()) &&
          isShared(SI->getPointerOperand()))
        Accesses.push_back(SI);
    } else if (auto *RI = dyn_cast<AtomicRMWInst>(&I)) {
      if (isScalar(RI->getType()) && isShared(RI->getPointerOperand()))
        Accesses.push_back(RI);
    } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
      if (isScalar(CX->getCompareOperand()->getType()) &&
          isShared(CX->getPointerOperand()))
        Accesses.push_back(CX);
    } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      auto *MT = dyn_cast<MemTransferInst>(MI);
      if (isShared(MI->getRawDest()) || (MT && isShared(MT->getRawSource())))
        Accesses.push_back(MI);
    } else if (auto *BI = dyn_cast<BranchInst>(&I)) {
      if (BI->isConditional() && !isa<Constant>(BI->getCondition()))
        Decisions.emplace_back(BI, BI->getCondition());
    } else if (auto *SW = dyn_cast<SwitchInst>(&I)) {
      if (!isa<Constant>(SW->getCondition()))
        Decisions.emplace_back(SW, SW->getCondition());
    } else if (auto *IB = dyn_cast<IndirectBrInst>(&I)) {
      Decisions.emplace_back(IB, IB->getAddress());
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      Function *Callee = CB->getCalledFunction();
      if (!Callee && !CB->isInlineAsm())
        Decisions.emplace_back(CB, CB->getCalledOperand());
      // A function the module defines itself is the program's own, not
      // libc's, whatever its name (a logger's own puts, say).
      else if (Callee && isa<CallInst>(CB) && !Callee->isVarArg() &&
               Callee->isDeclarationForLinker() &&
               Intercepts.count(Callee->getName()) &&
               !readsOnlyConstantData(*cast<CallInst>(CB))) {
        Calls.push_back(cast<CallInst>(CB));
        addObjectDecisions(*cast<CallInst>(CB), Decisions);
      } else if (Callee && isa<CallInst>(CB) && Callee->isVarArg() &&
                 Callee->isDeclarationForLinker() &&
                 isFormatFunction(Callee->getName())) {
        FormatCalls.push_back(cast<CallInst>(CB));
      }
    } else if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      if (AI->isStaticAlloca() && isShared(AI))
        StackObjects.push_back(AI);
    }
  }
  if (ClAddrDeps)
    for (Instruction *I : Accesses)
      if (Value *P = getLoadStorePointerOperand(I))
        if (!isa<Constant>(P))
          Decisions.emplace_back(I, P);
  if (Accesses.empty() && Decisions.empty() && Calls.empty() &&
      FormatCalls.empty())
    return false;
  if (ClDropRepeated) {
    SmallVector<std::pair<Instruction *, Value *>, 32> Sites;
    for (const Decision &D : Decisions)
      Sites.emplace_back(D.Site, D.Cond);
    SmallVector<bool, 32> Repeated = repeatedDecisions(F, Sites);
    unsigned Kept = 0;
    for (unsigned I = 0; I < Decisions.size(); ++I)
      if (!Repeated[I])
        Decisions[Kept++] = Decisions[I];
    Decisions.truncate(Kept);
  }

  // Dependences are computed on the original IR; each load some decision
  // depends on gets its ticket read right after it (after its hook, once
  // the load is rewritten below).
  auto IsShared = [this](Value *P) { return isShared(P); };
  BranchDependences BD(ScalarLoads, IsShared); // keeps a reference to it
  auto LoadSeq = [&](LoadInst *LI) {
    Value *&S = Seqs[LI];
    if (!S) {
      IRBuilder<> IRB(LI->getNextNode());
      S = IRB.CreateLoad(H.I64, H.readSeqSlot(), "rp.seq");
    }
    return S;
  };
  SmallSetVector<Value *, 8> Anchors;
  for (Decision &D : Decisions) {
    BranchDependences::Dependences Deps;
    BD.collect(D.Cond, Deps);
    for (Value *A : Deps.Anchors)
      if (auto *CI = dyn_cast<CallInst>(A); CI && CI->isMustTailCall())
        Deps.Precise = false; // nothing may come between it and the return
    D.Precise = Deps.Precise;
    if (!D.Precise)
      continue;
    Anchors.insert(Deps.Anchors.begin(), Deps.Anchors.end());
    D.Deps.assign(Deps.Reads.begin(), Deps.Reads.end());
    for (Value *Dep : D.Deps)
      if (!Seqs.count(Dep)) {
        Value *S = BD.seqOf(Dep, LoadSeq);
        Seqs[Dep] = S;
      }
  }
  // A plain store's value, as a decision's condition: the reads it comes
  // from by SSA use-def (docs/dependences.md). Arguments and call results
  // would need the reads before the call: such a store stays plain.
  if (ClWriteDeps)
    for (Instruction *I : Accesses) {
      auto *SI = dyn_cast<StoreInst>(I);
      if (!SI || SI->isAtomic() || !isScalar(SI->getValueOperand()->getType()))
        continue;
      BranchDependences::Dependences Deps;
      BD.collect(SI->getValueOperand(), Deps);
      if (!Deps.Precise || !Deps.Anchors.empty())
        continue;
      auto &List = StoreDeps[SI];
      List.assign(Deps.Reads.begin(), Deps.Reads.end());
      for (Value *Dep : List)
        if (!Seqs.count(Dep))
          Seqs[Dep] = BD.seqOf(Dep, LoadSeq);
    }
  // Decisions on arguments or call results depend on the reads before the
  // call: a plain branch at entry or right after the call stands for them
  // (docs/dependences.md).
  emitAnchorBranches(Anchors.getArrayRef());
  // Stack objects come to life first, so that reuse of their addresses by
  // later frames or threads is not reported as a race.
  if (!StackObjects.empty()) {
    IRBuilder<> IRB(StackObjects.back()->getNextNode());
    for (AllocaInst *AI : StackObjects) {
      uint64_t N = cast<ConstantInt>(AI->getArraySize())->getZExtValue();
      uint64_t Size = DL.getTypeAllocSize(AI->getAllocatedType()) * N;
      IRB.CreateCall(H.get("stack_alloc"),
                     {IRB.CreatePointerCast(AI, H.I8P),
                      ConstantInt::get(H.I64, Size), H.loc(IRB, *AI)});
    }
  }
  // Decision calls go right before their site, hence before the hook call
  // that replaces an address-dependent access.
  for (const Decision &D : Decisions)
    emitDecision(D);
  for (Instruction *I : Accesses) {
    if (auto *LI = dyn_cast<LoadInst>(I))
      rewriteLoad(LI);
    else if (auto *SI = dyn_cast<StoreInst>(I))
      rewriteStore(SI);
    else if (auto *RI = dyn_cast<AtomicRMWInst>(I))
      rewriteRmw(RI);
    else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
      rewriteCas(CX);
    else
      rewriteMemIntrinsic(cast<MemIntrinsic>(I));
  }
  for (CallInst *CI : Calls)
    rewriteCall(CI);
  for (CallInst *CI : FormatCalls)
    instrumentFormatCall(*CI, H, IsShared);
  return true;
}

/// The object a synchronisation call acts on (which mutex, semaphore,
/// thread to join, block to free) is an address computed at run time, like
/// an access's: when it comes from a read, a reordering that changes the
/// read could make the call act on another object, so the call gets a
/// decision on it (RVPredict's address dependence, applied to sync calls).
/// pthread_create's arguments name a new thread, not an existing object.
void FunctionInstrumenter::addObjectDecisions(CallInst &CI,
                                              SmallVectorImpl<Decision> &Out) {
  StringRef Name = CI.getCalledFunction()->getName();
  if (Name == "pthread_create")
    return;
  bool Handles = Name == "pthread_join" || Name == "pthread_detach";
  for (Value *Arg : CI.args())
    if (!isa<Constant>(Arg) && (Arg->getType()->isPointerTy() ||
                                (Handles && Arg == CI.getArgOperand(0))))
      Out.emplace_back(&CI, Arg);
}

bool skipFunction(const Function &F) {
  return F.isDeclaration() || F.getName().startswith("__racepredict") ||
         F.getName().startswith("racepredict.") ||
         F.hasFnAttribute(Attribute::Naked) ||
         F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation);
}

} // namespace

PreservedAnalyses RacePredictPass::run(Module &M, ModuleAnalysisManager &) {
  if (M.getFunction("racepredict.module_ctor"))
    return PreservedAnalyses::all(); // already instrumented (e.g. LTO)
  if (M.debug_compile_units().empty())
    errs() << "racepredict: warning: " << M.getSourceFileName()
           << " has no debug info; compile with -g for source locations\n";
  StringSet<> Intercepts;
  for (const char *N : kIntercepts)
    Intercepts.insert(N);
  Hooks H(M);
  SmallVector<Function *, 64> Fns;
  for (Function &F : M)
    if (!skipFunction(F))
      Fns.push_back(&F);
  for (Function *F : Fns) {
    FunctionInstrumenter(*F, H, Intercepts).run();
    instrumentCallStacks(*F, H);
  }
  assignCustomEventLocations(M, H); // calls CustomEventsPass inserted
  H.finish();
  return PreservedAnalyses::none();
}

} // namespace racepredict
