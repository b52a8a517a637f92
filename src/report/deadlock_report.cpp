//===- report/deadlock_report.cpp - Predicted deadlocks, text and JSON ----===//
//
// Per deadlock, each blocked thread with the event it never completes and
// why, in one sentence per kind ("thread t1 waits for lock m2 held by t2",
// "thread t0 joins t1 which is blocked on lock m2", "thread t2 waits on
// semaphore s (count 0, no post left)", "thread t1 waits at barrier b: 1 of
// 2 arrived"), then the witness schedule after which all of them are stuck.
// Lock-order deadlocks keep the shape of TSan's lock-order-inversion report.
//
#include "racepredict/report/report.h"
#include "racepredict/report/witness_condense.h"

#include <ostream>

namespace racepredict::report {

using analysis::BlockKind;
using analysis::BlockReason;
using json = nlohmann::ordered_json;

namespace {

std::string name(const trace::Trace &t, trace::NameSpace ns, trace::SymId s) {
  return t.table(ns).name(s);
}

const BlockReason *reasonOf(const std::vector<BlockReason> &all,
                            trace::ThreadId th) {
  for (const auto &r : all)
    if (r.thread == th)
      return &r;
  return nullptr;
}

/// What a blocked thread waits for, as a noun ("lock m2", "semaphore s").
std::string shortReason(const trace::Trace &t, const BlockReason &r) {
  switch (r.kind) {
  case BlockKind::Lock:
    return "lock " + name(t, trace::NameSpace::Lock, r.resource);
  case BlockKind::Join:
    return "joining " + t.threadName(r.other);
  case BlockKind::NotCreated:
    return "its creation";
  case BlockKind::Notify:
    return "condition " + name(t, trace::NameSpace::Cond, r.resource);
  case BlockKind::Semaphore:
    return "semaphore " + name(t, trace::NameSpace::Sem, r.resource);
  case BlockKind::Barrier:
    return "barrier " + name(t, trace::NameSpace::Barrier, r.resource);
  }
  return "?";
}

std::string at(const trace::Trace &t, trace::EventId e) {
  return "event " + std::to_string(e) + ": " + describeEvent(t, e);
}

json resourceJson(const trace::Trace &t, const BlockReason &r) {
  json j{{"kind", analysis::blockKindName(r.kind)}};
  switch (r.kind) {
  case BlockKind::Lock:
    j["resource"] = name(t, trace::NameSpace::Lock, r.resource);
    j["mode"] = r.readMode ? "read" : "write";
    j["holder"] = t.threadName(r.other);
    j["holder_finished"] = r.holderFinished;
    if (r.since != trace::kNone)
      j["held_since"] = eventJson(t, r.since);
    break;
  case BlockKind::Join:
    j["thread"] = t.threadName(r.other);
    break;
  case BlockKind::NotCreated:
    j["creator"] = t.threadName(r.other);
    j["fork"] = eventJson(t, r.since);
    break;
  case BlockKind::Notify: {
    j["resource"] = name(t, trace::NameSpace::Cond, r.resource);
    trace::EventId n = t.events[r.event].extra;
    if (n != trace::kNone)
      j["notify"] = eventJson(t, n);
    break;
  }
  case BlockKind::Semaphore:
    j["resource"] = name(t, trace::NameSpace::Sem, r.resource);
    j["count"] = r.count;
    break;
  case BlockKind::Barrier:
    j["resource"] = name(t, trace::NameSpace::Barrier, r.resource);
    j["arrived"] = r.arrived;
    j["needed"] = r.needed;
    break;
  }
  return j;
}

/// The old "cycle" entries: each cycle member's blocking event, what it
/// waits for, and the lock it holds that the previous member waits for.
json cycleJson(const trace::Trace &t, const solver::DeadlockFinding &d) {
  json out = json::array();
  size_t k = d.cycle.size();
  for (size_t i = 0; i < k; ++i) {
    const BlockReason &r = d.blocked[d.cycle[i]];
    const BlockReason &prev = d.blocked[d.cycle[(i + k - 1) % k]];
    json c = eventJson(t, r.event);
    c["waits_for"] = r.kind == BlockKind::Lock
                         ? name(t, trace::NameSpace::Lock, r.resource)
                         : "thread " + t.threadName(r.other);
    if (prev.kind == BlockKind::Lock) {
      c["holds"] = name(t, trace::NameSpace::Lock, prev.resource);
      if (prev.since != trace::kNone)
        c["held_since"] = eventJson(t, prev.since);
    }
    out.push_back(c);
  }
  return out;
}

} // namespace

std::string describeBlock(const trace::Trace &t, const BlockReason &r,
                          const std::vector<BlockReason> &all) {
  std::string who = "thread " + t.threadName(r.thread);
  switch (r.kind) {
  case BlockKind::Lock: {
    bool wait = t.events[r.event].kind == trace::EventKind::Wait;
    std::string s = who;
    if (wait)
      s += " returns from its wait on " + t.objName(t.events[r.event]) + " and";
    s += std::string(" waits for ") + (r.readMode ? "read lock " : "lock ") +
         name(t, trace::NameSpace::Lock, r.resource) + " held by " +
         t.threadName(r.other);
    if (r.holderFinished)
      s += ", which finished without releasing it";
    if (r.since != trace::kNone)
      s += " (acquired at " + at(t, r.since) + ")";
    return s;
  }
  case BlockKind::Join: {
    const BlockReason *c = reasonOf(all, r.other);
    return who + " joins " + t.threadName(r.other) +
           (c ? " which is blocked on " + shortReason(t, *c)
              : " which never finishes");
  }
  case BlockKind::NotCreated:
    return who + " is never created: its creator " + t.threadName(r.other) +
           " is blocked before " + at(t, r.since);
  case BlockKind::Notify:
    return who + " waits on condition " +
           name(t, trace::NameSpace::Cond, r.resource) +
           " (no notify left that can wake it)";
  case BlockKind::Semaphore:
    return who + " waits on semaphore " +
           name(t, trace::NameSpace::Sem, r.resource) + " (count " +
           std::to_string(r.count) + ", no post left)";
  case BlockKind::Barrier:
    return who + " waits at barrier " +
           name(t, trace::NameSpace::Barrier, r.resource) + ": " +
           std::to_string(r.arrived) + " of " + std::to_string(r.needed) +
           " arrived";
  }
  return who;
}

json blockedJson(const trace::Trace &t, const solver::DeadlockFinding &d) {
  json out = json::array();
  for (const auto &r : d.blocked) {
    json b = eventJson(t, r.event);
    trace::EventKind k = t.events[r.event].kind;
    // Where the replayer must find the thread: at the event, after its
    // first half for a wait or barrier (a thread never created: nowhere).
    b["half_done"] =
        r.kind != BlockKind::NotCreated &&
        (k == trace::EventKind::Wait || k == trace::EventKind::Barrier);
    b["blocked_on"] = resourceJson(t, r);
    b["reason"] = describeBlock(t, r, d.blocked);
    out.push_back(b);
  }
  return out;
}

json deadlockJson(const trace::Trace &t, const solver::DeadlockFinding &d,
                  bool witness) {
  json threads = json::array();
  for (const auto &b : d.blocked)
    threads.push_back(t.threadName(b.thread));
  json j{{"kind", d.kind},
         {"threads", threads},
         {"cycle", cycleJson(t, d)},
         {"blocked", blockedJson(t, d)},
         {"witness", witness ? json(d.witness) : json::array()}};
  addStepsWithHalves(j, d.steps, witness);
  return j;
}

json deadlocksJson(const trace::Trace &t, const solver::DeadlockResult &r,
                   const analysis::TraceIndex &) {
  json out = json::array();
  for (const auto &d : r.deadlocks)
    out.push_back(deadlockJson(t, d, true));
  return out;
}

json deadlockWitnessJson(const trace::Trace &t,
                         const solver::DeadlockFinding &d,
                         const analysis::TraceIndex &idx,
                         const std::string &tracePath) {
  // Every thread's state after the witness, for a replayer: blocked at an
  // event, finished, or free to run (not part of the deadlock).
  std::vector<uint32_t> done(idx.numThreads(), 0);
  for (const auto &s : d.steps)
    if (!s.half)
      ++done[t.events[s.event].thread];
  json state = json::array();
  for (trace::ThreadId u = 0; u < idx.numThreads(); ++u) {
    const auto &te = idx.threadEvents(u);
    json s{{"thread", t.threadName(u)}};
    const BlockReason *b = reasonOf(d.blocked, u);
    if (b) {
      s["status"] =
          b->kind == BlockKind::NotCreated ? "not-created" : "blocked";
      s["next_event"] = b->event;
    } else if (done[u] == te.size()) {
      s["status"] = "finished";
    } else {
      s["status"] = "running";
      s["next_event"] = te[done[u]];
    }
    state.push_back(s);
  }
  json threads = json::array();
  for (const auto &b : d.blocked)
    threads.push_back(t.threadName(b.thread));
  return {{"tool", "racepredict"},   {"kind", "deadlock"},
          {"deadlock_kind", d.kind}, {"trace", tracePath},
          {"threads", threads},      {"blocked", blockedJson(t, d)},
          {"witness", d.witness},    {"steps", stepsJson(d.steps)},
          {"state", state}};
}

void printDeadlockReport(const trace::Trace &t, const solver::DeadlockResult &r,
                         const analysis::TraceIndex &, const ReportContext &ctx,
                         std::ostream &out) {
  for (const auto &d : r.deadlocks) {
    out << "==================\n"
        << "WARNING: racepredict: " << d.kind << " deadlock (predicted), "
        << d.blocked.size() << " thread" << (d.blocked.size() == 1 ? "" : "s")
        << " blocked\n";
    for (const auto &b : d.blocked)
      out << "  [" << b.event << "] " << describeEvent(t, b.event) << "\n"
          << "      " << describeBlock(t, b, d.blocked) << "\n";
    std::vector<trace::EventId> blocked;
    for (const auto &b : d.blocked)
      blocked.push_back(b.event);
    const std::vector<trace::EventId> &steps = d.witness;
    std::vector<bool> essential = essentialSteps(t, steps, blocked);
    printWitness(
        out, t, steps, essential,
        [&](size_t i) {
          return "[" + std::to_string(steps[i]) + "] " +
                 describeEvent(t, steps[i]) +
                 (essential[i] ? "   <== then blocked" : "");
        },
        "then every thread above is blocked for good", ctx.fullWitness);
  }
  if (!r.deadlocks.empty())
    out << "==================\n";
  for (const auto &[evs, why] : r.unknowns) {
    out << "racepredict: could not decide the deadlock candidate (events ";
    for (size_t i = 0; i < evs.size(); ++i)
      out << (i ? ", " : "") << evs[i];
    out << "): " << why << "\n";
  }
  if (r.stats.search.truncated)
    out << "racepredict: warning: the deadlock candidate search stopped at "
           "its limit; deadlocks may be missing\n";
  out << "SUMMARY: racepredict: " << r.deadlocks.size() << " deadlock"
      << (r.deadlocks.size() == 1 ? "" : "s") << " predicted in "
      << (ctx.tracePath.empty() ? "trace" : ctx.tracePath) << " ("
      << r.stats.candidates << " candidates, " << r.stats.solverCalls
      << " solver calls, " << r.stats.unknown << " unknown)\n";
}

} // namespace racepredict::report
