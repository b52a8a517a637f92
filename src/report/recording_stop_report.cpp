//===- report/recording_stop_report.cpp - How the recording ended ---------===//
#include "racepredict/report/recording_stop_report.h"

#include <map>
#include <ostream>
#include <set>

namespace racepredict::report {
namespace {

using trace::BlockedThread;
using trace::EventKind;
using trace::NameSpace;
using trace::SymId;
using trace::ThreadId;

/// The threads that hold each lock at the end of the trace (an acquisition
/// without its release; a `wait` releases and takes its lock again).
std::map<SymId, std::set<ThreadId>> holdersAtEnd(const trace::Trace &t) {
  std::map<std::pair<SymId, ThreadId>, long> held;
  for (const trace::Event &e : t.events) {
    if (e.kind == EventKind::Acquire || e.kind == EventKind::RAcquire)
      ++held[{e.obj, e.thread}];
    else if (e.kind == EventKind::Release)
      --held[{e.obj, e.thread}];
  }
  std::map<SymId, std::set<ThreadId>> out;
  for (const auto &[key, n] : held)
    if (n > 0)
      out[key.first].insert(key.second);
  return out;
}

std::string objectName(const trace::Trace &t, const BlockedThread &b) {
  bool has = false;
  return t.table(trace::objNameSpace(b.op, &has)).name(b.object);
}

std::string where(const trace::Trace &t, const BlockedThread &b) {
  return b.loc && b.loc < t.sources.size()
             ? t.sources[b.loc].str()
             : std::string("<no source location>");
}

std::string function(const trace::Trace &t, const BlockedThread &b) {
  return b.loc && b.loc < t.sources.size() && !t.sources[b.loc].function.empty()
             ? t.sources[b.loc].function
             : std::string("??");
}

/// What the blocked call waits for, as a clause.
std::string waitsFor(const trace::Trace &t, const BlockedThread &b,
                     const std::map<SymId, std::set<ThreadId>> &holders) {
  std::string obj = objectName(t, b);
  switch (b.op) {
  case EventKind::Acquire:
  case EventKind::RAcquire: {
    std::string s = "waits for lock " + obj;
    auto it = holders.find(b.object);
    if (it == holders.end())
      return s + " (no recorded thread holds it)";
    std::string who;
    for (ThreadId h : it->second)
      who += (who.empty() ? "" : ", ") + t.threadName(h);
    return s + " held by " + who;
  }
  case EventKind::Join:
    return "joins " + obj + ", which does not end";
  case EventKind::Wait:
    return "waits on condition " + obj + ", which nobody signals";
  case EventKind::SemWait:
    return "waits on semaphore " + obj + ", which nobody posts";
  default:
    return "waits at barrier " + obj + " for threads that never arrive";
  }
}

} // namespace

bool observedDeadlock(const trace::Trace &t) {
  return t.stop && t.stop->reason == trace::StopReason::Deadlock;
}

void printRecordingStop(const trace::Trace &t, std::ostream &out) {
  if (!t.stop)
    return;
  out << "racepredict: note: " << trace::describeStop(*t.stop) << "\n";
  if (!observedDeadlock(t))
    return;
  auto holders = holdersAtEnd(t);
  const auto &blocked = t.stop->blocked;
  out << "==================\n"
      << "WARNING: racepredict: deadlock (observed: the recorded run hung), "
      << blocked.size() << " thread" << (blocked.size() == 1 ? "" : "s")
      << " blocked\n";
  std::string summary;
  for (const BlockedThread &b : blocked) {
    out << "  thread " << t.threadName(b.thread) << " "
        << waitsFor(t, b, holders) << ", at:\n"
        << "      #0 " << function(t, b) << " " << where(t, b) << "\n";
    summary += (summary.empty() ? "" : " / ") + where(t, b);
  }
  out << "SUMMARY: racepredict: observed deadlock " << summary << "\n"
      << "==================\n";
}

void addRecordingStopJson(const trace::Trace &t, nlohmann::ordered_json &j) {
  if (!t.stop)
    return;
  nlohmann::ordered_json r;
  r["stopped"] = trace::stopReasonName(t.stop->reason);
  r["value"] = t.stop->value;
  if (!t.stop->text.empty())
    r["text"] = t.stop->text;
  r["message"] = trace::describeStop(*t.stop);
  if (observedDeadlock(t)) {
    auto holders = holdersAtEnd(t);
    nlohmann::ordered_json threads = nlohmann::ordered_json::array(),
                           list = nlohmann::ordered_json::array();
    for (const BlockedThread &b : t.stop->blocked) {
      threads.push_back(t.threadName(b.thread));
      nlohmann::ordered_json e = {{"thread", t.threadName(b.thread)},
                                  {"op", trace::opName(b.op)},
                                  {"object", objectName(t, b)},
                                  {"loc", where(t, b)},
                                  {"function", function(t, b)},
                                  {"reason", waitsFor(t, b, holders)}};
      if (b.op == EventKind::Acquire || b.op == EventKind::RAcquire) {
        e["held_by"] = nlohmann::ordered_json::array();
        if (auto it = holders.find(b.object); it != holders.end())
          for (ThreadId h : it->second)
            e["held_by"].push_back(t.threadName(h));
      }
      list.push_back(e);
    }
    r["observed_deadlock"] = {{"threads", threads}, {"blocked", list}};
  }
  j["recording"] = r;
}

} // namespace racepredict::report
