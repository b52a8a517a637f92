//===- report/deadlock_report.cpp - Predicted deadlocks, text and JSON ----===//
//
// Shaped like TSan's lock-order-inversion report: per thread of the cycle,
// the lock it holds (where it took it) and the lock it waits for (where),
// then the witness schedule after which all of them are blocked.
//
#include "racepredict/report/report.h"

#include <ostream>

namespace racepredict::report {

using json = nlohmann::ordered_json;

namespace {

const std::string &lockName(const trace::Trace &t, trace::SymId lock) {
  return t.table(trace::NameSpace::Lock).name(lock);
}

} // namespace

json deadlocksJson(const trace::Trace &t, const solver::DeadlockResult &r,
                   const analysis::TraceIndex &idx) {
  json out = json::array();
  for (const auto &d : r.deadlocks) {
    json threads = json::array(), cycle = json::array();
    for (const auto &req : d.requests) {
      const auto &held = idx.sections()[req.held];
      threads.push_back(t.threadName(t.events[req.request].thread));
      json c = eventJson(t, req.request);
      c["waits_for"] = t.objName(t.events[req.request]);
      c["holds"] = lockName(t, held.lock);
      c["held_since"] = eventJson(t, held.acquire);
      cycle.push_back(c);
    }
    out.push_back({{"kind", "lock-order"},
                   {"threads", threads},
                   {"cycle", cycle},
                   {"witness", d.witness}});
  }
  return out;
}

void printDeadlockReport(const trace::Trace &t, const solver::DeadlockResult &r,
                         const analysis::TraceIndex &idx,
                         const ReportContext &ctx, std::ostream &out) {
  for (const auto &d : r.deadlocks) {
    out << "==================\n"
        << "WARNING: racepredict: lock-order deadlock (predicted), "
        << d.requests.size() << " threads\n";
    for (const auto &req : d.requests) {
      const auto &held = idx.sections()[req.held];
      const trace::Event &ev = t.events[req.request];
      out << "  Thread " << t.threadName(ev.thread) << " holds "
          << lockName(t, held.lock) << " (event " << held.acquire << ", "
          << describeEvent(t, held.acquire) << ")\n"
          << "    and waits for " << t.objName(ev) << " (event " << req.request
          << ", " << describeEvent(t, req.request) << ")\n";
    }
    out << "  Witness schedule (" << d.witness.size()
        << " events; then every thread above is blocked):\n";
    size_t width = std::to_string(d.witness.size()).size();
    for (size_t i = 0; i < d.witness.size(); ++i) {
      std::string num = std::to_string(i + 1);
      out << "    " << std::string(width - num.size(), ' ') << num << ". ["
          << d.witness[i] << "] " << describeEvent(t, d.witness[i]) << "\n";
    }
  }
  if (!r.deadlocks.empty())
    out << "==================\n";
  for (const auto &[reqs, why] : r.unknowns) {
    out << "racepredict: could not decide the cycle (";
    for (size_t i = 0; i < reqs.size(); ++i)
      out << (i ? ", " : "") << reqs[i];
    out << "): " << why << "\n";
  }
  out << "SUMMARY: racepredict: " << r.deadlocks.size() << " deadlock"
      << (r.deadlocks.size() == 1 ? "" : "s") << " predicted in "
      << (ctx.tracePath.empty() ? "trace" : ctx.tracePath) << " ("
      << r.stats.candidates << " lock cycles, " << r.stats.solverCalls
      << " solver calls, " << r.stats.unknown << " unknown)\n";
}

} // namespace racepredict::report
