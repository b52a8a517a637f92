//===- bench/gen_trace.cpp - Synthetic trace generator for benchmarks -----===//
//
// Simulates a real execution (a random scheduler over threads running a
// random program), so every generated trace is a consistent observation:
// reads see the last write, locks are held by one thread at a time.
//
//   racepredict-gen-trace --shape mixed --events N [--threads T]
//       [--locations L] [--locks K] [--seed S] OUT
//   racepredict-gen-trace --shape fig517 --n N [--deps] OUT
//
// `mixed`: a random thread steps: it acquires a free lock (8% of steps
// when it holds none), releases its lock (20% when it holds one), branches
// (~30%), or reads/writes (1 in 3) a random shared location (the rest):
// about 6-8% synchronisation, 30% branches, 60% accesses. `fig517`: Carril's
// Fig. 5.17 program (main: x++, then N x {lock; y++; unlock}; worker: N x
// {lock; y++; unlock}, then x++), with a loop-condition branch after each y++
// that depends on every earlier read (plain rule) or on none (`--deps`, the
// loop counter is thread-local).
//
// OUT ending in .rptrace is written in the binary format, else as text.
//
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/text_format.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace racepredict::trace;

namespace {

struct Gen {
  Trace t;
  SymId thread(int i) {
    return t.table(NameSpace::Thread).intern("t" + std::to_string(i));
  }
  SymId loc(const std::string &n) {
    return t.table(NameSpace::Location).intern(n);
  }
  SymId lock(const std::string &n) {
    return t.table(NameSpace::Lock).intern(n);
  }
  void ev(SymId th, EventKind k, uint32_t obj = 0, int64_t v = 0,
          uint32_t extra = kNone) {
    Event e{};
    e.thread = th;
    e.kind = k;
    e.obj = obj;
    e.value = v;
    e.extra = extra;
    t.events.push_back(e);
  }
};

void mixed(Gen &g, size_t events, int threads, int locations, int locks,
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

void fig517(Gen &g, size_t n, bool deps) {
  SymId t0 = g.thread(0), t1 = g.thread(1);
  SymId x = g.loc("x"), y = g.loc("y"), m = g.lock("m");
  g.t.initValues[x] = 0;
  g.t.initValues[y] = 0;
  int64_t yv = 0;
  uint32_t noDeps = deps ? g.t.addDeps({}) : kNone;
  g.ev(t0, EventKind::Fork, t1);
  g.ev(t0, EventKind::Read, x, 0);
  g.ev(t0, EventKind::Write, x, 1);
  // The observed run: main's loop, then the worker's loop, then its x++.
  for (SymId th : {t0, t1})
    for (size_t i = 0; i < n; ++i) {
      g.ev(th, EventKind::Acquire, m);
      g.ev(th, EventKind::Read, y, yv);
      g.ev(th, EventKind::Write, y, ++yv);
      g.ev(th, EventKind::Release, m);
      g.ev(th, EventKind::Branch, 0, 0, noDeps);
    }
  g.ev(t1, EventKind::Read, x, 1);
  g.ev(t1, EventKind::Write, x, 2);
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: racepredict-gen-trace --shape mixed --events N "
               "[--threads T] [--locations L] [--locks K] [--seed S] OUT\n"
               "       racepredict-gen-trace --shape fig517 --n N [--deps] "
               "OUT\n");
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  std::string shape = "mixed", out;
  size_t events = 100000, n = 100;
  int threads = 4, locations = 1000, locks = 8;
  unsigned seed = 1;
  bool deps = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        usage();
      return argv[++i];
    };
    if (a == "--shape")
      shape = next();
    else if (a == "--events")
      events = std::stoull(next());
    else if (a == "--n")
      n = std::stoull(next());
    else if (a == "--threads")
      threads = std::stoi(next());
    else if (a == "--locations")
      locations = std::stoi(next());
    else if (a == "--locks")
      locks = std::stoi(next());
    else if (a == "--seed")
      seed = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--deps")
      deps = true;
    else if (!a.empty() && a[0] != '-' && out.empty())
      out = a;
    else
      usage();
  }
  if (out.empty() || threads < 1 || locations < 1 || locks < 1)
    usage();
  Gen g;
  if (shape == "mixed")
    mixed(g, events, threads, locations, locks, seed);
  else if (shape == "fig517")
    fig517(g, n, deps);
  else
    usage();
  std::ofstream f(out, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "racepredict-gen-trace: cannot write '%s'\n",
                 out.c_str());
    return 2;
  }
  bool binary = out.size() > 8 && out.substr(out.size() - 8) == ".rptrace";
  if (binary)
    writeBinaryTrace(g.t, f);
  else
    writeTextTrace(g.t, f);
  return 0;
}
