//===- instrument/CustomEvents.cpp - Spec entries become custom events ----===//
//
// For each entry of the spec (EventSpec.h) and each matching program point
// of the module, one call __racepredict_custom(desc, a0, a1, a2, a3, 0):
// `desc` is an internal global naming the event and saying how each a_i is
// recorded (abi/runtime.h). Dereferences (`*#0`) are done by the runtime
// when the event is recorded, so the pass adds no load to the program that
// the instrumentation pass would then record as a read.
//
#include "CustomEvents.h"

#include "EventSpec.h"

#include "racepredict/abi/runtime.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/CommandLine.h"

#include <cstdlib>

using namespace llvm;

static cl::opt<std::string> ClEvents(
    "racepredict-events", cl::init(""), cl::Hidden,
    cl::desc("Instrumentation spec turning program points into custom "
             "events (default: the RACEPREDICT_EVENTS environment variable, "
             "which racepredict-cc --events sets)"));

namespace racepredict {
namespace {

constexpr const char *kHook = "__racepredict_custom";
constexpr const char *kDoneMarker = "racepredict.custom_events";

class Inserter {
public:
  Inserter(Module &M, const EventSpec &S)
      : M(M), S(S), C(M.getContext()), I8P(Type::getInt8PtrTy(C)),
        I32(Type::getInt32Ty(C)), I64(Type::getInt64Ty(C)) {
    SymTy = StructType::get(C, {I8P, I64});
    DescTy = StructType::get(
        C, {SymTy, I32, ArrayType::get(Type::getInt8Ty(C), kMaxEventArgs)});
    Hook = M.getOrInsertFunction(
        kHook, FunctionType::get(Type::getVoidTy(C),
                                 {I8P, I64, I64, I64, I64, I32}, false));
  }

  void run() {
    SmallVector<Function *, 32> Fns;
    for (Function &F : M)
      if (!F.isDeclaration() && !F.getName().startswith("__racepredict") &&
          !F.getName().startswith("racepredict."))
        Fns.push_back(&F);
    // Each event goes right before / right after its anchor, so "after"
    // entries are applied last to first: several entries at one point then
    // fire in spec order.
    for (const SpecEntry &E : S.entries)
      if (E.when == SpecEntry::Before)
        for (Function *F : Fns)
          apply(E, *F);
    for (auto It = S.entries.rbegin(); It != S.entries.rend(); ++It)
      if (It->when == SpecEntry::After)
        for (Function *F : Fns)
          apply(*It, *F);
  }

private:
  /// Where an argument's values come from at one program point.
  struct Site {
    CallBase *Call = nullptr;       ///< call F
    Function *Body = nullptr;       ///< body F
    ReturnInst *Ret = nullptr;      ///< after body F
    Instruction *Access = nullptr;  ///< read-/write-global
    Value *AccessValue = nullptr;   ///< #value
    Value *AccessPointer = nullptr; ///< #address
    Type *AccessType = nullptr;     ///< #size, *#address
  };

  void error(const SpecEntry &E, const Twine &Msg) {
    C.emitError("racepredict: " + S.file + ":" + Twine(E.specLine) + ": " +
                toString(E) + ": " + Msg);
  }

  Constant *str(StringRef Text) {
    auto It = Strings.find(Text);
    if (It != Strings.end())
      return It->second;
    IRBuilder<> IRB(C);
    Constant *G = ConstantExpr::getPointerCast(
        new GlobalVariable(
            M, ArrayType::get(Type::getInt8Ty(C), Text.size() + 1), true,
            GlobalValue::PrivateLinkage, ConstantDataArray::getString(C, Text),
            "__racepredict_ev_str"),
        I8P);
    Strings[Text] = G;
    return G;
  }

  /// A writable `struct __racepredict_symbol` for a literal argument.
  Constant *symbol(StringRef Name) {
    auto It = Symbols.find(Name);
    if (It != Symbols.end())
      return It->second;
    auto *G = new GlobalVariable(
        M, SymTy, false, GlobalValue::InternalLinkage,
        ConstantStruct::get(SymTy, {str(Name), ConstantInt::get(I64, 0)}),
        "__racepredict_ev_sym");
    Constant *P = ConstantExpr::getPointerCast(G, I8P);
    Symbols[Name] = P;
    return P;
  }

  /// The runtime records integers as 64-bit numbers, sign-extended like
  /// access values; pointers and floating-point values by their bits.
  Value *toI64(IRBuilder<> &IRB, Value *V, bool *Ok) {
    Type *T = V->getType();
    *Ok = true;
    if (T->isPointerTy())
      return IRB.CreatePtrToInt(V, I64);
    if (T->isFloatingPointTy() && T->getPrimitiveSizeInBits() <= 64)
      V = IRB.CreateBitCast(
          V, IRB.getIntNTy(static_cast<unsigned>(T->getPrimitiveSizeInBits())));
    T = V->getType();
    if (!T->isIntegerTy()) {
      *Ok = false;
      return ConstantInt::get(I64, 0);
    }
    unsigned W = T->getIntegerBitWidth();
    if (W == 64)
      return V;
    if (W > 64)
      return IRB.CreateTrunc(V, I64);
    return W == 1 ? IRB.CreateZExt(V, I64) : IRB.CreateSExt(V, I64);
  }

  /// The value of one spec argument at `site`, and its kind byte.
  bool argument(const SpecEntry &E, const SpecArg &A, const Site &St,
                IRBuilder<> &IRB, Value **Out, uint8_t *Kind) {
    *Kind = RP_ARG_VALUE;
    if (A.kind == SpecArg::Literal) {
      if (A.isInteger()) {
        *Out =
            ConstantInt::get(I64, std::strtoull(A.literal.c_str(), nullptr, 0));
        if (A.literal[0] == '-')
          *Out = ConstantInt::get(I64, static_cast<uint64_t>(std::strtoll(
                                           A.literal.c_str(), nullptr, 0)));
      } else {
        *Out = IRB.CreatePtrToInt(symbol(A.literal), I64);
        *Kind = RP_ARG_SYMBOL;
      }
      return true;
    }
    Value *V = nullptr;
    Type *Pointee = nullptr; // for *#address: the accessed type
    switch (A.kind) {
    case SpecArg::Param:
      if (St.Call) {
        if (A.index >= St.Call->arg_size()) {
          error(E, "the call has only " + Twine(St.Call->arg_size()) +
                       " arguments");
          return false;
        }
        V = St.Call->getArgOperand(A.index);
      } else {
        if (A.index >= St.Body->arg_size()) {
          error(E, St.Body->getName() + " has only " +
                       Twine(St.Body->arg_size()) + " parameters");
          return false;
        }
        V = St.Body->getArg(A.index);
      }
      break;
    case SpecArg::Return:
      V = St.Call ? static_cast<Value *>(St.Call)
                  : (St.Ret ? St.Ret->getReturnValue() : nullptr);
      if (!V || V->getType()->isVoidTy()) {
        error(E, "the function returns nothing");
        return false;
      }
      break;
    case SpecArg::Value:
      V = St.AccessValue;
      break;
    case SpecArg::Address:
      V = St.AccessPointer;
      Pointee = St.AccessType;
      break;
    case SpecArg::Size:
      *Out = ConstantInt::get(
          I64, M.getDataLayout().getTypeStoreSize(St.AccessType));
      return true;
    case SpecArg::Literal:
      break;
    }
    if (A.derefs == 0) {
      bool Ok;
      *Out = toI64(IRB, V, &Ok);
      if (!Ok)
        error(E, "an argument of type that is not a number or pointer");
      return Ok;
    }
    // *...*V: the runtime follows derefs-1 pointers, then reads the final
    // pointee (LLVM 14 typed pointers give its size).
    Type *T = V->getType();
    for (unsigned L = 0; L < A.derefs; ++L) {
      if (!T->isPointerTy()) {
        error(E, "dereferences something that is not a pointer");
        return false;
      }
      T = (L == 0 && Pointee) ? Pointee : T->getPointerElementType();
    }
    uint64_t Size =
        T->isSized() ? M.getDataLayout().getTypeStoreSize(T).getFixedSize() : 0;
    if (A.derefs > 4 || (Size != 1 && Size != 2 && Size != 4 && Size != 8) ||
        T->isAggregateType()) {
      error(E, "can only dereference to a number or pointer of 1, 2, 4 or "
               "8 bytes");
      return false;
    }
    *Kind =
        static_cast<uint8_t>(RP_ARG_DEREF | (A.derefs - 1) << 2 | Size << 4);
    *Out = IRB.CreatePtrToInt(V, I64);
    return true;
  }

  /// Inserts the event at IRB's position for `site`.
  void emit(const SpecEntry &E, IRBuilder<> &IRB, const Site &St) {
    Value *Args[kMaxEventArgs];
    uint8_t Kinds[kMaxEventArgs] = {0, 0, 0, 0};
    for (unsigned I = 0; I < kMaxEventArgs; ++I) {
      Args[I] = ConstantInt::get(I64, 0);
      if (I < E.args.size() &&
          !argument(E, E.args[I], St, IRB, &Args[I], &Kinds[I]))
        return;
    }
    auto *Desc = new GlobalVariable(
        M, DescTy, false, GlobalValue::InternalLinkage,
        ConstantStruct::get(
            DescTy, {ConstantStruct::get(
                         SymTy, {str(E.event), ConstantInt::get(I64, 0)}),
                     ConstantInt::get(I32, E.args.size()),
                     ConstantDataArray::get(C, makeArrayRef(Kinds))}),
        "__racepredict_ev");
    IRB.CreateCall(Hook, {ConstantExpr::getPointerCast(Desc, I8P), Args[0],
                          Args[1], Args[2], Args[3], ConstantInt::get(I32, 0)});
  }

  /// Positions IRB before `I` (or after it), with I's debug location.
  void at(IRBuilder<> &IRB, Instruction *I, bool After) {
    if (isa<PHINode>(I))
      I = I->getParent()->getFirstNonPHI();
    if (After && !I->isTerminator())
      IRB.SetInsertPoint(I->getNextNode());
    else
      IRB.SetInsertPoint(I);
    IRB.SetCurrentDebugLocation(I->getDebugLoc());
  }

  void apply(const SpecEntry &E, Function &F) {
    bool After = E.when == SpecEntry::After;
    switch (E.target) {
    case SpecEntry::Call: {
      SmallVector<CallBase *, 8> Calls;
      for (Instruction &I : instructions(F))
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (auto *Callee = dyn_cast<Function>(
                  CB->getCalledOperand()->stripPointerCasts()))
            if (Callee->getName() == E.symbol)
              Calls.push_back(CB);
      for (CallBase *CB : Calls) {
        Site St;
        St.Call = CB;
        IRBuilder<> IRB(C);
        if (After && isa<InvokeInst>(CB)) {
          BasicBlock *Normal = cast<InvokeInst>(CB)->getNormalDest();
          if (!Normal->getSinglePredecessor()) {
            error(E, "an invoke whose normal destination has other "
                     "predecessors is not supported");
            continue;
          }
          IRB.SetInsertPoint(&*Normal->getFirstInsertionPt());
          IRB.SetCurrentDebugLocation(CB->getDebugLoc());
        } else {
          at(IRB, CB, After);
        }
        emit(E, IRB, St);
      }
      break;
    }
    case SpecEntry::Body: {
      if (F.getName() != E.symbol)
        break;
      Site St;
      St.Body = &F;
      DebugLoc Loc;
      if (DISubprogram *SP = F.getSubprogram())
        Loc = DILocation::get(C, SP->getLine(), 0, SP);
      if (!After) {
        BasicBlock::iterator It = F.getEntryBlock().getFirstInsertionPt();
        while (isa<AllocaInst>(*It))
          ++It;
        IRBuilder<> IRB(&*It);
        IRB.SetCurrentDebugLocation(Loc);
        emit(E, IRB, St);
        break;
      }
      SmallVector<ReturnInst *, 4> Rets;
      for (BasicBlock &BB : F)
        if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator()))
          Rets.push_back(R);
      for (ReturnInst *R : Rets) {
        St.Ret = R;
        IRBuilder<> IRB(R);
        IRB.SetCurrentDebugLocation(R->getDebugLoc() ? R->getDebugLoc() : Loc);
        emit(E, IRB, St);
      }
      break;
    }
    case SpecEntry::ReadGlobal:
    case SpecEntry::WriteGlobal:
      applyGlobal(E, F, After);
      break;
    case SpecEntry::Line:
      applyLine(E, F, After);
      break;
    }
  }

  /// Loads (reads), stores (writes), and atomic read-modify-writes and
  /// compare-exchanges (both) whose address is within the global.
  void applyGlobal(const SpecEntry &E, Function &F, bool After) {
    bool Read = E.target == SpecEntry::ReadGlobal;
    SmallVector<Site, 8> Sites;
    for (Instruction &I : instructions(F)) {
      Site St;
      St.Access = &I;
      if (auto *LI = dyn_cast<LoadInst>(&I)) {
        if (!Read)
          continue;
        St.AccessPointer = LI->getPointerOperand();
        St.AccessType = LI->getType();
        St.AccessValue = LI;
      } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
        if (Read)
          continue;
        St.AccessPointer = SI->getPointerOperand();
        St.AccessType = SI->getValueOperand()->getType();
        St.AccessValue = SI->getValueOperand();
      } else if (auto *RI = dyn_cast<AtomicRMWInst>(&I)) {
        St.AccessPointer = RI->getPointerOperand();
        St.AccessType = RI->getType();
        St.AccessValue = Read ? static_cast<Value *>(RI) : RI->getValOperand();
      } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
        St.AccessPointer = CX->getPointerOperand();
        St.AccessType = CX->getCompareOperand()->getType();
        St.AccessValue = Read ? nullptr : CX->getNewValOperand();
      } else {
        continue;
      }
      auto *GV =
          dyn_cast<GlobalVariable>(getUnderlyingObject(St.AccessPointer, 12));
      if (GV && GV->getName() == E.symbol)
        Sites.push_back(St);
    }
    for (Site &St : Sites) {
      IRBuilder<> IRB(C);
      at(IRB, St.Access, After);
      if (!St.AccessValue && Read) // cmpxchg: the old value it read
        St.AccessValue = IRB.CreateExtractValue(St.Access, 0);
      emit(E, IRB, St);
    }
  }

  static bool sameFile(const DILocation *L, StringRef File) {
    StringRef N = L->getFilename();
    return N == File || N.endswith(("/" + File).str());
  }

  /// Each maximal run of instructions of FILE:LINE in a block: the event
  /// before the run's first instruction (after: after its last).
  void applyLine(const SpecEntry &E, Function &F, bool After) {
    SmallVector<std::pair<Instruction *, Instruction *>, 8> Runs;
    for (BasicBlock &BB : F) {
      Instruction *First = nullptr, *Last = nullptr;
      for (Instruction &I : BB) {
        if (isa<DbgInfoIntrinsic>(&I))
          continue;
        const DILocation *L = I.getDebugLoc().get();
        if (!L)
          continue; // unattributed instructions neither start nor end a run
        if (L->getLine() == E.line && sameFile(L, E.symbol)) {
          if (!First)
            First = &I;
          Last = &I;
        } else if (First) {
          Runs.emplace_back(First, Last);
          First = Last = nullptr;
        }
      }
      if (First)
        Runs.emplace_back(First, Last);
    }
    for (auto &[First, Last] : Runs) {
      IRBuilder<> IRB(C);
      at(IRB, After ? Last : First, After);
      emit(E, IRB, Site{});
    }
  }

  Module &M;
  const EventSpec &S;
  LLVMContext &C;
  Type *I8P, *I32, *I64;
  StructType *SymTy, *DescTy;
  FunctionCallee Hook;
  StringMap<Constant *> Strings, Symbols;
};

} // namespace

PreservedAnalyses CustomEventsPass::run(Module &M, ModuleAnalysisManager &) {
  std::string Path = ClEvents;
  if (Path.empty())
    if (const char *Env = std::getenv("RACEPREDICT_EVENTS"))
      Path = Env;
  if (Path.empty() || M.getNamedMetadata(kDoneMarker))
    return PreservedAnalyses::all();
  SpecParseResult R = parseEventSpecFile(Path);
  if (!R.ok) {
    M.getContext().emitError("racepredict: " + R.error);
    return PreservedAnalyses::all();
  }
  Inserter(M, R.spec).run();
  M.getOrInsertNamedMetadata(kDoneMarker); // LTO runs the pipeline again
  return PreservedAnalyses::none();
}

void assignCustomEventLocations(Module &M, Hooks &H) {
  Function *Hook = M.getFunction(kHook);
  if (!Hook)
    return;
  SmallVector<CallInst *, 16> Calls;
  for (User *U : Hook->users())
    if (auto *CI = dyn_cast<CallInst>(U))
      if (CI->getCalledFunction() == Hook)
        Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    IRBuilder<> IRB(CI);
    CI->setArgOperand(CI->arg_size() - 1, H.loc(IRB, *CI));
  }
}

} // namespace racepredict
