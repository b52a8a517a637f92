//===- shared_witness_report_test.cpp - Sharing changes no report byte ----===//
//
// With --all-pairs a race's witness shares the observed run's first steps
// with other races (analysis/witness_schedule.h), and the writers walk it or
// expand it one finding at a time. Every format must be byte for byte what
// the same witnesses, each kept whole, give (as before the sharing): JSON
// (document and streamed), SARIF, HTML, the text report (condensed and
// full) and the witness files, on generated program-like traces and the
// paper and deadlock inputs.
//
#include "analysed_inputs.h"
#include "racepredict/report/html_report.h"
#include "racepredict/report/report.h"
#include "racepredict/report/sarif_report.h"
#include "racepredict/report/streamed_report.h"
#include "racepredict/report/witness_file.h"
#include "racepredict/support/utf8.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;

namespace {

/// Every format's bytes for `races` (and `deadlocks`).
std::vector<std::string> reports(const trace::Trace &t,
                                 const solver::RaceResult &races,
                                 const solver::DeadlockResult *deadlocks) {
  report::ReportContext ctx;
  ctx.tracePath = "t.rptrace";
  std::vector<std::string> out;
  auto add = [&](const auto &write) {
    std::ostringstream s;
    write(s);
    out.push_back(s.str());
  };
  add([&](std::ostream &s) {
    s << jsonText(report::raceReportJson(t, races, ctx));
  });
  add([&](std::ostream &s) {
    report::StreamedFindings f;
    f.races = &races;
    f.deadlocks = deadlocks;
    report::writeStreamedReport(
        s, t, report::raceReportJson(t, races, ctx, false), f);
  });
  add([&](std::ostream &s) {
    report::writeSarifReport(s, t, races, deadlocks, nullptr, nullptr, ctx);
  });
  add([&](std::ostream &s) {
    report::writeHtmlReport(t, report::htmlFindings(t, races, deadlocks), ctx,
                            s);
  });
  for (bool full : {false, true})
    add([&](std::ostream &s) {
      report::ReportContext c = ctx;
      c.fullWitness = full;
      report::printRaceReport(t, races, c, s);
    });
  add([&](std::ostream &s) {
    for (const auto &f : races.races)
      s << jsonText(report::raceWitnessJson(t, f, ctx.tracePath));
  });
  return out;
}

/// The same findings with every witness kept whole.
solver::RaceResult unshared(solver::RaceResult r) {
  for (auto &f : r.races)
    f.schedule = analysis::WitnessSchedule(f.schedule.steps());
  return r;
}

void expectSameBytes(const trace::Trace &t, const solver::RaceResult &r,
                     const solver::DeadlockResult *d) {
  std::vector<std::string> shared = reports(t, r, d),
                           whole = reports(t, unshared(r), d);
  ASSERT_EQ(shared.size(), whole.size());
  for (size_t i = 0; i < shared.size(); ++i)
    EXPECT_TRUE(shared[i] == whole[i]) << "format " << i << " differs";
}

TEST(SharedWitnessReport, SameBytesOnGeneratedProgramsAllPairs) {
  size_t shared = 0;
  testutil::forEachGeneratedApp(
      [&](const trace::Trace &t, const solver::RaceResult &r) {
        for (const auto &f : r.races)
          shared += f.schedule.sharedLength() > 0;
        expectSameBytes(t, r, nullptr);
      });
  EXPECT_GT(shared, 10u); // the witnesses do share steps
}

TEST(SharedWitnessReport, SameBytesOnRaceAndDeadlockInputs) {
  testutil::forEachAnalysedInput(
      [](const trace::Trace &t, const solver::RaceResult &r,
         const solver::DeadlockResult &d) { expectSameBytes(t, r, &d); });
}

} // namespace
