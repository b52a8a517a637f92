//===- trace/symbol_table.h - Names of one name space, interned to ids ----===//
#pragma once

#include "racepredict/trace/event.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racepredict::trace {

/// Interns names of one name space to dense ids, in the order first seen.
///
/// Each name is stored once: its characters in one arena (`ends_[id]` is
/// where name `id` ends), and the index from content to id is an
/// open-addressing table of ids hashed by the characters they point to. A
/// `std::string` per name plus a hash map keyed by a second copy took ~170
/// bytes a name, ~600 MB for the 3.6M location names of pigz + instrumented
/// zlib (bench/RESULTS.md, "Trace tables"); this takes the characters plus
/// ~16 bytes.
class SymbolTable {
public:
  SymId intern(std::string_view name);
  std::optional<SymId> find(std::string_view name) const;
  /// The name of `id` (a copy: no `std::string` is kept per name).
  std::string name(SymId id) const { return std::string(view(id)); }
  /// The name of `id` without a copy; valid until the next intern.
  std::string_view view(SymId id) const {
    size_t b = begin(id);
    return {chars_.data() + b, ends_[id] - b};
  }
  size_t size() const { return ends_.size(); }

private:
  size_t begin(SymId id) const { return id == 0 ? 0 : ends_[id - 1]; }
  /// The slot holding `name`'s id, or the empty slot where it would go.
  size_t slotOf(std::string_view name, size_t hash) const;
  void grow();

  std::vector<char> chars_;
  std::vector<size_t> ends_;
  /// Ids by hash of their name, linear probing; kNone marks an empty slot.
  /// The size is 0 or a power of two, at most half full.
  std::vector<SymId> slots_;
};

} // namespace racepredict::trace
