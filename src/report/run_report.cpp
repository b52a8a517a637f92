//===- report/run_report.cpp - Findings with their replay verdicts --------===//
#include "racepredict/report/run_report.h"

#include "racepredict/analysis/deadlock.h"
#include "racepredict/report/html_report.h"
#include "racepredict/report/names.h"
#include "racepredict/report/recording_stop_report.h"
#include "racepredict/report/sarif_report.h"
#include "racepredict/report/streamed_report.h"
#include "racepredict/report/violation_report.h"
#include "racepredict/report/witness_condense.h"

#include <optional>
#include <ostream>
#include <sstream>

namespace racepredict::report {

using json = nlohmann::ordered_json;
using trace::Event;
using trace::EventKind;

namespace {

std::string replayWords(const ReplayInfo &r) {
  return r.confirmed() ? "confirmed by replay" : "replay " + r.verdict;
}

std::string headline(const ReplayInfo &r) {
  return "predicted, " + replayWords(r);
}

void printAccess(const trace::Trace &t, trace::EventId e,
                 const std::string &variable, bool previous,
                 std::ostream &out) {
  const Event &ev = t.events[e];
  out << "  " << (previous ? "Previous " : "") << accessWords(ev, !previous)
      << " at " << t.objName(ev);
  if (!variable.empty() && variable != t.objName(ev))
    out << " (" << variable << ")";
  out << " by thread " << t.threadName(ev.thread) << " (event " << e << "):\n";
  printStack(t, e, out);
}

/// TSan's "Thread T1 (tid=…) created by main thread at:".
void printCreation(const RunReport &r, trace::ThreadId u, std::ostream &out) {
  const trace::Trace &t = *r.trace;
  trace::EventId fork = r.index->forkOf(u);
  if (fork == trace::kNone)
    return;
  out << "  Thread " << t.threadName(u) << " created by thread "
      << t.threadName(t.events[fork].thread) << " at:\n";
  printStack(t, fork, out);
}

/// The witness as replay ran it (`info.schedule`, with the halves of
/// waits and barriers) or, if no schedule was built, as predicted;
/// `essential` says which events are the finding's own.
void printSchedule(const RunReport &r, const std::vector<trace::EventId> &w,
                   const ReplayInfo &info,
                   const std::vector<trace::EventId> &essentialEvents,
                   const char *note, const char *what, std::ostream &out) {
  bool replayed = !info.schedule.empty() &&
                  info.schedule.size() == info.scheduleEvents.size();
  const std::vector<trace::EventId> &steps = replayed ? info.scheduleEvents : w;
  std::vector<bool> essential =
      essentialSteps(*r.trace, steps, essentialEvents);
  printWitness(
      out, *r.trace, steps, essential,
      [&](size_t i) {
        std::string s = replayed ? info.schedule[i]
                                 : "[" + std::to_string(w[i]) + "] " +
                                       describeEvent(*r.trace, w[i]);
        return essential[i] ? s + "   <== " + note : s;
      },
      what, r.ctx.fullWitness);
}

/// The trace event of the step a diverged replay stopped at, if known.
std::optional<trace::EventId> divergedAt(const ReplayInfo &info) {
  if (info.verdict != "diverged" || info.step == 0 ||
      info.step > info.scheduleEvents.size())
    return std::nullopt;
  return info.scheduleEvents[info.step - 1];
}

void printReplay(const RunReport &r, const ReplayInfo &info,
                 std::ostream &out) {
  out << "  Replay: " << info.verdict;
  if (info.step)
    out << " at step " << info.step << "/" << info.steps;
  out << ": " << demangleWords(info.message) << "\n";
  // Where the program left the witness, in the program's own terms: the
  // recorded event it did not reach, with the call path that leads to it.
  if (auto e = divergedAt(info)) {
    out << "  The run left the witness before step " << info.step << ", [" << *e
        << "] " << describeEvent(*r.trace, *e) << ", recorded at:\n";
    printStack(*r.trace, *e, out, "      ");
  }
  if (!info.witnessFile.empty()) {
    out << "  Replay it: racepredict replay --schedule " << info.witnessFile
        << " --" << r.command << "\n";
    if (!info.confirmed())
      out << "  Check the witness on the trace: racepredict check-witness "
          << r.ctx.tracePath << " " << info.witnessFile << "\n";
  } else if (!info.confirmed()) {
    out << "  (run with --witness-dir DIR to keep this witness and the trace, "
           "to check it with `racepredict check-witness` or replay it again)"
           "\n";
  }
}

bool shown(const RunReport &r, const ReplayInfo &info) {
  return r.reportAll || info.confirmed();
}

json stackJson(const trace::Trace &t, trace::EventId e) {
  json s = json::array();
  for (const auto &f : eventStack(t, e))
    s.push_back(f.function + " " + f.location);
  return s;
}

json replayJson(const trace::Trace &t, const ReplayInfo &info) {
  json d{{"message", demangleWords(info.message)}};
  if (info.step)
    d["step"] = info.step, d["steps"] = info.steps;
  if (auto e = divergedAt(info))
    d["diverged_before"] = {{"event", *e},
                            {"thread", t.threadName(t.events[*e].thread)},
                            {"op", describeEvent(t, *e)},
                            {"stack", stackJson(t, *e)}};
  if (!info.location.empty())
    d["location"] = info.location;
  if (!info.variable.empty())
    d["variable"] = info.variable;
  if (!info.witnessFile.empty())
    d["witness_file"] = info.witnessFile;
  return d;
}

/// The findings the report shows, as results of the predictors (so that
/// the analyze printers can be reused on them): `all` without the findings
/// whose replay is not shown; stats, unknowns and warnings as they are.
template <typename Result, typename Finding>
Result shownOf(const RunReport &r, const Result &all,
               std::vector<Finding> Result::*findings,
               const std::vector<ReplayInfo> &replays) {
  Result out = all;
  std::vector<Finding> &v = out.*findings;
  size_t k = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (shown(r, replays[i])) {
      if (k != i) // never a self-move: it would empty the finding
        v[k] = std::move(v[i]);
      ++k;
    }
  v.resize(k);
  return out;
}

solver::RaceResult shownRaces(const RunReport &r) {
  return shownOf(r, *r.races, &solver::RaceResult::races, r.raceReplays);
}

solver::DeadlockResult shownDeadlocks(const RunReport &r) {
  if (!r.deadlocks)
    return {};
  return shownOf(r, *r.deadlocks, &solver::DeadlockResult::deadlocks,
                 r.deadlockReplays);
}

solver::PropertyResult shownViolations(const RunReport &r) {
  if (!r.violations)
    return {};
  return shownOf(r, *r.violations, &solver::PropertyResult::violations,
                 r.violationReplays);
}

size_t countVerdict(const RunReport &r, const std::string &v) {
  size_t n = 0;
  for (const auto *list :
       {&r.raceReplays, &r.deadlockReplays, &r.violationReplays})
    for (const auto &x : *list)
      n += x.verdict == v;
  return n;
}

size_t replayedCount(const RunReport &r) {
  return r.raceReplays.size() + r.deadlockReplays.size() +
         r.violationReplays.size();
}

void printViolations(const RunReport &r, std::ostream &out, size_t &printed) {
  if (!r.violations)
    return;
  const trace::Trace &t = *r.trace;
  for (size_t i = 0; i < r.violations->violations.size(); ++i) {
    const auto &v = r.violations->violations[i];
    const ReplayInfo &info = r.violationReplays[i];
    if (!shown(r, info))
      continue;
    ++printed;
    printViolation(t, v, *r.properties,
                   (v.observed ? "observed, " : "predicted, ") +
                       replayWords(info),
                   out, r.ctx.fullWitness);
    printReplay(r, info, out);
    std::string where;
    for (trace::EventId e : v.events)
      where += (where.empty() ? "" : " / ") + eventStack(t, e)[0].location;
    out << "SUMMARY: racepredict: property violation "
        << (*r.properties)[v.property].name << " " << where << "\n";
  }
}

} // namespace

size_t confirmedCount(const RunReport &r) {
  return countVerdict(r, "confirmed");
}

void printRunReport(const RunReport &r, std::ostream &out) {
  const trace::Trace &t = *r.trace;
  printRecordingStop(t, out);
  size_t printed = 0;
  for (size_t i = 0; i < r.races->races.size(); ++i) {
    const auto &f = r.races->races[i];
    const ReplayInfo &info = r.raceReplays[i];
    if (!shown(r, info))
      continue;
    ++printed;
    const Event &a = t.events[f.first], &b = t.events[f.second];
    out << "==================\n"
        << "WARNING: racepredict: data race (" << headline(info) << ")\n";
    printAccess(t, f.second, info.variable, false, out);
    printAccess(t, f.first, info.variable, true, out);
    printRaceContext(t, f.first, f.second, out);
    printCreation(r, b.thread, out);
    printCreation(r, a.thread, out);
    printSchedule(r, f.schedule.events(), info, {f.first, f.second},
                  "racing access", "the last two race", out);
    printReplay(r, info, out);
    StackFrame sa = summaryFrame(t, f.first), sb = summaryFrame(t, f.second);
    out << "SUMMARY: racepredict: data race " << sb.location << " in "
        << sb.function << " / " << sa.location << " in " << sa.function << "\n";
  }
  if (r.deadlocks) {
    for (size_t i = 0; i < r.deadlocks->deadlocks.size(); ++i) {
      const auto &d = r.deadlocks->deadlocks[i];
      const ReplayInfo &info = r.deadlockReplays[i];
      if (!shown(r, info))
        continue;
      ++printed;
      out << "==================\n"
          << "WARNING: racepredict: " << d.kind << " deadlock ("
          << headline(info) << "), " << d.blocked.size() << " thread"
          << (d.blocked.size() == 1 ? "" : "s") << "\n";
      std::string summary;
      for (const auto &b : d.blocked) {
        out << "  " << describeBlock(t, b, d.blocked) << ", at:\n";
        printStack(t, b.event, out, "      ");
        if (b.kind == analysis::BlockKind::Lock && b.since != trace::kNone) {
          out << "    the lock was taken at:\n";
          printStack(t, b.since, out, "      ");
        }
        summary +=
            (summary.empty() ? "" : " / ") + summaryFrame(t, b.event).location;
      }
      std::vector<trace::EventId> blocked;
      for (const auto &b : d.blocked)
        blocked.push_back(b.event);
      printSchedule(r, d.witness, info, blocked, "then blocked",
                    "then every thread above blocks on its request", out);
      printReplay(r, info, out);
      out << "SUMMARY: racepredict: " << d.kind << " deadlock " << summary
          << "\n";
    }
  }
  printViolations(r, out, printed);
  if (printed)
    out << "==================\n";
  out << runSummary(r) << "\n";
}

std::string runSummary(const RunReport &r) {
  std::ostringstream out;
  size_t total = replayedCount(r);
  out << "racepredict run: " << confirmedCount(r) << " of " << total
      << " predicted finding" << (total == 1 ? "" : "s")
      << " confirmed by replay (" << countVerdict(r, "diverged")
      << " diverged, " << countVerdict(r, "not-reproduced")
      << " not reproduced";
  if (!r.reportAll && total > confirmedCount(r))
    out << "; --report-all lists them";
  out << ")";
  size_t unknown = unknownCount(r);
  if (unknown)
    out << "; " << unknown << " candidate" << (unknown == 1 ? "" : "s")
        << " undecided (solver time-out)";
  return out.str();
}

size_t unknownCount(const RunReport &r) {
  return r.races->unknowns.size() +
         (r.deadlocks ? r.deadlocks->unknowns.size() : 0) +
         (r.violations ? r.violations->unknowns.size() : 0);
}

namespace {

/// The replays of the shown findings, in report order.
std::vector<const ReplayInfo *> shownReplays(const RunReport &r,
                                             const std::vector<ReplayInfo> &v) {
  std::vector<const ReplayInfo *> out;
  for (const ReplayInfo &info : v)
    if (shown(r, info))
      out.push_back(&info);
  return out;
}

/// What the JSON report shows: the shown findings and their replays.
struct Shown {
  solver::RaceResult races;
  solver::DeadlockResult deadlocks;
  solver::PropertyResult violations;
  std::vector<const ReplayInfo *> raceReplays, deadlockReplays,
      violationReplays;
};

Shown shownFindings(const RunReport &r) {
  return {shownRaces(r),
          shownDeadlocks(r),
          shownViolations(r),
          shownReplays(r, r.raceReplays),
          shownReplays(r, r.deadlockReplays),
          shownReplays(r, r.violationReplays)};
}

void addReplay(const trace::Trace &t, const ReplayInfo &info, json &entry) {
  entry["replay"] = info.verdict;
  entry["replay_detail"] = replayJson(t, info);
}

void addRaceReplay(const trace::Trace &t, const ReplayInfo &info, json &entry) {
  for (const char *side : {"first", "second"}) {
    trace::EventId ev = entry[side]["event"].get<trace::EventId>();
    entry[side]["stack"] = stackJson(t, ev);
  }
  addReplay(t, info, entry);
}

/// The JSON report; without `findings` its finding arrays are left empty
/// for writeStreamedReport.
json runReportDocument(const RunReport &r, const Shown &s, bool findings) {
  const trace::Trace &t = *r.trace;
  json j = raceReportJson(t, s.races, r.ctx, findings);
  j["stats"].update(r.pipelineStats);
  for (size_t k = 0; findings && k < s.raceReplays.size(); ++k)
    addRaceReplay(t, *s.raceReplays[k], j["races"][k]);
  if (r.deadlocks) {
    if (findings) {
      j["deadlocks"] = deadlocksJson(t, s.deadlocks, *r.index);
      for (size_t k = 0; k < s.deadlockReplays.size(); ++k)
        addReplay(t, *s.deadlockReplays[k], j["deadlocks"][k]);
    }
    // As `analyze` does: undecided deadlock queries count too, so that a
    // report with a confirmed race does not hide them.
    j["stats"]["unknown"] = r.races->stats.unknown + r.deadlocks->stats.unknown;
  }
  if (r.violations) {
    if (findings) {
      j["violations"] = violationsJson(t, s.violations, *r.properties);
      for (size_t k = 0; k < s.violationReplays.size(); ++k)
        addReplay(t, *s.violationReplays[k], j["violations"][k]);
    }
    j["stats"]["property"] = {{"violations", r.violations->violations.size()},
                              {"observed", r.violations->stats.observed},
                              {"unknown", r.violations->stats.unknown}};
    // As `analyze` does: stats.unknown counts every undecided question.
    j["stats"]["unknown"] =
        j["stats"]["unknown"].get<size_t>() + r.violations->unknowns.size();
  }
  j["program"] = r.argv;
  addRecordingStopJson(t, j);
  j["stats"]["replay"] = {
      {"replayed", replayedCount(r)},
      {"confirmed", confirmedCount(r)},
      {"diverged", countVerdict(r, "diverged")},
      {"not_reproduced", countVerdict(r, "not-reproduced")}};
  return j;
}

} // namespace

json runReportJson(const RunReport &r) {
  return runReportDocument(r, shownFindings(r), true);
}

void writeRunReportJson(const RunReport &r, std::ostream &out) {
  const trace::Trace &t = *r.trace;
  Shown s = shownFindings(r);
  StreamedFindings f;
  f.races = &s.races;
  f.decorateRace = [&](size_t k, json &e) {
    addRaceReplay(t, *s.raceReplays[k], e);
  };
  if (r.deadlocks) {
    f.deadlocks = &s.deadlocks;
    f.decorateDeadlock = [&](size_t k, json &e) {
      addReplay(t, *s.deadlockReplays[k], e);
    };
  }
  if (r.violations) {
    f.violations = &s.violations;
    f.properties = r.properties;
    f.decorateViolation = [&](size_t k, json &e) {
      addReplay(t, *s.violationReplays[k], e);
    };
  }
  writeStreamedReport(out, t, runReportDocument(r, s, false), f);
}

void writeRunReportHtml(const RunReport &r, std::ostream &out) {
  std::vector<ReplayInfo> races, deadlocks;
  for (const auto &i : r.raceReplays)
    if (shown(r, i))
      races.push_back(i);
  for (const auto &i : r.deadlockReplays)
    if (shown(r, i))
      deadlocks.push_back(i);
  solver::DeadlockResult d = shownDeadlocks(r);
  writeHtmlReport(*r.trace,
                  htmlFindings(*r.trace, shownRaces(r),
                               r.deadlocks ? &d : nullptr, races, deadlocks),
                  r.ctx, out);
}

void writeRunReportSarif(const RunReport &r, std::ostream &out) {
  solver::DeadlockResult d = shownDeadlocks(r);
  solver::PropertyResult v;
  if (r.violations)
    v = shownViolations(r);
  writeSarifReport(out, *r.trace, shownRaces(r), r.deadlocks ? &d : nullptr,
                   r.violations ? &v : nullptr, r.properties, r.ctx);
}

} // namespace racepredict::report
