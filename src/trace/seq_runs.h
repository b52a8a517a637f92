//===- trace/seq_runs.h - A raw trace's seqs as runs of consecutive seqs --===//
//
// Private to src/trace. Each event of a binary trace has a seq (its place
// in the observed order). In v4 seqs are implicit: an event's is its
// predecessor's in the block plus one, except after a segment record. So
// they come in long runs of consecutive seqs, one run per stretch of a
// thread between two switches, and storing them as runs costs a few bytes a
// switch where a seq per event took 8 bytes an event (0.95 GB at loading's
// peak on pigz + instrumented zlib, 118M events).
//
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace racepredict::trace {

class SeqRuns {
public:
  /// Events [first, the next run's first) have seqs seq, seq + 1, ...
  struct Run {
    uint64_t seq;
    uint32_t first;
  };

  /// Appends the next event's seq.
  void push(uint64_t seq) {
    if (runs_.empty() || seq != runs_.back().seq + (n_ - runs_.back().first))
      runs_.push_back({seq, n_});
    ++n_;
  }
  uint32_t size() const { return n_; }
  const std::vector<Run> &runs() const { return runs_; }
  /// One past the last event of run `r`.
  uint32_t end(size_t r) const {
    return r + 1 < runs_.size() ? runs_[r + 1].first : n_;
  }
  /// The seq of event `i` (< size()).
  uint64_t at(uint32_t i) const {
    auto it =
        std::upper_bound(runs_.begin(), runs_.end(), i,
                         [](uint32_t x, const Run &r) { return x < r.first; });
    --it;
    return it->seq + (i - it->first);
  }
  /// Whether seqs increase with the event index (no seq twice).
  bool ascending() const {
    for (size_t r = 1; r < runs_.size(); ++r)
      if (runs_[r].seq <
          runs_[r - 1].seq + (runs_[r].first - runs_[r - 1].first))
        return false;
    return true;
  }
  /// The index of the event with `seq`, or `none`; only once ascending().
  uint32_t indexOf(uint64_t seq, uint32_t none) const {
    auto it =
        std::upper_bound(runs_.begin(), runs_.end(), seq,
                         [](uint64_t s, const Run &r) { return s < r.seq; });
    if (it == runs_.begin())
      return none;
    size_t r = static_cast<size_t>(it - runs_.begin()) - 1;
    uint64_t off = seq - runs_[r].seq;
    return off < end(r) - runs_[r].first
               ? runs_[r].first + static_cast<uint32_t>(off)
               : none;
  }
  void clear() {
    std::vector<Run>().swap(runs_);
    n_ = 0;
  }

private:
  std::vector<Run> runs_;
  uint32_t n_ = 0;
};

} // namespace racepredict::trace
