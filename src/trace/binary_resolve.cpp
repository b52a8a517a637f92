//===- trace/binary_resolve.cpp - From a raw binary trace to a Trace ------===//
//
// The trace-level half of the binary reader (see binary_raw.h): everything
// that needs the whole file. Blocks of different threads interleave, so
// events are sorted by seq here, and only then can a wait's notify seq or a
// branch's dependence seqs become event indices. Checks mirror the text
// reader's (it checks them while parsing, when the events are known), and
// finishTrace then establishes the same invariants for both formats.
//
#include "binary_raw.h"

#include "racepredict/trace/text_format.h"

#include <algorithm>

namespace racepredict::trace {
namespace {

/// Custom arguments are recorded as numbers (the runtime's custom events):
/// small ones read best in decimal, addresses in hex as other keys are.
std::string customKeyName(uint64_t key) {
  auto v = static_cast<int64_t>(key);
  if (v >= -(int64_t{1} << 31) && v < (int64_t{1} << 32))
    return std::to_string(v);
  return hexKey(key);
}

class Resolver {
public:
  Resolver(RawTrace &raw, const std::string &name) : raw_(raw), name_(name) {}

  Expected<Trace> run() {
    if (!raw_.order.empty()) {
      auto r = mergeOrders(raw_, name_);
      if (!r)
        return r.error();
    }
    for (auto step : {&Resolver::bindNames, &Resolver::orderBySeq,
                      &Resolver::resolveRefs}) {
      auto r = (this->*step)();
      if (!r)
        return r.error();
    }
    // What resolution needed goes before the renaming interns its names
    // (on pigz + zlib 2.9M names, ~460 MB, where these held ~570 MB).
    raw_.seqRuns.clear();
    std::vector<uint64_t>().swap(raw_.depSeqs);
    std::vector<size_t>().swap(raw_.depOff);
    std::vector<uint64_t>().swap(raw_.notify);
    if (raw_.version >= 4)
      renameAfterHiddenWrites(raw_);
    raw_.t.events = std::move(raw_.events);
    if (!raw_.stacks.empty()) {
      raw_.stacks.resize(raw_.t.events.size(), 0);
      for (uint32_t node : raw_.stacks)
        raw_.t.eventStacks.push_back(node);
      std::vector<uint32_t>().swap(raw_.stacks);
    }
    // The same consistency pass as the text reader: thread ids, rmw values.
    auto r = finishTrace(raw_.t, name_);
    if (!r)
      return r.error();
    return std::move(raw_.t);
  }

private:
  Error failEvent(size_t i, const std::string &msg) const {
    return Error{name_ + ": event " + std::to_string(i) + ": " + msg};
  }
  /// Index of the event with `seq` (after orderBySeq), or kNone.
  uint32_t indexOf(uint64_t seq) const {
    return raw_.seqRuns.indexOf(seq, kNone);
  }
  Expected<bool> bindNames();
  Expected<bool> orderBySeq();
  Expected<bool> resolveRefs();

  RawTrace &raw_;
  const std::string &name_;
};

/// `name` / `name+OFF` for an address inside a recorded global variable,
/// else the hex key. `globals` is sorted by address.
std::string globalName(const std::vector<RawTrace::Global> &globals,
                       uint64_t key) {
  auto it = std::upper_bound(
      globals.begin(), globals.end(), key,
      [](uint64_t k, const RawTrace::Global &g) { return k < g.addr; });
  if (it != globals.begin()) {
    --it;
    if (key - it->addr < it->size)
      return key == it->addr ? it->name
                             : it->name + "+" + std::to_string(key - it->addr);
  }
  return hexKey(key);
}

Expected<bool> Resolver::bindNames() {
  std::vector<RawTrace::Global> &globals = raw_.globals;
  std::sort(globals.begin(), globals.end(),
            [](const RawTrace::Global &a, const RawTrace::Global &b) {
              return a.addr < b.addr;
            });
  // Two file-static globals may share a name: keep them apart (the name is
  // the location's identity once bound).
  std::unordered_map<std::string, int> uses;
  for (const auto &g : globals)
    ++uses[g.name];
  for (auto &g : globals)
    if (uses[g.name] > 1)
      g.name += "@" + hexKey(g.addr);
  // Keys that name the same string are one object, as in the text format.
  std::vector<SymId> remap[kNumNameSpaces];
  for (int ns = 0; ns < kNumNameSpaces; ++ns) {
    KeySpace &ks = raw_.keys[ns];
    SymbolTable &tab = raw_.t.names[ns];
    for (size_t i = 0; i < ks.keys.size(); ++i) {
      const std::string &n = ks.names[i];
      if (!n.empty())
        remap[ns].push_back(tab.intern(n));
      else if (ns == int(NameSpace::Thread))
        remap[ns].push_back(tab.intern("t" + std::to_string(ks.keys[i])));
      else if (ns == int(NameSpace::Custom))
        remap[ns].push_back(tab.intern(customKeyName(ks.keys[i])));
      else if (!globals.empty()) // variables, and locks etc. in globals
        remap[ns].push_back(tab.intern(globalName(globals, ks.keys[i])));
      else
        remap[ns].push_back(tab.intern(hexKey(ks.keys[i])));
    }
  }
  const auto &threads = remap[int(NameSpace::Thread)];
  for (Event &e : raw_.events) {
    e.thread = threads[e.thread];
    bool has = false;
    NameSpace ns = objNameSpace(e.kind, &has);
    if (has)
      e.obj = remap[int(ns)][e.obj];
    if (e.kind == EventKind::Wait)
      e.aux = remap[int(NameSpace::Lock)][e.aux];
  }
  for (SymId &a : raw_.t.argItems)
    a = remap[int(NameSpace::Custom)][a];
  if (raw_.t.stop)
    for (BlockedThread &b : raw_.t.stop->blocked) {
      bool has = false;
      b.object = remap[int(objNameSpace(b.op, &has))][b.object];
      b.thread = threads[b.thread];
    }
  for (auto &[loc, v] : raw_.inits)
    raw_.t.initValues[remap[int(NameSpace::Location)][loc]] = v;
  // Source ids: file order of definition (a converted trace keeps its ids).
  std::unordered_map<uint64_t, SrcId> srcMap;
  for (auto &[id, loc] : raw_.sources)
    srcMap.emplace(id, raw_.t.addSource(std::move(loc)));
  // In a cut file a stack may name a source whose SOURCES entry was lost:
  // it gets an empty placeholder, so distinct ids stay distinct.
  auto mapSrc = [&](uint64_t id, SrcId *out) {
    auto it = srcMap.find(id);
    if (it == srcMap.end() && raw_.cut)
      it = srcMap.emplace(id, raw_.t.addSource(SourceLoc{})).first;
    if (it == srcMap.end())
      return false;
    *out = it->second;
    return true;
  };
  for (size_t i = 0, n = raw_.t.sources.size(); i < n; ++i) {
    SrcId at = raw_.t.sources[i].inlinedAt, mapped = 0;
    if (at != 0 && !mapSrc(at, &mapped))
      return Error{name_ + ": a source is inlined at source id " +
                   std::to_string(at) + ", which no SOURCES block defines"};
    raw_.t.sources[i].inlinedAt = mapped;
  }
  // Parents precede children in the raw trie, so rebuilding it in order
  // keeps every node id.
  for (size_t n = 1; n < raw_.stackNodes.size(); ++n) {
    SrcId site = 0;
    if (raw_.stackNodes[n].callSite != 0 &&
        !mapSrc(raw_.stackNodes[n].callSite, &site))
      return Error{name_ + ": a call stack names source id " +
                   std::to_string(raw_.stackNodes[n].callSite) +
                   ", which no SOURCES block defines"};
    uint32_t id = raw_.t.pushStack(raw_.stackNodes[n].parent, site);
    RACEPREDICT_ASSERT(id == n, "call-stack trie ids must survive remapping");
  }
  // A blocked thread's location is only information: one the file does
  // not define is dropped.
  if (raw_.t.stop) {
    for (BlockedThread &b : raw_.t.stop->blocked) {
      auto it = srcMap.find(b.loc);
      b.loc = it != srcMap.end() ? it->second : 0;
    }
  }
  for (size_t i = 0; i < raw_.events.size(); ++i) {
    Event &e = raw_.events[i];
    if (e.src == 0)
      continue;
    auto it = srcMap.find(e.src);
    if (it != srcMap.end())
      e.src = it->second;
    else if (raw_.cut) // the SOURCES block may have been after the cut
      e.src = 0;
    else
      return Error{name_ + ": source id " + std::to_string(e.src) +
                   " of an event of thread " + raw_.t.threadName(e.thread) +
                   " is defined by no SOURCES block"};
  }
  return true;
}

Expected<bool> Resolver::orderBySeq() {
  SeqRuns &seqs = raw_.seqRuns;
  if (seqs.ascending())
    return true;
  // The runs in seq order (seqs are a global counter: runs of different
  // threads interleave but never overlap, unless the trace is corrupt).
  const std::vector<SeqRuns::Run> &runs = seqs.runs();
  std::vector<uint32_t> bySeq(runs.size());
  for (uint32_t r = 0; r < bySeq.size(); ++r)
    bySeq[r] = r;
  std::sort(bySeq.begin(), bySeq.end(), [&](uint32_t a, uint32_t b) {
    return runs[a].seq != runs[b].seq ? runs[a].seq < runs[b].seq
                                      : runs[a].first < runs[b].first;
  });
  // The smallest seq two events share: where a run starts before the runs
  // sorted before it end.
  uint64_t covered = 0; // one past the highest seq of the runs so far
  uint32_t coveredBy = 0;
  for (size_t k = 0; k < bySeq.size(); ++k) {
    const SeqRuns::Run &run = runs[bySeq[k]];
    if (k > 0 && run.seq < covered) {
      uint32_t other = runs[coveredBy].first +
                       static_cast<uint32_t>(run.seq - runs[coveredBy].seq);
      uint32_t a = std::min(other, run.first), b = std::max(other, run.first);
      return Error{name_ + ": two events have seq " + std::to_string(run.seq) +
                   " (threads " + raw_.t.threadName(raw_.events[a].thread) +
                   " and " + raw_.t.threadName(raw_.events[b].thread) + ")"};
    }
    uint64_t end = run.seq + (seqs.end(bySeq[k]) - run.first);
    if (k == 0 || end > covered) {
      covered = end;
      coveredBy = bySeq[k];
    }
  }
  // Slot k of the new order takes the event `from(k)`: the sorted runs,
  // each moved whole, found by binary search over where each one starts
  // (one entry per run where a table of the event per slot took 4 bytes an
  // event: 451 MB and loading's peak on pigz + zlib, whose 118M events are
  // 771 runs).
  size_t n = seqs.size();
  std::vector<uint32_t> slotOf(bySeq.size()); // first slot of sorted run j
  SeqRuns sorted;
  uint32_t slot = 0;
  for (size_t j = 0; j < bySeq.size(); ++j) {
    const SeqRuns::Run &run = runs[bySeq[j]];
    slotOf[j] = slot;
    for (uint32_t i = run.first, e = seqs.end(bySeq[j]); i < e; ++i, ++slot)
      sorted.push(run.seq + (i - run.first));
  }
  auto from = [&](size_t k) -> size_t {
    size_t j = static_cast<size_t>(
        std::upper_bound(slotOf.begin(), slotOf.end(), k) - slotOf.begin() - 1);
    return runs[bySeq[j]].first + (k - slotOf[j]);
  };
  // Apply the permutation in place, cycle by cycle: a second copy of the
  // events would double the peak memory of loading a long trace.
  std::vector<uint32_t> &stacks = raw_.stacks; // call stacks move along
  bool withStacks = !stacks.empty();
  if (withStacks)
    stacks.resize(n, 0);
  std::vector<bool> placed(n, false);
  for (size_t k = 0; k < n; ++k) {
    if (placed[k] || from(k) == k)
      continue;
    Event e = raw_.events[k];
    uint32_t st = withStacks ? stacks[k] : 0;
    size_t dst = k;
    while (true) {
      placed[dst] = true;
      size_t src = from(dst);
      if (src == k) {
        raw_.events[dst] = e;
        if (withStacks)
          stacks[dst] = st;
        break;
      }
      raw_.events[dst] = raw_.events[src];
      if (withStacks)
        stacks[dst] = stacks[src];
      dst = src;
    }
  }
  seqs = std::move(sorted);
  return true;
}

Expected<bool> Resolver::resolveRefs() {
  std::vector<EventId> deps;
  // Every list is copied once: sized up front, not grown by doubling
  // (which holds the old and the new array at once at loading's peak).
  raw_.t.depItems.reserve(raw_.t.depItems.size() + raw_.depSeqs.size());
  raw_.t.depOffsets.reserve(raw_.t.depOffsets.size() + raw_.depOff.size());
  for (size_t i = 0; i < raw_.events.size(); ++i) {
    Event &e = raw_.events[i];
    if (e.kind == EventKind::Fork || e.kind == EventKind::Join) {
      if (e.obj == e.thread)
        return failEvent(i, std::string("a thread cannot ") + opName(e.kind) +
                                " itself");
    } else if (e.kind == EventKind::Wait) {
      uint64_t n = raw_.notify[e.extra];
      e.extra = n == 0 ? kNone : indexOf(n - 1);
      e.flags |= kEventExplicitMatch; // finishTrace keeps it (or none)
      if (n == 0 || (e.extra == kNone && (raw_.cut || raw_.filtered)))
        continue; // the notify was after the cut: treat as unmatched
      if (e.extra == kNone)
        return failEvent(i, "the wait names notify seq " +
                                std::to_string(n - 1) + ", which no event has");
      const Event &ne = raw_.events[e.extra];
      if (!isNotify(ne.kind) || ne.obj != e.obj)
        return failEvent(i, "the wait's notify (event " +
                                std::to_string(e.extra) +
                                ") is not a signal/broadcast on its cond");
    } else if (raw_.t.hasDeps(e)) {
      std::string what = e.kind == EventKind::Branch ? "branch" : "write";
      deps.clear();
      bool lost = false;
      for (size_t k = raw_.depOff[e.extra]; k < raw_.depOff[e.extra + 1]; ++k) {
        uint32_t d = indexOf(raw_.depSeqs[k]);
        if (d == kNone) {
          lost = true;
          continue;
        }
        const Event &de = raw_.events[d];
        if (de.thread != e.thread || !readsValue(de.kind))
          return failEvent(i, what + " dependence " + std::to_string(d) +
                                  " is not a read of thread " +
                                  raw_.t.threadName(e.thread));
        deps.push_back(d);
      }
      if (lost && !raw_.cut && !raw_.filtered)
        return failEvent(i,
                         "a " + what + " depends on a seq that no event has");
      // A lost dependence (cut file, or left out by a filter) falls back to
      // the conservative rule.
      e.extra = lost ? kNone : raw_.t.addDeps(deps);
    }
  }
  return true;
}

} // namespace

Expected<Trace> resolveRawTrace(RawTrace &raw, const std::string &name) {
  return Resolver(raw, name).run();
}

} // namespace racepredict::trace
