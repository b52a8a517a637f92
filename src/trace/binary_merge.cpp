//===- trace/binary_merge.cpp - One observed order from a v3 trace --------===//
//
// A v3 trace (format.h) does not carry one global order: synchronisation
// events carry global tickets, memory accesses their place in their
// stripe's order, branches nothing. The recorder guarantees (docs/
// recording.md) that program order, ticket order and stripe order are
// consistent with one real-time order of the run, so their union is
// acyclic and every topological order of it is a sequentially consistent
// observation: each read comes after the write it read from (same stripe,
// smaller field) and before the next write of its stripe.
//
// Kahn's algorithm over that union, without materialising its edges: each
// thread is a queue; its head can go when it is the next ticket (ticketed
// events and marks), when its stripe's current group has its field
// (accesses: a group is one exclusive access, or all the shared reads that
// saw the same version), or always (branches). A thread whose head cannot
// go waits on that ticket or stripe and is woken when it advances. Linear
// in the events plus one sort of the tickets and one of the stripe fields.
//
#include "binary_raw.h"

#include "racepredict/trace/format.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace racepredict::trace {
namespace {

constexpr uint32_t kMarkBit = 0x80000000u;
constexpr unsigned kFieldBits = 44;
constexpr uint64_t kFieldMask = (uint64_t{1} << kFieldBits) - 1;

class Merger {
public:
  Merger(RawTrace &raw, const std::string &name) : raw_(raw), name_(name) {}

  Expected<bool> run() {
    size_t n = raw_.events.size();
    if (n >= kMarkBit || raw_.marks.size() >= kMarkBit)
      return Error{name_ + ": too many events for one trace"};
    buildQueues();
    if (auto r = buildStripes(); !r)
      return r;
    if (auto r = buildTickets(); !r)
      return r;
    rank_.assign(n, kUnplaced);
    for (uint32_t t = 0; t < queues_.size(); ++t)
      ready_.push_back(t);
    while (!ready_.empty()) {
      uint32_t t = ready_.front();
      ready_.pop_front();
      advance(t);
    }
    if (placed_ < n) {
      if (!raw_.cut)
        return stuckError();
      dropUnplaced();
    }
    return rewrite();
  }

private:
  static constexpr uint64_t kUnplaced = ~uint64_t{0};

  /// A stripe's current group is fields_[pos, end): one exclusive access,
  /// or the shared reads that saw one version.
  struct StripeState {
    size_t pos = 0, end = 0;
    uint32_t remaining = 0; ///< entries of the current group not placed yet
    std::vector<uint32_t> waiting; ///< threads whose head waits here
  };

  uint32_t stripeOf(const Event &e) const {
    uint64_t key = raw_.keys[int(NameSpace::Location)].keys[e.obj];
    return static_cast<uint32_t>(key >> RP_STRIPE_SHIFT) &
           ((1u << RP_STRIPE_BITS) - 1);
  }
  Order orderOf(uint32_t item) const {
    return item & kMarkBit ? Order::Ticket
                           : static_cast<Order>(raw_.order[item]);
  }
  uint64_t seqOf(uint32_t item) const {
    return item & kMarkBit ? raw_.marks[item & ~kMarkBit].seq : raw_.seqs[item];
  }

  /// Per thread, its events and marks in program order (a mark goes
  /// before the first event at or after its position).
  void buildQueues() {
    uint32_t threads =
        static_cast<uint32_t>(raw_.keys[int(NameSpace::Thread)].keys.size());
    queues_.assign(threads, {});
    cursor_.assign(threads, 0);
    size_t n = raw_.events.size(), m = 0;
    for (uint32_t i = 0; i <= n; ++i) {
      for (; m < raw_.marks.size() && raw_.marks[m].pos <= i; ++m)
        queues_[raw_.marks[m].thread].push_back(kMarkBit |
                                                static_cast<uint32_t>(m));
      if (i < n)
        queues_[raw_.events[i].thread].push_back(i);
    }
  }

  /// All accesses' (stripe, field), sorted: each stripe's order.
  Expected<bool> buildStripes() {
    for (uint32_t i = 0; i < raw_.events.size(); ++i) {
      if (raw_.order[i] != uint8_t(Order::Stripe))
        continue;
      if (raw_.seqs[i] > kFieldMask)
        return Error{name_ + ": stripe order " + std::to_string(raw_.seqs[i]) +
                     " out of range"};
      fields_.push_back(uint64_t{stripeOf(raw_.events[i])} << kFieldBits |
                        raw_.seqs[i]);
    }
    std::sort(fields_.begin(), fields_.end());
    stripes_.resize(size_t{1} << RP_STRIPE_BITS);
    for (size_t k = 0; k < fields_.size();) {
      auto s = static_cast<uint32_t>(fields_[k] >> kFieldBits);
      startGroup(stripes_[s], k);
      while (k < fields_.size() && (fields_[k] >> kFieldBits) == s)
        ++k;
    }
    return true;
  }
  /// Makes the group starting at fields_[k] the stripe's current one.
  void startGroup(StripeState &st, size_t k) {
    st.pos = st.end = k;
    while (st.end < fields_.size() && fields_[st.end] == fields_[k])
      ++st.end;
    st.remaining = static_cast<uint32_t>(st.end - st.pos);
  }

  /// All tickets, sorted: the ticket order.
  Expected<bool> buildTickets() {
    for (uint32_t i = 0; i < raw_.events.size(); ++i)
      if (raw_.order[i] == uint8_t(Order::Ticket))
        tickets_.push_back(raw_.seqs[i]);
    for (const RawTrace::Mark &mk : raw_.marks)
      tickets_.push_back(mk.seq);
    std::sort(tickets_.begin(), tickets_.end());
    auto dup = std::adjacent_find(tickets_.begin(), tickets_.end());
    if (dup != tickets_.end())
      return Error{name_ + ": two records have seq " + std::to_string(*dup)};
    return true;
  }

  /// Places thread t's events while its head can go.
  void advance(uint32_t t) {
    std::vector<uint32_t> &q = queues_[t];
    for (size_t &c = cursor_[t]; c < q.size(); ++c) {
      uint32_t item = q[c];
      switch (orderOf(item)) {
      case Order::Ticket: {
        uint64_t seq = seqOf(item);
        if (tickets_[nextTicket_] != seq) {
          ticketWaiter_[seq] = t;
          return;
        }
        place(item);
        if (++nextTicket_ < tickets_.size()) {
          auto w = ticketWaiter_.find(tickets_[nextTicket_]);
          if (w != ticketWaiter_.end()) {
            ready_.push_back(w->second);
            ticketWaiter_.erase(w);
          }
        }
        break;
      }
      case Order::Stripe: {
        StripeState &st = stripes_[stripeOf(raw_.events[item])];
        if ((fields_[st.pos] & kFieldMask) != raw_.seqs[item]) {
          st.waiting.push_back(t);
          return;
        }
        place(item);
        if (--st.remaining == 0) {
          bool more =
              st.end < fields_.size() && (fields_[st.end] >> kFieldBits) ==
                                             (fields_[st.pos] >> kFieldBits);
          if (more) // else the stripe is done: no access waits for it
            startGroup(st, st.end);
          for (uint32_t w : st.waiting)
            ready_.push_back(w);
          st.waiting.clear();
        }
        break;
      }
      case Order::Free:
        place(item);
        break;
      }
    }
  }
  void place(uint32_t item) {
    if (!(item & kMarkBit))
      rank_[item] = placed_++;
  }

  Error stuckError() const {
    // Name one thread that cannot go and what it waits for.
    for (uint32_t t = 0; t < queues_.size(); ++t) {
      if (cursor_[t] >= queues_[t].size())
        continue;
      uint32_t item = queues_[t][cursor_[t]];
      std::string what = orderOf(item) == Order::Ticket
                             ? "seq " + std::to_string(seqOf(item)) +
                                   " while the next ticket is " +
                                   std::to_string(tickets_[nextTicket_])
                             : "stripe order " + std::to_string(seqOf(item)) +
                                   " of stripe " +
                                   std::to_string(stripeOf(raw_.events[item]));
      return Error{name_ + ": the recorded orders contradict each other (" +
                   std::to_string(raw_.events.size() - placed_) +
                   " events cannot be placed; thread t" +
                   std::to_string(raw_.keys[int(NameSpace::Thread)].keys[t]) +
                   " waits at " + what + ")"};
    }
    return Error{name_ + ": the recorded orders contradict each other"};
  }

  /// A cut file: what waits for a lost record goes with it.
  void dropUnplaced() {
    size_t n = raw_.events.size(), k = 0;
    bool withStacks = !raw_.stacks.empty();
    if (withStacks)
      raw_.stacks.resize(n, 0);
    std::vector<uint32_t> newIndex(n, kNone);
    for (size_t i = 0; i < n; ++i) {
      if (rank_[i] == kUnplaced)
        continue;
      newIndex[i] = static_cast<uint32_t>(k);
      raw_.events[k] = raw_.events[i];
      raw_.seqs[k] = raw_.seqs[i];
      raw_.order[k] = raw_.order[i];
      rank_[k] = rank_[i];
      if (withStacks)
        raw_.stacks[k] = raw_.stacks[i];
      ++k;
    }
    raw_.events.resize(k);
    raw_.seqs.resize(k);
    raw_.order.resize(k);
    rank_.resize(k);
    if (withStacks)
      raw_.stacks.resize(k);
    for (auto &q : queues_) {
      size_t w = 0;
      for (uint32_t item : q)
        if ((item & kMarkBit) || newIndex[item] != kNone)
          q[w++] = item & kMarkBit ? item : newIndex[item];
      q.resize(w);
    }
  }

  /// seqRuns := ranks; notify tickets and dependence indexes := ranks.
  Expected<bool> rewrite() {
    std::unordered_map<uint64_t, uint64_t> rankOfTicket;
    for (uint32_t i = 0; i < raw_.events.size(); ++i)
      if (raw_.order[i] == uint8_t(Order::Ticket) &&
          isNotify(raw_.events[i].kind))
        rankOfTicket.emplace(raw_.seqs[i], rank_[i]);
    for (uint64_t &n : raw_.notify) {
      if (n == 0)
        continue;
      auto it = rankOfTicket.find(n - 1);
      // A ticket no notify has: a rank no event has, for resolve to report.
      n = it == rankOfTicket.end() ? raw_.events.size() + 1 : it->second + 1;
    }
    // The queues become the threads' events (marks out): dependences count
    // among those, and a cut only ever drops a suffix of a thread.
    for (auto &q : queues_)
      q.erase(std::remove_if(q.begin(), q.end(),
                             [](uint32_t item) { return item & kMarkBit; }),
              q.end());
    for (uint32_t i = 0; i < raw_.events.size(); ++i) {
      const Event &e = raw_.events[i];
      if (!raw_.t.hasDeps(e))
        continue;
      const std::vector<uint32_t> &q = queues_[e.thread];
      for (size_t k = raw_.depOff[e.extra]; k < raw_.depOff[e.extra + 1]; ++k) {
        uint64_t index = raw_.depSeqs[k];
        raw_.depSeqs[k] = index == 0 || index > q.size()
                              ? raw_.events.size() + 1
                              : rank_[q[index - 1]];
      }
    }
    for (uint32_t i = 0; i < raw_.events.size(); ++i)
      raw_.seqRuns.push(rank_[i]);
    std::vector<uint64_t>().swap(raw_.seqs);
    std::vector<uint8_t>().swap(raw_.order);
    std::vector<RawTrace::Mark>().swap(raw_.marks);
    return true;
  }
  RawTrace &raw_;
  const std::string &name_;
  std::vector<std::vector<uint32_t>> queues_;
  std::vector<size_t> cursor_;
  std::vector<uint64_t> fields_;
  std::vector<StripeState> stripes_;
  std::vector<uint64_t> tickets_;
  size_t nextTicket_ = 0;
  std::unordered_map<uint64_t, uint32_t> ticketWaiter_;
  std::deque<uint32_t> ready_;
  std::vector<uint64_t> rank_;
  uint64_t placed_ = 0;
};

} // namespace

Expected<bool> mergeOrders(RawTrace &raw, const std::string &name) {
  return Merger(raw, name).run();
}

} // namespace racepredict::trace
