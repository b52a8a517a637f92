//===- trace/binary_raw.h - A binary trace as read, before resolution ----===//
//
// Private to src/trace. binary_reader.cpp fills a RawTrace block by block
// (keys, seqs and source ids exactly as the file has them);
// binary_resolve.cpp then binds names, orders events by seq and turns seqs
// into event indices. The split keeps byte-level parsing apart from the
// trace-level checks that need the whole file.
//
#pragma once

#include "binary_codec.h"
#include "racepredict/support/error.h"
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/trace.h"
#include "seq_runs.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace racepredict::trace {

/// The provisional ids of one name space, in order of first appearance.
struct KeySpace {
  std::unordered_map<uint64_t, uint32_t> index;
  std::vector<uint64_t> keys;
  std::vector<std::string> names; ///< "" = no NAMES entry

  uint32_t id(uint64_t key) {
    auto [it, fresh] = index.emplace(key, static_cast<uint32_t>(keys.size()));
    if (fresh) {
      keys.push_back(key);
      names.emplace_back();
    }
    return it->second;
  }
};

/// How a v3 record is placed in the observed order (format.h).
enum class Order : uint8_t { Ticket, Stripe, Free };

struct RawTrace {
  /// Holds rmwOld and custom args (args as provisional custom ids).
  Trace t;
  /// Thread, obj and the wait's lock are provisional ids of `keys`; src is
  /// the file's source id; extra indexes notify / depOff / t's side tables.
  std::vector<Event> events;
  /// The events' seqs (parallel to events): runs of consecutive seqs.
  SeqRuns seqRuns;
  /// v3 only, parallel to events until mergeOrders turns them into seqRuns:
  /// a ticket, a stripe-order field or 0 (see `order`).
  std::vector<uint64_t> seqs;
  /// Parallel to events once any event has a call stack (t.stackNodes, with
  /// file source ids as call sites until resolved); empty otherwise.
  std::vector<uint32_t> stacks;
  /// The call-stack trie with file source ids as call sites (Trace's shape).
  std::vector<StackNode> stackNodes{{kNone, 0}};
  std::unordered_map<uint64_t, uint32_t> stackIndex;
  uint32_t pushStack(uint32_t parent, uint64_t site) {
    auto [it, fresh] =
        stackIndex.emplace(uint64_t{parent} << 32 | site,
                           static_cast<uint32_t>(stackNodes.size()));
    if (fresh)
      stackNodes.push_back({parent, static_cast<SrcId>(site)});
    return it->second;
  }
  KeySpace keys[kNumNameSpaces];
  std::vector<std::pair<uint64_t, SourceLoc>> sources; ///< file id, location
  std::vector<std::pair<uint32_t, int64_t>> inits;     ///< provisional loc id
  /// GLOBALS entries: address, size, name (names location keys in range).
  struct Global {
    uint64_t addr, size;
    std::string name;
  };
  std::vector<Global> globals;
  /// Wait events: extra indexes this (notify seq + 1, 0 = none).
  std::vector<uint64_t> notify;
  /// Branch events with deps: extra indexes depOff (CSR over depSeqs).
  std::vector<size_t> depOff{0};
  std::vector<uint64_t> depSeqs;
  /// v3: per event how it is ordered (empty for v1/v2/v4). seqs holds a
  /// ticket, a stripe-order field or 0; notify holds tickets + 1 and depSeqs
  /// indexes among the thread's events (1-based) until mergeOrders.
  std::vector<uint8_t> order;
  /// v3 mark records: a ticket of `thread` after its events below `pos`.
  struct Mark {
    uint32_t thread;
    uint64_t seq;
    uint32_t pos;
  };
  std::vector<Mark> marks;
  /// The file ended before its END block: references past the cut are
  /// dropped instead of being errors.
  bool cut = false;
  /// Read through a RecordFilter: references to records it left out are
  /// dropped as those past a cut are (trace/record_filter.h).
  bool filtered = false;
  /// The filter gave each access its name number (in its aux, + 1).
  bool namesGiven = false;
  unsigned version = 0; ///< the file's format version
};

/// Parses a STOP block into raw.t.stop (thread and object keys as
/// provisional ids, the file's source ids); the error message, or "" (also
/// for a block cut short when `complete` is false). binary_stop.cpp.
std::string readStopBlock(codec::Cursor &c, bool complete, RawTrace &raw);
/// The STOP block's payload for `s` (ids as the writer's keys).
std::string stopBlockPayload(const RecordingStop &s);

/// v4: gives the accesses after a write the trace does not show (a read
/// that sees another value than the last recorded one) a new location
/// name, in the observed order. hidden_writes.cpp.
void renameAfterHiddenWrites(RawTrace &raw);

/// v3: merges the threads' events into one observed order (a topological
/// order of program, ticket and stripe order), fills seqRuns with the
/// events' ranks in it (freeing seqs) and rewrites notify and depSeqs as for
/// v2. On a cut file, events that cannot be ordered (what
/// they wait for was lost) are dropped. binary_merge.cpp.
Expected<bool> mergeOrders(RawTrace &raw, const std::string &name);

/// Binds names, orders by seq, resolves seqs to indices, validates what the
/// text reader validates and runs finishTrace. `name` is for messages.
Expected<Trace> resolveRawTrace(RawTrace &raw, const std::string &name);

} // namespace racepredict::trace
