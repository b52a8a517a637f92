//===- analysis/candidates.cpp - Conflicting pairs and sound filters ------===//
#include "racepredict/analysis/candidates.h"

#include "racepredict/analysis/memory_objects.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_set>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

bool conflicts(const TraceIndex &idx, EventId a, EventId b) {
  const Event &ea = idx.trace().events[a];
  const Event &eb = idx.trace().events[b];
  if (ea.kind == EventKind::Free || eb.kind == EventKind::Free) {
    // A free writes the whole object it ends (memory_objects.h).
    EventId f = ea.kind == EventKind::Free ? a : b, x = f == a ? b : a;
    return ea.thread != eb.thread &&
           trace::isAccess(idx.trace().events[x].kind) &&
           idx.objects().ends(f, x);
  }
  return trace::isAccess(ea.kind) && trace::isAccess(eb.kind) &&
         ea.obj == eb.obj && ea.thread != eb.thread &&
         (trace::writesValue(ea.kind) || trace::writesValue(eb.kind)) &&
         !(trace::isAtomic(ea.kind) && trace::isAtomic(eb.kind)) &&
         idx.allocGeneration(a) == idx.allocGeneration(b);
}

void forEachConflictingPair(const TraceIndex &idx,
                            const std::function<void(EventId, EventId)> &fn) {
  const auto &events = idx.trace().events;
  std::unordered_set<SymId> seenLoc;
  std::vector<EventId> plainWrites, atomicWrites, plainReads;
  for (const Event &e : events) {
    if (!trace::isAccess(e.kind) || !seenLoc.insert(e.obj).second)
      continue;
    const auto &acc = idx.accessesTo(e.obj);
    plainWrites.clear();
    atomicWrites.clear();
    plainReads.clear();
    for (EventId x : acc) {
      EventKind k = events[x].kind;
      if (k == EventKind::Write)
        plainWrites.push_back(x);
      else if (k == EventKind::Read)
        plainReads.push_back(x);
      else if (trace::writesValue(k))
        atomicWrites.push_back(x);
    }
    // Only pairs with a write and a plain access can conflict, so a spin
    // loop of atomic reads costs nothing: plain writes against every
    // access (each pair of plain writes once), atomic writes against plain
    // reads.
    for (EventId w : plainWrites)
      for (EventId x : acc) {
        if (events[x].kind == EventKind::Write && x <= w)
          continue;
        if (conflicts(idx, w, x))
          fn(std::min(w, x), std::max(w, x));
      }
    for (EventId w : atomicWrites)
      for (EventId r : plainReads)
        if (conflicts(idx, w, r))
          fn(std::min(w, r), std::max(w, r));
    for (EventId f : idx.objects().freesOf(e.obj))
      for (EventId x : acc)
        if (conflicts(idx, f, x))
          fn(std::min(f, x), std::max(f, x));
  }
}

namespace {

/// Sound lockset check: if both accesses are inside sections of one lock
/// (not both read mode), both threads would hold it at the race point.
bool commonLock(const TraceIndex &idx, const std::vector<uint32_t> &la,
                const std::vector<uint32_t> &lb) {
  for (uint32_t sa : la)
    for (uint32_t sb : lb) {
      const LockSection &x = idx.sections()[sa];
      const LockSection &y = idx.sections()[sb];
      if (x.lock == y.lock && !(x.readMode && y.readMode))
        return true;
    }
  return false;
}

uint64_t signatureKey(const trace::Trace &t, EventId e) {
  // Source id in the high half; events without a source are unique.
  SymId src = t.events[e].src;
  return src ? (uint64_t{1} << 63) | src : e;
}

} // namespace

std::vector<Candidate> findCandidates(const TraceIndex &idx,
                                      const MustHappenBefore &mhb,
                                      bool applyFilters,
                                      CandidateStats *stats) {
  const trace::Trace &t = idx.trace();
  std::vector<Candidate> out;
  std::unordered_map<EventId, std::vector<uint32_t>> locksets;
  auto lockset = [&](EventId e) -> const std::vector<uint32_t> & {
    auto it = locksets.find(e);
    if (it == locksets.end())
      it = locksets.emplace(e, idx.sectionsHolding(e)).first;
    return it->second;
  };
  forEachConflictingPair(idx, [&](EventId a, EventId b) {
    ++stats->conflicting;
    if (applyFilters) {
      if (mhb.orderedEitherWay(a, b)) {
        ++stats->filteredMhb;
        return;
      }
      if (commonLock(idx, lockset(a), lockset(b))) {
        ++stats->filteredLockset;
        return;
      }
    }
    out.push_back({a, b, 0});
  });
  std::sort(out.begin(), out.end(), [](const Candidate &x, const Candidate &y) {
    return std::make_pair(x.first, x.second) <
           std::make_pair(y.first, y.second);
  });
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> groups;
  for (Candidate &c : out) {
    uint64_t ka = signatureKey(t, c.first), kb = signatureKey(t, c.second);
    auto key = std::minmax(ka, kb);
    auto it = groups.emplace(key, static_cast<uint32_t>(groups.size())).first;
    c.group = it->second;
  }
  return out;
}

} // namespace racepredict::analysis
