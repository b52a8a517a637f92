//===- report/baseline.h - Known findings of an earlier run ---------------===//
//
// A baseline is the set of finding signatures (report/signature.h) a
// nightly run accepted; the next run reports only findings whose signature
// is not in it. Stored as JSON sorted by signature, one finding per entry
// with its message and tests, so a reviewer can read a baseline's diff.
//
#pragma once

#include "racepredict/support/error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace racepredict::report {

struct BaselineEntry {
  std::string kind;
  std::string message;
  std::set<std::string> tests;
};

class Baseline {
public:
  /// Errors name the file and, for malformed JSON, the line and column.
  static Expected<Baseline> load(const std::string &path);
  Expected<bool> write(const std::string &path) const;

  bool contains(const std::string &signature) const {
    return entries_.count(signature) != 0;
  }
  /// Adds (or extends the test list of) a signature.
  void add(const std::string &signature, const BaselineEntry &e);
  size_t size() const { return entries_.size(); }
  const std::map<std::string, BaselineEntry> &entries() const {
    return entries_;
  }

private:
  std::map<std::string, BaselineEntry> entries_;
};

} // namespace racepredict::report
