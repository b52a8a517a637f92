//===- instrument/CallStacks.h - Shadow call stacks
//------------------------===//
#pragma once

#include "Hooks.h"

#include "llvm/IR/Function.h"

namespace racepredict {

/// Makes `F` maintain the runtime's shadow call stack (TSan's func_entry /
/// func_exit): func_enter at entry, func_exit on every way out (returns and
/// unwinding, via EscapeEnumerator), and before every call that may reach
/// instrumented code, a store of the call's location id into the
/// thread-local __racepredict_callsite that the callee's func_enter reads.
/// Runs after the other rewriting, so our own hook calls are left alone.
void instrumentCallStacks(llvm::Function &F, Hooks &H);

} // namespace racepredict
