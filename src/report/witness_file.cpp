//===- report/witness_file.cpp - One JSON file per witness schedule -------===//
#include "racepredict/report/witness_file.h"

#include "racepredict/report/report.h"
#include "racepredict/support/file_io.h"

#include <filesystem>

namespace racepredict::report {

using json = nlohmann::ordered_json;

namespace {

Expected<bool> writeJson(const std::string &path, const json &j) {
  return writeWholeFile(path, "witness file", jsonText(j) + "\n");
}

} // namespace

json raceWitnessJson(const trace::Trace &t, const solver::RaceFinding &f,
                     const std::string &tracePath) {
  return json{{"tool", "racepredict"},
              {"kind", "race"},
              {"trace", tracePath},
              {"first", eventJson(t, f.first)},
              {"second", eventJson(t, f.second)},
              {"witness", f.schedule.events()},
              {"steps", stepsJson(f.schedule.steps())}};
}

std::string raceWitnessName(const solver::RaceFinding &f) {
  return "race-" + std::to_string(f.first) + "-" + std::to_string(f.second) +
         ".json";
}

std::string deadlockWitnessName(const solver::DeadlockFinding &f) {
  std::string name = "deadlock";
  for (const auto &b : f.blocked)
    name += "-" + std::to_string(b.event);
  return name + ".json";
}

Expected<std::vector<std::string>> writeWitnessFiles(
    const std::string &dir, const trace::Trace &t,
    const solver::RaceResult &races, const solver::DeadlockResult *deadlocks,
    const analysis::TraceIndex *idx, const std::string &tracePath) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Error{"cannot create witness directory '" + dir +
                 "': " + ec.message()};
  std::vector<std::string> paths;
  for (const auto &f : races.races) {
    std::string p = dir + "/" + raceWitnessName(f);
    auto w = writeJson(p, raceWitnessJson(t, f, tracePath));
    if (!w)
      return w.error();
    paths.push_back(p);
  }
  if (deadlocks)
    for (const auto &d : deadlocks->deadlocks) {
      std::string p = dir + "/" + deadlockWitnessName(d);
      auto w = writeJson(p, deadlockWitnessJson(t, d, *idx, tracePath));
      if (!w)
        return w.error();
      paths.push_back(p);
    }
  return paths;
}

} // namespace racepredict::report
