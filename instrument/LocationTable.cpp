//===- instrument/LocationTable.cpp - Per-module source location table ----===//
#include "LocationTable.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace racepredict {

/// The name reports show for a function: its linkage name where debug
/// info has one (C++: the analyser demangles it to `Queue<int>::push(int)`,
/// as TSan's symbolizer shows it), else its source name.
static std::string functionName(const DISubprogram *SP) {
  StringRef Linkage = SP->getLinkageName();
  return (Linkage.empty() ? SP->getName() : Linkage).str();
}

/// `Dir`/`File` as one path (see idFor).
static std::string joinedPath(StringRef Dir, StringRef File) {
  // Clang strips the prefix the file shares with the compile directory into
  // the DIFile's directory (CGDebugInfo::createFile), so a relative name is
  // relative to `Dir`, not to anything a report reader knows: join them, so
  // that SARIF URIs, baselines and editors can find the file.
  if (File.empty())
    return Dir.str();
  if (Dir.empty() || sys::path::is_absolute(File))
    return File.str();
  SmallString<256> Full(Dir);
  sys::path::append(Full, File);
  return std::string(Full.str());
}

uint32_t LocationTable::idFor(const Instruction &I) {
  if (const DILocation *L = I.getDebugLoc().get())
    return idFor(L);
  // An instruction without a location (compiler-made code, or a function
  // compiled without -g) still has a function: the report says where it
  // is not known, but in which function (an empty "loc" said nothing).
  const Function *F = I.getFunction();
  std::string File, Fn = F->getName().str();
  if (const DISubprogram *SP = F->getSubprogram()) {
    Fn = functionName(SP);
    File = joinedPath(SP->getDirectory(), SP->getFilename());
  }
  auto Key = std::make_tuple(File, Fn, 0u, 0u, 0u);
  auto [Pos, Inserted] = ids_.try_emplace(Key, entries_.size() + 1);
  if (Inserted)
    entries_.push_back({File, Fn, 0, 0, 0});
  return Pos->second;
}

uint32_t LocationTable::idFor(const DILocation *L) {
  if (!L)
    return 0;
  auto It = cache_.find(L);
  if (It != cache_.end())
    return It->second;
  // The frame it was inlined into first: chains are short (inlining depth).
  uint32_t At = idFor(L->getInlinedAt());
  std::string File = joinedPath(L->getDirectory(), L->getFilename());
  std::string Fn;
  if (const DISubprogram *SP = L->getScope()->getSubprogram())
    Fn = functionName(SP);
  auto Key = std::make_tuple(File, Fn, L->getLine(), L->getColumn(), At);
  auto [Pos, Inserted] = ids_.try_emplace(Key, entries_.size() + 1);
  if (Inserted)
    entries_.push_back({File, Fn, L->getLine(), L->getColumn(), At});
  cache_[L] = Pos->second;
  return Pos->second;
}

Constant *LocationTable::stringPtr(Module &M, const std::string &S) {
  auto It = strings_.find(S);
  if (It != strings_.end())
    return It->second;
  LLVMContext &C = M.getContext();
  Constant *Data = ConstantDataArray::getString(C, S, true);
  auto *GV =
      new GlobalVariable(M, Data->getType(), true, GlobalValue::PrivateLinkage,
                         Data, "__racepredict_str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  Constant *P = ConstantExpr::getPointerCast(GV, Type::getInt8PtrTy(C));
  strings_[S] = P;
  return P;
}

Constant *LocationTable::emit(Module &M) {
  if (entries_.empty())
    return nullptr;
  LLVMContext &C = M.getContext();
  Type *I8P = Type::getInt8PtrTy(C);
  Type *I32 = Type::getInt32Ty(C);
  StructType *SrcTy = StructType::get(C, {I8P, I8P, I32, I32, I32});
  std::vector<Constant *> Elems;
  Elems.reserve(entries_.size());
  for (const Entry &E : entries_)
    Elems.push_back(ConstantStruct::get(
        SrcTy, {stringPtr(M, E.file), stringPtr(M, E.function),
                ConstantInt::get(I32, E.line), ConstantInt::get(I32, E.column),
                ConstantInt::get(I32, E.inlinedAt)}));
  ArrayType *AT = ArrayType::get(SrcTy, Elems.size());
  auto *GV = new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                                ConstantArray::get(AT, Elems),
                                "__racepredict_sources");
  return ConstantExpr::getPointerCast(GV, I8P);
}

} // namespace racepredict
