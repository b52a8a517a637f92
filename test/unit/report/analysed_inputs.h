//===- analysed_inputs.h - Traces the streamed-report tests compare on ----===//
//
// The streamed JSON report and the streamed SARIF log are each compared
// with the document they replace on the same analyses: the paper and
// deadlock inputs, every kind of event, names that are not UTF-8, and
// generated program-like traces, all with --all-pairs.
//
#pragma once

#include "../../../bench/gen_shapes.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/property/parser.h"
#include "racepredict/report/violation_report.h"
#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/trace_file.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace racepredict::testutil {

inline trace::Trace load(const std::string &path) {
  auto t = trace::readTraceFile(path);
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace();
}

inline solver::RaceResult allPairs(const analysis::TraceIndex &idx) {
  solver::RaceOptions ro;
  ro.allPairs = true;
  return solver::predictRaces(idx, ro);
}

/// Each race and deadlock input, analysed as `analyze --all-pairs
/// --deadlocks`; checks that the inputs do give both kinds of finding.
inline void forEachAnalysedInput(
    const std::function<void(const trace::Trace &, const solver::RaceResult &,
                             const solver::DeadlockResult &)> &use) {
  size_t races = 0, deadlocks = 0;
  for (const char *name :
       {"paper/carril_fig1_5.rpt.txt", "paper/carril_fig5_9.rpt.txt",
        "paper/huang_fig2_case1.rpt.txt", "paper/huang_fig4.rpt.txt",
        "deadlock/opposite_order.rpt.txt", "deadlock/nested_monitor.rpt.txt",
        "deadlock/wait_half_needed.rpt.txt", "deadlock/barrier_lock.rpt.txt",
        "deadlock/semaphore_handoff.rpt.txt", "formats/all_kinds.rpt.txt",
        "bad/latin1_names.rpt.txt"}) {
    SCOPED_TRACE(name);
    trace::Trace t = load(std::string(RACEPREDICT_TEST_INPUTS) + "/" + name);
    analysis::TraceIndex idx(t);
    solver::RaceResult r = allPairs(idx);
    solver::DeadlockResult d = solver::predictDeadlocks(idx, {});
    races += r.races.size();
    deadlocks += d.deadlocks.size();
    use(t, r, d);
  }
  EXPECT_GT(races, 5u);
  EXPECT_GT(deadlocks, 3u);
}

/// Generated `app` traces (2,000 events, seeds 1 and 7) with their
/// --all-pairs races (more than 10 each).
inline void forEachGeneratedApp(
    const std::function<void(const trace::Trace &, const solver::RaceResult &)>
        &use) {
  for (unsigned seed : {1u, 7u}) {
    bench::Gen app;
    bench::appShape(app, 2000, 4, 2, seed);
    analysis::TraceIndex idx(app.t);
    solver::RaceResult r = allPairs(idx);
    EXPECT_GT(r.races.size(), 10u);
    use(app.t, r);
  }
}

/// properties/atomic_inc.rpt.txt with its races and the violations of
/// atomic_inc.props (at least one).
inline void withViolations(
    const std::function<void(const trace::Trace &, solver::RaceResult,
                             solver::PropertyResult,
                             const report::Properties &)> &use) {
  std::string dir = std::string(RACEPREDICT_TEST_INPUTS) + "/properties/";
  trace::Trace t = load(dir + "atomic_inc.rpt.txt");
  auto props = property::parsePropertyFile(dir + "atomic_inc.props");
  ASSERT_TRUE(static_cast<bool>(props)) << props.error().message;
  analysis::TraceIndex idx(t);
  solver::PropertyResult v = solver::predictViolations(idx, *props, {});
  ASSERT_FALSE(v.violations.empty());
  use(t, solver::predictRaces(idx, {}), std::move(v), *props);
}

} // namespace racepredict::testutil
