//===- suppressions_test.cpp - TSan-style rules: parsing and matching -----===//
#include "racepredict/report/suppressions.h"

#include "report_test_util.h"

using namespace racepredict;
using namespace racepredict::report;

namespace {

Suppressions parseOk(const std::string &text) {
  std::istringstream in(text);
  auto s = Suppressions::parse(in, "supp.txt");
  EXPECT_TRUE(static_cast<bool>(s)) << (s ? "" : s.error().message);
  return s ? std::move(*s) : Suppressions();
}

std::string parseError(const std::string &text) {
  std::istringstream in(text);
  auto s = Suppressions::parse(in, "supp.txt");
  return s ? "(parsed)" : s.error().message;
}

} // namespace

TEST(TemplateMatch, TSanSemantics) {
  EXPECT_TRUE(templateMatch("worker", "my_worker_fn"));    // substring
  EXPECT_TRUE(templateMatch("^my_*_fn$", "my_worker_fn")); // wildcard
  EXPECT_FALSE(templateMatch("^worker", "my_worker_fn"));  // anchored start
  EXPECT_FALSE(templateMatch("worker$", "my_worker_fn"));  // anchored end
  EXPECT_TRUE(templateMatch("race.c$", "/src/a/race.c"));
  EXPECT_TRUE(templateMatch("*", "anything"));
  EXPECT_TRUE(templateMatch("a*c*e", "xxabcdexx"));
  EXPECT_FALSE(templateMatch("a*c*e", "xxaexx"));
  EXPECT_FALSE(templateMatch("x", ""));
}

TEST(Suppressions, ParsesRulesCommentsAndBlankLines) {
  Suppressions s =
      parseOk("# known races\n\nrace:worker\n  deadlock:^lock_*$ \n"
              "property:open-before-read\n");
  ASSERT_EQ(s.rules().size(), 3u);
  EXPECT_EQ(s.rules()[0].text(), "race:worker");
  EXPECT_EQ(s.rules()[0].line, 3u);
  EXPECT_EQ(s.rules()[1].text(), "deadlock:^lock_*$");
  EXPECT_EQ(s.rules()[1].line, 4u);
  EXPECT_EQ(s.rules()[2].kind, FindingKind::Property);
  EXPECT_EQ(s.rules()[2].file, "supp.txt");
}

TEST(Suppressions, BadLinesAreNamedWithFileAndLine) {
  EXPECT_EQ(parseError("race:a\nmutx:m\n"),
            "supp.txt:2: unknown suppression type 'mutx' (racepredict knows "
            "race, race_top, deadlock and property, and ignores TSan's mutex, "
            "thread, signal and called_from_lib)");
  EXPECT_EQ(parseError("# c\nworker\n"),
            "supp.txt:2: expected TYPE:PATTERN (e.g. race:my_function), got "
            "'worker'");
  EXPECT_EQ(parseError("race:  \n"), "supp.txt:1: empty pattern after 'race:'");
  auto missing = Suppressions::load("/nonexistent/supp.txt");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(missing.error().message,
            "cannot open suppressions file '/nonexistent/supp.txt': No such "
            "file or directory");
}

TEST(Suppressions, RaceRulesMatchFunctionsFilesAndVariables) {
  trace::Trace t = testutil::parse(testutil::kRaceTrace);
  Finding f = testutil::raceOf(t);
  EXPECT_EQ(parseOk("race:worker\n").match(f), 0u);
  EXPECT_EQ(parseOk("race:^main$\n").match(f), 0u);
  EXPECT_EQ(parseOk("race:a/b/*.c\n").match(f), 0u);
  EXPECT_EQ(parseOk("race:^x$\n").match(f), 0u); // the variable
  EXPECT_EQ(parseOk("race:nomatch\nrace:race.c\n").match(f), 1u);
  EXPECT_FALSE(parseOk("race:^work$\n").match(f).has_value());
  EXPECT_FALSE(parseOk("deadlock:worker\n").match(f).has_value());
  EXPECT_FALSE(parseOk("property:worker\n").match(f).has_value());
}

TEST(Suppressions, TSanFilesWorkAsTheyAre) {
  trace::Trace t = testutil::parse(testutil::kRaceTrace);
  Finding f = testutil::raceOf(t);
  // race_top: the accesses' own frames (function, file), not the variable.
  Suppressions top = parseOk("race_top:worker\n");
  EXPECT_EQ(top.match(f), 0u);
  EXPECT_EQ(top.rules()[0].text(), "race_top:worker");
  EXPECT_EQ(parseOk("race_top:race.c$\n").match(f), 0u);
  EXPECT_FALSE(parseOk("race_top:^x$\n").match(f).has_value());
  // What racepredict never reports: accepted, ignored, each with a warning.
  Suppressions tsan = parseOk("# from our TSan setup\n"
                              "called_from_lib:libzmq.so\n"
                              "thread:pool_start\nmutex:^legacy_\n"
                              "signal:on_sigterm\nrace:worker\n");
  ASSERT_EQ(tsan.rules().size(), 1u);
  EXPECT_EQ(tsan.match(f), 0u);
  EXPECT_EQ(tsan.warnings(),
            (std::vector<std::string>{
                "supp.txt:2: warning: 'called_from_lib:libzmq.so' ignored: "
                "calls from libraries not built with racepredict-cc are "
                "never recorded",
                "supp.txt:3: warning: 'thread:pool_start' ignored: racepredict "
                "reports no thread leaks",
                "supp.txt:4: warning: 'mutex:^legacy_' ignored: racepredict "
                "reports no mutex misuse",
                "supp.txt:5: warning: 'signal:on_sigterm' ignored: racepredict "
                "reports no signal-unsafe calls"}));
}

TEST(Suppressions, PropertyRulesMatchTheName) {
  Finding p;
  p.kind = FindingKind::Property;
  p.object = "open-before-read";
  Site s;
  s.function = "reader";
  p.sites = {s};
  EXPECT_EQ(parseOk("property:open-*\n").match(p), 0u);
  EXPECT_FALSE(parseOk("property:reader\n").match(p).has_value());
}

TEST(Suppressions, RemoveSuppressedFromAnAnalysis) {
  trace::Trace t = testutil::parse(testutil::kRaceTrace);
  solver::RaceResult r;
  r.races.push_back(
      {2, 4, analysis::WitnessSchedule({{0}, {1}, {3}, {2}, {4}})});
  solver::DeadlockResult d;
  EXPECT_EQ(removeSuppressed(parseOk("race:other\n"), t, r, &d), 0u);
  EXPECT_EQ(r.races.size(), 1u);
  EXPECT_EQ(removeSuppressed(parseOk("race:worker\n"), t, r, &d), 1u);
  EXPECT_TRUE(r.races.empty());
}
