//===- analysis/latest_by_signature.h - Latest access per signature -------===//
//
// Private to src/analysis (candidate_groups.cpp, hb_races.cpp). For one
// stream of accesses (one thread's, at one location, of one kind), the
// latest access of every signature, in trace order: a signature seen again
// moves to the end and its old entry turns stale (compacted when stale
// entries dominate). What must happen before a later access is a prefix of
// the thread, so the entries it does not order are a suffix, found by one
// binary search: the work per access is the number of distinct signatures
// it can race with, not the number of earlier accesses.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

class LatestBySignature {
public:
  struct Entry {
    uint64_t sig;
    EventId latest;
    bool stale;
  };

  void update(uint64_t sig, EventId e) {
    auto [it, fresh] =
        where_.emplace(sig, static_cast<uint32_t>(entries_.size()));
    if (!fresh) {
      entries_[it->second].stale = true;
      it->second = static_cast<uint32_t>(entries_.size());
    } else {
      ++live_;
    }
    entries_.push_back({sig, e, false});
    if (entries_.size() > 2 * live_ + 16) {
      std::vector<Entry> keep;
      for (const Entry &x : entries_)
        if (!x.stale)
          keep.push_back(x);
      entries_.swap(keep);
      for (uint32_t i = 0; i < entries_.size(); ++i)
        where_[entries_[i].sig] = i;
    }
  }
  size_t live() const { return live_; }
  /// The first entry whose access is at position >= `pos` in its thread
  /// (entries are in trace order, all of one thread).
  const Entry *from(const TraceIndex &idx, uint32_t pos) const {
    return &*std::partition_point(
        entries_.begin(), entries_.end(),
        [&](const Entry &x) { return idx.posInThread(x.latest) < pos; });
  }
  const Entry *begin() const { return entries_.data(); }
  const Entry *end() const { return entries_.data() + entries_.size(); }

private:
  std::vector<Entry> entries_;
  std::unordered_map<uint64_t, uint32_t> where_; ///< sig → entry
  size_t live_ = 0;
};

} // namespace racepredict::analysis
