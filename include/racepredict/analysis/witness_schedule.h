//===- analysis/witness_schedule.h - A witness sharing its prefix ---------===//
//
// A witness schedule as the first `shared` steps of a sequence other
// witnesses share, then its own steps. With --all-pairs a closure starts
// from a checkpoint of the observed run (analysis/observed_prefix.h), so
// every step before the checkpoint is the same replay for every candidate
// starting there; a reused witness (analysis/witness_reuse.h) is a cut of
// another. Each race keeping all its steps made memory quadratic in the
// trace (issue 17: app 300K, ~11K races × ~150K steps, killed at 22.7 GB):
// the shared part is stored once, and consumers walk a witness (forEach) or
// expand it for one finding at a time, while writing it.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"

#include <memory>
#include <vector>

namespace racepredict::analysis {

/// Steps shared by several witnesses (never changed once shared).
class SharedSteps {
public:
  explicit SharedSteps(std::vector<Step> steps);
  const std::vector<Step> &steps() const { return steps_; }
  /// Whether one of the first `n` steps is a half.
  bool halfBefore(size_t n) const { return firstHalf_ < n; }

private:
  std::vector<Step> steps_;
  size_t firstHalf_; ///< the index of the first half, or steps_.size()
};

class WitnessSchedule {
public:
  WitnessSchedule() = default;
  /// A schedule sharing nothing.
  explicit WitnessSchedule(std::vector<Step> own) : own_(std::move(own)) {}
  /// The first `n` steps of `base`, then `own`.
  WitnessSchedule(std::shared_ptr<const SharedSteps> base, size_t n,
                  std::vector<Step> own = {});

  size_t size() const { return shared_ + own_.size(); }
  bool empty() const { return size() == 0; }
  Step operator[](size_t i) const {
    return i < shared_ ? base_->steps()[i] : own_[i - shared_];
  }
  Step back() const { return (*this)[size() - 1]; }
  /// Whether a step is a half (a wait's release, a barrier's arrival).
  bool hasHalf() const;

  /// `f(step)` for each step, in order.
  template <typename F> void forEach(F &&f) const {
    if (base_)
      for (size_t i = 0; i < shared_; ++i)
        f(base_->steps()[i]);
    for (const Step &s : own_)
      f(s);
  }
  /// Every step, expanded (one finding at a time: it costs its length).
  std::vector<Step> steps() const;
  /// The events in order: every step that is not a half.
  std::vector<EventId> events() const;

  /// Its first `n` steps, sharing what this one shares.
  WitnessSchedule cut(size_t n) const;
  void push_back(Step s) { own_.push_back(s); }

  const std::shared_ptr<const SharedSteps> &base() const { return base_; }
  size_t sharedLength() const { return shared_; }
  const std::vector<Step> &own() const { return own_; }

  /// The same steps, however they are shared.
  bool operator==(const WitnessSchedule &o) const;
  bool operator!=(const WitnessSchedule &o) const { return !(*this == o); }

private:
  std::shared_ptr<const SharedSteps> base_;
  size_t shared_ = 0;
  std::vector<Step> own_;
};

} // namespace racepredict::analysis
