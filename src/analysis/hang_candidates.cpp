//===- analysis/hang_candidates.cpp - Hangs: nobody left to post/arrive ---===//
//
// The hang search: every thread is either finished for good or a member
// blocked at one of its events, so the cut is fully determined and the
// rules that depend on everybody — a semaphore nobody will post (count 0),
// a barrier nobody else will reach, a notify that will never be sent — are
// evaluated on it directly. Hangs whose members all wait by ownership rules
// are left to the ownership search, which needs no thread finished.
//
#include "deadlock_search.h"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

namespace racepredict::analysis {
namespace detail {

using trace::Event;
using trace::EventKind;

namespace {

class HangSearch {
public:
  explicit HangSearch(DeadlockSearch &s) : s_(s), options_(s.nt) {}

  void run() {
    bool needsEverybody = false;
    for (EventId e = 0; e < s_.t.events.size(); ++e) {
      const Event &ev = s_.t.events[e];
      if (ev.kind == EventKind::SemInit || ev.kind == EventKind::SemPost ||
          ev.kind == EventKind::SemWait)
        semEvents_[ev.obj].push_back(e);
      needsEverybody = needsEverybody || quiescentKind(ev);
    }
    // Without a semaphore wait, barrier or notified wait, every hang is an
    // ownership set: nothing to search.
    if (!needsEverybody)
      return;
    for (ThreadId u = 0; u < s_.nt; ++u) {
      const auto &te = s_.idx.threadEvents(u);
      if (s_.canFinish(u))
        options_[u].push_back(s_.finished(u));
      if (!te.empty() && s_.forkOf(u) != kNone)
        options_[u].push_back(s_.member(te[0], true));
      for (EventId e : te)
        if (mayBlock(s_.t.events[e]))
          options_[u].push_back(s_.member(e, false));
    }
    prune();
    for (ThreadId u = 0; u < s_.nt; ++u)
      for (SymId sem : s_.semaphores()) {
        auto &[lo, hi] = netRange_[{u, sem}];
        lo = INT64_MAX, hi = INT64_MIN;
        for (const Position &p : options_[u]) {
          int64_t n = s_.semNet(u, sem, p.pos);
          lo = std::min(lo, n), hi = std::max(hi, n);
        }
      }
    decided_.assign(s_.nt, Position());
    dfs(0);
  }

private:
  static bool quiescentKind(const Event &e) {
    return e.kind == EventKind::SemWait || e.kind == EventKind::Barrier ||
           (e.kind == EventKind::Wait && e.extra != kNone);
  }

  /// Drops member positions no rule could justify in any cut of these
  /// options (a lock request no other option holds against, a join of a
  /// thread that cannot be a member, a creation by one that cannot block
  /// before it), to a fixpoint. A thread left without options ends the
  /// search: it can neither finish nor block.
  void prune() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (ThreadId u = 0; u < s_.nt; ++u) {
        auto &os = options_[u];
        auto keep =
            std::remove_if(os.begin(), os.end(), [&](const Position &p) {
              return p.kind == Position::Member && !viable(u, p);
            });
        if (keep != os.end()) {
          os.erase(keep, os.end());
          changed = true;
        }
      }
    }
  }

  bool viable(ThreadId u, const Position &p) const {
    if (p.unforked) {
      ThreadId c = s_.creatorOf(u);
      uint32_t fp = forkPos(u);
      return std::any_of(
          options_[c].begin(), options_[c].end(), [&](const Position &q) {
            return q.kind == Position::Member && !q.unforked && q.pos < fp;
          });
    }
    const Event &e = ev(p.event);
    if (quiescentKind(e))
      return true;
    if (e.kind == EventKind::Join)
      return std::any_of(
          options_[e.obj].begin(), options_[e.obj].end(),
          [](const Position &q) { return q.kind == Position::Member; });
    SymId lock = requestedLock(e);
    bool readReq = e.kind == EventKind::RAcquire;
    for (ThreadId v = 0; v < s_.nt; ++v)
      if (v != u)
        for (const Position &q : options_[v])
          if (s_.excludes(*q.holds, lock, readReq))
            return true;
    return false;
  }

  /// Semaphore counts the decided threads (0..upTo) and the ranges of the
  /// others allow: never negative, and 0 for a member waiting on one.
  bool semaphoreBoundsHold(ThreadId upTo) const {
    if (!s_.opts.filters)
      return true;
    for (SymId sem : s_.semaphores()) {
      int64_t lo = s_.idx.semInitialCount(sem), hi = lo;
      for (ThreadId u = 0; u < s_.nt; ++u) {
        if (u <= upTo) {
          int64_t n = s_.semNet(u, sem, decided_[u].pos);
          lo += n, hi += n;
        } else {
          auto [l, h] = netRange_.at({u, sem});
          lo += l, hi += h;
        }
      }
      if (hi < 0)
        return false;
      for (ThreadId u = 0; u <= upTo; ++u) {
        const Position &p = decided_[u];
        if (p.kind == Position::Member && !p.unforked &&
            ev(p.event).kind == EventKind::SemWait && ev(p.event).obj == sem &&
            lo > 0)
          return false;
      }
    }
    return true;
  }
  const Event &ev(EventId e) const { return s_.t.events[e]; }

  /// Obvious dead ends among the decided threads 0..upTo.
  bool feasibleSoFar(ThreadId upTo) const {
    for (ThreadId u = 0; u <= upTo; ++u) {
      const Position &p = decided_[u];
      if (p.kind != Position::Member)
        continue;
      if (p.unforked) {
        ThreadId c = s_.creatorOf(u);
        if (c <= upTo &&
            !(decided_[c].kind == Position::Member && !decided_[c].unforked &&
              decided_[c].pos < forkPos(u)))
          return false;
      } else if (ev(p.event).kind == EventKind::Join) {
        ThreadId c = ev(p.event).obj;
        if (c <= upTo && decided_[c].kind == Position::Finished)
          return false;
      }
    }
    return true;
  }

  uint32_t forkPos(ThreadId u) const {
    return s_.idx.posInThread(s_.forkOf(u));
  }

  void dfs(ThreadId u) {
    if (!s_.step())
      return;
    if (u == s_.nt) {
      leaf();
      return;
    }
    for (const Position &p : options_[u]) {
      if (s_.stopped())
        return;
      bool ok = true;
      for (ThreadId v = 0; v < u && ok; ++v)
        ok = s_.consistent(u, p, v, decided_[v]);
      if (!ok)
        continue;
      decided_[u] = p;
      if (feasibleSoFar(u) && semaphoreBoundsHold(u))
        dfs(u + 1);
    }
    decided_[u] = Position();
  }

  bool executed(EventId x) const {
    return s_.idx.posInThread(x) < decided_[ev(x).thread].pos;
  }
  bool arrived(EventId x) const {
    const Position &p = decided_[ev(x).thread];
    uint32_t px = s_.idx.posInThread(x);
    return px < p.pos ||
           (px == p.pos && p.kind == Position::Member && !p.unforked && p.half);
  }
  bool generationShort(EventId x) const {
    const auto &gen = s_.idx.barrierGenerations()[s_.idx.barrierGeneration(x)];
    return !std::all_of(gen.begin(), gen.end(),
                        [&](EventId y) { return arrived(y); });
  }

  int64_t semCount(SymId sem) const {
    int64_t c = s_.idx.semInitialCount(sem);
    for (EventId x : semEvents_.at(sem))
      if (executed(x))
        c += ev(x).kind == EventKind::SemInit   ? ev(x).value
             : ev(x).kind == EventKind::SemPost ? 1
                                                : -1;
    return c;
  }

  /// Members at a barrier event of `b` whose generation is short.
  uint32_t waitingAt(SymId b) const {
    uint32_t n = 0;
    for (ThreadId u = 0; u < s_.nt; ++u) {
      const Position &p = decided_[u];
      if (p.kind == Position::Member && !p.unforked &&
          ev(p.event).kind == EventKind::Barrier && ev(p.event).obj == b &&
          generationShort(p.event))
        ++n;
    }
    return n;
  }

  /// 0: not blocked for good; 1: by an ownership rule; 2: only because
  /// nothing else can move.
  int justification(ThreadId u) const {
    const Position &p = decided_[u];
    EventId f = s_.forkOf(u);
    if (f != kNone && !executed(f)) { // never created
      ThreadId c = s_.creatorOf(u);
      return decided_[c].kind == Position::Member && !decided_[c].unforked ? 1
                                                                           : 0;
    }
    if (p.unforked)
      return 0; // created after all: this position is not a state
    const Event &e = ev(p.event);
    switch (e.kind) {
    case EventKind::Acquire:
    case EventKind::RAcquire:
    case EventKind::Wait: {
      SymId lock = requestedLock(e);
      bool readReq = e.kind == EventKind::RAcquire;
      for (ThreadId v = 0; v < s_.nt; ++v)
        if (v != u && s_.excludes(*decided_[v].holds, lock, readReq))
          return 1;
      if (e.kind == EventKind::Wait && e.extra != kNone && !executed(e.extra))
        return 2;
      return 0;
    }
    case EventKind::Join:
      return decided_[e.obj].kind == Position::Member ? 1 : 0;
    case EventKind::SemWait:
      return semCount(e.obj) <= 0 ? 2 : 0;
    case EventKind::Barrier:
      return generationShort(p.event) && waitingAt(e.obj) < e.aux ? 2 : 0;
    default:
      return 0;
    }
  }

  void leaf() {
    DeadlockCandidate c;
    c.hang = true;
    bool needsHang = false;
    for (ThreadId u = 0; u < s_.nt; ++u) {
      if (decided_[u].kind != Position::Member)
        continue;
      int j = justification(u);
      if (j == 0)
        return;
      needsHang = needsHang || j == 2;
      c.members.push_back({decided_[u].event, decided_[u].unforked});
    }
    // Without a member that needs everybody else finished, the ownership
    // search has the same members under weaker conditions.
    if (!needsHang || !s_.semaphoresCanServe(decided_, true))
      return;
    std::sort(c.members.begin(), c.members.end());
    s_.emit(std::move(c));
  }

  DeadlockSearch &s_;
  std::vector<std::vector<Position>> options_;
  std::vector<Position> decided_;
  std::unordered_map<SymId, std::vector<EventId>> semEvents_;
  /// Per (thread, semaphore): the least and greatest net count change over
  /// the thread's options.
  std::map<std::pair<ThreadId, SymId>, std::pair<int64_t, int64_t>> netRange_;
};

} // namespace

void searchHangs(DeadlockSearch &s) { HangSearch(s).run(); }

} // namespace detail
} // namespace racepredict::analysis
