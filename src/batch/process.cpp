//===- batch/process.cpp - posix_spawn with a deadline and a process group ===//
#include "racepredict/batch/process.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace racepredict::batch {

std::string ProcessResult::describe() const {
  switch (status) {
  case Status::Exited:
    return "exit status " + std::to_string(exitCode);
  case Status::Signaled: {
    // sigdescr_np, unlike strsignal, is thread-safe (tests end in parallel).
    const char *d = sigdescr_np(signal);
    return "signal " + std::to_string(signal) +
           (d ? " (" + std::string(d) + ")" : "");
  }
  case Status::TimedOut:
    return "timed out after " + std::to_string(static_cast<long>(seconds)) +
           " s";
  case Status::SpawnFailed:
    return error;
  }
  return "";
}

std::vector<std::string>
environmentWith(const std::vector<std::string> &overrides) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    env.emplace_back(*e);
  for (const auto &o : overrides) {
    std::string key = o.substr(0, o.find('='));
    bool replaced = false;
    for (auto &e : env)
      if (e.compare(0, key.size() + 1, key + "=") == 0) {
        e = o;
        replaced = true;
      }
    if (!replaced)
      env.push_back(o);
  }
  return env;
}

std::string envValue(const std::vector<std::string> &env,
                     const std::string &key) {
  for (const auto &e : env)
    if (e.compare(0, key.size() + 1, key + "=") == 0)
      return e.substr(key.size() + 1);
  return "";
}

std::string fileTail(const std::string &path, size_t maxBytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    return "";
  std::streamoff size = in.tellg();
  std::streamoff from =
      size > static_cast<std::streamoff>(maxBytes) ? size - maxBytes : 0;
  // One byte more, to see whether `from` starts a line.
  std::streamoff readFrom = from > 0 ? from - 1 : 0;
  in.seekg(readFrom);
  std::string s(static_cast<size_t>(size - readFrom), '\0');
  in.read(&s[0], static_cast<std::streamsize>(s.size()));
  if (from > 0) {
    // Whole lines only: drop the partial first one.
    size_t nl = s.find('\n');
    s.erase(0, nl == std::string::npos ? s.size() : nl + 1);
  }
  return s;
}

namespace {

std::vector<char *> cStrings(std::vector<std::string> &v) {
  std::vector<char *> out;
  for (auto &s : v)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// Waits for `pid` until `until`; true when it ended (status in `st`).
bool waitUntil(pid_t pid, Clock::time_point until, int &st) {
  // Polling with a short sleep: there is no portable waitpid with a
  // time-out, and 10 ms is far below any test's run time.
  for (;;) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid)
      return true;
    if (r < 0 && errno != EINTR)
      return true;
    if (Clock::now() >= until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

} // namespace

ProcessResult runProcess(const ProcessSpec &spec) {
  ProcessResult res;
  auto start = Clock::now();
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  if (!spec.cwd.empty())
    posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  std::string out = spec.outputPath.empty() ? "/dev/null" : spec.outputPath;
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  // Own process group (pgid = pid): a time-out signals the whole group.
  posix_spawnattr_setpgroup(&attr, 0);
  // Default signal dispositions and an empty mask, whatever the caller had.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
  std::vector<std::string> argv = spec.argv, env = spec.env;
  auto cargv = cStrings(argv);
  auto cenv = cStrings(env);
  pid_t pid = -1;
  int rc = argv.empty() ? EINVAL
                        : posix_spawnp(&pid, cargv[0], &fa, &attr, cargv.data(),
                                       cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    res.error = "cannot run '" + (argv.empty() ? "" : argv[0]) + "'" +
                (spec.cwd.empty() ? "" : " in '" + spec.cwd + "'") + ": " +
                std::strerror(rc);
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  }
  int st = 0;
  if (!waitUntil(pid, spec.deadline, st)) {
    res.status = ProcessResult::Status::TimedOut;
    res.signal = SIGTERM;
    kill(-pid, SIGTERM);
    if (!waitUntil(pid, Clock::now() + spec.killGrace, st)) {
      res.signal = SIGKILL;
      kill(-pid, SIGKILL);
      waitpid(pid, &st, 0);
    }
    // Stragglers of the group that ignored SIGTERM.
    kill(-pid, SIGKILL);
  } else if (WIFEXITED(st)) {
    res.status = ProcessResult::Status::Exited;
    res.exitCode = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    res.status = ProcessResult::Status::Signaled;
    res.signal = WTERMSIG(st);
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return res;
}

} // namespace racepredict::batch
