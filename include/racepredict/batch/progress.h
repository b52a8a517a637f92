//===- batch/progress.h - One-line progress on a terminal -----------------===//
//
// "racepredict batch: 12/40 tests, 3 findings (2 new), 0:42" redrawn in
// place (carriage return) while stderr is a terminal, refreshed every
// second so the elapsed time moves; nothing at all in CI logs (no TTY), where
// only the final summary is printed. No progress-bar library is packaged in
// Debian (PLATFORM_NOTES), and one line needs none.
//
#pragma once

#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace racepredict::batch {

class Progress {
public:
  /// The line for these counts (`findings`: what the caller counts besides).
  using Format = std::function<std::string(size_t done, size_t total,
                                           size_t findings, double elapsed)>;
  /// `enabled` false makes every call a no-op. `analyze` passes a format of
  /// its own (candidates decided, unknown).
  Progress(bool enabled, size_t total, std::FILE *out = stderr,
           Format format = &Progress::format);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// stderr is a terminal (and TERM is not "dumb").
  static bool stderrIsTerminal();

  /// Thread-safe: one more test finished with these findings.
  void testDone(size_t findings);
  /// Sets the counts (Slurm: polled from the tasks' partial results).
  /// With `total`, a new total too (analyze: the candidates left change).
  void set(size_t done, size_t findings,
           std::optional<size_t> total = std::nullopt);
  /// Clears the line for good (before the summary).
  void finish();

  /// The progress text for these counts (exposed for tests).
  static std::string format(size_t done, size_t total, size_t findings,
                            double elapsed);

private:
  void draw();
  bool enabled_;
  size_t total_, done_ = 0, findings_ = 0;
  std::FILE *out_;
  Format format_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread ticker_;
  double start_;
};

} // namespace racepredict::batch
