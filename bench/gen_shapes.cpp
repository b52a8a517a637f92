//===- bench/gen_shapes.cpp - Trace shapes of racepredict-gen-trace -------===//
#include "gen_shapes.h"

#include <random>
#include <unordered_map>
#include <vector>

namespace racepredict::bench {

using trace::EventKind;
using trace::kNone;
using trace::SymId;

SymId Gen::thread(int i) {
  return t.table(trace::NameSpace::Thread).intern("t" + std::to_string(i));
}
SymId Gen::loc(const std::string &n) {
  return t.table(trace::NameSpace::Location).intern(n);
}
SymId Gen::lock(const std::string &n) {
  return t.table(trace::NameSpace::Lock).intern(n);
}
trace::SrcId Gen::src(const std::string &file, unsigned line) {
  for (trace::SrcId i = 1; i < t.sources.size(); ++i)
    if (t.sources[i].file == file && t.sources[i].line == line)
      return i;
  return t.addSource({file, line, 0, ""});
}
trace::EventId Gen::ev(SymId th, EventKind k, uint32_t obj, int64_t v,
                       uint32_t extra, trace::SrcId s) {
  trace::Event e{};
  e.thread = th;
  e.kind = k;
  e.obj = obj;
  e.value = v;
  e.extra = extra;
  e.src = s;
  t.events.push_back(e);
  return static_cast<trace::EventId>(t.events.size() - 1);
}

void mixedShape(Gen &g, size_t events, int threads, int locations, int locks,
                unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> mem(locations, 0);
  std::vector<int> holder(locks, -1);
  std::vector<int> held(threads, -1); // lock held by each thread
  std::vector<SymId> th(threads), lk(locks), lc(locations);
  for (int i = 0; i < threads; ++i)
    th[i] = g.thread(i);
  for (int i = 0; i < locks; ++i)
    lk[i] = g.lock("m" + std::to_string(i));
  for (int i = 0; i < locations; ++i) {
    lc[i] = g.loc("v" + std::to_string(i));
    g.t.initValues[lc[i]] = 0;
  }
  for (int i = 1; i < threads; ++i)
    g.ev(th[0], EventKind::Fork, th[i]);
  while (g.t.events.size() < events) {
    int i = static_cast<int>(rng() % threads);
    unsigned r = rng() % 100;
    if (held[i] >= 0 && r < 20) {
      holder[held[i]] = -1;
      g.ev(th[i], EventKind::Release, lk[held[i]]);
      held[i] = -1;
    } else if (held[i] < 0 && r < 8) {
      int l = static_cast<int>(rng() % locks);
      if (holder[l] >= 0)
        continue;
      holder[l] = i;
      held[i] = l;
      g.ev(th[i], EventKind::Acquire, lk[l]);
    } else if (r < 40) {
      g.ev(th[i], EventKind::Branch);
    } else {
      int l = static_cast<int>(rng() % locations);
      bool write = rng() % 3 == 0;
      if (write) {
        mem[l] = static_cast<int64_t>(rng() % 4);
        g.ev(th[i], EventKind::Write, lc[l], mem[l]);
      } else {
        g.ev(th[i], EventKind::Read, lc[l], mem[l]);
      }
    }
  }
  for (int i = 0; i < threads; ++i)
    if (held[i] >= 0)
      g.ev(th[i], EventKind::Release, lk[held[i]]);
}

void fig517Shape(Gen &g, size_t n, bool deps) {
  SymId t0 = g.thread(0), t1 = g.thread(1);
  SymId x = g.loc("x"), y = g.loc("y"), m = g.lock("m");
  g.t.initValues[x] = 0;
  g.t.initValues[y] = 0;
  const char *f = "fig517.c";
  int64_t yv = 0;
  uint32_t noDeps = deps ? g.t.addDeps({}) : kNone;
  g.ev(t0, EventKind::Fork, t1, 0, kNone, g.src(f, 20));
  g.ev(t0, EventKind::Read, x, 0, kNone, g.src(f, 21));
  g.ev(t0, EventKind::Write, x, 1, kNone, g.src(f, 21));
  // The observed run: main's loop, then the worker's loop, then its x++.
  for (SymId th : {t0, t1}) {
    unsigned line = th == t0 ? 23 : 11;
    for (size_t i = 0; i < n; ++i) {
      g.ev(th, EventKind::Acquire, m, 0, kNone, g.src(f, line));
      g.ev(th, EventKind::Read, y, yv, kNone, g.src(f, line + 1));
      g.ev(th, EventKind::Write, y, ++yv, kNone, g.src(f, line + 1));
      g.ev(th, EventKind::Release, m, 0, kNone, g.src(f, line + 2));
      g.ev(th, EventKind::Branch, 0, 0, noDeps, g.src(f, line - 1));
    }
  }
  g.ev(t1, EventKind::Read, x, 1, kNone, g.src(f, 14));
  g.ev(t1, EventKind::Write, x, 2, kNone, g.src(f, 14));
}

namespace {

/// One statement of a task; `slot` selects the variable.
struct Stmt {
  enum Op {
    Acq,
    Rel,
    RdLocal,
    WrLocal,
    RdShared,
    WrShared,
    RdStat,
    WrStat,
    Br
  } op;
  int slot;
  unsigned line;
};

} // namespace

void appShape(Gen &g, size_t events, int threads, int locks, unsigned seed) {
  std::mt19937_64 rng(seed);
  const int kLocals = 64, kShared = 4, kStats = 4;
  const char *f = "app.c";
  std::vector<SymId> th(threads), lk(locks), stat(kStats);
  std::vector<std::vector<SymId>> local(threads), shared(locks);
  std::unordered_map<SymId, int64_t> mem;
  for (int i = 0; i < threads; ++i) {
    th[i] = g.thread(i);
    for (int j = 0; j < kLocals; ++j)
      local[i].push_back(
          g.loc("t" + std::to_string(i) + ".l" + std::to_string(j)));
  }
  for (int k = 0; k < locks; ++k) {
    lk[k] = g.lock("m" + std::to_string(k));
    for (int j = 0; j < kShared; ++j)
      shared[k].push_back(
          g.loc("s" + std::to_string(k) + "." + std::to_string(j)));
  }
  for (int j = 0; j < kStats; ++j)
    stat[j] = g.loc("stat" + std::to_string(j));
  for (auto &v : local)
    for (SymId l : v)
      g.t.initValues[l] = 0;
  for (auto &v : shared)
    for (SymId l : v)
      g.t.initValues[l] = 0;
  for (SymId l : stat)
    g.t.initValues[l] = 0;
  for (int i = 1; i < threads; ++i)
    g.ev(th[0], EventKind::Fork, th[i], 0, kNone, g.src(f, 90));

  struct Thread {
    std::vector<Stmt> task;
    size_t pc = 0;
    int lock = -1; ///< the lock of the current task
    trace::EventId lastRead = kNone;
  };
  std::vector<Thread> ts(threads);
  std::vector<int> holder(locks, -1);
  auto newTask = [&](Thread &t) {
    t.task.clear();
    t.pc = 0;
    unsigned r = rng() % 100;
    int a = static_cast<int>(rng() % kLocals),
        b = static_cast<int>(rng() % kLocals);
    if (r < 52) { // local work: if (l[a]) l[b] = ..; if (l[b]) .. else if ..
      t.task = {{Stmt::RdLocal, a, 10}, {Stmt::Br, 0, 10},
                {Stmt::WrLocal, b, 11}, {Stmt::RdLocal, b, 12},
                {Stmt::Br, 0, 12},      {Stmt::Br, 0, 13},
                {Stmt::WrLocal, a, 14}};
    } else if (r < 86) { // update(k): lock; if (s[j]...) s[j]++; ...
      t.lock = static_cast<int>(rng() % locks);
      int j1 = static_cast<int>(rng() % kShared),
          j2 = static_cast<int>(rng() % kShared);
      t.task = {{Stmt::Acq, 0, 20},       {Stmt::RdShared, j1, 21},
                {Stmt::Br, 0, 21},        {Stmt::WrShared, j1, 22},
                {Stmt::RdShared, j2, 23}, {Stmt::Br, 0, 23},
                {Stmt::WrShared, j2, 24}, {Stmt::Rel, 0, 25}};
    } else { // the bugs: statistics updated without the lock
      int j = static_cast<int>(rng() % kStats);
      switch (rng() % 4) {
      case 0: // stat[j]++
        t.task = {{Stmt::RdStat, j, 30},
                  {Stmt::WrStat, j, 30},
                  {Stmt::RdLocal, a, 31},
                  {Stmt::Br, 0, 31}};
        break;
      case 1: // stat[j] += 2 elsewhere
        t.task = {{Stmt::RdStat, j, 35},
                  {Stmt::WrStat, j, 35},
                  {Stmt::RdLocal, a, 36},
                  {Stmt::Br, 0, 36}};
        break;
      case 2: // progress = ...: a write-only race
        t.task = {
            {Stmt::RdLocal, a, 40}, {Stmt::Br, 0, 40}, {Stmt::WrStat, j, 41}};
        break;
      default: // log(s[k][j]): peeks at a shared counter without its lock
        t.lock = static_cast<int>(rng() % locks);
        t.task = {{Stmt::RdLocal, a, 45},
                  {Stmt::Br, 0, 45},
                  {Stmt::RdShared, j % kShared, 46}};
        break;
      }
    }
  };
  // A random scheduler over statements; an acquire of a held lock waits.
  while (g.t.events.size() < events) {
    int i = static_cast<int>(rng() % threads);
    Thread &t = ts[i];
    if (t.pc == t.task.size())
      newTask(t);
    const Stmt &s = t.task[t.pc];
    trace::SrcId src = g.src(f, s.line);
    auto read = [&](SymId l) {
      t.lastRead = g.ev(th[i], EventKind::Read, l, mem[l], kNone, src);
    };
    auto write = [&](SymId l) {
      g.ev(th[i], EventKind::Write, l, ++mem[l], kNone, src);
    };
    switch (s.op) {
    case Stmt::Acq:
      if (holder[t.lock] >= 0)
        continue;
      holder[t.lock] = i;
      g.ev(th[i], EventKind::Acquire, lk[t.lock], 0, kNone, src);
      break;
    case Stmt::Rel:
      holder[t.lock] = -1;
      g.ev(th[i], EventKind::Release, lk[t.lock], 0, kNone, src);
      break;
    case Stmt::RdLocal:
      read(local[i][s.slot]);
      break;
    case Stmt::WrLocal:
      write(local[i][s.slot]);
      break;
    case Stmt::RdShared:
      read(shared[t.lock][s.slot]);
      break;
    case Stmt::WrShared:
      write(shared[t.lock][s.slot]);
      break;
    case Stmt::RdStat:
      read(stat[s.slot]);
      break;
    case Stmt::WrStat:
      write(stat[s.slot]);
      break;
    case Stmt::Br:
      g.ev(th[i], EventKind::Branch, 0, 0, g.t.addDeps({t.lastRead}), src);
      break;
    }
    ++t.pc;
  }
  // Finish open sections, then join everyone.
  for (int i = 0; i < threads; ++i)
    if (ts[i].pc < ts[i].task.size() && ts[i].task[0].op == Stmt::Acq &&
        holder[ts[i].lock] == i)
      g.ev(th[i], EventKind::Release, lk[ts[i].lock], 0, kNone, g.src(f, 25));
  for (int i = 1; i < threads; ++i)
    g.ev(th[0], EventKind::Join, th[i], 0, kNone, g.src(f, 95));
}

} // namespace racepredict::bench
