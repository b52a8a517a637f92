//===- analysis/painted_intervals.h - Newest-wins ranges of events --------===//
//
// Private to src/analysis. Ranges of some address or offset space, each
// owned by the event that painted it last: a newer range is painted over
// the older ones it overlaps, what is left of them keeps its owner. Events
// are painted in trace order, so the owners only get newer. Used for the
// live allocations (memory_objects.cpp) and for who last sent or received
// the bytes of a channel (channel_order.cpp).
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <algorithm>
#include <map>

namespace racepredict::analysis {

class PaintedIntervals {
public:
  void paint(uint64_t lo, uint64_t hi, EventId owner) {
    for (Recent &r : recent_)
      if (r.lo < hi && lo < r.hi)
        r = Recent{};
    auto it = ranges_.lower_bound(lo);
    if (it != ranges_.begin()) {
      auto p = std::prev(it);
      if (p->second.first > lo) {
        auto [end, old] = p->second;
        p->second.first = lo;
        if (end > hi)
          ranges_.emplace(hi, std::make_pair(end, old));
      }
    }
    while (it != ranges_.end() && it->first < hi) {
      if (it->second.first > hi) {
        auto rest = it->second;
        ranges_.erase(it);
        ranges_.emplace(hi, rest);
        break;
      }
      it = ranges_.erase(it);
    }
    ranges_.emplace(lo, std::make_pair(hi, owner));
  }
  /// The owner of point `a`, or kNone. Consecutive lookups mostly fall in
  /// the same few ranges (one object's fields): the last ones found are
  /// kept until a paint overlaps them.
  EventId at(uint64_t a) const {
    for (const Recent &r : recent_)
      if (a >= r.lo && a < r.hi)
        return r.owner;
    auto it = ranges_.upper_bound(a);
    if (it == ranges_.begin() || a >= std::prev(it)->second.first)
      return kNone;
    --it;
    recent_[next_++ % kRecent] = {it->first, it->second.first,
                                  it->second.second};
    return it->second.second;
  }
  /// The newest owner of any point of [lo, hi), or kNone.
  EventId newestIn(uint64_t lo, uint64_t hi) const {
    EventId best = kNone;
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin())
      --it;
    for (; it != ranges_.end() && it->first < hi; ++it)
      if (it->second.first > lo && (best == kNone || it->second.second > best))
        best = it->second.second;
    return best;
  }

private:
  std::map<uint64_t, std::pair<uint64_t, EventId>> ranges_; ///< lo->(hi, owner)
  struct Recent {
    uint64_t lo = 0, hi = 0;
    EventId owner = kNone;
  };
  static constexpr unsigned kRecent = 4;
  mutable Recent recent_[kRecent];
  mutable unsigned next_ = 0;
};

} // namespace racepredict::analysis
