//===- instrument/FormatCalls.cpp - printf-family reads and writes --------===//
#include "FormatCalls.h"

#include "FormatString.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"

#include <cstdint>

using namespace llvm;

namespace racepredict {
namespace {

/// Where a function's format, output buffer and output capacity are among
/// its arguments (-1: it has none).
struct FormatFunction {
  const char *Name;
  int Format, Output, Capacity;
};
const FormatFunction kFormatFunctions[] = {
    {"printf", 0, -1, -1},
    {"fprintf", 1, -1, -1},
    {"dprintf", 1, -1, -1},
    {"sprintf", 1, 0, -1},
    {"snprintf", 2, 0, 1},
    // -D_FORTIFY_SOURCE's: a flag (and for sprintf the buffer's size) first.
    {"__printf_chk", 1, -1, -1},
    {"__fprintf_chk", 2, -1, -1},
    {"__dprintf_chk", 2, -1, -1},
    {"__sprintf_chk", 3, 0, 2},
    {"__snprintf_chk", 4, 0, 1},
};

const FormatFunction *formatFunction(StringRef Name) {
  for (const FormatFunction &F : kFormatFunctions)
    if (Name == F.Name)
      return &F;
  return nullptr;
}

/// A string literal or other constant data nobody writes.
bool isConstantData(const Value *V) {
  auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(V));
  return GV && GV->isConstant();
}

} // namespace

bool isFormatFunction(StringRef Name) { return formatFunction(Name); }

bool instrumentFormatCall(CallInst &CI, Hooks &H,
                          function_ref<bool(Value *)> IsShared) {
  const FormatFunction *F = formatFunction(CI.getCalledFunction()->getName());
  if (!F || CI.arg_size() <= static_cast<unsigned>(F->Format))
    return false;
  StringRef Format;
  if (!getConstantStringInfo(CI.getArgOperand(F->Format), Format))
    return false;
  std::vector<FormatStringArg> Strings;
  if (!stringArguments({Format.data(), Format.size()}, Strings))
    return false;
  unsigned First = F->Format + 1; // the first variadic argument
  IRBuilder<> IRB(&CI);
  Value *Loc = H.loc(IRB, CI);
  for (const FormatStringArg &S : Strings) {
    if (First + S.Arg >= CI.arg_size())
      break; // fewer arguments than conversions: printf reads garbage
    Value *Str = CI.getArgOperand(First + S.Arg);
    if (!Str->getType()->isPointerTy() || isConstantData(Str) || !IsShared(Str))
      continue;
    Value *Bound = ConstantInt::get(H.I64, UINT64_MAX);
    if (S.Precision >= 0) {
      Bound = ConstantInt::get(H.I64, S.Precision);
    } else if (S.PrecisionArg >= 0 && First + S.PrecisionArg < CI.arg_size()) {
      // An int; a negative one is taken as none (C11 7.21.6.1).
      Value *P = CI.getArgOperand(First + S.PrecisionArg);
      if (P->getType()->isIntegerTy()) {
        Value *Wide = IRB.CreateSExtOrTrunc(P, H.I64);
        Bound = IRB.CreateSelect(IRB.CreateICmpSLT(Wide, IRB.getInt64(0)),
                                 Bound, Wide);
      }
    }
    IRB.CreateCall(H.get("read_cstr"),
                   {IRB.CreatePointerCast(Str, H.I8P), Bound, Loc});
  }
  if (F->Output >= 0) {
    Value *Dst = CI.getArgOperand(F->Output);
    if (IsShared(Dst) && CI.getType()->isIntegerTy()) {
      IRB.SetInsertPoint(CI.getNextNode());
      Value *Cap = ConstantInt::get(H.I64, UINT64_MAX);
      if (F->Capacity >= 0)
        Cap = IRB.CreateZExtOrTrunc(CI.getArgOperand(F->Capacity), H.I64);
      IRB.CreateCall(H.get("wrote_cstr"),
                     {IRB.CreatePointerCast(Dst, H.I8P), Cap,
                      IRB.CreateSExtOrTrunc(&CI, H.I32), Loc});
    }
  }
  return true;
}

bool readsOnlyConstantData(const CallInst &CI) {
  StringRef Name = CI.getCalledFunction()->getName();
  if (Name != "puts" && Name != "fputs" && Name != "fwrite")
    return false;
  return CI.arg_size() > 0 && isConstantData(CI.getArgOperand(0));
}

} // namespace racepredict
