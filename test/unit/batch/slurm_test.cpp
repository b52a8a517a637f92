//===- slurm_test.cpp - Chunks, the job script, partial results -----------===//
#include "racepredict/batch/progress.h"
#include "racepredict/batch/slurm.h"

#include <gtest/gtest.h>

#include <unistd.h>

using namespace racepredict::batch;

TEST(Slurm, ChunksAreConsecutiveAndCoverEveryTest) {
  std::vector<TestSpec> t(7);
  for (size_t i = 0; i < t.size(); ++i)
    t[i].name = "t" + std::to_string(i);
  auto c = chunkTests(t, 3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].size(), 3u);
  EXPECT_EQ(c[2].size(), 1u);
  EXPECT_EQ(c[2][0].name, "t6");
  EXPECT_EQ(chunkTests(t, 0).size(), 7u); // at least one test per chunk
  EXPECT_EQ(chunkTests(t, 100).size(), 1u);
}

TEST(Slurm, JobScriptRunsTheTaskChunkWithQuotedArguments) {
  SlurmConfig cfg;
  cfg.workDir = "/shared/it's here";
  cfg.racepredict = "/opt/rp/racepredict";
  cfg.taskArgs = {"--deadlocks", "-j", "2"};
  EXPECT_EQ(sbatchScript(cfg),
            "#!/bin/sh\n"
            "# Written by `racepredict batch --slurm`: array task I analyses "
            "chunk-I.json.\n"
            "set -e\n"
            "i=\"$SLURM_ARRAY_TASK_ID\"\n"
            "exec '/opt/rp/racepredict' batch --specs '/shared/it'\\''s "
            "here'/chunk-\"$i\".json --partial '/shared/it'\\''s "
            "here'/partial-\"$i\".json --work-dir '/shared/it'\\''s "
            "here'/task-\"$i\" --no-progress '--deadlocks' '-j' '2'\n");
}

TEST(Slurm, PartialResultsRoundTrip) {
  std::string path =
      ::testing::TempDir() + "/" + std::to_string(getpid()) + "-partial.json";
  std::vector<TestResult> tests(2);
  tests[0].spec.name = "a";
  tests[1].spec.name = "b";
  tests[1].status = kStatusError;
  tests[1].reason = "boom";
  ASSERT_TRUE(static_cast<bool>(writePartial(path, tests)));
  auto back = readPartial(path);
  ASSERT_TRUE(static_cast<bool>(back)) << back.error().message;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].reason, "boom");
  auto specs = readSpecs(path);
  ASSERT_FALSE(static_cast<bool>(specs));
  EXPECT_EQ(specs.error().message,
            path + ": not a racepredict batch-chunk file");
  std::remove(path.c_str());
}

TEST(Progress, Format) {
  EXPECT_EQ(Progress::format(3, 10, 1, 75.4),
            "racepredict batch: 3/10 tests done, 1 finding so far, 1:15 "
            "elapsed");
  EXPECT_EQ(Progress::format(0, 2, 0, 0),
            "racepredict batch: 0/2 tests done, 0 findings so far, 0:00 "
            "elapsed");
}
