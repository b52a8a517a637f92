//===- baseline_test.cpp - Baselines round-trip; bad files are named ------===//
#include "racepredict/report/baseline.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace racepredict::report;

namespace {

std::string tempPath(const char *name) {
  return ::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

} // namespace

TEST(Baseline, WriteThenLoad) {
  Baseline b;
  b.add("race|a.c:3:main|a.c:9:worker", {"race", "Data race on x", {"t1"}});
  b.add("race|a.c:3:main|a.c:9:worker", {"race", "Data race on x", {"t2"}});
  b.add("deadlock|d.c:6:a||d.c:5:a", {"deadlock", "Lock-order", {"t3"}});
  std::string path = tempPath("baseline.json");
  ASSERT_TRUE(static_cast<bool>(b.write(path)));
  auto back = Baseline::load(path);
  ASSERT_TRUE(static_cast<bool>(back)) << back.error().message;
  EXPECT_EQ(back->size(), 2u);
  EXPECT_TRUE(back->contains("race|a.c:3:main|a.c:9:worker"));
  EXPECT_TRUE(back->contains("deadlock|d.c:6:a||d.c:5:a"));
  EXPECT_FALSE(back->contains("race|a.c:3:main|a.c:10:worker"));
  EXPECT_EQ(back->entries().at("race|a.c:3:main|a.c:9:worker").tests,
            (std::set<std::string>{"t1", "t2"}));
  std::remove(path.c_str());
}

TEST(Baseline, BadFilesAreNamed) {
  std::string path = tempPath("bad-baseline.json");
  writeFile(path, "{\"kind\": \"baseline\", \"findings\": [ {\"x\": 1} ]}");
  auto noSig = Baseline::load(path);
  ASSERT_FALSE(static_cast<bool>(noSig));
  EXPECT_EQ(noSig.error().message,
            path + ": findings[0] has no \"signature\" string");
  writeFile(path, "{\"tool\": \"racepredict\"}");
  auto notBaseline = Baseline::load(path);
  ASSERT_FALSE(static_cast<bool>(notBaseline));
  EXPECT_NE(
      notBaseline.error().message.find(path + ": not a racepredict baseline"),
      std::string::npos);
  writeFile(path, "{\n \"kind\": \n");
  auto bad = Baseline::load(path);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(bad.error().message.find(path + ": not valid JSON"),
            std::string::npos);
  EXPECT_NE(bad.error().message.find("line 3"), std::string::npos)
      << bad.error().message;
  std::remove(path.c_str());
  auto missing = Baseline::load(path);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(missing.error().message,
            "cannot open baseline '" + path + "': No such file or directory");
}
