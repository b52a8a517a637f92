//===- report/names.h - Names as a C++ developer reads them ---------------===//
//
// The pass records a function's linkage name (`_ZN5QueueIiE4pushEi`) where
// debug info has one, so that reports can show the qualified name
// (`Queue<int>::push(int)`, as TSan's symbolizer does); the analyser has no
// LLVM, so it demangles with libstdc++'s abi::__cxa_demangle.
//
#pragma once

#include "racepredict/trace/trace.h"

#include <string>

namespace racepredict::report {

/// The demangled form of a recorded function name; C names and names that
/// are not mangled are returned as they are.
std::string functionName(const std::string &recorded);

/// `text` with every mangled word demangled (the replay runtime has no
/// demangler: its messages name functions as recorded).
std::string demangleWords(const std::string &text);

/// `functionName` without its parameter list and template arguments
/// (`Queue::push`): short enough for one folded witness line.
std::string shortFunctionName(const std::string &recorded);

/// `file:line[:col]` of a source location; a location without a line
/// (none recorded, or DWARF's line 0 for code the compiler merged from
/// several lines) is the explicit `<unknown>`, never "" or ":0".
std::string locationText(const trace::SourceLoc &l);

/// The last path component of a file.
std::string baseName(const std::string &file);

} // namespace racepredict::report
