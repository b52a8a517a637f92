//===- instrument/FormatCalls.h - printf-family reads and writes ----------===//
//
// ThreadSanitizer records the strings a printf-family call reads (%s, with
// check_printf, on by default) and the output sprintf writes. The runtime
// cannot see a variadic call's arguments, so the pass reads the format when
// it is a constant and calls the runtime around the call: read_cstr for each
// %s argument before it, wrote_cstr for sprintf's and snprintf's output
// after it (hooks.def, runtime/record/stdio_hooks.cpp). A format only known
// at run time (a variable, vprintf's va_list) is not seen.
//
#pragma once

#include "Hooks.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Instructions.h"

namespace racepredict {

/// Whether `Name` is a printf-family function this file instruments.
bool isFormatFunction(llvm::StringRef Name);

/// Instruments the call `CI` of a printf-family function; `IsShared` says
/// whether an address may be seen by another thread (nothing is recorded
/// for the others). Returns false when its format is not a constant or uses
/// positional arguments (%1$s): nothing is added then.
bool instrumentFormatCall(llvm::CallInst &CI, Hooks &H,
                          llvm::function_ref<bool(llvm::Value *)> IsShared);

/// Whether the stdio call `CI` (puts, fputs, fwrite: hooks.def) only reads
/// constant data, a string literal say: it is left as it is.
bool readsOnlyConstantData(const llvm::CallInst &CI);

} // namespace racepredict
