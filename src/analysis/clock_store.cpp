//===- analysis/clock_store.cpp - Persistent vector clocks sharing nodes --===//
#include "clock_store.h"

#include <algorithm>

namespace racepredict::analysis {

ClockStore::ClockStore(size_t threads, unsigned maxWidth) {
  // The copies of joinRec/applyRec hold at most 64 slots.
  size_t widest = std::clamp(maxWidth, 2u, 64u);
  w_ = static_cast<unsigned>(std::clamp<size_t>(threads, 1, widest));
  pow_.push_back(1);
  while (pow_.back() * w_ < threads) {
    pow_.push_back(pow_.back() * w_);
    ++depth_;
  }
  // Node 0: the all-zero subtree, whatever its level.
  slots_.assign(w_, 0);
  level_.push_back(0);
}

uint32_t ClockStore::get(Ref c, ThreadId u) const {
  for (unsigned l = depth_; l-- > 0 && c != 0;)
    c = slots_[size_t{c} * w_ + slotOf(u, l)];
  return c;
}

ClockStore::Ref ClockStore::make(const uint32_t *slots, unsigned level) {
  Ref r = static_cast<Ref>(level_.size());
  slots_.insert(slots_.end(), slots, slots + w_);
  level_.push_back(static_cast<uint8_t>(level));
  return r;
}

ClockStore::Ref ClockStore::join(Ref a, Ref b, ThreadId keep, ThreadId over,
                                 uint32_t overValue) {
  return joinRec(a, b, depth_ - 1, 0, keep, over, overValue);
}

ClockStore::Ref ClockStore::joinRec(Ref a, Ref b, unsigned level, uint64_t base,
                                    ThreadId keep, ThreadId over,
                                    uint32_t overValue) {
  bool overHere = inside(over, level, base);
  if (!overHere && (b == 0 || a == b))
    return a;
  if (!overHere && a == 0 && !inside(keep, level, base))
    return b; // shared, not copied
  // Copies: make() may move slots_.
  uint32_t as[64], bs[64], out[64];
  std::copy_n(&slots_[size_t{a} * w_], w_, as);
  std::copy_n(&slots_[size_t{b} * w_], w_, bs);
  bool grew = false;
  for (unsigned i = 0; i < w_; ++i) {
    uint64_t sub = base + i * pow_[level];
    if (level == 0) {
      uint32_t bv = sub == over ? overValue : bs[i];
      out[i] = sub == keep ? as[i] : std::max(as[i], bv);
    } else {
      out[i] = joinRec(as[i], bs[i], level - 1, sub, keep, over, overValue);
    }
    grew |= out[i] != as[i];
  }
  return grew ? make(out, level) : a;
}

ClockStore::Ref ClockStore::raise(Ref a, const Entries &e, ThreadId keep) {
  return applyRec(a, e.data(), e.data() + e.size(), depth_ - 1, 0, keep, true);
}

ClockStore::Ref ClockStore::assign(Ref a, const Entries &e) {
  return applyRec(a, e.data(), e.data() + e.size(), depth_ - 1, 0, kNone,
                  false);
}

ClockStore::Ref ClockStore::applyRec(Ref a,
                                     const std::pair<ThreadId, uint32_t> *lo,
                                     const std::pair<ThreadId, uint32_t> *hi,
                                     unsigned level, uint64_t base,
                                     ThreadId keep, bool raiseOnly) {
  if (lo == hi)
    return a;
  uint32_t as[64], out[64];
  std::copy_n(&slots_[size_t{a} * w_], w_, as);
  bool changed = false;
  for (unsigned i = 0; i < w_; ++i) {
    uint64_t sub = base + i * pow_[level];
    uint64_t end = sub + pow_[level];
    const auto *mid = lo;
    while (mid != hi && mid->first < end)
      ++mid;
    if (level == 0) {
      out[i] = as[i];
      if (lo != mid && sub != keep)
        out[i] = raiseOnly ? std::max(as[i], lo->second) : lo->second;
    } else {
      out[i] = applyRec(as[i], lo, mid, level - 1, sub, keep, raiseOnly);
    }
    changed |= out[i] != as[i];
    lo = mid;
  }
  return changed ? make(out, level) : a;
}

std::vector<uint64_t> ClockStore::sums() const {
  std::vector<uint64_t> s(nodes(), 0);
  for (size_t n = 1; n < s.size(); ++n)
    for (unsigned i = 0; i < w_; ++i) {
      uint32_t v = slots_[n * w_ + i];
      s[n] += level_[n] == 0 ? v : s[v];
    }
  return s;
}

} // namespace racepredict::analysis
