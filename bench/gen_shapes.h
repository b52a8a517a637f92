//===- bench/gen_shapes.h - Trace shapes of racepredict-gen-trace ---------===//
#pragma once

#include "racepredict/trace/trace.h"

#include <cstddef>
#include <string>

namespace racepredict::bench {

/// Builds a trace event by event (generators simulate real executions, so
/// every trace is a consistent observation).
struct Gen {
  trace::Trace t;
  trace::SymId thread(int i);
  trace::SymId loc(const std::string &n);
  trace::SymId lock(const std::string &n);
  /// A source location `file:line` (interned).
  trace::SrcId src(const std::string &file, unsigned line);
  trace::EventId ev(trace::SymId th, trace::EventKind k, uint32_t obj = 0,
                    int64_t v = 0, uint32_t extra = trace::kNone,
                    trace::SrcId src = 0);
};

/// The issue-3 random mix (no source locations, plain branches).
void mixedShape(Gen &g, size_t events, int threads, int locations, int locks,
                unsigned seed);

/// Carril Fig. 5.17: main: fork; x++; N × {lock; y++; unlock}; worker:
/// N × {lock; y++; unlock}; x++. A loop-condition branch after each
/// iteration depends on every earlier read (plain rule) or, with `deps`, on
/// none (the loop counter is thread-local, as the pass records it).
void fig517Shape(Gen &g, size_t n, bool deps);

/// A program-like mix (issue 7): threads run tasks on thread-local data
/// (branching on what they read), critical sections on lock-protected
/// shared counters (branching on them), and unprotected statistics
/// counters (x++ without a lock: the races); precise branch dependences
/// as the pass records them, source locations per statement, values that
/// count up. About 9% synchronisation and 30% branches.
void appShape(Gen &g, size_t events, int threads, int locks, unsigned seed);

} // namespace racepredict::bench
