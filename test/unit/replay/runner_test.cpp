//===- runner_test.cpp - Options, programs and verdict files of replays ---===//
#include "racepredict/replay/runner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace racepredict;

namespace {

TEST(ReplayRunner, ComposeOptionsReplacesOursKeepsTheUsers) {
  EXPECT_EQ(replay::composeOptions("trace=a.rptrace:events=sync:replay=x",
                                   {"trace=b", "replay="}),
            "events=sync:trace=b:replay=");
  EXPECT_EQ(replay::composeOptions(nullptr, {"replay=s"}), "replay=s");
  EXPECT_EQ(replay::composeOptions("", {"replay=s"}), "replay=s");
  // help=1 would end the program before it runs: never passed on.
  EXPECT_EQ(replay::composeOptions("help=1:buffer=1m", {}), "buffer=1m");
  EXPECT_EQ(replay::composeOptions("verbose=1::", {"trace=t"}),
            "verbose=1:trace=t");
}

TEST(ReplayRunner, ResolveProgram) {
  auto sh = replay::resolveProgram("sh");
  ASSERT_TRUE(static_cast<bool>(sh)) << sh.error().message;
  EXPECT_NE(sh->find("/sh"), std::string::npos);
  auto missing = replay::resolveProgram("./no-such-program-here");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(missing.error().message, "cannot execute './no-such-program-here'");
  auto none = replay::resolveProgram("no-such-program-on-path-42");
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_EQ(none.error().message,
            "cannot find the program 'no-such-program-on-path-42' on PATH");
}

std::string writeTemp(const std::string &text) {
  char name[] = "/tmp/racepredict-result-XXXXXX";
  int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

TEST(ReplayRunner, ReadsResultFiles) {
  std::string p = writeTemp("verdict diverged\nkind race\nstep 5\nsteps 10\n"
                            "location a.c:27:3\nmessage t2 reached another "
                            "operation: it executed t2 rd\n");
  auto r = replay::readReplayResult(p);
  ASSERT_TRUE(static_cast<bool>(r)) << r.error().message;
  EXPECT_EQ(r->verdict, replay::Verdict::Diverged);
  EXPECT_EQ(r->step, 5u);
  EXPECT_EQ(r->steps, 10u);
  EXPECT_EQ(r->location, "a.c:27:3");
  EXPECT_EQ(r->message, "t2 reached another operation: it executed t2 rd");
  std::remove(p.c_str());

  std::string bad = writeTemp("kind race\n");
  auto e = replay::readReplayResult(bad);
  ASSERT_FALSE(static_cast<bool>(e));
  EXPECT_EQ(e.error().message,
            "the replay result file '" + bad + "' has no verdict");
  std::remove(bad.c_str());

  std::string odd = writeTemp("verdict maybe\n");
  auto o = replay::readReplayResult(odd);
  ASSERT_FALSE(static_cast<bool>(o));
  EXPECT_EQ(o.error().message, "the replay result file '" + odd +
                                   "' has an unknown verdict 'maybe'");
  std::remove(odd.c_str());
}

TEST(ReplayRunner, RunsWithStdinAndOptions) {
  std::string in = writeTemp("hello\n");
  char out[] = "/tmp/racepredict-out-XXXXXX";
  close(mkstemp(out));
  replay::RunSpec spec;
  spec.argv = {"sh", "-c", "read x; echo \"$x $RACEPREDICT_OPTIONS\"; exit 3"};
  spec.stdinFile = in;
  spec.outputFile = out;
  spec.options = {"replay=s"};
  auto r = replay::runProgram(spec);
  ASSERT_TRUE(static_cast<bool>(r)) << r.error().message;
  EXPECT_TRUE(r->exited);
  EXPECT_EQ(r->exitCode, 3);
  std::ifstream got(out);
  std::string line;
  std::getline(got, line);
  EXPECT_EQ(line.substr(0, 6), "hello ");
  EXPECT_NE(line.find("replay=s"), std::string::npos);
  std::remove(in.c_str());
  std::remove(out);
}

TEST(ReplayRunner, TimeoutKills) {
  replay::RunSpec spec;
  spec.argv = {"sleep", "10"};
  spec.timeoutSeconds = 0.2;
  auto r = replay::runProgram(spec);
  ASSERT_TRUE(static_cast<bool>(r)) << r.error().message;
  EXPECT_TRUE(r->timedOut);
  EXPECT_FALSE(r->exited);
  EXPECT_EQ(r->signal, 9);
}

} // namespace
