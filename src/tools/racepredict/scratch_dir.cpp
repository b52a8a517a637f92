//===- tools/racepredict/scratch_dir.cpp - A work directory that never leaks
//===//
#include "scratch_dir.h"

#include "program_input.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

namespace racepredict::tool {
namespace {

/// The janitor: sleeps on the pipe until the parent writes (it cleans up
/// itself, or keeps the directory) or dies (EOF: the pipe's last writer is
/// gone), then removes the directory in the second case.
[[noreturn]] void janitor(int readFd, const std::string &dir) {
  // Ctrl-C, a job's SIGTERM and `kill -9 -PGID` reach the whole process
  // group: the janitor must outlive its parent to do its work.
  setsid();
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE})
    std::signal(sig, SIG_IGN);
  // Hold nothing of the parent's open: a caller reading our stdout to EOF
  // (batch, a CI log) must not wait for the janitor.
  int null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd)
    dup2(null, fd);
  // One call per range, not one close per possible descriptor (the limit
  // can be a million in a container).
  auto rd = static_cast<unsigned>(readFd);
  if (rd > 3)
    close_range(3, rd - 1, 0);
  close_range(rd + 1, ~0u, 0);
  char c;
  ssize_t r;
  do
    r = read(readFd, &c, 1);
  while (r < 0 && errno == EINTR);
  if (r == 0)
    removeTree(dir);
  _exit(0);
}

constexpr const char *kOwner = "/.owner";

/// Locks `dir`'s owner file for as long as the returned descriptor (or a
/// copy in a forked process) stays open; -1 if that fails. The lock is
/// taken on a file of another name, which is then renamed: a sweeper never
/// sees an `.owner` that is not locked yet.
int lockOwner(const std::string &dir) {
  std::string tmp = dir + "/.owner-new";
  int fd = open(tmp.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  if (flock(fd, LOCK_EX) != 0 ||
      rename(tmp.c_str(), (dir + kOwner).c_str()) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/// Removes the racepredict work directories under `tmp` whose owner is
/// gone (its lock is free): what a janitor that died too left behind.
void sweepStale(const std::string &tmp) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind("racepredict-", 0) != 0 || !it->is_directory(ec))
      continue;
    std::string owner = it->path().string() + kOwner;
    int fd = open(owner.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
      continue; // not ours, or from before the owner files
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
      removeTree(it->path().string());
    close(fd);
  }
}

} // namespace

Expected<std::unique_ptr<ScratchDir>>
ScratchDir::create(const std::string &prefix) {
  auto dir = makeWorkDir(prefix);
  if (!dir)
    return dir.error();
  int ownerFd = lockOwner(*dir);
  sweepStale(std::filesystem::path(*dir).parent_path().string());
  int fds[2];
  pid_t pid = -1;
  if (pipe2(fds, O_CLOEXEC) == 0) {
    pid = fork();
    if (pid == 0)
      janitor(fds[0], *dir);
    close(fds[0]);
    if (pid < 0) {
      close(fds[1]);
      fds[1] = -1;
    }
  } else {
    fds[1] = -1;
  }
  // Without a janitor (no pipe or no fork) only normal ends clean up.
  return std::unique_ptr<ScratchDir>(
      new ScratchDir(*dir, ownerFd, fds[1], pid));
}

ScratchDir::~ScratchDir() {
  if (doneFd_ >= 0) {
    char done = 'd';
    ssize_t w = write(doneFd_, &done, 1);
    (void)w; // if it failed, the janitor sees EOF and removes: also fine
    close(doneFd_);
  }
  if (janitor_ > 0) {
    int status;
    while (waitpid(janitor_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (!keep_)
    removeTree(path_);
  else // the user's now: no owner file, so no sweeper removes it
    unlink((path_ + kOwner).c_str());
  if (ownerFd_ >= 0)
    close(ownerFd_);
}

} // namespace racepredict::tool
