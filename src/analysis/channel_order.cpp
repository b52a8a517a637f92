//===- analysis/channel_order.cpp - What sends and receives must follow ---===//
#include "racepredict/analysis/channel_order.h"

#include "painted_intervals.h"

#include <algorithm>
#include <unordered_map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {

struct ChannelState {
  EventId lastSend = kNone, lastRecv = kNone;
  PaintedIntervals sentBy, receivedBy; ///< the last send / recv of each byte
};

} // namespace

ChannelOrder::ChannelOrder(const trace::Trace &t) {
  const auto &events = t.events;
  std::unordered_map<SymId, ChannelState> channels;
  std::vector<std::pair<EventId, EventId>> edges; // (to, from)
  for (EventId e = 0; e < events.size(); ++e) {
    const Event &ev = events[e];
    if (!trace::isChannelEvent(ev.kind))
      continue;
    ChannelState &c = channels[ev.obj];
    auto lo = static_cast<uint64_t>(ev.value), hi = lo + ev.aux;
    bool send = ev.kind == EventKind::Send;
    EventId preds[2] = {send ? c.lastSend : c.lastRecv,
                        // A receive: the newest send of its bytes (the sends
                        // are in order, so the others come before it). A send:
                        // the newest receive of bytes it overwrites.
                        ev.aux == 0 ? kNone
                        : send      ? c.receivedBy.newestIn(lo, hi)
                                    : c.sentBy.newestIn(lo, hi)};
    for (EventId p : preds)
      if (p != kNone && events[p].thread != ev.thread)
        edges.push_back({e, p});
    if (ev.aux)
      (send ? c.sentBy : c.receivedBy).paint(lo, hi, e);
    (send ? c.lastSend : c.lastRecv) = e;
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  for (auto [to, from] : edges) {
    to_.push_back(to);
    from_.push_back(from);
  }
}

EventSpan ChannelOrder::predecessors(EventId e) const {
  auto [lo, hi] = std::equal_range(to_.begin(), to_.end(), e);
  size_t b = static_cast<size_t>(lo - to_.begin());
  size_t n = static_cast<size_t>(hi - lo);
  return {from_.data() + b, from_.data() + b + n};
}

} // namespace racepredict::analysis
