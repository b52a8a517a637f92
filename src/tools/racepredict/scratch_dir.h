//===- tools/racepredict/scratch_dir.h - A work directory that never leaks
//-===//
//
// `run` and `replay` keep traces, schedules and the program's stdin in a
// private directory under $TMPDIR. CI kills a job that runs too long, users
// press Ctrl-C: a directory left behind each time (a trace can be hundreds
// of megabytes) fills /tmp over a month of nightly runs (40 GB after a day
// of outside test suites). So the directory is removed however the command
// ends: by the destructor on every normal path, and by a janitor process
// when the command dies any other way (a signal, even SIGKILL). The janitor
// runs in a session of its own, so that killing the command's whole
// process group does not kill it too. Should it die anyway, the next
// command removes the directory: each one holds a lock on its `.owner` file
// (flock, released by the kernel when the holders are gone), and create()
// removes every racepredict directory whose lock nobody holds.
//
#pragma once

#include "racepredict/support/error.h"

#include <memory>
#include <string>
#include <sys/types.h>

namespace racepredict::tool {

class ScratchDir {
public:
  /// Creates $TMPDIR/<prefix>-XXXXXX (or under /tmp) and its janitor. Call
  /// it before the process starts threads (the janitor is forked).
  static Expected<std::unique_ptr<ScratchDir>>
  create(const std::string &prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::string &path() const { return path_; }
  /// Keep the directory after a normal end (for the user to look at).
  void keep(bool k) { keep_ = k; }

private:
  ScratchDir(std::string path, int ownerFd, int doneFd, pid_t janitor)
      : path_(std::move(path)), ownerFd_(ownerFd), doneFd_(doneFd),
        janitor_(janitor) {}
  std::string path_;
  bool keep_ = false;
  int ownerFd_;   ///< the locked `.owner` file (-1: none)
  int doneFd_;    ///< write end of the janitor's pipe (-1: no janitor)
  pid_t janitor_; ///< the janitor process (-1: none)
};

} // namespace racepredict::tool
