//===- analysis/clock_store.cpp - Persistent vector clocks sharing nodes --===//
#include "clock_store.h"

#include <algorithm>

namespace racepredict::analysis {

ClockStore::ClockStore(size_t threads, unsigned maxWidth) {
  // The copies of joinRec/applyRec hold at most 64 slots.
  unsigned widest = std::clamp(maxWidth, 2u, 64u);
  pow_.push_back(1);
  if (threads <= widest) {
    w_ = static_cast<unsigned>(std::max<size_t>(threads, 1)); // one leaf
  } else {
    w_ = widest;
    while ((1u << shift_) < w_)
      ++shift_;
    mask_ = w_ - 1;
    while (pow_.back() * w_ < threads) {
      pow_.push_back(pow_.back() * w_);
      ++depth_;
    }
  }
  // Node 0: the all-zero subtree, whatever its level.
  slots_.assign(w_, 0);
  level_.push_back(0);
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
  if (level == 0) {
    std::copy_n(as, w_, out);
    for (; lo != hi; ++lo) {
      uint32_t &o = out[lo->first - base];
      uint32_t v = raiseOnly ? std::max(o, lo->second) : lo->second;
      changed |= lo->first != keep && v != o;
      if (lo->first != keep)
        o = v;
    }
    return changed ? make(out, level) : a;
  }
  for (unsigned i = 0; i < w_; ++i) {
    uint64_t sub = base + i * pow_[level];
    uint64_t end = sub + pow_[level];
    const auto *mid = lo;
    while (mid != hi && mid->first < end)
      ++mid;
    out[i] = applyRec(as[i], lo, mid, level - 1, sub, keep, raiseOnly);
    changed |= out[i] != as[i];
    lo = mid;
  }
  return changed ? make(out, level) : a;
}

ThreadId ClockStore::diffRec(Ref a, Ref b, unsigned level, uint64_t base,
                             ThreadId from) const {
  if (a == b || base + cover(level) <= from)
    return kNone;
  const uint32_t *as = &slots_[size_t{a} * w_], *bs = &slots_[size_t{b} * w_];
  unsigned i =
      from > base ? static_cast<unsigned>((from - base) / pow_[level]) : 0;
  for (; i < w_; ++i) {
    if (as[i] == bs[i])
      continue;
    uint64_t sub = base + i * pow_[level];
    if (level == 0)
      return static_cast<ThreadId>(sub);
    if (ThreadId d = diffRec(as[i], bs[i], level - 1, sub, from); d != kNone)
      return d;
  }
  return kNone;
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
