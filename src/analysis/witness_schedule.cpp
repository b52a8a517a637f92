//===- analysis/witness_schedule.cpp - A witness sharing its prefix -------===//
#include "racepredict/analysis/witness_schedule.h"

#include <algorithm>
#include <cassert>

namespace racepredict::analysis {

SharedSteps::SharedSteps(std::vector<Step> steps) : steps_(std::move(steps)) {
  firstHalf_ =
      static_cast<size_t>(std::find_if(steps_.begin(), steps_.end(),
                                       [](const Step &s) { return s.half; }) -
                          steps_.begin());
}

WitnessSchedule::WitnessSchedule(std::shared_ptr<const SharedSteps> base,
                                 size_t n, std::vector<Step> own)
    : base_(std::move(base)), shared_(n), own_(std::move(own)) {
  assert(shared_ == 0 || (base_ && shared_ <= base_->steps().size()));
  if (shared_ == 0)
    base_.reset(); // nothing shared: keep nothing alive
}

bool WitnessSchedule::hasHalf() const {
  return (base_ && base_->halfBefore(shared_)) ||
         std::any_of(own_.begin(), own_.end(),
                     [](const Step &s) { return s.half; });
}

std::vector<Step> WitnessSchedule::steps() const {
  std::vector<Step> out;
  out.reserve(size());
  if (base_)
    out.assign(base_->steps().begin(), base_->steps().begin() + shared_);
  out.insert(out.end(), own_.begin(), own_.end());
  return out;
}

std::vector<EventId> WitnessSchedule::events() const {
  std::vector<EventId> out;
  out.reserve(size());
  forEach([&](const Step &s) {
    if (!s.half)
      out.push_back(s.event);
  });
  return out;
}

WitnessSchedule WitnessSchedule::cut(size_t n) const {
  assert(n <= size());
  if (n <= shared_)
    return WitnessSchedule(base_, n);
  return WitnessSchedule(base_, shared_,
                         {own_.begin(), own_.begin() + (n - shared_)});
}

bool WitnessSchedule::operator==(const WitnessSchedule &o) const {
  if (size() != o.size())
    return false;
  for (size_t i = 0; i < size(); ++i)
    if (!((*this)[i] == o[i]))
      return false;
  return true;
}

} // namespace racepredict::analysis
