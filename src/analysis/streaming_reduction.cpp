//===- analysis/streaming_reduction.cpp - Reduce a trace while loading it -===//
//
// The three steps of analysis/streaming_reduction.h, over the binary
// reader's RecordFilter (trace/record_filter.h).
//
#include "racepredict/analysis/streaming_reduction.h"

#include "racepredict/analysis/access_pieces.h"
#include "racepredict/trace/trace_file.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;
using trace::NameSpace;
using trace::RecordView;

namespace {

/// A set of seqs, one bit each (seqs of a recorded trace are dense).
class SeqSet {
public:
  void set(uint64_t s) {
    if (s / 64 >= w_.size())
      w_.resize(s / 64 + 1 + w_.size() / 2, 0);
    w_[s / 64] |= uint64_t{1} << (s % 64);
  }
  bool test(uint64_t s) const {
    return s / 64 < w_.size() && (w_[s / 64] >> (s % 64) & 1);
  }
  /// Calls f(seq) for every member, in increasing order.
  template <class F> void each(F f) const {
    for (size_t i = 0; i < w_.size(); ++i)
      for (uint64_t x = w_[i]; x; x &= x - 1)
        f(i * 64 + static_cast<uint64_t>(__builtin_ctzll(x)));
  }

private:
  std::vector<uint64_t> w_;
};

/// Step 1: per address, who accesses it and how wide.
struct AddressUse {
  uint64_t thread = 0;
  bool many = false; ///< several threads, or an atomic access
  uint8_t width = 1;
  uint32_t accesses = 0; ///< (saturating)
};

class Survey : public trace::RecordFilter {
public:
  /// Seqs of a recording are dense, and each record takes a byte at least:
  /// a seq beyond twice the file's bytes is a corrupt or converted file,
  /// which a bitmap of seqs would not fit (the whole-trace reader keeps
  /// runs of seqs instead).
  explicit Survey(uint64_t fileBytes)
      : maxSeq_(std::max<uint64_t>(2 * fileBytes, uint64_t{1} << 24)) {}
  bool keep(const RecordView &r) override {
    if (r.seq > maxSeq_) {
      sparse = true;
      return false;
    }
    all.set(r.seq);
    ++events;
    ++perThread[r.threadKey];
    frees += r.kind == EventKind::Free;
    // A free touches the location at its block's address (its obj) as an
    // access would: with another thread's accesses there, the load of the
    // freeing thread must see them too, or it counts that location as its
    // own local one (the locations inside the block exist only in the
    // loads of the threads that access them).
    if (!trace::isAccess(r.kind) && r.kind != EventKind::Free)
      return false;
    auto [it, fresh] = addrs.try_emplace(r.objKey);
    AddressUse &u = it->second;
    if (fresh)
      u.thread = r.threadKey;
    u.many = u.many || u.thread != r.threadKey || trace::isAtomic(r.kind);
    u.accesses += u.accesses != UINT32_MAX;
    if (r.kind != EventKind::Free)
      u.width = static_cast<uint8_t>(
          std::max<uint64_t>(u.width, std::min<uint64_t>(r.size, 255)));
    return false;
  }

  /// The addresses of shared units: overlapping byte ranges are one unit
  /// (accesses of different sizes are cut into pieces by the whole unit,
  /// analysis/access_pieces.h), shared when several threads or an atomic
  /// access touch it.
  std::unordered_set<uint64_t> sharedAddresses() {
    std::vector<std::pair<uint64_t, const AddressUse *>> byAddr;
    byAddr.reserve(addrs.size());
    for (const auto &[a, u] : addrs)
      byAddr.push_back({a, &u});
    std::sort(byAddr.begin(), byAddr.end(),
              [](const auto &x, const auto &y) { return x.first < y.first; });
    std::unordered_set<uint64_t> out;
    for (size_t i = 0; i < byAddr.size();) {
      size_t j = i;
      uint64_t end = byAddr[i].first + byAddr[i].second->width;
      bool many = false;
      uint64_t thread = byAddr[i].second->thread;
      for (; j < byAddr.size() && (j == i || byAddr[j].first < end); ++j) {
        const AddressUse &u = *byAddr[j].second;
        end = std::max(end, byAddr[j].first + u.width);
        many = many || u.many || u.thread != thread;
      }
      if (many)
        for (size_t k = i; k < j; ++k) {
          out.insert(byAddr[k].first);
          sharedAccesses += byAddr[k].second->accesses;
        }
      i = j;
    }
    return out;
  }

  SeqSet all;
  bool sparse = false; ///< a seq beyond maxSeq_: not read by streaming
  size_t events = 0, frees = 0;
  /// Accesses of shared units (sharedAddresses): every load stores them.
  size_t sharedAccesses = 0;
  std::unordered_map<uint64_t, size_t> perThread;
  std::unordered_map<uint64_t, AddressUse> addrs;

private:
  uint64_t maxSeq_;
};

/// Step 2's filter: the threads of one load, every access of a shared
/// unit, every free (a free touches the locations of its block:
/// local_reduction.cpp, locationOwners).
class LoadFilter : public trace::RecordFilter {
public:
  LoadFilter(const std::unordered_set<uint64_t> &threads,
             const std::unordered_set<uint64_t> &shared)
      : threads_(threads), shared_(shared) {
    stacks = false; // the final load stores the kept events' stacks
  }
  bool keep(const RecordView &r) override {
    bool own = threads_.count(r.threadKey) != 0;
    if (!own && r.kind != EventKind::Free &&
        !(trace::isAccess(r.kind) && shared_.count(r.objKey)))
      return false;
    stored.set(r.seq);
    if (own)
      owned.set(r.seq);
    return true;
  }
  SeqSet stored, owned;

private:
  const std::unordered_set<uint64_t> &threads_;
  const std::unordered_set<uint64_t> &shared_;
};

/// What step 2 found for each kept event, and step 3's filter.
class KeptFilter : public trace::RecordFilter {
public:
  KeptFilter() { givesNames = true; }
  bool keep(const RecordView &r) override { return kept.test(r.seq); }
  bool dependences(uint64_t seq, std::vector<uint64_t> &out,
                   bool *plain) override {
    auto it =
        std::lower_bound(lists.begin(), lists.end(), seq,
                         [](const List &l, uint64_t s) { return l.seq < s; });
    if (it == lists.end() || it->seq != seq)
      return false; // not listed by the reduction: cannot happen
    *plain = it->plain;
    out.assign(items.begin() + it->begin, items.begin() + it->end);
    return true;
  }
  uint32_t nameNumber(uint64_t seq) override {
    auto it = std::lower_bound(names.begin(), names.end(),
                               std::make_pair(seq, uint32_t{0}));
    return it != names.end() && it->first == seq ? it->second : 0;
  }
  /// The loads add in load order; lookups are by seq.
  void finish() {
    std::sort(names.begin(), names.end());
    std::sort(lists.begin(), lists.end(),
              [](const List &a, const List &b) { return a.seq < b.seq; });
  }

  SeqSet kept;
  /// Per kept event with a list in the file: the list the reduction gave
  /// it, items [begin, end), or none (the plain rule).
  struct List {
    uint64_t seq;
    size_t begin, end;
    bool plain;
  };
  std::vector<List> lists;
  std::vector<uint64_t> items;
  /// Kept accesses that go by a renamed name `x~k`: (seq, k).
  std::vector<std::pair<uint64_t, uint32_t>> names;
};

/// The k of a location name `x~k` (0 for `x`).
uint32_t nameNumberOf(std::string_view name) {
  size_t tilde = name.rfind('~');
  if (tilde == std::string_view::npos)
    return 0;
  uint32_t k = 0;
  for (char c : name.substr(tilde + 1)) {
    if (c < '0' || c > '9')
      return 0; // a `~` of the name itself (a global's)
    k = k * 10 + static_cast<uint32_t>(c - '0');
  }
  return k;
}

/// Threads into loads: the largest first, each load filled up to `cap`
/// events (0: the largest thread's, at least 8M, for many small threads).
std::vector<std::unordered_set<uint64_t>>
groupThreads(const std::unordered_map<uint64_t, size_t> &perThread,
             size_t cap) {
  std::vector<std::pair<size_t, uint64_t>> bySize;
  for (const auto &[th, n] : perThread)
    bySize.push_back({n, th});
  std::sort(bySize.rbegin(), bySize.rend());
  if (cap == 0)
    cap =
        std::max<size_t>(bySize.empty() ? 0 : bySize[0].first, size_t{8} << 20);
  std::vector<std::unordered_set<uint64_t>> loads;
  std::vector<size_t> sizes;
  for (const auto &[n, th] : bySize) {
    size_t k = 0;
    while (k < loads.size() && sizes[k] + n > cap)
      ++k;
    if (k == loads.size()) {
      loads.emplace_back();
      sizes.push_back(0);
    }
    loads[k].insert(th);
    sizes[k] += n;
  }
  return loads;
}

} // namespace

std::optional<LocalReduction>
reduceWhileLoading(const std::string &path, size_t maxListed, std::string *why,
                   StreamingLoadStats *stats, size_t loadEvents) {
  StreamingLoadStats local;
  StreamingLoadStats &st = stats ? *stats : local;
  st = StreamingLoadStats{};
  // The passes must read the same file: its size and time are checked
  // before each (a recording still being written is not read so).
  std::error_code ec;
  auto stamp = [&] {
    return std::make_pair(std::filesystem::file_size(path, ec),
                          std::filesystem::last_write_time(path, ec));
  };
  const auto first = stamp();
  auto load = [&](trace::RecordFilter &f) -> Expected<trace::Trace> {
    if (stamp() != first)
      return Error{path + ": the file changed while it was read"};
    trace::ReadOptions ro;
    ro.format = trace::TraceFormat::Binary;
    ro.filter = &f;
    ++st.passes;
    return trace::readTraceFile(path, ro);
  };
  auto fail = [&](const std::string &msg) {
    if (why)
      *why = msg;
    return std::nullopt;
  };
  // Step 1.
  Survey survey(first.first);
  {
    auto t = load(survey);
    if (!t)
      return fail(t.error().message);
  }
  if (survey.sparse)
    return fail(path + ": seqs far beyond the events' count");
  std::unordered_set<uint64_t> shared = survey.sharedAddresses();
  st.sharedAddresses = shared.size();
  survey.addrs = {};

  // Step 2.
  KeptFilter result;
  LocalReductionStats rs;
  for (const std::unordered_set<uint64_t> &threads :
       groupThreads(survey.perThread, loadEvents)) {
    LoadFilter f(threads, shared);
    // Sized once: growing by doubling would hold two copies at the peak.
    f.expected = survey.sharedAccesses + survey.frees;
    for (uint64_t th : threads)
      f.expected += survey.perThread[th];
    auto sub = load(f);
    if (!sub)
      return fail(sub.error().message);
    ++st.loads;
    st.largestLoad = std::max(st.largestLoad, sub->events.size());
    // Its own threads (before the reduction borrows the thread names).
    std::vector<bool> own(sub->numThreads(), false);
    {
      size_t i = 0;
      f.stored.each([&](uint64_t s) {
        if (i < sub->events.size() && f.owned.test(s))
          own[sub->events[i].thread] = true;
        ++i;
      });
      if (i != sub->events.size())
        return fail(path + ": a load's events and seqs disagree");
    }
    std::vector<bool> overlapping = overlappingLocations(*sub);
    LocalReduction red = reduceThreadLocalLending(
        *sub, maxListed, overlapping.empty() ? nullptr : &overlapping);
    rs.droppedBranches += red.stats.droppedBranches;
    // The seq of each kept event: the load's events are its stored seqs in
    // order.
    std::vector<uint64_t> seqOf(red.original.size());
    {
      size_t i = 0, j = 0;
      f.stored.each([&](uint64_t s) {
        if (j < red.original.size() && red.original[j] == i)
          seqOf[j++] = s;
        ++i;
      });
      RACEPREDICT_ASSERT(j == red.original.size(),
                         "kept events are events of the load");
    }
    // Its own threads' local locations and kept local accesses: a location
    // of a shared unit that one other thread alone touches is that
    // thread's load's.
    auto sumOwn = [&](const std::vector<size_t> &of) {
      size_t n = 0;
      for (size_t th = 0; th < of.size(); ++th)
        n += th < own.size() && own[th] ? of[th] : 0;
      return n;
    };
    rs.localLocations += sumOwn(red.stats.localLocationsOf);
    rs.keptLocalAccesses += sumOwn(red.stats.keptLocalAccessesOf);
    const trace::Trace &rt = red.trace;
    const trace::SymbolTable &locs = rt.table(NameSpace::Location);
    for (size_t j = 0; j < red.original.size(); ++j) {
      uint64_t s = seqOf[j];
      if (!f.owned.test(s))
        continue; // another load's thread: decided there
      result.kept.set(s);
      const Event &e = rt.events[j];
      if (trace::isAccess(e.kind))
        if (uint32_t k = nameNumberOf(locs.view(e.obj)))
          result.names.push_back({s, k});
      if (!sub->hasDeps(sub->events[red.original[j]]))
        continue;
      size_t begin = result.items.size();
      if (rt.hasDeps(e))
        for (auto [b, en] = rt.deps(e); b != en; ++b)
          result.items.push_back(seqOf[*b]);
      result.lists.push_back({s, begin, result.items.size(), !rt.hasDeps(e)});
    }
  }
  result.finish();

  // Step 3.
  LocalReduction out;
  {
    size_t n = 0;
    result.kept.each([&](uint64_t) { ++n; });
    result.expected = n;
    auto t = load(result);
    if (!t)
      return fail(t.error().message);
    out.trace = std::move(*t);
  }
  // Original ids: a kept event's rank among all seqs.
  out.original.reserve(out.trace.events.size());
  {
    EventId rank = 0;
    survey.all.each([&](uint64_t s) {
      if (result.kept.test(s))
        out.original.push_back(rank);
      ++rank;
    });
  }
  if (out.original.size() != out.trace.events.size())
    return fail(path + ": the kept events changed between reads of the file");
  rs.events = survey.events;
  rs.keptEvents = out.trace.events.size();
  rs.droppedAccesses = rs.events - rs.keptEvents - rs.droppedBranches;
  out.stats = rs;
  return out;
}

} // namespace racepredict::analysis
