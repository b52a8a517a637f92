//===- analysis/access_pieces.cpp - Accesses split at every access boundary
//===//
//
// analysis/access_pieces.h says why. A location name is an object and a
// byte offset in it: `0x7f3a10` (offset 0x7f3a10 of memory itself),
// `buf+8` (8 bytes into the global `buf`), `buf`; a `~N` suffix (a name
// after a hidden write, trace/hidden_writes.cpp) is the same bytes. Groups
// are the byte ranges that overlapping accesses of one object cover.
//
#include "racepredict/analysis/access_pieces.h"

#include "racepredict/analysis/local_reduction.h"
#include "racepredict/trace/binary_format.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;
using trace::NameSpace;
using trace::Trace;

namespace {

/// Where a location's bytes are: an object and the offset in it.
struct Place {
  std::string object; ///< "" = memory itself (a hex name)
  uint64_t offset = 0;
};

Place placeOf(const std::string &name) {
  std::string base = name.substr(0, name.find('~'));
  if (auto a = trace::locationAddress(base))
    return {"", *a};
  size_t plus = base.rfind('+');
  if (plus != std::string::npos && plus + 1 < base.size() &&
      base.find_first_not_of("0123456789", plus + 1) == std::string::npos)
    return {base.substr(0, plus), std::stoull(base.substr(plus + 1))};
  return {base, 0};
}

std::string pieceName(const std::string &object, uint64_t offset) {
  if (object.empty())
    return trace::hexKey(offset);
  return offset ? object + "+" + std::to_string(offset) : object;
}

/// Bytes [at, at + n) of an access of `size` bytes that recorded `v`
/// (sign-extended from its size, as the recorder writes values), as the
/// recorder would record an access of those bytes alone (little-endian).
int64_t slice(int64_t v, unsigned size, unsigned at, unsigned n) {
  uint64_t raw = static_cast<uint64_t>(v);
  if (size < 8)
    raw &= (uint64_t{1} << (8 * size)) - 1;
  raw >>= 8 * at;
  if (n < 8) {
    raw &= (uint64_t{1} << (8 * n)) - 1;
    uint64_t sign = uint64_t{1} << (8 * n - 1);
    raw = (raw ^ sign) - sign;
  }
  return static_cast<int64_t>(raw);
}

/// What one location (name) of the trace is accessed as.
struct LocUse {
  int object = -1; ///< index into Splitter::objects_, -1 = not sized
  uint64_t offset = 0;
  uint8_t sizes = 0; ///< bit k: an access of 1 << k bytes (1..8)
  ThreadId thread = kNone;
  bool manyThreads = false;
  int group = -1; ///< the split group, -1 = left as recorded
};

/// One split group: bytes [lo, hi) of an object, cut at `cuts`.
struct Group {
  int object;
  uint64_t lo, hi;
  std::vector<uint64_t> cuts; ///< sorted, lo and hi included
  bool manyThreads = false;
  bool mixed = false; ///< some access covers other bytes than another
};

/// The state of one piece in trace order: its current name and value.
struct PieceState {
  SymId name = kNone;
  bool known = false;
  int64_t value = 0;
  uint32_t renames = 0;
};

class Splitter {
public:
  /// `lender`: t itself, whose tables the pieces borrow (a copy of the
  /// names of a large trace is hundreds of MB).
  explicit Splitter(const Trace &t, Trace *lender = nullptr)
      : t_(t), lender_(lender) {}

  std::vector<bool> splitLocations() {
    std::vector<bool> out;
    if (findGroups()) {
      out.resize(uses_.size());
      for (SymId l = 0; l < uses_.size(); ++l)
        out[l] = uses_[l].group >= 0;
    }
    return out;
  }

  std::optional<AccessPieces> run() {
    if (!findGroups())
      return std::nullopt;
    AccessPieces p;
    countPieces(p);
    build(p);
    return p;
  }

private:
  static unsigned sizeBit(uint8_t size) {
    return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : 4;
  }

  /// Whether some group must be split.
  bool findGroups() {
    const trace::SymbolTable &names = t_.table(NameSpace::Location);
    uses_.resize(names.size());
    std::unordered_map<std::string, int> objectIds;
    for (const Event &e : t_.events) {
      if (!trace::isAccess(e.kind) || e.size == 0)
        continue;
      LocUse &u = uses_[e.obj];
      if (u.object < 0) {
        Place pl = placeOf(names.name(e.obj));
        auto [it, added] =
            objectIds.emplace(pl.object, static_cast<int>(objects_.size()));
        if (added)
          objects_.push_back(pl.object);
        u.object = it->second;
        u.offset = pl.offset;
      }
      unsigned bit = sizeBit(e.size);
      if (bit > 3)
        continue; // not 1, 2, 4 or 8 bytes: never recorded so
      u.sizes |= uint8_t(1u << bit);
      if (u.thread == kNone)
        u.thread = e.thread;
      else if (u.thread != e.thread)
        u.manyThreads = true;
    }
    // Per object, its locations by offset; a group is a run of locations
    // whose byte ranges overlap (transitively).
    std::map<std::pair<int, uint64_t>, std::vector<SymId>> byPlace;
    for (SymId l = 0; l < uses_.size(); ++l)
      if (uses_[l].sizes)
        byPlace[{uses_[l].object, uses_[l].offset}].push_back(l);
    Group g{-1, 0, 0, {}, false, false};
    auto close = [&] {
      if (g.object >= 0 && g.mixed && g.manyThreads) {
        std::sort(g.cuts.begin(), g.cuts.end());
        g.cuts.erase(std::unique(g.cuts.begin(), g.cuts.end()), g.cuts.end());
        groups_.push_back(std::move(g));
      }
      g = Group{-1, 0, 0, {}, false, false};
    };
    std::vector<SymId> members;
    auto flush = [&] {
      int id = g.object >= 0 && g.mixed && g.manyThreads
                   ? static_cast<int>(groups_.size())
                   : -1;
      for (SymId l : members)
        uses_[l].group = id;
      members.clear();
      close();
    };
    uint64_t firstRange = 0; ///< the range of the group's first access
    for (auto &[place, locs] : byPlace) {
      auto [object, offset] = place;
      uint8_t sizes = 0;
      for (SymId l : locs)
        sizes |= uses_[l].sizes;
      uint64_t end = offset;
      for (unsigned b = 0; b < 4; ++b)
        if (sizes >> b & 1)
          end = std::max(end, offset + (uint64_t{1} << b));
      if (g.object != object || offset >= g.hi)
        flush();
      if (g.object < 0) {
        g.object = object;
        g.lo = offset;
        g.hi = end;
        firstRange = offset << 4 | sizes;
      } else {
        g.hi = std::max(g.hi, end);
      }
      if ((offset << 4 | sizes) != firstRange || (sizes & (sizes - 1)))
        g.mixed = true;
      for (SymId l : locs) {
        members.push_back(l);
        const LocUse &u = uses_[l];
        ThreadId first = uses_[members.front()].thread;
        if (u.manyThreads || u.thread != first)
          g.manyThreads = true;
      }
      for (unsigned b = 0; b < 4; ++b)
        if (sizes >> b & 1) {
          g.cuts.push_back(offset);
          g.cuts.push_back(offset + (uint64_t{1} << b));
        }
    }
    flush();
    // A group with an `init` value stays as recorded (a value of one
    // location's whole width, which no piece has).
    std::vector<bool> keep(groups_.size(), false);
    for (const auto &[loc, v] : t_.initValues)
      if (loc < uses_.size() && uses_[loc].group >= 0)
        keep[uses_[loc].group] = true;
    for (LocUse &u : uses_)
      if (u.group >= 0 && keep[u.group])
        u.group = -1;
    for (const LocUse &u : uses_)
      if (u.group >= 0)
        return true;
    return false;
  }

  /// The pieces of an access: [begin, end) into its group's cuts.
  std::pair<size_t, size_t> pieceRange(const Event &e) const {
    const LocUse &u = uses_[e.obj];
    const Group &g = groups_[u.group];
    size_t b = std::lower_bound(g.cuts.begin(), g.cuts.end(), u.offset) -
               g.cuts.begin();
    size_t end =
        std::lower_bound(g.cuts.begin(), g.cuts.end(), u.offset + e.size) -
        g.cuts.begin();
    return {b, end};
  }

  bool isSplit(const Event &e) const {
    return trace::isAccess(e.kind) && e.size && e.obj < uses_.size() &&
           uses_[e.obj].group >= 0 && sizeBit(e.size) <= 3;
  }

  void countPieces(AccessPieces &p) {
    p.first.reserve(t_.events.size() + 1);
    EventId n = 0;
    for (const Event &e : t_.events) {
      p.first.push_back(n);
      if (isSplit(e)) {
        auto [b, end] = pieceRange(e);
        n += static_cast<EventId>(end - b);
        if (end - b > 1)
          ++p.splitAccesses;
      } else {
        ++n;
      }
    }
    p.first.push_back(n);
    p.groups = groups_.size();
  }

  /// The name piece `k` of group `g` goes by at a read that saw `seen`
  /// (a new one when it differs from the piece's last value: a write the
  /// trace cannot show) or at a write of `written`.
  SymId pieceAt(PieceState &s, const Group &g, size_t k,
                trace::SymbolTable &locs, const std::optional<int64_t> &seen,
                const std::optional<int64_t> &written) {
    std::string name = pieceName(objects_[g.object], g.cuts[k]);
    if (s.name == kNone)
      s.name = locs.intern(name);
    if (seen) {
      if (s.known && s.value != *seen)
        s.name = locs.intern(name + "~" + std::to_string(++s.renames));
      s.value = *seen;
      s.known = true;
    }
    if (written) {
      s.value = *written;
      s.known = true;
    }
    return s.name;
  }

  void build(AccessPieces &p) {
    // A lending trace's largest tables move (build() reads them no more).
    Trace moved;
    if (lender_) {
      moved.names.swap(lender_->names);
      moved.sources.swap(lender_->sources);
      moved.stackNodes.swap(lender_->stackNodes);
    }
    Trace &out = p.trace = tablesOf(t_);
    if (lender_) {
      out.names.swap(moved.names);
      out.sources.swap(moved.sources);
      out.stackNodes.swap(moved.stackNodes);
    }
    size_t n = p.first.back();
    out.events.reserve(n);
    p.original.reserve(n);
    trace::SymbolTable &locs = out.table(NameSpace::Location);
    std::vector<std::vector<PieceState>> state(groups_.size());
    for (size_t g = 0; g < groups_.size(); ++g)
      state[g].resize(groups_[g].cuts.size() - 1);
    std::vector<EventId> deps;
    for (EventId i = 0; i < t_.events.size(); ++i) {
      Event e = t_.events[i];
      if (e.kind == EventKind::Wait && e.extra != kNone)
        e.extra = p.first[e.extra];
      if (t_.hasDeps(e)) {
        deps.clear();
        auto [b, end] = t_.deps(e);
        for (const EventId *d = b; d != end; ++d)
          for (EventId k = p.first[*d]; k < p.first[*d + 1]; ++k)
            deps.push_back(k);
        e.extra = out.addDeps(deps);
      }
      if (!isSplit(e)) {
        push(p, e, i);
        continue;
      }
      const Group &g = groups_[uses_[e.obj].group];
      auto [b, end] = pieceRange(e);
      uint64_t at = uses_[e.obj].offset;
      bool rmw = e.kind == EventKind::AtomicRmw;
      int64_t old = rmw ? t_.rmwReadValue(e) : 0;
      for (size_t k = b; k < end; ++k) {
        Event piece = e;
        unsigned from = static_cast<unsigned>(g.cuts[k] - at);
        unsigned len = static_cast<unsigned>(g.cuts[k + 1] - g.cuts[k]);
        piece.size = static_cast<uint8_t>(len);
        piece.value = slice(e.value, e.size, from, len);
        std::optional<int64_t> seen, written;
        if (rmw) {
          piece.extra = static_cast<uint32_t>(out.rmwOld.size());
          out.rmwOld.push_back(slice(old, e.size, from, len));
          seen = out.rmwOld.back();
        } else if (trace::readsValue(e.kind)) {
          seen = piece.value;
        }
        if (trace::writesValue(e.kind))
          written = piece.value;
        piece.obj =
            pieceAt(state[uses_[e.obj].group][k], g, k, locs, seen, written);
        push(p, piece, i);
      }
    }
  }

  void push(AccessPieces &p, const Event &e, EventId from) {
    p.trace.events.push_back(e);
    p.original.push_back(from);
    if (!t_.eventStacks.empty())
      p.trace.eventStacks.push_back(t_.stackOf(from));
  }

  const Trace &t_;
  Trace *lender_;
  std::vector<LocUse> uses_;
  std::vector<Group> groups_;
  std::vector<std::string> objects_;
};

} // namespace

std::optional<AccessPieces> splitOverlappingAccesses(const Trace &t) {
  return Splitter(t).run();
}

std::optional<AccessPieces> splitOverlappingAccessesLending(Trace &t) {
  return Splitter(t, &t).run();
}

void giveBackTables(AccessPieces &p, Trace &t) {
  t.names.swap(p.trace.names);
  t.sources.swap(p.trace.sources);
  t.stackNodes.swap(p.trace.stackNodes);
}

std::vector<bool> overlappingLocations(const Trace &t) {
  return Splitter(t).splitLocations();
}

} // namespace racepredict::analysis
