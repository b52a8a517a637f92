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
    FunctionCallee Callee =
        M.getOrInsertFunction((Twine("__racepredict_") + H.name).str(), FT);
    // The runtime never throws (-fno-exceptions): calls to it need no
    // unwind edges, which keeps EscapeEnumerator (CallStacks.cpp) from
    // wrapping every hook call in an invoke.
    if (auto *Fn = dyn_cast<Function>(Callee.getCallee()))
      Fn->addFnAttr(Attribute::NoUnwind);
    callees_[H.name] = Callee;
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

GlobalVariable *Hooks::readSeqSlot() {
  if (GlobalVariable *GV = M.getNamedGlobal("__racepredict_read_seq"))
    return GV;
  // Initial-exec, like __racepredict_callsite: one mov from the
  // executable's static TLS block.
  return new GlobalVariable(M, I64, false, GlobalValue::ExternalLinkage,
                            nullptr, "__racepredict_read_seq", nullptr,
                            GlobalValue::InitialExecTLSModel);
}

Value *Hooks::loc(IRBuilder<> &IRB, const Instruction &I) {
  uint32_t Id = Locs.idFor(I);
  if (!Id)
    return ConstantInt::get(I32, 0);
  // Relaxed is enough: the constructor stores the base before main runs.
  LoadInst *Base = IRB.CreateLoad(I32, srcBase_, "rp.base");
  return IRB.CreateAdd(Base, ConstantInt::get(I32, Id));
}

namespace {

/// `scope::` prefixes of a debug-info scope, outermost first: namespaces
/// (`test01::GLOB`), classes (`Queue<int>::count`) and, for a static local,
/// its function (`f::x`), as a C++ developer writes the variable's name.
void appendScope(const DIScope *S, std::string &Out) {
  if (!S || isa<DIFile>(S) || isa<DICompileUnit>(S))
    return;
  if (auto *SP = dyn_cast<DISubprogram>(S)) {
    appendScope(SP->getScope(), Out);
    Out += SP->getName().str() + "::";
  } else if (auto *NS = dyn_cast<DINamespace>(S)) {
    appendScope(NS->getScope(), Out);
    Out += (NS->getName().empty() ? std::string("(anonymous namespace)")
                                  : NS->getName().str()) +
           "::";
  } else if (auto *CT = dyn_cast<DICompositeType>(S)) {
    appendScope(CT->getScope(), Out);
    Out += CT->getName().str() + "::";
  } else if (auto *LB = dyn_cast<DILexicalBlockBase>(S)) {
    appendScope(LB->getScope(), Out); // a block adds no name
  }
}

/// The source-level name of a global: the debug info's, qualified by its
/// scopes, else the IR name. Blanks would not survive the text trace
/// format's tokens.
std::string globalName(const GlobalVariable &GV) {
  SmallVector<DIGlobalVariableExpression *, 1> GVEs;
  GV.getDebugInfo(GVEs);
  std::string Name = GV.getName().str();
  if (!GVEs.empty()) {
    const DIGlobalVariable *V = GVEs[0]->getVariable();
    Name.clear();
    appendScope(V->getScope(), Name);
    Name += V->getName().str();
  }
  for (char &Ch : Name)
    if (Ch == ' ' || Ch == '#')
      Ch = '_';
  return Name;
}

} // namespace

Constant *Hooks::emitGlobals(uint32_t &Count) {
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  StructType *GTy = StructType::get(C, {I8P, I8P, I64});
  std::vector<Constant *> Elems;
  // Collected first: the name strings below are new globals themselves.
  std::vector<GlobalVariable *> Vars;
  for (GlobalVariable &G : M.globals())
    Vars.push_back(&G);
  for (GlobalVariable *GVP : Vars) {
    GlobalVariable &GV = *GVP;
    // Only the variables a program can share: defined here, writable,
    // not thread-local, not ours or LLVM's.
    if (GV.isDeclaration() || GV.isConstant() || GV.isThreadLocal() ||
        GV.getName().startswith("llvm.") ||
        GV.getName().startswith("__racepredict") ||
        GV.getType()->getAddressSpace() != 0 || !GV.getValueType()->isSized())
      continue;
    uint64_t Size = DL.getTypeAllocSize(GV.getValueType());
    std::string Name = globalName(GV);
    if (Size == 0 || Name.empty())
      continue;
    Elems.push_back(ConstantStruct::get(
        GTy, {ConstantExpr::getPointerCast(&GV, I8P), Locs.string(M, Name),
              ConstantInt::get(I64, Size)}));
  }
  Count = static_cast<uint32_t>(Elems.size());
  if (Elems.empty())
    return ConstantPointerNull::get(cast<PointerType>(I8P));
  ArrayType *AT = ArrayType::get(GTy, Elems.size());
  auto *GV = new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                                ConstantArray::get(AT, Elems),
                                "__racepredict_globals");
  return ConstantExpr::getPointerCast(GV, I8P);
}

void Hooks::finish() {
  LLVMContext &C = M.getContext();
  uint32_t NumGlobals = 0;
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
