//===- solver/decision_progress.h - Candidates decided so far ---*- C++ -*-===//
//
// Issue 17: an analysis that runs longer than a few seconds says how far it
// is (candidates decided / total, unknown so far). The predictors count
// here; the command line draws the line (batch/progress.h). The total is
// what is still to be decided plus what has been: it shrinks when a group
// needs no more pairs (one race per source-location pair suffices) and
// grows when a group's further pairs are enumerated.
//
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>

namespace racepredict::solver {

struct DecisionProgress {
  size_t decided = 0, total = 0, unknown = 0;
};

using ProgressCallback = std::function<void(const DecisionProgress &)>;

/// Thread-safe counter that reports every change to an optional callback.
class DecisionCounter {
public:
  DecisionCounter(const ProgressCallback &report, size_t total)
      : report_(report) {
    p_.total = total;
    publish();
  }
  void decided(bool unknown) {
    update([&] {
      ++p_.decided;
      p_.unknown += unknown;
    });
  }
  void added(size_t n) {
    update([&] { p_.total += n; });
  }
  void skipped(size_t n) {
    update([&] { p_.total -= n; });
  }

private:
  template <class F> void update(F change) {
    if (!report_)
      return;
    std::lock_guard<std::mutex> lock(m_);
    change();
    report_(p_);
  }
  void publish() {
    if (report_)
      report_(p_);
  }
  const ProgressCallback &report_;
  std::mutex m_;
  DecisionProgress p_;
};

} // namespace racepredict::solver
