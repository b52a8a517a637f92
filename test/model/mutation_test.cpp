//===- test/model/mutation_test.cpp - Mutated traces: an error or a truth -===//
//
// Issue 21's property: take random valid traces (random_trace.h), mutate
// them as a hostile or broken tool would — lines dropped, duplicated,
// swapped or moved, values, threads, objects and ops replaced — and every
// mutant is either rejected with its position (a parse error `NAME:LINE:`,
// or its first inconsistency `NAME:LINE: event N:`, what `analyze` stops
// at), or analysed (races with --all-pairs, deadlocks of every set) with
// every witness of the JSON report accepted by the reader and checker of
// `check-witness` and `replay` (report/witness_reader.h). Mutants whose
// only inconsistencies are of values, locks or counts are also analysed as
// `--allow-inconsistent` does. RACEPREDICT_MODEL_SCALE / _SEED apply.
//
#include "random_trace.h"

#include "racepredict/report/report.h"
#include "racepredict/report/witness_reader.h"
#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/support/utf8.h"
#include "racepredict/trace/text_format.h"
#include "racepredict/trace/validate.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

/// A small deterministic generator (splitmix64), independent of <random>.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? next() % n : 0; }
};

std::vector<std::string> words(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

std::string join(const std::vector<std::string> &ws) {
  std::string out;
  for (const auto &w : ws)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

/// One to three random edits of the trace's lines.
std::string mutate(const std::string &text, Rng &rng) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  static const char *kOps[] = {"acq",  "rel",     "rd",     "wr",     "fork",
                               "join", "wait",    "signal", "br",     "begin",
                               "end",  "semwait", "post",   "barrier"};
  static const char *kNames[] = {"t0", "t1", "t2", "t3", "x", "y",
                                 "m",  "n",  "c",  "s",  "b"};
  for (size_t k = 1 + rng.below(3); k > 0 && !lines.empty(); --k) {
    size_t i = rng.below(lines.size()), j = rng.below(lines.size());
    std::vector<std::string> w = words(lines[i]);
    switch (rng.below(8)) {
    case 0:
      lines.erase(lines.begin() + i);
      break;
    case 1:
      lines.insert(lines.begin() + j, lines[i]);
      break;
    case 2:
      if (i + 1 < lines.size())
        std::swap(lines[i], lines[i + 1]);
      break;
    case 3: {
      std::string l = lines[i];
      lines.erase(lines.begin() + i);
      lines.insert(lines.begin() + std::min(j, lines.size()), l);
      break;
    }
    case 4: // a value (the last number of the line)
      for (size_t p = w.size(); p-- > 1;)
        if (std::isdigit(static_cast<unsigned char>(w[p][0]))) {
          w[p] = std::to_string(rng.below(4));
          break;
        }
      lines[i] = join(w);
      break;
    case 5: // the thread
      if (!w.empty())
        w[0] = kNames[rng.below(4)];
      lines[i] = join(w);
      break;
    case 6: // an operand
      if (w.size() > 2)
        w[2 + rng.below(w.size() - 2)] = kNames[rng.below(11)];
      lines[i] = join(w);
      break;
    default: // the op
      if (w.size() > 1)
        w[1] = kOps[rng.below(14)];
      lines[i] = join(w);
      break;
    }
  }
  std::string out;
  for (const auto &l : lines)
    out += l + "\n";
  return out;
}

/// Analyses `t` as `analyze --races --deadlocks --all-pairs --format json`
/// and reads every witness back as `check-witness` does; "" if all hold.
std::string analyseAndCheckWitnesses(const trace::Trace &t, size_t *found) {
  analysis::TraceIndex idx(t);
  solver::RaceOptions ro;
  ro.allPairs = true;
  solver::RaceResult races = solver::predictRaces(idx, ro);
  solver::DeadlockOptions dopt;
  dopt.allCycles = true;
  solver::DeadlockResult deadlocks = solver::predictDeadlocks(idx, dopt);
  report::ReportContext ctx;
  ctx.tracePath = "m.rpt.txt";
  nlohmann::ordered_json j = report::raceReportJson(t, races, ctx);
  j["deadlocks"] = report::deadlocksJson(t, deadlocks, idx);
  auto ws =
      report::parseWitnesses(nlohmann::json::parse(jsonText(j)), "report.json");
  if (!ws)
    return "the report does not read back: " + ws.error().message;
  *found += ws->size();
  for (const report::WitnessSpec &w : *ws)
    if (auto steps = report::witnessSteps(idx, w); !steps)
      return std::string(report::witnessKindName(w.kind)) +
             " witness rejected: " + steps.error().message;
  return "";
}

void runMutants(const TraceFeatures &f, uint64_t seedBase, int traces) {
  RandomTraceOptions o;
  o.features = f;
  static const std::regex kParsePos(R"(^m\.rpt\.txt:\d+: .+)");
  static const std::regex kEventPos(R"(^m\.rpt\.txt:\d+: event \d+: .+)");
  int failures = 0;
  size_t rejected = 0, inconsistent = 0, analysed = 0, found = 0;
  traces *= modelScale();
  seedBase = modelSeedBase(seedBase);
  for (int i = 0; i < traces && failures < 3; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    std::string base = randomTrace(seed, o).text;
    Rng rng{seed};
    for (int m = 0; m < 4; ++m) {
      std::string text = mutate(base, rng);
      auto fail = [&](const std::string &why) {
        ADD_FAILURE() << "seed " << seed << " mutant " << m << ": " << why
                      << "\n"
                      << text;
        ++failures;
      };
      std::istringstream in(text);
      std::vector<uint32_t> lines;
      auto t = trace::parseTextTrace(in, "m.rpt.txt", &lines);
      if (!t) {
        if (!std::regex_match(t.error().message, kParsePos))
          fail("a parse error without its line: " + t.error().message);
        ++rejected;
        continue;
      }
      if (t->events.empty())
        continue; // an error of its own (trace_file.cpp)
      auto bad = trace::validateTrace(*t, 1);
      if (!bad.empty()) {
        std::string msg = trace::violationText(*t, bad[0], "m.rpt.txt", lines);
        if (!std::regex_match(msg, kEventPos))
          fail("an inconsistency without its position: " + msg);
        ++rejected;
        // --allow-inconsistent: everything but a structural problem.
        if (!trace::validateTrace(*t, 1, true).empty())
          continue;
        ++inconsistent;
      }
      ++analysed;
      std::string why = analyseAndCheckWitnesses(*t, &found);
      if (!why.empty())
        fail(why);
    }
  }
  EXPECT_EQ(failures, 0);
  // Both outcomes must occur, or the property says little.
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(analysed, 0u);
  std::printf("[ mutants  ] %zu rejected with a position, %zu analysed (%zu "
              "of them inconsistent), %zu witnesses checked\n",
              rejected, analysed, inconsistent, found);
}

} // namespace

TEST(Mutation, ReadsWritesLocksBranches) {
  TraceFeatures f;
  runMutants(f, 71000000, 150);
}

TEST(Mutation, WaitsBarriersSemaphores) {
  TraceFeatures f;
  f.condvars = true;
  f.barriers = true;
  f.semaphores = true;
  f.precise = true;
  runMutants(f, 72000000, 150);
}

TEST(Mutation, DeadlockProne) {
  TraceFeatures f;
  f.deadlockProne = true;
  f.condvars = true;
  f.rwlocks = true;
  f.tryfail = true;
  runMutants(f, 73000000, 150);
}

TEST(Mutation, AtomicsAllocationsOddLocks) {
  TraceFeatures f;
  f.atomics = true;
  f.allocs = true;
  f.oddLocks = true;
  f.barriers = true;
  f.tryfail = true;
  runMutants(f, 74000000, 150);
}
