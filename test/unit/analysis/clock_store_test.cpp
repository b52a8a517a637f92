//===- test/unit/analysis/clock_store_test.cpp - Shared clocks = dense ----===//
//
// The must-happen-before clocks share nodes (clock_store.h). Random joins,
// raises and assignments on many threads, with narrow nodes so that the
// tries are several levels deep, must give what dense vectors give, and
// must leave the clocks they started from as they were.
//
#include "clock_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

using racepredict::analysis::ClockStore;
using racepredict::analysis::kNone;
using racepredict::analysis::ThreadId;

namespace {

using Dense = std::vector<uint32_t>;

struct Checker {
  ClockStore store;
  size_t nt;
  std::vector<ClockStore::Ref> refs;
  std::vector<Dense> dense;

  Checker(size_t threads, unsigned width)
      : store(threads, width), nt(threads), refs{0}, dense{Dense(threads, 0)} {}

  std::string mismatch(size_t i) const {
    ClockStore::Entries listed;
    store.forEach(refs[i],
                  [&](ThreadId u, uint32_t v) { listed.emplace_back(u, v); });
    ClockStore::Entries want;
    uint64_t sum = 0;
    for (ThreadId u = 0; u < nt; ++u) {
      if (store.get(refs[i], u) != dense[i][u])
        return "entry " + std::to_string(u) + " of clock " + std::to_string(i);
      if (dense[i][u] != 0)
        want.emplace_back(u, dense[i][u]);
      sum += dense[i][u];
    }
    if (listed != want)
      return "forEach of clock " + std::to_string(i);
    if (store.sums()[refs[i]] != sum)
      return "sum of clock " + std::to_string(i);
    return "";
  }
};

} // namespace

TEST(ClockStore, SharedClocksEqualDenseOnes) {
  std::mt19937 rng(7);
  for (size_t nt : {1, 2, 3, 5, 17, 64, 300}) {
    for (unsigned width : {2u, 4u, 16u}) {
      Checker k(nt, width);
      auto any = [&](size_t n) { return static_cast<size_t>(rng() % n); };
      auto entries = [&]() {
        ClockStore::Entries e;
        for (ThreadId u = 0; u < nt; ++u)
          if (any(4) == 0)
            e.emplace_back(u, static_cast<uint32_t>(any(50)));
        return e;
      };
      for (int step = 0; step < 400; ++step) {
        size_t a = any(k.refs.size()), b = any(k.refs.size());
        ThreadId keep = any(3) == 0 ? kNone : static_cast<ThreadId>(any(nt));
        Dense d = k.dense[a];
        ClockStore::Ref r;
        switch (any(3)) {
        case 0: { // join, b's `over` entry read as overValue
          ThreadId over = any(2) == 0 ? kNone : static_cast<ThreadId>(any(nt));
          uint32_t ov = static_cast<uint32_t>(any(60));
          r = k.store.join(k.refs[a], k.refs[b], keep, over, ov);
          for (ThreadId u = 0; u < nt; ++u)
            if (u != keep)
              d[u] = std::max(d[u], u == over ? ov : k.dense[b][u]);
          break;
        }
        case 1: {
          ClockStore::Entries e = entries();
          r = k.store.raise(k.refs[a], e, keep);
          for (auto [u, v] : e)
            if (u != keep)
              d[u] = std::max(d[u], v);
          break;
        }
        default: {
          ClockStore::Entries e = entries();
          r = k.store.assign(k.refs[a], e);
          for (auto [u, v] : e)
            d[u] = v;
          break;
        }
        }
        // Nothing changed: the same clock, no new node.
        if (d == k.dense[a]) {
          ASSERT_EQ(r, k.refs[a]) << "nt " << nt << " width " << width;
        }
        k.refs.push_back(r);
        k.dense.push_back(d);
        // The first difference from a random thread on, between two clocks.
        size_t x = any(k.refs.size()), y = any(k.refs.size());
        ThreadId from = static_cast<ThreadId>(any(nt + 1));
        ThreadId want = kNone;
        for (ThreadId u = from; u < nt && want == kNone; ++u)
          if (k.dense[x][u] != k.dense[y][u])
            want = u;
        ASSERT_EQ(k.store.firstDifference(k.refs[x], k.refs[y], from), want)
            << "nt " << nt << " width " << width << " step " << step;
        // The new clock, and a few old ones (never modified in place).
        for (size_t i : {k.refs.size() - 1, any(k.refs.size()), a, b}) {
          std::string why = k.mismatch(i);
          ASSERT_EQ(why, "")
              << "nt " << nt << " width " << width << " step " << step;
        }
      }
    }
  }
}

// A child starts from its creator's clock and its creator joins it back:
// the joins share the creator's nodes, so 2,000 such pairs store a few
// paths each, not 2,000 entries each.
TEST(ClockStore, ForkJoinChainsSharePaths) {
  const size_t n = 2000;
  ClockStore store(n + 1);
  ClockStore::Ref main = 0;
  for (ThreadId child = 1; child <= n; ++child) {
    // The child's first event joins main's clock at the fork (main's own
    // entry: `child`, one event per fork).
    ClockStore::Ref c = store.join(0, main, child, 0, child);
    // Main's join of the child (one event: its own entry is 1).
    main = store.join(main, c, 0, child, 1);
  }
  for (ThreadId u = 1; u <= n; ++u)
    ASSERT_EQ(store.get(main, u), 1u);
  EXPECT_EQ(store.get(main, 0), 0u); // kept: not main's own entry
  // Depth 3 at width 16: per pair, the child's clock copies the paths to
  // its own entry and main's, main's the path to the child: at most 9 new
  // nodes, whatever main knows.
  EXPECT_LE(store.nodes(), 9 * n + 1);
}
