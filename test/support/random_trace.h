//===- test/support/random_trace.h - Random small valid traces ------------===//
//
// Generates text traces by simulating a real sequentially consistent
// execution of a random small program (t0 forks up to two children), so
// that every value is one actually read, every wait returns after a real
// notify (or spuriously) and every barrier generation really completed. The
// output is the text format of DESIGN.md; tests parse it with
// parseTextTrace so that they see exactly what the CLI would see.
//
#pragma once

#include <cstdint>
#include <string>

namespace racepredict::testsupport {

/// Which operations the random programs may use (plain reads and writes,
/// plain branches and fork/join always appear).
struct TraceFeatures {
  bool locks = true;    ///< acq / rel
  bool rwlocks = false; ///< racq (read-mode sections)
  bool tryfail = false; ///< failed trylocks
  /// Some acquisitions of a free lock are successful try-locks (`acq m
  /// try`): they never block, so they are never a deadlock's request.
  bool tryAcquires = false;
  bool atomics = false; ///< ard / awr / armw, on the plain locations too
  bool precise = false; ///< `br <- i j` with random dependence subsets
  /// `wr x v <- i j` (issue 20): most plain writes name a random subset of
  /// their thread's earlier reads (often none: a constant) as the reads
  /// their value depends on.
  bool writeDeps = false;
  bool condvars = false;   ///< wait / signal / broadcast (needs locks)
  bool barriers = false;   ///< barrier generations of 2 or 3
  bool semaphores = false; ///< seminit / post / semwait
  bool inits = true;       ///< `init` lines for some locations
  /// Recursive acquires and releases without a hold (docs/semantics.md:
  /// re-acquiring is allowed, a release without a hold is ignored).
  bool oddLocks = false;
  /// `alloc`/`free` of the locations: accesses in different allocation
  /// generations never conflict (docs/semantics.md, "Races").
  bool allocs = false;
  /// Programs that deadlock in other interleavings (deadlock differential
  /// test): fewer memory accesses, more nested locking, barrier arrivals
  /// while holding locks, and a run to completion — every child ends and
  /// is joined, and t0 sometimes has `begin`/`end` (its end is then the
  /// process exit) — so that hangs, which need the other threads finished,
  /// occur. Off, the generator's output is unchanged.
  bool deadlockProne = false;
  /// Custom events `ev a|b|c [o1|o2 [o1|o2]]` (property tests).
  bool customs = false;
  /// `send p O N` / `recv p O N` on one pipe: a receive takes some of the
  /// bytes sent and not yet received (docs/semantics.md, Channels).
  bool channels = false;
  /// A private location per thread (`q0`, `q1`…, what a thread's own
  /// state is in real programs): copies of its reads stored there (plain
  /// writes, or listing the read), read back and branched on.
  bool privates = false;
  /// A counter `c` under lock `l`: `acq l; rd c v; wr c v±1; rel l` steps
  /// and reads of it, from `init c 0` (the counters of the derived order).
  bool counters = false;
};

/// Values through private locations into listed branches and writes, by
/// plain and listed writers: what the thread-local reduction rewrites
/// (its tests, and those of its streaming form).
inline TraceFeatures privatesAndLists() {
  TraceFeatures f;
  f.privates = true;
  f.precise = true;
  f.writeDeps = true;
  return f;
}

struct RandomTraceOptions {
  TraceFeatures features;
  int minEvents = 6;
  int maxEvents = 16;
  int maxThreads = 3; ///< including t0
  int maxLocations = 3;
  /// Written values are 0 .. values-1: few values make reads ambiguous
  /// (several writes can justify them), which the encoding must resolve.
  int values = 2;
  /// Relative weight of branches (a plain read or write weighs 3).
  int branchWeight = 4;
};

struct RandomTrace {
  std::string text;
  /// The observed order is itself a schedule of the maximal causal model
  /// with all reads concrete (false only when a trylock failed against a
  /// read-mode holder, which the model soundly does not count as
  /// re-failing, docs/semantics.md).
  bool reproducible = true;
};

/// Deterministic in `seed` (no std distributions: same output everywhere).
RandomTrace randomTrace(uint64_t seed, const RandomTraceOptions &opts);

/// RACEPREDICT_MODEL_SCALE=N (default 1) multiplies how many random traces
/// a model test checks.
int modelScale();
/// `base` moved by RACEPREDICT_MODEL_SEED=K as K·10^9 (long sweeps run
/// other seed ranges than the default one).
uint64_t modelSeedBase(uint64_t base);

} // namespace racepredict::testsupport
