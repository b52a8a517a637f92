//===- test/support/random_trace.cpp - Random small valid traces ----------===//
//
// A tiny sequentially consistent machine (memory, mutex/rwlock holders,
// condition variable waiters, barrier arrivals, semaphore counts) driven by
// a random scheduler that picks, at each step, a thread and one operation
// that is possible for it right now. Events are recorded when operations
// complete, as the runtime records them: a wait when it returns, a barrier
// event when its generation departs.
//
#include "random_trace.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace racepredict::testsupport {

namespace {

enum class Status { Unforked, Running, Waiting, AtBarrier, Ended };

struct Thread {
  Status status = Status::Running;
  bool begun = false;
  bool joined = false;
  int budget = 0;         ///< operations left before a child ends
  std::vector<int> reads; ///< event indices of its read-like events
  int64_t priv = 0;       ///< the value of its private location (privates)
  int waitLock = -1;      ///< while Waiting: the mutex to re-acquire
  int wokenBy = -1;       ///< while Waiting: notify event, -1 = none yet
  std::vector<std::pair<int, bool>> holds; ///< (lock, write mode)
};

struct Action {
  int weight;
  std::function<void()> run;
};

class Generator {
public:
  Generator(uint64_t seed, const RandomTraceOptions &o) : rng_(seed), o_(o) {}

  RandomTrace run() {
    const TraceFeatures &f = o_.features;
    int nthreads = 2 + static_cast<int>(pick(o_.maxThreads - 1));
    nlocs_ = 1 + static_cast<int>(pick(o_.maxLocations));
    threads_.resize(nthreads);
    for (int i = 1; i < nthreads; ++i) {
      threads_[i].status = Status::Unforked;
      threads_[i].budget = 3 + static_cast<int>(pick(7));
    }
    for (int l = 0; l < nlocs_; ++l)
      mem_.push_back(static_cast<int64_t>(pick(2)));
    barrierCount_ = nthreads == 3 && chance(1, 2) ? 3 : 2;
    semCount_ = static_cast<int64_t>(pick(2)); // hidden initial count
    locks_.assign(2, {});
    std::string inits;
    if (f.counters)
      inits += "init c 0\n";
    if (f.writeDeps)
      inits += "init f 0\n";
    if (f.inits)
      for (int l = 0; l < nlocs_; ++l)
        if (chance(2, 5))
          inits += "init " + loc(l) + " " + std::to_string(mem_[l]) + "\n";

    int target =
        o_.minEvents + static_cast<int>(pick(o_.maxEvents - o_.minEvents + 1));
    bool mainLifecycle = f.deadlockProne && chance(1, 3);
    if (mainLifecycle)
      emit(0, "begin");
    // Usually fork at once, so that most events can interleave; sometimes
    // let t0 work (or seminit) first, to test fork ordering.
    if (f.deadlockProne ? chance(1, 3) : chance(2, 3))
      for (size_t c = 1; c < threads_.size(); ++c)
        fork(static_cast<int>(c));
    for (int iter = 0; iter < 400 && static_cast<int>(lines_.size()) < target;
         ++iter)
      stepRandomThread();
    if (f.deadlockProne)
      finish();
    windDown();
    if (mainLifecycle && threads_[0].status == Status::Running)
      emit(0, "end");
    RandomTrace out;
    out.text = inits;
    for (const auto &l : lines_)
      out.text += l + "\n";
    out.reproducible = reproducible_;
    return out;
  }

private:
  uint64_t pick(uint64_t n) { return n <= 1 ? 0 : rng_() % n; }
  bool chance(int num, int den) {
    return static_cast<int>(pick(static_cast<uint64_t>(den))) < num;
  }
  static std::string name(int t) { return "t" + std::to_string(t); }
  // x, y, z, then v3, v4...: "xyz"[l] read past the literal for l > 2
  // (its NUL, then whatever followed it).
  static std::string loc(int l) {
    return l < 3 ? std::string(1, "xyz"[l]) : "v" + std::to_string(l);
  }
  static std::string lockName(int m) { return m == 0 ? "l" : "m"; }
  int emit(int t, const std::string &rest) {
    lines_.push_back(name(t) + " " + rest);
    return static_cast<int>(lines_.size()) - 1;
  }

  bool heldByOther(int m, int t, bool writeOnly) const {
    for (auto [th, w] : locks_[m])
      if (th != t && (w || !writeOnly))
        return true;
    return false;
  }
  bool holds(int t, int m) const {
    for (auto [l, w] : threads_[t].holds)
      if (l == m)
        return true;
    return false;
  }
  /// t holds m, and only in `write` mode.
  bool holdsOnly(int t, int m, bool write) const {
    for (auto [l, w] : threads_[t].holds)
      if (l == m && w != write)
        return false;
    return true;
  }
  void acquire(int t, int m, bool write) {
    locks_[m].push_back({t, write});
    threads_[t].holds.push_back({m, write});
  }
  void release(int t, int m) {
    auto &h = threads_[t].holds;
    for (size_t i = h.size(); i-- > 0;)
      if (h[i].first == m) {
        h.erase(h.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    auto &L = locks_[m];
    for (size_t i = L.size(); i-- > 0;)
      if (L[i].first == t) {
        L.erase(L.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }

  void stepRandomThread() {
    int t = static_cast<int>(pick(threads_.size()));
    std::vector<Action> acts = actions(t);
    int total = 0;
    for (const auto &a : acts)
      total += a.weight;
    if (total == 0)
      return;
    int r = static_cast<int>(pick(static_cast<uint64_t>(total)));
    for (auto &a : acts) {
      if (r < a.weight) {
        a.run();
        return;
      }
      r -= a.weight;
    }
  }

  std::vector<Action> actions(int t) {
    const TraceFeatures &f = o_.features;
    Thread &th = threads_[t];
    std::vector<Action> acts;
    if (th.status == Status::Waiting) {
      // A woken waiter (or, rarely, a spurious wake-up) re-acquires.
      if (!heldByOther(th.waitLock, t, false) &&
          (th.wokenBy >= 0 || chance(1, 12)))
        acts.push_back({1, [this, t] { returnFromWait(t); }});
      return acts;
    }
    if (th.status != Status::Running)
      return acts;
    if (finishing_ && t == 0)
      return finishingMain(acts);
    if (t != 0 && !th.begun) {
      th.begun = true;
      // Text traces may omit `begin`: then the child's first event, maybe
      // an access, is the one that needs the fork ("Schedules").
      if (chance(3, 4)) {
        acts.push_back({1, [this, t] { emit(t, "begin"); }});
        return acts;
      }
    }
    if (t != 0 && th.budget <= 0) {
      if (th.holds.empty())
        acts.push_back({1, [this, t] {
                          threads_[t].status = Status::Ended;
                          emit(t, "end");
                        }});
      else
        acts.push_back({1, [this, t] { releaseLatest(t); }});
      return acts;
    }
    auto op = [this, t](int w, std::function<void()> fn) {
      return Action{w, [this, t, fn] {
                      fn();
                      threads_[t].budget -= 1;
                    }};
    };
    if (t == 0) {
      for (size_t c = 1; c < threads_.size(); ++c) {
        if (threads_[c].status == Status::Unforked)
          acts.push_back({6, [this, c] { fork(static_cast<int>(c)); }});
        if (threads_[c].status == Status::Ended && !threads_[c].joined)
          acts.push_back({3, [this, c] {
                            threads_[c].joined = true;
                            emit(0, "join " + name(static_cast<int>(c)));
                          }});
      }
      if (f.semaphores && !forked_ && !semUsed_)
        acts.push_back({2, [this] {
                          semUsed_ = true;
                          int64_t v = static_cast<int64_t>(pick(2));
                          semCount_ += v;
                          emit(0, "seminit s " + std::to_string(v));
                        }});
    }
    int access = f.deadlockProne ? 1 : 3;
    for (int l = 0; l < nlocs_; ++l) {
      acts.push_back(op(access, [this, t, l] { read(t, l, "rd"); }));
      acts.push_back(op(access, [this, t, l] { write(t, l, "wr"); }));
      if (f.atomics) {
        acts.push_back(op(1, [this, t, l] { read(t, l, "ard"); }));
        acts.push_back(op(1, [this, t, l] { write(t, l, "awr"); }));
        acts.push_back(op(1, [this, t, l] { rmw(t, l); }));
      }
    }
    if (f.allocs)
      for (int l = 0; l < nlocs_; ++l)
        acts.push_back(op(1, [this, t, l] {
          emit(t,
               std::string(chance(1, 2) ? "alloc " : "free ") + loc(l) + " 8");
        }));
    if (f.customs)
      acts.push_back(op(10, [this, t] { custom(t); }));
    if (f.channels) {
      acts.push_back(op(2, [this, t] {
        int64_t n = 1 + static_cast<int64_t>(pick(2));
        emit(t, "send p " + std::to_string(sent_) + " " + std::to_string(n));
        sent_ += n;
      }));
      if (received_ < sent_)
        acts.push_back(op(3, [this, t] {
          int64_t n = 1 + static_cast<int64_t>(
                              pick(static_cast<uint64_t>(sent_ - received_)));
          emit(t,
               "recv p " + std::to_string(received_) + " " + std::to_string(n));
          received_ += n;
        }));
    }
    if (f.counters && locks_[0].empty() && !holds(t, 0))
      acts.push_back(op(4, [this, t] { count(t); }));
    if (f.counters)
      acts.push_back(op(1, [this, t] {
        threads_[t].reads.push_back(
            emit(t, "rd c " + std::to_string(counter_)));
      }));
    if (f.privates) {
      acts.push_back(op(3, [this, t] { storePrivate(t); }));
      acts.push_back(op(3, [this, t] { loadPrivate(t); }));
    }
    if (f.writeDeps) {
      int w = f.deadlockProne ? 1 : 2;
      acts.push_back(op(w, [this, t] { publish(t); }));
      acts.push_back(op(w, [this, t] { checkFlag(t); }));
    }
    // (Plain branches, which freeze every read, are rare where writes name
    // their dependences: the pass makes most decisions precise.)
    int branch = f.deadlockProne || f.writeDeps ? 1 : o_.branchWeight;
    acts.push_back(op(branch, [this, t] { emit(t, "br"); }));
    if (f.precise)
      acts.push_back(op(o_.branchWeight, [this, t] { preciseBranch(t); }));
    if (f.locks || f.condvars)
      lockActions(t, acts, op);
    // Arrive only while enough threads run to complete the generation
    // (a thread stuck in a barrier records nothing more).
    if (f.barriers && (th.holds.empty() || f.deadlockProne) &&
        running() >= barrierCount_)
      acts.push_back(op(2, [this, t] { arriveAtBarrier(t); }));
    if (f.semaphores) {
      acts.push_back(op(2, [this, t] {
        semUsed_ = true;
        semCount_ += 1;
        emit(t, "post s");
      }));
      if (semCount_ > 0)
        acts.push_back(op(3, [this, t] {
          semUsed_ = true;
          semCount_ -= 1;
          emit(t, "semwait s");
        }));
    }
    return acts;
  }

  /// A free lock's acquisition is sometimes a successful try-lock
  /// (tryAcquires): ` try`, or nothing.
  std::string tryMark() {
    return o_.features.tryAcquires && chance(1, 4) ? " try" : "";
  }

  template <typename Op>
  void lockActions(int t, std::vector<Action> &acts, Op op) {
    const TraceFeatures &f = o_.features;
    Thread &th = threads_[t];
    for (int m = 0; m < 2; ++m) {
      bool mine = holds(t, m);
      int nest = f.deadlockProne && !th.holds.empty() ? 8 : 3;
      if (!mine && locks_[m].empty())
        acts.push_back(op(nest, [this, t, m] {
          acquire(t, m, true);
          emit(t, "acq " + lockName(m) + tryMark());
        }));
      if (f.rwlocks && !mine && !heldByOther(m, t, true))
        acts.push_back(op(2, [this, t, m] {
          acquire(t, m, false);
          emit(t, "racq " + lockName(m) + tryMark());
        }));
      if (f.oddLocks && mine && holdsOnly(t, m, true) &&
          !heldByOther(m, t, false))
        acts.push_back(op(1, [this, t, m] { // recursive mutex
          acquire(t, m, true);
          emit(t, "acq " + lockName(m));
        }));
      if (f.oddLocks && f.rwlocks && mine && holdsOnly(t, m, false) &&
          !heldByOther(m, t, true))
        acts.push_back(op(1, [this, t, m] { // a reader re-enters
          acquire(t, m, false);
          emit(t, "racq " + lockName(m));
        }));
      if (f.oddLocks && !mine)
        acts.push_back(op(1, [this, t, m] { // unlock error: no effect
          emit(t, "rel " + lockName(m));
        }));
      if (f.tryfail && heldByOther(m, t, true))
        acts.push_back(
            op(4, [this, t, m] { emit(t, "tryfail " + lockName(m)); }));
      else if (f.tryfail && heldByOther(m, t, false) && chance(1, 4))
        acts.push_back(op(1, [this, t, m] {
          // Fails only against a read-mode holder: a write trylock. The
          // model does not count it as re-failing.
          reproducible_ = false;
          emit(t, "tryfail " + lockName(m));
        }));
      // deadlockProne: also wait while holding other locks (a nested
      // monitor, which deadlocks when the notifier needs them).
      if (f.condvars && !th.holds.empty() &&
          th.holds.back() == std::make_pair(m, true) &&
          (th.holds.size() == 1 || f.deadlockProne))
        acts.push_back(op(4, [this, t, m] {
          release(t, m);
          threads_[t].status = Status::Waiting;
          threads_[t].waitLock = m;
          threads_[t].wokenBy = -1;
        }));
    }
    if (!th.holds.empty())
      acts.push_back(op(4, [this, t] { releaseLatest(t); }));
    if (f.condvars) {
      // Notify mostly when someone waits (a lost notify tests little) and,
      // as real programs do, mostly inside a critical section.
      int w = waiters() ? (th.holds.empty() ? 2 : 8) : 1;
      acts.push_back(op(w, [this, t] { notify(t, false); }));
      acts.push_back(op(w, [this, t] { notify(t, true); }));
    }
  }

  /// Runs every child to its end and has t0 join it (deadlockProne): the
  /// children only release, end or return from waits now, t0 only joins.
  void finish() {
    finishing_ = true;
    for (int round = 0; round < 300; ++round) {
      bool all = true;
      for (size_t c = 1; c < threads_.size(); ++c)
        all = all && threads_[c].joined;
      if (all)
        break;
      for (size_t c = 1; c < threads_.size(); ++c)
        threads_[c].budget = std::min(threads_[c].budget, 0);
      if (waiters())
        for (size_t w = 0; w < threads_.size(); ++w)
          if (threads_[w].status == Status::Running &&
              (w == 0 || threads_[w].begun)) {
            notify(static_cast<int>(w), true);
            break;
          }
      stepRandomThread();
    }
    finishing_ = false;
  }

  std::vector<Action> finishingMain(std::vector<Action> &acts) {
    for (size_t c = 1; c < threads_.size(); ++c)
      if (threads_[c].status == Status::Ended && !threads_[c].joined)
        acts.push_back({1, [this, c] {
                          threads_[c].joined = true;
                          emit(0, "join " + name(static_cast<int>(c)));
                        }});
    if (!threads_[0].holds.empty())
      acts.push_back({1, [this] { releaseLatest(0); }});
    return acts;
  }

  void fork(int c) {
    threads_[c].status = Status::Running;
    emit(0, "fork " + name(c));
    forked_ = true;
  }

  void releaseLatest(int t) {
    int m = threads_[t].holds.back().first;
    release(t, m);
    emit(t, "rel " + lockName(m));
  }

  void read(int t, int l, const char *op) {
    int e =
        emit(t, std::string(op) + " " + loc(l) + " " + std::to_string(mem_[l]));
    threads_[t].reads.push_back(e);
  }
  void write(int t, int l, const char *op) {
    mem_[l] = static_cast<int64_t>(pick(o_.values));
    std::string deps;
    if (o_.features.writeDeps && op == std::string("wr") && chance(3, 4))
      deps = dependences(t, " <-");
    emit(t,
         std::string(op) + " " + loc(l) + " " + std::to_string(mem_[l]) + deps);
  }
  /// `prefix` and a random subset of t's reads so far.
  std::string dependences(int t, std::string prefix) {
    for (int r : threads_[t].reads)
      if (chance(1, 2))
        prefix += " " + std::to_string(r);
    return prefix;
  }
  void rmw(int t, int l) {
    int64_t old = mem_[l];
    mem_[l] = static_cast<int64_t>(pick(o_.values));
    int e = emit(t, "armw " + loc(l) + " " + std::to_string(mem_[l]) + " " +
                        std::to_string(old));
    threads_[t].reads.push_back(e);
  }
  void count(int t) {
    acquire(t, 0, true);
    emit(t, "acq l");
    int r = emit(t, "rd c " + std::to_string(counter_));
    threads_[t].reads.push_back(r);
    counter_ += chance(1, 2) ? 1 : -1;
    // `c++` depends on its read; now and then a step does not (`c = k`).
    std::string deps;
    if (o_.features.writeDeps)
      deps = chance(3, 4) ? " <- " + std::to_string(r) : dependences(t, " <-");
    emit(t, "wr c " + std::to_string(counter_) + deps);
    release(t, 0);
    emit(t, "rel l");
  }
  /// `q = <a read of t>`: plain (the value needs every earlier read) or,
  /// with write dependences, listing the read it copies.
  void storePrivate(int t) {
    Thread &th = threads_[t];
    th.priv = static_cast<int64_t>(pick(o_.values));
    std::string deps;
    if (o_.features.writeDeps && !th.reads.empty() && chance(1, 2))
      deps = " <- " + std::to_string(th.reads.back());
    emit(t, "wr q" + std::to_string(t) + " " + std::to_string(th.priv) + deps);
  }
  /// `if (q)`: the read back, often with a decision on it alone.
  void loadPrivate(int t) {
    Thread &th = threads_[t];
    int r = emit(t, "rd q" + std::to_string(t) + " " + std::to_string(th.priv));
    th.reads.push_back(r);
    if (chance(1, 2))
      emit(t, "br <- " + std::to_string(r));
  }
  /// The hand-off of issue 20: a thread reads a location, then sets the
  /// flag `f` to a fresh value that does not (or not only) come from that
  /// read; another thread's check of the flag (`while (!ready) ...`) needs
  /// that write's value, not the read's.
  void publish(int t) {
    read(t, static_cast<int>(pick(static_cast<uint64_t>(nlocs_))), "rd");
    flag_ += 1;
    emit(t, "wr f " + std::to_string(flag_) +
                (chance(1, 2) ? std::string(" <-") : dependences(t, " <-")));
  }
  void checkFlag(int t) {
    int r = emit(t, "rd f " + std::to_string(flag_));
    threads_[t].reads.push_back(r);
    emit(t, "br <- " + std::to_string(r));
  }
  void custom(int t) {
    std::string s = std::string("ev ") + "abc"[pick(3)];
    int nargs = chance(5, 6) ? (chance(1, 4) ? 2 : 1) : 0;
    for (int i = 0; i < nargs; ++i)
      s += chance(1, 2) ? " o1" : " o2";
    emit(t, s);
  }
  void preciseBranch(int t) { emit(t, dependences(t, "br <-")); }

  int running() const {
    int n = 0;
    for (const Thread &th : threads_)
      n += th.status == Status::Running || th.status == Status::AtBarrier;
    return n;
  }
  int waiters() const {
    int n = 0;
    for (const Thread &th : threads_)
      n += th.status == Status::Waiting && th.wokenBy < 0;
    return n;
  }

  /// The condition variable has one name (c); its waiters are the threads
  /// in Status::Waiting that no notify has woken yet.
  void notify(int t, bool broadcast) {
    int e = emit(t, broadcast ? "broadcast c" : "signal c");
    std::vector<int> waiting;
    for (size_t w = 0; w < threads_.size(); ++w)
      if (threads_[w].status == Status::Waiting && threads_[w].wokenBy < 0)
        waiting.push_back(static_cast<int>(w));
    if (waiting.empty())
      return; // lost notify
    if (broadcast) {
      for (int w : waiting)
        threads_[w].wokenBy = e;
    } else {
      threads_[waiting[pick(waiting.size())]].wokenBy = e;
    }
  }
  void returnFromWait(int t) {
    Thread &th = threads_[t];
    std::string m = lockName(th.waitLock);
    std::string by = th.wokenBy >= 0 ? std::to_string(th.wokenBy) : "none";
    acquire(t, th.waitLock, true);
    th.status = Status::Running;
    th.budget -= 1;
    emit(t, "wait c " + m + " <- " + by);
  }

  /// Arrivals block; the arrival that completes a generation lets all its
  /// members depart at once, so a generation's events are consecutive in
  /// the trace (how docs/semantics.md groups generations).
  void arriveAtBarrier(int t) {
    threads_[t].status = Status::AtBarrier;
    arrived_.push_back(t);
    if (static_cast<int>(arrived_.size()) < barrierCount_)
      return;
    std::vector<int> order = arrived_;
    arrived_.clear();
    for (size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[pick(i)]);
    for (int a : order) {
      threads_[a].status = Status::Running;
      emit(a, "barrier b " + std::to_string(barrierCount_));
    }
  }

  /// Ends the run cleanly: waiters return (their release half must not be
  /// the last word on their mutex, or the trace would claim they still
  /// hold it) and locks are released.
  void windDown() {
    // Waiters are woken by a real broadcast when some thread can send it.
    if (waiters())
      for (size_t t = 0; t < threads_.size(); ++t)
        if (threads_[t].status == Status::Running &&
            (t == 0 || threads_[t].begun)) {
          notify(static_cast<int>(t), true);
          break;
        }
    for (int round = 0; round < 20; ++round) {
      bool progress = false;
      for (size_t t = 0; t < threads_.size(); ++t) {
        Thread &th = threads_[t];
        int ti = static_cast<int>(t);
        if (th.status == Status::Waiting &&
            !heldByOther(th.waitLock, ti, false)) {
          returnFromWait(ti);
          progress = true;
        }
        if (th.status == Status::Running && !th.holds.empty() &&
            (t == 0 || th.begun)) {
          releaseLatest(ti);
          progress = true;
        }
      }
      if (!progress)
        break;
    }
  }

  std::mt19937_64 rng_;
  RandomTraceOptions o_;
  std::vector<Thread> threads_;
  std::vector<int64_t> mem_;
  std::vector<std::vector<std::pair<int, bool>>> locks_; ///< holders
  std::vector<int> arrived_;
  std::vector<std::string> lines_;
  int nlocs_ = 1;
  int barrierCount_ = 2;
  int64_t semCount_ = 0;
  int64_t counter_ = 0; ///< the value of `c` (counters)
  int64_t flag_ = 0;    ///< the value of `f` (write dependences)
  bool semUsed_ = false;
  int64_t sent_ = 0, received_ = 0; ///< bytes of the pipe `p`
  bool forked_ = false;
  bool finishing_ = false;
  bool reproducible_ = true;
};

} // namespace

RandomTrace randomTrace(uint64_t seed, const RandomTraceOptions &opts) {
  return Generator(seed, opts).run();
}

int modelScale() {
  const char *s = std::getenv("RACEPREDICT_MODEL_SCALE");
  int n = s ? std::atoi(s) : 1;
  return n > 0 ? n : 1;
}

uint64_t modelSeedBase(uint64_t base) {
  if (const char *k = std::getenv("RACEPREDICT_MODEL_SEED"))
    base += std::strtoull(k, nullptr, 10) * 1000000000ull;
  return base;
}

} // namespace racepredict::testsupport
