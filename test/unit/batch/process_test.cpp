//===- process_test.cpp - Exit codes, signals, time-outs, environment -----===//
#include "racepredict/batch/process.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <signal.h>
#include <unistd.h>

using namespace racepredict::batch;

namespace {

ProcessSpec shell(const std::string &script, const std::string &out = "") {
  ProcessSpec p;
  p.argv = {"/bin/sh", "-c", script};
  p.env = environmentWith({});
  p.outputPath = out;
  return p;
}

std::string tempPath(const char *name) {
  return ::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
}

} // namespace

TEST(Process, ExitStatusAndOutput) {
  std::string out = tempPath("out.txt");
  ProcessResult r = runProcess(shell("echo hello; echo err >&2; exit 3", out));
  EXPECT_EQ(r.status, ProcessResult::Status::Exited);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.describe(), "exit status 3");
  EXPECT_EQ(fileTail(out, 100), "hello\nerr\n");
  EXPECT_EQ(fileTail(out, 4), "err\n"); // whole lines only
  std::remove(out.c_str());
}

TEST(Process, Signal) {
  ProcessResult r = runProcess(shell("kill -SEGV $$"));
  EXPECT_EQ(r.status, ProcessResult::Status::Signaled);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.describe(), "signal 11 (Segmentation fault)");
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  std::string pidFile = tempPath("child.pid");
  // The child ignores SIGTERM; the grandchild is in the same group.
  ProcessSpec p =
      shell("trap '' TERM; sleep 100 & echo $! > " + pidFile + "; wait");
  p.deadline = Clock::now() + std::chrono::milliseconds(300);
  p.killGrace = std::chrono::milliseconds(200);
  ProcessResult r = runProcess(p);
  EXPECT_EQ(r.status, ProcessResult::Status::TimedOut);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(r.seconds, 5.0);
  pid_t grandchild = 0;
  std::ifstream(pidFile) >> grandchild;
  ASSERT_GT(grandchild, 0);
  // Killed with its group (it may linger a moment as a zombie of init).
  for (int i = 0; i < 100 && kill(grandchild, 0) == 0; ++i)
    usleep(10000);
  std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
  std::string pid, comm, state;
  stat >> pid >> comm >> state;
  EXPECT_TRUE(!stat || state == "Z") << state;
  std::remove(pidFile.c_str());
}

TEST(Process, SpawnFailureSaysWhy) {
  ProcessSpec p;
  p.argv = {"/nonexistent/prog"};
  p.cwd = "/";
  p.env = environmentWith({});
  ProcessResult r = runProcess(p);
  EXPECT_EQ(r.status, ProcessResult::Status::SpawnFailed);
  EXPECT_EQ(r.error,
            "cannot run '/nonexistent/prog' in '/': No such file or directory");
}

TEST(Process, EnvironmentAndWorkingDirectory) {
  std::string out = tempPath("env.txt");
  ProcessSpec p = shell("echo \"$RP_A $RP_B\"; pwd", out);
  p.env = environmentWith({"RP_A=1", "RP_B=x=y"});
  p.cwd = "/usr";
  EXPECT_TRUE(runProcess(p).ok());
  EXPECT_EQ(fileTail(out, 100), "1 x=y\n/usr\n");
  EXPECT_EQ(envValue(p.env, "RP_B"), "x=y");
  EXPECT_EQ(envValue(p.env, "RP_NONE"), "");
  auto env = environmentWith({"RP_A=1", "RP_A=2"});
  EXPECT_EQ(envValue(env, "RP_A"), "2");
  std::remove(out.c_str());
}
