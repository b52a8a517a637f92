//===- streamed_report_test.cpp - The streamed JSON report is the document
//--===//
//
// `analyze`/`run --format json` stream their findings (streamed_report.h)
// instead of dumping one nlohmann document: the text must stay the same
// byte for byte. Compared here on the writer's own cases (odd strings,
// numbers, empty containers, nesting) and on real reports: the paper and
// deadlock inputs, property violations, names that are not UTF-8, and
// generated program-like traces analysed with --all-pairs.
//
#include "racepredict/report/streamed_report.h"

#include "../../../bench/gen_shapes.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/property/parser.h"
#include "racepredict/support/utf8.h"
#include "racepredict/trace/trace_file.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using json = nlohmann::ordered_json;

namespace {

std::string streamed(const json &doc,
                     const report::JsonWriter::Fills &fills = {}) {
  std::ostringstream out;
  {
    report::JsonWriter w(out);
    w.object(doc, fills);
  }
  return out.str();
}

TEST(JsonWriter, PrintsWhatDumpPrints) {
  json odd = {{"quote\"back\\slash", "tab\tnl\ncr\rbell\x07 del\x7f"},
              {"utf8", "Grüße ✓ \xf0\x9f\x98\x80"},
              {"not utf8", std::string("latin1 \xe9t\xe9 \xff")},
              {"\xe9key", 1}};
  json doc = {{"empty_object", json::object()},
              {"empty_array", json::array()},
              {"ints", {0, -1, 42, UINT64_MAX, INT64_MIN}},
              {"doubles", {0.0, 0.1, 2.0, -1.5e-7, 1e300, 123456789.125}},
              {"bools", {true, false, nullptr}},
              {"odd", odd},
              {"nested", {{"a", {json::array(), {json::object()}, {{1}}}}}},
              {"one", json::array({json::object({{"k", json::array()}})})}};
  EXPECT_EQ(streamed(doc), jsonText(doc));
  EXPECT_EQ(streamed(json::object()), "{}");
  EXPECT_EQ(streamed(odd), jsonText(odd));
}

TEST(JsonWriter, FillsWriteTheirMembersInPlace) {
  json doc = {{"a", 1}, {"w", json::array()}, {"e", json::array()}, {"z", 2}};
  std::vector<uint64_t> steps = {7, 3, 1000000};
  auto ints = [](const std::vector<uint64_t> &v) {
    return [&v](report::JsonWriter &w) {
      w.beginArray();
      for (uint64_t x : v)
        w.number(x);
      w.end();
    };
  };
  std::vector<uint64_t> none;
  json whole = doc;
  whole["w"] = steps;
  EXPECT_EQ(streamed(doc, {{"w", ints(steps)}, {"e", ints(none)}}),
            jsonText(whole));
}

/// The report as `analyze --format json` wrote it before streaming, and as
/// it streams it now.
void expectSameReport(const trace::Trace &t, const solver::RaceResult &races,
                      const solver::DeadlockResult *deadlocks,
                      const solver::PropertyResult *violations,
                      const report::Properties &props) {
  report::ReportContext ctx;
  ctx.tracePath = "dir with \"quotes\"/tr\xe9.rptrace";
  analysis::TraceIndex idx(t);
  json doc = report::raceReportJson(t, races, ctx);
  json skeleton = report::raceReportJson(t, races, ctx, false);
  report::StreamedFindings f;
  f.races = &races;
  if (deadlocks) {
    doc["deadlocks"] = report::deadlocksJson(t, *deadlocks, idx);
    f.deadlocks = deadlocks;
  }
  if (violations) {
    doc["violations"] = report::violationsJson(t, *violations, props);
    f.violations = violations;
    f.properties = &props;
  }
  std::ostringstream out;
  report::writeStreamedReport(out, t, skeleton, f);
  EXPECT_EQ(out.str(), jsonText(doc) + "\n");
}

trace::Trace load(const std::string &path) {
  auto t = trace::readTraceFile(path);
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace();
}

TEST(StreamedReport, SameAsTheDocumentOnRaceAndDeadlockInputs) {
  size_t races = 0, deadlocks = 0, halves = 0;
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
    solver::RaceOptions ro;
    ro.allPairs = true;
    solver::RaceResult r = solver::predictRaces(idx, ro);
    solver::DeadlockResult d = solver::predictDeadlocks(idx, {});
    races += r.races.size();
    deadlocks += d.deadlocks.size();
    for (const auto &x : d.deadlocks)
      halves += !x.steps.empty();
    expectSameReport(t, r, &d, nullptr, {});
  }
  // The inputs do exercise every array.
  EXPECT_GT(races, 5u);
  EXPECT_GT(deadlocks, 3u);
  EXPECT_GT(halves, 0u);
}

TEST(StreamedReport, SameAsTheDocumentWithViolations) {
  std::string dir = std::string(RACEPREDICT_TEST_INPUTS) + "/properties/";
  trace::Trace t = load(dir + "atomic_inc.rpt.txt");
  auto props = property::parsePropertyFile(dir + "atomic_inc.props");
  ASSERT_TRUE(static_cast<bool>(props)) << props.error().message;
  analysis::TraceIndex idx(t);
  solver::PropertyResult v = solver::predictViolations(idx, *props, {});
  ASSERT_FALSE(v.violations.empty());
  expectSameReport(t, solver::predictRaces(idx, {}), nullptr, &v, *props);
}

TEST(StreamedReport, SameAsTheDocumentOnGeneratedProgramsAllPairs) {
  for (unsigned seed : {1u, 7u}) {
    bench::Gen app;
    bench::appShape(app, 2000, 4, 2, seed);
    analysis::TraceIndex idx(app.t);
    solver::RaceOptions ro;
    ro.allPairs = true;
    solver::RaceResult r = solver::predictRaces(idx, ro);
    EXPECT_GT(r.races.size(), 10u);
    expectSameReport(app.t, r, nullptr, nullptr, {});
  }
}

} // namespace
