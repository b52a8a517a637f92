//===- schedule_file_util.h - Parsing schedule text in the tests ---------===//
//
// What schedule_file_test.cpp and schedule_file_deadlock_test.cpp share: the
// runtime's parser on a string, and a malformed case with its line.
//
#pragma once

#include "replay_test_util.h"

#include "../../../runtime/replay/schedule.h"

#include <cstdint>
#include <string>

namespace {

struct Parsed {
  bool ok;
  racepredict::rt::Schedule s;
  racepredict::rt::SchedError err;
};

Parsed parseText(const std::string &text) {
  Parsed p;
  p.ok = racepredict::rt::parseSchedule(
      text.data(), text.size(), racepredict::testing::testAlloc, &p.s, &p.err);
  return p;
}

struct BadCase {
  const char *name;
  std::string text;
  uint32_t line;
  const char *msg;
};

} // namespace
