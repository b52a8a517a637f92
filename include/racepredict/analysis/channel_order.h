//===- analysis/channel_order.h - What sends and receives must follow -----===//
//
// A channel (a pipe, one direction of a socket, a file) carries bytes
// numbered by offset: `send c o n` puts [o, o+n) into it, `recv c o n` takes
// [o, o+n) out (docs/semantics.md, Channels). For the bytes a receive got
// to be the same in a reordering, it must follow the send that last wrote
// each of them before it in the trace (TSan orders a write before the read
// that returns its data, per descriptor; only the sends of the bytes it
// returned, not every earlier one), and must precede a later send that
// writes over one of them (files); the sends of a channel keep their order,
// and so do its receives (the channel's position is shared: a receive that
// ran earlier would take other bytes). These are must-happen-before edges,
// like fork and join; computed once, in trace order.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <vector>

namespace racepredict::analysis {

class ChannelOrder {
public:
  explicit ChannelOrder(const trace::Trace &t);
  /// The events of other threads that send or receive `e` must follow
  /// (earlier in the trace); at most three, none for other events.
  EventSpan predecessors(EventId e) const;

private:
  /// Edges from_[i] -> to_[i], sorted by (to, from).
  std::vector<EventId> to_, from_;
};

} // namespace racepredict::analysis
