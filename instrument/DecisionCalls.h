//===- instrument/DecisionCalls.h - The runtime calls of a decision -------===//
//
// How a control decision reaches the runtime (hooks.def): a plain branch
// calls branch(); one on private values calls branch_private() only when
// the run asked for the plain rule (a flag the runtime exports, so the
// common case costs a load, not a call); one with precise dependences calls
// branch_deps() only when its dependences' seqs differ from the ones the
// same site passed last in this invocation (a loop re-deciding on the same
// read instance adds nothing: the model already requires that read).
//
#pragma once

#include "Hooks.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Instructions.h"

namespace racepredict {

/// A plain branch before `Site`, at the source location of `LocatedAt`
/// (the site's own if null).
void emitPlainDecision(Hooks &H, llvm::Instruction *Site,
                       const llvm::Instruction *LocatedAt = nullptr);
void emitPrivateDecision(Hooks &H, llvm::Instruction *Site);
/// `Seqs`: the i64 seq of each dependence; `DepArray`: a [kMaxDeps x i64]
/// entry alloca passed to the runtime.
void emitPreciseDecision(Hooks &H, llvm::Instruction *Site,
                         llvm::ArrayRef<llvm::Value *> Seqs,
                         llvm::AllocaInst *DepArray);

} // namespace racepredict
