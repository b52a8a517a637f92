//===- trace/trace.cpp - Trace container helpers --------------------------===//
#include "racepredict/trace/trace.h"

#include "racepredict/support/error.h"

namespace racepredict::trace {

std::string SourceLoc::str() const {
  if (file.empty())
    return "";
  std::string s = file + ":" + std::to_string(line);
  if (column)
    s += ":" + std::to_string(column);
  return s;
}

std::optional<uint64_t> locationAddress(std::string_view name) {
  name = name.substr(0, name.find('~'));
  if (name.size() < 3 || name.size() > 18 || name[0] != '0' || name[1] != 'x')
    return std::nullopt;
  uint64_t v = 0;
  for (char c : name.substr(2)) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0)
      return std::nullopt;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  return v;
}

Trace::Trace() { sources.emplace_back(); }

SrcId Trace::addSource(SourceLoc loc) {
  sources.push_back(std::move(loc));
  return static_cast<SrcId>(sources.size() - 1);
}

uint32_t Trace::pushStack(uint32_t parent, SrcId callSite) {
  uint64_t key = uint64_t{parent} << 32 | callSite;
  auto [it, fresh] =
      stackIndex_.emplace(key, static_cast<uint32_t>(stackNodes.size()));
  if (fresh)
    stackNodes.push_back({parent, callSite});
  return it->second;
}

std::vector<SrcId> Trace::frames(EventId e) const {
  std::vector<SrcId> out;
  // A corrupt inlinedAt cycle cannot hang the report: every chain is
  // bounded by the number of sources.
  auto addChain = [&](SrcId s) {
    for (size_t n = 0; s != 0 && s < sources.size() && n <= sources.size();
         ++n, s = sources[s].inlinedAt)
      out.push_back(s);
  };
  addChain(events[e].src);
  for (uint32_t n = stackOf(e); n != 0 && n < stackNodes.size();
       n = stackNodes[n].parent)
    addChain(stackNodes[n].callSite);
  return out;
}

std::string Trace::objName(const Event &e) const {
  bool has = false;
  NameSpace ns = objNameSpace(e.kind, &has);
  if (!has)
    return "";
  return table(ns).name(e.obj);
}

std::pair<const EventId *, const EventId *> Trace::deps(const Event &e) const {
  RACEPREDICT_ASSERT(hasDeps(e),
                     "deps() on an event without a dependence list");
  const EventId *base = depItems.data();
  return {base + depOffsets[e.extra], base + depOffsets[e.extra + 1]};
}

uint32_t Trace::addDeps(const std::vector<EventId> &deps) {
  depItems.insert(depItems.end(), deps.begin(), deps.end());
  depOffsets.push_back(static_cast<uint32_t>(depItems.size()));
  return static_cast<uint32_t>(depOffsets.size() - 2);
}

uint32_t Trace::addArgs(const std::vector<SymId> &args) {
  argItems.insert(argItems.end(), args.begin(), args.end());
  argOffsets.push_back(static_cast<uint32_t>(argItems.size()));
  return static_cast<uint32_t>(argOffsets.size() - 2);
}

std::pair<const SymId *, const SymId *> Trace::args(const Event &e) const {
  const SymId *base = argItems.data();
  if (e.extra == kNone)
    return {base, base};
  return {base + argOffsets[e.extra], base + argOffsets[e.extra + 1]};
}

NameSpace objNameSpace(EventKind k, bool *hasObj) {
  *hasObj = true;
  switch (k) {
  case EventKind::Fork:
  case EventKind::Join:
    return NameSpace::Thread;
  case EventKind::Acquire:
  case EventKind::Release:
  case EventKind::RAcquire:
  case EventKind::TryFail:
    return NameSpace::Lock;
  case EventKind::Wait:
  case EventKind::Signal:
  case EventKind::Broadcast:
    return NameSpace::Cond;
  case EventKind::Barrier:
    return NameSpace::Barrier;
  case EventKind::SemInit:
  case EventKind::SemPost:
  case EventKind::SemWait:
    return NameSpace::Sem;
  case EventKind::Read:
  case EventKind::Write:
  case EventKind::AtomicRead:
  case EventKind::AtomicWrite:
  case EventKind::AtomicRmw:
  case EventKind::Alloc:
  case EventKind::Free:
    return NameSpace::Location;
  case EventKind::Custom:
    return NameSpace::Custom;
  case EventKind::Send:
  case EventKind::Recv:
    return NameSpace::Channel;
  case EventKind::Begin:
  case EventKind::End:
  case EventKind::Branch:
    break;
  }
  *hasObj = false;
  return NameSpace::Thread;
}

const char *opName(EventKind k) {
  static const char *const kNames[kNumEventKinds] = {
      "begin",   "end",  "fork",   "join",      "acq",     "rel",     "racq",
      "tryfail", "wait", "signal", "broadcast", "barrier", "seminit", "post",
      "semwait", "rd",   "wr",     "ard",       "awr",     "armw",    "br",
      "alloc",   "free", "ev",     "send",      "recv"};
  return kNames[static_cast<int>(k)];
}

} // namespace racepredict::trace
