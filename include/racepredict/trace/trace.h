//===- trace/trace.h - In-memory trace: events, names, source locations --===//
#pragma once

#include "racepredict/trace/event.h"
#include "racepredict/trace/event_stacks.h"
#include "racepredict/trace/recording_stop.h"
#include "racepredict/trace/symbol_table.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace racepredict::trace {

struct SourceLoc {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string function;
  /// The location this one was inlined into (a call site of `function`'s
  /// caller, from the DILocation's inlinedAt), 0 = not inlined. Reports
  /// expand the chain into frames, as TSan's symbolizer does.
  SrcId inlinedAt = 0;
  /// `file:line[:col]` (no function), as reports print it.
  std::string str() const;
};

/// One node of the call-stack trie: the stack of its parent plus a call
/// site. Node 0 is the empty stack (main's or a thread's start routine).
struct StackNode {
  uint32_t parent;
  SrcId callSite;
};

/// The address a location name stands for. Recorded traces name memory
/// outside global variables by its address in hex (`0x7f3a10`), and the
/// reader names a location after a write the trace cannot show `NAME~N`
/// (trace/hidden_writes.cpp), still at that address. Other names (variables,
/// hand-written names) have none: nullopt.
std::optional<uint64_t> locationAddress(std::string_view name);

/// A recorded execution. Event order in `events` is the observed total order;
/// an event's index there is its EventId (what reports and witnesses name).
class Trace {
public:
  Trace();

  std::vector<Event> events;
  std::array<SymbolTable, kNumNameSpaces> names;
  /// sources[0] is the empty location.
  std::vector<SourceLoc> sources;
  /// `init` lines: explicit initial values of locations.
  std::unordered_map<SymId, int64_t> initValues;
  /// Old (read) values of atomic read-modify-writes.
  std::vector<int64_t> rmwOld;
  /// Dependence lists of branches (`br <- i j`) and of writes' values
  /// (`wr x v <- i j`, docs/dependences.md): CSR over depItems.
  std::vector<uint32_t> depOffsets{0};
  std::vector<EventId> depItems;
  /// Custom event arguments: CSR over argItems (custom name space symbols).
  std::vector<uint32_t> argOffsets{0};
  std::vector<SymId> argItems;
  /// Call stacks (binary format v2, text `@frame` lists): a trie of call
  /// sites; stackNodes[0] is the empty stack.
  std::vector<StackNode> stackNodes{{kNone, 0}};
  /// Per event, its stack node (as runs); empty when the trace carries no
  /// stacks.
  EventStacks eventStacks;
  /// Set when the recording stopped before the program's own end.
  std::optional<RecordingStop> stop;

  SymbolTable &table(NameSpace ns) { return names[static_cast<int>(ns)]; }
  const SymbolTable &table(NameSpace ns) const {
    return names[static_cast<int>(ns)];
  }
  std::string threadName(ThreadId t) const {
    return table(NameSpace::Thread).name(t);
  }
  size_t numThreads() const { return table(NameSpace::Thread).size(); }
  /// Name of an event's primary object (location, lock, child thread...).
  std::string objName(const Event &e) const;
  SrcId addSource(SourceLoc loc);

  /// Whether a branch or write has a dependence list (else the plain rule:
  /// it depends on every earlier read of its thread).
  bool hasDeps(const Event &e) const {
    return (e.kind == EventKind::Branch || e.kind == EventKind::Write) &&
           e.extra != kNone;
  }
  std::pair<const EventId *, const EventId *> deps(const Event &e) const;
  uint32_t addDeps(const std::vector<EventId> &deps);
  uint32_t addArgs(const std::vector<SymId> &args);
  std::pair<const SymId *, const SymId *> args(const Event &e) const;

  /// The node for `parent`'s stack with `callSite` pushed (interned).
  uint32_t pushStack(uint32_t parent, SrcId callSite);
  /// The stack node of event `e` (0 when the trace has no stacks).
  uint32_t stackOf(EventId e) const {
    return e < eventStacks.size() ? eventStacks[e] : 0;
  }
  /// The source frames of event `e`, innermost first: its own location and
  /// the locations it was inlined into, then each call site (with its
  /// inlined chain). Frames without a location are skipped.
  std::vector<SrcId> frames(EventId e) const;

  /// The value an atomic rmw read.
  int64_t rmwReadValue(const Event &e) const { return rmwOld[e.extra]; }

private:
  std::unordered_map<uint64_t, uint32_t> stackIndex_; ///< (parent, site)
};

} // namespace racepredict::trace
