//===- analysis/memory_objects.cpp - Which allocation an access belongs to ===//
#include "racepredict/analysis/memory_objects.h"

#include "painted_intervals.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;
using trace::NameSpace;

namespace {

/// A CSR from (key, item) pairs whose items are in order per key already.
void buildCsr(Csr &out, size_t keys,
              const std::vector<std::pair<uint32_t, uint32_t>> &pairs) {
  out.off.assign(keys + 1, 0);
  for (auto &[k, v] : pairs)
    ++out.off[k + 1];
  for (size_t k = 1; k <= keys; ++k)
    out.off[k] += out.off[k - 1];
  out.items.resize(pairs.size());
  std::vector<uint32_t> next(out.off.begin(), out.off.end() - 1);
  for (auto &[k, v] : pairs)
    out.items[next[k]++] = v;
}

} // namespace

MemoryObjects::MemoryObjects(const trace::Trace &t) : t_(t) {
  const auto &events = t.events;
  if (std::none_of(events.begin(), events.end(), [](const Event &e) {
        return e.kind == EventKind::Alloc || e.kind == EventKind::Free;
      }))
    return; // one object per location: every generation is 0
  const trace::SymbolTable &names = t.table(NameSpace::Location);
  size_t nLoc = names.size();
  std::vector<uint64_t> addr(nLoc, 0);
  std::vector<char> hasAddr(nLoc, 0), accessed(nLoc, 0);
  for (const Event &e : events)
    if (trace::isAccess(e.kind))
      accessed[e.obj] = 1;
  // The locations a block may cover: accessed ones (a block's base named
  // only by its alloc and free has nothing to race on).
  std::vector<std::pair<uint64_t, SymId>> byAddr;
  for (SymId l = 0; l < nLoc; ++l)
    if (auto a = trace::locationAddress(names.name(l))) {
      addr[l] = *a;
      hasAddr[l] = 1;
      if (accessed[l])
        byAddr.push_back({*a, l});
    }
  std::sort(byAddr.begin(), byAddr.end());

  // The live allocations: a newer one is painted over those it overlaps
  // (an munmap of part of a mapping and a new mapping there leave the rest
  // of the old one).
  PaintedIntervals live;
  std::vector<EventId> ownAlloc(nLoc, kNone); // locations without address
  std::vector<EventId> last(nLoc, kNone);
  std::vector<std::pair<uint32_t, uint32_t>> touched; // (location, alloc)
  std::vector<std::pair<uint32_t, uint32_t>> freed;   // (free index, loc)
  std::vector<std::pair<uint32_t, uint32_t>> freesOf; // (location, free)
  auto touch = [&](SymId loc) {
    EventId a = hasAddr[loc] ? live.at(addr[loc]) : ownAlloc[loc];
    // The covering allocation only ever gets newer: a change is a new one.
    if (a != last[loc] && a != kNone) {
      last[loc] = a;
      touched.push_back({loc, a});
    }
  };
  auto endObject = [&](EventId f, SymId loc) {
    touch(loc);
    freed.push_back({static_cast<uint32_t>(frees_.size() - 1), loc});
    freesOf.push_back({loc, f});
  };
  for (EventId i = 0; i < events.size(); ++i) {
    const Event &e = events[i];
    if (trace::isAccess(e.kind)) {
      touch(e.obj);
      continue;
    }
    if (e.kind != EventKind::Alloc && e.kind != EventKind::Free)
      continue;
    if (e.kind == EventKind::Free)
      frees_.push_back(i);
    if (!hasAddr[e.obj]) {
      if (e.kind == EventKind::Alloc)
        ownAlloc[e.obj] = i;
      else
        endObject(i, e.obj);
      continue;
    }
    uint64_t lo = addr[e.obj];
    uint64_t hi = std::max(lo + std::max<uint64_t>(e.aux, 1), lo + 1);
    if (e.kind == EventKind::Alloc) {
      live.paint(lo, hi, i);
      continue;
    }
    for (auto it = std::lower_bound(byAddr.begin(), byAddr.end(),
                                    std::make_pair(lo, SymId{0}));
         it != byAddr.end() && it->first < hi; ++it)
      endObject(i, it->second);
  }
  buildCsr(touchedUnder_, nLoc, touched);
  buildCsr(freed_, frees_.size(), freed);
  for (size_t f = 0; f < frees_.size(); ++f)
    std::sort(freed_.items.begin() + freed_.off[f],
              freed_.items.begin() + freed_.off[f + 1]);
  buildCsr(freesOf_, nLoc, freesOf);
}

uint32_t MemoryObjects::generation(SymId loc, EventId e) const {
  Span<uint32_t> under = touchedUnder_.of(loc);
  return static_cast<uint32_t>(std::lower_bound(under.begin(), under.end(), e) -
                               under.begin());
}

Span<uint32_t> MemoryObjects::freedBy(EventId f) const {
  auto it = std::lower_bound(frees_.begin(), frees_.end(), f);
  if (it == frees_.end() || *it != f)
    return {};
  return freed_.of(static_cast<size_t>(it - frees_.begin()));
}

bool MemoryObjects::ends(EventId f, EventId x) const {
  SymId loc = t_.events[x].obj;
  Span<uint32_t> locs = freedBy(f);
  return std::binary_search(locs.begin(), locs.end(), loc) &&
         generation(loc, f) == generation(loc, x);
}

} // namespace racepredict::analysis
