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

#include "analysed_inputs.h"
#include "racepredict/analysis/trace_index.h"
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

TEST(StreamedReport, SameAsTheDocumentOnRaceAndDeadlockInputs) {
  size_t halves = 0;
  testutil::forEachAnalysedInput([&](const trace::Trace &t,
                                     const solver::RaceResult &r,
                                     const solver::DeadlockResult &d) {
    for (const auto &x : d.deadlocks)
      halves += !x.steps.empty();
    expectSameReport(t, r, &d, nullptr, {});
  });
  // The inputs do exercise every array (forEachAnalysedInput checks races
  // and deadlocks).
  EXPECT_GT(halves, 0u);
}

TEST(StreamedReport, SameAsTheDocumentWithViolations) {
  testutil::withViolations([](const trace::Trace &t, solver::RaceResult r,
                              solver::PropertyResult v,
                              const report::Properties &props) {
    expectSameReport(t, r, nullptr, &v, props);
  });
}

TEST(StreamedReport, SameAsTheDocumentOnGeneratedProgramsAllPairs) {
  testutil::forEachGeneratedApp(
      [](const trace::Trace &t, const solver::RaceResult &r) {
        expectSameReport(t, r, nullptr, nullptr, {});
      });
}

} // namespace
