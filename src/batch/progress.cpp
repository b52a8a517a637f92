//===- batch/progress.cpp - One-line terminal progress --------------------===//
#include "racepredict/batch/progress.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace racepredict::batch {

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

bool Progress::stderrIsTerminal() {
  const char *term = std::getenv("TERM");
  return isatty(2) && !(term && std::strcmp(term, "dumb") == 0);
}

std::string Progress::format(size_t done, size_t total, size_t findings,
                             double elapsed) {
  long s = static_cast<long>(elapsed);
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "racepredict batch: %zu/%zu tests done, %zu finding%s so far, "
                "%ld:%02ld elapsed",
                done, total, findings, findings == 1 ? "" : "s", s / 60,
                s % 60);
  return buf;
}

Progress::Progress(bool enabled, size_t total, std::FILE *out, Format format)
    : enabled_(enabled), total_(total), out_(out), format_(std::move(format)),
      start_(now()) {
  if (!enabled_)
    return;
  draw();
  ticker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(m_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::seconds(1));
      if (!stop_)
        draw();
    }
  });
}

Progress::~Progress() { finish(); }

void Progress::draw() {
  // "\r" + erase-to-end-of-line: the new text never leaves a longer tail.
  std::fprintf(out_, "\r\033[K%s",
               format_(done_, total_, findings_, now() - start_).c_str());
  std::fflush(out_);
}

void Progress::testDone(size_t findings) {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> lock(m_);
  ++done_;
  findings_ += findings;
  draw();
}

void Progress::set(size_t done, size_t findings, std::optional<size_t> total) {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> lock(m_);
  if (total)
    total_ = *total;
  done_ = done;
  findings_ = findings;
  draw();
}

void Progress::finish() {
  if (!enabled_)
    return;
  {
    std::lock_guard<std::mutex> lock(m_);
    if (stop_)
      return;
    stop_ = true;
  }
  cv_.notify_all();
  if (ticker_.joinable())
    ticker_.join();
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

} // namespace racepredict::batch
