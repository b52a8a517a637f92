//===- run_step_test.cpp - The `racepredict run` command line and its log -===//
#include "racepredict/batch/run_step.h"

#include <gtest/gtest.h>

using namespace racepredict::batch;

TEST(RunStep, LogOfANormalRun) {
  RunLog l = parseRunLog("racepredict run: recording /p/prog\n"
                         "hello from the program\n"
                         "racepredict run: 13 events, 2 predicted findings; "
                         "replaying each\n");
  EXPECT_EQ(l.ran, "exit status 0");
  EXPECT_FALSE(l.programFailed);
  EXPECT_FALSE(l.crashed);
  EXPECT_TRUE(l.replaying);
  EXPECT_EQ(l.error, "");
}

TEST(RunStep, LogOfAFailingProgram) {
  RunLog l = parseRunLog("racepredict run: recording /p/prog\n"
                         "racepredict run: note: the program exited with "
                         "status 3\n");
  EXPECT_EQ(l.ran, "exit status 3");
  EXPECT_TRUE(l.programFailed);
  EXPECT_FALSE(l.replaying); // no finding: nothing to replay
}

TEST(RunStep, LogOfACrashWhileRecording) {
  RunLog l = parseRunLog(
      "racepredict run: recording /p/prog\n"
      "status 1: giving up\n"
      "racepredict: the program was killed by signal 6 (Aborted) while "
      "recording; nothing was analysed or replayed. The trace is kept: "
      "/w/t.rptrace\n");
  EXPECT_EQ(l.ran, "signal 6 (Aborted)");
  EXPECT_TRUE(l.crashed);
  EXPECT_TRUE(l.programFailed);
  EXPECT_EQ(l.error.rfind("the program was killed by signal 6", 0), 0u);
}

TEST(RunStep, LogOfAnInputError) {
  RunLog l = parseRunLog("racepredict: the program wrote no trace (exit "
                         "status 0); was it built with racepredict-cc?\n");
  EXPECT_FALSE(l.crashed);
  EXPECT_EQ(l.error, "the program wrote no trace (exit status 0); was it "
                     "built with racepredict-cc?");
  EXPECT_EQ(l.ran, "exit status 0");
  EXPECT_FALSE(l.programFailed);
  l = parseRunLog("racepredict: the program wrote no trace (exit status "
                  "127); was it built with racepredict-cc?\n");
  EXPECT_EQ(l.ran, "exit status 127");
  EXPECT_TRUE(l.programFailed);
}

TEST(RunStep, CommandLine) {
  StepConfig cfg;
  cfg.racepredict = "/rp/racepredict";
  cfg.analyzeFlags = {"--deadlocks", "--timeout-ms", "100"};
  cfg.replayFlags = {"--step-timeout-ms", "1500"};
  EXPECT_EQ(
      runArgv(cfg, "/w/0-t", "/w/0-t/t.rptrace", {"./t", "a b"}),
      (std::vector<std::string>{
          "/rp/racepredict", "run", "--format", "json", "--report-all", "-o",
          "/w/0-t/run.json", "--trace-out", "/w/0-t/t.rptrace", "--witness-dir",
          "/w/0-t/witnesses", "--deadlocks", "--timeout-ms", "100",
          "--step-timeout-ms", "1500", "--", "./t", "a b"}));
}

TEST(RunStep, ReproduceCommandKeepsDirectoryAndEnvironment) {
  TestSpec s;
  s.cwd = "/src/it's";
  s.env = {"MODE=racy", "A=b c"};
  EXPECT_EQ(reproduceCommand(s, {"./t", "x y"}, "/rp/racepredict",
                             "/w/race-1-2.json"),
            "cd '/src/it'\\''s' && env 'MODE=racy' 'A=b c' "
            "'/rp/racepredict' replay --schedule '/w/race-1-2.json' -- "
            "'./t' 'x y'");
  s.cwd.clear();
  s.env.clear();
  EXPECT_EQ(reproduceCommand(s, {"/b/t"}, "rp", "w.json"),
            "'rp' replay --schedule 'w.json' -- '/b/t'");
}
