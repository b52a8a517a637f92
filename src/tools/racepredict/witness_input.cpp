//===- tools/racepredict/witness_input.cpp - Read a --witness-dir file ----===//
#include "witness_input.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>

namespace racepredict::tool {
namespace {

/// The BlockKind of a "blocked_on" kind (analysis::blockKindName's names).
std::optional<analysis::BlockKind> blockKindOf(const std::string &name) {
  using analysis::BlockKind;
  for (BlockKind k :
       {BlockKind::Lock, BlockKind::Join, BlockKind::NotCreated,
        BlockKind::Notify, BlockKind::Semaphore, BlockKind::Barrier})
    if (name == analysis::blockKindName(k))
      return k;
  return std::nullopt;
}

} // namespace

Expected<WitnessInput> readWitnessFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return Error{"cannot open witness '" + path + "'"};
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error{path + ": not a JSON object"};
  WitnessInput w;
  try {
    std::string kind = j.value("kind", "race");
    if (kind != "race" && kind != "deadlock" && kind != "violation")
      return Error{path + ": unknown witness kind '" + kind + "'"};
    w.deadlock = kind == "deadlock";
    w.violation = kind == "violation";
    w.trace = j.value("trace", "");
    w.witness = j.at("witness").get<std::vector<analysis::EventId>>();
    if (j.contains("steps"))
      for (const auto &s : j["steps"])
        w.steps.push_back(
            {s.at("event").get<analysis::EventId>(), s.value("half", false)});
    if (w.violation) {
      w.property = j.at("property").get<std::string>();
      w.propertyFile = j.value("property_file", "");
      w.patternIndex = j.at("pattern_index").get<size_t>();
      for (const auto &e : j.at("events"))
        w.violationEvents.push_back(e.at("event").get<analysis::EventId>());
      if (w.violationEvents.empty())
        return Error{path + ": the violation names no events"};
    } else if (w.deadlock) {
      // Every blocked thread: its event, what it blocks on, and for a lock
      // the acquisition its holder made (the replayer checks the holder
      // still has it); the rest follows from the trace.
      for (const auto &b : j.at("blocked")) {
        replay::DeadlockBlock blk;
        blk.event = b.at("event").get<analysis::EventId>();
        const auto &on = b.at("blocked_on");
        std::string kind = on.at("kind").get<std::string>();
        auto k = blockKindOf(kind);
        if (!k)
          return Error{path + ": blocked event " + std::to_string(blk.event) +
                       ": unknown blocked_on kind '" + kind + "'"};
        blk.kind = *k;
        if (on.contains("held_since"))
          blk.heldSince = on["held_since"].at("event").get<analysis::EventId>();
        w.blocked.push_back(blk);
      }
    } else {
      w.first = j.at("first").at("event").get<analysis::EventId>();
      w.second = j.at("second").at("event").get<analysis::EventId>();
    }
  } catch (const nlohmann::json::exception &e) {
    return Error{path + ": not a racepredict witness file (" + e.what() + ")"};
  }
  return w;
}

Expected<std::vector<analysis::Step>>
validatedSteps(const analysis::TraceIndex &idx, const WitnessInput &w,
               const std::string &path) {
  size_t n = idx.trace().events.size();
  for (auto e : w.witness)
    if (e >= n)
      return Error{path + ": event " + std::to_string(e) +
                   " is not in the trace (" + std::to_string(n) +
                   " events): is it the witness of another trace?"};
  std::vector<analysis::Step> steps = w.steps;
  for (const auto &s : steps)
    if (s.event >= n)
      return Error{path + ": step event " + std::to_string(s.event) +
                   " is not in the trace"};
  if (steps.empty()) {
    std::vector<analysis::EventId> prefix = w.witness;
    if (!w.deadlock && !w.violation) {
      if (prefix.size() < 2)
        return Error{path + ": the witness does not end with the racing pair"};
      prefix.resize(prefix.size() - 2);
    }
    auto expanded = analysis::expandWitness(idx, prefix);
    if (!expanded)
      return Error{path + ": the witness is not a valid schedule of the trace"};
    steps = *expanded;
    if (!w.deadlock && !w.violation) {
      steps.push_back({w.first});
      steps.push_back({w.second});
    }
  }
  std::optional<std::string> why;
  if (w.violation) {
    // A feasible prefix schedule that ends with the last violating event;
    // the pattern itself is checked once the property is known.
    if (steps.empty() || steps.back().half ||
        steps.back().event != w.violationEvents.back())
      return Error{path + ": the steps do not end with the last violating "
                          "event"};
    why = analysis::checkPrefixSchedule(idx, steps);
  } else if (w.deadlock) {
    std::vector<analysis::EventId> blocked;
    for (const auto &b : w.blocked)
      blocked.push_back(b.event);
    std::vector<analysis::BlockReason> reasons;
    why = analysis::checkDeadlockWitness(idx, steps, blocked, &reasons);
    // What the replay will check must be what the trace semantics says:
    // the blocking kind, and for a lock the holder's acquisition.
    for (size_t i = 0; !why && i < reasons.size(); ++i) {
      const replay::DeadlockBlock &b = w.blocked[i];
      const analysis::BlockReason &r = reasons[i];
      bool lock = r.kind == analysis::BlockKind::Lock;
      if (b.kind != r.kind || (lock && b.heldSince != r.since))
        return Error{
            path + ": blocked event " + std::to_string(b.event) +
            " blocks on " + analysis::blockKindName(r.kind) +
            (lock ? " (held since event " + std::to_string(r.since) + ")"
                  : std::string()) +
            " after the witness, not as the file says"};
    }
  } else {
    if (steps.size() < 2 || steps[steps.size() - 2].event != w.first ||
        steps.back().event != w.second)
      return Error{path + ": the steps do not end with the racing pair"};
    std::vector<analysis::Step> prefix(steps.begin(), steps.end() - 2);
    why = analysis::checkRaceWitness(idx, prefix, w.first, w.second);
  }
  if (why)
    return Error{path + ": the witness does not hold on the trace: " + *why};
  return steps;
}

Expected<replay::Schedule> scheduleFor(const analysis::TraceIndex &idx,
                                       const WitnessInput &w,
                                       const std::vector<analysis::Step> &s,
                                       report::SourceText &src) {
  if (w.violation)
    return replay::violationSchedule(idx, s, src);
  if (w.deadlock)
    return replay::deadlockSchedule(idx, s, w.blocked, src);
  return replay::raceSchedule(idx, s, w.first, w.second, src);
}

} // namespace racepredict::tool
