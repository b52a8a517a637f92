//===- html_stream_test.cpp - The page's data is htmlModel, streamed ------===//
//
// `--format html` writes the page's JSON model one finding at a time
// (writeHtmlModel) instead of dumping one document of every finding: the
// page must stay the same byte for byte. Compared on the paper and deadlock
// inputs, a source line holding "</script>" (escaped as "<\/"), names that
// are not UTF-8, a witness longer than the page expands, and generated
// program-like traces analysed with --all-pairs.
//
#include "racepredict/report/html_report.h"

#include "report_test_util.h"

#include "analysed_inputs.h"
#include "racepredict/analysis/trace_index.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;

namespace {

/// The data element as the page wrote it before streaming: the whole model
/// dumped, then every "</" escaped.
std::string documentData(const trace::Trace &t,
                         const std::vector<report::HtmlFinding> &f,
                         const report::ReportContext &ctx) {
  std::string data = report::htmlModel(t, f, ctx).dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (size_t p = 0; (p = data.find("</", p)) != std::string::npos; p += 3)
    data.replace(p, 2, "<\\/");
  return data;
}

/// Expects the streamed page to hold exactly the document's data; returns
/// the data.
std::string expectSamePage(const trace::Trace &t,
                           const solver::RaceResult &races,
                           const solver::DeadlockResult *deadlocks) {
  report::ReportContext ctx;
  ctx.tracePath = "dir</script>/tr\xe9.rptrace";
  ctx.version = "0.test";
  auto findings = report::htmlFindings(t, races, deadlocks);
  std::string data = documentData(t, findings, ctx);
  std::ostringstream model, page;
  report::writeHtmlModel(t, findings, ctx, model);
  EXPECT_EQ(model.str(), data);
  report::writeHtmlReport(t, findings, ctx, page);
  const std::string open =
      "<script type=\"application/json\" id=\"racepredict-data\">";
  size_t at = page.str().find(open);
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(page.str().substr(at + open.size(), data.size() + 9),
            data + "</script>");
  return data;
}

TEST(HtmlStream, SameAsTheDocumentOnRaceAndDeadlockInputs) {
  testutil::forEachAnalysedInput([](const trace::Trace &t,
                                    const solver::RaceResult &r,
                                    const solver::DeadlockResult &d) {
    expectSamePage(t, r, &d);
    expectSamePage(t, r, nullptr);
  });
}

TEST(HtmlStream, EscapesEndTagsAndKeepsBadBytesReplaced) {
  // A function name with "</script>" and a variable name that is not
  // UTF-8: both reach the model (event notes, step text, stacks).
  trace::Trace t = testutil::parse("t0 fork t1\nt0 fork t2\n"
                                   "t1 wr v\xe9</script> 1 @a.c:3@f</script>\n"
                                   "t2 rd v\xe9</script> 1 @a.c:9@g\n");
  analysis::TraceIndex idx(t);
  solver::RaceResult r = solver::predictRaces(idx, {});
  ASSERT_EQ(r.races.size(), 1u);
  std::string data = expectSamePage(t, r, nullptr);
  EXPECT_EQ(data.find("</"), std::string::npos);
  EXPECT_NE(data.find("<\\/script>"), std::string::npos);
  EXPECT_NE(data.find("\xef\xbf\xbd"), std::string::npos) << "U+FFFD";
}

TEST(HtmlStream, SameAsTheDocumentWithAWitnessTooLongToExpand) {
  trace::Trace t = testutil::raceAfterLoop(20050);
  analysis::TraceIndex idx(t);
  solver::RaceResult r = solver::predictRaces(idx, {});
  ASSERT_EQ(r.races.size(), 1u);
  std::string data = expectSamePage(t, r, nullptr);
  EXPECT_NE(data.find("\"expandable\":false"), std::string::npos);
}

TEST(HtmlStream, SameAsTheDocumentOnGeneratedProgramsAllPairs) {
  testutil::forEachGeneratedApp(
      [](const trace::Trace &t, const solver::RaceResult &r) {
        expectSamePage(t, r, nullptr);
      });
}

} // namespace
