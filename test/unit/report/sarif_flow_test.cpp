//===- sarif_flow_test.cpp - The witness as SARIF thread flows ------------===//
#include "report_test_util.h"

#include "racepredict/report/finding_sarif.h"
#include "racepredict/report/signature.h"

using namespace racepredict;
using namespace racepredict::report;

namespace {

/// t1's loop of `n` steps, then the race on x between t1 and t2.
nlohmann::ordered_json flowsOf(int n) {
  trace::Trace t = testutil::raceAfterLoop(static_cast<size_t>(n));
  std::vector<trace::EventId> w;
  for (trace::EventId e = 0; e < t.events.size(); ++e)
    w.push_back(e);
  static Finding f;
  f = raceFinding(t, w.size() - 2, w.size() - 1, w);
  auto sarif = sarifFromFindings({{&f, findingSignature(f, ""), {}}}, {});
  return sarif["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"];
}

} // namespace

TEST(SarifFlow, WholeWitnessOneFlowPerThreadWithImportance) {
  auto flows = flowsOf(100);
  ASSERT_EQ(flows.size(), 3u); // t0, t1, t2
  size_t steps = 0, essential = 0, important = 0;
  for (const auto &fl : flows)
    for (const auto &l : fl["locations"]) {
      ++steps;
      essential += l["importance"] == "essential";
      important += l["importance"] == "important";
    }
  EXPECT_EQ(steps, 104u); // every step
  EXPECT_EQ(essential, 2u);
  EXPECT_GE(important, 3u); // t1's last steps before its racing write
}

TEST(SarifFlow, BeyondGitHubsLimitRunsAreFoldedNotDropped) {
  auto flows = flowsOf(12000);
  size_t locations = 0;
  bool sawFold = false, sawFirst = false;
  for (const auto &fl : flows) {
    int64_t last = 0;
    for (const auto &l : fl["locations"]) {
      ++locations;
      int64_t order = l["executionOrder"];
      EXPECT_GT(order, last) << "ascending within a thread flow";
      last = order;
      std::string text = l["location"]["message"]["text"];
      sawFold = sawFold ||
                text.find("steps of t1 (witness steps") != std::string::npos;
      sawFirst = sawFirst || order == 1; // the run from step 1 is there
    }
  }
  EXPECT_LE(locations, kMaxSarifFlowSteps);
  EXPECT_TRUE(sawFold);
  EXPECT_TRUE(sawFirst);
}
