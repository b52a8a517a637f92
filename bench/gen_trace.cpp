//===- bench/gen_trace.cpp - Synthetic trace generator for benchmarks -----===//
//
// Simulates a real execution (a random scheduler over threads running a
// random program), so every generated trace is a consistent observation:
// reads see the last write, locks are held by one thread at a time.
//
//   racepredict-gen-trace --shape mixed --events N [--threads T]
//       [--locations L] [--locks K] [--seed S] OUT
//   racepredict-gen-trace --shape fig517 --n N [--deps] OUT
//   racepredict-gen-trace --shape app --events N [--threads T] [--locks K]
//       [--seed S] OUT
//
// `mixed`: a random thread steps: it acquires a free lock (8% of steps
// when it holds none), releases its lock (20% when it holds one), branches
// (~30%), or reads/writes (1 in 3) a random shared location (the rest):
// about 6-8% synchronisation, 30% branches, 60% accesses. `fig517`: Carril's
// Fig. 5.17 program (main: x++, then N x {lock; y++; unlock}; worker: N x
// {lock; y++; unlock}, then x++), with a loop-condition branch after each y++
// that depends on every earlier read (plain rule) or on none (`--deps`, the
// loop counter is thread-local). `app`: a program-like mix with source
// locations and precise branch dependences (gen_shapes.h).
//
// OUT ending in .rptrace is written in the binary format, else as text.
//
#include "gen_shapes.h"

#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/text_format.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace racepredict::trace;
using namespace racepredict::bench;

namespace {

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: racepredict-gen-trace --shape mixed --events N "
               "[--threads T] [--locations L] [--locks K] [--seed S] OUT\n"
               "       racepredict-gen-trace --shape fig517 --n N [--deps] "
               "OUT\n"
               "       racepredict-gen-trace --shape app --events N "
               "[--threads T] [--locks K] [--seed S] OUT\n");
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
    mixedShape(g, events, threads, locations, locks, seed);
  else if (shape == "fig517")
    fig517Shape(g, n, deps);
  else if (shape == "app")
    appShape(g, events, threads, locks, seed);
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
