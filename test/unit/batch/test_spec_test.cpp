//===- test_spec_test.cpp - CTest JSON, command files, filters ------------===//
#include "racepredict/batch/test_spec.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace racepredict::batch;

namespace {

std::string writeTemp(const std::string &name, const std::string &text) {
  std::string path =
      ::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST(CTestJson, CommandWorkingDirectoryEnvironmentDisabled) {
  auto j = nlohmann::json::parse(R"({
    "kind": "ctestInfo",
    "tests": [
      {"name": "a", "command": ["/b/a", "--x"],
       "properties": [{"name": "WORKING_DIRECTORY", "value": "/w"},
                      {"name": "ENVIRONMENT", "value": ["K=V", "L=1"]},
                      {"name": "TIMEOUT", "value": 30}]},
      {"name": "off", "command": ["/b/off"],
       "properties": [{"name": "DISABLED", "value": true}]},
      {"name": "unbuilt"}
    ]})");
  auto tests = parseCTestJson(j, "ctest");
  ASSERT_TRUE(static_cast<bool>(tests)) << tests.error().message;
  ASSERT_EQ(tests->size(), 3u);
  const TestSpec &a = (*tests)[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.command, (std::vector<std::string>{"/b/a", "--x"}));
  EXPECT_EQ(a.cwd, "/w");
  EXPECT_EQ(a.env, (std::vector<std::string>{"K=V", "L=1"}));
  EXPECT_EQ(a.skipReason, "");
  EXPECT_EQ((*tests)[1].skipReason, "disabled in CTest (DISABLED property)");
  EXPECT_EQ((*tests)[2].skipReason,
            "CTest has no command for it (executable not built?)");
}

TEST(CTestJson, NotCTestOutput) {
  auto r = parseCTestJson(nlohmann::json::parse(R"({"x": 1})"), "out.json");
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().message, "out.json: no \"tests\" array (is this `ctest "
                               "--show-only=json-v1` output?)");
}

TEST(CommandsFile, NamesCommentsAndShell) {
  std::string path =
      writeTemp("cmds.txt", "# nightly\n\n[fast one] ./a --x\n./bin/b\n"
                            "  ./bin/b 2   \n/usr/bin/env X=1 c\n");
  auto tests = parseCommandsFile(path);
  ASSERT_TRUE(static_cast<bool>(tests)) << tests.error().message;
  ASSERT_EQ(tests->size(), 4u);
  EXPECT_EQ((*tests)[0].name, "fast one");
  EXPECT_EQ((*tests)[0].command,
            (std::vector<std::string>{"/bin/sh", "-c", "./a --x"}));
  EXPECT_EQ((*tests)[1].name, "b");
  EXPECT_EQ((*tests)[2].name, "b#2");
  EXPECT_EQ((*tests)[2].command[2], "./bin/b 2");
  EXPECT_EQ((*tests)[3].name, "env");
  EXPECT_EQ((*tests)[0].cwd,
            ::testing::TempDir().substr(0, ::testing::TempDir().size() - 1));
  std::remove(path.c_str());
}

TEST(CommandsFile, ErrorsNameFileAndLine) {
  auto err = [](const std::string &text) {
    std::string path = writeTemp("bad.txt", text);
    auto r = parseCommandsFile(path);
    std::remove(path.c_str());
    return r ? std::string("(parsed)") : r.error().message.substr(path.size());
  };
  EXPECT_EQ(err("[a ./x\n"), ":1: '[' without ']' (expected [NAME] COMMAND)");
  EXPECT_EQ(err("ok\n[] ./x\n"), ":2: empty test name in '[]'");
  EXPECT_EQ(err("[a]\n"), ":1: test 'a' has no command");
  EXPECT_EQ(err("[a] x\n[a] y\n"), ":2: test name 'a' is used twice");
  EXPECT_EQ(err("# only a comment\n"),
            ": no commands (one per line: [NAME] COMMAND)");
  auto missing = parseCommandsFile("/nonexistent/cmds");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(missing.error().message,
            "cannot open commands file '/nonexistent/cmds': No such file or "
            "directory");
}

TEST(Filter, IncludeExcludeAndBadRegex) {
  std::vector<TestSpec> t(4);
  t[0].name = "race_a";
  t[1].name = "race_b";
  t[2].name = "clean";
  t[3].name = "hang";
  auto r = filterTests(t, "race|hang", "^race_b$");
  ASSERT_TRUE(static_cast<bool>(r));
  std::vector<std::string> names;
  for (const auto &s : *r)
    names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"race_a", "hang"}));
  auto bad = filterTests(t, "(", "");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error().message.rfind("bad test name regex: ", 0), 0u);
}

TEST(Spec, JsonRoundTripAndFileNames) {
  TestSpec s;
  s.name = "a/b c";
  s.command = {"x", "y"};
  s.cwd = "/w";
  s.env = {"K=V"};
  s.skipReason = "why";
  auto back = specFromJson(nlohmann::json::parse(specJson(s).dump()));
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(specJson(*back).dump(), specJson(s).dump());
  EXPECT_EQ(fileSafeName("a/b c"), "a_b_c");
  EXPECT_EQ(fileSafeName(".."), "_..");
  EXPECT_EQ(fileSafeName("ok-1.2_x"), "ok-1.2_x");
}
