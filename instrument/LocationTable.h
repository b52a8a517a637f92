//===- instrument/LocationTable.h - Per-module source location table ------===//
//
// Events carry a small location id instead of strings: the pass numbers the
// distinct (file, line, column, function) of the instructions it instruments
// and emits the table once per module (abi/runtime.h struct
// __racepredict_source), which the runtime writes as a SOURCES block.
//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Module.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace racepredict {

class LocationTable {
public:
  /// The module-local id (>= 1) of an instruction's debug location, 0 when
  /// it has none. Inlined code keeps its own (innermost) location; the entry
  /// names the location it was inlined into (another entry), so reports can
  /// show the inlined frames.
  uint32_t idFor(const llvm::Instruction &I);
  uint32_t idFor(const llvm::DILocation *L);
  size_t size() const { return entries_.size(); }
  /// Emits the `__racepredict_source` array; null when the table is empty.
  llvm::Constant *emit(llvm::Module &M);
  /// A private constant C string (shared by every use of the same text).
  llvm::Constant *string(llvm::Module &M, const std::string &S) {
    return stringPtr(M, S);
  }

private:
  struct Entry {
    std::string file, function;
    uint32_t line, column;
    uint32_t inlinedAt; ///< local id, 0 = not inlined
  };
  llvm::Constant *stringPtr(llvm::Module &M, const std::string &s);

  std::vector<Entry> entries_;
  std::map<std::tuple<std::string, std::string, uint32_t, uint32_t, uint32_t>,
           uint32_t>
      ids_;
  llvm::DenseMap<const llvm::DILocation *, uint32_t> cache_;
  llvm::StringMap<llvm::Constant *> strings_;
};

} // namespace racepredict
