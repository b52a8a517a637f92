//===- report/json_report.cpp - The JSON report of DESIGN.md --------------===//
#include "racepredict/report/report.h"

#include "racepredict/report/memory_block.h"
#include "racepredict/report/names.h"
#include "racepredict/report/race_groups.h"
#include <algorithm>

namespace racepredict::report {

using json = nlohmann::ordered_json;
using trace::Event;

json eventJson(const trace::Trace &t, trace::EventId e) {
  const Event &ev = t.events[e];
  json j{{"event", e},
         {"thread", t.threadName(ev.thread)},
         {"op", trace::opName(ev.kind)}};
  const trace::SourceLoc &src = t.sources[ev.src];
  // An access always says where: file:line[:col], or "<unknown>" (then
  // "function" still names the function, when known).
  j["loc"] = locationText(src);
  if (!src.function.empty())
    j["function"] = functionName(src.function);
  // Only when there is more than the event's own frame, which "loc" and
  // "function" already give.
  std::vector<std::string> stack = stackFrames(t, e);
  if (stack.size() > 1)
    j["stack"] = stack;
  if (trace::isAccess(ev.kind)) {
    j["location"] = t.objName(ev);
    j["value"] = ev.value;
    if (ev.size)
      j["size"] = ev.size;
  } else if (ev.kind == trace::EventKind::Free) {
    j["block"] = t.objName(ev);
    j["block_size"] = ev.aux;
  } else if (trace::isChannelEvent(ev.kind)) {
    j["channel"] = t.objName(ev);
    j["offset"] = ev.value;
    j["bytes"] = ev.aux;
  }
  if (ev.kind == trace::EventKind::Custom) {
    j["name"] = t.objName(ev);
    nlohmann::ordered_json args = nlohmann::ordered_json::array();
    for (auto [a, end] = t.args(ev); a != end; ++a)
      args.push_back(t.table(trace::NameSpace::Custom).name(*a));
    j["args"] = args;
  }
  return j;
}

json stepsJson(const std::vector<analysis::Step> &steps) {
  json out = json::array();
  for (const auto &s : steps)
    out.push_back({{"event", s.event}, {"half", s.half}});
  return out;
}

void addStepsWithHalves(json &entry, const std::vector<analysis::Step> &steps,
                        bool witness) {
  if (std::any_of(steps.begin(), steps.end(),
                  [](const analysis::Step &s) { return s.half; }))
    entry["steps"] = witness ? stepsJson(steps) : json::array();
}

json raceJson(const trace::Trace &t, const solver::RaceFinding &f,
              bool witness) {
  json race{{"location", raceLocation(t, f.first, f.second)},
            {"first", eventJson(t, f.first)},
            {"second", eventJson(t, f.second)},
            {"witness", witness ? json(f.schedule.events()) : json::array()}};
  // What the one race of this pair of source locations stands for.
  RaceExtent x = raceExtent(t, f.first, f.second);
  race["pairs"] = x.pairs;
  json threads = json::array();
  for (trace::ThreadId u : x.threads)
    threads.push_back(t.threadName(u));
  race["threads"] = threads;
  trace::EventId alloc = allocationOf(t, f.second);
  if (alloc != trace::kNone)
    race["block"] = {{"alloc_event", alloc},
                     {"address", t.objName(t.events[alloc])},
                     {"size", t.events[alloc].aux},
                     {"thread", t.threadName(t.events[alloc].thread)},
                     {"stack", stackFrames(t, alloc)}};
  // One finding expanded at a time (its schedule is mostly shared).
  if (f.schedule.hasHalf())
    race["steps"] = witness ? stepsJson(f.schedule.steps()) : json::array();
  return race;
}

json raceReportJson(const trace::Trace &t, const solver::RaceResult &r,
                    const ReportContext &ctx, bool findings) {
  json races = json::array();
  for (size_t i = 0; findings && i < r.races.size(); ++i)
    races.push_back(raceJson(t, r.races[i], true));
  json unknown = json::array();
  for (const auto &u : r.unknowns)
    unknown.push_back(
        {{"first", u.first}, {"second", u.second}, {"reason", u.reason}});
  const auto &s = r.stats;
  return json{{"tool", "racepredict"},
              {"version", ctx.version},
              {"schema_version", 1},
              {"trace", ctx.tracePath},
              {"races", races},
              {"deadlocks", json::array()},
              {"violations", json::array()},
              {"unknown", unknown},
              {"stats",
               {{"events", s.events},
                {"conflicting_pairs", s.conflictingPairs},
                {"filtered_mhb", s.filteredMhb},
                {"filtered_lockset", s.filteredLockset},
                {"candidates", s.candidates},
                {"closure_witnesses", s.closureWitnesses},
                {"reused_witnesses", s.reusedWitnesses},
                {"searched_witnesses", s.searchedWitnesses},
                {"repaired_witnesses", s.repairedWitnesses},
                {"restricted_queries", s.restrictedQueries},
                {"restricted_witnesses", s.restrictedWitnesses},
                {"unsat_without_solver", s.propagatedUnsat},
                {"solver_calls", s.solverCalls},
                {"sat", s.sat},
                {"unsat", s.unsat},
                {"unknown", s.unknown},
                {"solver_checks", s.solverChecks},
                {"slice_expansions", s.sliceExpansions},
                {"max_slice_units", s.maxSliceUnits},
                {"max_order_vars", s.maxOrderVars},
                {"mhb_passes", s.mhbPasses},
                {"mhb_seconds", s.mhbSeconds},
                {"filter_seconds", s.filterSeconds},
                {"closure_seconds", s.fastSeconds},
                {"encode_seconds", s.encodeSeconds},
                {"solve_seconds", s.solveSeconds},
                {"seconds", s.seconds}}}};
}

} // namespace racepredict::report
