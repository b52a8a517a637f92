//===- report/witness_condense.cpp - The witness steps that matter --------===//
#include "racepredict/report/witness_condense.h"

#include "racepredict/report/names.h"

#include <algorithm>
#include <unordered_map>

namespace racepredict::report {

using trace::Event;
using trace::EventId;
using trace::EventKind;

const char *stepRoleName(StepRole r) {
  switch (r) {
  case StepRole::Hidden:
    return "hidden";
  case StepRole::Essential:
    return "essential";
  case StepRole::Last:
    return "last";
  case StepRole::Sync:
    return "sync";
  case StepRole::Read:
    return "read";
  case StepRole::Context:
    return "context";
  }
  return "hidden";
}

namespace {

/// Events that order threads through an object (a lock, condition,
/// semaphore, barrier, atomic location): their order is what a schedule
/// chooses.
bool isSync(EventKind k) {
  switch (k) {
  case EventKind::Acquire:
  case EventKind::Release:
  case EventKind::RAcquire:
  case EventKind::TryFail:
  case EventKind::Wait:
  case EventKind::Signal:
  case EventKind::Broadcast:
  case EventKind::Barrier:
  case EventKind::SemInit:
  case EventKind::SemPost:
  case EventKind::SemWait:
  case EventKind::AtomicRead:
  case EventKind::AtomicWrite:
  case EventKind::AtomicRmw:
    return true;
  default:
    return false;
  }
}

uint64_t objKey(trace::NameSpace ns, uint32_t obj) {
  return (uint64_t(ns) << 32) | obj;
}

/// Marks the steps of `list` (witness positions on one object, in witness
/// order) that the witness puts in another order than the trace: a step
/// placed after one observed later than itself, and that one.
void markReordered(const std::vector<EventId> &steps,
                   const std::vector<size_t> &list, std::vector<bool> &mark) {
  // Forward: a step placed after one observed later (the latest so far);
  // backward: a step placed before one observed earlier. Between them
  // every step of a reordered pair is marked, in linear time.
  size_t ext = SIZE_MAX;
  for (size_t p : list) {
    if (ext != SIZE_MAX && steps[ext] > steps[p])
      mark[p] = mark[ext] = true;
    if (ext == SIZE_MAX || steps[p] > steps[ext])
      ext = p;
  }
  ext = SIZE_MAX;
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    if (ext != SIZE_MAX && steps[ext] < steps[*it])
      mark[*it] = mark[ext] = true;
    if (ext == SIZE_MAX || steps[*it] < steps[ext])
      ext = *it;
  }
}

/// Reads whose position relative to another thread's write to the same
/// location differs from the trace's: the solver kept their value (the
/// maximal causal model's read consistency), which is why the schedule
/// looks the way it does.
void markMovedReads(const trace::Trace &t, const std::vector<EventId> &steps,
                    const std::vector<size_t> &list, std::vector<bool> &mark) {
  // Prefix: the latest-observed write placed before; suffix: the
  // earliest-observed write placed after.
  EventId latest = 0;
  bool any = false;
  for (size_t p : list) {
    const Event &e = t.events[steps[p]];
    if (e.kind == EventKind::Read && any && latest > steps[p] &&
        t.events[latest].thread != e.thread)
      mark[p] = true;
    if (e.kind == EventKind::Write && (!any || steps[p] > latest))
      latest = steps[p], any = true;
  }
  EventId earliest = 0;
  any = false;
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    const Event &e = t.events[steps[*it]];
    if (e.kind == EventKind::Read && any && earliest < steps[*it] &&
        t.events[earliest].thread != e.thread)
      mark[*it] = true;
    if (e.kind == EventKind::Write && (!any || steps[*it] < earliest))
      earliest = steps[*it], any = true;
  }
}

/// Keeps the `cap` marked steps nearest the end of the witness.
void capNearestEnd(std::vector<bool> &mark, size_t cap) {
  size_t kept = 0;
  for (size_t i = mark.size(); i-- > 0;)
    if (mark[i] && ++kept > cap)
      mark[i] = false;
}

/// Per step, the frame a fold names: the innermost frame outside system
/// headers and libraries (a step in std::vector's push_back is folded
/// under the program's function that called it), else the innermost one.
class FoldFrames {
public:
  FoldFrames(const trace::Trace &t, const std::vector<EventId> &steps) : t_(t) {
    fn_.resize(steps.size());
    line_.resize(steps.size());
    std::unordered_map<uint64_t, std::pair<int, uint32_t>> cache;
    for (size_t i = 0; i < steps.size(); ++i) {
      EventId e = steps[i];
      uint64_t key = (uint64_t(t.stackOf(e)) << 32) | t.events[e].src;
      auto it = cache.find(key);
      if (it == cache.end())
        it = cache.emplace(key, frameOf(e)).first;
      fn_[i] = it->second.first;
      line_[i] = it->second.second;
    }
  }
  int fn(size_t step) const { return fn_[step]; }
  uint32_t line(size_t step) const { return line_[step]; }
  const std::pair<std::string, std::string> &name(int fn) const {
    return names_[fn];
  }

private:
  static bool system(const std::string &file) {
    return file.rfind("/usr/", 0) == 0;
  }
  std::pair<int, uint32_t> frameOf(EventId e) {
    std::vector<trace::SrcId> frames = t_.frames(e);
    if (frames.empty())
      return {-1, 0};
    trace::SrcId pick = frames[0];
    for (trace::SrcId s : frames)
      if (!system(t_.sources[s].file) && !t_.sources[s].function.empty()) {
        pick = s;
        break;
      }
    const trace::SourceLoc &l = t_.sources[pick];
    if (l.function.empty() && l.file.empty())
      return {-1, 0};
    auto key = std::make_pair(shortFunctionName(l.function), baseName(l.file));
    auto it = ids_.find(key.first + "\n" + key.second);
    if (it == ids_.end()) {
      it =
          ids_.emplace(key.first + "\n" + key.second, int(names_.size())).first;
      names_.push_back(key);
    }
    return {it->second, l.line};
  }

  const trace::Trace &t_;
  std::vector<int> fn_;
  std::vector<uint32_t> line_;
  std::unordered_map<std::string, int> ids_;
  std::vector<std::pair<std::string, std::string>> names_;
};

/// The folds of the hidden run [from, to): one per thread, in the order the
/// threads first appear in it.
void foldRun(const trace::Trace &t, const std::vector<EventId> &steps,
             const FoldFrames &frames, size_t from, size_t to,
             std::vector<WitnessLine> &out) {
  struct PerFn {
    size_t steps = 0;
    uint32_t lo = 0, hi = 0;
  };
  struct PerThread {
    size_t steps = 0;
    std::unordered_map<int, PerFn> fns;
  };
  std::vector<trace::ThreadId> order;
  std::unordered_map<trace::ThreadId, PerThread> by;
  for (size_t i = from; i < to; ++i) {
    trace::ThreadId u = t.events[steps[i]].thread;
    auto [it, fresh] = by.try_emplace(u);
    if (fresh)
      order.push_back(u);
    ++it->second.steps;
    PerFn &f = it->second.fns[frames.fn(i)];
    ++f.steps;
    if (uint32_t l = frames.line(i)) {
      f.lo = f.lo ? std::min(f.lo, l) : l;
      f.hi = std::max(f.hi, l);
    }
  }
  for (trace::ThreadId u : order) {
    const PerThread &p = by[u];
    // The function with most steps names the fold (ties: the lower id,
    // the one met first).
    auto best = p.fns.end();
    for (auto it = p.fns.begin(); it != p.fns.end(); ++it)
      if (best == p.fns.end() || it->second.steps > best->second.steps ||
          (it->second.steps == best->second.steps && it->first < best->first))
        best = it;
    WitnessLine w;
    w.folded = true;
    w.fold.thread = u;
    w.fold.steps = p.steps;
    w.fold.firstStep = from;
    w.fold.lastStep = to - 1;
    if (best->first >= 0) {
      w.fold.function = frames.name(best->first).first;
      w.fold.file = frames.name(best->first).second;
      w.fold.firstLine = best->second.lo;
      w.fold.lastLine = best->second.hi;
    }
    size_t known = p.fns.size() - p.fns.count(-1);
    w.fold.otherFunctions = known ? known - (best->first >= 0) : 0;
    out.push_back(std::move(w));
  }
}

std::vector<WitnessLine> render(const trace::Trace &t,
                                const std::vector<EventId> &steps,
                                const std::vector<StepRole> &roles,
                                const FoldFrames &frames) {
  std::vector<WitnessLine> out;
  for (size_t i = 0; i < steps.size();) {
    if (roles[i] != StepRole::Hidden) {
      out.push_back({false, i, roles[i], {}});
      ++i;
      continue;
    }
    size_t j = i;
    while (j < steps.size() && roles[j] == StepRole::Hidden)
      ++j;
    if (j - i == 1)
      out.push_back({false, i, StepRole::Context, {}});
    else
      foldRun(t, steps, frames, i, j, out);
    i = j;
  }
  return out;
}

/// Which shown steps go first when the witness exceeds its budget: the
/// higher, the sooner.
int dropRank(StepRole r) {
  switch (r) {
  case StepRole::Read:
    return 3;
  case StepRole::Sync:
    return 2;
  case StepRole::Last:
    return 1;
  default:
    return 0; // essential: never
  }
}

} // namespace

std::vector<bool> essentialSteps(const trace::Trace &t,
                                 const std::vector<EventId> &steps,
                                 const std::vector<EventId> &events) {
  std::vector<bool> essential(steps.size());
  for (EventId e : events) {
    bool found = false;
    for (size_t i = steps.size(); i-- > 0;)
      if (steps[i] == e) {
        essential[i] = found = true;
        break;
      }
    for (size_t i = steps.size(); !found && i-- > 0;)
      if (t.events[steps[i]].thread == t.events[e].thread) {
        essential[i] = found = true;
      }
  }
  return essential;
}

std::vector<StepRole> witnessRoles(const trace::Trace &t,
                                   const std::vector<EventId> &steps,
                                   const std::vector<bool> &essential,
                                   const CondenseOptions &o) {
  size_t n = steps.size();
  std::vector<StepRole> roles(n, StepRole::Hidden);
  std::unordered_map<uint64_t, std::vector<size_t>> syncs, accesses;
  for (size_t i = 0; i < n; ++i) {
    const Event &e = t.events[steps[i]];
    bool has = false;
    trace::NameSpace ns = trace::objNameSpace(e.kind, &has);
    if (!has)
      continue;
    if (isSync(e.kind))
      syncs[objKey(ns, e.obj)].push_back(i);
    if (e.kind == EventKind::Wait)
      syncs[objKey(trace::NameSpace::Lock, e.aux)].push_back(i);
    if (e.kind == EventKind::Read || e.kind == EventKind::Write)
      accesses[objKey(ns, e.obj)].push_back(i);
  }
  std::vector<bool> sync(n), read(n), last(n);
  for (auto &[k, list] : syncs)
    markReordered(steps, list, sync);
  for (auto &[k, list] : accesses)
    markMovedReads(t, steps, list, read);
  capNearestEnd(sync, 8);
  capNearestEnd(read, 6);
  // The last steps of each thread of the finding, before its own steps.
  std::unordered_map<trace::ThreadId, size_t> involved;
  for (size_t i = 0; i < n; ++i)
    if (essential[i])
      involved[t.events[steps[i]].thread] = 0;
  for (size_t i = n; i-- > 0;) {
    auto it = involved.find(t.events[steps[i]].thread);
    if (it != involved.end() && !essential[i] && it->second++ < o.lastPerThread)
      last[i] = true;
  }
  for (size_t i = 0; i < n; ++i)
    roles[i] = essential[i] ? StepRole::Essential
               : sync[i]    ? StepRole::Sync
               : read[i]    ? StepRole::Read
               : last[i]    ? StepRole::Last
                            : StepRole::Hidden;
  return roles;
}

std::vector<WitnessLine> condenseWitness(const trace::Trace &t,
                                         const std::vector<EventId> &steps,
                                         const std::vector<bool> &essential,
                                         const CondenseOptions &o) {
  std::vector<StepRole> roles = witnessRoles(t, steps, essential, o);
  if (steps.size() <= o.maxLines) { // nothing to gain from folding
    std::vector<WitnessLine> lines;
    for (size_t i = 0; i < steps.size(); ++i)
      lines.push_back(
          {false,
           i,
           roles[i] == StepRole::Hidden ? StepRole::Context : roles[i],
           {}});
    return lines;
  }
  FoldFrames frames(t, steps);
  for (;;) {
    std::vector<WitnessLine> lines = render(t, steps, roles, frames);
    if (lines.size() <= o.maxLines)
      return lines;
    // Over budget: hide the least important shown step, the one furthest
    // from the bug first.
    size_t drop = SIZE_MAX;
    for (size_t i = 0; i < roles.size(); ++i)
      if (dropRank(roles[i]) > 0 &&
          (drop == SIZE_MAX || dropRank(roles[i]) > dropRank(roles[drop])))
        drop = i;
    if (drop == SIZE_MAX)
      return lines; // only the finding's own steps are left
    roles[drop] = StepRole::Hidden;
  }
}

std::string withThousands(size_t n) {
  std::string s = std::to_string(n);
  for (int i = int(s.size()) - 3; i > 0; i -= 3)
    s.insert(size_t(i), ",");
  return s;
}

std::string foldText(const trace::Trace &t, const Fold &f) {
  std::string s = "… " + withThousands(f.steps) + " step" +
                  (f.steps == 1 ? "" : "s") + " of " + t.threadName(f.thread);
  if (!f.function.empty()) {
    s += " in " + f.function;
    if (!f.file.empty()) {
      s += ", " + f.file;
      if (f.firstLine)
        s +=
            ":" + std::to_string(f.firstLine) +
            (f.lastLine != f.firstLine ? "–" + std::to_string(f.lastLine) : "");
    }
    if (f.otherFunctions)
      s += " and " + std::to_string(f.otherFunctions) + " other function" +
           (f.otherFunctions == 1 ? "" : "s");
  }
  return s + " …";
}

} // namespace racepredict::report
