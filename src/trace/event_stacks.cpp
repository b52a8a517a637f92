//===- trace/event_stacks.cpp - Each event's call-stack node, as runs -----===//
#include "racepredict/trace/event_stacks.h"

namespace racepredict::trace {

void EventStacks::resize(size_t n, uint32_t node) {
  if (n < size_) {
    // Runs starting at or after `n` go.
    auto keep =
        std::lower_bound(starts_.begin(), starts_.end(), n) - starts_.begin();
    starts_.resize(static_cast<size_t>(keep));
    nodes_.resize(static_cast<size_t>(keep));
    size_ = n;
  }
  if (n > size_) {
    if (nodes_.empty() || nodes_.back() != node) {
      starts_.push_back(static_cast<EventId>(size_));
      nodes_.push_back(node);
    }
    size_ = n;
  }
}

} // namespace racepredict::trace
