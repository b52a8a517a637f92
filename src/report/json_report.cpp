//===- report/json_report.cpp - The JSON report of DESIGN.md --------------===//
#include "racepredict/report/report.h"

namespace racepredict::report {

using json = nlohmann::ordered_json;
using trace::Event;

json eventJson(const trace::Trace &t, trace::EventId e) {
  const Event &ev = t.events[e];
  json j{{"event", e},
         {"thread", t.threadName(ev.thread)},
         {"op", trace::opName(ev.kind)}};
  const trace::SourceLoc &src = t.sources[ev.src];
  j["loc"] = src.file.empty() ? "" : src.str();
  if (!src.function.empty())
    j["function"] = src.function;
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

json raceReportJson(const trace::Trace &t, const solver::RaceResult &r,
                    const ReportContext &ctx) {
  json races = json::array();
  for (const auto &f : r.races) {
    races.push_back({{"location", t.objName(t.events[f.first])},
                     {"first", eventJson(t, f.first)},
                     {"second", eventJson(t, f.second)},
                     {"witness", f.witness}});
  }
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
