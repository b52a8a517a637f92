//===- instrument/Hooks.h - Runtime hook declarations from hooks.def ------===//
#pragma once

#include "LocationTable.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace racepredict {

/// The module's view of the runtime ABI: hook callees (types derived from
/// the stringized hooks.def entries, so they cannot drift from runtime.h),
/// the location table and the per-module source id base.
class Hooks {
public:
  explicit Hooks(llvm::Module &M);
  /// `__racepredict_<name>`; aborts on a name missing from hooks.def.
  llvm::FunctionCallee get(llvm::StringRef Name) const;
  /// The thread-local __racepredict_read_seq (runtime.h): the seq of the
  /// thread's latest load hook, read right after a load a decision needs.
  llvm::GlobalVariable *readSeqSlot();
  /// The run-time location id of `I`: src_base + local id (0 if none).
  llvm::Value *loc(llvm::IRBuilder<> &IRB, const llvm::Instruction &I);
  /// Emits the module descriptor and the constructor registering it.
  void finish();
  /// The table of the module's shareable global variables (address, name,
  /// size) that lets reports say `counter` instead of an address.
  llvm::Constant *emitGlobals(uint32_t &Count);

  llvm::Module &M;
  llvm::Type *I8P, *I32, *I64;
  LocationTable Locs;

private:
  llvm::StringMap<llvm::FunctionCallee> callees_;
  llvm::GlobalVariable *srcBase_;
};

} // namespace racepredict
