//===- trace/event_stacks.h - Each event's call-stack node, as runs -------===//
#pragma once

#include "racepredict/trace/event.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace racepredict::trace {

/// Per event, its node in the call-stack trie (Trace::stackNodes), stored as
/// runs of equal nodes: consecutive events mostly share their stack, so a run
/// (its first event and its node, 8 bytes) replaces 4 bytes an event. On
/// pigz + instrumented zlib the 118M events make 1.59M runs: 13 MB instead of
/// 451 MB (bench/RESULTS.md, "Trace tables").
class EventStacks {
public:
  /// Appends the node of the next event.
  void push_back(uint32_t node) {
    if (nodes_.empty() || nodes_.back() != node) {
      starts_.push_back(static_cast<EventId>(size_));
      nodes_.push_back(node);
    }
    ++size_;
  }
  /// Cuts or extends to `n` events, new ones with `node`.
  void resize(size_t n, uint32_t node);
  /// The node of event `e` (< size()): the run starting last at or before it.
  uint32_t operator[](EventId e) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), e);
    return nodes_[static_cast<size_t>(it - starts_.begin()) - 1];
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t runs() const { return starts_.size(); }
  void clear() { *this = EventStacks(); }

private:
  std::vector<EventId> starts_; ///< first event of each run, increasing
  std::vector<uint32_t> nodes_; ///< the node of each run
  size_t size_ = 0;
};

} // namespace racepredict::trace
