//===- replay/runner.cpp - Run the program under record or replay ---------===//
#include "racepredict/replay/runner.h"

#include "racepredict/abi/replay.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <signal.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace racepredict::replay {
namespace {

std::string optionName(const std::string &entry) {
  return entry.substr(0, entry.find('='));
}

bool hasVerdict(const std::string &path) {
  std::ifstream in(path);
  std::string key;
  return in && (in >> key) && key == "verdict";
}

} // namespace

std::string composeOptions(const char *userOptions,
                           const std::vector<std::string> &ours) {
  std::vector<std::string> names;
  for (const auto &o : ours)
    names.push_back(optionName(o));
  std::string out;
  std::string user = userOptions ? userOptions : "";
  size_t b = 0;
  while (b <= user.size() && !user.empty()) {
    size_t e = user.find(':', b);
    if (e == std::string::npos)
      e = user.size();
    std::string entry = user.substr(b, e - b);
    bool replaced = false;
    for (const auto &n : names)
      replaced |= optionName(entry) == n;
    if (!entry.empty() && !replaced && optionName(entry) != "help")
      out += (out.empty() ? "" : ":") + entry;
    b = e + 1;
  }
  for (const auto &o : ours)
    out += (out.empty() ? "" : ":") + o;
  return out;
}

Expected<std::string> resolveProgram(const std::string &name) {
  auto executable = [](const std::string &p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (!executable(name))
      return Error{"cannot execute '" + name + "'"};
    return name;
  }
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t b = 0;
  while (b <= dirs.size()) {
    size_t e = dirs.find(':', b);
    if (e == std::string::npos)
      e = dirs.size();
    std::string dir = e > b ? dirs.substr(b, e - b) : ".";
    if (executable(dir + "/" + name))
      return dir + "/" + name;
    b = e + 1;
  }
  return Error{"cannot find the program '" + name + "' on PATH"};
}

Expected<RunOutcome> runProgram(const RunSpec &spec) {
  if (spec.argv.empty())
    return Error{"no program to run"};
  auto prog = resolveProgram(spec.argv[0]);
  if (!prog)
    return prog.error();
  // Everything the child needs is prepared before fork: between fork and
  // exec a multi-threaded parent's child may only make async-signal-safe
  // calls.
  std::vector<std::string> envStore;
  for (char **e = environ; *e; ++e)
    if (std::strncmp(*e, "RACEPREDICT_OPTIONS=", 20) != 0)
      envStore.emplace_back(*e);
  envStore.push_back(
      "RACEPREDICT_OPTIONS=" +
      composeOptions(std::getenv("RACEPREDICT_OPTIONS"), spec.options));
  std::vector<char *> envp, argv;
  for (auto &s : envStore)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argStore = spec.argv;
  for (auto &s : argStore)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  std::string in = spec.stdinFile.empty() ? "/dev/null" : spec.stdinFile;
  int inFd = open(in.c_str(), O_RDONLY | O_CLOEXEC);
  if (inFd < 0)
    return Error{"cannot open the input file '" + in + "'"};
  int outFd = -1;
  if (!spec.outputFile.empty()) {
    outFd = open(spec.outputFile.c_str(),
                 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (outFd < 0) {
      close(inFd);
      return Error{"cannot create '" + spec.outputFile + "'"};
    }
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(inFd);
    if (outFd >= 0)
      close(outFd);
    return Error{std::string("fork failed: ") + std::strerror(errno)};
  }
  if (pid == 0) {
    if (!spec.keepAslr)
      personality(ADDR_NO_RANDOMIZE); // best effort (seccomp may refuse)
    dup2(inFd, 0);
    if (outFd >= 0) {
      dup2(outFd, 1);
      dup2(outFd, 2);
    } else if (spec.stdoutToStderr) {
      dup2(2, 1);
    }
    execve(prog->c_str(), argv.data(), envp.data());
    const char msg[] = "racepredict: cannot execute the program\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  close(inFd);
  if (outFd >= 0)
    close(outFd);
  RunOutcome out;
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  auto verdictSeen = clock::time_point::max();
  auto interruptSeen = clock::time_point::max();
  auto forwardAt = clock::time_point::max(); // the interrupt's SIGTERM
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid)
      break;
    if (r < 0 && errno != EINTR)
      return Error{std::string("waitpid failed: ") + std::strerror(errno)};
    auto now = clock::now();
    double elapsed = std::chrono::duration<double>(now - start).count();
    if (spec.interrupt && spec.interrupt->load() &&
        interruptSeen == clock::time_point::max()) {
      interruptSeen = now;
      out.interrupted = true;
      // A program in our process group got the terminal's Ctrl-C too, and
      // its recorder ends the trace naming SIGINT: SIGTERM at once raced
      // that (another thread's SIGTERM handler claimed the ending first and
      // the trace said 15, 2 of 30 runs at load 10), so it gets a second
      // to end by itself first.
      if (getpgid(pid) == getpgrp())
        forwardAt = now + std::chrono::seconds(1);
      else
        forwardAt = now;
    }
    if (now >= forwardAt) {
      kill(pid, SIGTERM);
      forwardAt = clock::time_point::max();
    }
    if (interruptSeen != clock::time_point::max() &&
        std::chrono::duration<double>(now - interruptSeen).count() >
            spec.interruptGraceSeconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    if (!spec.verdictFile.empty() && verdictSeen == clock::time_point::max() &&
        hasVerdict(spec.verdictFile))
      verdictSeen = now;
    bool graceOver = spec.graceSeconds >= 0 &&
                     verdictSeen != clock::time_point::max() &&
                     std::chrono::duration<double>(now - verdictSeen).count() >
                         spec.graceSeconds;
    if ((spec.timeoutSeconds > 0 && elapsed > spec.timeoutSeconds) ||
        graceOver) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      out.timedOut = !graceOver;
      out.killedByUs = graceOver;
      break;
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(elapsed < 1 ? 2 : 10));
  }
  out.exited = WIFEXITED(status);
  out.exitCode = out.exited ? WEXITSTATUS(status) : 0;
  out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return out;
}

const char *verdictName(Verdict v) {
  switch (v) {
  case Verdict::Confirmed:
    return RP_VERDICT_CONFIRMED;
  case Verdict::Diverged:
    return RP_VERDICT_DIVERGED;
  default:
    return RP_VERDICT_NOT_REPRODUCED;
  }
}

Expected<ReplayResult> readReplayResult(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return Error{"no replay result file '" + path + "'"};
  ReplayResult r;
  std::string line;
  while (std::getline(in, line)) {
    size_t sp = line.find(' ');
    std::string key = line.substr(0, sp);
    std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "observe")
      r.observations.push_back(value);
    else
      r.fields[key] = value;
  }
  auto v = r.fields.find("verdict");
  if (v == r.fields.end())
    return Error{"the replay result file '" + path + "' has no verdict"};
  if (v->second == RP_VERDICT_CONFIRMED)
    r.verdict = Verdict::Confirmed;
  else if (v->second == RP_VERDICT_DIVERGED)
    r.verdict = Verdict::Diverged;
  else if (v->second == RP_VERDICT_NOT_REPRODUCED)
    r.verdict = Verdict::NotReproduced;
  else if (v->second == RP_VERDICT_REACHED)
    r.reached = true;
  else
    return Error{"the replay result file '" + path +
                 "' has an unknown verdict '" + v->second + "'"};
  r.message = r.fields["message"];
  r.location = r.fields["location"];
  r.variable = r.fields["variable"];
  r.step = static_cast<uint32_t>(
      std::strtoul(r.fields["step"].c_str(), nullptr, 10));
  r.steps = static_cast<uint32_t>(
      std::strtoul(r.fields["steps"].c_str(), nullptr, 10));
  return r;
}

} // namespace racepredict::replay
