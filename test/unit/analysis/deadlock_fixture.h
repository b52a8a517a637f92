//===- deadlock_fixture.h - A text trace and its candidate search --------===//
//
// Shared by the deadlock candidate tests: a trace, its must-happen-before
// order, the candidates of findDeadlockCandidates and their events.
//
#pragma once

#include "racepredict/analysis/deadlock_candidates.h"

#include "trace_fixture.h"

#include <memory>

namespace racepredict::testsupport {

struct DeadlockFixture : TraceFixture {
  std::unique_ptr<analysis::MustHappenBefore> mhb;
  explicit DeadlockFixture(const std::string &text)
      : TraceFixture(text),
        mhb(std::make_unique<analysis::MustHappenBefore>(*idx)) {}
  std::vector<analysis::DeadlockCandidate>
  find(analysis::DeadlockCandidateOptions o = {},
       analysis::DeadlockCandidateStats *st = nullptr) {
    analysis::DeadlockCandidateStats local;
    return analysis::findDeadlockCandidates(*idx, *mhb, o, st ? st : &local);
  }
};

inline std::vector<uint32_t> events(const analysis::DeadlockCandidate &c) {
  std::vector<uint32_t> out;
  for (const auto &m : c.members)
    out.push_back(m.event);
  return out;
}

} // namespace racepredict::testsupport
