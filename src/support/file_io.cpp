//===- support/file_io.cpp - Opening inputs, checked writes of outputs ----===//
#include "racepredict/support/file_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace racepredict {

namespace {

std::string reason(int err) {
  return err ? std::string(": ") + std::strerror(err) : std::string();
}

} // namespace

Expected<std::ifstream> openInput(const std::string &path,
                                  const std::string &what,
                                  std::ios::openmode mode) {
  // A directory opens fine as an ifstream on Linux and then reads as an
  // error "after line 0": name it for what it is before opening.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Error{"'" + path + "' is a directory, not a " + what};
  errno = 0;
  std::ifstream in(path, mode);
  if (!in)
    return Error{"cannot open " + what + " '" + path + "'" + reason(errno)};
  return in;
}

std::string writeErrorMessage(const std::string &what, const std::string &path,
                              int err) {
  return "cannot write " + what + " '" + path + "'" + reason(err);
}

std::streambuf *rawStandardOutput() {
  std::streambuf *b = std::cout.rdbuf();
  if (auto *f = dynamic_cast<Utf8Filter *>(b))
    return f->underlying();
  return b;
}

Expected<OutputFile> OutputFile::open(const std::string &path,
                                      const std::string &what, Kind kind) {
  OutputFile f(path, what);
  if (path == "-") {
    if (kind == Kind::Binary) {
      f.own_ = std::make_unique<std::ostream>(rawStandardOutput());
      f.stream_ = f.own_.get();
    } else {
      f.stream_ = &std::cout;
    }
    return f;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Error{"cannot write " + what + " '" + path + "': it is a directory"};
  errno = 0;
  f.file_ = std::make_unique<std::ofstream>(
      path, kind == Kind::Binary ? std::ios::binary | std::ios::trunc
                                 : std::ios::out | std::ios::trunc);
  if (!*f.file_)
    return Error{writeErrorMessage(what, path, errno)};
  if (kind == Kind::Text)
    f.buf_ = std::make_unique<Utf8Filter>(f.file_->rdbuf());
  else
    f.buf_ = std::make_unique<ForwardingBuf>(f.file_->rdbuf());
  f.own_ = std::make_unique<std::ostream>(f.buf_.get());
  f.stream_ = f.own_.get();
  return f;
}

Expected<bool> OutputFile::finish() {
  if (!file_) {
    stream_->flush();
    bool lost = stream_->fail();
    auto out = finishStandardOutput();
    if (out && lost)
      return Error{"cannot write to standard output"};
    return out;
  }
  if (auto *filter = dynamic_cast<Utf8Filter *>(buf_.get()))
    filter->flushPending();
  stream_->flush();
  bool ok = !stream_->fail() && static_cast<bool>(*file_);
  int err = buf_->writeErrno();
  errno = 0;
  file_->close();
  if (ok && file_->fail()) {
    ok = false;
    err = errno;
  }
  if (!ok)
    return Error{writeErrorMessage(what_, path_, err)};
  return true;
}

Expected<bool> writeWholeFile(const std::string &path, const std::string &what,
                              const std::string &content) {
  auto f = OutputFile::open(path, what, OutputFile::Kind::Binary);
  if (!f)
    return f.error();
  f->stream() << content;
  return f->finish();
}

Expected<bool> finishStandardOutput() {
  // std::cout writes through C stdio (sync_with_stdio): a failed write
  // leaves stdout's error flag set, whatever the stream's state says.
  auto *filter = dynamic_cast<Utf8Filter *>(std::cout.rdbuf());
  if (filter)
    filter->flushPending();
  errno = 0;
  std::cout.flush();
  int err = errno;
  int rc = std::fflush(stdout);
  if (!err)
    err = errno;
  // A write that failed earlier (a full stdio buffer) knows the reason.
  if (filter && filter->writeErrno())
    err = filter->writeErrno();
  // The loss is reported once: by the command whose report it was, or by
  // the tool's final check.
  static bool reported = false;
  if ((rc != 0 || std::ferror(stdout) || std::cout.fail()) && !reported) {
    reported = true;
    return Error{"cannot write to standard output" + reason(err)};
  }
  return true;
}

} // namespace racepredict
