//===- report/memory_block.cpp - The allocation an address belongs to -----===//
#include "racepredict/report/memory_block.h"

#include <cstdlib>

namespace racepredict::report {

using trace::EventKind;

std::optional<uint64_t> locationAddress(const std::string &name) {
  if (name.size() < 3 || name.compare(0, 2, "0x") != 0)
    return std::nullopt;
  char *end = nullptr;
  uint64_t v = std::strtoull(name.c_str() + 2, &end, 16);
  if (*end != '\0')
    return std::nullopt;
  return v;
}

trace::EventId allocationOf(const trace::Trace &t, trace::EventId e) {
  const trace::Event &acc = t.events[e];
  if (!trace::isAccess(acc.kind))
    return trace::kNone;
  auto addr = locationAddress(t.objName(acc));
  if (!addr)
    return trace::kNone;
  // Backwards from the access: the newest block holding the address is
  // the one the access used; a free of it first means it had none.
  for (trace::EventId i = e; i-- > 0;) {
    const trace::Event &ev = t.events[i];
    if (ev.kind != EventKind::Alloc && ev.kind != EventKind::Free)
      continue;
    auto base = locationAddress(t.objName(ev));
    if (!base || *addr < *base || *addr - *base >= ev.aux)
      continue;
    return ev.kind == EventKind::Alloc ? i : trace::kNone;
  }
  return trace::kNone;
}

std::string blockText(const trace::Trace &t, trace::EventId alloc,
                      trace::EventId e) {
  const trace::Event &a = t.events[alloc];
  std::string s =
      "block of size " + std::to_string(a.aux) + " at " + t.objName(a);
  auto base = locationAddress(t.objName(a));
  auto addr = locationAddress(t.objName(t.events[e]));
  if (base && addr && *addr != *base)
    s += " (the access is " + std::to_string(*addr - *base) + " bytes inside)";
  return s + " allocated by thread " + t.threadName(a.thread);
}

} // namespace racepredict::report
