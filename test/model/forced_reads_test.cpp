//===- test/model/forced_reads_test.cpp - Early refutation = propagation --===//
//
// SliceEncoding decides a race candidate without building its formula when
// a read that every witness needs has no writer (slice_forced_reads.cpp,
// docs/slicing.md "Before the formula"). That must be exactly the
// set of candidates that unit propagation refutes on the built formula,
// so that maximality is untouched: on random traces, for every conflicting
// pair and both slicer modes, the data route and the formula route agree,
// and a pair refuted early is unsat for the solver too.
//
#include "model_check.h"
#include "random_trace.h"

#include "racepredict/analysis/candidates.h"
#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/pair_slice.h"
#include "racepredict/solver/order_solver.h"
#include "racepredict/solver/slice_encoding.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

/// The text trace with the k-th read (modulo their number) reading 999.
std::string withUnwrittenRead(const std::string &text, int k) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::vector<size_t> reads;
  for (std::string l; std::getline(in, l);) {
    std::istringstream w(l);
    std::string thread, op;
    w >> thread >> op;
    if (op == "rd" || op == "ard")
      reads.push_back(lines.size());
    lines.push_back(l);
  }
  if (!reads.empty()) {
    std::string &l = lines[reads[static_cast<size_t>(k) % reads.size()]];
    std::istringstream w(l);
    std::string thread, op, loc, value;
    w >> thread >> op >> loc >> value;
    std::string rest;
    std::getline(w, rest);
    l = thread + " " + op + " " + loc + " 999" + rest;
  }
  std::string out;
  for (const std::string &l : lines)
    out += l + "\n";
  return out;
}

struct Counts {
  int pairs = 0, refuted = 0;
};

void compareRoutes(const TraceFeatures &f, uint64_t seedBase, int count,
                   Counts *total) {
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = 8;
  o.maxEvents = 24;
  o.maxLocations = 3;
  seedBase = modelSeedBase(seedBase);
  auto z3 = solver::makeZ3QuerySolver("");
  for (int i = 0; i < count; ++i) {
    RandomTrace rt = randomTrace(seedBase + static_cast<uint64_t>(i), o);
    // Every other trace: one read sees a value no recorded write produced
    // (a write in uninstrumented code, as in real traces), so that some
    // pairs are refuted.
    if (i % 2)
      rt.text = withUnwrittenRead(rt.text, i / 2);
    std::istringstream in(rt.text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t)) << rt.text;
    analysis::TraceIndex idx(*t);
    analysis::MustHappenBefore mhb(idx);
    for (bool eager : {true, false}) {
      analysis::SliceOptions so;
      so.eager = eager;
      analysis::Slicer slicer(idx, mhb, so);
      analysis::forEachConflictingPair(
          idx, [&](analysis::EventId a, analysis::EventId b) {
            analysis::PairSlice s;
            if (!slicer.slice(a, b, &s))
              return;
            solver::FormulaPool pool;
            solver::SliceEncoding formula(slicer, s, pool, 4096, false);
            bool early = formula.noWriterForForcedRead();
            ++total->pairs;
            total->refuted += early;
            EXPECT_EQ(early, formula.impossibleReadForced())
                << "pair (" << a << "," << b << ") eager " << eager << "\n"
                << rt.text;
            solver::FormulaPool pool2;
            solver::SliceEncoding decided(slicer, s, pool2);
            EXPECT_EQ(early, decided.impossibleReadForced());
            if (early) {
              // Z3 agrees on the built formula, with every escape free:
              // the refutation needs none of them.
              z3->reset(formula.differenceLogicOnly());
              for (solver::F f : formula.takeNew())
                z3->add(pool, f);
              solver::CheckResult r =
                  z3->check(pool, {}, formula.numOrderVars(), {});
              EXPECT_EQ(r.status, solver::CheckResult::Unsat) << rt.text;
            }
          });
    }
  }
}

} // namespace

TEST(ForcedReads, EarlyRefutationIsExactlyPropagation) {
  Counts c;
  TraceFeatures f;
  f.atomics = f.precise = true;
  compareRoutes(f, 31000000, 300, &c);
  f.writeDeps = f.counters = true;
  compareRoutes(f, 32000000, 300, &c);
  TraceFeatures g;
  g.rwlocks = g.tryfail = g.condvars = g.semaphores = g.allocs = true;
  compareRoutes(g, 33000000, 300, &c);
  // The routes were compared on refuted pairs, not only on easy ones.
  EXPECT_GT(c.refuted, c.pairs / 50) << c.refuted << " of " << c.pairs;
}
