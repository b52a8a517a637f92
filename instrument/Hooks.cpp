//===- instrument/Hooks.cpp - Runtime hook declarations from hooks.def ----===//
#include "Hooks.h"

#include "racepredict/abi/runtime.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace racepredict {
namespace {

struct HookSig {
  const char *name, *ret, *params;
};
const HookSig kHooks[] = {
#define HOOK(name, ret, ...) {#name, #ret, #__VA_ARGS__},
#include "racepredict/abi/hooks.def"
};

Type *abiType(LLVMContext &C, StringRef S) {
  S = S.trim();
  if (S == "__rp_void")
    return Type::getVoidTy(C);
  if (S == "__rp_u8")
    return Type::getInt8Ty(C);
  if (S == "__rp_u16")
    return Type::getInt16Ty(C);
  if (S == "__rp_u32")
    return Type::getInt32Ty(C);
  if (S == "__rp_u64")
    return Type::getInt64Ty(C);
  if (S == "__rp_ptr")
    return Type::getInt8PtrTy(C);
  report_fatal_error("racepredict: unknown ABI type in hooks.def: " + S);
}

} // namespace

Hooks::Hooks(Module &Mod) : M(Mod) {
  LLVMContext &C = M.getContext();
  I8P = Type::getInt8PtrTy(C);
  I32 = Type::getInt32Ty(C);
  I64 = Type::getInt64Ty(C);
  for (const HookSig &H : kHooks) {
    SmallVector<StringRef, 6> Parts;
    StringRef(H.params).split(Parts, ',', -1, false);
    SmallVector<Type *, 6> Params;
    for (StringRef P : Parts)
      Params.push_back(abiType(C, P));
    auto *FT = FunctionType::get(abiType(C, H.ret), Params, false);
    callees_[H.name] =
        M.getOrInsertFunction((Twine("__racepredict_") + H.name).str(), FT);
  }
  // Internal: each module has its own base, set by __racepredict_init.
  srcBase_ =
      new GlobalVariable(M, I32, false, GlobalValue::InternalLinkage,
                         ConstantInt::get(I32, 0), "__racepredict_src_base");
}

FunctionCallee Hooks::get(StringRef Name) const {
  auto It = callees_.find(Name);
  if (It == callees_.end())
    report_fatal_error("racepredict: no hook named " + Name);
  return It->second;
}

Value *Hooks::loc(IRBuilder<> &IRB, const Instruction &I) {
  uint32_t Id = Locs.idFor(I);
  if (!Id)
    return ConstantInt::get(I32, 0);
  // Relaxed is enough: the constructor stores the base before main runs.
  LoadInst *Base = IRB.CreateLoad(I32, srcBase_, "rp.base");
  return IRB.CreateAdd(Base, ConstantInt::get(I32, Id));
}

Constant *Hooks::emitGlobals(unsigned &Count) {
  // The program's mutable globals by name, so that the runtime can say
  // "x" instead of an address (replay reports; runtime.h's
  // __racepredict_global). Layout { ptr, ptr, i64 }.
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  StructType *EntryTy = StructType::get(C, {I8P, I8P, I64});
  std::vector<Constant *> Entries;
  // Collected first: the name strings below are new globals themselves.
  std::vector<GlobalVariable *> Vars;
  for (GlobalVariable &G : M.globals())
    Vars.push_back(&G);
  for (GlobalVariable *GVP : Vars) {
    GlobalVariable &GV = *GVP;
    if (GV.isDeclaration() || GV.isConstant() || GV.isThreadLocal() ||
        !GV.hasName() || GV.getName().startswith("llvm.") ||
        GV.getName().startswith("__racepredict") ||
        GV.getName().startswith(".") || !GV.getValueType()->isSized())
      continue;
    // The source-level name (C++ globals are mangled in the IR).
    StringRef Name = GV.getName();
    SmallVector<DIGlobalVariableExpression *, 1> DIs;
    GV.getDebugInfo(DIs);
    if (!DIs.empty() && DIs[0]->getVariable())
      Name = DIs[0]->getVariable()->getName();
    Constant *NameStr = ConstantExpr::getPointerCast(
        IRBuilder<>(C).CreateGlobalString(Name, "rp.gname", 0, &M), I8P);
    Entries.push_back(ConstantStruct::get(
        EntryTy,
        {ConstantExpr::getPointerCast(&GV, I8P), NameStr,
         ConstantInt::get(I64, DL.getTypeAllocSize(GV.getValueType()))}));
  }
  Count = Entries.size();
  if (Entries.empty())
    return ConstantPointerNull::get(cast<PointerType>(I8P));
  ArrayType *ArrTy = ArrayType::get(EntryTy, Entries.size());
  auto *Arr = new GlobalVariable(M, ArrTy, true, GlobalValue::PrivateLinkage,
                                 ConstantArray::get(ArrTy, Entries),
                                 "__racepredict_globals");
  return ConstantExpr::getPointerCast(Arr, I8P);
}

void Hooks::finish() {
  LLVMContext &C = M.getContext();
  unsigned NumGlobals = 0;
  Constant *Globals = emitGlobals(NumGlobals);
  Constant *Sources = Locs.emit(M);
  StructType *ModTy = StructType::get(C, {I32, I32, I8P, I8P, I32, I8P});
  Constant *Desc = ConstantStruct::get(
      ModTy,
      {ConstantInt::get(I32, RP_ABI_VERSION),
       ConstantInt::get(I32, Locs.size()),
       Sources ? Sources : ConstantPointerNull::get(cast<PointerType>(I8P)),
       Globals, ConstantInt::get(I32, NumGlobals),
       ConstantExpr::getPointerCast(srcBase_, I8P)});
  auto *DescGV = new GlobalVariable(M, ModTy, true, GlobalValue::PrivateLinkage,
                                    Desc, "__racepredict_module");
  auto *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                GlobalValue::InternalLinkage,
                                "racepredict.module_ctor", M);
  IRBuilder<> IRB(BasicBlock::Create(C, "", Ctor));
  IRB.CreateCall(get("init"), {ConstantExpr::getPointerCast(DescGV, I8P)});
  IRB.CreateRetVoid();
  // Priority 0 (as TSan): before the program's own constructors, so that
  // their accesses already carry valid location ids.
  appendToGlobalCtors(M, Ctor, 0);
}

} // namespace racepredict
