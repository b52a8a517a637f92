//===- trace/symbol_table.cpp - Names of one name space, interned to ids --===//
#include "racepredict/trace/symbol_table.h"

#include <functional>

namespace racepredict::trace {
namespace {

size_t hashOf(std::string_view name) {
  return std::hash<std::string_view>{}(name);
}

} // namespace

size_t SymbolTable::slotOf(std::string_view name, size_t hash) const {
  size_t mask = slots_.size() - 1;
  for (size_t s = hash & mask;; s = (s + 1) & mask)
    if (slots_[s] == kNone || view(slots_[s]) == name)
      return s;
}

void SymbolTable::grow() {
  std::vector<SymId> old(slots_.empty() ? 16 : slots_.size() * 2, kNone);
  old.swap(slots_);
  size_t mask = slots_.size() - 1;
  for (SymId id : old) {
    if (id == kNone)
      continue;
    size_t s = hashOf(view(id)) & mask;
    while (slots_[s] != kNone)
      s = (s + 1) & mask;
    slots_[s] = id;
  }
}

SymId SymbolTable::intern(std::string_view name) {
  if (2 * (size() + 1) > slots_.size())
    grow();
  size_t s = slotOf(name, hashOf(name));
  if (slots_[s] != kNone)
    return slots_[s];
  auto id = static_cast<SymId>(size());
  chars_.insert(chars_.end(), name.begin(), name.end());
  ends_.push_back(chars_.size());
  slots_[s] = id;
  return id;
}

std::optional<SymId> SymbolTable::find(std::string_view name) const {
  if (slots_.empty())
    return std::nullopt;
  SymId id = slots_[slotOf(name, hashOf(name))];
  if (id == kNone)
    return std::nullopt;
  return id;
}

} // namespace racepredict::trace
