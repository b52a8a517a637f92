//===- sarif_stream_test.cpp - The streamed SARIF log is the document -----===//
//
// `analyze`/`run --format sarif` write their log one result at a time
// (sarif_report.h) instead of dumping one nlohmann document: the text must
// stay the same byte for byte. Compared on the paper and deadlock inputs,
// property violations, names that are not UTF-8 or need escaping, solver
// queries that ended unknown, a witness long enough to be folded, and
// generated program-like traces analysed with --all-pairs.
//
#include "racepredict/report/sarif_report.h"

#include "report_test_util.h"

#include "analysed_inputs.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/report/finding_sarif.h"
#include "racepredict/support/utf8.h"
#include "racepredict/trace/trace_file.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using json = nlohmann::ordered_json;

namespace {

/// The log as `analyze --format sarif` wrote it before streaming, and as it
/// streams it now; returns the log.
json expectSameLog(const trace::Trace &t, const solver::RaceResult &races,
                   const solver::DeadlockResult *deadlocks,
                   const solver::PropertyResult *violations,
                   const report::Properties &props) {
  report::ReportContext ctx;
  ctx.tracePath = "dir with \"quotes\"/tr\xe9 \\ \t.rptrace";
  analysis::TraceIndex idx(t);
  json doc = report::sarifReport(t, races, deadlocks, idx, ctx);
  if (violations)
    report::addViolationsToSarif(doc, t, *violations, props);
  std::ostringstream out;
  report::writeSarifReport(out, t, races, deadlocks, violations, &props, ctx);
  EXPECT_EQ(out.str(), jsonText(doc) + "\n");
  return doc;
}

TEST(SarifStream, SameAsTheDocumentOnRaceAndDeadlockInputs) {
  testutil::forEachAnalysedInput([](const trace::Trace &t,
                                    const solver::RaceResult &r,
                                    const solver::DeadlockResult &d) {
    expectSameLog(t, r, &d, nullptr, {});
    expectSameLog(t, r, nullptr, nullptr, {});
  });
}

TEST(SarifStream, SameAsTheDocumentWithViolationsAndUnknowns) {
  testutil::withViolations([](const trace::Trace &t, solver::RaceResult r,
                              solver::PropertyResult v,
                              const report::Properties &props) {
    json log = expectSameLog(t, r, nullptr, &v, props);
    EXPECT_EQ(log["runs"][0]["tool"]["driver"]["rules"].back()["id"],
              "property-violation");
    EXPECT_EQ(log["runs"][0]["invocations"][0]["executionSuccessful"], true);
    // Queries that ended unknown: a notification, and an unsuccessful run.
    r.unknowns.resize(2);
    v.unknowns.resize(1);
    log = expectSameLog(t, r, nullptr, &v, props);
    const json &inv = log["runs"][0]["invocations"][0];
    EXPECT_EQ(inv["executionSuccessful"], false);
    EXPECT_EQ(inv["toolExecutionNotifications"][0]["message"]["text"],
              "2 solver queries ended unknown (time-out or budget): the "
              "result is incomplete, not clean");
  });
}

TEST(SarifStream, SameAsTheDocumentWithAFoldedWitness) {
  // t1's loop is longer than a code flow lists step by step.
  trace::Trace t = testutil::raceAfterLoop(report::kMaxSarifFlowSteps + 50);
  analysis::TraceIndex idx(t);
  solver::RaceResult r = solver::predictRaces(idx, {});
  ASSERT_EQ(r.races.size(), 1u);
  json log = expectSameLog(t, r, nullptr, nullptr, {});
  std::string msg =
      log["runs"][0]["results"][0]["codeFlows"][0]["message"]["text"];
  EXPECT_NE(msg.find("less important steps are folded"), std::string::npos)
      << msg;
}

TEST(SarifStream, SameAsTheDocumentOnGeneratedProgramsAllPairs) {
  testutil::forEachGeneratedApp(
      [](const trace::Trace &t, const solver::RaceResult &r) {
        expectSameLog(t, r, nullptr, nullptr, {});
      });
}

} // namespace
