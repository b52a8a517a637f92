//===- report/text_report.cpp - TSan-shaped text report -------------------===//
#include "racepredict/report/report.h"

#include "racepredict/report/memory_block.h"
#include "racepredict/report/names.h"
#include "racepredict/report/race_groups.h"
#include "racepredict/report/witness_condense.h"

#include <algorithm>
#include <ostream>
#include <set>

namespace racepredict::report {

using trace::Event;
using trace::EventKind;

std::string describeEvent(const trace::Trace &t, trace::EventId e) {
  const Event &ev = t.events[e];
  std::string s = t.threadName(ev.thread) + " " + trace::opName(ev.kind);
  std::string obj = t.objName(ev);
  if (!obj.empty())
    s += " " + obj;
  if (trace::isAccess(ev.kind))
    s += " " + std::to_string(ev.value);
  if (trace::isChannelEvent(ev.kind))
    s += " " + std::to_string(ev.value) + " " + std::to_string(ev.aux);
  if (ev.kind == EventKind::Wait)
    s += " " + t.table(trace::NameSpace::Lock).name(ev.aux);
  if (ev.kind == EventKind::Custom)
    for (auto [a, end] = t.args(ev); a != end; ++a)
      s += " " + t.table(trace::NameSpace::Custom).name(*a);
  const trace::SourceLoc &src = t.sources[ev.src];
  if (!src.file.empty() || !src.function.empty()) {
    s += "  @ " + locationText(src);
    if (!src.function.empty())
      s += " in " + functionName(src.function);
  }
  return s;
}

std::string raceLocation(const trace::Trace &t, trace::EventId a,
                         trace::EventId b) {
  const Event &ea = t.events[a];
  return t.objName(ea.kind == EventKind::Free ? t.events[b] : ea);
}

std::string accessWords(const Event &ev, bool capital) {
  std::string w;
  switch (ev.kind) {
  case EventKind::Read:
    w = "read";
    break;
  case EventKind::Write:
    w = "write";
    break;
  case EventKind::AtomicRead:
    w = "atomic read";
    break;
  case EventKind::AtomicWrite:
    w = "atomic write";
    break;
  case EventKind::Free:
    w = "free of a " + std::to_string(ev.aux) + "-byte block";
    break;
  default:
    w = "atomic read-modify-write";
  }
  if (capital)
    w[0] = static_cast<char>(w[0] - 'a' + 'A');
  if (ev.size)
    w += " of size " + std::to_string(unsigned(ev.size));
  return w;
}

namespace {

void printAccess(const trace::Trace &t, trace::EventId e, const char *prefix,
                 std::ostream &out) {
  const Event &ev = t.events[e];
  out << "  " << prefix << accessWords(ev, *prefix == 0) << " at "
      << t.objName(ev) << " by thread " << t.threadName(ev.thread) << " (event "
      << e;
  if (trace::isAccess(ev.kind))
    out << ", value " << ev.value;
  out << "):\n";
  printStack(t, e, out);
}

} // namespace

void printRaceContext(const trace::Trace &t, trace::EventId first,
                      trace::EventId second, std::ostream &out) {
  trace::EventId alloc = allocationOf(t, second);
  if (alloc != trace::kNone) {
    out << "  Location is " << blockText(t, alloc, second) << " at:\n";
    printStack(t, alloc, out);
  }
  out << "  It stands for " << extentText(t, raceExtent(t, first, second))
      << ".\n";
}

void printWitness(std::ostream &out, const trace::Trace &t,
                  const std::vector<trace::EventId> &steps,
                  const std::vector<bool> &essential,
                  const std::function<std::string(size_t)> &stepText,
                  const std::string &what, bool full) {
  size_t n = steps.size();
  std::vector<WitnessLine> lines;
  if (full)
    for (size_t i = 0; i < n; ++i)
      lines.push_back({false, i, StepRole::Context, {}});
  else
    lines = condenseWitness(t, steps, essential);
  size_t shown = 0;
  for (const auto &l : lines)
    shown += !l.folded;
  out << "  Witness schedule (" << withThousands(n) << " step"
      << (n == 1 ? "" : "s") << "; " << what;
  if (shown < n)
    out << "; " << shown << " shown, the rest folded: --full-witness";
  out << "):\n";
  size_t width = std::to_string(n).size();
  for (const auto &l : lines) {
    if (l.folded) {
      out << "    " << std::string(width + 2, ' ') << foldText(t, l.fold)
          << "\n";
      continue;
    }
    std::string num = std::to_string(l.step + 1);
    out << "    " << std::string(width - num.size(), ' ') << num << ". "
        << stepText(l.step);
    if (l.role == StepRole::Sync)
      out << "   <- synchronisation reordered";
    else if (l.role == StepRole::Read)
      out << "   <- reads the value it read in the recorded run";
    out << "\n";
  }
}

void printRaceReport(const trace::Trace &t, const solver::RaceResult &r,
                     const ReportContext &ctx, std::ostream &out) {
  std::set<std::string> summary;
  for (const auto &f : r.races) {
    const Event &a = t.events[f.first];
    out << "==================\n"
        << "WARNING: racepredict: data race (predicted) on "
        << raceLocation(t, f.first, f.second) << "\n";
    printAccess(t, f.second, "", out);
    printAccess(t, f.first, "Previous ", out);
    printRaceContext(t, f.first, f.second, out);
    std::vector<trace::EventId> witness = f.schedule.events();
    std::vector<bool> essential =
        essentialSteps(t, witness, {f.first, f.second});
    printWitness(
        out, t, witness, essential,
        [&](size_t i) {
          return "[" + std::to_string(witness[i]) + "] " +
                 describeEvent(t, witness[i]) +
                 (essential[i] ? "   <== racing access" : "");
        },
        "the last two race", ctx.fullWitness);
    std::string la = t.sources[a.src].str();
    std::string lb = t.sources[t.events[f.second].src].str();
    summary.insert(la.empty() ? "events " + std::to_string(f.first) + "/" +
                                    std::to_string(f.second)
                              : la + " / " + lb);
  }
  if (!r.races.empty())
    out << "==================\n";
  for (const auto &u : r.unknowns)
    out << "racepredict: could not decide the pair (" << u.first << ", "
        << u.second << "): " << u.reason << "\n";
  out << "SUMMARY: racepredict: " << r.races.size() << " data race"
      << (r.races.size() == 1 ? "" : "s") << " predicted in "
      << (ctx.tracePath.empty() ? "trace" : ctx.tracePath) << " ("
      << r.stats.events << " events, " << r.stats.candidates
      << " candidate pairs, " << r.stats.closureWitnesses
      << " closure witnesses, " << r.stats.solverCalls << " solver calls, "
      << r.stats.unknown << " unknown)\n";
}

} // namespace racepredict::report
